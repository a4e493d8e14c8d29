//! The one table of a log-push job's fields ([`JOB_FIELDS`]): each field one row with its
//! type, the values it takes, whether it may be null, whether it is a secret, when it may be
//! set (on creation, on update), whether the job record holds it (and its value there when
//! a creation leaves it out), the datasets it applies to, and where the rule comes from.
//!
//! Everything that knows a job field reads this table: the checks of a creation and of an
//! update ([`JobSpec`](super::JobSpec), [`JobUpdate`](super::JobUpdate)), the masking of a
//! record ([`redact_job`]) and of a request body (the `redact` module), the emulator's
//! records (`job_record`, for the emulator), the command line's options and the displays' order (exported
//! to Python by the binding). A new field is one row here.

use serde_json::{Map, Value};

mod table;

pub use table::{JOB_FIELDS, JOB_RULES, OUTPUT_OPTIONS};

use escpush_filter::suggest;
use escpush_filter::Dataset;
use escpush_filter::MASK;
use escpush_filter::{Problem, ProblemCode};

use super::destination::DestinationConf;
use escpush_filter::field_list_problems;

/// What a field's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JobFieldType {
    /// An integer of 1 or more, given by the API (`id`).
    Id,
    /// A dataset's name, checked against the embedded schemas (and the scope).
    Dataset,
    /// `<scheme>://<path>?<params>`, read by [`DestinationConf`].
    Destination,
    /// Text.
    Text,
    /// A filter, sent as its JSON text ([`Filter`](escpush_filter::Filter)).
    Filter,
    /// A query string, read by [`LogpullOptions`](super::LogpullOptions).
    LogpullOptions,
    /// `true` or `false`.
    Bool,
    /// An integer of 0 or more.
    Count,
    /// A JSON object.
    Object,
    /// A time the API records (RFC 3339 text).
    Time,
}

impl JobFieldType {
    /// The JSON type of the value: `"int"`, `"string"`, `"bool"` or `"object"` (the
    /// command line types its options by it).
    pub fn json_type(self) -> &'static str {
        match self {
            JobFieldType::Id | JobFieldType::Count => "int",
            JobFieldType::Dataset
            | JobFieldType::Destination
            | JobFieldType::Text
            | JobFieldType::Filter
            | JobFieldType::LogpullOptions
            | JobFieldType::Time => "string",
            JobFieldType::Bool => "bool",
            JobFieldType::Object => "object",
        }
    }

    /// Whether a type of its own reads the value (the dataset, the destination, the options,
    /// the filter: [`JobSpec`](super::JobSpec) holds them as that type).
    pub fn has_own_reader(self) -> bool {
        matches!(
            self,
            JobFieldType::Dataset | JobFieldType::Destination | JobFieldType::LogpullOptions | JobFieldType::Filter
        )
    }

    /// Whether `value` is of this type (null aside).
    pub fn fits(self, value: &Value) -> bool {
        match self {
            JobFieldType::Id => value.as_u64().is_some_and(|n| n >= 1),
            JobFieldType::Count => value.as_u64().is_some(),
            JobFieldType::Bool => value.is_boolean(),
            JobFieldType::Object => value.is_object(),
            JobFieldType::Dataset
            | JobFieldType::Destination
            | JobFieldType::Text
            | JobFieldType::Filter
            | JobFieldType::LogpullOptions
            | JobFieldType::Time => value.is_string(),
        }
    }

    /// What the type takes, for a message: "`enabled` takes true or false".
    pub fn describe(self) -> &'static str {
        match self {
            JobFieldType::Id => "an integer of 1 or more",
            JobFieldType::Count => "a non-negative integer",
            JobFieldType::Bool => "true or false",
            JobFieldType::Object => "an object",
            JobFieldType::Dataset
            | JobFieldType::Destination
            | JobFieldType::Text
            | JobFieldType::Filter
            | JobFieldType::LogpullOptions
            | JobFieldType::Time => "a string",
        }
    }
}

/// The values a field takes beyond its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AllowedValues {
    /// Any value of the type (the type's own reader checks the rest).
    Any,
    /// One of these texts, each for the datasets it applies to.
    OneOf(&'static [Choice]),
    /// An integer from `least` to `most`, or 0 (off).
    RangeOrOff { least: u64, most: u64 },
    /// Text of at most `max_len` characters, each of `chars`.
    Text { max_len: usize, chars: Charset },
    /// An object of these keys ([`OUTPUT_OPTIONS`]).
    Options(&'static [OutputOption]),
}

/// One value of [`AllowedValues::OneOf`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Choice {
    pub value: &'static str,
    pub datasets: AppliesTo,
}

