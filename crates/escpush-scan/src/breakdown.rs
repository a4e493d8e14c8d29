//! Breakdowns: a scan's counts by group (the values of some fields) and by time bucket (a
//! timestamp field, cut every so many seconds), counted in the same pass as the totals.
//!
//! Workers tally each chunk ([`Tally`]); the collector adds the tallies up ([`Aggregate`]),
//! holding at most [`Breakdown::max_groups`] groups: past that, the half with the fewest lines
//! goes to "other" (the result then says it is not exact). What a group key is (strings
//! unescaped, integers canonical, missing and `null` apart, ...) and how a timestamp is read
//! are core's rules ([`escpush_filter::LineValue`], [`escpush_filter::Timestamp`]).

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use escpush_filter::{field_list_problems, Error};
use escpush_filter::{CompiledFilter, Dataset, GroupValue, Problem, ProblemCode, Timestamp, FIRST_SECOND, LAST_SECOND};

/// What to break a scan down by: see [`crate::Scanner::breakdown`].
///
/// ```
/// use escpush_scan::Breakdown;
///
/// let b = Breakdown::new()
///     .group_by(["ClientCountry", "EdgeResponseStatus"])
///     .every(3600, "EdgeStartTimestamp")
///     .top(Some(10));
/// assert_eq!(b.max_groups(), 10_000);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    group_by: Vec<String>,
    every: Option<(u64, String)>,
    top: Option<usize>,
    max_groups: Option<usize>,
}

/// The dataset whose time field the buckets read when the caller names neither a field nor a
/// dataset: log-push's most common dataset.
pub const DEFAULT_DATASET: &str = "http_requests";

/// The most groups held when `top` is set, at least: past them the smallest go to "other".
pub const MIN_HELD_GROUPS: usize = 10_000;
/// The most time buckets listed: the first 100,000 in time. The lines of the buckets after
/// them are counted together in [`BreakdownResult::other_buckets`], and
/// [`BreakdownResult::other_buckets_from`] says where those begin.
pub const MAX_BUCKETS: usize = 100_000;
/// The shortest interval of time buckets, in seconds ([`Breakdown::every`], [`parse_every`],
/// [`Breakdown::checked`]; the binding reads it too).
pub const MIN_EVERY: u64 = 1;
/// What is wrong with an interval shorter than [`MIN_EVERY`].
pub const EVERY_TOO_SHORT: &str = "an interval is at least one second";

impl Breakdown {
    /// No breakdown yet: add [`Breakdown::group_by`] and/or [`Breakdown::every`].
    pub fn new() -> Self {
        Breakdown::default()
    }

    /// Count by the values of these fields (one group per distinct combination).
    #[must_use]
    pub fn group_by<S: Into<String>>(mut self, fields: impl IntoIterator<Item = S>) -> Self {
        self.group_by = fields.into_iter().map(Into::into).collect();
        self
    }

    /// Count by time buckets of `seconds` (at least [`MIN_EVERY`]), read from `time_field` in any
    /// log-push timestamp format; buckets start at multiples of `seconds` since the epoch.
    #[must_use]
    pub fn every(mut self, seconds: u64, time_field: impl Into<String>) -> Self {
        self.every = Some((seconds.max(MIN_EVERY), time_field.into()));
        self
    }

    /// List only the `n` groups with the most lines, the rest as "other"; it also bounds the
    /// groups held while scanning ([`Breakdown::max_groups`]). `None`: every group, held
    /// exactly, however many there are.
    #[must_use]
    pub fn top(mut self, n: Option<usize>) -> Self {
        self.top = n;
        self
    }

    /// Sets the most groups held while scanning (default: with `top = N`, the larger of
    /// 10,000 and 64·N; without, no bound).
    #[must_use]
    pub fn with_max_groups(mut self, groups: usize) -> Self {
        self.max_groups = Some(groups.max(1));
        self
    }

