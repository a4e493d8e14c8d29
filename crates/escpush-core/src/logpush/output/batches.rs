//! Batches as log-push cuts them: [`BatchLimits`] (a job's `max_upload_bytes`,
//! `max_upload_records` and `max_upload_interval_seconds`, null at the API's defaults) and
//! [`Batcher`], the sequential cutter that frames records already formatted
//! ([`Formatter::add_record`]) in input order: `batch_prefix`, `record_delimiter` between
//! records, `batch_suffix`, the `CVE-2021-44228` replacement across the joins (the
//! formatter's own), and a new batch when the next record would pass a limit. It counts
//! without writing ([`Batcher::count`]: no byte is copied) or writes to a [`BatchSink`]
//! ([`Batcher::push`]).
//!
//! Sources: the schema's `logpush_max_upload_*` descriptions (`/work/shared/api/`, and the
//! SDK) and "Max Upload Parameters" of
//! `src/content/docs/logs/logpush/logpush-job/api-configuration.mdx` in cloudflare/cloudflare-docs:
//! "Files will be sent based on whichever parameter is hit first. If these options are not
//! set, the system uses our internal defaults of 30s, 100k records, or the destinations
//! globally defined limits." Where they are silent, the choice is a row of
//! [`UNDOCUMENTED`](super::UNDOCUMENTED).

use serde_json::{Map, Value};

use super::writer::Formatter;
use crate::error::Error;
use crate::logpush::JobField;

/// The time of a record: whole seconds since the epoch and nanoseconds past them (as
/// escpush-filter's [`Timestamp::At`](escpush_filter::Timestamp) reads a log line's time).
pub type RecordTime = (i64, u32);

/// When log-push ends a batch: `None` is no limit of that kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BatchLimits {
    /// `max_upload_bytes`: the most uncompressed bytes of a batch, framing included.
    pub bytes: Option<u64>,
    /// `max_upload_records`: the most records of a batch.
    pub records: Option<u64>,
    /// `max_upload_interval_seconds`: the longest time a batch's records span, read from
    /// their times (a record at or past the batch's first time plus this starts a new one).
    pub interval_seconds: Option<u64>,
}

impl Default for BatchLimits {
    /// The API's defaults, for a job that sets none: 100,000 records, 30 seconds, and no byte
    /// limit (the docs' "destinations globally defined limits" are not published).
    fn default() -> Self {
        BatchLimits {
            bytes: None,
            records: Some(BatchLimits::DEFAULT_RECORDS),
            interval_seconds: Some(BatchLimits::DEFAULT_INTERVAL_SECONDS),
        }
    }
}

/// The three job fields, in the order read.
const LIMIT_FIELDS: [&str; 3] = ["max_upload_bytes", "max_upload_records", "max_upload_interval_seconds"];

impl BatchLimits {
    /// `max_upload_records` when a job leaves it null (schema default, api-configuration.mdx).
    pub const DEFAULT_RECORDS: u64 = 100_000;
    /// `max_upload_interval_seconds` when a job leaves it null (schema default).
    pub const DEFAULT_INTERVAL_SECONDS: u64 = 30;
    /// No limit at all: one batch of every record.
    pub const NONE: BatchLimits = BatchLimits {
        bytes: None,
        records: None,
        interval_seconds: None,
    };

    /// Limits given one by one (`None`: no limit of that kind).
    pub fn new(bytes: Option<u64>, records: Option<u64>, interval_seconds: Option<u64>) -> BatchLimits {
        BatchLimits {
            bytes,
            records,
            interval_seconds,
        }
    }

    /// The limits of a job given as its fields (a creation's body or a record): each of
    /// `max_upload_bytes`, `max_upload_records`, `max_upload_interval_seconds` checked by
    /// its row of the job field table (its range, or 0); 0 is no limit, null or absent the
    /// API's default ([`BatchLimits::default`]).
    pub fn from_job(job: &Map<String, Value>) -> Result<BatchLimits, Error> {
        let mut problems = Vec::new();
        let mut read = [None; 3];
        for (slot, name) in read.iter_mut().zip(LIMIT_FIELDS) {
            let Some(value) = job.get(name).filter(|v| !v.is_null()) else {
                continue;
            };
            if let Some(row) = JobField::get(name) {
                problems.extend(row.problems(value, None));
            }
            *slot = Some(value.as_u64().unwrap_or_default());
        }
        if !problems.is_empty() {
            return Err(Error::Invalid { problems });
        }
        let default = BatchLimits::default();
        let pick = |given: Option<u64>, default: Option<u64>| match given {
            None => default,
            Some(0) => None,
            Some(n) => Some(n),
        };
        Ok(BatchLimits {
            bytes: pick(read[0], default.bytes),
            records: pick(read[1], default.records),
            interval_seconds: pick(read[2], default.interval_seconds),
        })
    }
}