impl Choice {
    /// A value for every dataset.
    pub const fn any(value: &'static str) -> Choice {
        Choice {
            value,
            datasets: AppliesTo::All,
        }
    }
}

/// The characters a text of [`AllowedValues::Text`] may hold, as the schema's pattern says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Charset {
    /// `^[a-zA-Z0-9\-\.]*$`: letters, digits, `-` and `.` (a job's name).
    NameChars,
    /// `^[a-zA-Z0-9/\+\.\-_]*$`: letters, digits, `/`, `+`, `.`, `-` and `_` (a token).
    TokenChars,
}

impl Charset {
    /// Whether `c` is one of the set.
    pub fn contains(self, c: char) -> bool {
        c.is_ascii_alphanumeric()
            || match self {
                Charset::NameChars => matches!(c, '-' | '.'),
                Charset::TokenChars => matches!(c, '/' | '+' | '.' | '-' | '_'),
            }
    }

    /// The schema's pattern.
    pub fn pattern(self) -> &'static str {
        match self {
            Charset::NameChars => r"^[a-zA-Z0-9\-\.]*$",
            Charset::TokenChars => r"^[a-zA-Z0-9/\+\.\-_]*$",
        }
    }

    /// The set in words, for a message.
    pub fn describe(self) -> &'static str {
        match self {
            Charset::NameChars => "letters, digits, `-` and `.`",
            Charset::TokenChars => "letters, digits, `/`, `+`, `.`, `-` and `_`",
        }
    }
}

/// What a key of `output_options` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionValue {
    /// Text.
    Text,
    /// `true` or `false`.
    Bool,
    /// One of these texts.
    OneOf(&'static [&'static str]),
    /// A number above 0 and at most 1.
    Fraction,
    /// A list of field names of the job's dataset.
    FieldNames,
}

impl OptionValue {
    /// The JSON type, for a message.
    pub fn describe(self) -> &'static str {
        match self {
            OptionValue::Text | OptionValue::OneOf(_) => "a string",
            OptionValue::Bool => "true or false",
            OptionValue::Fraction => "a number above 0 and at most 1",
            OptionValue::FieldNames => "a list of field names",
        }
    }
}

/// What a job does when its `output_options` leave a key out (or give it `null`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionDefault {
    /// Nothing: the key is off (no template, no batch prefix, no field list).
    Nothing,
    /// This value, as JSON text (`"\"unixnano\""`, `1`, `false`), for every output type.
    Json(&'static str),
    /// A text that depends on `output_type`: one `(output_type, text)` per value of its row.
    PerOutputType(&'static [(&'static str, &'static str)]),
}

/// One key of a job's `output_options`: one row of [`OUTPUT_OPTIONS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OutputOption {
    pub name: &'static str,
    pub value: OptionValue,
    pub nullable: bool,
    /// What the job does without it (log-output-options.mdx; the job formatter reads it).
    pub default: OptionDefault,
    pub datasets: AppliesTo,
    pub source: &'static str,
}

impl OutputOption {
    /// The row of `name`, if it is a key of `output_options`.
    pub fn get(name: &str) -> Option<&'static OutputOption> {
        OUTPUT_OPTIONS.iter().find(|o| o.name == name)
    }

    /// The problems of `value` given for this key in a job of `dataset`.
    fn problems(&self, value: &Value, dataset: Option<&Dataset>) -> Vec<Problem> {
        let path = format!("output_options.{}", self.name);
        let problem = |message: String| Problem::new(path.clone(), ProblemCode::InvalidValue, message);
        let key = self.name;
        if value.is_null() {
            return if self.nullable {
                Vec::new()
            } else {
                vec![problem(format!("`{key}` cannot be null; leave it out instead"))]
            };
        }
        let mut out = Vec::new();
        match (self.value, value) {
            (OptionValue::Text, Value::String(_)) | (OptionValue::Bool, Value::Bool(_)) => {}
            (OptionValue::OneOf(allowed), Value::String(given)) => {
                if !allowed.contains(&given.as_str()) {
                    out.push(problem(one_of_message(key, given, allowed.iter().copied())));
                }
            }
            (OptionValue::Fraction, Value::Number(n)) => {
                if !n.as_f64().is_some_and(|x| x > 0.0 && x <= 1.0) {
                    out.push(problem(format!(
                        "`{key}` is {n}; it takes a number above 0 and at most 1 (1 keeps every record)"
                    )));
                }
            }
            (OptionValue::FieldNames, Value::Array(names)) => {
                if let Some(d) = dataset {
                    out.extend(field_list_problems(
                        &path,
                        names.iter().map(Value::as_str),
                        d,
                        ProblemCode::InvalidValue,
                    ));
                }
            }
            _ => out.push(problem(format!("`{key}` takes {}", self.value.describe()))),
        }
        if let Some(why) = self.datasets.refusal(dataset, self.source) {
            out.push(problem(format!("`{key}` {why}")));
        }
        out
    }
}

