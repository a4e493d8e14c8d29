//! What an export writes and how it names it: [`ExportFormat`], [`FilterForm`], their names
//! (`FromStr`, `NAMES`: the binding's and the command line's choices) and [`UnknownName`].

use std::fmt;
use std::str::FromStr;

/// How a Terraform export writes a filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum FilterForm {
    /// One string: the canonical JSON text (what the API stores, what `to_json` prints).
    #[default]
    Text,
    /// `jsonencode({where = {...}})` of the canonical tree, readable and diffable in HCL.
    Jsonencode,
}

/// What [`export_jobs`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExportFormat {
    /// A jobs file in JSON, `{"jobs": [...]}`.
    Json,
    /// A jobs file in TOML, `[[jobs]]` tables.
    Toml,
    /// Terraform: `cloudflare_logpush_job` resources, `import` blocks and a `variable` for
    /// each credential.
    Terraform(FilterForm),
}

impl FilterForm {
    /// The names [`FilterForm`]'s `FromStr` reads, in this order (the binding's and the
    /// command line's choices).
    pub const NAMES: &'static [&'static str] = &["string", "jsonencode"];

    /// The form's name, one of [`FilterForm::NAMES`].
    pub fn name(self) -> &'static str {
        match self {
            FilterForm::Text => "string",
            FilterForm::Jsonencode => "jsonencode",
        }
    }
}

impl FromStr for FilterForm {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Self, UnknownName> {
        [FilterForm::Text, FilterForm::Jsonencode]
            .into_iter()
            .find(|form| form.name() == name)
            .ok_or_else(|| UnknownName::new("filter_form", name, FilterForm::NAMES))
    }
}

impl ExportFormat {
    /// The names [`ExportFormat`]'s `FromStr` reads, in this order (the binding's and the
    /// command line's choices). `terraform` reads as [`FilterForm`]'s default form; the
    /// form is chosen apart ([`ExportFormat::with_filter_form`]).
    pub const NAMES: &'static [&'static str] = &["toml", "json", "terraform"];

    /// The format's name, one of [`ExportFormat::NAMES`].
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Toml => "toml",
            ExportFormat::Json => "json",
            ExportFormat::Terraform(_) => "terraform",
        }
    }

    /// The format with `form` as its way of writing a filter (only Terraform has one).
    #[must_use]
    pub fn with_filter_form(self, form: FilterForm) -> Self {
        match self {
            ExportFormat::Terraform(_) => ExportFormat::Terraform(form),
            other @ (ExportFormat::Toml | ExportFormat::Json) => other,
        }
    }
}

impl FromStr for ExportFormat {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Self, UnknownName> {
        [
            ExportFormat::Toml,
            ExportFormat::Json,
            ExportFormat::Terraform(FilterForm::default()),
        ]
        .into_iter()
        .find(|format| format.name() == name)
        .ok_or_else(|| UnknownName::new("format", name, ExportFormat::NAMES))
    }
}

/// A name that is not one of a closed list (an export format, a filter form): says what
/// was given and the names taken, `format is "yaml"; it takes "toml", "json" or "terraform"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// What the name names (`format`, `filter_form`).
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// The names taken.
    pub names: &'static [&'static str],
}

impl UnknownName {
    fn new(what: &'static str, given: &str, names: &'static [&'static str]) -> Self {
        UnknownName {
            what,
            given: given.to_owned(),
            names,
        }
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is {:?}; it takes ", self.what, self.given)?;
        for (i, name) in self.names.iter().enumerate() {
            let before = match i {
                0 => "",
                _ if i + 1 == self.names.len() => " or ",
                _ => ", ",
            };
            write!(f, "{before}{name:?}")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownName {}

#[cfg(test)]
mod tests {
    use super::{ExportFormat, FilterForm};

    #[test]
    fn export_formats_and_filter_forms_read_their_names_and_no_other() {
        for &name in ExportFormat::NAMES {
            assert_eq!(name.parse::<ExportFormat>().unwrap().name(), name);
        }
        for &name in FilterForm::NAMES {
            assert_eq!(name.parse::<FilterForm>().unwrap().name(), name);
        }
        assert_eq!(
            "terraform"
                .parse::<ExportFormat>()
                .unwrap()
                .with_filter_form(FilterForm::Jsonencode),
            ExportFormat::Terraform(FilterForm::Jsonencode)
        );
        assert_eq!(
            "json"
                .parse::<ExportFormat>()
                .unwrap()
                .with_filter_form(FilterForm::Jsonencode),
            ExportFormat::Json
        );
        let e = "yaml".parse::<ExportFormat>().unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"format is "yaml"; it takes "toml", "json" or "terraform""#
        );
        let e = "hcl".parse::<FilterForm>().unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"filter_form is "hcl"; it takes "string" or "jsonencode""#
        );
    }
}