/// One batch, as delivered: what [`Batcher::count`], [`Batcher::push`] and
/// [`Batcher::finish`] report of the batch they end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BatchInfo {
    /// Its records.
    pub records: u64,
    /// Its uncompressed bytes, framing included: what log-push bills.
    pub bytes: u64,
    /// The earliest and the latest time of its records that have one.
    pub first_time: Option<RecordTime>,
    pub last_time: Option<RecordTime>,
}

/// What one record added: its bytes with their framing (the batch's `batch_prefix` or the
/// `record_delimiter` before it, and the `batch_suffix` of the batch it ended), and the
/// batch it ended, when it started a new one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct Added {
    pub bytes: u64,
    pub ended: Option<BatchInfo>,
}

/// Receives the bytes of the batches a [`Batcher`] writes, in order: the bytes of one batch
/// (in one or more calls of `write`), then `end` with what it held; the next `write` starts
/// the next batch. Its error is the caller's (core does no I/O).
pub trait BatchSink {
    type Error;
    /// More bytes of the current batch.
    fn write(&mut self, bytes: &[u8]) -> Result<(), Self::Error>;
    /// The current batch is whole.
    fn end(&mut self, batch: &BatchInfo) -> Result<(), Self::Error>;
}

/// Bytes of a batch held before they go to the sink (the last byte is always held: the
/// `CVE-2021-44228` replacement may change it when the next piece starts with `{`).
const HOLD: usize = 64 << 10;

/// Cuts formatted records into batches, in the order given. See the [module docs](self).
///
/// ```
/// use escpush_core::{BatchLimits, Batcher, Formatter, OutputFormat};
/// use escpush_filter::Dataset;
/// use serde_json::json;
///
/// let http = Dataset::get("http_requests", None).unwrap();
/// let format = OutputFormat::from_output_options(&json!({"field_names": ["RayID"], "output_type": "csv", "batch_prefix": "[", "batch_suffix": "]", "record_delimiter": ";"}), http).unwrap();
/// let f = Formatter::new(&format);
/// let mut batcher = Batcher::new(&f, BatchLimits::new(None, Some(2), None));
/// let mut out: Vec<Vec<u8>> = vec![Vec::new()];
/// struct Files<'a>(&'a mut Vec<Vec<u8>>);
/// impl escpush_core::BatchSink for Files<'_> {
///     type Error = ();
///     fn write(&mut self, b: &[u8]) -> Result<(), ()> { self.0.last_mut().unwrap().extend_from_slice(b); Ok(()) }
///     fn end(&mut self, _: &escpush_core::BatchInfo) -> Result<(), ()> { self.0.push(Vec::new()); Ok(()) }
/// }
/// for record in ["\"a\"\n", "\"b\"\n", "\"c\"\n"] {
///     let _ = batcher.push(record.as_bytes(), None, &mut Files(&mut out)).unwrap();
/// }
/// let _ = batcher.finish(&mut Files(&mut out)).unwrap();
/// assert_eq!(out, [b"[\"a\"\n;\"b\"\n]".to_vec(), b"[\"c\"\n]".to_vec(), Vec::new()]);
/// assert_eq!((batcher.batches(), batcher.records(), batcher.bytes()), (2, 3, 17));
/// ```
#[derive(Clone, Debug)]
pub struct Batcher<'f> {
    formatter: &'f Formatter,
    limits: BatchLimits,
    /// The batch being cut (no record yet: none).
    open: Option<BatchInfo>,
    /// Its bytes not yet given to the sink.
    held: Vec<u8>,
    batches: u64,
    records: u64,
    bytes: u64,
}

