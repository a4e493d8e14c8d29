//! The reading side of a scan: inputs cut into chunks of whole lines by the reader thread
//! (byte ranges of plain files, read by the workers themselves with [`read_range`]; lines of
//! streams), and the line limit, applied to a line's content without its line break.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use memchr::memrchr;

use crate::gzip::{self, MemberEnd, Piece};
use crate::input::{Opened, PositionalFile, Source};
use crate::{Input, ScanError};

/// A piece of one input: the whole lines `buf[start..len]` (the last one may lack its line
/// break at the end of the input), then perhaps one line too long to hold. A chunk of a
/// plain file comes as a byte range that the worker reads itself.
pub(crate) struct Chunk {
    /// The chunk's place in its input.
    pub(crate) seq: u64,
    pub(crate) input: usize,
    /// The reader whose pool the buffer goes back to.
    pub(crate) pool: usize,
    pub(crate) buf: Vec<u8>,
    pub(crate) start: usize,
    pub(crate) len: usize,
    /// Bytes of the input the chunk stands for.
    pub(crate) bytes: u64,
    /// After its lines, one line longer than the limit (counted malformed, not read).
    pub(crate) long_line: bool,
    pub(crate) range: Option<FileRange>,
    /// The input's last chunk: once it is collected, the input was read to its end.
    pub(crate) last: bool,
    /// Gzip streams: the pieces of the decompressed stream the chunk stands for, in order,
    /// for the members' checks (empty for anything else).
    pub(crate) pieces: Vec<Piece>,
}

impl Chunk {
    pub(crate) fn new(seq: u64, input: usize, buf: Vec<u8>) -> Chunk {
        Chunk {
            seq,
            input,
            pool: 0,
            buf,
            start: 0,
            len: 0,
            bytes: 0,
            long_line: false,
            range: None,
            last: false,
            pieces: Vec::new(),
        }
    }
}

/// The bytes `start..end` of a plain file of `size` bytes: the chunk holds the lines that
/// start there (the last one is read to its end, past `end`).
pub(crate) struct FileRange {
    pub(crate) file: Arc<PositionalFile>,
    pub(crate) start: u64,
    pub(crate) end: u64,
}

/// The inputs of a scan, handed to the readers in order.
pub(crate) struct Inputs {
    items: Mutex<Vec<Option<Input>>>,
    next: AtomicUsize,
    /// The first input a reader failed in (`usize::MAX`: none): the inputs after it stop, the
    /// ones before it are read to their end, so that the counts so far are those of every
    /// input before the one that failed, whatever the number of readers.
    failed: AtomicUsize,
}

impl Inputs {
    pub(crate) fn new(inputs: Vec<Input>) -> Inputs {
        Inputs {
            items: Mutex::new(inputs.into_iter().map(Some).collect()),
            next: AtomicUsize::new(0),
            failed: AtomicUsize::new(usize::MAX),
        }
    }

    /// The next input to read, and its index; none once an input before it failed.
    fn claim(&self) -> Option<(usize, Input)> {
        let mut items = self.items.lock().ok()?;
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        if i > self.failed.load(Ordering::Relaxed) {
            return None;
        }
        let rest = items.get_mut(i..)?;
        prefetch(rest);
        Some((i, rest.first_mut()?.take()?))
    }
}

pub(crate) struct Reader<'s> {
    pub(crate) id: usize,
    /// The first input that failed (set by [`Reader::run`]).
    pub(crate) failed: Option<&'s AtomicUsize>,
    pub(crate) pool: Receiver<Vec<u8>>,
    pub(crate) work: SyncSender<Chunk>,
    pub(crate) cancel: &'s Arc<AtomicBool>,
    pub(crate) chunk_size: usize,
    pub(crate) max_line: usize,
    pub(crate) seq: u64,
}

