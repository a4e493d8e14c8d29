//! The one error type of escpush-scan.

use std::io;

/// Why a scan stopped. Each names the input (a path, or `<stdin>`) it is about.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScanError {
    /// The input could not be opened.
    #[error("cannot open `{source_name}`: {error}")]
    Open { source_name: String, error: io::Error },
    /// Reading the input failed part-way.
    #[error("cannot read `{source_name}`: {error}")]
    Read { source_name: String, error: io::Error },
    /// The input starts like gzip data but is truncated or corrupt.
    #[error("`{source_name}` is not valid gzip data (truncated or corrupt): {error}")]
    Gzip { source_name: String, error: io::Error },
    /// Strict mode: the first line that is not one JSON object.
    #[error("`{source_name}` line {line} is malformed: {reason}")]
    Malformed {
        source_name: String,
        /// 1-based line number in its input.
        line: u64,
        reason: crate::MalformedReason,
    },
    /// The output of [`Scanner::select_to_file`](crate::Scanner::select_to_file) is one of
    /// the inputs (the same path, a link to it, or a hard link: the same file).
    #[error("`{output}` is also an input (`{input}`, the same file): writing it would destroy what is being read")]
    OutputIsInput { output: String, input: String },
    /// Writing the selected lines failed.
    #[error("cannot write the selected lines: {error}")]
    Write { error: io::Error },
    /// The inputs asked for cannot be found: a glob that matches nothing, a file without a
    /// log-push time range in its name when one is asked, an object storage location that
    /// cannot be listed or has no credentials. `what` is the argument or file concerned.
    #[error("`{what}`: {message}")]
    Select { what: String, message: String },
    /// The progress callback asked to stop.
    #[error("the scan was cancelled")]
    Cancelled,
    /// A thread could not be started.
    #[error("cannot start a scan thread: {error}")]
    Thread { error: io::Error },
}
