//! Partial previews put together, as a scan's are (`crate::merge`, whose bytes and
//! breakdown merge these reuse): [`PreviewResult::merge`] adds up the previews of disjoint
//! inputs, in input order (a cluster's executors, each its share), into the preview of them
//! all; [`PreviewResult::to_bytes`] / [`PreviewResult::from_bytes`] carry a part from the
//! process that previewed to the one that merges; [`PreviewResult::continue_ranges`] makes
//! a part whose inputs are byte ranges of a large plain file ([`Input::line_range`]) merge
//! as that one file.
//!
//! Exact: the lines read, malformed, kept and delivered (sampling is decided per line, by
//! its bytes and the seed: core's `Formatter::sampled`, which a range reads whole), the
//! bytes read, the times, the first malformed line, the per-input counts of those, and the
//! breakdown (its rows' `delivered_bytes` are records without the batches' framing). Not
//! exact: the batches. Each part cuts its own records into batches and ends its last one,
//! so a batch that one preview of every input holds across a part's end is two here, and
//! the batches after it in that part are cut from there. Cutting is greedy under limits that
//! hold for any run of a batch's records (records, bytes, a span of times), so it makes as
//! few batches as any cut can, and the merged `batches` are the one preview's plus between
//! 0 and (parts that delivered a record − 1). Every record is framed as it is in one
//! preview but at those ends, so `delivered_bytes` differ by exactly that many times
//! `len(batch_prefix) + len(batch_suffix) − len(record_delimiter)`. Per input, `batches` and
//! `delivered_bytes` follow the part's batches (they add up to the totals).

use std::path::Path;

use crate::merge::{decode, read_breakdown, read_malformed, write_breakdown, write_malformed, Reader, Writer};
use crate::{BreakdownResult, Input, ScanError};

use super::{PreviewCounts, PreviewInput, PreviewResult};

impl PreviewResult {
    /// The preview of every part's inputs, from the previews of each (parts in input order,
    /// inputs disjoint; see the [module docs](self) for what is exact): the counts added up,
    /// the first malformed line the first part's that has one, the inputs one after another,
    /// an input that [continues](PreviewInput::continues) the one before it added to it, the
    /// breakdowns merged (no `top`: a preview lists every group), the files written one after
    /// another. `seconds` is the longest part's: the caller who timed the whole sets its own.
    pub fn merge(parts: impl IntoIterator<Item = PreviewResult>) -> PreviewResult {
        let mut out: Option<PreviewResult> = None;
        let mut breakdowns = Vec::new();
        for mut part in parts {
            breakdowns.extend(part.breakdown.take());
            let Some(merged) = out.as_mut() else {
                let mut first = PreviewResult {
                    inputs: Vec::with_capacity(part.inputs.len()),
                    ..part
                };
                join_inputs(&mut first.inputs, part.inputs);
                out = Some(first);
                continue;
            };
            merged.total.add(&part.total);
            join_inputs(&mut merged.inputs, part.inputs);
            if merged.first_malformed.is_none() {
                merged.first_malformed = part.first_malformed;
            }
            if merged.time_field.is_none() {
                merged.time_field = part.time_field;
            }
            merged.files.extend(part.files);
            merged.seconds = merged.seconds.max(part.seconds);
        }
        let mut out = out.unwrap_or_else(|| PreviewResult {
            total: PreviewCounts::default(),
            inputs: Vec::new(),
            first_malformed: None,
            breakdown: None,
            time_field: None,
            files: Vec::new(),
            seconds: 0.0,
        });
        if !breakdowns.is_empty() {
            out.breakdown = Some(BreakdownResult::merge(breakdowns, None));
        }
        out
    }

    /// Readies a preview whose inputs include byte ranges of plain files for
    /// [`PreviewResult::merge`]: `ranges[i]` is `Some((path, start))` when input `i` is
    /// [`Input::line_range`]`(path, start, _)`. Each range after its file's start is marked
    /// as continuing the input before it (the range before it, in this part or the part
    /// before), and when the first malformed line is in one, its number (counted from the
    /// range's start) is made its number in the file: the lines before the range are
    /// counted, reading the file up to it (only then).
    pub fn continue_ranges<P: AsRef<Path>>(&mut self, ranges: &[Option<(P, u64)>]) -> Result<(), ScanError> {
        for (input, range) in self.inputs.iter_mut().zip(ranges) {
            input.continues = range.as_ref().is_some_and(|(_, start)| *start > 0);
        }
        if let Some(first) = self.first_malformed.as_mut() {
            // The first malformed line is in the first input that has one.
            let at = self.inputs.iter().position(|i| i.counts.malformed > 0);
            if let Some(Some((path, start))) = at.and_then(|i| ranges.get(i)) {
                first.line += Input::lines_before_range(path, *start)?;
            }
        }
        Ok(())
    }

