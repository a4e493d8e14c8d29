//! The filter as a SQL boolean expression (a `WHERE` clause), in each [`Dialect`], over a
//! table whose columns have the types of [`create_table`] (`table.rs`). On such a table the
//! expression gives the answers of [`Filter::matches`](crate::Filter::matches):
//!
//! - every condition is `COALESCE(test, FALSE)`, so a missing (NULL) field makes it false,
//!   and a `!` operator is `NOT COALESCE(test, FALSE)`, true there (never SQL `<>`);
//! - values compare by canonical text: `eq "200"` on an integer column is `= 200`, a value
//!   no column of that type can equal (`eq "abc"` there) is `FALSE`;
//! - `contains` is a substring test on text and an element test on an array; `in` on an
//!   array is true when any element is in the set (a NULL element is in none); everything is
//!   case-sensitive, and no value is read as a pattern (no regular expression, `LIKE`
//!   wildcard or glob, unless escaped);
//! - a `float` column compares with an integer exactly, also with one beyond 2^53 that no
//!   double equals (engines would round it to a double);
//! - `int or string` columns (text) compare as numbers where they hold an integer's
//!   canonical decimal text, of any length (beyond the engine's 64-bit integers, by sign).
//!
//! String values are written so that no value can change the statement: quotes and
//! backslashes escaped as the dialect reads them, control characters (NUL included) as
//! escapes or `chr(n)`, and in Spark `$` as `\u0024` (its parser substitutes `${...}`).
//!
//! What differs between dialects is described once per dialect, in `dialect.rs` (a
//! `DialectSpec` for each [`Dialect`]); this printer reads those descriptions and never
//! matches on a dialect.

use std::fmt::Write as _;

mod dialect;
mod table;
mod transformer;

pub use dialect::Dialect;
pub use table::{columns, create_table, ColumnType};
pub use transformer::to_transformer;

use crate::ast::{Condition, Expr, Operator, Scalar, Value};
use crate::dataset::Dataset;
use crate::error::Error;
use crate::problem::{FilterError, ProblemCode};
use crate::{Filter, Limits};
use dialect::{fill, ArrayTest, ControlEscape, IntCast, QueryFrom, StringLiteral, TextTest};

/// The filter as a boolean SQL expression in `dialect`, for a table of `dataset`'s columns.
///
/// # Errors
///
/// [`Error::Filter`] when the filter names a field the dataset does not have (or is empty),
/// [`Error::InvalidInput`] when the dialect cannot express a condition (arrays and
/// integer comparisons on `int or string` fields in the transformer dialect, fields without
/// a documented type, NUL in a Postgres or transformer string).
pub fn to_sql(filter: &Filter, dialect: Dialect, dataset: &Dataset) -> Result<String, Error> {
    // Only problems that leave a condition without a column, or a tree without a shape,
    // stop the printer: the rest (an operator a type does not take, a value no field of
    // the type can have) evaluate to false, as `matches` evaluates them. A field without a
    // documented type is refused below, as a column that cannot be typed.
    let problems: Vec<_> = filter
        .problems(Some(dataset), Limits::none())
        .into_iter()
        .filter(|p| {
            !matches!(
                p.code,
                ProblemCode::FieldNotFilterable
                    | ProblemCode::OperatorNotSupported
                    | ProblemCode::ValueTypeMismatch
                    | ProblemCode::UntypedField
            )
        })
        .collect();
    if !problems.is_empty() {
        return Err(FilterError::new(problems).into());
    }
    let mut out = String::with_capacity(256);
    write_expr(filter.expr(), dialect, dataset, &mut out)?;
    Ok(out)
}

/// `SELECT * FROM <table> WHERE <to_sql>`; `table` defaults to the dataset's name. In the
/// transformer dialect the table is the dataset, unquoted, and no other table may be named.
///
/// # Errors
///
/// Those of [`to_sql`], and [`Error::InvalidInput`] for a table named in the transformer
/// dialect.
pub fn to_query(filter: &Filter, dialect: Dialect, dataset: &Dataset, table: Option<&str>) -> Result<String, Error> {
    let table = match (dialect.spec().query_from, table) {
        (QueryFrom::Dataset(why), Some(_)) => {
            return Err(Error::InvalidInput {
                what: "table",
                message: why.into(),
            })
        }
        (QueryFrom::Dataset(_), None) => dataset.name().to_owned(),
        (QueryFrom::Table, Some("")) => {
            return Err(Error::InvalidInput {
                what: "table",
                message: "the table name is empty".into(),
            })
        }
        (QueryFrom::Table, t) => dialect.quote_table(t.unwrap_or(dataset.name())),
    };
    Ok(format!(
        "SELECT * FROM {table} WHERE {}",
        to_sql(filter, dialect, dataset)?
    ))
}

