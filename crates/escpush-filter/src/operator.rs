//! The one table of comparison operators (SPEC appendix B.1): each operator's name on the
//! wire, what it means, how the text form writes it and the other names it is read by, its
//! negation partner, the shape of its value and the kinds of field it takes.
//!
//! Every per-operator fact that is data is a column of [`operators!`]'s rows; what an
//! operator does (evaluation, the line program, SQL, equivalence) is code, written as a
//! `match` on [`Operator`] with no catch-all, so a new row is a compile error at each place
//! that must decide what it means. The recipe is in `crates/README.md` ("Adding an operator").

use std::fmt;
use std::str::FromStr;

use crate::dataset::FieldType;
use crate::problem::{Problem, ProblemCode};
use crate::suggest;

/// The shape of an operator's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One value (`"value": "x"`).
    Scalar,
    /// An array of values (`"value": ["a", "b"]`).
    Set,
}

/// The kinds of field an operator applies to, as the columns of SPEC table B.1 name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `string` (and `int or string` read as a string).
    String,
    /// `int` and `float` (and `int or string` read as a number).
    Number,
    /// `bool`.
    Bool,
    /// `array[string]`, `array[int]`.
    Array,
}

/// The table: one row per operator, in the order of SPEC table B.1. Columns:
/// - `name`: as the API writes it; `meaning`: B.1's "Meaning" column (a builder's label);
/// - `text`: how the text form prints it; `words`: what else the text form reads as it
///   (symbols and Rules-language words), beside `text` and `name`;
/// - `instant_logs`: the other name Instant Logs reads (instant-logs.mdx's examples);
/// - `negation`: the partner true where this one is false on a number / present field;
///   `negative`: whether this is the `!` side (true where the partner is false, missing
///   fields included);
/// - `value`: [`Shape`]; `kinds`: the [`Kind`]s of field it applies to (B.1's ✅ columns);
/// - `order`: for an operator that compares numbers, the orderings of the field's number
///   against the value where it holds (`lt`: `Less`); empty for the others.
macro_rules! operators {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident {
            name: $name:literal,
            meaning: $meaning:literal,
            text: $text:literal,
            words: [$($word:literal),*],
            instant_logs: [$($il:literal),*],
            negation: $negation:ident,
            negative: $negative:literal,
            value: $shape:ident,
            kinds: [$($kind:ident),*],
            order: [$($order:ident),*],
        }
    )*) => {
        /// The comparison operators of SPEC appendix B.1 (one row each in the table of
        /// `filter/operator.rs`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Operator {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Operator {
            /// Every operator, in the order of SPEC table B.1.
            pub const ALL: [Operator; [$(Operator::$variant),*].len()] = [$(Operator::$variant),*];

            /// The operator as the API writes it (`"!startsWith"`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Operator::$variant => $name,)*
                }
            }

            /// What the operator means, as the "Meaning" column of SPEC table B.1 words it
            /// (`"does not start with"`): the label of a builder that offers it.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Operator::$variant => $meaning,)*
                }
            }

            /// The negation partner: `eq`↔`!eq`, `lt`↔`geq`, `leq`↔`gt`, `in`↔`!in`, ...
            ///
            /// For the `!` operators this is an exact negation on every record. For the numeric
            /// pairs it is exact only where the field is a number: a missing field makes both
            /// `lt` and `geq` false.
            #[must_use]
            pub fn negated(self) -> Operator {
                match self {
                    $(Operator::$variant => Operator::$negation,)*
                }
            }

            /// `!eq`, `!startsWith`, ...: true where the un-negated operator is false, missing fields included.
            pub fn is_negative(self) -> bool {
                match self {
                    $(Operator::$variant => $negative,)*
                }
            }

            /// The shape of the operator's value.
            pub(crate) fn shape(self) -> Shape {
                match self {
                    $(Operator::$variant => Shape::$shape,)*
                }
            }

            /// The kinds of field the operator applies to.
            pub(crate) fn kinds(self) -> &'static [Kind] {
                match self {
                    $(Operator::$variant => &[$(Kind::$kind),*],)*
                }
            }

            /// The orderings of a field's number against the operator's value where the
            /// operator holds (`leq`: less or equal); empty where it does not compare numbers.
            pub(crate) fn orderings(self) -> &'static [std::cmp::Ordering] {
                match self {
                    $(Operator::$variant => &[$(std::cmp::Ordering::$order),*],)*
                }
            }

            /// How the text form writes the operator (`==`, `startsWith`).
            pub(crate) fn text(self) -> &'static str {
                match self {
                    $(Operator::$variant => $text,)*
                }
            }

            /// The operator the text form reads `word` as, other than by its name: its
            /// symbol (`<=`) or a Rules-language word (`le`).
            pub(crate) fn from_text_word(word: &str) -> Option<Operator> {
                $(
                    if word == $text $(|| word == $word)* {
                        return Some(Operator::$variant);
                    }
                )*
                None
            }

            /// The operator Instant Logs reads `name` as where it is not an operator's
            /// name (`neq` for `!eq`).
            pub fn from_instant_logs_name(name: &str) -> Option<Operator> {
                $(
                    if false $(|| name == $il)* {
                        return Some(Operator::$variant);
                    }
                )*
                None
            }
        }
    };
}

