//! A checked transformer as escpush holds it: the query's stages (its CTEs, then the main
//! `SELECT`), each reading the dataset or an earlier stage, with expressions in the
//! contract's subset only. Made by `lower.rs` from sqlparser's tree, run by `eval.rs`.

use std::borrow::Cow;

/// A runtime or literal value of one row. Its text and JSON borrow what they can (the
/// input's strings, the query's literals and names, `'a`): a column or a literal passed on
/// is not copied; only what is computed is made. A literal is a `Value<'static>`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Cow<'a, str>),
    /// A timestamp: seconds since the epoch and nanoseconds past them.
    Time(i64, u32),
    Array(Vec<Value<'a>>),
    /// `named_struct`, in the order written, its names the query's.
    Struct(Vec<(&'a str, Value<'a>)>),
    /// A JSON value of an `object` field, or what `->` returns.
    Json(Cow<'a, escpush_filter::Json>),
}

impl Value<'_> {
    /// Text made here (a literal's, a computed one).
    pub(crate) fn text(s: impl Into<String>) -> Value<'static> {
        Value::Str(Cow::Owned(s.into()))
    }
}

/// The type of an expression, as far as the check knows it (`Any`: not known, not checked).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    Str,
    Int,
    Float,
    Bool,
    Time,
    Json,
    Array(Box<Ty>),
    Struct,
    Null,
    Any,
}

impl Ty {
    pub(crate) fn name(&self) -> String {
        match self {
            Ty::Str => "text".into(),
            Ty::Int => "an integer".into(),
            Ty::Float => "a number".into(),
            Ty::Bool => "a boolean".into(),
            Ty::Time => "a timestamp".into(),
            Ty::Json => "a JSON object".into(),
            Ty::Array(_) => "an array".into(),
            Ty::Struct => "a struct".into(),
            Ty::Null => "NULL".into(),
            Ty::Any => "any value".into(),
        }
    }

    pub(crate) fn numeric(&self) -> bool {
        matches!(self, Ty::Int | Ty::Float | Ty::Null | Ty::Any)
    }

    /// Whether a value of `self` may be compared with one of `other`.
    pub(crate) fn comparable(&self, other: &Ty) -> bool {
        match (self, other) {
            (Ty::Any | Ty::Null, _) | (_, Ty::Any | Ty::Null) => true,
            (a, b) if a.numeric() && b.numeric() => true,
            // A timestamp compares with its text form or a number of its integer forms.
            (Ty::Time, Ty::Str | Ty::Int) | (Ty::Str | Ty::Int, Ty::Time) => true,
            (Ty::Array(a), Ty::Array(b)) => a.comparable(b),
            (a, b) => a == b,
        }
    }

