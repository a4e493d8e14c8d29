//! The evaluating side of a scan: workers evaluate chunks (a scan's filter, or with the `job`
//! feature a job's formatter: `JobEval`), and the calling thread collects their results in
//! input order (counts, the first malformed line, the selected lines, a preview's records).

use std::collections::BTreeMap;
use std::io::Write;
use std::ops::Range;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[cfg(feature = "job")]
use escpush_core::transformer::{LineError, LineTransformer};
#[cfg(feature = "job")]
use escpush_core::{Delivery, Formatter};
use escpush_filter::{is_blank, CompiledFilter};
#[cfg(feature = "job")]
use escpush_filter::{MalformedLine, Timestamp, TimestampCache};
use memchr::memchr_iter;

use crate::breakdown::{Aggregate, Plan, Seen, Tally};
use crate::gzip::{self, Check};
use crate::read::{content_len, read_range, Chunk};
use crate::result::{InputResult, Malformed, MalformedReason, Progress, ProgressFn, ScanResult};
use crate::ScanError;

/// What a worker found in one chunk.
pub(crate) struct Done {
    pub(crate) chunk: Chunk,
    /// Line segments in the chunk, blank lines included (for line numbers).
    pub(crate) lines: u64,
    pub(crate) total: u64,
    pub(crate) matched: u64,
    pub(crate) matched_bytes: u64,
    pub(crate) malformed: u64,
    /// Index of the first malformed line within the chunk, and why.
    pub(crate) first_malformed: Option<(u64, MalformedReason)>,
    /// The matching lines (select mode), without their line breaks.
    pub(crate) selected: Vec<Range<usize>>,
    /// Reading the chunk's range failed.
    pub(crate) error: Option<ScanError>,
    /// The chunk's breakdown, when the scan has one.
    pub(crate) tally: Option<Tally>,
    /// A job's preview: the records of the chunk's delivered lines.
    pub(crate) delivered: Option<Delivered>,
    /// A transformer's run: the first line (within the chunk) it failed on, and why.
    pub(crate) failed: Option<(u64, String)>,
}

/// What a preview's worker wrote for one chunk (see `preview/`).
#[derive(Debug, Default)]
#[cfg_attr(not(feature = "job"), allow(dead_code))]
pub(crate) struct Delivered {
    /// The records, one after another, as the job's formatter wrote them (empty when only
    /// counting: each record is written into a scratch buffer and only its length kept).
    pub(crate) bytes: Vec<u8>,
    /// Per delivered record, in order: its length and its time.
    pub(crate) records: Vec<(u64, Option<(i64, u32)>)>,
    /// The earliest and latest time of the chunk's lines (read well, delivered or not), and
    /// how many lines had one.
    pub(crate) first: Option<(i64, u32)>,
    pub(crate) last: Option<(i64, u32)>,
    pub(crate) timed: u64,
}

/// A preview's side of the collector: takes each chunk's records in input order.
pub(crate) trait TakeDelivered {
    fn take(&mut self, input: usize, delivered: Delivered) -> Result<(), ScanError>;
}

/// What a worker runs on each line: a scan's filter, a job's formatter (a preview), or a
/// transformer (its local run).
#[derive(Clone)]
pub(crate) enum Eval {
    Filter(Box<CompiledFilter>),
    #[cfg(feature = "job")]
    Job(Box<JobEval>),
    #[cfg(feature = "job")]
    Transform(Box<LineTransformer>),
}

impl Eval {
    /// The observed field where a breakdown's fields start.
    pub(crate) fn observed_first(&self) -> usize {
        match self {
            Eval::Filter(_) => 0,
            #[cfg(feature = "job")]
            Eval::Job(job) => job.observed_first(),
            #[cfg(feature = "job")]
            Eval::Transform(_) => 0,
        }
    }

    /// The walk whose observed fields the breakdown reads.
    fn walk(&self) -> &CompiledFilter {
        match self {
            Eval::Filter(filter) => filter,
            #[cfg(feature = "job")]
            Eval::Job(job) => job.walk(),
            #[cfg(feature = "job")]
            Eval::Transform(t) => t.walk(),
        }
    }

    #[cfg_attr(not(feature = "job"), allow(unused_variables))]
    /// Reads one line: whether the filter keeps it, and (a preview) the bytes of its record
    /// when the job delivers it, written into `done`'s records.
    #[inline]
    fn line(&mut self, line: &[u8], done: &mut Done) -> Result<(bool, Option<u64>), escpush_filter::MalformedLine> {
        match self {
            Eval::Filter(filter) => filter.matches_line(line).map(|m| (m, None)),
            #[cfg(feature = "job")]
            Eval::Job(job) => job.line(line, done.delivered.get_or_insert_with(Default::default)),
            #[cfg(feature = "job")]
            Eval::Transform(t) => transform_line(t, line, done),
        }
    }
}

