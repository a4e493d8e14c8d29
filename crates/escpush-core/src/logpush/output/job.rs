//! What a job delivers, read from the job: [`JobOutput`], its dataset, filter, output
//! settings and batch limits, each checked as a creation checks it; a preview's one reading
//! of a job dict, a jobs file's entry or a record the API returned.

use escpush_filter::{Dataset, DatasetScope, Filter, Limits, Problem, ProblemCode};
use serde_json::{Map, Value};

use super::super::destination::Billing;
use super::super::fields::{InRecord, JobField};
use super::batches::BatchLimits;
use super::resolve::OutputFormat;
use super::writer::Formatter;
use crate::error::Error;

/// A job's delivery settings. Made by [`JobOutput::from_job`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct JobOutput {
    /// The job's dataset.
    pub dataset: &'static Dataset,
    /// Its filter, if it has one.
    pub filter: Option<Filter>,
    /// `output_options` (else `logpull_options`) resolved.
    pub format: OutputFormat,
    /// `max_upload_*`, null at the API's defaults.
    pub limits: BatchLimits,
    /// How its deliveries are billed, read from `destination_conf`'s scheme (`None`: the
    /// job has no destination, as a job sketched for a preview may not).
    pub billing: Option<Billing>,
    /// Whether the job pushes (`enabled`; left out, the field table's default for a new job:
    /// off). A preview shows what it would deliver either way; a disabled job costs nothing.
    pub enabled: bool,
}

impl JobOutput {
    /// Reads the fields a delivery depends on from a job given as its fields (a creation's
    /// body, a jobs file's entry, a record): `dataset` (of `scope`; without one, the dataset
    /// of that name, a zone's where both scopes have it),
    /// `filter` (JSON text or an object; checked against the dataset), `output_options` or
    /// `logpull_options` ([`OutputFormat::from_job_fields`]: an unknown `output_type`, a
    /// template action the docs do not allow, a `sample_rate` out of (0, 1] are refused),
    /// `max_upload_*` ([`BatchLimits::from_job`]), and `destination_conf` for its billing
    /// class only ([`Billing::of`]; a job without one has none). Every other field is
    /// ignored. All problems are reported together, each naming its field.
    pub fn from_job(job: &Map<String, Value>, scope: Option<DatasetScope>) -> Result<JobOutput, Error> {
        let mut problems = Vec::new();
        let name = job.get("dataset").and_then(Value::as_str).unwrap_or_default();
        let dataset = match Dataset::get(name, scope) {
            Ok(d) => Some(d),
            Err(err) => {
                let message = match err {
                    _ if name.is_empty() => "a job needs a dataset, like \"http_requests\"".to_owned(),
                    escpush_filter::Error::InvalidInput { message, .. } => message,
                    other => other.to_string(),
                };
                problems.push(Problem::new("dataset", ProblemCode::UnknownDataset, message));
                None
            }
        };
        let filter = match job.get("filter") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) if text.is_empty() => None,
            Some(value) => {
                let text = match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                match Filter::parse_any(&text) {
                    Ok(filter) => {
                        let found = filter.problems(dataset, Limits::default());
                        problems.extend(found.into_iter().map(|p| p.within("filter")));
                        Some(filter)
                    }
                    Err(err) => {
                        problems.extend(into_problems(Error::from(err), "filter"));
                        None
                    }
                }
            }
        };
        let format = dataset.map(|d| OutputFormat::from_job_fields(job, d));
        let limits = BatchLimits::from_job(job);
        let format = match format {
            Some(Ok(f)) => Some(f),
            Some(Err(err)) => {
                problems.extend(into_problems(err, "output_options"));
                None
            }
            None => None,
        };
        let limits = match limits {
            Ok(l) => Some(l),
            Err(err) => {
                problems.extend(into_problems(err, "max_upload_bytes"));
                None
            }
        };
        let billing = match job.get("destination_conf") {
            None | Some(Value::Null) => None,
            Some(Value::String(conf)) => match Billing::of(conf) {
                Ok(billing) => Some(billing),
                Err(err) => {
                    problems.extend(into_problems(err, "destination_conf"));
                    None
                }
            },
            Some(_) => {
                problems.push(Problem::new(
                    "destination_conf",
                    ProblemCode::InvalidType,
                    "`destination_conf` takes a string",
                ));
                None
            }
        };
        let enabled = match job.get("enabled") {
            None | Some(Value::Null) => JobField::get("enabled").is_some_and(
                |f| matches!(f.record, InRecord::Always(default) if default.to_value() == Value::Bool(true)),
            ),
            Some(Value::Bool(on)) => *on,
            Some(_) => {
                problems.push(Problem::new(
                    "enabled",
                    ProblemCode::InvalidType,
                    "`enabled` takes true or false",
                ));
                false
            }
        };
        match (dataset, format, limits) {
            (Some(dataset), Some(format), Some(limits)) if problems.is_empty() => Ok(JobOutput {
                dataset,
                filter,
                format,
                limits,
                billing,
                enabled,
            }),
            _ => Err(Error::Invalid { problems }),
        }
    }

    /// The fields of `job` its delivery depends on, as [`JobOutput::from_job`] reads them,
    /// `destination_conf` left out (it holds credentials; [`JobOutput::billing`] is read from
    /// it where the whole job is): what a process previewing part of a sample needs of the
    /// job (a Spark executor, `escpush.spark.preview`). [`JobOutput::from_job`] of them is
    /// the job's `JobOutput` but for its `billing` (`None`).
    pub fn delivery_fields(job: &Map<String, Value>) -> Map<String, Value> {
        job.iter()
            .filter(|(name, _)| DELIVERY_FIELDS.contains(&name.as_str()))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect()
    }

    /// The lines of `dataset` that `filter` keeps (every valid line without one), each cut
    /// down to `fields` in ndjson, values as the line holds them (times too: no job
    /// delivers this, see [`OutputFormat::times_as_written`]), batches of at most
    /// `batch_bytes`: the input of an engine that reads a few fields of the lines escpush
    /// chose (a transformer's local run, a Spark `select` of some fields). `fields` are
    /// checked as `field_names` are.
    pub fn projection(
        dataset: &'static Dataset,
        filter: Option<Filter>,
        fields: &[String],
        batch_bytes: Option<u64>,
    ) -> Result<JobOutput, Error> {
        let format = OutputFormat::from_output_options(&serde_json::json!({ "field_names": fields }), dataset)?;
        Ok(JobOutput {
            dataset,
            filter,
            format: format.times_as_written(),
            limits: BatchLimits::new(batch_bytes, None, None),
            billing: None,
            enabled: true,
        })
    }

    /// The job's formatter (with its filter).
    pub fn formatter(&self) -> Formatter {
        match &self.filter {
            Some(filter) => Formatter::with_filter(&self.format, filter),
            None => Formatter::new(&self.format),
        }
    }
}

