//! The bytes a job delivers: a [`Formatter`] reads each log line once (escpush-filter's
//! validating line walk, with the job's filter if it has one) and writes its record; a
//! [`Batch`] frames records as log-push cuts them (`batch_prefix`, `record_delimiter`
//! between records, `batch_suffix`); sampling and the `CVE-2021-44228` replacement apply
//! on top.

use escpush_filter::{CompiledFilter, Filter, LineValue, MalformedLine};

use super::resolve::{OutputFormat, OutputType};
use super::template::TemplatePart;
use super::values::{json_string, Rules};

/// A piece of a record's body, with the fields as indexes of `field_names`.
#[derive(Clone, Debug)]
enum Piece {
    Text(Vec<u8>),
    /// The `n`-th of `field_names`; `None`: a template field not among them (`null`).
    Field(Option<usize>),
}

/// Writes the records of one job. It holds its own scratch space (the line reader), so it
/// takes `&mut self`; clone it for each thread. Nothing is allocated per line: records are
/// appended to a buffer the caller owns (clear and reuse it to count bytes without keeping
/// them).
///
/// ```
/// use escpush_core::{Formatter, Delivery, OutputFormat};
/// use escpush_filter::Dataset;
/// use serde_json::json;
///
/// let http = Dataset::get("http_requests", None).unwrap();
/// let format = OutputFormat::from_output_options(&json!({"field_names": ["RayID", "EdgeStartTimestamp"], "timestamp_format": "rfc3339"}), http).unwrap();
/// let mut f = Formatter::new(&format);
/// let mut out = Vec::new();
/// let mut batch = f.batch();
/// assert_eq!(f.add(&mut batch, br#"{"EdgeStartTimestamp":1506702504433000200,"RayID":"3a6050bcbe121a87","ClientIP":"89.163.242.206"}"#, &mut out), Ok(Delivery::Delivered));
/// f.finish(batch, &mut out);
/// assert_eq!(out, b"{\"RayID\":\"3a6050bcbe121a87\",\"EdgeStartTimestamp\":\"2017-09-29T16:28:24Z\"}\n");
/// ```
#[derive(Clone, Debug)]
pub struct Formatter {
    format: OutputFormat,
    /// The job's filter, kept to compile the walk again with more fields ([`Formatter::observing`]).
    filter: Option<Filter>,
    lines: CompiledFilter,
    body: Vec<Piece>,
    rules: Rules,
    seed: u64,
    /// `sample_rate` as a bound on the line's hash (`u64::MAX` and over: every line).
    threshold: u128,
    /// Per field of `field_names`, the last time it converted: its text in the line and the
    /// bytes written (a second's lines share its text, so most records reuse them).
    times: Vec<TimeMemo>,
}

/// A time field's last conversion (see [`Formatter::write_record`]).
#[derive(Clone, Debug, Default)]
struct TimeMemo {
    /// The value's text in the line (`None`: nothing yet), whether it was an integer, and
    /// what `Rules::write` wrote for it.
    text: Option<Vec<u8>>,
    int: bool,
    written: Vec<u8>,
}

/// What became of a line given to [`Formatter::add`]: the counts a preview reports (lines
/// kept by the filter, kept after sampling) are the counts of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub enum Delivery {
    /// The filter dropped it.
    Filtered,
    /// The filter kept it; `sample_rate` did not ([`Formatter::sampled`]).
    SampledOut,
    /// Its record was written.
    Delivered,
}

/// One batch being written: how many records it holds so far. Made by [`Formatter::batch`],
/// ended by [`Formatter::finish`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[must_use = "a batch is ended by Formatter::finish"]
pub struct Batch {
    records: u64,
}

impl Batch {
    /// The records written into it.
    pub fn records(&self) -> u64 {
        self.records
    }
}

impl Formatter {
    /// The formatter of a job without a filter: every valid line is a record (before sampling).
    pub fn new(format: &OutputFormat) -> Formatter {
        Formatter::build(format, None, CompiledFilter::reading(&format.field_names))
    }

    /// The formatter of a job with `filter`: a line the filter drops is no record. The line
    /// is read once, for the filter and the fields together.
    pub fn with_filter(format: &OutputFormat, filter: &Filter) -> Formatter {
        Formatter::build(
            format,
            Some(filter.clone()),
            CompiledFilter::with_observed(filter, &format.field_names),
        )
    }