/// A worker: evaluates chunks until there are none.
pub(crate) fn work(
    work_rx: &Mutex<Receiver<Chunk>>,
    done_tx: &mpsc::Sender<Done>,
    filter: &mut Eval,
    plan: Option<Plan>,
    select: bool,
    strict: bool,
    max_line: usize,
) {
    loop {
        let chunk = {
            let Ok(rx) = work_rx.lock() else { return };
            match rx.recv() {
                Ok(chunk) => chunk,
                Err(_) => return,
            }
        };
        let mut chunk = chunk;
        gzip::hash_pieces(&mut chunk.pieces, &chunk.buf);
        let done = match read_range(&mut chunk, max_line) {
            Ok(()) => evaluate(chunk, filter, plan, select, strict, max_line),
            Err(error) => Done {
                error: Some(error),
                ..Done::empty(chunk)
            },
        };
        if done_tx.send(done).is_err() {
            return;
        }
    }
}

impl Done {
    pub(crate) fn empty(chunk: Chunk) -> Done {
        Done {
            lines: 0,
            total: 0,
            matched: 0,
            matched_bytes: 0,
            malformed: 0,
            first_malformed: None,
            selected: Vec::new(),
            error: None,
            tally: None,
            delivered: None,
            failed: None,
            chunk,
        }
    }
}

pub(crate) fn evaluate(
    chunk: Chunk,
    filter: &mut Eval,
    plan: Option<Plan>,
    select: bool,
    strict: bool,
    max_line: usize,
) -> Done {
    let mut done = Done::empty(chunk);
    let mut tally = plan.map(|_| Tally::default());
    let buf = std::mem::take(&mut done.chunk.buf);
    let done = evaluate_lines(done, &buf, filter, plan, &mut tally, select, strict, max_line);
    finish(done, buf, tally)
}

/// The lines of `data` (the chunk's buffer, taken out of `done` while `done` is written).
#[allow(clippy::too_many_arguments)]
fn evaluate_lines(
    mut done: Done,
    buf: &[u8],
    filter: &mut Eval,
    plan: Option<Plan>,
    tally: &mut Option<Tally>,
    select: bool,
    strict: bool,
    max_line: usize,
) -> Done {
    let data = &buf[..done.chunk.len];
    let first = done.chunk.start;
    let mut start = first;
    let ends = memchr_iter(b'\n', &data[start..])
        .map(move |i| i + first)
        .chain((data.len() > start && data.last() != Some(&b'\n')).then_some(data.len()));
    for end in ends {
        let line = &data[start..end];
        let range = start..end;
        start = end + 1;
        done.lines += 1;
        if line.first() != Some(&b'{') && is_blank(line) {
            continue;
        }
        done.total += 1;
        if content_len(line, end < data.len()) > max_line {
            done.malformed += 1;
            if done.first_malformed.is_none() {
                done.first_malformed = Some((done.lines - 1, MalformedReason::TooLong(max_line)));
                if strict {
                    return done;
                }
            }
            continue;
        }
        match filter.line(line, &mut done) {
            Ok((matched, delivered)) => {
                let bytes = (end - range.start) as u64 + u64::from(end < data.len());
                if let (Some(plan), Some(tally)) = (plan, tally.as_mut()) {
                    let seen = Seen {
                        matched,
                        bytes,
                        delivered,
                    };
                    tally.add(plan, filter.walk(), line, seen);
                }
                if matched {
                    done.matched += 1;
                    done.matched_bytes += bytes;
                    if select {
                        done.selected.push(range);
                    }
                }
            }
            Err(e) => {
                done.malformed += 1;
                if done.first_malformed.is_none() {
                    done.first_malformed = Some((done.lines - 1, MalformedReason::Json(e)));
                    if strict {
                        return done;
                    }
                }
            }
        }
    }
    if done.chunk.long_line {
        done.lines += 1;
        done.total += 1;
        done.malformed += 1;
        if done.first_malformed.is_none() {
            done.first_malformed = Some((done.lines - 1, MalformedReason::TooLong(max_line)));
        }
    }
    done
}

fn finish(mut done: Done, buf: Vec<u8>, mut tally: Option<Tally>) -> Done {
    done.chunk.buf = buf;
    if let Some(tally) = tally.as_mut() {
        tally.finish();
    }
    done.tally = tally;
    done
}