impl<'f> Batcher<'f> {
    /// A cutter of the records `formatter` writes, under `limits`.
    pub fn new(formatter: &'f Formatter, limits: BatchLimits) -> Batcher<'f> {
        Batcher {
            formatter,
            limits,
            open: None,
            held: Vec::new(),
            batches: 0,
            records: 0,
            bytes: 0,
        }
    }

    /// The limits it cuts by.
    pub fn limits(&self) -> BatchLimits {
        self.limits
    }

    /// Batches ended so far (by a cut or [`Batcher::finish`]).
    pub fn batches(&self) -> u64 {
        self.batches
    }

    /// Records added so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Bytes delivered so far, framing included (the open batch's suffix once it ends).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether a record of `len` bytes at `time` starts a new batch: the open batch has a
    /// record and, with it, would pass `max_upload_records`, or `max_upload_bytes` (with
    /// its delimiter and the batch's suffix), or the record's time is at or past the
    /// batch's first time plus `max_upload_interval_seconds`. A record alone over
    /// `max_upload_bytes` is a batch of its own, over the limit: a record is never split.
    fn cuts(&self, len: u64, time: Option<RecordTime>) -> bool {
        let Some(open) = &self.open else { return false };
        let format = self.formatter.format();
        if self.limits.records.is_some_and(|most| open.records >= most) {
            return true;
        }
        if let Some(most) = self.limits.bytes {
            let with = open.bytes + format.record_delimiter.len() as u64 + len + format.batch_suffix.len() as u64;
            if with > most {
                return true;
            }
        }
        if let (Some(every), Some(first), Some(at)) = (self.limits.interval_seconds, open.first_time, time) {
            let since = i128::from(at.0 - first.0) * 1_000_000_000 + i128::from(at.1) - i128::from(first.1);
            if since >= i128::from(every) * 1_000_000_000 {
                return true;
            }
        }
        false
    }

    /// Adds a record of `len` bytes at `time` without writing it: the counts of
    /// [`Batcher::push`] exactly, nothing copied.
    pub fn count(&mut self, len: u64, time: Option<RecordTime>) -> Added {
        let mut added = Added::default();
        if self.cuts(len, time) {
            added.ended = self.end_count();
            added.bytes += self.formatter.format().batch_suffix.len() as u64;
        }
        added.bytes += self.open_record(len, time);
        added
    }

    /// Adds `record` (one record as [`Formatter::add_record`] wrote it) at `time`, writing
    /// its framing and bytes to `sink`; when it starts a new batch, the batch before is
    /// ended first (its suffix written and [`BatchSink::end`] called).
    pub fn push<S: BatchSink + ?Sized>(
        &mut self,
        record: &[u8],
        time: Option<RecordTime>,
        sink: &mut S,
    ) -> Result<Added, S::Error> {
        let len = record.len() as u64;
        let mut added = Added::default();
        if self.cuts(len, time) {
            added.ended = self.end_write(sink)?;
            added.bytes += self.formatter.format().batch_suffix.len() as u64;
        }
        let start = self.held.len();
        let format = self.formatter.format();
        let framing = if self.open.is_none() {
            &format.batch_prefix
        } else {
            &format.record_delimiter
        };
        self.held.extend_from_slice(framing.as_bytes());
        self.held.extend_from_slice(record);
        self.formatter.replace_cve(&mut self.held, start);
        added.bytes += self.open_record(len, time);
        if self.held.len() > HOLD {
            let keep = self.held.len() - 1;
            sink.write(&self.held[..keep])?;
            self.held.drain(..keep);
        }
        Ok(added)
    }

    /// Ends the last batch (count mode): the bytes of its suffix are counted; the batch, if
    /// it held a record.
    pub fn finish_count(&mut self) -> Option<BatchInfo> {
        self.end_count()
    }

    /// Ends the last batch: its suffix written, [`BatchSink::end`] called; the batch, if it
    /// held a record (a batch of no record is not delivered).
    pub fn finish<S: BatchSink + ?Sized>(&mut self, sink: &mut S) -> Result<Option<BatchInfo>, S::Error> {
        self.end_write(sink)
    }

    /// The bytes the open batch's end will add (its suffix; 0 when no batch is open).
    pub fn pending_suffix(&self) -> u64 {
        if self.open.is_some() {
            self.formatter.format().batch_suffix.len() as u64
        } else {
            0
        }
    }

    /// Counts a record into the open batch (opening one): the bytes it adds.
    fn open_record(&mut self, len: u64, time: Option<RecordTime>) -> u64 {
        let format = self.formatter.format();
        let framing = if self.open.is_none() {
            format.batch_prefix.len()
        } else {
            format.record_delimiter.len()
        } as u64;
        let open = self.open.get_or_insert_with(BatchInfo::default);
        open.records += 1;
        open.bytes += framing + len;
        if let Some(at) = time {
            open.first_time = Some(open.first_time.map_or(at, |t| t.min(at)));
            open.last_time = Some(open.last_time.map_or(at, |t| t.max(at)));
        }
        self.records += 1;
        self.bytes += framing + len;
        framing + len
    }

    /// Ends the open batch in the counts.
    fn end_count(&mut self) -> Option<BatchInfo> {
        let mut batch = self.open.take()?;
        let suffix = self.formatter.format().batch_suffix.len() as u64;
        batch.bytes += suffix;
        self.bytes += suffix;
        self.batches += 1;
        Some(batch)
    }

    fn end_write<S: BatchSink + ?Sized>(&mut self, sink: &mut S) -> Result<Option<BatchInfo>, S::Error> {
        if self.open.is_none() {
            return Ok(None);
        }
        let start = self.held.len();
        self.held
            .extend_from_slice(self.formatter.format().batch_suffix.as_bytes());
        self.formatter.replace_cve(&mut self.held, start);
        sink.write(&self.held)?;
        self.held.clear();
        let batch = self.end_count();
        if let Some(batch) = &batch {
            sink.end(batch)?;
        }
        Ok(batch)
    }
}
