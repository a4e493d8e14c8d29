//! The scan: a reader thread cuts inputs into chunks (byte ranges of plain files, which the
//! workers read themselves; lines of streams), workers evaluate the chunks, the calling
//! thread puts their results back in input order.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufWriter, Write};
use std::num::NonZeroUsize;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use escpush_core::{is_blank, CompiledFilter, Filter, MalformedLine};
use memchr::{memchr_iter, memrchr};

use crate::input::{Opened, PositionalFile, Source};
use crate::output::{self, Output};
use crate::{Input, ScanError};

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
    /// Wall time of the scan.
    pub seconds: f64,
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

type ProgressFn<'a> = Box<dyn FnMut(&Progress) -> bool + Send + 'a>;

/// Runs a filter over NDJSON inputs. See the [crate docs](crate).
pub struct Scanner<'a> {
    filter: CompiledFilter,
    threads: usize,
    strict: bool,
    chunk_size: usize,
    max_line: usize,
    progress: Option<(Duration, ProgressFn<'a>)>,
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
/// The default line limit (see [`Scanner::max_line`]).
pub const DEFAULT_MAX_LINE: usize = 16 << 20;

/// A piece of one input: the whole lines `buf[start..len]` (the last one may lack its line
/// break at the end of the input), then perhaps one line too long to hold. A chunk of a
/// plain file comes as a byte range that the worker reads itself.
struct Chunk {
    seq: u64,
    input: usize,
    buf: Vec<u8>,
    start: usize,
    len: usize,
    /// Bytes of the input the chunk stands for.
    bytes: u64,
    /// After its lines, one line longer than the limit (counted malformed, not read).
    long_line: bool,
    range: Option<FileRange>,
}

impl Chunk {
    fn new(seq: u64, input: usize, buf: Vec<u8>) -> Chunk {
        Chunk {
            seq,
            input,
            buf,
            start: 0,
            len: 0,
            bytes: 0,
            long_line: false,
            range: None,
        }
    }
}

/// The bytes `start..end` of a plain file of `size` bytes: the chunk holds the lines that
/// start there (the last one is read to its end, past `end`).
struct FileRange {
    file: Arc<PositionalFile>,
    start: u64,
    end: u64,
}

/// What a worker found in one chunk.
struct Done {
    chunk: Chunk,
    /// Line segments in the chunk, blank lines included (for line numbers).
    lines: u64,
    total: u64,
    matched: u64,
    malformed: u64,
    /// Index of the first malformed line within the chunk, and why.
    first_malformed: Option<(u64, MalformedReason)>,
    /// The matching lines (select mode), without their line breaks.
    selected: Vec<Range<usize>>,
    /// Reading the chunk's range failed.
    error: Option<ScanError>,
}

impl<'a> Scanner<'a> {
    /// A scanner for `filter`: one worker per core, not strict, lines up to 16 MiB.
    pub fn new(filter: &Filter) -> Scanner<'a> {
        Scanner {
            filter: filter.compile(),
            threads: 0,
            strict: false,
            chunk_size: 0,
            max_line: DEFAULT_MAX_LINE,
            progress: None,
        }
    }

    /// The number of worker threads; 0 (the default) means one per core.
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
        let path = path.as_ref();
        let inputs: Vec<Input> = inputs.into_iter().collect();
        output::check_not_input(&inputs, path)?;
        let output = Output::create(path)?;
        let result = {
            let mut out = BufWriter::with_capacity(1 << 20, &output.file);
            let result = self.run(inputs, Some(&mut out))?;
            out.flush().map_err(|error| ScanError::Write { error })?;
            result
        };
        output.commit()?;
        Ok(result)
    }

    fn workers(&self) -> usize {
        let n = if self.threads == 0 {
            thread::available_parallelism().map_or(1, NonZeroUsize::get)
        } else {
            self.threads
        };
        n.clamp(1, 256)
    }

    fn run(&mut self, inputs: Vec<Input>, mut out: Option<&mut dyn Write>) -> Result<ScanResult, ScanError> {
        let started = Instant::now();
        let workers = self.workers();
        // Enough buffers for every worker to have one in hand and one waiting, plus the one
        // being filled and the one being written.
        let buffers = 2 * workers + 2;
        let chunk_size = if self.chunk_size == 0 {
            (BUFFER_BUDGET / buffers).clamp(MIN_CHUNK, MAX_CHUNK)
        } else {
            self.chunk_size.max(16)
        };
        let names: Vec<String> = inputs.iter().map(Input::name).collect();
        let select = out.is_some();
        let strict = self.strict;
        // Lines that fit in a chunk are never too long.
        let max_line = self.max_line.max(chunk_size + 2);
        let cancel = AtomicBool::new(false);

        let (pool_tx, pool_rx) = mpsc::sync_channel::<Vec<u8>>(buffers);
        for _ in 0..buffers {
            pool_tx.send(Vec::new()).expect("the pool has room for every buffer");
        }
        let (work_tx, work_rx) = mpsc::sync_channel::<Chunk>(buffers);
        let work_rx = Arc::new(Mutex::new(work_rx));
        let (done_tx, done_rx) = mpsc::channel::<Done>();

        thread::scope(|s| {
            let reader = {
                let cancel = &cancel;
                thread::Builder::new()
                    .name("escpush-scan-reader".into())
                    .spawn_scoped(s, move || {
                        let reader = Reader {
                            pool: pool_rx,
                            work: work_tx,
                            cancel,
                            chunk_size,
                            max_line,
                            seq: 0,
                        };
                        reader.run(inputs)
                    })
                    .map_err(|error| ScanError::Thread { error })?
            };
            for i in 0..workers {
                let work_rx = Arc::clone(&work_rx);
                let tx = done_tx.clone();
                let mut filter = self.filter.clone();
                let spawned = thread::Builder::new()
                    .name(format!("escpush-scan-{i}"))
                    .spawn_scoped(s, move || work(&work_rx, &tx, &mut filter, select, strict, max_line));
                if let Err(error) = spawned {
                    cancel.store(true, Ordering::Relaxed);
                    drop(done_tx);
                    // Let the reader and the workers already started finish; without the
                    // pool's sender the reader stops once the buffers in flight are gone.
                    drain(&done_rx, &pool_tx);
                    drop(pool_tx);
                    let _ = reader.join();
                    return Err(ScanError::Thread { error });
                }
            }
            drop(done_tx);

            let mut collector = Collector::new(&names, out.take(), strict);
            collector.collect(&done_rx, &pool_tx, started, self.progress.as_mut());
            if collector.error.is_some() {
                cancel.store(true, Ordering::Relaxed);
                drain(&done_rx, &pool_tx);
            }
            let read = reader.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            if let Some(error) = collector.error {
                return Err(error);
            }
            read?;
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

/// Receives the remaining results without looking at them, handing buffers back so that the
/// reader can reach its cancellation check.
fn drain(done_rx: &Receiver<Done>, pool_tx: &SyncSender<Vec<u8>>) {
    for done in done_rx {
        let _ = pool_tx.send(done.chunk.buf);
    }
}

struct Reader<'s> {
    pool: Receiver<Vec<u8>>,
    work: SyncSender<Chunk>,
    cancel: &'s AtomicBool,
    chunk_size: usize,
    max_line: usize,
    seq: u64,
}

impl Reader<'_> {
    /// Reads the inputs in turn; on an error, tells everyone to stop.
    fn run(mut self, inputs: Vec<Input>) -> Result<(), ScanError> {
        let result = inputs
            .into_iter()
            .enumerate()
            .try_for_each(|(i, input)| self.read_input(i, input));
        if result.is_err() {
            self.cancel.store(true, Ordering::Relaxed);
        }
        result
    }

    /// A buffer of `size` bytes from the pool (`None` once the scan is stopping).
    fn buffer(&self, size: usize) -> Option<Vec<u8>> {
        let mut buf = self.pool.recv().ok()?;
        if buf.capacity() > 2 * (self.chunk_size + SLACK) {
            // Grown for a long line: give the memory back.
            buf = Vec::new();
        }
        buf.resize(size, 0);
        Some(buf)
    }

    fn send(&mut self, mut chunk: Chunk) -> bool {
        chunk.seq = self.seq;
        self.seq += 1;
        self.work.send(chunk).is_ok()
    }

    /// Cuts one input into chunks of whole lines; a plain file into byte ranges that the
    /// workers read themselves, so that reading is spread over the cores and each chunk is
    /// evaluated while it is still in the cache of the core that read it.
    fn read_input(&mut self, index: usize, input: Input) -> Result<(), ScanError> {
        match Source::open(input)? {
            Opened::Stream(source) => self.read_stream(index, source),
            Opened::File(file) => {
                let file = Arc::new(file);
                let mut start = 0;
                while start < file.size {
                    if self.cancel.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    let Some(buf) = self.buffer(self.chunk_size + SLACK) else {
                        return Ok(());
                    };
                    let end = (start + self.chunk_size as u64).min(file.size);
                    let mut chunk = Chunk::new(0, index, buf);
                    chunk.bytes = end - start;
                    chunk.range = Some(FileRange {
                        file: Arc::clone(&file),
                        start,
                        end,
                    });
                    if !self.send(chunk) {
                        return Ok(());
                    }
                    start = end;
                }
                Ok(())
            }
        }
    }

    /// Cuts a stream into chunks of whole lines, carrying the partial last line over.
    fn read_stream(&mut self, index: usize, mut source: Source) -> Result<(), ScanError> {
        // A buffer never outgrows `cap`, so that a line is too long for sure when it fills a
        // buffer of `cap` bytes without a line break; shorter lines are measured by
        // `evaluate`, without their line break (LF or CRLF).
        let cap = line_cap(self.max_line);
        let Some(mut buf) = self.buffer(self.chunk_size) else {
            return Ok(());
        };
        let mut filled = 0;
        // Inside a line longer than `max_line`: its bytes are dropped as they come.
        let mut skipping = false;
        let mut skipped = 0u64;
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                return Ok(());
            }
            if filled == buf.len() {
                if let Some(last) = memrchr(b'\n', &buf[..filled]) {
                    let Some(mut next) = self.buffer(self.chunk_size) else {
                        return Ok(());
                    };
                    let tail = filled - last - 1;
                    if tail >= next.len() {
                        // tail < buf.len() <= cap: the line may still end in time.
                        next.resize((2 * tail).min(cap), 0);
                    }
                    next[..tail].copy_from_slice(&buf[last + 1..filled]);
                    let mut chunk = Chunk::new(0, index, buf);
                    chunk.len = last + 1;
                    chunk.bytes = chunk.len as u64;
                    if !self.send(chunk) {
                        return Ok(());
                    }
                    buf = next;
                    filled = tail;
                } else if buf.len() >= cap {
                    skipping = true;
                    skipped = filled as u64;
                    filled = 0;
                } else {
                    let size = (buf.len() * 2).min(cap);
                    buf.resize(size, 0);
                }
                continue;
            }
            let n = source.read(&mut buf[filled..])?;
            if n == 0 {
                break;
            }
            if skipping {
                let Some(i) = memchr::memchr(b'\n', &buf[filled..filled + n]) else {
                    skipped += n as u64;
                    filled = 0;
                    continue;
                };
                // The long line ends: count it, keep what follows.
                let rest = filled + i + 1..filled + n;
                let Some(mut next) = self.buffer(self.chunk_size.max(rest.len())) else {
                    return Ok(());
                };
                next[..rest.len()].copy_from_slice(&buf[rest.clone()]);
                filled = rest.len();
                skipping = false;
                let mut chunk = Chunk::new(0, index, std::mem::replace(&mut buf, next));
                chunk.long_line = true;
                chunk.bytes = skipped + i as u64 + 1;
                if !self.send(chunk) {
                    return Ok(());
                }
                continue;
            }
            filled += n;
        }
        // The rest (maybe nothing: the buffer then goes back to the pool through a chunk of
        // no lines, which keeps the sequence simple).
        let mut chunk = Chunk::new(0, index, buf);
        if skipping {
            chunk.long_line = true;
            chunk.bytes = skipped;
        } else {
            chunk.len = filled;
            chunk.bytes = filled as u64;
        }
        self.send(chunk);
        Ok(())
    }
}