impl<'s> Reader<'s> {
    /// Reads the inputs in turn; on an error, tells everyone to stop.
    /// Reads inputs until there are none left; on an error (returned with the input's
    /// index), tells the readers of later inputs to stop.
    pub(crate) fn run(mut self, inputs: &'s Inputs) -> Result<(), (usize, ScanError)> {
        self.failed = Some(&inputs.failed);
        while !self.cancel.load(Ordering::Relaxed) {
            let Some((i, input)) = inputs.claim() else { break };
            if let Err(error) = self.read_input(i, input) {
                inputs.failed.fetch_min(i, Ordering::Relaxed);
                return Err((i, error));
            }
        }
        Ok(())
    }

    /// Whether to stop reading input `index`: the scan is cancelled, or an earlier input failed.
    fn stopping(&self, index: usize) -> bool {
        self.cancel.load(Ordering::Relaxed) || self.failed.is_some_and(|f| index > f.load(Ordering::Relaxed))
    }

    /// A buffer of `size` bytes from the pool (`None` once the scan is stopping).
    pub(crate) fn buffer(&self, size: usize) -> Option<Vec<u8>> {
        let mut buf = self.pool.recv().ok()?;
        if buf.capacity() > 2 * (self.chunk_size + SLACK) {
            // Grown for a long line: give the memory back.
            buf = Vec::new();
        }
        buf.resize(size, 0);
        Some(buf)
    }

    pub(crate) fn send(&mut self, mut chunk: Chunk) -> bool {
        chunk.seq = self.seq;
        chunk.pool = self.id;
        self.seq += 1;
        self.work.send(chunk).is_ok()
    }

