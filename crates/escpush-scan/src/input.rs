//! Where lines come from: files (plain or gzip), stdin, or any reader. Plain regular files
//! are read by position ([`PositionalFile`], which notices a file that shrinks); the rest,
//! and files that report no size (`/proc`), as streams; gzip through [`crate::gzip::Gunzip`]
//! (members in a row, zero padding after the last ignored, their checks left to the scan).

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::Duration;

use crate::gzip::{Gunzip, MemberEnd, GZIP_MAGIC};
use crate::ScanError;

/// One input of a scan.
#[non_exhaustive]
pub enum Input {
    /// A file: NDJSON, or gzip-compressed NDJSON (recognised by its first bytes; a file
    /// whose name ends in `.gz` must be gzip).
    Path(PathBuf),
    /// The process's standard input (plain or gzip, recognised by its first bytes).
    Stdin,
    /// Any reader (plain or gzip), named for messages.
    Reader { name: String, reader: Box<dyn Read + Send> },
    /// An object in object storage (from [`crate::Selection::expand`] with the `store`
    /// feature), streamed.
    #[cfg(feature = "store")]
    Object(crate::store::Object),
}

impl Input {
    /// A file.
    pub fn path(path: impl Into<PathBuf>) -> Input {
        Input::Path(path.into())
    }

    /// A command-line argument: `-` is stdin, anything else a path.
    pub fn from_arg(arg: &str) -> Input {
        if arg == "-" {
            Input::Stdin
        } else {
            Input::path(arg)
        }
    }

    /// A reader, named `name` in messages.
    pub fn reader(name: impl Into<String>, reader: impl Read + Send + 'static) -> Input {
        Input::Reader {
            name: name.into(),
            reader: Box::new(reader),
        }
    }

    /// How messages name this input: the path, `<stdin>`, or the reader's name.
    pub fn name(&self) -> String {
        match self {
            Input::Path(p) => p.display().to_string(),
            Input::Stdin => "<stdin>".to_owned(),
            Input::Reader { name, .. } => name.clone(),
            #[cfg(feature = "store")]
            Input::Object(object) => object.url(),
        }
    }
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Path(p) => f.debug_tuple("Path").field(p).finish(),
            Input::Stdin => f.write_str("Stdin"),
            Input::Reader { name, .. } => f.debug_struct("Reader").field("name", name).finish_non_exhaustive(),
            #[cfg(feature = "store")]
            Input::Object(object) => object.fmt(f),
        }
    }
}

impl From<&Path> for Input {
    fn from(path: &Path) -> Self {
        Input::path(path)
    }
}

impl From<PathBuf> for Input {
    fn from(path: PathBuf) -> Self {
        Input::Path(path)
    }
}

/// The size of a regular file that does not start like gzip; `None` for anything else (a
/// pipe, a directory, gzip, and a file that reports no size, as `/proc` files do), which is
/// read as a stream.
#[cfg(any(unix, windows))]
fn plain_file_size(file: &File) -> Option<u64> {
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() == 0 {
        return None;
    }
    let mut magic = [0u8; 2];
    let n = read_at(file, &mut magic, 0).ok()?;
    (n < 2 || magic != GZIP_MAGIC).then_some(meta.len())
}

#[cfg(not(any(unix, windows)))]
fn plain_file_size(_: &File) -> Option<u64> {
    None
}

/// An opened input: a plain file that can be read at any offset, or a stream.
pub(crate) enum Opened {
    File(PositionalFile),
    Stream(Source),
}

/// A regular file that is not gzip: workers read their own byte ranges of it.
pub(crate) struct PositionalFile {
    name: String,
    file: File,
    /// The size when it was opened; bytes appended later are not read.
    pub(crate) size: u64,
}

