//! `logpull_options`: the query-string options of a job (`fields=A,B&timestamps=rfc3339&...`).

use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use escpush_filter::Dataset;
use escpush_filter::{field_list_problems, suggest};
use escpush_filter::{Problem, ProblemCode};

/// The `timestamps` option: how the job writes timestamp fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Timestamps {
    /// Nanoseconds since the epoch.
    UnixNano,
    /// Seconds since the epoch.
    Unix,
    /// RFC 3339 text.
    Rfc3339,
}

impl Timestamps {
    /// The option's value (`"rfc3339"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Timestamps::UnixNano => "unixnano",
            Timestamps::Unix => "unix",
            Timestamps::Rfc3339 => "rfc3339",
        }
    }
}

impl FromStr for Timestamps {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "unixnano" => Ok(Timestamps::UnixNano),
            "unix" => Ok(Timestamps::Unix),
            "rfc3339" => Ok(Timestamps::Rfc3339),
            other => Err(format!(
                "`{}` is not a timestamp format; use unixnano, unix or rfc3339{}",
                suggest::cut(other),
                suggest::did_you_mean(suggest::closest(
                    other,
                    ["unixnano", "unix", "rfc3339"].into_iter().map(|s| (s, s))
                ))
            )),
        }
    }
}

/// Boolean flags the API documents for `logpull_options`.
const KNOWN_FLAGS: &[&str] = &["CVE-2021-44228"];

/// `logpull_options`: which fields a job writes, how it writes timestamps, and flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogpullOptions {
    fields: Vec<String>,
    timestamps: Option<Timestamps>,
    flags: Vec<(String, bool)>,
    /// Options kept as given, in order: `sample` (read by [`LogpullOptions::sample_rate`]) and
    /// those escpush does not know ([`LogpullOptions::unknown_options`]).
    other: Vec<(String, String)>,
}

impl LogpullOptions {
    /// Options with these fields and nothing else.
    pub fn new<S: Into<String>>(fields: impl IntoIterator<Item = S>) -> Self {
        LogpullOptions {
            fields: fields.into_iter().map(Into::into).collect(),
            ..LogpullOptions::default()
        }
    }

    /// Sets the timestamp format.
    #[must_use]
    pub fn timestamps(mut self, timestamps: Timestamps) -> Self {
        self.timestamps = Some(timestamps);
        self
    }

    /// Sets a boolean flag (`CVE-2021-44228`).
    #[must_use]
    pub fn flag(mut self, name: impl Into<String>, on: bool) -> Self {
        let name = name.into();
        self.flags.retain(|(n, _)| *n != name);
        self.flags.push((name, on));
        self
    }