/// Room past the chunk size in every buffer: the byte before a range, and the end of its
/// last line, which usually fits.
const SLACK: usize = 64 << 10;

/// Reads the lines that start in the chunk's byte range into its buffer: from the byte
/// before the range (to see whether a line starts at its first byte) to the end of the last
/// line that starts in it.
fn read_range(chunk: &mut Chunk, max_line: usize) -> Result<(), ScanError> {
    let Some(range) = chunk.range.take() else { return Ok(()) };
    let file = &range.file;
    let from = range.start.saturating_sub(1);
    // Both are at most the chunk size plus one: they fit in memory.
    let want = usize::try_from(range.end - from).unwrap_or(usize::MAX);
    grow(&mut chunk.buf, want);
    let n = file.read_full(&mut chunk.buf[..want], from)?;
    let first = if range.start == 0 {
        0
    } else {
        // The first line that starts in the range follows the first line break from the
        // byte before it; none: a line from an earlier range covers this one.
        memchr::memchr(b'\n', &chunk.buf[..n]).map_or(n, |i| i + 1)
    };
    chunk.start = first;
    chunk.len = n;
    if first >= n {
        return Ok(());
    }
    // The last line may go on past the range: read it to its line break.
    let tail = memrchr(b'\n', &chunk.buf[first..n]).map_or(first, |i| first + i + 1);
    if tail == n || range.end >= file.size {
        return Ok(());
    }
    let mut filled = n;
    let mut at = range.end;
    let cap = line_cap(max_line);
    loop {
        // Doubling reads, but never past the line cap: the buffer stays under a chunk plus
        // `cap`.
        let held = filled - tail;
        let piece = held.max(SLACK).min(cap - held);
        grow(&mut chunk.buf, filled + piece);
        let got = file.read_full(&mut chunk.buf[filled..filled + piece], at)?;
        let (end, newline, done) = match memchr::memchr(b'\n', &chunk.buf[filled..filled + got]) {
            Some(i) => (filled + i, true, true),
            // Fewer bytes than asked: the end of the file, and of a line without a break.
            None => (filled + got, false, got < piece),
        };
        if !newline && end - tail >= cap {
            // As long as a stream's line that fills `cap` bytes without a break.
            chunk.len = tail;
            chunk.long_line = true;
            return Ok(());
        }
        if done {
            chunk.len = if newline { end + 1 } else { end };
            return Ok(());
        }
        filled += got;
        at += got as u64;
    }
}