    /// The most groups held while scanning (`usize::MAX`: no bound).
    pub fn max_groups(&self) -> usize {
        match (self.max_groups, self.top) {
            (Some(n), _) => n,
            (None, Some(top)) => top.saturating_mul(64).max(MIN_HELD_GROUPS),
            (None, None) => usize::MAX,
        }
    }

    /// A breakdown from what a caller names, every problem reported at once
    /// ([`Error::Invalid`], each problem at `group_by[i]`, `every`, `time_field` or `top`):
    /// fields named once and not empty, and with a dataset, fields of it (with a did-you-mean,
    /// the rule of every list of a dataset's fields); `time_field` and `top` only with what
    /// they apply to (`every`, `group_by`), `top` at least 1. The time buckets read
    /// `time_field`, else the dataset's time field ([`Dataset::time_field`]; without a
    /// dataset, [`DEFAULT_DATASET`]'s).
    pub fn checked(
        group_by: &[String],
        every: Option<u64>,
        time_field: Option<&str>,
        top: Option<usize>,
        dataset: Option<&Dataset>,
    ) -> Result<Breakdown, Error> {
        let mut problems = Vec::new();
        let invalid = ProblemCode::InvalidValue;
        if let Some(dataset) = dataset.filter(|_| !group_by.is_empty()) {
            problems.extend(field_list_problems(
                "group_by",
                group_by.iter().map(|s| Some(s.as_str())),
                dataset,
                invalid,
            ));
        } else {
            for (i, name) in group_by.iter().enumerate() {
                if name.is_empty() {
                    problems.push(Problem::new(format!("group_by[{i}]"), invalid, "an empty field name"));
                } else if group_by[..i].contains(name) {
                    let message = format!("`{name}` is listed twice in `group_by`");
                    problems.push(Problem::new(format!("group_by[{i}]"), invalid, message));
                }
            }
        }
        if top == Some(0) {
            problems.push(Problem::new(
                "top",
                invalid,
                "top is at least 1 (the number of groups listed)",
            ));
        } else if top.is_some() && group_by.is_empty() {
            problems.push(Problem::new("top", invalid, "top bounds the groups: give group_by too"));
        }
        if every.is_some_and(|seconds| seconds < MIN_EVERY) {
            problems.push(Problem::new("every", invalid, EVERY_TOO_SHORT));
        }
        let field = match (every, time_field) {
            (None, None) => None,
            (None, Some(_)) => {
                let message = "time_field names the field of the time buckets: give every too";
                problems.push(Problem::new("time_field", invalid, message));
                None
            }
            (Some(_), Some(name)) => {
                match dataset {
                    Some(dataset) => problems.extend(field_list_problems("time_field", [Some(name)], dataset, invalid)),
                    None if name.is_empty() => {
                        problems.push(Problem::new("time_field", invalid, "an empty field name"));
                    }
                    None => {}
                }
                Some(name.to_owned())
            }
            (Some(_), None) => {
                let dataset = match dataset {
                    Some(d) => d,
                    None => Dataset::get(DEFAULT_DATASET, None)?,
                };
                if let Some(name) = dataset.time_field() {
                    Some(name.to_owned())
                } else {
                    let message = format!(
                        "{} has no single time field (no field typed `int or string`, or several): name one \
                         with time_field",
                        dataset.name()
                    );
                    problems.push(Problem::new("time_field", invalid, message));
                    None
                }
            }
        };
        if !problems.is_empty() {
            return Err(Error::Invalid { problems });
        }
        let mut breakdown = Breakdown::new().group_by(group_by.iter().cloned()).top(top);
        if let (Some(seconds), Some(field)) = (every, field) {
            breakdown = breakdown.every(seconds, field);
        }
        Ok(breakdown)
    }

    /// Whether there is anything to break down.
    pub(crate) fn is_empty(&self) -> bool {
        self.group_by.is_empty() && self.every.is_none()
    }