fn write_expr(expr: &Expr, d: Dialect, ds: &Dataset, out: &mut String) -> Result<(), Error> {
    match expr {
        Expr::Condition(c) => out.push_str(&condition(c, d, ds)?),
        Expr::And(items) | Expr::Or(items) => {
            let joiner = if matches!(expr, Expr::And(_)) { " AND " } else { " OR " };
            out.push('(');
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(joiner);
                }
                write_expr(e, d, ds, out)?;
            }
            out.push(')');
        }
    }
    Ok(())
}

fn unsupported(d: Dialect, what: &str) -> Error {
    Error::InvalidInput {
        what: "filter",
        message: format!("{what}; the {d} dialect cannot express it"),
    }
}

fn condition(c: &Condition, d: Dialect, ds: &Dataset) -> Result<String, Error> {
    let field = ds.field(&c.key).expect("to_sql checked every key against the dataset");
    let col_type = ColumnType::of(field.field_type());
    if col_type == ColumnType::Json && field.field_type().is_filterable() {
        return Err(Error::InvalidInput {
            what: "filter",
            message: format!(
                "`{}` has no documented type in {}; its column cannot be typed",
                c.key,
                ds.name()
            ),
        });
    }
    let col = d.quote_ident(&c.key);
    let (positive, negated) = c.operator.positive();
    let test = test(positive, &c.value, &col, col_type, d, &c.key)?;
    Ok(if negated {
        format!("NOT COALESCE({test}, FALSE)")
    } else {
        format!("COALESCE({test}, FALSE)")
    })
}

/// The un-negated operator on a column; `FALSE` where no value of the column's type can hold.
fn test(op: Operator, value: &Value, col: &str, ty: ColumnType, d: Dialect, key: &str) -> Result<String, Error> {
    let scalars: &[Scalar] = match value {
        Value::Scalar(s) => std::slice::from_ref(s),
        Value::Set(items) => items,
    };
    Ok(match op {
        Operator::Eq => equal_test(scalars, col, ty, d)?.unwrap_or_else(|| NEVER.into()),
        Operator::In => match equal_test(scalars, col, ty, d)? {
            Some(test) => test,
            None => array_test(scalars, col, ty, d, key)?,
        },
        Operator::Lt => numeric_test(scalars, col, ty, d, key, "<")?,
        Operator::Leq => numeric_test(scalars, col, ty, d, key, "<=")?,
        Operator::Gt => numeric_test(scalars, col, ty, d, key, ">")?,
        Operator::Geq => numeric_test(scalars, col, ty, d, key, ">=")?,
        Operator::StartsWith => text_test(TextOp::Prefix, scalars, col, ty, d, key)?,
        Operator::EndsWith => text_test(TextOp::Suffix, scalars, col, ty, d, key)?,
        Operator::Contains => match ty {
            ColumnType::StringArray | ColumnType::IntArray => array_test(scalars, col, ty, d, key)?,
            _ => text_test(TextOp::Substring, scalars, col, ty, d, key)?,
        },
        // `condition` passes the un-negated side of every operator.
        Operator::NotEq | Operator::NotStartsWith | Operator::NotEndsWith | Operator::NotContains | Operator::NotIn => {
            unreachable!("{op} is a negation")
        }
    })
}

/// What a column holds nowhere.
const NEVER: &str = "FALSE";

/// `eq` / `in` on a column of one value (`None` for an array column, `in`'s other meaning).
fn equal_test(scalars: &[Scalar], col: &str, ty: ColumnType, d: Dialect) -> Result<Option<String>, Error> {
    Ok(Some(match ty {
        ColumnType::String | ColumnType::IntOrString => {
            let lits = scalars
                .iter()
                .map(|s| string_lit(d, &s.canonical_text()))
                .collect::<Result<Vec<_>, _>>()?;
            in_list(col, &lits)
        }
        // A double equals an integer only where the integer is a double.
        ColumnType::Int | ColumnType::Float => {
            let ints: Vec<String> = scalars
                .iter()
                .filter_map(Scalar::as_integer)
                .filter(|&n| ty == ColumnType::Int || double_neighbours(n).is_none())
                .map(int_lit)
                .collect();
            in_list(col, &ints)
        }
        ColumnType::Bool => {
            let mut bools: Vec<String> = Vec::new();
            for s in scalars {
                let b = match s {
                    Scalar::Bool(b) => *b,
                    Scalar::String(t) if t == "true" || t == "false" => t == "true",
                    _ => continue,
                };
                let lit = bool_lit(b).to_owned();
                if !bools.contains(&lit) {
                    bools.push(lit);
                }
            }
            in_list(col, &bools)
        }
        ColumnType::StringArray | ColumnType::IntArray => return Ok(None),
        ColumnType::Json => NEVER.into(),
    }))
}

