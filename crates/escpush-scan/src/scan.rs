//! The scan: [`Scanner`] (what it reports is `result.rs`). A reader thread cuts inputs into chunks
//! ([`crate::read`]: byte ranges of plain files, which the workers read themselves; lines of
//! streams), workers evaluate the chunks and the calling thread puts their results back in
//! input order ([`crate::work`]).

use std::fmt;
use std::io::{BufWriter, Write};
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use escpush_filter::{CompiledFilter, Filter};

use crate::breakdown::{Aggregate, Breakdown};
use crate::output::{self, Output};
use crate::read::{Chunk, Inputs, Reader};
use crate::result::{InputResult, Progress, ProgressFn, ScanResult};
use crate::work::{work, Collector, Done, Eval, TakeDelivered};
use crate::{Input, ScanError};

/// Runs a filter over NDJSON inputs. See the [crate docs](crate).
pub struct Scanner<'a> {
    /// The filter (none: every valid line, as a job without one).
    source: Option<Filter>,
    filter: CompiledFilter,
    breakdown: Option<Breakdown>,
    threads: usize,
    strict: bool,
    chunk_size: usize,
    max_line: usize,
    limit: Option<u64>,
    progress: Option<(Duration, ProgressFn<'a>)>,
    partial: Option<ScanResult>,
}

impl fmt::Debug for Scanner<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scanner")
            .field("threads", &self.threads)
            .field("strict", &self.strict)
            .field("chunk_size", &self.chunk_size)
            .field("max_line", &self.max_line)
            .finish_non_exhaustive()
    }
}

/// The buffers all chunks share, whatever the number of threads.
const BUFFER_BUDGET: usize = 24 << 20;
const MAX_CHUNK: usize = 2 << 20;
const MIN_CHUNK: usize = 64 << 10;
/// The most inputs read at once (each by a reader thread of its own).
const MAX_READERS: usize = 4;
/// The most worker threads a scan runs ([`Scanner::threads`]); the binding and the command
/// line take no more.
pub const MAX_THREADS: usize = 256;
/// The default line limit (see [`Scanner::max_line`]).
pub const DEFAULT_MAX_LINE: usize = 16 << 20;