    /// The fields the scan observes: the group fields, then the time field.
    pub(crate) fn observed(&self) -> Vec<&str> {
        let mut fields: Vec<&str> = self.group_by.iter().map(String::as_str).collect();
        if let Some((_, field)) = &self.every {
            fields.push(field);
        }
        fields
    }

    pub(crate) fn plan(&self) -> Plan {
        Plan {
            first: 0,
            groups: self.group_by.len(),
            every: self
                .every
                .as_ref()
                .map(|(seconds, _)| i64::try_from(*seconds).unwrap_or(i64::MAX)),
        }
    }
}

/// A breakdown as the workers apply it to a line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    /// The observed field where the breakdown's start (a preview's walk observes the job's
    /// `field_names` first).
    pub(crate) first: usize,
    /// The first `groups` observed fields make the group key.
    groups: usize,
    /// The bucket width, in seconds; the time field is the observed field after the groups.
    every: Option<i64>,
}

/// Lines and bytes read and kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counts {
    /// Lines read (blank and malformed lines belong to no group or bucket).
    pub lines: u64,
    /// Lines that pass the filter.
    pub matched: u64,
    /// Bytes of the lines, with their line breaks.
    pub bytes: u64,
    /// Bytes of the lines that pass the filter, with their line breaks.
    pub matched_bytes: u64,
    /// A job's preview only (0 in a scan): lines kept after sampling, the records delivered.
    pub delivered: u64,
    /// A job's preview only (0 in a scan): the bytes of their records (`record_prefix` to
    /// `record_suffix`; the batches' framing is counted in the totals, not per group).
    pub delivered_bytes: u64,
}

/// One line as a breakdown counts it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seen {
    pub(crate) matched: bool,
    /// With its line break.
    pub(crate) bytes: u64,
    /// A preview: the bytes of its record, when the job delivers it.
    pub(crate) delivered: Option<u64>,
}

impl Counts {
    #[inline]
    fn add_line(&mut self, seen: Seen) {
        self.lines += 1;
        self.bytes += seen.bytes;
        if seen.matched {
            self.matched += 1;
            self.matched_bytes += seen.bytes;
        }
        if let Some(bytes) = seen.delivered {
            self.delivered += 1;
            self.delivered_bytes += bytes;
        }
    }

    pub(crate) fn add(&mut self, other: &Counts) {
        self.lines += other.lines;
        self.matched += other.matched;
        self.bytes += other.bytes;
        self.matched_bytes += other.matched_bytes;
        self.delivered += other.delivered;
        self.delivered_bytes += other.delivered_bytes;
    }
}

/// One group: the values of the fields, in the order of [`Breakdown::group_by`], and its counts.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Group {
    pub key: Vec<GroupValue>,
    pub counts: Counts,
}

/// The label of the row of the groups not listed ([`BreakdownResult::other`]): in
/// parentheses, as `(missing)` is, which no group's label is (a string in parentheses is shown
/// quoted, see [`GroupValue`]'s `Display`).
pub const OTHER_LABEL: &str = "(other)";

impl Group {
    /// What tables, plots and `label` show for the group: one label per group, never another
    /// group's nor [`OTHER_LABEL`] ([`GroupValue::label`]).
    pub fn label(&self) -> String {
        GroupValue::label(&self.key)
    }
}

/// One time bucket: its bounds (unix seconds) and its counts.
///
/// A bucket spans `[start, end)`, `start` a multiple of its width; both are clipped to the
/// times a timestamp can name ([`FIRST_SECOND`], 0001-01-01T00:00:00Z, to [`LAST_SECOND`],
/// 9999-12-31T23:59:59Z), so that every bound can be written in RFC 3339 and read as a
/// Python `datetime`: a bucket that reaches before the year 1 starts at its first second, one
/// that reaches past 9999 ends at its last second (and holds the lines of that second too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Bucket {
    pub start: i64,
    pub end: i64,
    pub counts: Counts,
}