    /// The same formatter, its walk of a line also reading the fields `extra` (after those
    /// of `field_names`): what a preview groups by and the line's time, read in the same
    /// walk. Their values are [`Formatter::observed`]`(line, i)` for the `i`-th of `extra`.
    #[must_use]
    pub fn observing<S: AsRef<str>>(mut self, extra: &[S]) -> Formatter {
        let mut names: Vec<&str> = self.format.field_names.iter().map(String::as_str).collect();
        names.extend(extra.iter().map(AsRef::as_ref));
        self.lines = match &self.filter {
            Some(filter) => CompiledFilter::with_observed(filter, &names),
            None => CompiledFilter::reading(&names),
        };
        self
    }

    /// The line walk (the job's filter, with the fields of `field_names` then those of
    /// [`Formatter::observing`] observed, in that order), to read the values of the line
    /// last given to [`Formatter::add`], [`Formatter::add_record`] or [`Formatter::record`].
    pub fn walk(&self) -> &CompiledFilter {
        &self.lines
    }

    /// How many observed fields come before those of [`Formatter::observing`] (the length of
    /// `field_names`).
    pub fn observed_offset(&self) -> usize {
        self.format.field_names.len()
    }

    fn build(format: &OutputFormat, filter: Option<Filter>, lines: CompiledFilter) -> Formatter {
        let index = |name: &str| format.field_names.iter().position(|f| f == name);
        let body = match &format.record_template {
            Some(t) => t
                .parts()
                .iter()
                .map(|p| match p {
                    TemplatePart::Field(name) => Piece::Field(index(name)),
                    TemplatePart::Text(text) => Piece::Text(text.as_bytes().to_vec()),
                })
                .collect(),
            None => default_body(format),
        };
        // rate · 2^64, rounded up where it is not whole: 1 keeps every hash.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let threshold = (format.sample_rate * 18_446_744_073_709_551_616.0).ceil() as u128;
        Formatter {
            format: format.clone(),
            filter,
            lines,
            body,
            rules: Rules {
                output_type: format.output_type,
                stringify_object: format.stringify_object,
            },
            seed: 0,
            threshold,
            times: vec![TimeMemo::default(); format.field_names.len()],
        }
    }

    /// The same formatter with another sampling seed (0 unless set): see [`Formatter::sampled`].
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Formatter {
        self.seed = seed;
        self
    }

    /// The settings it writes.
    pub fn format(&self) -> &OutputFormat {
        &self.format
    }

    /// Whether `sample_rate` keeps `line` (the bytes given, without the line break): the
    /// rule escpush uses in place of the API's random choice, the same on every machine and
    /// run for a line and a seed. The line's 64-bit FNV-1a hash, xor the seed, through
    /// SplitMix64's finaliser, is kept when it is below `sample_rate` × 2^64; a rate of 1
    /// keeps every line, and over many distinct lines a rate keeps that share of them.
    pub fn sampled(&self, line: &[u8]) -> bool {
        self.threshold > u128::from(u64::MAX) || u128::from(mix(fnv1a(line) ^ self.seed)) < self.threshold
    }

    /// Reads `line` and, when the job delivers it (the filter keeps it, then sampling), appends
    /// its record to `out` as the `batch`'s next: `batch_prefix` before the first record,
    /// `record_delimiter` before every other. `Err`: the line is no JSON object (nothing is
    /// written).
    pub fn add(&mut self, batch: &mut Batch, line: &[u8], out: &mut Vec<u8>) -> Result<Delivery, MalformedLine> {
        if !self.lines.matches_line(line)? {
            return Ok(Delivery::Filtered);
        }
        if !self.sampled(line) {
            return Ok(Delivery::SampledOut);
        }
        let start = out.len();
        let framing = if batch.records == 0 {
            &self.format.batch_prefix
        } else {
            &self.format.record_delimiter
        };
        out.extend_from_slice(framing.as_bytes());
        self.write_record(line, out);
        batch.records += 1;
        self.replace_cve(out, start);
        Ok(Delivery::Delivered)
    }

    /// Reads `line` and, when the job delivers it (the filter keeps it, then sampling), appends
    /// its record alone to `out` (no batch framing: a [`Batcher`](super::Batcher) frames
    /// records given this way). `Err`: the line is no JSON object (nothing is written).
    pub fn add_record(&mut self, line: &[u8], out: &mut Vec<u8>) -> Result<Delivery, MalformedLine> {
        if !self.lines.matches_line(line)? {
            return Ok(Delivery::Filtered);
        }
        if !self.sampled(line) {
            return Ok(Delivery::SampledOut);
        }
        let start = out.len();
        self.write_record(line, out);
        self.replace_cve_from(out, start);
        Ok(Delivery::Delivered)
    }

