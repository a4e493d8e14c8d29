//! What a scan reports: [`ScanResult`] (in all and per input, [`InputResult`]), the first
//! malformed line ([`Malformed`]) and the progress reports ([`Progress`]). Written by the
//! workers and the collector (`work.rs`), given by [`Scanner`](crate::Scanner) (`scan.rs`).

use std::fmt;
use std::time::Duration;

use escpush_filter::{share, MalformedLine};

use crate::breakdown::BreakdownResult;

/// What a scan found.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ScanResult {
    /// Lines read, blank lines not counted (malformed ones are).
    pub total: u64,
    /// Lines that pass the filter.
    pub matched: u64,
    /// Lines that are not one JSON object (or longer than the line limit).
    pub malformed: u64,
    /// The first malformed line, in input order.
    pub first_malformed: Option<Malformed>,
    /// Bytes of NDJSON read (after decompression).
    pub bytes: u64,
    /// Bytes of the lines that pass the filter (with their line breaks): what the filter keeps.
    pub matched_bytes: u64,
    /// Wall time of the scan.
    pub seconds: f64,
    /// The same counts for each input, in input order (folders, globs and prefixes expanded:
    /// one entry per file or object).
    pub inputs: Vec<InputResult>,
    /// The counts by group and by time bucket, when [`Scanner::breakdown`] asked for them.
    pub breakdown: Option<BreakdownResult>,
}

impl ScanResult {
    /// The share of lines kept, `matched / total` (`None` when no line was read).
    pub fn line_share(&self) -> Option<f64> {
        share(self.matched, self.total)
    }

    /// The share of bytes kept, `matched_bytes / bytes` (`None` when no byte was read).
    pub fn byte_share(&self) -> Option<f64> {
        share(self.matched_bytes, self.bytes)
    }

    pub(crate) fn empty(inputs: Vec<InputResult>) -> ScanResult {
        ScanResult {
            total: 0,
            matched: 0,
            malformed: 0,
            first_malformed: None,
            bytes: 0,
            matched_bytes: 0,
            seconds: 0.0,
            inputs,
            breakdown: None,
        }
    }
}

/// What a scan found in one input.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct InputResult {
    /// The input, as [`Input::name`] gives it.
    pub name: String,
    /// Lines read, blank lines not counted (malformed ones are).
    pub total: u64,
    /// Lines that pass the filter.
    pub matched: u64,
    /// Lines that are not one JSON object (or longer than the line limit).
    pub malformed: u64,
    /// Bytes of NDJSON read (after decompression).
    pub bytes: u64,
    /// Bytes of the lines that pass the filter, with their line breaks.
    pub matched_bytes: u64,
    /// Whether the input was read to its end (false for the inputs after an error, and for the
    /// one it happened in).
    pub complete: bool,
}

impl InputResult {
    pub(crate) fn new(name: String) -> InputResult {
        InputResult {
            name,
            total: 0,
            matched: 0,
            malformed: 0,
            bytes: 0,
            matched_bytes: 0,
            complete: false,
        }
    }

    /// The share of lines kept (`None` when no line was read).
    pub fn line_share(&self) -> Option<f64> {
        share(self.matched, self.total)
    }

    /// The share of bytes kept (`None` when no byte was read).
    pub fn byte_share(&self) -> Option<f64> {
        share(self.matched_bytes, self.bytes)
    }
}

/// Where the first malformed line is, and why it is malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Malformed {
    /// The input, as [`Input::name`] gives it.
    pub source_name: String,
    /// 1-based line number in that input (blank lines count).
    pub line: u64,
    pub reason: MalformedReason,
}

/// Why a line is malformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MalformedReason {
    /// Not one JSON object: where and why.
    Json(MalformedLine),
    /// Longer than the line limit (bytes); it was skipped unread.
    TooLong(usize),
}

impl Malformed {
    /// The error a strict scan stops with at this line ([`ScanError::Malformed`]).
    pub fn to_error(&self) -> crate::ScanError {
        crate::ScanError::Malformed {
            source_name: self.source_name.clone(),
            line: self.line,
            reason: self.reason,
        }
    }
}

impl fmt::Display for MalformedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MalformedReason::Json(e) => e.fmt(f),
            MalformedReason::TooLong(limit) => write!(f, "the line is longer than {limit} bytes"),
        }
    }
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` line {}: {}", self.source_name, self.line, self.reason)
    }
}

/// How far a scan has got; passed to the [`Scanner::progress`] callback.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// Bytes of NDJSON evaluated so far (after decompression).
    pub bytes: u64,
    /// Lines evaluated so far (blank lines not counted).
    pub lines: u64,
    /// Time since the scan started.
    pub elapsed: Duration,
}

pub(crate) type ProgressFn<'a> = Box<dyn FnMut(&Progress) -> bool + Send + 'a>;