operators! {
    /// `eq`: equal (string, int, bool).
    Eq {
        name: "eq", meaning: "equal", text: "==", words: [], instant_logs: [],
        negation: NotEq, negative: false, value: Scalar, kinds: [String, Number, Bool], order: [],
    }
    /// `!eq`: not equal (string, int, bool).
    NotEq {
        name: "!eq", meaning: "not equal", text: "!=", words: ["ne"], instant_logs: ["neq"],
        negation: Eq, negative: true, value: Scalar, kinds: [String, Number, Bool], order: [],
    }
    /// `lt`: less than (int).
    Lt {
        name: "lt", meaning: "less than", text: "<", words: [], instant_logs: [],
        negation: Geq, negative: false, value: Scalar, kinds: [Number], order: [Less],
    }
    /// `leq`: less than or equal (int).
    Leq {
        name: "leq", meaning: "less than or equal", text: "<=", words: ["le"], instant_logs: [],
        negation: Gt, negative: false, value: Scalar, kinds: [Number], order: [Less, Equal],
    }
    /// `gt`: greater than (int).
    Gt {
        name: "gt", meaning: "greater than", text: ">", words: [], instant_logs: [],
        negation: Leq, negative: false, value: Scalar, kinds: [Number], order: [Greater],
    }
    /// `geq`: greater than or equal (int).
    Geq {
        name: "geq", meaning: "greater than or equal", text: ">=", words: ["ge"], instant_logs: [],
        negation: Lt, negative: false, value: Scalar, kinds: [Number], order: [Greater, Equal],
    }
    /// `startsWith` (string).
    StartsWith {
        name: "startsWith", meaning: "starts with", text: "startsWith", words: [], instant_logs: [],
        negation: NotStartsWith, negative: false, value: Scalar, kinds: [String], order: [],
    }
    /// `endsWith` (string).
    EndsWith {
        name: "endsWith", meaning: "ends with", text: "endsWith", words: [], instant_logs: [],
        negation: NotEndsWith, negative: false, value: Scalar, kinds: [String], order: [],
    }
    /// `!startsWith` (string).
    NotStartsWith {
        name: "!startsWith", meaning: "does not start with", text: "!startsWith", words: [], instant_logs: [],
        negation: StartsWith, negative: true, value: Scalar, kinds: [String], order: [],
    }
    /// `!endsWith` (string).
    NotEndsWith {
        name: "!endsWith", meaning: "does not end with", text: "!endsWith", words: [], instant_logs: [],
        negation: EndsWith, negative: true, value: Scalar, kinds: [String], order: [],
    }
    /// `contains`: substring of a string, element of an array.
    Contains {
        name: "contains", meaning: "contains", text: "contains", words: [], instant_logs: [],
        negation: NotContains, negative: false, value: Scalar, kinds: [String, Array], order: [],
    }
    /// `!contains`.
    NotContains {
        name: "!contains", meaning: "does not contain", text: "!contains", words: [], instant_logs: [],
        negation: Contains, negative: true, value: Scalar, kinds: [String, Array], order: [],
    }
    /// `in`: value is in a set (string, int, array).
    In {
        name: "in", meaning: "value is in a set", text: "in", words: [], instant_logs: [],
        negation: NotIn, negative: false, value: Set, kinds: [String, Number, Array], order: [],
    }
    /// `!in`: value is not in a set.
    NotIn {
        name: "!in", meaning: "value is not in a set", text: "!in", words: [], instant_logs: [],
        negation: In, negative: true, value: Set, kinds: [String, Number, Array], order: [],
    }
}

