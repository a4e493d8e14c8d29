//! A job's output settings resolved: what it gives in `output_options` (or, older, in
//! `logpull_options`), checked by the job field table, and every key it leaves out at the
//! default the table's row gives ([`OptionDefault`]), per `output_type` where the docs say so.

use serde_json::{Map, Value};

use crate::error::Error;
use escpush_filter::{Dataset, FieldType, Problem, ProblemCode};

use super::super::fields::{JobField, OptionDefault, OptionValue, OutputOption, OUTPUT_OPTIONS};
use super::super::options::{LogpullOptions, Timestamps};
use super::template::RecordTemplate;

/// `output_type`: how records are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OutputType {
    /// One JSON object a record (the default): strings in JSON's quotes, `"Field":value`.
    Ndjson,
    /// Values joined by the field delimiter: strings in RFC 4180's quotes.
    Csv,
}

impl OutputType {
    /// Every output type, in the order of the table's row (a test holds them to it).
    pub const ALL: [OutputType; 2] = [OutputType::Ndjson, OutputType::Csv];

    /// Its name in `output_options` (`"ndjson"`).
    pub fn name(self) -> &'static str {
        match self {
            OutputType::Ndjson => "ndjson",
            OutputType::Csv => "csv",
        }
    }

    fn from_name(name: &str) -> Option<OutputType> {
        OutputType::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// `timestamp_format` (or `timestamps=` of `logpull_options`): how timestamp fields are
/// written. escpush-filter's [`Timestamp`](escpush_filter::Timestamp) reads every one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimestampFormat {
    /// Nanoseconds since the epoch, an integer (the default).
    UnixNano,
    /// Seconds since the epoch, an integer (rounded down).
    Unix,
    /// RFC 3339 text, whole seconds (rounded down): `"2026-11-22T00:00:30Z"`.
    Rfc3339,
    /// RFC 3339 text, milliseconds: `"2026-11-22T00:00:30.123Z"`.
    Rfc3339Ms,
    /// RFC 3339 text, nanoseconds: `"2026-11-22T00:00:30.123456789Z"`.
    Rfc3339Ns,
}

impl TimestampFormat {
    /// Every format, in the order of the table's row (a test holds them to it).
    pub const ALL: [TimestampFormat; 5] = [
        TimestampFormat::UnixNano,
        TimestampFormat::Unix,
        TimestampFormat::Rfc3339,
        TimestampFormat::Rfc3339Ms,
        TimestampFormat::Rfc3339Ns,
    ];