/// The problems of an `output_options` object: unknown keys (with a did-you-mean) and each
/// key's value.
fn output_options_problems(options: &Map<String, Value>, dataset: Option<&Dataset>) -> Vec<Problem> {
    let mut out = Vec::new();
    for (key, value) in options {
        if let Some(option) = OutputOption::get(key) {
            out.extend(option.problems(value, dataset));
            continue;
        }
        let hint = suggest::did_you_mean(suggest::closest(key, OUTPUT_OPTIONS.iter().map(|o| (o.name, o.name))));
        out.push(Problem::new(
            format!("output_options.{key}"),
            ProblemCode::UnknownMember,
            format!(
                "`{}` is not a key of output_options{hint}",
                escpush_filter::shown::escape(key)
            ),
        ));
    }
    out
}

/// "`frequency` is "medium"; it takes one of "high", "low"".
fn one_of_message<'a>(key: &str, given: &str, allowed: impl Iterator<Item = &'a str>) -> String {
    let allowed: Vec<String> = allowed.map(|a| format!("{a:?}")).collect();
    format!(
        "`{key}` is {}; it takes one of {}",
        escpush_filter::shown::json_string(given),
        allowed.join(", ")
    )
}

/// Whether and how the job record holds a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InRecord {
    /// Never: the record does not hold the field.
    Never,
    /// When the creation gave it.
    WhenGiven,
    /// Always: the value given, else this one.
    Always(RecordDefault),
}

/// The value a record holds for a field a creation left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordDefault {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A text.
    Text(&'static str),
    /// Given by the API (the job's id).
    Assigned,
}

impl RecordDefault {
    /// The JSON value (`null` for [`RecordDefault::Assigned`]: the caller gives it).
    pub fn to_value(self) -> Value {
        match self {
            RecordDefault::Null | RecordDefault::Assigned => Value::Null,
            RecordDefault::Bool(b) => Value::Bool(b),
            RecordDefault::Text(t) => Value::String(t.to_owned()),
        }
    }
}

/// The datasets a field applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AppliesTo {
    /// Every dataset.
    All,
    /// Only these.
    Only(&'static [&'static str]),
}

impl AppliesTo {
    /// Whether the field applies to `dataset`.
    pub fn contains(self, dataset: &str) -> bool {
        match self {
            AppliesTo::All => true,
            AppliesTo::Only(names) => names.contains(&dataset),
        }
    }

    /// Why what these datasets bound (a field, or one value of it) does not apply to
    /// `dataset`, if it does not: `applies only to a, b, not to c (source)`, the one wording
    /// of every field, option and value with a dataset of its own.
    fn refusal(self, dataset: Option<&Dataset>, source: &str) -> Option<String> {
        match (self, dataset) {
            (AppliesTo::Only(names), Some(d)) if !names.contains(&d.name()) => Some(format!(
                "applies only to {}, not to {} ({source})",
                names.join(", "),
                d.name()
            )),
            _ => None,
        }
    }
}

/// One field of a log-push job: one row of [`JOB_FIELDS`].
// A row of a table: each flag is a column its readers filter on (`f.secret`, `f.update`),
// written as the docs write them; enums would only rename true and false.
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct JobField {
    /// The field's name in the API's JSON.
    pub name: &'static str,
    pub ty: JobFieldType,
    pub allowed: AllowedValues,
    /// Whether `null` is a value of the field (it then means "none").
    pub nullable: bool,
    /// Whether the value is a secret: masked wherever it would be shown.
    pub secret: bool,
    /// Whether a creation may set it.
    pub create: bool,
    /// Whether an update may change it.
    pub update: bool,
    pub record: InRecord,
    pub datasets: AppliesTo,
    /// What the field is, in a few words (the command line's help of its option).
    pub about: &'static str,
    /// Where its rules come from: the seed (SPEC), Cloudflare's schema, docs page or SDK.
    pub source: &'static str,
}