impl Operator {
    /// The operator `name` names (`"geq"`), or the problem `unknown_operator` at `path`,
    /// with what was probably meant or else the list of operators: one wording for a parsed
    /// condition and an operator a binding or a form gives by name.
    pub fn named(name: &str, path: &str) -> Result<Operator, Problem> {
        name.parse::<Operator>().map_err(|err| {
            Problem::new(
                path,
                ProblemCode::UnknownOperator,
                if err.suggestion.is_some() {
                    err.to_string()
                } else {
                    format!(
                        "{err}; the operators are {}",
                        Operator::ALL.map(Operator::as_str).join(", ")
                    )
                },
            )
        })
    }

    /// `in` and `!in` take an array of values; every other operator one value.
    pub fn takes_set(self) -> bool {
        self.shape() == Shape::Set
    }

    /// `lt`, `leq`, `gt` and `geq` compare numbers and need an integer value: the operators
    /// that take numbers alone.
    pub fn is_numeric(self) -> bool {
        !self.orderings().is_empty()
    }

    /// `startsWith`, `endsWith` and their negations apply to strings alone and take a text
    /// value (a builder asks for a string).
    pub fn takes_text(self) -> bool {
        self.kinds() == [Kind::String]
    }

    /// The un-negated side and whether `self` is its negation: `(Eq, true)` for `!eq`,
    /// `(Lt, false)` for `lt`.
    pub(crate) fn positive(self) -> (Operator, bool) {
        if self.is_negative() {
            (self.negated(), true)
        } else {
            (self, false)
        }
    }