    /// Appends one record of `line` (`record_prefix`, its fields or template, `record_suffix`)
    /// without the batch's framing or sampling; `Ok(false)` when the filter drops it.
    pub fn record(&mut self, line: &[u8], out: &mut Vec<u8>) -> Result<bool, MalformedLine> {
        if !self.lines.matches_line(line)? {
            return Ok(false);
        }
        let start = out.len();
        self.write_record(line, out);
        self.replace_cve(out, start);
        Ok(true)
    }

    /// A new batch.
    pub fn batch(&self) -> Batch {
        Batch::default()
    }

    /// Ends `batch`: its `batch_suffix`, after a batch of one record or more. A batch with
    /// no record is not delivered: nothing is written for it.
    pub fn finish(&self, batch: Batch, out: &mut Vec<u8>) {
        if batch.records > 0 {
            let start = out.len();
            out.extend_from_slice(self.format.batch_suffix.as_bytes());
            self.replace_cve(out, start);
        }
    }

    /// The bytes of one batch of `lines` (for a few lines; a preview adds line by line).
    pub fn deliver<'l>(&mut self, lines: impl IntoIterator<Item = &'l [u8]>) -> Result<Vec<u8>, MalformedLine> {
        let mut out = Vec::new();
        let mut batch = self.batch();
        for line in lines {
            let _ = self.add(&mut batch, line, &mut out)?;
        }
        self.finish(batch, &mut out);
        Ok(out)
    }

    /// [`Formatter::replace_cve`] within what was just written, from `out[start]` on (a
    /// record alone: the byte before it belongs to another record).
    fn replace_cve_from(&self, out: &mut [u8], start: usize) {
        self.replace_cve(&mut out[start..], 0);
    }

    /// The record of the line the walk just read. A time field's text converted last time
    /// is not converted again: its bytes are those written then (`Rules::write` depends on
    /// the value alone).
    fn write_record(&mut self, line: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(self.format.record_prefix.as_bytes());
        for piece in &self.body {
            match piece {
                Piece::Text(text) => out.extend_from_slice(text),
                Piece::Field(Some(i)) if self.format.is_time[*i] => {
                    let value = self.lines.observed(line, *i);
                    let (text, int) = match value {
                        LineValue::Int(text) => (text, true),
                        LineValue::Str(text) => (text, false),
                        _ => {
                            self.rules.write(value, Some(self.format.timestamp_format), out);
                            continue;
                        }
                    };
                    let memo = &mut self.times[*i];
                    if memo.int != int || memo.text.as_deref() != Some(text) {
                        memo.written.clear();
                        self.rules
                            .write(value, Some(self.format.timestamp_format), &mut memo.written);
                        let kept = memo.text.get_or_insert_with(Vec::new);
                        kept.clear();
                        kept.extend_from_slice(text);
                        memo.int = int;
                    }
                    out.extend_from_slice(&memo.written);
                }
                Piece::Field(Some(i)) => self.rules.write(self.lines.observed(line, *i), None, out),
                Piece::Field(None) => out.extend_from_slice(b"null"),
            }
        }
        out.extend_from_slice(self.format.record_suffix.as_bytes());
    }

    /// `CVE-2021-44228`: every `${` from `out[start - 1]` on is written `x{` (the byte before
    /// `start` too, which ends what was written before into the same buffer). The length does
    /// not change, so a count of bytes is the same either way.
    pub(super) fn replace_cve(&self, out: &mut [u8], start: usize) {
        if !self.format.cve_2021_44228 {
            return;
        }
        let from = start.saturating_sub(1);
        for i in from..out.len().saturating_sub(1) {
            if out[i] == b'$' && out[i + 1] == b'{' {
                out[i] = b'x';
            }
        }
    }
}

/// The body without a template: each field, joined by `field_delimiter`; in ndjson each as
/// `"Name":value`.
fn default_body(format: &OutputFormat) -> Vec<Piece> {
    let mut body = Vec::new();
    for (i, name) in format.field_names.iter().enumerate() {
        let mut text = Vec::new();
        if i > 0 {
            text.extend_from_slice(format.field_delimiter.as_bytes());
        }
        if format.output_type == OutputType::Ndjson {
            json_string(name.as_bytes(), &mut text);
            text.push(b':');
        }
        if !text.is_empty() {
            body.push(Piece::Text(text));
        }
        body.push(Piece::Field(Some(i)));
    }
    body
}

/// 64-bit FNV-1a.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// SplitMix64's finaliser: every bit of the input moves every bit of the output.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