#[cfg(feature = "job")]
/// A worker's side of a preview (`preview/`): the job's formatter on each line.
#[derive(Clone)]
pub(crate) struct JobEval {
    formatter: Formatter,
    /// The observed slot of the time field.
    time_slot: Option<usize>,
    /// Count only: each record is written into `scratch` and only its length kept.
    count_only: bool,
    scratch: Vec<u8>,
    /// The time field read once per distinct text (most lines share their second's).
    times: TimestampCache,
}

#[cfg(feature = "job")]
impl JobEval {
    pub(crate) fn new(formatter: Formatter, time_slot: Option<usize>, count_only: bool) -> JobEval {
        JobEval {
            formatter,
            time_slot,
            count_only,
            scratch: Vec::new(),
            times: TimestampCache::default(),
        }
    }

    pub(crate) fn walk(&self) -> &CompiledFilter {
        self.formatter.walk()
    }

    pub(crate) fn observed_first(&self) -> usize {
        self.formatter.observed_offset()
    }

    /// Whether the filter keeps `line`, and the length of its record when it is delivered.
    #[inline]
    pub(crate) fn line(&mut self, line: &[u8], d: &mut Delivered) -> Result<(bool, Option<u64>), MalformedLine> {
        let out = if self.count_only {
            self.scratch.clear();
            &mut self.scratch
        } else {
            &mut d.bytes
        };
        let start = out.len();
        let delivery = self.formatter.add_record(line, out)?;
        let len = (out.len() - start) as u64;
        let (walk, times) = (self.formatter.walk(), &mut self.times);
        let time = self
            .time_slot
            .and_then(|slot| match times.timestamp(&walk.observed(line, slot)) {
                Timestamp::At { seconds, nanos } => Some((seconds, nanos)),
                _ => None,
            });
        if let Some(t) = time {
            d.timed += 1;
            d.first = Some(d.first.map_or(t, |f| f.min(t)));
            d.last = Some(d.last.map_or(t, |l| l.max(t)));
        }
        Ok(match delivery {
            Delivery::Filtered => (false, None),
            Delivery::SampledOut => (true, None),
            Delivery::Delivered => {
                d.records.push((len, time));
                (true, Some(len))
            }
        })
    }
}

#[cfg(feature = "job")]
/// A transformer's run of one line: its records appended to the chunk's delivered bytes (a
/// record each, no time); a line the query fails on is kept in `done.failed` (the first), which
/// fails the run when it is collected.
#[inline]
fn transform_line(t: &mut LineTransformer, line: &[u8], done: &mut Done) -> Result<(bool, Option<u64>), MalformedLine> {
    let d = done.delivered.get_or_insert_with(Default::default);
    let start = d.bytes.len();
    match t.line(line, &mut d.bytes) {
        Ok(None) => Ok((false, None)),
        Ok(Some(records)) => {
            if records == 1 {
                // One record (the usual): its size is what the line wrote.
                d.records.push(((d.bytes.len() - start) as u64, None));
            } else {
                let mut at = start;
                for end in memchr_iter(b'\n', &d.bytes[start..]) {
                    d.records.push(((start + end + 1 - at) as u64, None));
                    at = start + end + 1;
                }
            }
            Ok((true, Some((d.bytes.len() - start) as u64)))
        }
        Err(LineError::Malformed(e)) => Err(e),
        Err(LineError::Failed(message)) => {
            d.bytes.truncate(start);
            if done.failed.is_none() {
                done.failed = Some((done.lines - 1, message));
            }
            Ok((true, None))
        }
    }
}

/// Takes the workers' results in input order.
pub(crate) struct Collector<'s, 'o> {
    pub(crate) names: &'s [String],
    /// Lines of each input already collected: the line number base of the next chunk.
    pub(crate) lines_before: Vec<u64>,
    /// The next chunk to take: its input and its place in it.
    pub(crate) next: (usize, u64),
    pub(crate) pending: BTreeMap<(usize, u64), Done>,
    pub(crate) result: ScanResult,
    pub(crate) out: Option<&'o mut dyn Write>,
    pub(crate) strict: bool,
    /// Lines still to write (select mode with a limit).
    pub(crate) limit: Option<u64>,
    pub(crate) error: Option<ScanError>,
    /// The gzip check of the input being collected.
    check: Check,
    /// The breakdown's sums, when the scan has one.
    pub(crate) aggregate: Option<Aggregate>,
    /// A preview's batches, cut from the records in input order.
    pub(crate) preview: Option<&'o mut dyn TakeDelivered>,
}

