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
    /// A transformer's run failed on a line (an integer overflow, a division by zero, a cast
    /// that cannot be made), as its engine fails the whole query.
    #[error("`{source_name}` line {line}: the transformer failed on it: {message}")]
    Transform {
        source_name: String,
        /// 1-based line number in its input.
        line: u64,
        message: String,
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

impl ScanError {
    /// The name of each variant, for tests that check every one is handled (the Python
    /// binding raises each through `_raise_error`). [`ScanError::variant_name`] matches
    /// without a wildcard, so a new variant does not compile until it is named there, and the
    /// test below fails until it is named here too.
    pub const VARIANT_NAMES: &'static [&'static str] = &[
        "Open",
        "Read",
        "Gzip",
        "Malformed",
        "Transform",
        "OutputIsInput",
        "Write",
        "Select",
        "Cancelled",
        "Thread",
    ];

    /// This error's variant name, one of [`ScanError::VARIANT_NAMES`].
    pub fn variant_name(&self) -> &'static str {
        match self {
            ScanError::Open { .. } => "Open",
            ScanError::Read { .. } => "Read",
            ScanError::Gzip { .. } => "Gzip",
            ScanError::Malformed { .. } => "Malformed",
            ScanError::Transform { .. } => "Transform",
            ScanError::OutputIsInput { .. } => "OutputIsInput",
            ScanError::Write { .. } => "Write",
            ScanError::Select { .. } => "Select",
            ScanError::Cancelled => "Cancelled",
            ScanError::Thread { .. } => "Thread",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_named_once() {
        let io = || io::Error::other("x");
        let name = || "in".to_owned();
        let one_of_each = [
            ScanError::Open {
                source_name: name(),
                error: io(),
            },
            ScanError::Read {
                source_name: name(),
                error: io(),
            },
            ScanError::Gzip {
                source_name: name(),
                error: io(),
            },
            ScanError::Malformed {
                source_name: name(),
                line: 1,
                reason: crate::MalformedReason::TooLong(1),
            },
            ScanError::Transform {
                source_name: name(),
                line: 1,
                message: String::new(),
            },
            ScanError::OutputIsInput {
                output: name(),
                input: name(),
            },
            ScanError::Write { error: io() },
            ScanError::Select {
                what: name(),
                message: String::new(),
            },
            ScanError::Cancelled,
            ScanError::Thread { error: io() },
        ];
        let names: Vec<&str> = one_of_each.iter().map(ScanError::variant_name).collect();
        assert_eq!(names, ScanError::VARIANT_NAMES);
    }
}
