//! Where a preview's batches go: a folder, one file per batch named as log-push names them
//! ([`DirSink`], written in a temporary folder renamed into place at the end), or one
//! stream ([`StreamSink`]); gzip (one member per batch) or plain.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use escpush_core::{BatchInfo, BatchSink, RecordTime};
use escpush_filter::civil_from_unix;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::{Input, ScanError};

/// Counts the bytes written through it.
pub(crate) struct Counting<W> {
    inner: W,
    pub(crate) bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// One batch being written.
enum Open<W: Write> {
    Gzip(Box<GzEncoder<Counting<W>>>),
    Plain(Counting<W>),
}

impl<W: Write> Open<W> {
    fn new(inner: W, gzip: bool) -> Open<W> {
        let counting = Counting { inner, bytes: 0 };
        if gzip {
            Open::Gzip(Box::new(GzEncoder::new(counting, Compression::default())))
        } else {
            Open::Plain(counting)
        }
    }
    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Open::Gzip(w) => w.write_all(bytes),
            Open::Plain(w) => w.write_all(bytes),
        }
    }
    /// Ends the batch: the writer back and the bytes written to it.
    fn finish(self) -> io::Result<(W, u64)> {
        let mut counting = match self {
            Open::Gzip(w) => w.finish()?,
            Open::Plain(w) => w,
        };
        counting.flush()?;
        Ok((counting.inner, counting.bytes))
    }
}

/// Writes every batch to one stream, one after another (gzip: one member per batch, which
/// `gzip -d` and every gzip reader read as the batches' concatenation).
pub(crate) struct StreamSink<'w> {
    out: Option<&'w mut dyn Write>,
    open: Option<Open<&'w mut dyn Write>>,
    gzip: bool,
    pub(crate) compressed: u64,
}

impl<'w> StreamSink<'w> {
    pub(crate) fn new(out: &'w mut dyn Write, gzip: bool) -> StreamSink<'w> {
        StreamSink {
            out: Some(out),
            open: None,
            gzip,
            compressed: 0,
        }
    }
}

impl StreamSink<'_> {
    pub(crate) fn gzip(&self) -> bool {
        self.gzip
    }

    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.out.as_mut().map_or(Ok(()), Write::flush)
    }
}

