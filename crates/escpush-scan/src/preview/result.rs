//! What a preview reports: [`PreviewResult`], in all and per input ([`PreviewInput`]), each
//! as [`PreviewCounts`].

use escpush_core::{RecordTime, Sample};

use crate::breakdown::BreakdownResult;
use crate::result::Malformed;

/// The counts of a preview, in all or of one input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PreviewCounts {
    /// Lines read, blank lines not counted (malformed ones are).
    pub lines: u64,
    /// Lines that are not one JSON object (or longer than the line limit).
    pub malformed: u64,
    /// Lines the job's filter keeps (every valid line when it has none).
    pub kept: u64,
    /// Lines kept after `sample_rate` too: the records delivered.
    pub delivered: u64,
    /// Batches: in all, every batch; per input, the batches whose first record it holds.
    pub batches: u64,
    /// Uncompressed bytes delivered, the batches' framing included: what log-push bills.
    /// Per input: its records with the framing before each, and the suffix of a batch ended
    /// there.
    pub delivered_bytes: u64,
    /// The gzip bytes written (`None` when counting only, writing plain batches, and per
    /// input).
    pub compressed_bytes: Option<u64>,
    /// Bytes of NDJSON read (after decompression).
    pub bytes_read: u64,
    /// The earliest and the latest time of the lines read (the dataset's time field, or the
    /// one given), over every line read well, delivered or not.
    pub first_time: Option<RecordTime>,
    pub last_time: Option<RecordTime>,
    /// How many lines had a time.
    pub timed_lines: u64,
}

impl PreviewCounts {
    /// The seconds from the first time to the last (`None` when no line had a time).
    pub fn span_seconds(&self) -> Option<f64> {
        let (first, last) = (self.first_time?, self.last_time?);
        #[allow(clippy::cast_precision_loss)]
        Some((last.0 - first.0) as f64 + (f64::from(last.1) - f64::from(first.1)) / 1e9)
    }

    /// The preview as a sample to price ([`Pricing::project_cost`](escpush_core::Pricing::project_cost)):
    /// the bytes and records delivered, the lines read well (what `requests_per_day` scales)
    /// and the span of their times, when they had any.
    ///
    /// ```
    /// let counts = escpush_scan::PreviewCounts::default();
    /// assert_eq!(counts.sample().delivered_bytes, 0);
    /// assert_eq!(counts.sample().span_seconds, None);
    /// ```
    pub fn sample(&self) -> Sample {
        let sample = Sample::new(self.delivered_bytes)
            .delivered_records(self.delivered)
            .lines_read(self.lines - self.malformed);
        match self.span_seconds() {
            Some(span) => sample.span_seconds(span),
            None => sample,
        }
    }

    /// Adds the counts of `other` (disjoint lines: another input, or a later range of the
    /// same file): every count summed, the times widened; the gzip bytes summed when both
    /// have them, else `None`.
    pub(crate) fn add(&mut self, other: &PreviewCounts) {
        self.lines += other.lines;
        self.malformed += other.malformed;
        self.kept += other.kept;
        self.delivered += other.delivered;
        self.batches += other.batches;
        self.delivered_bytes += other.delivered_bytes;
        self.compressed_bytes = self.compressed_bytes.zip(other.compressed_bytes).map(|(a, b)| a + b);
        self.bytes_read += other.bytes_read;
        self.add_times(other.first_time, other.last_time, other.timed_lines);
    }

    pub(crate) fn add_times(&mut self, first: Option<RecordTime>, last: Option<RecordTime>, timed: u64) {
        self.timed_lines += timed;
        if let Some(t) = first {
            self.first_time = Some(self.first_time.map_or(t, |f| f.min(t)));
        }
        if let Some(t) = last {
            self.last_time = Some(self.last_time.map_or(t, |l| l.max(t)));
        }
    }
}

/// The counts of one input.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PreviewInput {
    /// The input, as [`Input::name`](crate::Input::name) gives it.
    pub name: String,
    pub counts: PreviewCounts,
    /// Whether it was read to its end.
    pub complete: bool,
    /// Whether it is a byte range of the same file as the input before it, after that one
    /// (a cluster's share of a large plain file: [`PreviewResult::continue_ranges`]); a
    /// [`PreviewResult::merge`] adds it to that input. False in a preview of whole inputs.
    pub continues: bool,
}

/// What a [`Preview`](crate::Preview) found and delivered.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PreviewResult {
    pub total: PreviewCounts,
    /// Per input, in input order.
    pub inputs: Vec<PreviewInput>,
    /// The first malformed line, in input order.
    pub first_malformed: Option<Malformed>,
    /// By group and time bucket, when asked ([`Counts::delivered`](crate::Counts::delivered)
    /// and [`Counts::delivered_bytes`](crate::Counts::delivered_bytes) hold the preview's).
    pub breakdown: Option<BreakdownResult>,
    /// The field the times were read from (`None`: the dataset has no single time field).
    pub time_field: Option<String>,
    /// The files written into the output folder, relative to it, in batch order (empty when
    /// counting or writing to a stream).
    pub files: Vec<String>,
    /// Wall time.
    pub seconds: f64,
}