impl Bucket {
    /// The bucket of width `every` seconds that starts at `start` (a multiple of `every`),
    /// its bounds clipped as the type's docs say.
    pub fn new(start: i64, every: u64, counts: Counts) -> Bucket {
        let every = i64::try_from(every).unwrap_or(i64::MAX);
        Bucket {
            start: start.clamp(FIRST_SECOND, LAST_SECOND),
            end: start.saturating_add(every).clamp(FIRST_SECOND, LAST_SECOND),
            counts,
        }
    }
}

/// A scan's breakdown. Every line read that is not malformed is in exactly one group (or
/// `other`) and in exactly one bucket (or `no_time`, `unreadable_time`, `other_buckets`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct BreakdownResult {
    /// The fields grouped by (empty: no groups).
    pub group_by: Vec<String>,
    /// The groups, most lines first (ties in the order of their keys); with `top`, only
    /// the first `top`.
    pub groups: Vec<Group>,
    /// The lines of the groups not listed.
    pub other: Counts,
    /// How many groups `other` holds (when not `exact`, a group may be counted twice).
    pub other_groups: u64,
    /// False when more groups came than [`Breakdown::max_groups`]: the smallest were then
    /// moved to `other` as the scan went, so a listed group's counts may miss lines that
    /// came while it was out of the table, and a late group may be missing from the list.
    /// The totals, and `other` with the groups, still cover every line.
    pub exact: bool,
    /// The most groups held at once while collecting.
    pub peak_groups: usize,
    /// The time field and the bucket width in seconds (`None`: no buckets).
    pub every: Option<(String, u64)>,
    /// The buckets that hold lines, in time order: at most [`MAX_BUCKETS`], the first in time.
    pub buckets: Vec<Bucket>,
    /// Lines without the time field, or with `null` there.
    pub no_time: Counts,
    /// Lines whose time field holds something that is not a time in any log-push format.
    pub unreadable_time: Counts,
    /// Lines of the buckets after the first [`MAX_BUCKETS`] (in time), which are not listed.
    pub other_buckets: Counts,
    /// The start of the first bucket not listed (`None`: every bucket is listed): the lines of
    /// every bucket from there on are in `other_buckets`.
    pub other_buckets_from: Option<i64>,
}

/// A fast hash for short keys (FxHash's multiply-rotate, with a finishing mix): group keys are
/// a few bytes, and the hash runs once per line.
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_i64(&mut self, n: i64) {
        self.add(n.cast_unsigned());
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    /// The words' mix, finished as splitmix64 finishes: the multiply-rotate leaves the low
    /// bits, which pick the bucket, depending on few input bits.
    #[inline]
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 30;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 27;
        h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^ (h >> 31)
    }
}

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Fast = BuildHasherDefault<FastHasher>;

/// What a worker counted in one chunk.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    groups: HashMap<Box<[u8]>, Counts, Fast>,
    buckets: HashMap<i64, Counts, Fast>,
    no_time: Counts,
    unreadable_time: Counts,
    /// The key of the line being counted.
    key: Vec<u8>,
    /// The last bucket counted into, and its start: lines come mostly in time order.
    last: Option<(i64, Counts)>,
}

impl Tally {
    /// Counts one line that `filter` (built with the plan's observed fields) just accepted.
    #[inline]
    pub(crate) fn add(&mut self, plan: Plan, filter: &CompiledFilter, line: &[u8], seen: Seen) {
        if plan.groups > 0 {
            self.key.clear();
            for i in 0..plan.groups {
                filter.observed(line, plan.first + i).push_key(&mut self.key);
            }
            if let Some(counts) = self.groups.get_mut(&self.key[..]) {
                counts.add_line(seen);
            } else {
                let mut counts = Counts::default();
                counts.add_line(seen);
                self.groups.insert(self.key.as_slice().into(), counts);
            }
        }
        if let Some(every) = plan.every {
            match filter.observed(line, plan.first + plan.groups).timestamp() {
                Timestamp::At { seconds, .. } => {
                    let start = seconds.div_euclid(every).saturating_mul(every);
                    match &mut self.last {
                        Some((at, counts)) if *at == start => counts.add_line(seen),
                        last => {
                            if let Some((at, counts)) = last.take() {
                                self.buckets.entry(at).or_default().add(&counts);
                            }
                            let mut counts = Counts::default();
                            counts.add_line(seen);
                            *last = Some((start, counts));
                        }
                    }
                }
                Timestamp::Missing => self.no_time.add_line(seen),
                _ => self.unreadable_time.add_line(seen),
            }
        }
    }

