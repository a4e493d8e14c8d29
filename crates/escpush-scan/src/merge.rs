//! Partial scans put together: [`ScanResult::merge`] adds up the results of scans of disjoint
//! inputs (the files a cluster's executors read, each its own) into the result of one scan of
//! them all, and [`ScanResult::to_bytes`] / [`ScanResult::from_bytes`] carry a partial result
//! from the process that scanned to the one that merges.
//!
//! The merge is exact when the parts are: give each part's scan no `top` (a part lists every
//! group, exactly), and `top` once to the merge, which lists the `top` groups of the sums. A
//! group's lines in one part never hide in another part's "other", so the groups listed and
//! their counts are those one scan of every input gives. Parts that were pruned (a scan past
//! [`Breakdown::max_groups`](crate::Breakdown::max_groups), or with `top`) still merge, every
//! line counted once, but the result then says it is not exact.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use escpush_filter::{GroupValue, Malformation, MalformedLine, FIRST_SECOND, LAST_SECOND};

use crate::breakdown::{BreakdownResult, Bucket, Counts, Group, MAX_BUCKETS};
use crate::result::{InputResult, Malformed, MalformedReason, ScanResult};
use crate::ScanError;

impl ScanResult {
    /// The result of one scan of every part's inputs, from the results of scans of each
    /// (parts in input order, inputs disjoint): the counts added up, the first malformed line
    /// the first part's that has one, the inputs one after another (an input named twice is
    /// listed twice, as a scan lists it), the breakdowns merged and then cut to `top`
    /// groups (see the [module docs](self) for when that is exact). `seconds` is the
    /// longest part's: the caller who timed the whole sets its own.
    pub fn merge(parts: impl IntoIterator<Item = ScanResult>, top: Option<usize>) -> ScanResult {
        let mut out = ScanResult::empty(Vec::new());
        let mut breakdowns = Vec::new();
        for part in parts {
            out.total += part.total;
            out.matched += part.matched;
            out.malformed += part.malformed;
            out.bytes += part.bytes;
            out.matched_bytes += part.matched_bytes;
            out.seconds = out.seconds.max(part.seconds);
            if out.first_malformed.is_none() {
                out.first_malformed = part.first_malformed;
            }
            out.inputs.extend(part.inputs);
            breakdowns.extend(part.breakdown);
        }
        if !breakdowns.is_empty() {
            out.breakdown = Some(BreakdownResult::merge(breakdowns, top));
        }
        out
    }
}