impl JobField {
    /// The row of `name`, if it is a job field.
    pub fn get(name: &str) -> Option<&'static JobField> {
        JOB_FIELDS.iter().find(|f| f.name == name)
    }

    /// Whether every job record holds a value for the field, never null: one the API assigns
    /// (`id`) or one a creation that leaves it out gets (`enabled`: false). Every other field
    /// may be null or missing in a record (Python types its `Job` attribute `... | None`).
    pub fn always_in_record(&self) -> bool {
        !self.nullable && matches!(self.record, InRecord::Always(d) if d != RecordDefault::Null)
    }

    /// Whether `value` says the field has no value: `null` (or absent) where the field takes
    /// it, or the empty text a record holds for "none" (`kind: ""`): `"" -> null` is no change.
    pub fn means_none(&self, value: &Value) -> bool {
        value.is_null()
            || (self.nullable && value.as_str() == Some("") && self.record == InRecord::Always(RecordDefault::Text("")))
    }

    /// The problems of `value` given for this field in a job of `dataset` (none when it
    /// fits): null where the field takes none, its type, its allowed values, a mask where a
    /// secret goes, the datasets it (or the value) applies to.
    pub fn problems(&self, value: &Value, dataset: Option<&Dataset>) -> Vec<Problem> {
        let key = self.name;
        let problem = |message: String| Problem::new(key, ProblemCode::InvalidValue, message);
        if value.is_null() {
            return if self.nullable {
                Vec::new()
            } else {
                vec![problem(format!("`{key}` cannot be null; leave it out instead"))]
            };
        }
        if !self.ty.fits(value) {
            return vec![problem(format!("`{key}` takes {}", self.ty.describe()))];
        }
        if self.secret && value.as_str() == Some(MASK) {
            return vec![problem(format!(
                "{MASKED}; give the real value (in Python, `job.reveal()[\"{key}\"]`)"
            ))];
        }
        let mut out = Vec::new();
        match (self.allowed, value) {
            (AllowedValues::RangeOrOff { least, most }, Value::Number(n)) => {
                if let Some(n) = n.as_u64().filter(|n| *n != 0 && !(least..=most).contains(n)) {
                    out.push(problem(format!(
                        "`{key}` is {n}; it takes {least} to {most}, or 0 to turn it off"
                    )));
                }
            }
            (AllowedValues::OneOf(choices), Value::String(given)) => match choices.iter().find(|c| c.value == given) {
                None => out.push(problem(one_of_message(key, given, choices.iter().map(|c| c.value)))),
                Some(choice) => {
                    if let Some(why) = choice.datasets.refusal(dataset, self.source) {
                        out.push(problem(format!(
                            "`{key}` {} {why}",
                            escpush_filter::shown::json_string(given)
                        )));
                    }
                }
            },
            (AllowedValues::Text { max_len, chars }, Value::String(text)) => {
                let len = text.chars().count();
                if len > max_len {
                    out.push(problem(format!(
                        "`{key}` has {len} characters; it takes at most {max_len}"
                    )));
                }
                if let Some((at, c)) = text.chars().enumerate().find(|(_, c)| !chars.contains(*c)) {
                    out.push(problem(format!(
                        "`{key}` holds {} at character {}; it takes only {} ({}, {})",
                        escpush_filter::shown::describe_char(c),
                        at + 1,
                        chars.describe(),
                        chars.pattern(),
                        self.source
                    )));
                }
            }
            (AllowedValues::Options(_), Value::Object(options)) => {
                out.extend(output_options_problems(options, dataset));
            }
            _ => {}
        }
        if let Some(why) = self.datasets.refusal(dataset, self.source) {
            out.push(problem(format!("`{key}` {why}")));
        }
        out
    }
}

/// Why a value that is the mask is refused: sent, it would store a job that cannot push.
pub(crate) const MASKED: &str = "holds `***` where a credential goes: that is the mask escpush prints (and every \
    escpush.Job holds) in its place, so the value was copied from a printed or serialised job and has lost \
    its credential";

/// A rule escpush enforces on a job beyond one field's own values (those are the rows of
/// [`JOB_FIELDS`] and [`OUTPUT_OPTIONS`]): its words, and where it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct JobRule {
    pub rule: &'static str,
    pub source: &'static str,
}