    /// Cuts one input into chunks of whole lines; a plain file into byte ranges that the
    /// workers read themselves, so that reading is spread over the cores and each chunk is
    /// evaluated while it is still in the cache of the core that read it.
    pub(crate) fn read_input(&mut self, index: usize, input: Input) -> Result<(), ScanError> {
        self.seq = 0;
        match Source::open(input, self.cancel)? {
            Opened::Stream(source) => self.read_stream(index, source),
            Opened::File(file) => {
                let file = Arc::new(file);
                let mut start = 0;
                while start < file.size {
                    if self.stopping(index) {
                        return Ok(());
                    }
                    let Some(buf) = self.buffer(self.chunk_size + SLACK) else {
                        return Ok(());
                    };
                    let end = (start + self.chunk_size as u64).min(file.size);
                    let mut chunk = Chunk::new(0, index, buf);
                    chunk.bytes = end - start;
                    chunk.last = end == file.size;
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

    /// Cuts a stream into chunks of whole lines, carrying the partial last line over. The
    /// chunks of a gzip stream carry the pieces of the decompressed stream they stand for
    /// (see [`crate::gzip`]), so that the members' checks are made off this thread.
    pub(crate) fn read_stream(&mut self, index: usize, mut source: Source) -> Result<(), ScanError> {
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
        let mut stream = StreamChecks::new(source.is_gzip());
        loop {
            if self.stopping(index) {
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
                    source.take_ends(&mut stream.ends);
                    stream.kept(&mut chunk);
                    if !self.send(chunk) {
                        return Ok(());
                    }
                    buf = next;
                    filled = tail;
                } else if buf.len() >= cap {
                    skipping = true;
                    skipped = filled as u64;
                    source.take_ends(&mut stream.ends);
                    stream.dropped(&buf[..filled]);
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
                source.take_ends(&mut stream.ends);
                let Some(i) = memchr::memchr(b'\n', &buf[filled..filled + n]) else {
                    skipped += n as u64;
                    stream.dropped(&buf[filled..filled + n]);
                    filled = 0;
                    continue;
                };
                // The long line ends: count it, keep what follows.
                stream.dropped(&buf[filled..=filled + i]);
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
                stream.kept(&mut chunk);
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
        chunk.last = true;
        if skipping {
            chunk.long_line = true;
            chunk.bytes = skipped;
        } else {
            chunk.len = filled;
            chunk.bytes = filled as u64;
        }
        source.take_ends(&mut stream.ends);
        stream.kept(&mut chunk);
        self.send(chunk);
        Ok(())
    }
}

/// Where a gzip stream's chunks stand in its decompressed bytes, for their checks.
struct StreamChecks {
    gzip: bool,
    /// The offset in the decompressed stream of the next byte not yet given to a chunk.
    at: u64,
    /// Member ends not yet given to a chunk.
    ends: VecDeque<MemberEnd>,
    /// The pieces of bytes dropped (a line too long to hold), for the next chunk.
    dropped: Vec<Piece>,
}

impl StreamChecks {
    fn new(gzip: bool) -> Self {
        StreamChecks {
            gzip,
            at: 0,
            ends: VecDeque::new(),
            dropped: Vec::new(),
        }
    }

    /// Bytes of the stream that no chunk holds: hashed here.
    fn dropped(&mut self, bytes: &[u8]) {
        if self.gzip {
            gzip::cut(&mut self.dropped, &mut self.ends, self.at, bytes.len(), Some(bytes));
            self.at += bytes.len() as u64;
        }
    }

    /// Gives `chunk` the pieces of the bytes dropped since the last chunk, then of its own
    /// lines (`buf[..len]`, which follow them in the stream).
    fn kept(&mut self, chunk: &mut Chunk) {
        if self.gzip {
            chunk.pieces.append(&mut self.dropped);
            gzip::cut(&mut chunk.pieces, &mut self.ends, self.at, chunk.len, None);
            self.at += chunk.len as u64;
        }
    }
}

/// Starts fetching the next few objects, so that several stream at once (see
/// [`crate::store`]).
#[cfg(feature = "store")]
fn prefetch(inputs: &mut [Option<Input>]) {
    for input in inputs.iter_mut().take(crate::store::AHEAD + 1) {
        if let Some(Input::Object(object)) = input {
            object.start();
        }
    }
}

#[cfg(not(feature = "store"))]
fn prefetch(_: &mut [Option<Input>]) {}

/// Room past the chunk size in every buffer: the byte before a range, and the end of its
/// last line, which usually fits.
pub(crate) const SLACK: usize = 64 << 10;

/// Reads the lines that start in the chunk's byte range into its buffer: from the byte
/// before the range (to see whether a line starts at its first byte) to the end of the last
/// line that starts in it.
pub(crate) fn read_range(chunk: &mut Chunk, max_line: usize) -> Result<(), ScanError> {
    let Some(range) = chunk.range.take() else { return Ok(()) };
    let file = &range.file;
    let from = range.start.saturating_sub(1);
    // Both are at most the chunk size plus one: they fit in memory.
    let want = usize::try_from(range.end - from).unwrap_or(usize::MAX);
    grow(&mut chunk.buf, want + ALIGN);
    // The bytes land where their address and their offset in the file agree modulo 64: the
    // kernel's copy out of the page cache is then a straight one, up to six times cheaper
    // than between addresses that disagree (measured, reading 1.5 GB from the page cache:
    // 0.07 s of system time against 0.45 s with `from` one byte before a page).
    let pad = (usize::try_from(from % ALIGN as u64).unwrap_or(0)).wrapping_sub(chunk.buf.as_ptr().addr()) % ALIGN;
    let n = pad + file.read_full(&mut chunk.buf[pad..pad + want], from)?;
    let first = if range.start == 0 {
        pad
    } else {
        // The first line that starts in the range follows the first line break from the
        // byte before it; none: a line from an earlier range covers this one.
        memchr::memchr(b'\n', &chunk.buf[pad..n]).map_or(n, |i| pad + i + 1)
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
pub(crate) fn line_cap(max_line: usize) -> usize {
    max_line.saturating_add(2)
}

/// The length of a line's content: without its line break (`\n` or `\r\n`); `line` is the
/// text before the `\n`, if there is one (`terminated`).
pub(crate) fn content_len(line: &[u8], terminated: bool) -> usize {
    if terminated && line.last() == Some(&b'\r') {
        line.len() - 1
    } else {
        line.len()
    }
}

/// The alignment that [`read_range`] gives the bytes it reads (a cache line).
const ALIGN: usize = 64;

/// Makes `buf` at least `len` bytes long.
pub(crate) fn grow(buf: &mut Vec<u8>, len: usize) {
    if buf.len() < len {
        buf.resize(len, 0);
    }
}
