//! What a local run of a transformer scans before its engine: the dataset fields its SQL
//! reads ([`CheckedTransformer::fields_read`]) and the job whose preview writes the engine's
//! input ([`CheckedTransformer::input`]): the [prefilter](CheckedTransformer::prefilter),
//! then each kept line cut down to those fields, values as the line holds them. The engine
//! parses a few fields of the lines that can match instead of every field of every line.

use super::ir::{Item, Source, Stage, E};
use super::CheckedTransformer;
use crate::logpush::JobOutput;

/// The most bytes of one file of a local run's input (its batches): several files, which the
/// engine reads in parallel, one a core.
pub const INPUT_FILE_BYTES: u64 = 32 << 20;

impl CheckedTransformer {
    /// The dataset's fields the SQL reads, in the dataset's order; `None` when a stage that
    /// reads the dataset selects `*` (it reads every field a line has).
    pub fn fields_read(&self) -> Option<Vec<String>> {
        let mut names = Vec::new();
        for stage in self.query.stages.iter().filter(|s| s.source == Source::Dataset) {
            stage_columns(stage, &mut names)?;
        }
        let fields = self.dataset.fields();
        let mut read: Vec<String> = fields
            .iter()
            .filter(|f| names.iter().any(|n| n == f.name()))
            .map(|f| f.name().to_owned())
            .collect();
        // A name the check resolved that the dataset lists otherwise (not expected): kept.
        for name in names {
            if !read.contains(&name) {
                read.push(name);
            }
        }
        Some(read)
    }

    /// The job a local run previews to write the engine's input: the dataset, the
    /// [prefilter](CheckedTransformer::prefilter), and [`fields_read`](Self::fields_read) as
    /// `field_names` in ndjson with times as written (a job would convert them), no sampling,
    /// batches of at most [`INPUT_FILE_BYTES`] (a file each); `None` when the SQL reads `*`
    /// (the engine needs whole lines).
    pub fn input(&self) -> Option<JobOutput> {
        let fields = self.fields_read()?;
        JobOutput::projection(self.dataset, self.prefilter(), &fields, Some(INPUT_FILE_BYTES)).ok()
    }
}

/// Pushes the columns `stage` reads onto `names`; `None` for `*`.
fn stage_columns(stage: &Stage, names: &mut Vec<String>) -> Option<()> {
    for item in &stage.items {
        match item {
            Item::All => return None,
            Item::Column { expr, .. } => columns(expr, names),
        }
    }
    if let Some(filter) = &stage.filter {
        columns(filter, names);
    }
    Some(())
}

/// Pushes the columns `e` reads onto `names` (each once).
fn columns(e: &E, names: &mut Vec<String>) {
    match e {
        E::Col(name) => {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        other => other.each_child(|child| columns(child, names)),
    }
}