impl PositionalFile {
    /// Fills `buf` from `offset` on; fewer bytes only at the end of the file.
    ///
    /// A read that ends before the size taken at open while the file now reports less means
    /// the file was truncated during the scan: that is an error naming the file, never a
    /// partial count. (A file whose reported size exceeds what it holds, as some pseudo-files
    /// do, is read to its real end.)
    pub(crate) fn read_full(&self, buf: &mut [u8], offset: u64) -> Result<usize, ScanError> {
        let filled = self.read_raw(buf, offset)?;
        let end = offset + filled as u64;
        if filled < buf.len() && end < self.size {
            let now = self.file.metadata().map_or(0, |m| m.len());
            if now < self.size {
                return Err(ScanError::Read {
                    source_name: self.name.clone(),
                    error: io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!(
                            "the file shrank from {} to {now} bytes while it was scanned (truncated or rotated?); \
                             the counts would be partial",
                            self.size
                        ),
                    ),
                });
            }
        }
        Ok(filled)
    }

    fn read_raw(&self, buf: &mut [u8], offset: u64) -> Result<usize, ScanError> {
        let mut filled = 0;
        while filled < buf.len() {
            match read_at(&self.file, &mut buf[filled..], offset + filled as u64) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    return Err(ScanError::Read {
                        source_name: self.name.clone(),
                        error,
                    })
                }
            }
        }
        Ok(filled)
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Whether this platform reads files by position (elsewhere every input is a stream).
const POSITIONAL: bool = cfg!(any(unix, windows));

/// An input read front to back: its bytes, decompressed if they were gzip.
pub(crate) struct Source {
    pub(crate) name: String,
    body: Body,
}

/// What a stream's bytes are read through.
enum Body {
    Plain(BufReader<Box<dyn Read + Send>>),
    /// Gzip, inflated here; the members' checks are left to the scan ([`Source::take_ends`]).
    Gzip(Box<Gunzip<BufReader<Box<dyn Read + Send>>>>),
}

/// The error for a `.gz` input that is not gzip: reading it as NDJSON would count its lines
/// as malformed, or worse, as logs.
fn not_gzip(name: String) -> ScanError {
    ScanError::Gzip {
        source_name: name,
        error: io::Error::new(
            io::ErrorKind::InvalidData,
            "the name ends in .gz but the data does not start like gzip",
        ),
    }
}

/// Whether a name ends in `.gz` (any case): its data must be gzip.
fn has_gz_suffix(name: &str) -> bool {
    name.len() >= 3 && name.as_bytes()[name.len() - 3..].eq_ignore_ascii_case(b".gz")
}

impl Source {
    /// Opens `input`; reading stdin gives up once `cancel` is set (see [`StdinReader`]).
    pub(crate) fn open(input: Input, cancel: &Arc<AtomicBool>) -> Result<Opened, ScanError> {
        let name = input.name();
        let reader: Box<dyn Read + Send> = match input {
            Input::Path(path) => {
                let file = File::open(&path).map_err(|error| ScanError::Open {
                    source_name: name.clone(),
                    error,
                })?;
                if POSITIONAL {
                    if let Some(size) = plain_file_size(&file) {
                        if has_gz_suffix(&name) {
                            return Err(not_gzip(name));
                        }
                        return Ok(Opened::File(PositionalFile { name, file, size }));
                    }
                }
                Box::new(file)
            }
            Input::Stdin => Box::new(StdinReader::open(&name, Arc::clone(cancel))?),
            Input::Reader { reader, .. } => reader,
            #[cfg(feature = "store")]
            Input::Object(object) => Box::new(object.reader()),
        };
        let mut buffered = BufReader::with_capacity(256 * 1024, reader);
        let start = loop {
            match buffered.fill_buf() {
                Ok(bytes) => break bytes,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    return Err(ScanError::Read {
                        source_name: name,
                        error,
                    })
                }
            }
        };
        let gzip = start.starts_with(&GZIP_MAGIC);
        if !gzip && !start.is_empty() && has_gz_suffix(&name) {
            return Err(not_gzip(name));
        }
        let body = if gzip {
            Body::Gzip(Box::new(Gunzip::deferred(buffered)))
        } else {
            Body::Plain(buffered)
        };
        Ok(Opened::Stream(Source { name, body }))
    }

    /// Reads into `buf`; 0 at the end. Errors name the input.
    pub(crate) fn read(&mut self, buf: &mut [u8]) -> Result<usize, ScanError> {
        loop {
            let read = match &mut self.body {
                Body::Plain(reader) => reader.read(buf),
                Body::Gzip(reader) => reader.read(buf),
            };
            match read {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(error) if self.is_gzip() => {
                    return Err(ScanError::Gzip {
                        source_name: self.name.clone(),
                        error,
                    })
                }
                Err(error) => {
                    return Err(ScanError::Read {
                        source_name: self.name.clone(),
                        error,
                    })
                }
            }
        }
    }

    pub(crate) fn is_gzip(&self) -> bool {
        matches!(self.body, Body::Gzip(_))
    }

    /// Moves the ends of the gzip members read so far (none for plain data) to `into`.
    pub(crate) fn take_ends(&mut self, into: &mut std::collections::VecDeque<MemberEnd>) {
        if let Body::Gzip(reader) = &mut self.body {
            into.extend(reader.take_ends());
        }
    }
}