impl<'a> Scanner<'a> {
    /// A scanner for `filter`: one worker per core, not strict, lines up to 16 MiB.
    pub fn new(filter: &Filter) -> Scanner<'a> {
        Scanner::build(Some(filter.clone()), filter.compile())
    }

    /// A scanner that keeps every valid line: a preview's, whose job's formatter filters,
    /// and with [`Scanner::select`] the valid lines of its inputs as they are (plain, from
    /// gzip, folders, object stores: a transformer's local run of `SELECT *` and no filter).
    pub fn every_line() -> Scanner<'a> {
        Scanner::build(None, CompiledFilter::reading::<&str>(&[]))
    }

    fn build(source: Option<Filter>, filter: CompiledFilter) -> Scanner<'a> {
        Scanner {
            source,
            filter,
            breakdown: None,
            threads: 0,
            strict: false,
            chunk_size: 0,
            max_line: DEFAULT_MAX_LINE,
            limit: None,
            progress: None,
            partial: None,
        }
    }

    /// The number of worker threads; 0 (the default) means one per core, and either is at
    /// most [`MAX_THREADS`].
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Stop at the first malformed line with [`ScanError::Malformed`] (default: count it
    /// and go on).
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The size of the chunks handed to workers; 0 (the default) picks one from the
    /// buffer budget. Mostly for tests.
    #[must_use]
    pub fn chunk_size(mut self, bytes: usize) -> Self {
        self.chunk_size = bytes;
        self
    }

    /// The line limit, in bytes (default 16 MiB): a line whose content (without its line
    /// break, `\n` or `\r\n`) is longer is counted malformed and skipped as it is read,
    /// never held whole. Lines that fit in a chunk are always read.
    #[must_use]
    pub fn max_line(mut self, bytes: usize) -> Self {
        self.max_line = bytes.max(2);
        self
    }

    /// [`Scanner::select`] and [`Scanner::select_to_file`] write only the first `lines`
    /// matching lines (in input order), for a look; the scan still reads every input, so the
    /// counts are those of the whole input. `None` (the default): every matching line.
    #[must_use]
    pub fn limit(mut self, lines: Option<u64>) -> Self {
        self.limit = lines;
        self
    }

    /// Also count by group and by time bucket ([`ScanResult::breakdown`]), in the same pass:
    /// the fields grouped by and the time field are read by the walk that evaluates the line.
    #[must_use]
    pub fn breakdown(mut self, breakdown: Breakdown) -> Self {
        let observed = breakdown.observed();
        self.filter = match &self.source {
            Some(source) if observed.is_empty() => source.compile(),
            Some(source) => CompiledFilter::with_observed(source, &observed),
            None => CompiledFilter::reading(&observed),
        };
        self.breakdown = (!breakdown.is_empty()).then_some(breakdown);
        self
    }

    /// The counts collected before the last scan stopped with an error (in input order, up to
    /// the input it stopped in), to report with the error; `None` after a scan that succeeded.
    pub fn partial(&self) -> Option<&ScanResult> {
        self.partial.as_ref()
    }

    /// Calls `f` on the calling thread about every `every` while the scan runs (and when it
    /// ends); when `f` returns false the scan stops with [`ScanError::Cancelled`].
    #[must_use]
    pub fn progress(mut self, every: Duration, f: impl FnMut(&Progress) -> bool + Send + 'a) -> Self {
        self.progress = Some((every, Box::new(f)));
        self
    }

    /// Counts the lines of `inputs` (read in order) that pass the filter.
    pub fn scan(&mut self, inputs: impl IntoIterator<Item = Input>) -> Result<ScanResult, ScanError> {
        self.run(inputs.into_iter().collect(), None)
    }

    /// Writes the lines of `inputs` that pass the filter to `out`, in input order, each
    /// ending with a line break; returns the same counts as [`Scanner::scan`]. In strict
    /// mode, `out` holds the matching lines before the first malformed one.
    pub fn select(
        &mut self,
        inputs: impl IntoIterator<Item = Input>,
        out: &mut dyn Write,
    ) -> Result<ScanResult, ScanError> {
        let result = self.run(inputs.into_iter().collect(), Some(out))?;
        Ok(result)
    }

    /// Writes the lines of `inputs` that pass the filter to the file at `path` (see
    /// [`Scanner::select`]). `path` may not be one of the inputs ([`ScanError::OutputIsInput`],
    /// checked by device and inode where the platform has them); the lines go to a new file
    /// beside it, renamed over it when the scan succeeds, so that on any error (an input that
    /// cannot be read, a malformed line in strict mode, a cancelled scan) an existing file
    /// at `path` is left as it was. A path that is not a regular file (`/dev/null`, a pipe)
    /// is written directly.
    pub fn select_to_file(
        &mut self,
        inputs: impl IntoIterator<Item = Input>,
        path: impl AsRef<Path>,
    ) -> Result<ScanResult, ScanError> {
        write_file(inputs.into_iter().collect(), path.as_ref(), |inputs, out| {
            self.run(inputs, Some(out))
        })
    }

    fn workers(&self) -> usize {
        let n = if self.threads == 0 {
            thread::available_parallelism().map_or(1, NonZeroUsize::get)
        } else {
            self.threads
        };
        n.clamp(1, MAX_THREADS)
    }

    /// The breakdown asked for, if any.
    #[cfg_attr(not(feature = "job"), allow(dead_code))]
    pub(crate) fn breakdown_of(&self) -> Option<&Breakdown> {
        self.breakdown.as_ref()
    }

    fn run(&mut self, inputs: Vec<Input>, out: Option<&mut dyn Write>) -> Result<ScanResult, ScanError> {
        let eval = Eval::Filter(Box::new(self.filter.clone()));
        self.run_with(inputs, out, &eval, None)
    }

    /// A scan whose workers run `eval` on each line (a scan's filter, or a job's formatter)
    /// and whose collector hands the delivered records to `preview` in input order.
    pub(crate) fn run_with<'o>(
        &mut self,
        inputs: Vec<Input>,
        out: Option<&'o mut dyn Write>,
        eval: &Eval,
        preview: Option<&'o mut dyn TakeDelivered>,
    ) -> Result<ScanResult, ScanError> {
        self.partial = None;
        let started = Instant::now();
        let names: Vec<String> = inputs.iter().map(Input::name).collect();
        let mut so_far = ScanResult::empty(names.iter().cloned().map(InputResult::new).collect());
        let result = self.run_inner(inputs, &names, out, &mut so_far, started, eval, preview);
        if result.is_err() {
            so_far.seconds = started.elapsed().as_secs_f64();
            self.partial = Some(so_far);
        }
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn run_inner<'o>(
        &mut self,
        inputs: Vec<Input>,
        names: &[String],
        mut out: Option<&'o mut dyn Write>,
        so_far: &mut ScanResult,
        started: Instant,
        eval: &Eval,
        preview: Option<&'o mut dyn TakeDelivered>,
    ) -> Result<ScanResult, ScanError> {
        let workers = self.workers();
        // Several inputs are read (and decompressed) by several readers at once, each with a
        // pool of its own: a reader ahead of the input being collected can only fill its own
        // buffers, never take those the input in front needs.
        let readers = workers.min(inputs.len()).clamp(1, MAX_READERS);
        // Enough buffers for every worker to have one in hand and one waiting, plus the one
        // being filled and the one being written.
        let buffers = 2 * workers + 2;
        let chunk_size = if self.chunk_size == 0 {
            (BUFFER_BUDGET / (buffers * readers)).clamp(MIN_CHUNK, MAX_CHUNK)
        } else {
            self.chunk_size.max(16)
        };
        let select = out.is_some();
        let strict = self.strict;
        // Lines that fit in a chunk are never too long.
        let max_line = self.max_line.max(chunk_size + 2);
        // Shared (an `Arc`) with stdin's reader, which outlives the scan (see `input.rs`).
        let cancel = Arc::new(AtomicBool::new(false));
        let mut plan = self.breakdown.as_ref().map(Breakdown::plan);
        if let Some(plan) = plan.as_mut() {
            plan.first = eval.observed_first();
        }

        let mut pools = Vec::with_capacity(readers);
        let mut pool_rxs = Vec::with_capacity(readers);
        for _ in 0..readers {
            let (pool_tx, pool_rx) = mpsc::sync_channel::<Vec<u8>>(buffers);
            for _ in 0..buffers {
                pool_tx.send(Vec::new()).expect("the pool has room for every buffer");
            }
            pools.push(pool_tx);
            pool_rxs.push(pool_rx);
        }
        let (work_tx, work_rx) = mpsc::sync_channel::<Chunk>(buffers * readers);
        let work_rx = Arc::new(Mutex::new(work_rx));
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        let queue = Inputs::new(inputs);

        thread::scope(|s| {
            let (spawned_readers, failed) = spawn_readers(s, pool_rxs, &work_tx, &cancel, &queue, chunk_size, max_line);
            drop(work_tx);
            if let Some(error) = failed {
                return Err(abandon(&cancel, done_tx, &done_rx, pools, spawned_readers, error));
            }
            for i in 0..workers {
                let work_rx = Arc::clone(&work_rx);
                let tx = done_tx.clone();
                let mut filter = eval.clone();
                let spawned = thread::Builder::new()
                    .name(format!("escpush-scan-{i}"))
                    .spawn_scoped(s, move || {
                        work(&work_rx, &tx, &mut filter, plan, select, strict, max_line);
                    });
                if let Err(error) = spawned {
                    return Err(abandon(&cancel, done_tx, &done_rx, pools, spawned_readers, error));
                }
            }
            drop(done_tx);

            let mut collector = Collector::new(names, out.take(), strict, self.limit);
            collector.aggregate = self.breakdown.as_ref().map(Aggregate::new);
            collector.preview = preview;
            collector.collect(&done_rx, &pools, started, self.progress.as_mut());
            if collector.error.is_some() {
                cancel.store(true, Ordering::Relaxed);
                drain(&done_rx, &pools);
            }
            // The error of the earliest input, when readers failed.
            let mut read: Result<(), (usize, ScanError)> = Ok(());
            for reader in spawned_readers {
                let result = reader.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                if let Err((input, error)) = result {
                    if read.as_ref().err().is_none_or(|(first, _)| input < *first) {
                        read = Err((input, error));
                    }
                }
            }
            if let (Some(aggregate), Some(breakdown)) = (&collector.aggregate, &self.breakdown) {
                collector.result.breakdown = Some(aggregate.result(breakdown));
            }
            so_far.clone_from(&collector.result);
            if let Some(error) = collector.error {
                return Err(error);
            }
            read.map_err(|(_, error)| error)?;
            debug_assert_eq!(collector.next.0, names.len(), "every input was collected to its end");
            so_far.clone_from(&collector.result);
            if let Some(out) = collector.out.as_mut() {
                out.flush().map_err(|error| ScanError::Write { error })?;
            }
            let mut result = collector.result;
            result.seconds = started.elapsed().as_secs_f64();
            if let Some((_, report)) = self.progress.as_mut() {
                let progress = Progress {
                    bytes: result.bytes,
                    lines: result.total,
                    elapsed: started.elapsed(),
                };
                if !report(&progress) {
                    return Err(ScanError::Cancelled);
                }
            }
            Ok(result)
        })
    }
}