    /// Puts the last bucket with the others (before the tally leaves the worker).
    pub(crate) fn finish(&mut self) {
        if let Some((at, counts)) = self.last.take() {
            self.buckets.entry(at).or_default().add(&counts);
        }
    }
}

/// The collector's sums of the tallies.
#[derive(Debug)]
pub(crate) struct Aggregate {
    max_groups: usize,
    groups: HashMap<Box<[u8]>, Counts, Fast>,
    other: Counts,
    other_groups: u64,
    exact: bool,
    peak_groups: usize,
    /// The first [`MAX_BUCKETS`] buckets in time of those seen so far.
    buckets: BTreeMap<i64, Counts>,
    no_time: Counts,
    unreadable_time: Counts,
    other_buckets: Counts,
    other_buckets_from: Option<i64>,
}

impl Aggregate {
    pub(crate) fn new(breakdown: &Breakdown) -> Aggregate {
        Aggregate {
            max_groups: breakdown.max_groups(),
            groups: HashMap::default(),
            other: Counts::default(),
            other_groups: 0,
            exact: true,
            peak_groups: 0,
            buckets: BTreeMap::new(),
            no_time: Counts::default(),
            unreadable_time: Counts::default(),
            other_buckets: Counts::default(),
            other_buckets_from: None,
        }
    }

    /// Adds a chunk's tally.
    pub(crate) fn take(&mut self, tally: Tally) {
        for (key, counts) in tally.groups {
            if let Some(held) = self.groups.get_mut(&key) {
                held.add(&counts);
                continue;
            }
            if self.groups.len() >= self.max_groups {
                self.prune();
            }
            self.groups.insert(key, counts);
            self.peak_groups = self.peak_groups.max(self.groups.len());
        }
        for (start, counts) in tally.buckets {
            self.take_bucket(start, counts);
        }
        self.no_time.add(&tally.no_time);
        self.unreadable_time.add(&tally.unreadable_time);
    }

    /// Adds a bucket's lines, keeping the first [`MAX_BUCKETS`] buckets in time: past them,
    /// the latest held goes to `other_buckets` when an earlier one comes (chunks come in any
    /// order). A bucket that left, or never came in, has a start after every held one, and
    /// the held ones only get earlier: so it never comes back, and a held bucket has every
    /// line of its time.
    fn take_bucket(&mut self, start: i64, counts: Counts) {
        if let Some(held) = self.buckets.get_mut(&start) {
            held.add(&counts);
            return;
        }
        if self.buckets.len() < MAX_BUCKETS {
            self.buckets.insert(start, counts);
            return;
        }
        let left_out = match self.buckets.last_key_value() {
            Some((&latest, _)) if start < latest => {
                let latest = self.buckets.pop_last();
                self.buckets.insert(start, counts);
                latest
            }
            _ => Some((start, counts)),
        };
        if let Some((at, counts)) = left_out {
            self.other_buckets.add(&counts);
            self.other_buckets_from = Some(self.other_buckets_from.map_or(at, |from| from.min(at)));
        }
    }