/// Standard input, as one scan reads it. The reads themselves are made by one thread for the
/// whole process ([`stdin_pump`]), and a scan waits for what it reads in short slices, so that a
/// cancelled scan (Ctrl-C, SIGTERM, an error) stops at once: a read of an idle pipe or a
/// terminal may never end, and the scan's threads are joined before it returns. What the
/// process's reader reads after a scan stopped waits for the next scan of stdin.
struct StdinReader {
    cancel: Arc<AtomicBool>,
    data: Vec<u8>,
    at: usize,
    ended: bool,
}

/// How often a scan waiting for stdin looks whether it was cancelled.
const STDIN_POLL: Duration = Duration::from_millis(50);

/// What the process's reader of stdin has read: pieces in order (an empty one at each end
/// of the input), or the error that stopped it.
type Pieces = Mutex<Receiver<io::Result<Vec<u8>>>>;

/// The process's one reader of stdin, started on first use (None if no thread can start:
/// the scan then reads stdin itself).
fn stdin_pump() -> Option<&'static Pieces> {
    static PUMP: OnceLock<Option<Pieces>> = OnceLock::new();
    PUMP.get_or_init(|| {
        // A few pieces read ahead, no more: the pipe holds the rest.
        let (tx, rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(4);
        let started = thread::Builder::new().name("escpush-stdin".into()).spawn(move || loop {
            let mut buf = vec![0; 256 * 1024];
            match io::stdin().read(&mut buf) {
                Ok(n) => {
                    // n == 0 is an end; a terminal may give more after it.
                    buf.truncate(n);
                    if n < buf.capacity() / 4 {
                        buf.shrink_to_fit();
                    }
                    if tx.send(Ok(buf)).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        });
        started.ok().map(|_| Mutex::new(rx))
    })
    .as_ref()
}

impl StdinReader {
    /// Refuses a standard input that is closed (`<&-`), which would read as empty.
    fn open(name: &str, cancel: Arc<AtomicBool>) -> Result<Box<dyn Read + Send>, ScanError> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            if let Err(error) = io::stdin().as_fd().try_clone_to_owned() {
                return Err(ScanError::Open {
                    source_name: name.to_owned(),
                    error: io::Error::new(error.kind(), format!("standard input is closed ({error})")),
                });
            }
        }
        let _ = name;
        if stdin_pump().is_none() {
            return Ok(Box::new(io::stdin()));
        }
        Ok(Box::new(StdinReader {
            cancel,
            data: Vec::new(),
            at: 0,
            ended: false,
        }))
    }
}

impl Read for StdinReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(pump) = stdin_pump() else {
            return io::stdin().read(buf);
        };
        while self.at == self.data.len() {
            if self.ended || buf.is_empty() {
                return Ok(0);
            }
            let piece = pump
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .recv_timeout(STDIN_POLL);
            match piece {
                Ok(Ok(data)) => {
                    self.ended = data.is_empty();
                    self.data = data;
                    self.at = 0;
                }
                Ok(Err(e)) => return Err(e),
                Err(RecvTimeoutError::Disconnected) => self.ended = true,
                Err(RecvTimeoutError::Timeout) => {
                    if self.cancel.load(Ordering::Relaxed) {
                        return Err(io::Error::other("the scan was cancelled"));
                    }
                }
            }
        }
        let n = buf.len().min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
