//! Problems: what can be wrong with input escpush checks before anything is sent (a filter,
//! a log-push job's fields, its `logpull_options` or `destination_conf`). Each problem has a
//! path, a stable code and a message; [`describe`] lists several in one message, and
//! [`FilterError`] is the error of a filter with problems.

use std::fmt::{self, Write as _};

use crate::{shown, suggest};

/// The stable, machine-readable kind of a [`Problem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProblemCode {
    /// The text is not JSON.
    InvalidJson,
    /// The filter has no `where` member (SPEC rule 3).
    MissingWhere,
    /// A filter or an expression is not a JSON object.
    NotAnObject,
    /// A member that a filter, a condition or a group does not have.
    UnknownMember,
    /// The same member given twice in one object.
    DuplicateMember,
    /// An object with condition members and `and` / `or` members.
    ConditionAndGroup,
    /// An object with both `and` and `or`.
    AndAndOr,
    /// An object that is neither a condition nor a group.
    EmptyExpression,
    /// An `and` / `or` with no expressions.
    EmptyGroup,
    /// A condition without `key`, `operator` or `value`.
    MissingMember,
    /// A member of the wrong JSON type (`key` not a string, `and` not an array, ...).
    InvalidType,
    /// A `key` that is the empty string.
    EmptyKey,
    /// An operator that is not one of the 14.
    UnknownOperator,
    /// Text-form filter text that does not read (a missing value, a stray character, an
    /// unclosed group, ...), with its line and column.
    InvalidSyntax,
    /// Text-form filter text asking for what the filter format cannot do: regular
    /// expressions, functions, a `not` with no exact form.
    Unsupported,
    /// A value of the wrong shape for the operator (a scalar for `in`, null, an object, a fraction, ...).
    InvalidValue,
    /// `in` / `!in` with an empty array.
    EmptySet,
    /// `lt`, `leq`, `gt`, `geq` with a value that is not an integer.
    NotAnInteger,
    /// An integer outside the 64-bit range.
    IntegerOutOfRange,
    /// `and` / `or` groups nested deeper than the limit (`MAX_DEPTH`).
    TooDeep,
    /// More comparison operators than the limit.
    TooManyOperators,
    /// More bytes of canonical JSON than the limit.
    TooLarge,
    /// A key that is not a field of the dataset.
    UnknownField,
    /// A field whose type the API cannot filter on.
    FieldNotFilterable,
    /// A field of the dataset whose type Cloudflare's docs do not give, so which operators
    /// and values apply to it cannot be checked.
    UntypedField,
    /// An operator the field's type does not support (SPEC table B.1).
    OperatorNotSupported,
    /// A value that can never equal a value of the field's type.
    ValueTypeMismatch,
    /// A dataset that does not exist in the job's scope.
    UnknownDataset,
    /// A bad or missing `destination_conf`.
    InvalidDestination,
    /// A bad `logpull_options` entry.
    InvalidOption,
}

impl ProblemCode {
    /// The code as programs see it (`"unknown_operator"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemCode::InvalidJson => "invalid_json",
            ProblemCode::MissingWhere => "missing_where",
            ProblemCode::NotAnObject => "not_an_object",
            ProblemCode::UnknownMember => "unknown_member",
            ProblemCode::DuplicateMember => "duplicate_member",
            ProblemCode::ConditionAndGroup => "condition_and_group",
            ProblemCode::AndAndOr => "and_and_or",
            ProblemCode::EmptyExpression => "empty_expression",
            ProblemCode::EmptyGroup => "empty_group",
            ProblemCode::MissingMember => "missing_member",
            ProblemCode::InvalidType => "invalid_type",
            ProblemCode::EmptyKey => "empty_key",
            ProblemCode::UnknownOperator => "unknown_operator",
            ProblemCode::InvalidSyntax => "invalid_syntax",
            ProblemCode::Unsupported => "unsupported",
            ProblemCode::InvalidValue => "invalid_value",
            ProblemCode::EmptySet => "empty_set",
            ProblemCode::NotAnInteger => "not_an_integer",
            ProblemCode::IntegerOutOfRange => "integer_out_of_range",
            ProblemCode::TooDeep => "too_deep",
            ProblemCode::TooManyOperators => "too_many_operators",
            ProblemCode::TooLarge => "too_large",
            ProblemCode::UnknownField => "unknown_field",
            ProblemCode::FieldNotFilterable => "field_not_filterable",
            ProblemCode::UntypedField => "untyped_field",
            ProblemCode::OperatorNotSupported => "operator_not_supported",
            ProblemCode::ValueTypeMismatch => "value_type_mismatch",
            ProblemCode::UnknownDataset => "unknown_dataset",
            ProblemCode::InvalidDestination => "invalid_destination",
            ProblemCode::InvalidOption => "invalid_option",
        }
    }
}