    /// Moves the half of the groups with the fewest lines to `other` (at least one).
    fn prune(&mut self) {
        self.exact = false;
        let mut sizes: Vec<u64> = self.groups.values().map(|c| c.lines).collect();
        let middle = sizes.len() / 2;
        let (smaller, &mut cut, _) = sizes.select_nth_unstable(middle);
        let below = smaller.iter().filter(|&&s| s < cut).count();
        // Groups at the cut to move too, so that `max(middle, 1)` go in all.
        let mut at_cut = middle.max(1) - below;
        let other = &mut self.other;
        let before = self.groups.len();
        self.groups.retain(|_, counts| {
            let goes = counts.lines < cut || (counts.lines == cut && at_cut > 0);
            if goes {
                if counts.lines == cut {
                    at_cut -= 1;
                }
                other.add(counts);
            }
            !goes
        });
        self.other_groups += (before - self.groups.len()) as u64;
    }

    /// The result: the groups sorted, the first `top` listed.
    pub(crate) fn result(&self, breakdown: &Breakdown) -> BreakdownResult {
        let mut groups: Vec<(&[u8], &Counts)> = self.groups.iter().map(|(k, c)| (&k[..], c)).collect();
        groups.sort_unstable_by(|a, b| b.1.lines.cmp(&a.1.lines).then_with(|| a.0.cmp(b.0)));
        let listed = breakdown.top.unwrap_or(usize::MAX).min(groups.len());
        let mut other = self.other;
        for (_, counts) in &groups[listed..] {
            other.add(counts);
        }
        let every = breakdown.every.as_ref().map_or(1, |(seconds, _)| *seconds);
        let buckets: Vec<Bucket> = self
            .buckets
            .iter()
            .map(|(&start, &counts)| Bucket::new(start, every, counts))
            .collect();
        BreakdownResult {
            group_by: breakdown.group_by.clone(),
            groups: groups[..listed]
                .iter()
                .map(|(key, &counts)| Group {
                    key: GroupValue::read_keys(key).unwrap_or_default(),
                    counts,
                })
                .collect(),
            other,
            other_groups: self.other_groups + (groups.len() - listed) as u64,
            exact: self.exact,
            peak_groups: self.peak_groups,
            every: breakdown.every.as_ref().map(|(s, f)| (f.clone(), *s)),
            buckets,
            no_time: self.no_time,
            unreadable_time: self.unreadable_time,
            other_buckets: self.other_buckets,
            other_buckets_from: self
                .other_buckets_from
                .map(|start| start.clamp(FIRST_SECOND, LAST_SECOND)),
        }
    }
}