impl BatchSink for StreamSink<'_> {
    type Error = io::Error;
    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.open.is_none() {
            let out = self.out.take().ok_or_else(|| io::Error::other("the stream is gone"))?;
            self.open = Some(Open::new(out, self.gzip));
        }
        self.open.as_mut().map_or(Ok(()), |o| o.write(bytes))
    }
    fn end(&mut self, _: &BatchInfo) -> io::Result<()> {
        if let Some(open) = self.open.take() {
            let (out, bytes) = open.finish()?;
            self.compressed += bytes;
            self.out = Some(out);
        }
        Ok(())
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes each batch to a file of its own in a temporary folder beside `target`, renamed to
/// `target` by [`DirSink::commit`]; dropped without it, the temporary folder is removed, so a
/// preview that fails leaves nothing half-written.
pub(crate) struct DirSink {
    target: PathBuf,
    temp: PathBuf,
    gzip: bool,
    open: Option<Open<BufWriter<File>>>,
    /// Batches written.
    seq: u64,
    pub(crate) compressed: u64,
    pub(crate) files: Vec<String>,
    committed: bool,
}

impl DirSink {
    /// Checks `target` (no input lies in it; it is a new or an empty folder) and makes the
    /// temporary folder.
    pub(crate) fn create(target: &Path, inputs: &[Input], gzip: bool) -> Result<DirSink, ScanError> {
        let refuse = |error: io::Error| ScanError::Open {
            source_name: target.display().to_string(),
            error,
        };
        if let Ok(meta) = fs::metadata(target) {
            let out = fs::canonicalize(target).map_err(refuse)?;
            for input in inputs {
                if let Input::Path(path) = input {
                    if fs::canonicalize(path).is_ok_and(|p| p.starts_with(&out)) {
                        return Err(ScanError::OutputIsInput {
                            output: target.display().to_string(),
                            input: input.name(),
                        });
                    }
                }
            }
            if !meta.is_dir() {
                return Err(refuse(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "it exists and is not a folder: the batches go to a new or an empty folder",
                )));
            }
            if fs::read_dir(target).map_err(refuse)?.next().is_some() {
                return Err(refuse(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "the folder is not empty: the batches go to a new or an empty folder",
                )));
            }
        }
        let name = target
            .file_name()
            .map_or_else(|| "preview".into(), |n| n.to_string_lossy().into_owned());
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = target.with_file_name(format!(".{name}.escpush-{}-{n}.tmp", std::process::id()));
        fs::create_dir(&temp).map_err(refuse)?;
        Ok(DirSink {
            target: target.to_owned(),
            temp,
            gzip,
            open: None,
            seq: 0,
            compressed: 0,
            files: Vec::new(),
            committed: false,
        })
    }

    pub(crate) fn gzip(&self) -> bool {
        self.gzip
    }

    fn part(&self) -> PathBuf {
        self.temp.join(format!(".batch-{}.part", self.seq))
    }

    /// Renames the temporary folder to the target.
    pub(crate) fn commit(mut self) -> Result<(), ScanError> {
        let failed = |error| ScanError::Write { error };
        if fs::metadata(&self.target).is_ok() {
            fs::remove_dir(&self.target).map_err(failed)?;
        }
        fs::rename(&self.temp, &self.target).map_err(failed)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for DirSink {
    fn drop(&mut self) {
        if !self.committed {
            drop(self.open.take());
            let _ = fs::remove_dir_all(&self.temp);
        }
    }
}

impl BatchSink for DirSink {
    type Error = io::Error;
    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.open.is_none() {
            let file = File::create(self.part())?;
            self.open = Some(Open::new(BufWriter::with_capacity(256 << 10, file), self.gzip));
        }
        self.open.as_mut().map_or(Ok(()), |o| o.write(bytes))
    }
    fn end(&mut self, batch: &BatchInfo) -> io::Result<()> {
        let Some(open) = self.open.take() else { return Ok(()) };
        let (file, bytes) = open.finish()?;
        file.into_inner().map_err(io::IntoInnerError::into_error)?;
        self.compressed += bytes;
        let name = batch_name(batch, self.seq, self.gzip);
        let path = self.temp.join(&name);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        fs::rename(self.part(), &path)?;
        self.files.push(name);
        self.seq += 1;
        Ok(())
    }
}

/// A batch's file name, as log-push names the files of a storage destination:
/// `<YYYYMMDD>/<start>_<end>_<8 hex digits>.log.gz`, the day and the times (`YYYYMMDDTHHMMSSZ`,
/// UTC) of its first and last record, then a token (log-push's is random: escpush's is the
/// CRC-32 of the batch's number and size, the same on every run). A batch whose records have
/// no time: `undated/<number>_<token>.log.gz`. Without gzip, `.log`.
pub(crate) fn batch_name(batch: &BatchInfo, seq: u64, gzip: bool) -> String {
    let mut key = seq.to_le_bytes().to_vec();
    key.extend_from_slice(&batch.bytes.to_le_bytes());
    let token = crc32fast::hash(&key);
    let ext = if gzip { "log.gz" } else { "log" };
    match (batch.first_time, batch.last_time) {
        (Some(first), Some(last)) => {
            let (day, start) = stamp(first);
            let (_, end) = stamp(last);
            format!("{day}/{start}_{end}_{token:08x}.{ext}")
        }
        _ => format!("undated/{seq:08}_{token:08x}.{ext}"),
    }
}

/// `(YYYYMMDD, YYYYMMDDTHHMMSSZ)` of a time.
fn stamp(time: RecordTime) -> (String, String) {
    let ((y, m, d), (hh, mm, ss)) = civil_from_unix(time.0);
    let day = format!("{y:04}{m:02}{d:02}");
    let at = format!("{day}T{hh:02}{mm:02}{ss:02}Z");
    (day, at)
}
