//! A transformer's local run: [`Scanner::transform`] runs escpush-core's
//! [`LineTransformer`] in the scan's workers (every core, each chunk's lines walked once) and
//! writes the delivered records in input order. What the run read and kept are the scan's
//! counts ([`ScanResult`]: `matched` is the lines the prefilter kept); what it delivered is
//! [`TransformResult::records`].

use std::io::Write;
use std::path::Path;

use escpush_core::transformer::LineTransformer;

use crate::scan::Scanner;
use crate::work::{Delivered, Eval, TakeDelivered};
use crate::{Input, ScanError, ScanResult};

/// What a transformer's run delivered, with the scan's counts.
#[derive(Clone, Debug, PartialEq)]
pub struct TransformResult {
    /// What was read: lines, malformed lines, the lines the prefilter kept (`matched`).
    pub scan: ScanResult,
    /// The records delivered.
    pub records: u64,
    /// Their bytes, as written (NDJSON: a record and its line break each).
    pub bytes: u64,
}

/// The collector's side: each chunk's records written in input order.
struct Written<'w> {
    out: &'w mut dyn Write,
    records: u64,
    bytes: u64,
}

impl TakeDelivered for Written<'_> {
    fn take(&mut self, _input: usize, delivered: Delivered) -> Result<(), ScanError> {
        self.records += delivered.records.len() as u64;
        self.bytes += delivered.bytes.len() as u64;
        self.out
            .write_all(&delivered.bytes)
            .map_err(|error| ScanError::Write { error })
    }
}

impl Scanner<'_> {
    /// Runs `transformer` on each line of `inputs` and writes the records it delivers to
    /// `out`, in input order (NDJSON, members sorted by name). The scanner's own filter is
    /// not used: the transformer's prefilter is its walk. A line the query fails on (an
    /// integer overflow, a division by zero, a cast that cannot be made) stops the run with
    /// [`ScanError::Transform`], naming the input and the line; a malformed line is counted
    /// and skipped, or in strict mode stops it ([`ScanError::Malformed`]).
    pub fn transform(
        &mut self,
        inputs: impl IntoIterator<Item = Input>,
        transformer: &LineTransformer,
        out: &mut dyn Write,
    ) -> Result<TransformResult, ScanError> {
        let eval = Eval::Transform(Box::new(transformer.clone()));
        let mut records = Written {
            out,
            records: 0,
            bytes: 0,
        };
        let scan = self.run_with(inputs.into_iter().collect(), None, &eval, Some(&mut records))?;
        records.out.flush().map_err(|error| ScanError::Write { error })?;
        Ok(TransformResult {
            scan,
            records: records.records,
            bytes: records.bytes,
        })
    }

    /// [`Scanner::transform`] into the file at `path`, as [`Scanner::select_to_file`] writes
    /// one: never one of the inputs, written beside it and renamed over it when the run
    /// succeeds (on any error an existing file at `path` is left as it was).
    pub fn transform_to_file(
        &mut self,
        inputs: impl IntoIterator<Item = Input>,
        transformer: &LineTransformer,
        path: impl AsRef<Path>,
    ) -> Result<TransformResult, ScanError> {
        let inputs = inputs.into_iter().collect();
        crate::scan::write_file(inputs, path.as_ref(), |inputs, out| {
            self.transform(inputs, transformer, out)
        })
    }
}