    /// Its name in `output_options` (`"rfc3339ms"`).
    pub fn name(self) -> &'static str {
        match self {
            TimestampFormat::UnixNano => "unixnano",
            TimestampFormat::Unix => "unix",
            TimestampFormat::Rfc3339 => "rfc3339",
            TimestampFormat::Rfc3339Ms => "rfc3339ms",
            TimestampFormat::Rfc3339Ns => "rfc3339ns",
        }
    }

    fn from_name(name: &str) -> Option<TimestampFormat> {
        TimestampFormat::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl From<Timestamps> for TimestampFormat {
    fn from(t: Timestamps) -> TimestampFormat {
        match t {
            Timestamps::UnixNano => TimestampFormat::UnixNano,
            Timestamps::Unix => TimestampFormat::Unix,
            Timestamps::Rfc3339 => TimestampFormat::Rfc3339,
        }
    }
}

/// Every setting of a job's output, resolved: the keys it gives, and the others at their
/// defaults ([`OUTPUT_OPTIONS`]' `default` column). Made by [`OutputFormat::from_output_options`],
/// [`OutputFormat::from_logpull_options`], [`OutputFormat::from_job_fields`] or
/// [`JobSpec::output_format`](super::super::JobSpec::output_format); written by a
/// [`Formatter`](super::Formatter).
#[derive(Clone, Debug, PartialEq)]
pub struct OutputFormat {
    pub(super) output_type: OutputType,
    pub(super) field_names: Vec<String>,
    /// Per field of `field_names`: whether the dataset types it a timestamp (`int or string`).
    pub(super) is_time: Vec<bool>,
    pub(super) batch_prefix: String,
    pub(super) batch_suffix: String,
    pub(super) record_prefix: String,
    pub(super) record_suffix: String,
    pub(super) record_template: Option<RecordTemplate>,
    pub(super) record_delimiter: String,
    pub(super) field_delimiter: String,
    pub(super) timestamp_format: TimestampFormat,
    pub(super) sample_rate: f64,
    pub(super) cve_2021_44228: bool,
    pub(super) merge_subrequests: bool,
    pub(super) stringify_object: bool,
}

impl OutputFormat {
    /// The settings of `output_options` (a JSON object) for a job of `dataset`: checked as a
    /// creation checks it (unknown keys, each value, the fields of the dataset, the
    /// template), then every key left out or `null` at its default. A job's formatter needs
    /// `field_names` (log-output-options.mdx: "you need to specify the fields names").
    ///
    /// ```
    /// use escpush_core::{OutputFormat, OutputType, TimestampFormat};
    /// use escpush_filter::{Dataset, DatasetScope};
    /// use serde_json::json;
    ///
    /// let http = Dataset::get("http_requests", Some(DatasetScope::Zone)).unwrap();
    /// let f = OutputFormat::from_output_options(&json!({"field_names": ["RayID"], "output_type": "csv"}), http).unwrap();
    /// assert_eq!((f.output_type(), f.record_prefix(), f.record_suffix()), (OutputType::Csv, "", "\n"));
    /// assert_eq!(f.timestamp_format(), TimestampFormat::UnixNano);
    /// let err = OutputFormat::from_output_options(&json!({"field_names": ["RayID"], "output_type": "xml"}), http);
    /// assert!(err.unwrap_err().to_string().contains("output_options.output_type"));
    /// ```
    pub fn from_output_options(options: &Value, dataset: &Dataset) -> Result<OutputFormat, Error> {
        let invalid = |problems: Vec<Problem>| Error::Invalid { problems };
        let mut problems = JobField::get("output_options")
            .map(|row| row.problems(options, Some(dataset)))
            .unwrap_or_default();
        let Some(given) = options.as_object() else {
            if problems.is_empty() {
                problems.push(problem("output_options", "`output_options` takes an object"));
            }
            return Err(invalid(problems));
        };
        if problems.is_empty() {
            if let Some(Value::String(t)) = given.get("record_template") {
                if let Err(p) = RecordTemplate::parse(t) {
                    problems.push(p);
                }
            }
        }
        if given.get("field_names").is_none_or(Value::is_null) {
            problems.push(problem(
                "output_options.field_names",
                "`field_names` is not given: a job delivers the fields it names (log-output-options.mdx: \
                 \"you need to specify the fields names\")",
            ));
        }
        if !problems.is_empty() {
            return Err(invalid(problems));
        }
        Ok(OutputFormat::resolve(given, dataset))
    }

    /// The settings of the older `logpull_options` (`fields=A,B&timestamps=rfc3339&sample=0.1&
    /// CVE-2021-44228=true`), read as log-output-options.mdx's "How to migrate" maps them to
    /// `output_options` (`fields` to `field_names`, `sample` to `sample_rate`, `timestamps`
    /// to `timestamp_format`, the flag to its key); everything else at the ndjson defaults.
    pub fn from_logpull_options(options: &LogpullOptions, dataset: &Dataset) -> Result<OutputFormat, Error> {
        let mut problems = options.problems(dataset);
        let sample = match options.sample_rate() {
            Ok(rate) => rate,
            Err(Error::Invalid { problems: more }) => {
                problems.extend(more);
                None
            }
            Err(other) => return Err(other),
        };
        if !problems.is_empty() {
            return Err(Error::Invalid { problems });
        }
        let mut given = Map::new();
        given.insert("field_names".into(), options.fields().into());
        if let Some(rate) = sample {
            given.insert("sample_rate".into(), rate.into());
        }
        if let Some(t) = options.timestamps_format() {
            given.insert("timestamp_format".into(), t.as_str().into());
        }
        for (name, on) in options.flags() {
            if OutputOption::get(name).is_some_and(|o| o.value == OptionValue::Bool) {
                given.insert(name.clone(), (*on).into());
            }
        }
        Ok(OutputFormat::resolve(&given, dataset))
    }

    /// The same format with every field written as the line holds it: times too, where a
    /// job writes them in its `timestamp_format`. No job delivers this; it is the input of
    /// an engine that reads a line's own values (a transformer's local run,
    /// [`CheckedTransformer::input`](crate::transformer::CheckedTransformer::input)).
    #[must_use]
    pub fn times_as_written(mut self) -> OutputFormat {
        self.is_time.iter_mut().for_each(|t| *t = false);
        self
    }

    /// The settings of a job given as its fields (a creation's body or a record the API
    /// returned): its `output_options` when set (not null), else its `logpull_options`; a job
    /// with neither names no field to deliver, and is refused.
    pub fn from_job_fields(job: &Map<String, Value>, dataset: &Dataset) -> Result<OutputFormat, Error> {
        match (job.get("output_options"), job.get("logpull_options")) {
            (Some(options), _) if !options.is_null() => OutputFormat::from_output_options(options, dataset),
            (_, Some(Value::String(text))) if !text.is_empty() => {
                OutputFormat::from_logpull_options(&LogpullOptions::parse(text)?, dataset)
            }
            _ => Err(Error::Invalid {
                problems: vec![problem(
                    "output_options",
                    "the job has neither `output_options` nor `logpull_options`: it names no field to deliver",
                )],
            }),
        }
    }

    /// `given` (checked) with every other key at the default of its row.
    fn resolve(given: &Map<String, Value>, dataset: &Dataset) -> OutputFormat {
        let output_type = given
            .get("output_type")
            .and_then(Value::as_str)
            .and_then(OutputType::from_name)
            .unwrap_or(OutputType::Ndjson);
        let mut format = OutputFormat {
            output_type,
            field_names: Vec::new(),
            is_time: Vec::new(),
            batch_prefix: String::new(),
            batch_suffix: String::new(),
            record_prefix: String::new(),
            record_suffix: String::new(),
            record_template: None,
            record_delimiter: String::new(),
            field_delimiter: String::new(),
            timestamp_format: TimestampFormat::UnixNano,
            sample_rate: 1.0,
            cve_2021_44228: false,
            merge_subrequests: false,
            stringify_object: false,
        };
        for row in OUTPUT_OPTIONS {
            let value = match given.get(row.name).filter(|v| !v.is_null()) {
                Some(v) => v.clone(),
                None => match row.default {
                    OptionDefault::Json(text) => serde_json::from_str(text).expect("a default is JSON"),
                    OptionDefault::PerOutputType(texts) => texts
                        .iter()
                        .find(|(t, _)| *t == output_type.name())
                        .map_or(Value::Null, |(_, text)| Value::from(*text)),
                    _ => Value::Null,
                },
            };
            let known = format.set(row.name, &value);
            debug_assert!(known, "the formatter reads every key of OUTPUT_OPTIONS: {}", row.name);
        }
        format.is_time = format
            .field_names
            .iter()
            .map(|f| {
                dataset
                    .field(f)
                    .is_some_and(|s| s.field_type() == FieldType::IntOrString)
            })
            .collect();
        format
    }

    /// Sets the key `name` to `value` (checked, or its default; null is "none"); whether the
    /// formatter knows the key (a test asks it of every row of the table).
    fn set(&mut self, name: &str, value: &Value) -> bool {
        let text = || value.as_str().unwrap_or_default().to_owned();
        let on = value.as_bool().unwrap_or(false);
        match name {
            "field_names" => {
                self.field_names = value
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                    .unwrap_or_default();
            }
            "output_type" => {}
            "batch_prefix" => self.batch_prefix = text(),
            "batch_suffix" => self.batch_suffix = text(),
            "record_prefix" => self.record_prefix = text(),
            "record_suffix" => self.record_suffix = text(),
            "record_delimiter" => self.record_delimiter = text(),
            "field_delimiter" => self.field_delimiter = text(),
            "record_template" => self.record_template = value.as_str().and_then(|t| RecordTemplate::parse(t).ok()),
            "timestamp_format" => {
                self.timestamp_format = value
                    .as_str()
                    .and_then(TimestampFormat::from_name)
                    .unwrap_or(TimestampFormat::UnixNano);
            }
            "sample_rate" => self.sample_rate = value.as_f64().unwrap_or(1.0),
            "CVE-2021-44228" => self.cve_2021_44228 = on,
            "merge_subrequests" => self.merge_subrequests = on,
            "stringify_object" => self.stringify_object = on,
            _ => return false,
        }
        true
    }

    /// `output_type`.
    pub fn output_type(&self) -> OutputType {
        self.output_type
    }

    /// `field_names`, in the order the job writes them.
    pub fn field_names(&self) -> &[String] {
        &self.field_names
    }

    /// `batch_prefix`: written before each batch.
    pub fn batch_prefix(&self) -> &str {
        &self.batch_prefix
    }

    /// `batch_suffix`: written after each batch.
    pub fn batch_suffix(&self) -> &str {
        &self.batch_suffix
    }

    /// `record_prefix`: written before each record (`{` for ndjson).
    pub fn record_prefix(&self) -> &str {
        &self.record_prefix
    }

    /// `record_suffix`: written after each record (`}\n` for ndjson, `\n` for csv).
    pub fn record_suffix(&self) -> &str {
        &self.record_suffix
    }

    /// `record_template`, parsed, if set: it replaces the list of fields.
    pub fn record_template(&self) -> Option<&RecordTemplate> {
        self.record_template.as_ref()
    }

    /// `record_delimiter`: written between two records of a batch.
    pub fn record_delimiter(&self) -> &str {
        &self.record_delimiter
    }

    /// `field_delimiter`: written between two fields (ignored with a template).
    pub fn field_delimiter(&self) -> &str {
        &self.field_delimiter
    }

    /// `timestamp_format`.
    pub fn timestamp_format(&self) -> TimestampFormat {
        self.timestamp_format
    }

    /// `sample_rate`: the share of the filter's records delivered, above 0 and at most 1.
    pub fn sample_rate(&self) -> f64 {
        self.sample_rate
    }

    /// `CVE-2021-44228`: whether every `${` delivered is written `x{`.
    pub fn cve_2021_44228(&self) -> bool {
        self.cve_2021_44228
    }

    /// `merge_subrequests` (http_requests): kept, not modelled (see [`UNDOCUMENTED`](super::UNDOCUMENTED)).
    pub fn merge_subrequests(&self) -> bool {
        self.merge_subrequests
    }

    /// `stringify_object`: whether objects and arrays are written as JSON strings.
    pub fn stringify_object(&self) -> bool {
        self.stringify_object
    }
}

fn problem(path: &str, message: &str) -> Problem {
    Problem::new(path, ProblemCode::InvalidValue, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_values(name: &str) -> Vec<&'static str> {
        match OutputOption::get(name).map(|o| o.value) {
            Some(OptionValue::OneOf(values)) => values.to_vec(),
            other => panic!("{name}: {other:?}"),
        }
    }

    #[test]
    fn the_enums_are_the_rows_values() {
        assert_eq!(
            OutputType::ALL.map(OutputType::name).to_vec(),
            row_values("output_type")
        );
        assert_eq!(
            TimestampFormat::ALL.map(TimestampFormat::name).to_vec(),
            row_values("timestamp_format")
        );
    }

    #[test]
    fn the_formatter_reads_every_key_and_each_default_is_of_its_row() {
        let mut f = OutputFormat::resolve(&Map::new(), Dataset::get("http_requests", None).unwrap());
        for row in OUTPUT_OPTIONS {
            assert!(
                f.set(row.name, &Value::Null),
                "{} is no key the formatter reads",
                row.name
            );
            match row.default {
                OptionDefault::Json(text) => {
                    let v: Value = serde_json::from_str(text).unwrap();
                    let options = serde_json::json!({ row.name: v, "field_names": ["RayID"] });
                    let problems = JobField::get("output_options").unwrap().problems(&options, None);
                    assert!(problems.is_empty(), "{}: default {text}: {problems:?}", row.name);
                }
                OptionDefault::PerOutputType(pairs) => {
                    let types: Vec<&str> = pairs.iter().map(|(t, _)| *t).collect();
                    assert_eq!(types, row_values("output_type"), "{}", row.name);
                }
                _ => {}
            }
        }
    }
}