    /// Whether the operator applies to a field of type `ty`: SPEC table B.1 (the `kinds`
    /// column), with `int` and `float` as Number, `array[*]` as Array, `int or string` as
    /// String or Number. Cloudflare's Filters page (`logpush-job/filters.mdx`) marks `in` /
    /// `!in` ❌ for arrays; B.1 allows them, and the spec wins.
    pub(crate) fn applies_to(self, ty: FieldType) -> bool {
        let takes = |kind: Kind| self.kinds().contains(&kind);
        match ty {
            FieldType::String => takes(Kind::String),
            FieldType::Int | FieldType::Float => takes(Kind::Number),
            FieldType::Bool => takes(Kind::Bool),
            FieldType::StringArray | FieldType::IntArray => takes(Kind::Array),
            FieldType::IntOrString => takes(Kind::String) || takes(Kind::Number),
            FieldType::Object | FieldType::ObjectArray => false,
            // No type rules any out; validation reports such a field as `untyped_field`
            // before it asks.
            FieldType::Unknown => true,
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An operator name that is not one of the 14, with the closest one if any is close.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
// `given` whole (a problem's message keeps what was given; its display shortens it), its
// characters that are not printable escaped.
#[error("unknown operator `{}`{}", crate::shown::escape(given), suggest::did_you_mean(suggestion.map(Operator::as_str)))]
pub struct UnknownOperator {
    /// The name as given.
    pub given: String,
    /// What was probably meant.
    pub suggestion: Option<Operator>,
}

impl FromStr for Operator {
    type Err = UnknownOperator;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(op) = Operator::ALL.into_iter().find(|op| op.as_str() == s) {
            return Ok(op);
        }
        Err(UnknownOperator {
            given: s.to_owned(),
            suggestion: suggest_operator(s),
        })
    }
}

/// Spellings people reach for, from SQL, other filter languages and other SDKs. Cloudflare's
/// older filters page (cloudflare-docs `content/logs/reference/logpush-api-configuration/filters.md`,
/// then `content/logs/reference/filters.md` until its C-like column was dropped) gave each
/// operator a "C-like" notation beside its name: `==`, `!=`, `<`, `<=`, `>`, `>=` and `~`
/// (contains), and named two operators `lte` and `gte`. None of them is accepted by the API
/// today, but every one of them is suggested as the name it stood for.
const OPERATOR_ALIASES: &[(&str, Operator)] = &[
    ("=", Operator::Eq),
    ("==", Operator::Eq),
    ("equal", Operator::Eq),
    ("equals", Operator::Eq),
    ("is", Operator::Eq),
    ("!=", Operator::NotEq),
    ("<>", Operator::NotEq),
    ("ne", Operator::NotEq),
    ("neq", Operator::NotEq),
    ("noteq", Operator::NotEq),
    ("not_eq", Operator::NotEq),
    ("notequal", Operator::NotEq),
    ("not_equal", Operator::NotEq),
    ("!equal", Operator::NotEq),
    ("<", Operator::Lt),
    ("less", Operator::Lt),
    ("lessthan", Operator::Lt),
    ("<=", Operator::Leq),
    ("le", Operator::Leq),
    ("lte", Operator::Leq),
    (">", Operator::Gt),
    ("greater", Operator::Gt),
    ("greaterthan", Operator::Gt),
    (">=", Operator::Geq),
    ("ge", Operator::Geq),
    ("gte", Operator::Geq),
    ("prefix", Operator::StartsWith),
    ("suffix", Operator::EndsWith),
    ("starts_with", Operator::StartsWith),
    ("ends_with", Operator::EndsWith),
    ("not_starts_with", Operator::NotStartsWith),
    ("not_ends_with", Operator::NotEndsWith),
    ("notstartswith", Operator::NotStartsWith),
    ("notendswith", Operator::NotEndsWith),
    ("~", Operator::Contains), // the older docs' C-like "contains"
    ("like", Operator::Contains),
    ("has", Operator::Contains),
    ("includes", Operator::Contains),
    ("not_contains", Operator::NotContains),
    ("notcontains", Operator::NotContains),
    ("not_like", Operator::NotContains),
    ("notin", Operator::NotIn),
    ("not_in", Operator::NotIn),
    ("nin", Operator::NotIn),
    ("not in", Operator::NotIn),
    ("oneof", Operator::In),
    ("one_of", Operator::In),
    ("anyof", Operator::In),
];

fn suggest_operator(given: &str) -> Option<Operator> {
    let trimmed = given.trim();
    if let Some(op) = Operator::ALL.into_iter().find(|op| op.as_str() == trimmed) {
        return Some(op);
    }
    // `startswith`, `StartsWith`, `!In`, `NEQ`: compare without case (and `not` for `!`).
    let folded = trimmed.to_ascii_lowercase();
    let folded = folded
        .strip_prefix("not")
        .map_or(folded.clone(), |rest| format!("!{rest}"));
    if let Some(op) = Operator::ALL
        .into_iter()
        .find(|op| op.as_str().eq_ignore_ascii_case(&folded))
    {
        return Some(op);
    }
    let lower = trimmed.to_ascii_lowercase();
    if let Some((_, op)) = OPERATOR_ALIASES.iter().find(|(alias, _)| *alias == lower) {
        return Some(*op);
    }
    suggest::closest(
        &lower,
        Operator::ALL
            .into_iter()
            .map(|op| (op.as_str().to_ascii_lowercase(), op)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_consistent() {
        for op in Operator::ALL {
            // Negation is an involution that flips the `!` side only for the `!` operators.
            assert_eq!(op.negated().negated(), op, "{op}");
            if op.is_negative() {
                assert!(!op.negated().is_negative(), "{op}");
                assert_eq!(op.as_str().strip_prefix('!'), Some(op.negated().as_str()), "{op}");
            }
            // A pair shares its value shape and the fields it applies to.
            assert_eq!(op.shape(), op.negated().shape(), "{op}");
            assert_eq!(op.kinds(), op.negated().kinds(), "{op}");
            // The operators that order numbers are those that take numbers alone.
            assert_eq!(op.is_numeric(), op.kinds() == [Kind::Number], "{op}");
            if op.is_numeric() {
                // A pair splits the three orderings between them.
                let mut both = [op.orderings(), op.negated().orderings()].concat();
                both.sort();
                assert_eq!(
                    both,
                    [
                        std::cmp::Ordering::Less,
                        std::cmp::Ordering::Equal,
                        std::cmp::Ordering::Greater
                    ],
                    "{op}"
                );
            }
            // The text form reads back what it writes.
            assert_eq!(Operator::from_text_word(op.text()), Some(op), "{op}");
        }
        assert_eq!(Operator::from_instant_logs_name("neq"), Some(Operator::NotEq));
        assert_eq!(Operator::from_instant_logs_name("!eq"), None);
        assert_eq!(Operator::from_text_word("ge"), Some(Operator::Geq));
    }
}