/// Makes a job record fit to print, in place: `destination_conf` through
/// [`DestinationConf::redact`] (the mask if it is not text) and every secret field of
/// [`JOB_FIELDS`] that is set as the mask. The one rule for every printed job: the emulator's
/// log and state, the transport's errors and Python's `Job`.
///
/// ```
/// use escpush_core::redact_job;
/// use serde_json::json;
///
/// let mut job = json!({"id": 1, "destination_conf": "s3://b/p?region=r&secret-access-key=k", "ownership_challenge": "c"});
/// redact_job(job.as_object_mut().unwrap());
/// assert_eq!(job, json!({"id": 1, "destination_conf": "s3://b/p?region=r&secret-access-key=***", "ownership_challenge": "***"}));
/// ```
pub fn redact_job(job: &mut Map<String, Value>) {
    for (key, value) in job.iter_mut() {
        *value = shown_value(key, value);
    }
}

/// A job field's value as it may be shown: a destination redacted, a secret field masked
/// (what [`redact_job`] does to each field; a Terraform plan's values are shown so).
pub fn shown_value(key: &str, value: &Value) -> Value {
    let field = JobField::get(key);
    match value {
        Value::Null => Value::Null,
        Value::String(text) if field.is_some_and(|f| f.ty == JobFieldType::Destination) => {
            Value::String(DestinationConf::redact(text))
        }
        _ if field.is_some_and(|f| f.secret || f.ty == JobFieldType::Destination) => Value::String(MASK.to_owned()),
        other => other.clone(),
    }
}

/// The secrets of a job body, for the `redact` module: each secret value, and each whole
/// destination text with its redacted form.
pub(crate) type JobSecrets = (Vec<String>, Vec<(String, String)>);

/// [`JobSecrets`] of `body`: the secret fields' values and the credentials inside a
/// `destination_conf` (a text that is no destination is a secret whole).
pub(crate) fn job_secrets(body: &Map<String, Value>) -> JobSecrets {
    let mut values = Vec::new();
    let mut wholes = Vec::new();
    for (key, value) in body {
        let (Some(field), Value::String(text)) = (JobField::get(key), value) else {
            continue;
        };
        if field.secret {
            values.push(text.clone());
        } else if field.ty == JobFieldType::Destination {
            match DestinationConf::parse(text) {
                Ok(dest) => {
                    values.extend(dest.secret_values().into_iter().map(str::to_owned));
                    wholes.push((text.clone(), dest.redacted()));
                }
                Err(_) => wholes.push((text.clone(), MASK.to_owned())),
            }
        }
    }
    (values, wholes)
}

/// The record a creation makes (as the emulator stores it): every field the record always
/// holds, with its default, then what the creation gave (fields the record never holds
/// left out); `id` as given.
#[cfg(any(test, feature = "emulator"))]
pub fn job_record(id: u64, body: &Map<String, Value>) -> Map<String, Value> {
    let mut record = Map::new();
    for field in JOB_FIELDS {
        let value = match field.record {
            InRecord::Never => continue,
            InRecord::Always(RecordDefault::Assigned) => Value::from(id),
            InRecord::Always(default) => body.get(field.name).cloned().unwrap_or_else(|| default.to_value()),
            InRecord::WhenGiven => match body.get(field.name) {
                Some(value) => value.clone(),
                None => continue,
            },
        };
        record.insert(field.name.to_owned(), value);
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_table_names_each_field_once_and_is_consistent() {
        let mut names: Vec<&str> = JOB_FIELDS.iter().map(|f| f.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), JOB_FIELDS.len());
        for f in JOB_FIELDS {
            assert!(!f.update || f.create, "{}: updatable but not settable", f.name);
            assert!(!f.source.is_empty() && !f.about.is_empty(), "{}", f.name);
            if let AllowedValues::RangeOrOff { .. } = f.allowed {
                assert_eq!(f.ty, JobFieldType::Count, "{}", f.name);
            }
            if let AllowedValues::OneOf(_) = f.allowed {
                assert_eq!(f.ty.json_type(), "string", "{}", f.name);
            }
        }
    }

    #[test]
    fn a_record_holds_the_defaults_and_what_was_given() {
        let body = json!({"dataset": "http_requests", "destination_conf": "s3://b?region=r", "max_upload_bytes": 0});
        let record = job_record(3, body.as_object().unwrap());
        assert_eq!(
            Value::Object(record),
            json!({
                "id": 3, "name": null, "dataset": "http_requests", "destination_conf": "s3://b?region=r",
                "enabled": false, "logpull_options": null, "filter": null, "kind": "", "frequency": "high",
                "max_upload_bytes": 0, "max_upload_records": null, "max_upload_interval_seconds": null,
                "output_options": null, "filter_attack_traffic": null,
                "last_complete": null, "last_error": null, "error_message": null,
            })
        );
    }
}
