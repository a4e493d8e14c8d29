//! Where lines come from: files (plain or gzip), stdin, or any reader.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;

use crate::ScanError;

/// One input of a scan.
#[non_exhaustive]
pub enum Input {
    /// A file: NDJSON, or gzip-compressed NDJSON (recognised by its first bytes, whatever
    /// its name).
    Path(PathBuf),
    /// The process's standard input (plain or gzip, like a file).
    Stdin,
    /// Any reader (plain or gzip), named for messages.
    Reader { name: String, reader: Box<dyn Read + Send> },
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
        }
    }
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Path(p) => f.debug_tuple("Path").field(p).finish(),
            Input::Stdin => f.write_str("Stdin"),
            Input::Reader { name, .. } => f.debug_struct("Reader").field("name", name).finish_non_exhaustive(),
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

/// An opened input: its bytes, decompressed if they were gzip.
pub(crate) struct Source {
    pub(crate) name: String,
    pub(crate) gzip: bool,
    reader: Box<dyn Read + Send>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

impl Source {
    pub(crate) fn open(input: Input) -> Result<Source, ScanError> {
        let name = input.name();
        let reader: Box<dyn Read + Send> = match input {
            Input::Path(path) => Box::new(File::open(&path).map_err(|error| ScanError::Open {
                source_name: name.clone(),
                error,
            })?),
            Input::Stdin => Box::new(io::stdin()),
            Input::Reader { reader, .. } => reader,
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
        let reader: Box<dyn Read + Send> = if gzip {
            Box::new(MultiGzDecoder::new(buffered))
        } else {
            Box::new(buffered)
        };
        Ok(Source { name, gzip, reader })
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