impl fmt::Display for ProblemCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing wrong with the input (a filter, a job field, ...). Its path and message hold
/// no character a terminal would act on: a name or value of the input quoted in either has
/// each character that is not printable written as its escape (`\u001b`; see
/// `crate::shown`), whichever code made the problem.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Problem {
    /// Where: `where.and[2].or[0].value`; empty for the filter as a whole.
    pub path: String,
    /// What kind of problem, stable across versions.
    pub code: ProblemCode,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl Problem {
    /// A problem at `path` (empty for the whole filter). Characters of either that are not
    /// printable are written as escapes (the message keeps its line feeds and tabs: a
    /// problem of the text form ends with the line and a caret under the spot).
    pub fn new(path: impl Into<String>, code: ProblemCode, message: impl Into<String>) -> Self {
        let (path, message) = (path.into(), message.into());
        Problem {
            path: shown::escape(&path).into_owned(),
            code,
            message: shown::message(&message).into_owned(),
        }
    }

    /// The problem as part of a larger input found at `prefix` (`filter`, `jobs[1].filter`):
    /// its path becomes `prefix.path` (`filter.where.key`), `prefix` alone for a problem of
    /// the whole, and `prefix, line 1, column 3` for a place in text-form filter text, whose
    /// path is that position.
    #[must_use]
    pub fn within(mut self, prefix: &str) -> Problem {
        let prefix = shown::escape(prefix);
        self.path = if self.path.is_empty() {
            prefix.into_owned()
        } else if self.path.starts_with("line ") {
            format!("{prefix}, {}", self.path)
        } else {
            format!("{prefix}.{}", self.path)
        };
        self
    }
}

/// The longest path and message a problem shows (the full ones stay in its fields): a
/// 10 MB member name or value gives a short line (issue 16).
const SHOWN_PATH: usize = 600;
const SHOWN_MESSAGE: usize = 1200;
/// The most problems a description lists; the rest are counted.
const SHOWN_PROBLEMS: usize = 20;

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = suggest::shorten(&self.message, SHOWN_MESSAGE);
        if self.path.is_empty() {
            write!(f, "{message} [{}]", self.code)
        } else {
            let path = suggest::shorten(&self.path, SHOWN_PATH);
            write!(f, "{path}: {message} [{}]", self.code)
        }
    }
}

/// `"{what}: {problem}"` for one problem, else a count and one line each (the first
/// 20, then how many more): the message of [`FilterError`], and of every
/// error of escpush that carries problems.
pub fn describe_problems(what: &str, problems: &[Problem]) -> String {
    match problems {
        [one] => format!("{what}: {one}"),
        many => {
            let mut out = format!("{what}: {} problems", many.len());
            for problem in many.iter().take(SHOWN_PROBLEMS) {
                out.push_str("\n  - ");
                out.push_str(&problem.to_string());
            }
            if many.len() > SHOWN_PROBLEMS {
                let _ = write!(
                    out,
                    "\n  - … and {} more (each in the error's problems)",
                    many.len() - SHOWN_PROBLEMS
                );
            }
            out
        }
    }
}

/// A filter that cannot be built or does not pass validation, with every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct FilterError {
    problems: Vec<Problem>,
}

impl FilterError {
    /// An error with these problems (at least one).
    pub fn new(problems: Vec<Problem>) -> Self {
        debug_assert!(!problems.is_empty(), "a FilterError needs a problem");
        FilterError { problems }
    }

    /// Every problem, in the order of the filter's text.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The problems, by value.
    pub fn into_problems(self) -> Vec<Problem> {
        self.problems
    }
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&describe_problems("invalid filter", &self.problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_path_message_and_code() {
        let one = FilterError::new(vec![Problem::new(
            "where.value",
            ProblemCode::EmptySet,
            "`in` needs at least one value",
        )]);
        assert_eq!(
            one.to_string(),
            "invalid filter: where.value: `in` needs at least one value [empty_set]"
        );
        let two = FilterError::new(vec![
            Problem::new("", ProblemCode::MissingWhere, "no `where`"),
            Problem::new("x", ProblemCode::UnknownMember, "unknown"),
        ]);
        assert_eq!(
            two.to_string(),
            "invalid filter: 2 problems\n  - no `where` [missing_where]\n  - x: unknown [unknown_member]"
        );
    }
}