impl BreakdownResult {
    /// The breakdown of one scan of every part's lines, from each part's (see
    /// [`ScanResult::merge`]): groups with equal keys added up, sorted as a scan sorts them
    /// (most lines first, ties in the order of their keys), the first `top` listed and the
    /// rest in "other"; buckets of equal start added up, the first [`MAX_BUCKETS`] in time
    /// listed. A bucket at or after the start of a part's unlisted buckets goes unlisted too
    /// (that part's lines of it are not told apart), so every listed bucket holds all its lines.
    pub fn merge(parts: impl IntoIterator<Item = BreakdownResult>, top: Option<usize>) -> BreakdownResult {
        let mut group_by = Vec::new();
        let mut every = None;
        let mut groups: HashMap<Vec<u8>, Counts> = HashMap::new();
        let mut other = Counts::default();
        let mut other_groups = 0;
        let mut exact = true;
        let mut peak_groups = 0;
        let mut buckets: BTreeMap<i64, (i64, Counts)> = BTreeMap::new();
        let (mut no_time, mut unreadable_time, mut other_buckets) =
            (Counts::default(), Counts::default(), Counts::default());
        let mut other_buckets_from: Option<i64> = None;
        for part in parts {
            if group_by.is_empty() {
                group_by = part.group_by;
            }
            if every.is_none() {
                every = part.every;
            }
            for group in part.groups {
                let mut key = Vec::new();
                for value in &group.key {
                    value.push_key(&mut key);
                }
                groups.entry(key).or_default().add(&group.counts);
            }
            other.add(&part.other);
            other_groups += part.other_groups;
            // A part with groups in "other" hid some groups' lines from the sums.
            exact &= part.exact && part.other_groups == 0;
            peak_groups = peak_groups.max(part.peak_groups);
            for bucket in part.buckets {
                buckets
                    .entry(bucket.start)
                    .or_insert((bucket.end, Counts::default()))
                    .1
                    .add(&bucket.counts);
            }
            no_time.add(&part.no_time);
            unreadable_time.add(&part.unreadable_time);
            other_buckets.add(&part.other_buckets);
            if let Some(from) = part.other_buckets_from {
                other_buckets_from = Some(other_buckets_from.map_or(from, |f: i64| f.min(from)));
            }
        }
        // Listed: the buckets before every part's unlisted ones, the first MAX_BUCKETS of them.
        let cut = other_buckets_from.unwrap_or(i64::MAX);
        let mut listed = Vec::with_capacity(buckets.len().min(MAX_BUCKETS));
        for (start, (end, counts)) in buckets {
            if start < cut && listed.len() < MAX_BUCKETS {
                listed.push(Bucket { start, end, counts });
            } else {
                other_buckets.add(&counts);
                other_buckets_from = Some(other_buckets_from.map_or(start, |f| f.min(start)));
            }
        }
        peak_groups = peak_groups.max(groups.len());
        let mut sorted: Vec<(Vec<u8>, Counts)> = groups.into_iter().collect();
        sorted.sort_unstable_by(|a, b| b.1.lines.cmp(&a.1.lines).then_with(|| a.0.cmp(&b.0)));
        let shown = top.unwrap_or(usize::MAX).min(sorted.len());
        for (_, counts) in &sorted[shown..] {
            other.add(counts);
        }
        other_groups += (sorted.len() - shown) as u64;
        sorted.truncate(shown);
        BreakdownResult {
            group_by,
            groups: sorted
                .into_iter()
                .map(|(key, counts)| Group {
                    key: GroupValue::read_keys(&key).unwrap_or_default(),
                    counts,
                })
                .collect(),
            other,
            other_groups,
            exact,
            peak_groups,
            every,
            buckets: listed,
            no_time,
            unreadable_time,
            other_buckets,
            other_buckets_from: other_buckets_from.map(|s| s.clamp(FIRST_SECOND, LAST_SECOND)),
        }
    }
}

// -- bytes -----------------------------------------------------------------------------

/// The first bytes of [`ScanResult::to_bytes`]: the format and its version.
const MAGIC: &[u8; 8] = b"escpsr01";

/// The texts of [`Malformation::Expected`] read back so far: the decoder needs a `&'static
/// str`, and there are a handful of them (each leaked once, at most [`MAX_EXPECTED`]).
static EXPECTED: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
const MAX_EXPECTED: usize = 64;

fn expected_text(text: &str) -> Option<&'static str> {
    let mut known = EXPECTED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(&t) = known.iter().find(|&&t| t == text) {
        return Some(t);
    }
    if known.len() >= MAX_EXPECTED {
        return None;
    }
    let leaked: &'static str = Box::leak(text.to_owned().into_boxed_str());
    known.push(leaked);
    Some(leaked)
}

pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn u64(&mut self, n: u64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    pub(crate) fn i64(&mut self, n: i64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    pub(crate) fn bool(&mut self, b: bool) {
        self.0.push(u8::from(b));
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    /// A flag, then the value written by `write` when there is one.
    pub(crate) fn option<T>(&mut self, value: Option<T>, write: impl FnOnce(&mut Writer, T)) {
        self.bool(value.is_some());
        if let Some(value) = value {
            write(self, value);
        }
    }
    pub(crate) fn counts(&mut self, c: &Counts) {
        for n in [
            c.lines,
            c.matched,
            c.bytes,
            c.matched_bytes,
            c.delivered,
            c.delivered_bytes,
        ] {
            self.u64(n);
        }
    }
}

/// What `read` reads of `bytes` after `magic`, which it must read whole: the partial result
/// (a `what`) a part's `to_bytes` wrote; [`ScanError::Select`] naming it otherwise.
pub(crate) fn decode<T>(
    bytes: &[u8],
    magic: &[u8],
    what: &str,
    read: impl FnOnce(&mut Reader<'_>) -> Option<T>,
) -> Result<T, ScanError> {
    let bad = || ScanError::Select {
        what: format!("a partial {what}"),
        message: format!("the bytes are not a {what} written by this version of escpush"),
    };
    let mut r = Reader(bytes);
    if r.take(magic.len()) != Some(magic) {
        return Err(bad());
    }
    let result = read(&mut r).ok_or_else(bad)?;
    if r.0.is_empty() {
        Ok(result)
    } else {
        Err(bad())
    }
}

pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    pub(crate) fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    pub(crate) fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }
    pub(crate) fn bool(&mut self) -> Option<bool> {
        match self.take(1)?[0] {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.usize()?;
        self.take(n)
    }
    pub(crate) fn text(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }
    /// What [`Writer::option`] wrote, the value read by `read`: `None` when the bytes are
    /// not one, `Some(None)` for no value.
    #[allow(clippy::option_option)] // the outer None: not a result's bytes (as every reader here)
    pub(crate) fn option<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.bool()? {
            read(self).map(Some)
        } else {
            Some(None)
        }
    }
    /// A count of items, each at least `least` bytes long: no more than the bytes left hold.
    pub(crate) fn len(&mut self, least: usize) -> Option<usize> {
        let n = self.usize()?;
        (n.checked_mul(least.max(1))? <= self.0.len()).then_some(n)
    }
    pub(crate) fn counts(&mut self) -> Option<Counts> {
        Some(Counts {
            lines: self.u64()?,
            matched: self.u64()?,
            bytes: self.u64()?,
            matched_bytes: self.u64()?,
            delivered: self.u64()?,
            delivered_bytes: self.u64()?,
        })
    }
}

const MALFORMATIONS: [Malformation; 8] = [
    Malformation::NotUtf8,
    Malformation::NotAnObject,
    Malformation::UnexpectedEnd,
    Malformation::ControlCharacter,
    Malformation::InvalidEscape,
    Malformation::InvalidNumber,
    Malformation::InvalidLiteral,
    Malformation::TrailingData,
];

impl ScanResult {
    /// The result as bytes, for [`ScanResult::from_bytes`] in another process (a partial
    /// result on its way to [`ScanResult::merge`]): every count, input and group as it is.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer(MAGIC.to_vec());
        for n in [self.total, self.matched, self.malformed, self.bytes, self.matched_bytes] {
            w.u64(n);
        }
        w.u64(self.seconds.to_bits());
        write_malformed(&mut w, self.first_malformed.as_ref());
        w.u64(self.inputs.len() as u64);
        for input in &self.inputs {
            w.bytes(input.name.as_bytes());
            for n in [
                input.total,
                input.matched,
                input.malformed,
                input.bytes,
                input.matched_bytes,
            ] {
                w.u64(n);
            }
            w.bool(input.complete);
        }
        w.option(self.breakdown.as_ref(), write_breakdown);
        w.0
    }

    /// A result [`ScanResult::to_bytes`] wrote; [`ScanError::Select`] when `bytes` are not one.
    pub fn from_bytes(bytes: &[u8]) -> Result<ScanResult, ScanError> {
        decode(bytes, MAGIC, "scan result", read_result)
    }
}

/// The first malformed line (or none), as [`ScanResult::to_bytes`] writes it.
pub(crate) fn write_malformed(w: &mut Writer, malformed: Option<&Malformed>) {
    w.option(malformed, |w, m| {
        w.bytes(m.source_name.as_bytes());
        w.u64(m.line);
        match m.reason {
            MalformedReason::TooLong(limit) => {
                w.0.push(0);
                w.u64(limit as u64);
            }
            MalformedReason::Json(line) => {
                w.0.push(1);
                w.u64(line.offset as u64);
                match line.reason {
                    Malformation::Expected(what) => {
                        w.0.push(u8::MAX);
                        w.bytes(what.as_bytes());
                    }
                    other => {
                        let code = MALFORMATIONS.iter().position(|m| *m == other).unwrap_or(0);
                        w.0.push(u8::try_from(code).unwrap_or(0));
                    }
                }
            }
        }
    });
}