    /// The type of a dataset's field.
    pub(crate) fn of_field(t: escpush_filter::FieldType) -> Ty {
        use escpush_filter::FieldType as F;
        match t {
            F::String => Ty::Str,
            F::Int => Ty::Int,
            F::Float => Ty::Float,
            F::Bool => Ty::Bool,
            F::StringArray => Ty::Array(Box::new(Ty::Str)),
            F::IntArray => Ty::Array(Box::new(Ty::Int)),
            F::Object => Ty::Json,
            F::ObjectArray => Ty::Array(Box::new(Ty::Json)),
            _ => Ty::Any,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    And,
    Or,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    Plus,
    Minus,
    Mul,
    Div,
    Mod,
    Concat,
    /// `->`: a member of a JSON value, as JSON.
    Arrow,
    /// `->>`: a member of a JSON value, as text.
    LongArrow,
}

/// A scalar function escpush evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    Upper,
    Lower,
    Coalesce,
    NullIf,
    ToTimestamp,
    Concat,
    Length,
    Trim,
    Ltrim,
    Rtrim,
    Replace,
    StartsWith,
    EndsWith,
    Abs,
    MakeArray,
    Round,
}

/// The functions by name (lower case), each with its least and most arguments.
pub(crate) const FUNCTIONS: &[(&str, Func, usize, usize)] = &[
    ("upper", Func::Upper, 1, 1),
    ("lower", Func::Lower, 1, 1),
    ("coalesce", Func::Coalesce, 1, usize::MAX),
    ("nullif", Func::NullIf, 2, 2),
    ("to_timestamp", Func::ToTimestamp, 1, 1),
    ("concat", Func::Concat, 1, usize::MAX),
    ("length", Func::Length, 1, 1),
    ("char_length", Func::Length, 1, 1),
    ("character_length", Func::Length, 1, 1),
    ("trim", Func::Trim, 1, 1),
    ("btrim", Func::Trim, 1, 1),
    ("ltrim", Func::Ltrim, 1, 1),
    ("rtrim", Func::Rtrim, 1, 1),
    ("replace", Func::Replace, 3, 3),
    ("starts_with", Func::StartsWith, 2, 2),
    ("ends_with", Func::EndsWith, 2, 2),
    ("abs", Func::Abs, 1, 1),
    ("make_array", Func::MakeArray, 0, usize::MAX),
    ("round", Func::Round, 1, 1),
];

/// Aggregate functions (refused: `no_aggregation`), lower case.
pub(crate) const AGGREGATES: &[&str] = &[
    "count",
    "sum",
    "avg",
    "mean",
    "min",
    "max",
    "array_agg",
    "string_agg",
    "first_value",
    "last_value",
    "median",
    "stddev",
    "variance",
    "approx_distinct",
    "approx_percentile_cont",
    "bool_and",
    "bool_or",
    "row_number",
    "rank",
    "dense_rank",
    "lag",
    "lead",
    "ntile",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Epoch,
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum E {
    /// A column of the stage's input, by name as written.
    Col(String),
    Lit(Value<'static>),
    Not(Box<E>),
    Neg(Box<E>),
    Bin(BinOp, Box<E>, Box<E>),
    /// `IS NULL` (`false`) / `IS NOT NULL` (`true`).
    IsNull(Box<E>, bool),
    /// `[NOT] IN (...)`.
    In(Box<E>, Vec<E>, bool),
    /// `[NOT] LIKE` / `ILIKE` (case-insensitive).
    Like {
        expr: Box<E>,
        pattern: Box<E>,
        negated: bool,
        case_insensitive: bool,
    },
    Between(Box<E>, Box<E>, Box<E>, bool),
    Call(Func, Vec<E>),
    Cast(Box<E>, Ty),
    Extract(Part, Box<E>),
    Array(Vec<E>),
    Struct(Vec<(String, E)>),
    Case {
        operand: Option<Box<E>>,
        whens: Vec<(E, E)>,
        otherwise: Option<Box<E>>,
    },
    /// `unnest(x)`: only as a projection's whole expression.
    Unnest(Box<E>),
}

impl E {
    /// Calls `f` on each expression `self` holds directly, in the order written.
    pub(crate) fn each_child<'e>(&'e self, mut f: impl FnMut(&'e E)) {
        match self {
            E::Col(_) | E::Lit(_) => {}
            E::Not(a) | E::Neg(a) | E::IsNull(a, _) | E::Cast(a, _) | E::Extract(_, a) | E::Unnest(a) => f(a),
            E::Bin(_, a, b) => {
                f(a);
                f(b);
            }
            E::In(a, list, _) => {
                f(a);
                list.iter().for_each(f);
            }
            E::Like { expr, pattern, .. } => {
                f(expr);
                f(pattern);
            }
            E::Between(a, b, c, _) => {
                f(a);
                f(b);
                f(c);
            }
            E::Call(_, items) | E::Array(items) => items.iter().for_each(f),
            E::Struct(members) => members.iter().for_each(|(_, e)| f(e)),
            E::Case {
                operand,
                whens,
                otherwise,
            } => {
                if let Some(e) = operand {
                    f(e);
                }
                for (when, then) in whens {
                    f(when);
                    f(then);
                }
                if let Some(e) = otherwise {
                    f(e);
                }
            }
        }
    }
}

/// One item of a `SELECT`'s projection.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Item {
    /// `*`: every column of the input.
    All,
    Column {
        name: String,
        expr: E,
    },
}

/// What a stage reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    Dataset,
    /// An earlier stage, by index.
    Stage(usize),
}

/// One `SELECT`: a CTE or the main query.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Stage {
    pub(crate) name: Option<String>,
    pub(crate) source: Source,
    pub(crate) items: Vec<Item>,
    pub(crate) filter: Option<E>,
}

/// The whole query: the CTEs in order, the main `SELECT` last.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Query {
    pub(crate) stages: Vec<Stage>,
}