impl<'s, 'o> Collector<'s, 'o> {
    pub(crate) fn new(names: &'s [String], out: Option<&'o mut dyn Write>, strict: bool, limit: Option<u64>) -> Self {
        Collector {
            names,
            lines_before: vec![0; names.len()],
            next: (0, 0),
            pending: BTreeMap::new(),
            result: ScanResult::empty(names.iter().cloned().map(InputResult::new).collect()),
            out,
            strict,
            limit,
            error: None,
            check: Check::default(),
            aggregate: None,
            preview: None,
        }
    }

    /// Takes results until the workers are done, or an error or the progress callback stops
    /// the scan (`self.error`).
    pub(crate) fn collect(
        &mut self,
        done_rx: &Receiver<Done>,
        pools: &[SyncSender<Vec<u8>>],
        started: Instant,
        mut progress: Option<&mut (Duration, ProgressFn<'_>)>,
    ) {
        let every = progress
            .as_ref()
            .map_or(Duration::from_millis(200), |(every, _)| *every);
        let mut last_report = Instant::now();
        loop {
            match done_rx.recv_timeout(every) {
                Ok(done) => {
                    self.pending.insert((done.chunk.input, done.chunk.seq), done);
                    while let Some(done) = self.pending.remove(&self.next) {
                        self.next = if done.chunk.last {
                            (self.next.0 + 1, 0)
                        } else {
                            (self.next.0, self.next.1 + 1)
                        };
                        let chunk = self.take(done);
                        let _ = pools[chunk.pool].send(chunk.buf);
                    }
                    if self.error.is_some() {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if let Some((every, report)) = progress.as_mut() {
                if last_report.elapsed() >= *every {
                    last_report = Instant::now();
                    let now = Progress {
                        bytes: self.result.bytes,
                        lines: self.result.total,
                        elapsed: started.elapsed(),
                    };
                    if !report(&now) {
                        self.error = Some(ScanError::Cancelled);
                        return;
                    }
                }
            }
        }
    }

    /// Adds one chunk's result; returns the chunk for its buffer.
    pub(crate) fn take(&mut self, done: Done) -> Chunk {
        if self.error.is_some() {
            return done.chunk;
        }
        if let Some(error) = done.error {
            self.error = Some(error);
            return done.chunk;
        }
        if !done.chunk.pieces.is_empty() {
            if let Err(error) = self.check.take(&done.chunk.pieces, &self.names[done.chunk.input]) {
                self.error = Some(error);
                return done.chunk;
            }
        }
        if done.chunk.last {
            self.check = Check::default();
        }
        if let (Some(aggregate), Some(tally)) = (self.aggregate.as_mut(), done.tally) {
            aggregate.take(tally);
        }
        let base = self.lines_before[done.chunk.input];
        self.lines_before[done.chunk.input] += done.lines;
        self.result.total += done.total;
        self.result.matched += done.matched;
        self.result.matched_bytes += done.matched_bytes;
        self.result.malformed += done.malformed;
        self.result.bytes += done.chunk.bytes;
        let input = &mut self.result.inputs[done.chunk.input];
        input.total += done.total;
        input.matched += done.matched;
        input.matched_bytes += done.matched_bytes;
        input.malformed += done.malformed;
        input.bytes += done.chunk.bytes;
        input.complete = done.chunk.last;
        if let Some((index, message)) = done.failed {
            self.result.inputs[done.chunk.input].complete = false;
            self.error = Some(ScanError::Transform {
                source_name: self.names[done.chunk.input].clone(),
                line: base + index + 1,
                message,
            });
            return done.chunk;
        }
        if let (Some(preview), Some(delivered)) = (self.preview.as_mut(), done.delivered) {
            if let Err(error) = preview.take(done.chunk.input, delivered) {
                self.error = Some(error);
                return done.chunk;
            }
        }
        if let Some(out) = self.out.as_mut() {
            let data = &done.chunk.buf;
            let take = match self.limit.as_mut() {
                Some(left) => {
                    let n = (*left).min(done.selected.len() as u64);
                    *left -= n;
                    usize::try_from(n).unwrap_or(usize::MAX)
                }
                None => done.selected.len(),
            };
            for range in &done.selected[..take] {
                let written = out.write_all(&data[range.clone()]).and_then(|()| out.write_all(b"\n"));
                if let Err(error) = written {
                    self.error = Some(ScanError::Write { error });
                    return done.chunk;
                }
            }
        }
        if let Some((index, reason)) = done.first_malformed {
            let found = Malformed {
                source_name: self.names[done.chunk.input].clone(),
                line: base + index + 1,
                reason,
            };
            if self.strict {
                self.result.inputs[done.chunk.input].complete = false;
                self.error = Some(found.to_error());
            }
            self.result.first_malformed.get_or_insert(found);
        }
        done.chunk
    }
}
