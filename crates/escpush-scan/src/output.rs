//! The file [`Scanner::select_to_file`](crate::Scanner::select_to_file) writes: refused when
//! it is one of the inputs (same path, a link to it, a hard link: same device and inode),
//! and written as a new file beside it that is renamed into place only when the scan
//! succeeds, so a failed scan leaves an existing output as it was.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Input, ScanError};

/// Refuses an output that is the same file as one of the inputs.
pub(crate) fn check_not_input(inputs: &[Input], output: &Path) -> Result<(), ScanError> {
    let Ok(out) = fs::metadata(output) else {
        return Ok(()); // not there yet: nothing to destroy
    };
    for input in inputs {
        let same = match input {
            Input::Path(path) => fs::metadata(path).is_ok_and(|meta| same_file(&meta, &out, Some((path, output)))),
            Input::Stdin => stdin_metadata().is_some_and(|meta| same_file(&meta, &out, None)),
            Input::Reader { .. } => false,
            #[cfg(feature = "store")]
            Input::Object(_) => false,
        };
        if same {
            return Err(ScanError::OutputIsInput {
                output: output.display().to_string(),
                input: input.name(),
            });
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata, _: Option<(&Path, &Path)>) -> bool {
    use std::os::unix::fs::MetadataExt;
    // A pipe or terminal shared by stdin and the output is not a file being destroyed.
    (a.is_file() || b.is_file()) && a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, _: &fs::Metadata, paths: Option<(&Path, &Path)>) -> bool {
    // No stable file identity here: compare the resolved paths.
    paths.is_some_and(|(a, b)| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    })
}

#[cfg(unix)]
fn stdin_metadata() -> Option<fs::Metadata> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

#[cfg(not(unix))]
fn stdin_metadata() -> Option<fs::Metadata> {
    None
}

/// An output being written: a temporary file beside the target, or the target itself when it
/// is not a regular file (`/dev/null`, a pipe), which cannot be replaced.
pub(crate) struct Output {
    pub(crate) file: File,
    target: PathBuf,
    temp: Option<PathBuf>,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Output {
    /// Opens the output of a scan; `name` is how errors name it.
    pub(crate) fn create(path: &Path) -> Result<Output, ScanError> {
        let open_error = |error| ScanError::Open {
            source_name: path.display().to_string(),
            error,
        };
        // Through a symbolic link, the file it points at is replaced, not the link.
        let target = match fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => path.canonicalize().unwrap_or_else(|_| path.to_owned()),
            _ => path.to_owned(),
        };
        let existing = fs::metadata(&target).ok();
        if existing.as_ref().is_some_and(|meta| !meta.is_file()) {
            let file = File::create(&target).map_err(open_error)?;
            return Ok(Output {
                file,
                target,
                temp: None,
            });
        }
        let name = target
            .file_name()
            .ok_or_else(|| open_error(io::Error::new(io::ErrorKind::InvalidInput, "not a file name")))?;
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
            _ => PathBuf::from("."),
        };
        loop {
            let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
            let mut temp_name = std::ffi::OsString::from(".");
            temp_name.push(name);
            temp_name.push(format!(".{}-{n}.escpush-tmp", std::process::id()));
            let temp = dir.join(temp_name);
            match OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(file) => {
                    let output = Output {
                        file,
                        target,
                        temp: Some(temp),
                    };
                    if let Some(meta) = existing {
                        // The replaced file's permissions carry over.
                        output.file.set_permissions(meta.permissions()).map_err(open_error)?;
                    }
                    return Ok(output);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(open_error(e)),
            }
        }
    }

    /// Puts the written file in place of the target.
    pub(crate) fn commit(mut self) -> Result<(), ScanError> {
        if let Some(temp) = self.temp.take() {
            if let Err(error) = fs::rename(&temp, &self.target) {
                let _ = fs::remove_file(&temp);
                return Err(ScanError::Write { error });
            }
        }
        Ok(())
    }
}

impl Drop for Output {
    /// Not committed: the scan failed, the target stays as it was.
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = fs::remove_file(temp);
        }
    }
}