/// Reads a bucket width: `30s`, `5m`, `1h`, `1d`, `1w` (a whole number and a unit), or a
/// number of seconds (`3600`); at least one second.
pub fn parse_every(text: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "`{}` is not an interval: write a whole number and a unit, such as 30s, 5m, 1h, 1d or 1w",
            text.escape_debug()
        )
    };
    let s = text.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let n: u64 = number.parse().map_err(|_| bad())?;
    let unit = match unit.trim() {
        "" | "s" | "sec" | "second" | "seconds" => 1,
        "m" | "min" | "minute" | "minutes" => 60,
        "h" | "hour" | "hours" => 3600,
        "d" | "day" | "days" => 86_400,
        "w" | "week" | "weeks" => 604_800,
        _ => return Err(bad()),
    };
    match n.checked_mul(unit) {
        Some(seconds) if seconds < MIN_EVERY => Err(format!("`{}`: {EVERY_TOO_SHORT}", text.escape_debug())),
        Some(seconds) if i64::try_from(seconds).is_ok() => Ok(seconds),
        _ => Err(format!("`{}`: the interval is too long", text.escape_debug())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use escpush_filter::LineValue;

    fn tally_of(keys: impl IntoIterator<Item = (String, u64)>) -> Tally {
        let mut tally = Tally::default();
        for (name, lines) in keys {
            let mut key = Vec::new();
            LineValue::Str(name.as_bytes()).push_key(&mut key);
            tally.groups.insert(
                key.into(),
                Counts {
                    lines,
                    ..Counts::default()
                },
            );
        }
        tally
    }

    #[test]
    fn a_bounded_table_stays_bounded_and_loses_no_line() {
        // 200,000 distinct groups (a high-cardinality field), 1,000 held at most.
        let breakdown = Breakdown::new()
            .group_by(["ClientIP"])
            .top(Some(5))
            .with_max_groups(1_000);
        let mut agg = Aggregate::new(&breakdown);
        let mut lines = 0;
        for chunk in 0..200u64 {
            // A few heavy groups in every chunk, and many that come once.
            let heavy = (0..5).map(|i| (format!("heavy{i}"), 10 + i));
            let once = (0..1_000).map(|i| (format!("ip{chunk}-{i}"), 1));
            let tally = tally_of(heavy.chain(once));
            lines += tally.groups.values().map(|c| c.lines).sum::<u64>();
            agg.take(tally);
            assert!(agg.groups.len() <= 1_000, "{} groups held", agg.groups.len());
        }
        let result = agg.result(&breakdown);
        assert!(!result.exact);
        assert!(result.peak_groups <= 1_000);
        let heavy: Vec<_> = result.groups.iter().map(|g| g.key.clone()).collect();
        let want: Vec<_> = (0..5)
            .rev()
            .map(|i| vec![GroupValue::Str(format!("heavy{i}").into_bytes())])
            .collect();
        assert_eq!(heavy, want);
        assert_eq!(result.groups[0].counts.lines, 200 * 14);
        let listed: u64 = result.groups.iter().map(|g| g.counts.lines).sum();
        assert_eq!(listed + result.other.lines, lines);
    }

    fn bucket_tally(starts: impl IntoIterator<Item = i64>) -> Tally {
        let mut tally = Tally::default();
        for start in starts {
            tally.buckets.insert(
                start,
                Counts {
                    lines: 1,
                    ..Counts::default()
                },
            );
        }
        tally
    }

    #[test]
    fn past_the_bucket_cap_the_buckets_listed_are_the_first_in_time() {
        // 150,000 one-second buckets, in chunks that come out of order (as the workers of a
        // scan finish them): the 100,000 listed are the first, without a hole.
        let breakdown = Breakdown::new().every(1, "T");
        let mut agg = Aggregate::new(&breakdown);
        let n: i64 = 150_000;
        let mut chunks: Vec<Vec<i64>> = (0..n).collect::<Vec<_>>().chunks(1_000).map(<[i64]>::to_vec).collect();
        // A fixed shuffle: every 7th chunk first, then the rest backwards.
        let (first, rest): (Vec<_>, Vec<_>) = chunks.drain(..).enumerate().partition(|(i, _)| i % 7 == 3);
        for (_, chunk) in first.into_iter().chain(rest.into_iter().rev()) {
            agg.take(bucket_tally(chunk));
        }
        let result = agg.result(&breakdown);
        let starts: Vec<i64> = result.buckets.iter().map(|b| b.start).collect();
        assert_eq!(starts.len(), MAX_BUCKETS);
        assert_eq!(starts, (0..i64::try_from(MAX_BUCKETS).unwrap()).collect::<Vec<_>>());
        assert_eq!(result.other_buckets.lines, 50_000);
        assert_eq!(result.other_buckets_from, Some(100_000));
        // Under the cap, nothing is left out.
        let mut agg = Aggregate::new(&breakdown);
        agg.take(bucket_tally([5, 3]));
        assert_eq!(agg.result(&breakdown).other_buckets_from, None);
    }

    #[test]
    fn bucket_bounds_stay_within_the_years_1_to_9999() {
        let one = Counts {
            lines: 1,
            ..Counts::default()
        };
        // 9999-12-31T23:00:00Z, an hour wide: it ends at the last second a time can name.
        let last = Bucket::new(253_402_297_200, 3600, one);
        assert_eq!((last.start, last.end), (253_402_297_200, LAST_SECOND));
        assert_eq!(escpush_filter::format_time(last.end), "9999-12-31T23:59:59Z");
        // A week-wide bucket holding 0001-01-01 starts before it: it starts at its first second.
        let week = 604_800;
        let first = Bucket::new(FIRST_SECOND.div_euclid(week) * week, 604_800, one);
        assert_eq!(escpush_filter::format_time(first.start), "0001-01-01T00:00:00Z");
        assert!(first.end > FIRST_SECOND);
        // 1e9 seconds wide, near both ends; and the widest interval.
        for start in [-63_000_000_000, 253_000_000_000, 0] {
            for every in [1_000_000_000, u64::MAX] {
                let b = Bucket::new(start, every, one);
                assert!((FIRST_SECOND..=LAST_SECOND).contains(&b.start), "{start} {every}");
                assert!((b.start..=LAST_SECOND).contains(&b.end), "{start} {every}");
            }
        }
    }

    #[test]
    fn an_unbounded_table_is_exact() {
        let breakdown = Breakdown::new().group_by(["A"]);
        let mut agg = Aggregate::new(&breakdown);
        agg.take(tally_of((0..50_000).map(|i| (format!("k{i}"), 1))));
        agg.take(tally_of([("k7".to_owned(), 5)]));
        let result = agg.result(&breakdown);
        assert!(result.exact);
        assert_eq!(result.groups.len(), 50_000);
        assert_eq!(result.groups[0].counts.lines, 6);
        assert_eq!(result.other, Counts::default());
    }

    #[test]
    fn checked_breakdowns() {
        let http = Dataset::get("http_requests", None).unwrap();
        let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let b = Breakdown::checked(&names(&["ClientCountry"]), Some(3600), None, Some(5), None).unwrap();
        assert_eq!(b.observed(), ["ClientCountry", "EdgeStartTimestamp"]);
        let fw = Dataset::get("firewall_events", None).unwrap();
        assert_eq!(
            Breakdown::checked(&[], Some(60), None, None, Some(fw))
                .unwrap()
                .observed(),
            ["Datetime"]
        );
        assert_eq!(
            Breakdown::checked(&[], Some(60), Some("T"), None, None)
                .unwrap()
                .observed(),
            ["T"]
        );
        let Err(Error::Invalid { problems }) = Breakdown::checked(
            &names(&["ClientCountyr", "ClientCountyr"]),
            None,
            Some("EdgeStart"),
            Some(0),
            Some(http),
        ) else {
            panic!("refused")
        };
        let paths: Vec<(&str, String)> = problems.iter().map(|p| (p.path.as_str(), p.message.clone())).collect();
        assert_eq!(paths[0].0, "group_by[0]");
        assert!(paths[0].1.contains("did you mean `ClientCountry`"), "{}", paths[0].1);
        assert_eq!(
            paths.iter().map(|p| p.0).collect::<Vec<_>>(),
            ["group_by[0]", "group_by[1]", "top", "time_field"]
        );
        let post = Dataset::get("email_security_post_delivery_events", None).unwrap();
        assert!(Breakdown::checked(&[], Some(60), None, None, Some(post)).is_err());
        assert!(Breakdown::checked(&names(&["A", ""]), None, None, None, None).is_err());
        assert!(Breakdown::checked(&[], None, None, Some(3), None).is_err());
    }

    #[test]
    fn intervals() {
        assert_eq!(parse_every("1h"), Ok(3600));
        assert_eq!(parse_every("90"), Ok(90));
        assert_eq!(parse_every(" 15 min "), Ok(900));
        assert_eq!(parse_every("2d"), Ok(172_800));
        assert_eq!(parse_every("1w"), Ok(604_800));
        for bad in ["", "h", "1.5h", "-1h", "1y", "0s", "99999999999999999999w"] {
            assert!(parse_every(bad).is_err(), "{bad}");
        }
    }
}