    /// Parses `fields=A,B&timestamps=rfc3339&CVE-2021-44228=true` (a leading `?` is allowed).
    /// Every problem is reported, each with its path (`logpull_options.timestamps`).
    pub fn parse(text: &str) -> Result<Self, Error> {
        let mut problems = Vec::new();
        let mut options = LogpullOptions::default();
        let text = text.trim_ascii();
        let text = text.strip_prefix('?').unwrap_or(text);
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        // Each option without the ASCII spaces around it (a pasted `fields=A\n`); never
        // Unicode ones (U+0085 is a space to `str::trim`), so that printing and parsing
        // again gives the same options (issue 16: `=\u{85}&` did not round-trip).
        for part in text.split('&').map(str::trim_ascii).filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                problems.push(Problem::new(
                    format!("logpull_options.{part}"),
                    ProblemCode::InvalidOption,
                    format!(
                        "option `{0}` has no value; write `{0}=true` or `{0}=<value>`",
                        suggest::cut(part)
                    ),
                ));
                continue;
            };
            let path = format!("logpull_options.{key}");
            // Inside an option (its ends trimmed above), a query string holds no whitespace
            // (it would not survive printing), and no name starts with the `?` that begins
            // the query.
            if let Some(c) = part.chars().find(|c| c.is_whitespace() || c.is_control()) {
                problems.push(Problem::new(
                    path,
                    ProblemCode::InvalidOption,
                    format!(
                        "option `{}` holds whitespace or a control character (U+{:04X}); a query string has none",
                        suggest::cut(key),
                        u32::from(c)
                    ),
                ));
                continue;
            }
            if key.starts_with('?') {
                problems.push(Problem::new(
                    path,
                    ProblemCode::InvalidOption,
                    format!(
                        "option `{}` starts with `?`: only the query string may",
                        suggest::cut(key)
                    ),
                ));
                continue;
            }
            if !seen.insert(key) {
                problems.push(Problem::new(
                    path,
                    ProblemCode::InvalidOption,
                    format!("option `{}` is given twice", suggest::cut(key)),
                ));
                continue;
            }
            match key {
                "fields" => {
                    for (i, name) in value.split(',').enumerate() {
                        if name.is_empty() {
                            problems.push(Problem::new(
                                format!("{path}[{i}]"),
                                ProblemCode::InvalidOption,
                                "an empty field name in `fields`; separate names with one comma",
                            ));
                        } else {
                            options.fields.push(name.to_owned());
                        }
                    }
                }
                "timestamps" => match value.parse() {
                    Ok(t) => options.timestamps = Some(t),
                    Err(message) => problems.push(Problem::new(path, ProblemCode::InvalidOption, message)),
                },
                _ if KNOWN_FLAGS.contains(&key) => match value {
                    "true" => options.flags.push((key.to_owned(), true)),
                    "false" => options.flags.push((key.to_owned(), false)),
                    other => problems.push(Problem::new(
                        path,
                        ProblemCode::InvalidOption,
                        format!(
                            "`{key}` is a flag: write `{key}=true` or `{key}=false`, not `{}`",
                            suggest::cut(other)
                        ),
                    )),
                },
                _ => options.other.push((key.to_owned(), value.to_owned())),
            }
        }
        if problems.is_empty() {
            Ok(options)
        } else {
            Err(Error::Invalid { problems })
        }
    }

    /// The field names, in order.
    pub fn fields(&self) -> &[String] {
        &self.fields
    }

    /// The timestamp format, if set.
    pub fn timestamps_format(&self) -> Option<Timestamps> {
        self.timestamps
    }

    /// The share of records the job keeps, from `sample=0.1` (log-output-options.mdx, "How to
    /// migrate": it became `output_options.sample_rate`): `Ok(None)` when not given. The
    /// option is kept and sent as given; a value that is not a number above 0 and at most 1 is refused here, with the
    /// path `logpull_options.sample`.
    pub fn sample_rate(&self) -> Result<Option<f64>, Error> {
        let Some((_, text)) = self.other.iter().find(|(k, _)| k == "sample") else {
            return Ok(None);
        };
        match text.parse::<f64>() {
            Ok(rate) if rate > 0.0 && rate <= 1.0 => Ok(Some(rate)),
            _ => Err(Error::Invalid {
                problems: vec![Problem::new(
                    "logpull_options.sample",
                    ProblemCode::InvalidOption,
                    format!(
                        "`sample` is `{}`; it takes a number above 0 and at most 1 (1 keeps every record)",
                        suggest::cut(text)
                    ),
                )],
            }),
        }
    }

    /// The flags, in order.
    pub fn flags(&self) -> &[(String, bool)] {
        &self.flags
    }

    /// Options escpush does not know (kept and sent as given), in order. `sample` is known
    /// ([`LogpullOptions::sample_rate`]), and not among them.
    pub fn unknown_options(&self) -> Vec<(String, String)> {
        self.other.iter().filter(|(k, _)| k != "sample").cloned().collect()
    }

    /// Every option kept as given (the unknown ones and `sample`), in order: what two
    /// options compare by besides their fields, timestamps and flags.
    pub(crate) fn kept_as_given(&self) -> &[(String, String)] {
        &self.other
    }

    /// Notes on what is kept but not checked: unknown options.
    pub fn warnings(&self) -> Vec<String> {
        self.unknown_options()
            .iter()
            .map(|(k, _)| {
                let hint = suggest::did_you_mean(suggest::closest(
                    k,
                    ["fields", "timestamps", "sample"]
                        .iter()
                        .chain(KNOWN_FLAGS)
                        .map(|s| (*s, *s)),
                ));
                format!(
                    "logpull_options: `{}` is not an option escpush knows; it is sent as given{hint}",
                    suggest::cut(k)
                )
            })
            .collect()
    }

    /// The problems of these options for a dataset: no field named, fields it does not
    /// have or named twice ([`field_list_problems`](escpush_filter::field_list_problems), the rule of every list of fields).
    pub fn problems(&self, dataset: &Dataset) -> Vec<Problem> {
        field_list_problems(
            "logpull_options.fields",
            self.fields.iter().map(|f| Some(f.as_str())),
            dataset,
            ProblemCode::InvalidOption,
        )
    }

    /// The query-string form the API takes.
    pub fn to_query(&self) -> String {
        let mut parts = Vec::new();
        if !self.fields.is_empty() {
            parts.push(format!("fields={}", self.fields.join(",")));
        }
        if let Some(t) = self.timestamps {
            parts.push(format!("timestamps={}", t.as_str()));
        }
        for (name, on) in &self.flags {
            parts.push(format!("{name}={on}"));
        }
        for (k, v) in &self.other {
            parts.push(format!("{k}={v}"));
        }
        parts.join("&")
    }
}

impl fmt::Display for LogpullOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_query())
    }
}

impl FromStr for LogpullOptions {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        LogpullOptions::parse(s)
    }
}