/// `contains` / `in` on an array column: some element is one of the values.
fn array_test(scalars: &[Scalar], col: &str, ty: ColumnType, d: Dialect, key: &str) -> Result<String, Error> {
    if !matches!(ty, ColumnType::StringArray | ColumnType::IntArray) {
        return Ok(NEVER.into());
    }
    // Before the values are written, which may fail for a reason of their own.
    if matches!(d.spec().arrays, ArrayTest::Unsupported) {
        return Err(unsupported(d, &format!("`{key}` is an array")));
    }
    let elems: Vec<String> = if ty == ColumnType::StringArray {
        scalars
            .iter()
            .map(|s| string_lit(d, &s.canonical_text()))
            .collect::<Result<_, _>>()?
    } else {
        scalars.iter().filter_map(Scalar::as_integer).map(int_lit).collect()
    };
    array_any(col, &elems, ty, d, key)
}

/// `lt` / `leq` / `gt` / `geq` (SQL's `cmp`) on a column of numbers.
fn numeric_test(
    scalars: &[Scalar],
    col: &str,
    ty: ColumnType,
    d: Dialect,
    key: &str,
    cmp: &str,
) -> Result<String, Error> {
    let Some(n) = scalars.first().and_then(Scalar::as_integer) else {
        return Ok(NEVER.into());
    };
    Ok(match ty {
        ColumnType::Int => format!("{col} {cmp} {}", int_lit(n)),
        ColumnType::Float => float_cmp(col, cmp, n),
        ColumnType::IntOrString => IntText::of(col, d, key)?.cmp(cmp, n),
        ColumnType::String | ColumnType::Bool | ColumnType::StringArray | ColumnType::IntArray | ColumnType::Json => {
            NEVER.into()
        }
    })
}

/// `startsWith` / `endsWith` / `contains` on a column of text.
fn text_test(
    op: TextOp,
    scalars: &[Scalar],
    col: &str,
    ty: ColumnType,
    d: Dialect,
    key: &str,
) -> Result<String, Error> {
    let Some(value) = scalars.first() else {
        return Ok(NEVER.into());
    };
    Ok(match ty {
        ColumnType::String => string_test(op, col, &value.canonical_text(), d)?,
        // Text tests never hold on an integer (held as its text).
        ColumnType::IntOrString => {
            let is_int = IntText::of(col, d, key)?.is_int;
            let test = string_test(op, col, &value.canonical_text(), d)?;
            format!("({test} AND NOT COALESCE({is_int}, FALSE))")
        }
        ColumnType::Int
        | ColumnType::Float
        | ColumnType::Bool
        | ColumnType::StringArray
        | ColumnType::IntArray
        | ColumnType::Json => NEVER.into(),
    })
}

/// Where in a text a text test looks for its value.
#[derive(Clone, Copy)]
enum TextOp {
    /// `startsWith`
    Prefix,
    /// `endsWith`
    Suffix,
    /// `contains`
    Substring,
}

/// Whether a SQL comparison (`<`, `>=`) bounds its column from above.
fn is_upper(cmp: &str) -> bool {
    cmp.starts_with('<')
}

fn in_list(col: &str, lits: &[String]) -> String {
    match lits {
        [] => "FALSE".into(),
        [one] => format!("{col} = {one}"),
        many => format!("{col} IN ({})", many.join(", ")),
    }
}

/// A double column against an integer, exactly as `matches` compares them. Engines turn the
/// integer into a double, which rounds one beyond 2^53 that is not a double
/// (9007199254740993 becomes 9007199254740992): there the bound is the double on the side the
/// test reaches, with no double between it and the integer (`x < 9007199254740993` is
/// `x <= 9007199254740992`).
fn float_cmp(col: &str, cmp: &str, n: i64) -> String {
    match double_neighbours(n) {
        None => format!("{col} {cmp} {}", int_lit(n)),
        Some((below, _)) if is_upper(cmp) => format!("{col} <= {}", double_lit(below)),
        Some((_, above)) => format!("{col} >= {}", double_lit(above)),
    }
}