/// What [`write_malformed`] wrote: `None` when the bytes are not one, `Some(None)` for none.
#[allow(clippy::option_option)] // the outer None: not a result's bytes (as every reader here)
pub(crate) fn read_malformed(r: &mut Reader<'_>) -> Option<Option<Malformed>> {
    r.option(|r| {
        let source_name = r.text()?;
        let line = r.u64()?;
        let reason = match r.take(1)?[0] {
            0 => MalformedReason::TooLong(r.usize()?),
            1 => {
                let offset = r.usize()?;
                let code = r.take(1)?[0];
                let reason = if code == u8::MAX {
                    Malformation::Expected(expected_text(&r.text()?)?)
                } else {
                    *MALFORMATIONS.get(usize::from(code))?
                };
                MalformedReason::Json(MalformedLine { offset, reason })
            }
            _ => return None,
        };
        Some(Malformed {
            source_name,
            line,
            reason,
        })
    })
}

pub(crate) fn write_breakdown(w: &mut Writer, b: &BreakdownResult) {
    w.u64(b.group_by.len() as u64);
    for name in &b.group_by {
        w.bytes(name.as_bytes());
    }
    w.u64(b.groups.len() as u64);
    let mut key = Vec::new();
    for g in &b.groups {
        key.clear();
        for value in &g.key {
            value.push_key(&mut key);
        }
        w.bytes(&key);
        w.counts(&g.counts);
    }
    w.counts(&b.other);
    w.u64(b.other_groups);
    w.bool(b.exact);
    w.u64(b.peak_groups as u64);
    w.option(b.every.as_ref(), |w, (field, seconds)| {
        w.bytes(field.as_bytes());
        w.u64(*seconds);
    });
    w.u64(b.buckets.len() as u64);
    for bucket in &b.buckets {
        w.i64(bucket.start);
        w.i64(bucket.end);
        w.counts(&bucket.counts);
    }
    w.counts(&b.no_time);
    w.counts(&b.unreadable_time);
    w.counts(&b.other_buckets);
    w.option(b.other_buckets_from, Writer::i64);
}

fn read_result(r: &mut Reader<'_>) -> Option<ScanResult> {
    let mut out = ScanResult::empty(Vec::new());
    out.total = r.u64()?;
    out.matched = r.u64()?;
    out.malformed = r.u64()?;
    out.bytes = r.u64()?;
    out.matched_bytes = r.u64()?;
    out.seconds = f64::from_bits(r.u64()?);
    out.first_malformed = read_malformed(r)?;
    let n = r.len(49)?;
    for _ in 0..n {
        let mut input = InputResult::new(r.text()?);
        input.total = r.u64()?;
        input.matched = r.u64()?;
        input.malformed = r.u64()?;
        input.bytes = r.u64()?;
        input.matched_bytes = r.u64()?;
        input.complete = r.bool()?;
        out.inputs.push(input);
    }
    out.breakdown = r.option(read_breakdown)?;
    Some(out)
}

pub(crate) fn read_breakdown(r: &mut Reader<'_>) -> Option<BreakdownResult> {
    let n = r.len(8)?;
    let group_by = (0..n).map(|_| r.text()).collect::<Option<Vec<_>>>()?;
    let n = r.len(56)?;
    let mut groups = Vec::with_capacity(n);
    for _ in 0..n {
        let key = GroupValue::read_keys(r.bytes()?)?;
        groups.push(Group {
            key,
            counts: r.counts()?,
        });
    }
    let other = r.counts()?;
    let other_groups = r.u64()?;
    let exact = r.bool()?;
    let peak_groups = r.usize()?;
    let every = r.option(|r| Some((r.text()?, r.u64()?)))?;
    let n = r.len(64)?;
    let mut buckets = Vec::with_capacity(n);
    for _ in 0..n {
        buckets.push(Bucket {
            start: r.i64()?,
            end: r.i64()?,
            counts: r.counts()?,
        });
    }
    Some(BreakdownResult {
        group_by,
        groups,
        other,
        other_groups,
        exact,
        peak_groups,
        every,
        buckets,
        no_time: r.counts()?,
        unreadable_time: r.counts()?,
        other_buckets: r.counts()?,
        other_buckets_from: r.option(Reader::i64)?,
    })
}