    /// The preview as bytes, for [`PreviewResult::from_bytes`] in another process (a part on
    /// its way to [`PreviewResult::merge`]): every count, input, group and file as it is.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer(MAGIC.to_vec());
        write_counts(&mut w, &self.total);
        w.u64(self.inputs.len() as u64);
        for input in &self.inputs {
            w.bytes(input.name.as_bytes());
            write_counts(&mut w, &input.counts);
            w.bool(input.complete);
            w.bool(input.continues);
        }
        write_malformed(&mut w, self.first_malformed.as_ref());
        w.option(self.breakdown.as_ref(), write_breakdown);
        w.option(self.time_field.as_deref(), |w, field| w.bytes(field.as_bytes()));
        w.u64(self.files.len() as u64);
        for file in &self.files {
            w.bytes(file.as_bytes());
        }
        w.u64(self.seconds.to_bits());
        w.0
    }

    /// A preview [`PreviewResult::to_bytes`] wrote; [`ScanError::Select`] when `bytes` are
    /// not one.
    pub fn from_bytes(bytes: &[u8]) -> Result<PreviewResult, ScanError> {
        decode(bytes, MAGIC, "preview", read_result)
    }
}

/// The first bytes of [`PreviewResult::to_bytes`]: the format and its version.
const MAGIC: &[u8; 8] = b"escppr01";

/// Adds `inputs` after `into`, each that continues the one before it added to that one.
fn join_inputs(into: &mut Vec<PreviewInput>, inputs: Vec<PreviewInput>) {
    for input in inputs {
        match into.last_mut() {
            Some(last) if input.continues && last.name == input.name => {
                last.counts.add(&input.counts);
                last.complete &= input.complete;
            }
            _ => into.push(PreviewInput {
                continues: false,
                ..input
            }),
        }
    }
}

fn write_time(w: &mut Writer, (seconds, nanos): (i64, u32)) {
    w.i64(seconds);
    w.u64(u64::from(nanos));
}

fn read_time(r: &mut Reader<'_>) -> Option<(i64, u32)> {
    let seconds = r.i64()?;
    Some((seconds, u32::try_from(r.u64()?).ok()?))
}

fn write_counts(w: &mut Writer, c: &PreviewCounts) {
    for n in [
        c.lines,
        c.malformed,
        c.kept,
        c.delivered,
        c.batches,
        c.delivered_bytes,
        c.bytes_read,
        c.timed_lines,
    ] {
        w.u64(n);
    }
    w.option(c.compressed_bytes, Writer::u64);
    w.option(c.first_time, write_time);
    w.option(c.last_time, write_time);
}

fn read_counts(r: &mut Reader<'_>) -> Option<PreviewCounts> {
    Some(PreviewCounts {
        lines: r.u64()?,
        malformed: r.u64()?,
        kept: r.u64()?,
        delivered: r.u64()?,
        batches: r.u64()?,
        delivered_bytes: r.u64()?,
        bytes_read: r.u64()?,
        timed_lines: r.u64()?,
        compressed_bytes: r.option(Reader::u64)?,
        first_time: r.option(read_time)?,
        last_time: r.option(read_time)?,
    })
}

fn read_result(r: &mut Reader<'_>) -> Option<PreviewResult> {
    let total = read_counts(r)?;
    // An input is at least its name's length, 8 counts, 3 flags and 2 times' flags.
    let n = r.len(8 + 64 + 5)?;
    let mut inputs = Vec::with_capacity(n);
    for _ in 0..n {
        inputs.push(PreviewInput {
            name: r.text()?,
            counts: read_counts(r)?,
            complete: r.bool()?,
            continues: r.bool()?,
        });
    }
    let first_malformed = read_malformed(r)?;
    let breakdown = r.option(read_breakdown)?;
    let time_field = r.option(Reader::text)?;
    let n = r.len(8)?;
    let files = (0..n).map(|_| r.text()).collect::<Option<Vec<_>>>()?;
    let seconds = f64::from_bits(r.u64()?);
    Some(PreviewResult {
        total,
        inputs,
        first_malformed,
        breakdown,
        time_field,
        files,
        seconds,
    })
}