/// The doubles either side of `n` when `n` is not a double itself.
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
fn double_neighbours(n: i64) -> Option<(f64, f64)> {
    let nearest = n as f64;
    // An i64 rounds to a double of at most 2^63, which an i128 holds exactly.
    match (nearest as i128).cmp(&i128::from(n)) {
        std::cmp::Ordering::Equal => None,
        std::cmp::Ordering::Less => Some((nearest, nearest.next_up())),
        std::cmp::Ordering::Greater => Some((nearest.next_down(), nearest)),
    }
}

/// A double beyond 2^53 (so an integer) as a literal that every dialect reads as that double:
/// all its digits, with an exponent (`9.007199254740992e15`), so that it is an approximate
/// numeric literal (a double) where the dialect has them and exact where it reads a decimal.
#[allow(clippy::cast_possible_truncation)]
fn double_lit(x: f64) -> String {
    let int = x as i128;
    let digits = int.unsigned_abs().to_string();
    let (first, rest) = digits.split_at(1);
    let rest = rest.trim_end_matches('0');
    format!(
        "{}{first}.{}e{}",
        if int < 0 { "-" } else { "" },
        if rest.is_empty() { "0" } else { rest },
        digits.len() - 1
    )
}

fn int_lit(n: i64) -> String {
    if n == i64::MIN {
        // `-9223372036854775808` reads as the negation of a number beyond 64 bits.
        "(-9223372036854775807 - 1)".into()
    } else {
        n.to_string()
    }
}

fn bool_lit(b: bool) -> &'static str {
    if b {
        "TRUE"
    } else {
        "FALSE"
    }
}

/// `startsWith` / `endsWith` / `contains` on a text column.
fn string_test(op: TextOp, col: &str, text: &str, d: Dialect) -> Result<String, Error> {
    let spec = d.spec();
    // First, so that a value the dialect cannot write is named as given (not as a pattern).
    let lit = string_lit(d, text)?;
    let spelling = match op {
        TextOp::Prefix => spec.starts_with,
        TextOp::Suffix => spec.ends_with,
        TextOp::Substring => spec.contains,
    };
    Ok(match spelling {
        TextTest::Call(call) => fill(call, &[("col", col), ("lit", &lit)]),
        TextTest::LiteralRegex(call) => fill(call, &[("col", col), ("re", &string_lit(d, &regex_escape(text))?)]),
        TextTest::Like => {
            let escaped = text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
            let pattern = match op {
                TextOp::Prefix => format!("{escaped}%"),
                TextOp::Suffix => format!("%{escaped}"),
                TextOp::Substring => format!("%{escaped}%"),
            };
            format!("{col} LIKE {} ESCAPE '\\'", string_lit(d, &pattern)?)
        }
    })
}