/// The most bytes of one line held while looking for its end: the limit, plus a CRLF.
fn line_cap(max_line: usize) -> usize {
    max_line.saturating_add(2)
}

/// The length of a line's content: without its line break (`\n` or `\r\n`); `line` is the
/// text before the `\n`, if there is one (`terminated`).
fn content_len(line: &[u8], terminated: bool) -> usize {
    if terminated && line.last() == Some(&b'\r') {
        line.len() - 1
    } else {
        line.len()
    }
}

/// Makes `buf` at least `len` bytes long.
fn grow(buf: &mut Vec<u8>, len: usize) {
    if buf.len() < len {
        buf.resize(len, 0);
    }
}

/// A worker: evaluates chunks until there are none.
fn work(
    work_rx: &Mutex<Receiver<Chunk>>,
    done_tx: &mpsc::Sender<Done>,
    filter: &mut CompiledFilter,
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
        let done = match read_range(&mut chunk, max_line) {
            Ok(()) => evaluate(chunk, filter, select, strict, max_line),
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
    fn empty(chunk: Chunk) -> Done {
        Done {
            lines: 0,
            total: 0,
            matched: 0,
            malformed: 0,
            first_malformed: None,
            selected: Vec::new(),
            error: None,
            chunk,
        }
    }
}

fn evaluate(chunk: Chunk, filter: &mut CompiledFilter, select: bool, strict: bool, max_line: usize) -> Done {
    let mut done = Done::empty(chunk);
    let data = &done.chunk.buf[..done.chunk.len];
    let mut start = done.chunk.start;
    let ends = memchr_iter(b'\n', &data[start..])
        .map(|i| i + done.chunk.start)
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
        match filter.matches_line(line) {
            Ok(true) => {
                done.matched += 1;
                if select {
                    done.selected.push(range);
                }
            }
            Ok(false) => {}
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

/// Takes the workers' results in input order.
struct Collector<'s, 'o> {
    names: &'s [String],
    /// Lines of each input already collected: the line number base of the next chunk.
    lines_before: Vec<u64>,
    next: u64,
    pending: BTreeMap<u64, Done>,
    result: ScanResult,
    out: Option<&'o mut dyn Write>,
    strict: bool,
    error: Option<ScanError>,
}

impl<'s, 'o> Collector<'s, 'o> {
    fn new(names: &'s [String], out: Option<&'o mut dyn Write>, strict: bool) -> Self {
        Collector {
            names,
            lines_before: vec![0; names.len()],
            next: 0,
            pending: BTreeMap::new(),
            result: ScanResult {
                total: 0,
                matched: 0,
                malformed: 0,
                first_malformed: None,
                bytes: 0,
                seconds: 0.0,
            },
            out,
            strict,
            error: None,
        }
    }

    /// Takes results until the workers are done, or an error or the progress callback stops
    /// the scan (`self.error`).
    fn collect(
        &mut self,
        done_rx: &Receiver<Done>,
        pool_tx: &SyncSender<Vec<u8>>,
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
                    self.pending.insert(done.chunk.seq, done);
                    while let Some(done) = self.pending.remove(&self.next) {
                        self.next += 1;
                        let chunk = self.take(done);
                        let _ = pool_tx.send(chunk.buf);
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
    fn take(&mut self, done: Done) -> Chunk {
        if self.error.is_some() {
            return done.chunk;
        }
        if let Some(error) = done.error {
            self.error = Some(error);
            return done.chunk;
        }
        let base = self.lines_before[done.chunk.input];
        self.lines_before[done.chunk.input] += done.lines;
        self.result.total += done.total;
        self.result.matched += done.matched;
        self.result.malformed += done.malformed;
        self.result.bytes += done.chunk.bytes;
        if let Some(out) = self.out.as_mut() {
            let data = &done.chunk.buf;
            for range in &done.selected {
                let written = out.write_all(&data[range.clone()]).and_then(|()| out.write_all(b"\n"));
                if let Err(error) = written {
                    self.error = Some(ScanError::Write { error });
                    return done.chunk;
                }
            }
        }
        if let Some((index, reason)) = done.first_malformed {
            let source_name = &self.names[done.chunk.input];
            let line = base + index + 1;
            if self.strict {
                self.error = Some(ScanError::Malformed {
                    source_name: source_name.clone(),
                    line,
                    reason,
                });
            }
            self.result.first_malformed.get_or_insert_with(|| Malformed {
                source_name: source_name.clone(),
                line,
                reason,
            });
        }
        done.chunk
    }
}
