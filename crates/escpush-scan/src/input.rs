//! Where lines come from: files (plain or gzip), stdin, or any reader. Plain regular files
//! are read by position ([`PositionalFile`], which notices a file that shrinks); the rest,
//! and files that report no size (`/proc`), as streams; gzip through [`GzipMembers`]
//! (members in a row, zero padding after the last ignored).

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::GzDecoder;

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
    pub(crate) gzip: bool,
    reader: Box<dyn Read + Send>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

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
    pub(crate) fn open(input: Input) -> Result<Opened, ScanError> {
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
            Input::Stdin => Box::new(io::stdin()),
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
        let reader: Box<dyn Read + Send> = if gzip {
            Box::new(GzipMembers::new(buffered))
        } else {
            Box::new(buffered)
        };
        Ok(Opened::Stream(Source { name, gzip, reader }))
    }

    /// Reads into `buf`; 0 at the end. Errors name the input.
    pub(crate) fn read(&mut self, buf: &mut [u8]) -> Result<usize, ScanError> {
        loop {
            match self.reader.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(error) if self.gzip => {
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
}

/// Gzip data of one or more members, decompressed in a row, as `gzip -dc` reads it: zeros
/// after the last member (padding some tools and tape blocks add) are ignored; any other
/// bytes there are an error.
struct GzipMembers<R: BufRead> {
    state: Members<R>,
}

enum Members<R: BufRead> {
    /// Inside a member.
    Member(Box<GzDecoder<R>>),
    /// Between members: what follows decides.
    Between(R),
    /// At the end (or after an error).
    Done,
}

impl<R: BufRead> GzipMembers<R> {
    fn new(reader: R) -> Self {
        GzipMembers {
            state: Members::Member(Box::new(GzDecoder::new(reader))),
        }
    }

    /// After a member: the next member, the end, or zero padding up to the end.
    fn next_member(reader: &mut R) -> io::Result<bool> {
        let mut padding = false;
        loop {
            let bytes = match reader.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if bytes.is_empty() {
                return Ok(false);
            }
            if !padding && bytes[0] == GZIP_MAGIC[0] {
                return Ok(true);
            }
            if bytes.iter().any(|&b| b != 0) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "bytes that are neither gzip data nor zero padding after the last member",
                ));
            }
            padding = true;
            let n = bytes.len();
            reader.consume(n);
        }
    }
}

impl<R: BufRead> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match std::mem::replace(&mut self.state, Members::Done) {
                Members::Member(mut decoder) => {
                    let n = decoder.read(buf)?;
                    self.state = if n == 0 {
                        Members::Between(decoder.into_inner())
                    } else {
                        Members::Member(decoder)
                    };
                    if n > 0 {
                        return Ok(n);
                    }
                }
                Members::Between(mut reader) => {
                    if !Self::next_member(&mut reader)? {
                        return Ok(0);
                    }
                    self.state = Members::Member(Box::new(GzDecoder::new(reader)));
                }
                Members::Done => return Ok(0),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read, Write};

    use flate2::{write::GzEncoder, Compression};

    use super::GzipMembers;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn gunzip(data: Vec<u8>) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        GzipMembers::new(Cursor::new(data)).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn members_in_a_row_and_zero_padding() {
        let mut data = gzip(b"a\n");
        data.extend(gzip(b"b\n"));
        assert_eq!(gunzip(data.clone()).unwrap(), b"a\nb\n");
        data.extend([0u8; 1000]);
        assert_eq!(gunzip(data.clone()).unwrap(), b"a\nb\n");
        let mut garbage = data.clone();
        garbage.extend(b"junk");
        assert!(gunzip(garbage).is_err());
        let mut after_padding = data;
        after_padding.extend(gzip(b"c\n"));
        assert!(
            gunzip(after_padding).is_err(),
            "gzip data after padding is not read as a member"
        );
    }
}