/// Runs `write` on `inputs` into the file at `path` ([`Scanner::select_to_file`]'s rules):
/// never one of the inputs, written beside it, renamed over it when `write` succeeds.
pub(crate) fn write_file<R>(
    inputs: Vec<Input>,
    path: &Path,
    write: impl FnOnce(Vec<Input>, &mut dyn Write) -> Result<R, ScanError>,
) -> Result<R, ScanError> {
    output::check_not_input(&inputs, path)?;
    let output = Output::create(path)?;
    let result = {
        let mut out = BufWriter::with_capacity(1 << 20, &output.file);
        let result = write(inputs, &mut out)?;
        out.flush().map_err(|error| ScanError::Write { error })?;
        result
    };
    output.commit()?;
    Ok(result)
}

type ReaderHandle<'scope> = thread::ScopedJoinHandle<'scope, Result<(), (usize, ScanError)>>;

/// Starts a reader thread per pool; stops at the first that cannot start (and says why).
fn spawn_readers<'scope, 'env>(
    s: &'scope thread::Scope<'scope, 'env>,
    pools: Vec<Receiver<Vec<u8>>>,
    work_tx: &SyncSender<Chunk>,
    cancel: &'env Arc<AtomicBool>,
    queue: &'env Inputs,
    chunk_size: usize,
    max_line: usize,
) -> (Vec<ReaderHandle<'scope>>, Option<std::io::Error>) {
    let mut spawned = Vec::with_capacity(pools.len());
    for (id, pool) in pools.into_iter().enumerate() {
        let work = work_tx.clone();
        let started = thread::Builder::new()
            .name(format!("escpush-scan-reader-{id}"))
            .spawn_scoped(s, move || {
                let reader = Reader {
                    id,
                    failed: None,
                    pool,
                    work,
                    cancel,
                    chunk_size,
                    max_line,
                    seq: 0,
                };
                reader.run(queue)
            });
        match started {
            Ok(handle) => spawned.push(handle),
            Err(error) => return (spawned, Some(error)),
        }
    }
    (spawned, None)
}

/// Stops a scan whose threads could not all start: lets the readers and the workers already
/// started finish (without the pools' senders the readers stop once the buffers in flight are
/// gone) and says why.
fn abandon(
    cancel: &AtomicBool,
    done_tx: mpsc::Sender<Done>,
    done_rx: &Receiver<Done>,
    pools: Vec<SyncSender<Vec<u8>>>,
    readers: Vec<ReaderHandle<'_>>,
    error: std::io::Error,
) -> ScanError {
    cancel.store(true, Ordering::Relaxed);
    drop(done_tx);
    drain(done_rx, &pools);
    drop(pools);
    for reader in readers {
        let _ = reader.join();
    }
    ScanError::Thread { error }
}

/// Receives the remaining results without looking at them, handing buffers back so that the
/// reader can reach its cancellation check.
fn drain(done_rx: &Receiver<Done>, pools: &[SyncSender<Vec<u8>>]) {
    for done in done_rx {
        let _ = pools[done.chunk.pool].send(done.chunk.buf);
    }
}
