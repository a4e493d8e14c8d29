//! Preview a log-push filter on real logs: stream NDJSON files through a compiled filter.
//!
//! The evaluation rules live in `escpush-filter` ([`escpush_filter::CompiledFilter`]); this crate
//! moves the bytes. It reads files (plain NDJSON, or gzip, recognised by its magic bytes),
//! several in a row, or stdin, in fixed-size chunks, and evaluates the chunks on every core:
//!
//! - a plain file is cut into byte ranges that the workers read themselves (positional
//!   reads), each worker taking the lines that start in its range, so reading is spread over
//!   the cores and a chunk is evaluated while it is in the cache of the core that read it
//!   (memory maps were measured instead and not kept: to bound memory each chunk's pages
//!   must be unmapped after use, mapping and unmapping them cost more CPU than the copy from
//!   the page cache they save, and reads run no risk of SIGBUS when a file is truncated; the
//!   copy is made cheap instead: each range lands at an address that agrees with its offset
//!   in the file modulo 64, which makes the kernel's copy a straight one);
//!   gzip, stdin and other readers go through a reader thread that cuts them at line breaks
//!   (for gzip the reader only inflates: each member's CRC-32 is computed by the workers,
//!   piece by piece, and checked by the collector, so the one thread that bounds the scan of
//!   a single gzip file does nothing else);
//! - every chunk uses a buffer from a fixed pool, so memory stays bounded whatever the
//!   input's size (about 24 MiB of buffers in all, more only while lines longer than a chunk are
//!   held: lines are limited to [`Scanner::max_line`], 16 MiB by default);
//! - the calling thread collects the chunks' results **in input order**, so line numbers,
//!   the first malformed line and the lines [`Scanner::select`] writes do not depend on
//!   the number of threads or the way the input is read.
//!
//! Inputs are what a command line names ([`Selection::expand`], in `inputs.rs`): files, folders (read
//! recursively), globs expanded here, `-` for stdin, and with the `store` feature object
//! storage (`s3://`, `r2://`, `gs://`, `az://`; see `Object`); log-push files can be picked
//! by the time range in their names ([`Selection::since`], [`Selection::until`]). Several
//! inputs are read and decompressed at once (one reader thread each, up to four, each with a
//! buffer pool of its own), and still collected in input order. [`ScanResult`] counts lines
//! and bytes read and kept, in all and per input ([`ScanResult::inputs`]);
//! [`Scanner::limit`] writes only the first matching lines; after an error,
//! [`Scanner::partial`] has the counts so far.
//!
//! Blank lines (whitespace only) are skipped and not counted. A malformed line (not one JSON
//! object, see [`escpush_filter::CompiledFilter`]) is counted and the scan goes on; the first
//! one is reported with its file and line number. In strict mode the scan stops there with
//! [`ScanError::Malformed`]. A line longer than [`Scanner::max_line`] is counted malformed
//! without being held in memory.
//!
//! ```no_run
//! use escpush_filter::Filter;
//! use escpush_scan::{parse_time, Input, Scanner, Selection};
//!
//! let filter = Filter::parse(r#"{"where":{"key":"EdgeResponseStatus","operator":"geq","value":"500"}}"#)?;
//! let result = Scanner::new(&filter).scan([Input::path("logs.ndjson.gz"), Input::Stdin])?;
//! eprintln!("{} of {} lines match", result.matched, result.total);
//!
//! let since = parse_time("2026-11-22T06:00:00Z")?;
//! let inputs = Selection::new().since(Some(since)).expand(["logs/", "more/2026112*/*.log.gz"])?;
//! let result = Scanner::new(&filter).scan(inputs)?;
//! if let Some(kept) = escpush_filter::percent(result.matched_bytes, result.bytes) {
//!     eprintln!("keeps {kept} of bytes");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

#[cfg(feature = "store")]
mod aws_profile;
mod breakdown;
#[cfg(feature = "store")]
mod credentials;
mod error;
mod gzip;
mod input;
mod inputs;
mod merge;
mod names;
mod output;
#[cfg(feature = "job")]
mod preview;
mod range;
mod read;
mod result;
mod scan;
#[cfg(feature = "store")]
mod store;
#[cfg(feature = "job")]
mod transform;
mod work;

pub use breakdown::{
    parse_every, Breakdown, BreakdownResult, Bucket, Counts, Group, EVERY_TOO_SHORT, MAX_BUCKETS, MIN_EVERY,
    MIN_HELD_GROUPS, OTHER_LABEL,
};
pub use error::ScanError;
/// Kept here for the users of `escpush_scan::format_time`; the one definition is escpush-filter's.
pub use escpush_filter::format_time;
#[doc(hidden)] // for the benchmark's `scan_count --inflate-only`: not part of the API
pub use gzip::Gunzip;
pub use input::Input;
pub use inputs::Selection;
pub use names::{logpush_range, parse_time};
#[cfg(feature = "job")]
pub use preview::{Preview, PreviewCounts, PreviewInput, PreviewResult};
pub use result::{InputResult, Malformed, MalformedReason, Progress, ScanResult};
pub use scan::{Scanner, MAX_THREADS};
#[cfg(feature = "store")]
pub use store::Object;
#[cfg(feature = "job")]
pub use transform::TransformResult;