/// `text` as a regular expression (of polars, the Rust `regex` crate) that matches exactly it:
/// every character the syntax gives a meaning is escaped.
fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for ch in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(ch) {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// An `int or string` column (text) holds an integer as its canonical decimal text, of any
/// length, so such text stands for the integer.
struct IntText {
    /// The dialect's integer of the text: NULL for other text and for an integer beyond
    /// the dialect's integer type.
    int: String,
    /// The text is canonical and `int` holds it (it equals `int` cast back to text).
    fits: String,
    /// The text is the canonical text of a negative / a positive integer beyond `int`'s
    /// type; `None` where the type holds every integer (Postgres `NUMERIC`).
    beyond: Option<[String; 2]>,
    /// The text is an integer's canonical text, of any length.
    is_int: String,
}

impl IntText {
    fn of(col: &str, d: Dialect, key: &str) -> Result<IntText, Error> {
        let (int, back, regex) = match d.spec().int_text {
            IntCast::Try { int, back, regex } => (int, back, regex),
            IntCast::Exact { canonical, int } => {
                let canonical = fill(canonical, &[("col", col)]);
                return Ok(IntText {
                    int: fill(int, &[("col", col), ("canonical", &canonical)]),
                    fits: canonical.clone(),
                    beyond: None,
                    is_int: canonical,
                });
            }
            IntCast::Unsupported => {
                return Err(unsupported(
                    d,
                    &format!("`{key}` (int or string) holds integers as text, and telling them apart needs a cast"),
                ))
            }
        };
        let int = fill(int, &[("col", col)]);
        let back = fill(back, &[("int", &int)]);
        let full_match = |pattern: &str| -> Result<String, Error> {
            let (start, end) = regex.anchors;
            let re = string_lit(d, &format!("{start}{pattern}{end}"))?;
            Ok(fill(regex.call, &[("col", col), ("re", &re)]))
        };
        // 19 digits or more: where the cast fails on such text, it is beyond 64 bits.
        let beyond = |sign: &str| -> Result<String, Error> {
            Ok(format!(
                "({int} IS NULL AND {})",
                full_match(&format!("{sign}[1-9][0-9]{{18,}}"))?
            ))
        };
        Ok(IntText {
            fits: format!("{back} = {col}"),
            beyond: Some([beyond("-")?, beyond("")?]),
            is_int: full_match("(0|-?[1-9][0-9]*)")?,
            int,
        })
    }

    /// The text is an integer, and `op n` holds on it: beyond the dialect's integers, a
    /// positive integer is greater than `n` and a negative one less.
    fn cmp(&self, cmp: &str, n: i64) -> String {
        let fits = format!("({} {} {} AND {})", self.int, cmp, int_lit(n), self.fits);
        match &self.beyond {
            None => fits,
            Some([negative, positive]) => {
                let side = if is_upper(cmp) { negative } else { positive };
                format!("({fits} OR {side})")
            }
        }
    }
}

/// True when any element of the array column is one of `elems`.
fn array_any(col: &str, elems: &[String], ty: ColumnType, d: Dialect, key: &str) -> Result<String, Error> {
    if elems.is_empty() {
        return Ok("FALSE".into());
    }
    Ok(match (d.spec().arrays, elems) {
        (ArrayTest::OneOrAny { one, .. }, [x]) => fill(one, &[("col", col), ("x", x)]),
        (ArrayTest::OneOrAny { any, .. }, _) => {
            let list = elems.join(", ");
            let sql_type = ty.sql_type(d).unwrap_or_default();
            fill(any, &[("col", col), ("list", &list), ("type", sql_type)])
        }
        (ArrayTest::Each(each), _) => {
            let each: Vec<String> = elems.iter().map(|x| fill(each, &[("col", col), ("x", x)])).collect();
            if each.len() == 1 {
                each.join("")
            } else {
                format!("({})", each.join(" OR "))
            }
        }
        (ArrayTest::Unsupported, _) => return Err(unsupported(d, &format!("`{key}` is an array"))),
    })
}

/// A string literal of `dialect` holding exactly `text`.
fn string_lit(d: Dialect, text: &str) -> Result<String, Error> {
    match d.spec().strings {
        StringLiteral::Backslash { control, dollar } => {
            let mut out = String::with_capacity(text.len() + 2);
            out.push('\'');
            for ch in text.chars() {
                match ch {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    '$' if dollar => out.push_str("\\u0024"),
                    c if c.is_control() => {
                        let n = u32::from(c);
                        match control {
                            ControlEscape::Utf8Bytes => {
                                for b in c.to_string().bytes() {
                                    let _ = write!(out, "\\x{b:02X}");
                                }
                            }
                            ControlEscape::AsciiHex if n < 0x80 => {
                                let _ = write!(out, "\\x{n:02X}");
                            }
                            ControlEscape::AsciiHex | ControlEscape::Unicode => {
                                let _ = write!(out, "\\u{n:04X}");
                            }
                        }
                    }
                    c => out.push(c),
                }
            }
            out.push('\'');
            Ok(out)
        }
        // Standard literals: quotes doubled, backslashes plain; control characters outside
        // the quotes as chr(n), joined with `||` (without chr, they stay inside the quotes,
        // where they are plain characters).
        StringLiteral::Standard { chr, nul } => {
            if !nul && text.contains('\0') {
                return Err(unsupported(
                    d,
                    &format!("the value {} holds a NUL character", serde_json::Value::from(text)),
                ));
            }
            let mut parts: Vec<String> = Vec::new();
            let mut run = String::new();
            for ch in text.chars() {
                if ch.is_control() && chr {
                    if !run.is_empty() {
                        parts.push(format!("'{}'", run.replace('\'', "''")));
                        run.clear();
                    }
                    parts.push(format!("chr({})", u32::from(ch)));
                } else {
                    run.push(ch);
                }
            }
            if !run.is_empty() || parts.is_empty() {
                parts.push(format!("'{}'", run.replace('\'', "''")));
            }
            Ok(if parts.len() == 1 {
                parts.pop().unwrap_or_default()
            } else {
                format!("({})", parts.join(" || "))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field;

    fn http() -> &'static Dataset {
        Dataset::get("http_requests", None).unwrap()
    }

    fn sql(f: &Filter, d: Dialect) -> String {
        to_sql(f, d, http()).unwrap()
    }

    #[test]
    fn conditions_are_false_on_null_and_negations_true() {
        let f = field("ClientRequestHost").eq("a.example.com") & field("ClientRequestHost").ne("b");
        assert_eq!(
            sql(&f, Dialect::DuckDb),
            "(COALESCE(\"ClientRequestHost\" = 'a.example.com', FALSE) AND NOT COALESCE(\"ClientRequestHost\" = 'b', FALSE))"
        );
    }

    #[test]
    fn values_compare_by_canonical_text() {
        let status = |v: &str| sql(&field("EdgeResponseStatus").eq(v), Dialect::DuckDb);
        assert_eq!(status("200"), "COALESCE(\"EdgeResponseStatus\" = 200, FALSE)");
        assert_eq!(status("abc"), "COALESCE(FALSE, FALSE)");
        assert_eq!(status("0200"), "COALESCE(FALSE, FALSE)");
        assert_eq!(
            sql(&field("EdgeResponseStatus").is_in(["200", "x", "404"]), Dialect::Spark),
            "COALESCE(`EdgeResponseStatus` IN (200, 404), FALSE)"
        );
        assert_eq!(
            sql(&field("ClientRequestHost").eq(200), Dialect::DuckDb),
            "COALESCE(\"ClientRequestHost\" = '200', FALSE)"
        );
        assert_eq!(
            sql(&field("ClientRequestHost").starts_with("5"), Dialect::ClickHouse),
            "COALESCE(startsWith(`ClientRequestHost`, '5'), FALSE)"
        );
        assert_eq!(
            sql(&field("EdgeResponseStatus").ge(i64::MIN), Dialect::DuckDb),
            "COALESCE(\"EdgeResponseStatus\" >= (-9223372036854775807 - 1), FALSE)"
        );
    }

    #[test]
    fn booleans_are_in_a_set_by_canonical_text() {
        assert_eq!(
            sql(&field("WorkerSubrequest").is_in(["waf", "false"]), Dialect::DuckDb),
            "COALESCE(\"WorkerSubrequest\" = FALSE, FALSE)"
        );
        assert_eq!(
            sql(&field("WorkerSubrequest").eq(1), Dialect::DuckDb),
            "COALESCE(FALSE, FALSE)"
        );
    }

    #[test]
    fn arrays_test_elements() {
        let f = field("SecuritySources").contains("waf") | field("SecuritySources").is_in(["a", "b"]);
        assert_eq!(
            sql(&f, Dialect::DuckDb),
            "(COALESCE(list_contains(\"SecuritySources\", 'waf'), FALSE) OR COALESCE(list_has_any(\"SecuritySources\", ['a', 'b']), FALSE))"
        );
        assert_eq!(
            sql(&field("BotDetectionIDs").is_in(["1", "x"]), Dialect::Postgres),
            "COALESCE(1 = ANY(\"BotDetectionIDs\"), FALSE)"
        );
        assert!(to_sql(&field("SecuritySources").contains("x"), Dialect::Transformer, http()).is_err());
    }

    #[test]
    fn hostile_values_stay_inside_their_literal() {
        let evil = "a'b\\c--d/*e*/\0f${env:HOME}é😀\n";
        let lit = |d| string_lit(d, evil).unwrap();
        assert_eq!(
            lit(Dialect::DuckDb),
            "('a''b\\c--d/*e*/' || chr(0) || 'f${env:HOME}é😀' || chr(10))"
        );
        assert_eq!(
            lit(Dialect::Spark),
            "'a\\'b\\\\c--d/*e*/\\u0000f\\u0024{env:HOME}é😀\\u000A'"
        );
        assert_eq!(
            lit(Dialect::ClickHouse),
            "'a\\'b\\\\c--d/*e*/\\x00f${env:HOME}é😀\\x0A'"
        );
        assert_eq!(lit(Dialect::Snowflake), "'a\\'b\\\\c--d/*e*/\\x00f${env:HOME}é😀\\x0A'");
        assert!(string_lit(Dialect::Postgres, evil).is_err());
        assert_eq!(string_lit(Dialect::Postgres, "it's").unwrap(), "'it''s'");
        assert_eq!(string_lit(Dialect::Trino, "").unwrap(), "''");
        // U+0085 is two bytes in UTF-8, and ClickHouse reads `\xHH` as one byte.
        assert_eq!(string_lit(Dialect::ClickHouse, "\u{85}").unwrap(), "'\\xC2\\x85'");
        assert_eq!(string_lit(Dialect::Spark, "\u{85}").unwrap(), "'\\u0085'");
    }

    #[test]
    fn unknown_fields_are_refused_and_queries_name_their_table() {
        let err = to_sql(&field("ClientRequestHots").eq("x"), Dialect::DuckDb, http()).unwrap_err();
        assert!(err.to_string().contains("did you mean `ClientRequestHost`"), "{err}");
        let f = field("EdgeResponseStatus").ge(500);
        assert_eq!(
            to_query(&f, Dialect::Transformer, http(), None).unwrap(),
            "SELECT * FROM http_requests WHERE COALESCE(\"EdgeResponseStatus\" >= 500, FALSE)"
        );
        assert_eq!(
            to_query(&f, Dialect::Trino, http(), Some("logs.http")).unwrap(),
            "SELECT * FROM \"logs\".\"http\" WHERE COALESCE(\"EdgeResponseStatus\" >= 500, FALSE)"
        );
        assert!(to_query(&f, Dialect::Transformer, http(), Some("t")).is_err());
    }

    #[test]
    fn polars_contains_is_a_literal_substring_test() {
        // polars reads `strpos`'s argument as a regular expression: `.` found every text.
        assert_eq!(
            sql(&field("ClientRequestHost").contains("a.b|^[x]\\+5$"), Dialect::Polars),
            r#"COALESCE(regexp_like("ClientRequestHost", 'a\.b\|\^\[x\]\\\+5\$'), FALSE)"#
        );
        assert_eq!(
            sql(&field("ClientRequestHost").contains("it's {1}#&-~"), Dialect::Polars),
            r#"COALESCE(regexp_like("ClientRequestHost", 'it''s \{1\}\#\&\-\~'), FALSE)"#
        );
        assert_eq!(
            sql(&field("ClientRequestHost").starts_with("."), Dialect::Polars),
            "COALESCE(starts_with(\"ClientRequestHost\", '.'), FALSE)"
        );
        assert_eq!(
            sql(&field("ClientRequestHost").contains("."), Dialect::DataFusion),
            "COALESCE(strpos(\"ClientRequestHost\", '.') > 0, FALSE)"
        );
    }

    #[test]
    fn clickhouse_tests_each_element_as_has_does_not_read_null_as_empty() {
        assert_eq!(
            sql(&field("SecuritySources").is_in(["", "waf"]), Dialect::ClickHouse),
            "COALESCE((has(`SecuritySources`, '') OR has(`SecuritySources`, 'waf')), FALSE)"
        );
        assert_eq!(
            sql(&field("BotDetectionIDs").not_in([0, 7]), Dialect::ClickHouse),
            "NOT COALESCE((has(`BotDetectionIDs`, 0) OR has(`BotDetectionIDs`, 7)), FALSE)"
        );
        assert_eq!(
            sql(&field("BotDetectionIDs").contains(0), Dialect::ClickHouse),
            "COALESCE(has(`BotDetectionIDs`, 0), FALSE)"
        );
    }

    #[test]
    fn floats_compare_with_integers_that_are_no_double_exactly() {
        let p53 = 9_007_199_254_740_992_i64;
        for d in [Dialect::DuckDb, Dialect::Postgres, Dialect::Spark] {
            let col = d.quote_ident("EdgeResponseCompressionRatio");
            let f = || field("EdgeResponseCompressionRatio");
            assert_eq!(
                sql(&f().lt(p53 + 1), d),
                format!("COALESCE({col} <= 9.007199254740992e15, FALSE)")
            );
            assert_eq!(
                sql(&f().le(p53 + 1), d),
                format!("COALESCE({col} <= 9.007199254740992e15, FALSE)")
            );
            assert_eq!(
                sql(&f().gt(p53 + 1), d),
                format!("COALESCE({col} >= 9.007199254740994e15, FALSE)")
            );
            assert_eq!(
                sql(&f().ge(-p53 - 1), d),
                format!("COALESCE({col} >= -9.007199254740992e15, FALSE)")
            );
            assert_eq!(
                sql(&f().lt(-p53 - 1), d),
                format!("COALESCE({col} <= -9.007199254740994e15, FALSE)")
            );
            assert_eq!(
                sql(&f().gt(i64::MAX), d),
                format!("COALESCE({col} >= 9.223372036854775808e18, FALSE)")
            );
            // Integers that are doubles stay as they are.
            assert_eq!(
                sql(&f().lt(p53), d),
                format!("COALESCE({col} < 9007199254740992, FALSE)")
            );
            assert_eq!(
                sql(&f().ge(i64::MIN), d),
                format!("COALESCE({col} >= (-9223372036854775807 - 1), FALSE)")
            );
            // No double equals an integer that is no double.
            assert_eq!(sql(&f().eq(p53 + 1), d), "COALESCE(FALSE, FALSE)");
            assert_eq!(sql(&f().is_in([p53 + 1, 7]), d), format!("COALESCE({col} = 7, FALSE)"));
        }
        // A 64-bit column holds every such integer.
        assert_eq!(
            sql(&field("EdgeResponseStatus").lt(p53 + 1), Dialect::DuckDb),
            "COALESCE(\"EdgeResponseStatus\" < 9007199254740993, FALSE)"
        );
        assert_eq!(double_lit(9_223_372_036_854_775_808.0), "9.223372036854775808e18");
        assert_eq!(double_lit(36_028_797_018_963_968.0), "3.6028797018963968e16");
        assert_eq!(double_lit(-1e18), "-1.0e18");
        assert_eq!(double_neighbours(p53), None);
        assert_eq!(
            double_neighbours(i64::MAX),
            Some((2f64.powi(63) - 1024.0, 2f64.powi(63))),
            "the doubles either side of 2^63 - 1"
        );
    }

    #[test]
    fn int_or_string_integers_beyond_64_bits_compare_by_sign() {
        assert_eq!(
            sql(&field("EdgeStartTimestamp").gt(5), Dialect::ClickHouse),
            "COALESCE(((toInt64OrNull(`EdgeStartTimestamp`) > 5 AND toString(toInt64OrNull(`EdgeStartTimestamp`)) = \
             `EdgeStartTimestamp`) OR (toInt64OrNull(`EdgeStartTimestamp`) IS NULL AND match(`EdgeStartTimestamp`, \
             '^[1-9][0-9]{18,}$'))), FALSE)"
        );
        let lt = sql(&field("EdgeStartTimestamp").lt(5), Dialect::Trino);
        assert!(
            lt.ends_with(r#"OR (TRY_CAST("EdgeStartTimestamp" AS BIGINT) IS NULL AND regexp_like("EdgeStartTimestamp", '\A-[1-9][0-9]{18,}\z'))), FALSE)"#),
            "{lt}"
        );
        // Postgres casts to NUMERIC, which holds every integer.
        assert!(!sql(&field("EdgeStartTimestamp").lt(5), Dialect::Postgres).contains("IS NULL"));
        assert_eq!(
            sql(&field("EdgeStartTimestamp").starts_with("1"), Dialect::DuckDb),
            "COALESCE((starts_with(\"EdgeStartTimestamp\", '1') AND NOT COALESCE(regexp_full_match(\"EdgeStartTimestamp\", \
             '(0|-?[1-9][0-9]*)'), FALSE)), FALSE)"
        );
    }

    #[test]
    fn int_or_string_compares_canonical_integer_text_as_numbers() {
        assert_eq!(
            sql(&field("EdgeStartTimestamp").lt(5), Dialect::DuckDb),
            "COALESCE(((TRY_CAST(\"EdgeStartTimestamp\" AS BIGINT) < 5 AND CAST(TRY_CAST(\"EdgeStartTimestamp\" AS BIGINT) AS VARCHAR) = \"EdgeStartTimestamp\") OR (TRY_CAST(\"EdgeStartTimestamp\" AS BIGINT) IS NULL AND regexp_full_match(\"EdgeStartTimestamp\", '-[1-9][0-9]{18,}'))), FALSE)"
        );
        assert_eq!(
            sql(&field("EdgeStartTimestamp").eq(5), Dialect::DuckDb),
            "COALESCE(\"EdgeStartTimestamp\" = '5', FALSE)"
        );
    }
}
