//! A job's preview: what a log-push job would deliver for a sample of logs, on the scan's
//! machinery (`scan.rs`' readers and workers, `work.rs`' collector, in input order). Each
//! worker runs the job's [`Formatter`] (its filter, then sampling, then the record) on the
//! lines of its chunk into the chunk's buffer; the collector cuts the records into batches
//! with core's [`Batcher`] under the job's [`BatchLimits`](escpush_core::BatchLimits), and
//! counts them, or writes them to a folder (one file per batch, named as log-push names
//! them, gzip or plain: `sink.rs`) or to one stream. What it reports is `result.rs`.
//!
//! ```no_run
//! use escpush_core::JobOutput;
//! use escpush_scan::{Preview, Selection};
//! use serde_json::json;
//!
//! let job = json!({"dataset": "http_requests", "output_options": {"field_names": ["RayID", "EdgeStartTimestamp"]}});
//! let job = JobOutput::from_job(job.as_object().unwrap(), None)?;
//! let inputs = Selection::new().expand(["logs/"])?;
//! let result = Preview::new(&job).count(inputs)?;
//! eprintln!("{} bytes delivered in {} batches", result.total.delivered_bytes, result.total.batches);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod merge;
mod result;
mod sink;

use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

use escpush_core::{BatchSink, Batcher, JobOutput};

pub use result::{PreviewCounts, PreviewInput, PreviewResult};
use sink::{DirSink, StreamSink};

use crate::breakdown::Breakdown;
use crate::result::{Progress, ScanResult};
use crate::work::{Delivered, Eval, JobEval, TakeDelivered};
use crate::{Input, ScanError, Scanner};

/// The collector's side: cuts the records into batches, in input order.
struct Cutting<'f, 's> {
    batcher: Batcher<'f>,
    sink: Option<&'s mut dyn BatchSink<Error = io::Error>>,
    inputs: Vec<PreviewCounts>,
    /// The input holding the open batch's first record, and the last input that delivered.
    open: Option<usize>,
    last: usize,
}

impl TakeDelivered for Cutting<'_, '_> {
    fn take(&mut self, input: usize, d: Delivered) -> Result<(), ScanError> {
        self.inputs[input].add_times(d.first, d.last, d.timed);
        let mut offset = 0;
        for (len, time) in d.records {
            let added = match self.sink.as_mut() {
                Some(sink) => {
                    let end = offset + usize::try_from(len).unwrap_or(usize::MAX);
                    let record = &d.bytes[offset..end];
                    offset = end;
                    self.batcher
                        .push(record, time, &mut **sink)
                        .map_err(|error| ScanError::Write { error })?
                }
                None => self.batcher.count(len, time),
            };
            if added.ended.is_some() {
                if let Some(opened) = self.open {
                    self.inputs[opened].batches += 1;
                }
                self.open = Some(input);
            }
            self.open.get_or_insert(input);
            self.last = input;
            let counts = &mut self.inputs[input];
            counts.delivered += 1;
            counts.delivered_bytes += added.bytes;
        }
        Ok(())
    }
}

impl Cutting<'_, '_> {
    fn finish(&mut self) -> Result<(), ScanError> {
        let suffix = self.batcher.pending_suffix();
        let ended = match self.sink.as_mut() {
            Some(sink) => self
                .batcher
                .finish(&mut **sink)
                .map_err(|error| ScanError::Write { error })?,
            None => self.batcher.finish_count(),
        };
        if ended.is_some() {
            if let Some(opened) = self.open.take() {
                self.inputs[opened].batches += 1;
            }
            self.inputs[self.last].delivered_bytes += suffix;
        }
        Ok(())
    }
}

/// Runs a job's formatter over log samples. See the [module docs](self).
pub struct Preview<'a> {
    job: JobOutput,
    seed: u64,
    time_field: Option<String>,
    scanner: Scanner<'a>,
    partial: Option<PreviewResult>,
}