/// The fields [`JobOutput::from_job`] reads, `destination_conf` aside (its billing class
/// only): [`JobOutput::delivery_fields`].
const DELIVERY_FIELDS: [&str; 8] = [
    "dataset",
    "filter",
    "output_options",
    "logpull_options",
    "max_upload_bytes",
    "max_upload_records",
    "max_upload_interval_seconds",
    "enabled",
];

/// The problems of `err`, each with its path; another error as one problem at `path`.
fn into_problems(err: Error, path: &str) -> Vec<Problem> {
    match err {
        Error::Invalid { problems } => problems,
        Error::Filter(e) => e.into_problems().into_iter().map(|p| p.within("filter")).collect(),
        other => vec![Problem::new(path, ProblemCode::InvalidValue, other.to_string())],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delivery_fields_make_the_same_output_without_the_destination() {
        let job = serde_json::json!({
            "dataset": "http_requests",
            "name": "j",
            "filter": r#"{"where":{"key":"ClientCountry","operator":"eq","value":"de"}}"#,
            "output_options": {"field_names": ["RayID", "ClientCountry"], "sample_rate": 0.5, "batch_prefix": "["},
            "logpull_options": "fields=RayID",
            "max_upload_bytes": 5_000_000,
            "max_upload_records": 1000,
            "max_upload_interval_seconds": 300,
            "enabled": true,
            "destination_conf": "s3://bucket/logs?region=us-east-1&access-key-id=AKIA&secret-access-key=s3cret",
            "ownership_challenge": "secret-token",
        });
        let job = job.as_object().unwrap();
        let fields = JobOutput::delivery_fields(job);
        let text = serde_json::to_string(&fields).unwrap();
        assert!(!text.contains("s3cret") && !text.contains("secret-token") && !text.contains("\"name\""));
        let (whole, part) = (
            JobOutput::from_job(job, None).unwrap(),
            JobOutput::from_job(&fields, None).unwrap(),
        );
        assert!(whole.billing.is_some() && part.billing.is_none());
        assert_eq!(part.dataset.name(), whole.dataset.name());
        assert_eq!(part.filter, whole.filter);
        assert_eq!(part.format, whole.format);
        assert_eq!((part.limits, part.enabled), (whole.limits, whole.enabled));
    }
}