impl std::fmt::Debug for Preview<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Preview")
            .field("seed", &self.seed)
            .field("time_field", &self.time_field)
            .field("scanner", &self.scanner)
            .finish_non_exhaustive()
    }
}

/// Where the batches go.
enum Mode<'o> {
    Count,
    Stream(&'o mut dyn Write, bool),
    Dir(&'o Path, bool),
}

impl<'a> Preview<'a> {
    /// A preview of `job`: seed 0, one worker per core, not strict, the times read from the
    /// dataset's time field (none when it has no single one).
    pub fn new(job: &JobOutput) -> Preview<'a> {
        Preview {
            job: job.clone(),
            seed: 0,
            time_field: job.dataset.time_field().map(str::to_owned),
            scanner: Scanner::every_line(),
            partial: None,
        }
    }

    /// The sampling seed (see core's `Formatter::sampled`).
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The field the lines' times are read from (the interval limit and the time span).
    #[must_use]
    pub fn time_field(mut self, field: Option<String>) -> Self {
        self.time_field = field;
        self
    }

    /// See [`Scanner::threads`].
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Self {
        self.scanner = self.scanner.threads(threads);
        self
    }

    /// See [`Scanner::strict`].
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.scanner = self.scanner.strict(strict);
        self
    }

    /// See [`Scanner::chunk_size`].
    #[must_use]
    pub fn chunk_size(mut self, bytes: usize) -> Self {
        self.scanner = self.scanner.chunk_size(bytes);
        self
    }

    /// Counts by group and time bucket too (a scan's [`Breakdown`]; each row's
    /// [`Counts::delivered`](crate::Counts::delivered) and `delivered_bytes` are the preview's).
    #[must_use]
    pub fn breakdown(mut self, breakdown: Breakdown) -> Self {
        self.scanner = self.scanner.breakdown(breakdown);
        self
    }

    /// See [`Scanner::progress`].
    #[must_use]
    pub fn progress(mut self, every: Duration, f: impl FnMut(&Progress) -> bool + Send + 'a) -> Self {
        self.scanner = self.scanner.progress(every, f);
        self
    }

    /// The counts collected before the last preview stopped with an error.
    pub fn partial(&self) -> Option<&PreviewResult> {
        self.partial.as_ref()
    }

    /// Counts what the job delivers for `inputs`: nothing is written, no record is kept.
    pub fn count(&mut self, inputs: impl IntoIterator<Item = Input>) -> Result<PreviewResult, ScanError> {
        self.run(inputs.into_iter().collect(), Mode::Count)
    }

    /// Writes the batches to `out`, one after another (gzip: one member per batch).
    pub fn write_to(
        &mut self,
        inputs: impl IntoIterator<Item = Input>,
        out: &mut dyn Write,
        gzip: bool,
    ) -> Result<PreviewResult, ScanError> {
        self.run(inputs.into_iter().collect(), Mode::Stream(out, gzip))
    }

    /// Writes each batch to a file of its own in the folder `dir` (new, or empty), named as
    /// log-push names them (`<YYYYMMDD>/<start>_<end>_<token>.log.gz`, `.log` without gzip;
    /// see `sink.rs`). The files are written in a temporary folder beside `dir`, renamed to
    /// it when the preview succeeds: on any error nothing is left. A folder that holds one of
    /// the inputs is refused ([`ScanError::OutputIsInput`]).
    pub fn write_dir(
        &mut self,
        inputs: impl IntoIterator<Item = Input>,
        dir: impl AsRef<Path>,
        gzip: bool,
    ) -> Result<PreviewResult, ScanError> {
        self.run(inputs.into_iter().collect(), Mode::Dir(dir.as_ref(), gzip))
    }

    fn run(&mut self, inputs: Vec<Input>, mode: Mode<'_>) -> Result<PreviewResult, ScanError> {
        self.partial = None;
        let mut extras: Vec<String> = self
            .scanner
            .breakdown_of()
            .map(|b| b.observed().into_iter().map(str::to_owned).collect())
            .unwrap_or_default();
        let time_slot = self.time_field.as_ref().map(|field| {
            extras.push(field.clone());
            self.job.format.field_names().len() + extras.len() - 1
        });
        let formatter = self.job.formatter().with_seed(self.seed).observing(&extras);
        let eval = Eval::Job(Box::new(JobEval::new(
            formatter.clone(),
            time_slot,
            matches!(mode, Mode::Count),
        )));
        let names: Vec<String> = inputs.iter().map(Input::name).collect();
        let (mut dir, mut stream) = (None, None);
        match mode {
            Mode::Count => {}
            Mode::Stream(out, gzip) => stream = Some(StreamSink::new(out, gzip)),
            Mode::Dir(path, gzip) => dir = Some(DirSink::create(path, &inputs, gzip)?),
        }
        let sink: Option<&mut dyn BatchSink<Error = io::Error>> = match (&mut dir, &mut stream) {
            (Some(d), _) => Some(d),
            (_, Some(s)) => Some(s),
            _ => None,
        };
        let mut cutting = Cutting {
            batcher: Batcher::new(&formatter, self.job.limits),
            sink,
            inputs: vec![PreviewCounts::default(); names.len()],
            open: None,
            last: 0,
        };
        let scanned = self.scanner.run_with(inputs, None, &eval, Some(&mut cutting));
        let scanned = scanned.and_then(|r| cutting.finish().map(|()| r));
        let batches = cutting.batcher.batches();
        let total_bytes = cutting.batcher.bytes();
        let per_input = std::mem::take(&mut cutting.inputs);
        drop(cutting);
        let compressed = match (&dir, &stream) {
            (Some(d), _) if d.gzip() => Some(d.compressed),
            (_, Some(s)) if s.gzip() => Some(s.compressed),
            _ => None,
        };
        let files = dir.as_ref().map(|d| d.files.clone()).unwrap_or_default();
        let scan = match scanned {
            Ok(scan) => scan,
            Err(error) => {
                if let Some(scan) = self.scanner.partial() {
                    self.partial = Some(self.result(scan, per_input, batches, total_bytes, None, Vec::new()));
                }
                return Err(error);
            }
        };
        if let Some(dir) = dir {
            dir.commit()?;
        }
        if let Some(mut stream) = stream {
            stream.flush().map_err(|error| ScanError::Write { error })?;
        }
        Ok(self.result(&scan, per_input, batches, total_bytes, compressed, files))
    }

    fn result(
        &self,
        scan: &ScanResult,
        per_input: Vec<PreviewCounts>,
        batches: u64,
        delivered_bytes: u64,
        compressed_bytes: Option<u64>,
        files: Vec<String>,
    ) -> PreviewResult {
        let mut total = PreviewCounts {
            lines: scan.total,
            malformed: scan.malformed,
            kept: scan.matched,
            batches,
            delivered_bytes,
            compressed_bytes,
            bytes_read: scan.bytes,
            ..PreviewCounts::default()
        };
        let mut inputs = Vec::with_capacity(per_input.len());
        for (read, mut counts) in scan.inputs.iter().zip(per_input) {
            counts.lines = read.total;
            counts.malformed = read.malformed;
            counts.kept = read.matched;
            counts.bytes_read = read.bytes;
            total.delivered += counts.delivered;
            total.add_times(counts.first_time, counts.last_time, counts.timed_lines);
            inputs.push(PreviewInput {
                name: read.name.clone(),
                counts,
                complete: read.complete,
                continues: false,
            });
        }
        PreviewResult {
            total,
            inputs,
            first_malformed: scan.first_malformed.clone(),
            breakdown: scan.breakdown.clone(),
            time_field: self.time_field.clone(),
            files,
            seconds: scan.seconds,
        }
    }
}
