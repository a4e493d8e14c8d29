//! JSON → filter tree, collecting every problem with its path; and the shape rules that
//! every condition obeys, however it was made (parsed or built).

use crate::json::{Json, JsonError, JsonErrorKind};
use crate::suggest;

use super::validate::{join, too_deep, MAX_DEPTH, MAX_JSON_DEPTH};

use super::ast::{Condition, Expr, Operator, Scalar, Value};
use crate::problem::{Problem, ProblemCode};

/// Parses filter text: `{"where": ...}`, or the same as a JSON string (`"{\"where\":...}"`),
/// the form copied out of a job payload.
pub(crate) fn parse_text(text: &str) -> Result<Expr, Vec<Problem>> {
    let json = Json::parse_with_depth(text, MAX_JSON_DEPTH).map_err(|e| vec![invalid_json(false, &e)])?;
    match json {
        Json::String(inner) => {
            let json = Json::parse_with_depth(&inner, MAX_JSON_DEPTH).map_err(|e| vec![invalid_json(true, &e)])?;
            parse_json(&json)
        }
        json => parse_json(&json),
    }
}

fn invalid_json(quoted: bool, err: &JsonError) -> Problem {
    let what = if quoted { "the quoted filter" } else { "the filter" };
    match err.kind {
        JsonErrorKind::TooDeep => too_deep(""),
        JsonErrorKind::LoneSurrogate => Problem::new(
            "",
            ProblemCode::InvalidValue,
            format!(
                "{what} cannot be read: {err}. A filter value is Unicode text, so it cannot hold one; a \
                 log line may (scans accept it, as json.loads does), but it never equals a filter \
                 value: prefixes, suffixes and substrings around it still match"
            ),
        ),
        _ => Problem::new("", ProblemCode::InvalidJson, format!("{what} is not JSON: {err}")),
    }
}

/// Parses a filter document `{"where": EXPR}`.
pub(crate) fn parse_json(json: &Json) -> Result<Expr, Vec<Problem>> {
    let mut problems = Vec::new();
    let expr = match json {
        Json::Object(members) => {
            let mut seen_where = None;
            for (name, value) in members {
                if name == "where" {
                    if seen_where.is_some() {
                        problems.push(duplicate("where"));
                    } else {
                        seen_where = Some(value);
                    }
                } else {
                    let hint = suggest::did_you_mean(suggest::closest(name, [("where", "where")]));
                    problems.push(Problem::new(
                        name.clone(),
                        ProblemCode::UnknownMember,
                        format!(
                            "a filter has one member, `where`; `{}` is not allowed{hint}",
                            crate::shown::escape(name)
                        ),
                    ));
                }
            }
            if let Some(value) = seen_where {
                parse_expr(value, "where", 0, &mut problems)
            } else {
                problems.insert(
                    0,
                    Problem::new(
                        "",
                        ProblemCode::MissingWhere,
                        "the filter has no `where` member; write it as {\"where\": {...}}",
                    ),
                );
                None
            }
        }
        other => {
            problems.push(Problem::new(
                "",
                ProblemCode::NotAnObject,
                format!("a filter is a JSON object {{\"where\": ...}}, not {}", other.kind()),
            ));
            None
        }
    };
    match expr {
        Some(expr) if problems.is_empty() => Ok(expr),
        _ => Err(problems),
    }
}

fn duplicate(path: &str) -> Problem {
    Problem::new(
        path,
        ProblemCode::DuplicateMember,
        "this member is given more than once; keep one",
    )
}

/// The problem of a number that is not a filter value: an integer beyond 64 bits, or any
/// other number (a fraction, an exponent, beyond `f64`).
fn number_problem(text: &str, integer: bool, path: &str) -> Problem {
    if integer {
        Problem::new(
            path,
            ProblemCode::IntegerOutOfRange,
            format!("{text} is outside the 64-bit integer range"),
        )
    } else {
        Problem::new(
            path,
            ProblemCode::InvalidValue,
            format!("{text} is not an integer; filter values are strings, integers or booleans"),
        )
    }
}

const EXPR_MEMBERS: [&str; 5] = ["key", "operator", "value", "and", "or"];

/// Parses one expression inside `depth` groups; `None` when it has a problem (pushed to
/// `problems`).
fn parse_expr(json: &Json, path: &str, depth: usize, problems: &mut Vec<Problem>) -> Option<Expr> {
    let Json::Object(members) = json else {
        problems.push(Problem::new(
            path,
            ProblemCode::NotAnObject,
            format!(
                "an expression is an object: a condition {{\"key\", \"operator\", \"value\"}} or a group {{\"and\": [...]}} / {{\"or\": [...]}}; got {}",
                json.kind()
            ),
        ));
        return None;
    };
    let before = problems.len();
    let mut found: [Option<&Json>; 5] = [None; 5];
    for (name, value) in members {
        match EXPR_MEMBERS.iter().position(|m| m == name) {
            Some(i) if found[i].is_some() => problems.push(duplicate(&join(path, name))),
            Some(i) => found[i] = Some(value),
            None => {
                let hint = suggest::did_you_mean(suggest::closest(name, EXPR_MEMBERS.iter().map(|m| (*m, *m))));
                problems.push(Problem::new(
                    join(path, name),
                    ProblemCode::UnknownMember,
                    format!(
                        "`{}` is not a member of a condition (key, operator, value) or a group (and, or){hint}",
                        crate::shown::escape(name)
                    ),
                ));
            }
        }
    }
    let [key, operator, value, and, or] = found;
    let is_condition = key.is_some() || operator.is_some() || value.is_some();
    match (is_condition, and, or) {
        (true, None, None) => {
            let condition = parse_condition(key, operator, value, path, problems);
            condition.filter(|_| problems.len() == before).map(Expr::Condition)
        }
        (false, Some(items), None) => parse_group(items, &join(path, "and"), depth, problems)
            .filter(|_| problems.len() == before)
            .map(Expr::And),
        (false, None, Some(items)) => parse_group(items, &join(path, "or"), depth, problems)
            .filter(|_| problems.len() == before)
            .map(Expr::Or),
        (false, None, None) => {
            if problems.len() == before {
                problems.push(Problem::new(
                    path,
                    ProblemCode::EmptyExpression,
                    "an expression needs `key`, `operator` and `value`, or `and` / `or` with a list of expressions",
                ));
            }
            None
        }
        (true, _, _) => {
            problems.push(Problem::new(
                path,
                ProblemCode::ConditionAndGroup,
                "this object is both a condition (key/operator/value) and a group (and/or); \
                 put the condition inside the group",
            ));
            None
        }
        (false, Some(a), Some(o)) => {
            problems.push(Problem::new(
                path,
                ProblemCode::AndAndOr,
                "this object has both `and` and `or`; nest one inside the other, \
                 like {\"and\": [X, {\"or\": [Y, Z]}]}",
            ));
            parse_group(a, &join(path, "and"), depth, problems);
            parse_group(o, &join(path, "or"), depth, problems);
            None
        }
    }
}

fn parse_group(json: &Json, path: &str, depth: usize, problems: &mut Vec<Problem>) -> Option<Vec<Expr>> {
    if depth >= MAX_DEPTH {
        problems.push(too_deep(path));
        return None;
    }
    let Json::Array(items) = json else {
        problems.push(Problem::new(
            path,
            ProblemCode::InvalidType,
            format!("a group holds an array of expressions, not {}", json.kind()),
        ));
        return None;
    };
    if items.is_empty() {
        problems.push(Problem::new(
            path,
            ProblemCode::EmptyGroup,
            "a group needs at least one expression",
        ));
        return None;
    }
    let before = problems.len();
    let exprs: Vec<Expr> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| parse_expr(item, &format!("{path}[{i}]"), depth + 1, problems))
        .collect();
    (problems.len() == before).then_some(exprs)
}

fn parse_condition(
    key: Option<&Json>,
    operator: Option<&Json>,
    value: Option<&Json>,
    path: &str,
    problems: &mut Vec<Problem>,
) -> Option<Condition> {
    let missing = |member: &str| {
        Problem::new(
            path,
            ProblemCode::MissingMember,
            format!("the condition has no `{member}`; a condition is {{\"key\", \"operator\", \"value\"}}"),
        )
    };
    let key = match key {
        None => {
            problems.push(missing("key"));
            None
        }
        Some(Json::String(k)) => Some(k.clone()),
        Some(other) => {
            problems.push(Problem::new(
                join(path, "key"),
                ProblemCode::InvalidType,
                format!("`key` names a log field as a string, not {}", other.kind()),
            ));
            None
        }
    };
    let operator = match operator {
        None => {
            problems.push(missing("operator"));
            None
        }
        Some(Json::String(op)) => match Operator::named(op, &join(path, "operator")) {
            Ok(op) => Some(op),
            Err(problem) => {
                problems.push(problem);
                None
            }
        },
        Some(other) => {
            problems.push(Problem::new(
                join(path, "operator"),
                ProblemCode::InvalidType,
                format!("`operator` is a string such as \"eq\", not {}", other.kind()),
            ));
            None
        }
    };
    let value = match value {
        None => {
            problems.push(missing("value"));
            None
        }
        Some(json) => parse_value(json, &join(path, "value"), problems),
    };
    let condition = Condition::canonical(key?, operator?, value?);
    let shape = super::validate::check_condition(&condition, path);
    if shape.is_empty() {
        Some(condition)
    } else {
        problems.extend(shape);
        None
    }
}

pub(super) fn parse_value(json: &Json, path: &str, problems: &mut Vec<Problem>) -> Option<Value> {
    match json {
        Json::Array(items) => {
            let before = problems.len();
            let set: Vec<Scalar> = items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| parse_scalar(item, &format!("{path}[{i}]"), problems))
                .collect();
            (problems.len() == before).then_some(Value::Set(set))
        }
        scalar => parse_scalar(scalar, path, problems).map(Value::Scalar),
    }
}

fn parse_scalar(json: &Json, path: &str, problems: &mut Vec<Problem>) -> Option<Scalar> {
    let problem = match json {
        Json::String(s) => return Some(Scalar::String(s.clone())),
        Json::Bool(b) => return Some(Scalar::Bool(*b)),
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                return Some(Scalar::Int(i));
            }
            number_problem(&n.to_string(), n.is_u64(), path)
        }
        // Integers beyond 64 bits, as written (`-0` is read as the integer 0, as in a log line).
        Json::BigNumber(text) => number_problem(text, super::ast::canonical_int_text(text), path),
        other => Problem::new(
            path,
            ProblemCode::InvalidValue,
            format!(
                "a filter value is a string, an integer or a boolean, not {}",
                other.kind()
            ),
        ),
    };
    problems.push(problem);
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<(String, &'static str)> {
        parse_text(text)
            .unwrap_err()
            .into_iter()
            .map(|p| (p.path, p.code.as_str()))
            .collect()
    }

    #[test]
    fn parses_conditions_and_nested_groups() {
        let expr = parse_text(
            r#"{"where":{"and":[{"key":"A","operator":"eq","value":"x"},
                {"or":[{"key":"B","operator":"in","value":[1,"2",true]},{"key":"C","operator":"geq","value":"5"}]}]}}"#,
        )
        .unwrap();
        let Expr::And(items) = expr else { panic!() };
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[1], Expr::Or(v) if v.len() == 2));
    }

    #[test]
    fn accepts_the_quoted_form_copied_from_a_job() {
        let quoted = r#""{\"where\":{\"key\":\"A\",\"operator\":\"eq\",\"value\":\"x\"}}""#;
        assert!(matches!(parse_text(quoted), Ok(Expr::Condition(_))));
        assert_eq!(problems(r#""{not json""#)[0].1, "invalid_json");
    }

    #[test]
    fn reports_every_problem_with_its_path() {
        let text = r#"{"where":{"and":[
            {"key":"A","operator":"neq","value":"x"},
            {"or":[{"key":"B","operator":"in","value":[]}, {"key":"C","operator":"lt","value":"abc"}]},
            {"key":"D","operator":"eq","value":["a"], "extra": 1},
            {"and":[]},
            {"key":"E","operator":"eq","value":"x","or":[]},
            {"and":[{"key":"F","operator":"eq","value":1}],"or":[{"key":"G","operator":"eq"}]},
            {},
            {"key":1,"operator":"eq","value":null},
            {"key":"H","key":"I","operator":"eq","value":1.5},
            {"key":"","operator":"in","value":"x"},
            {"key":"J","operator":"eq","value":18446744073709551615}
        ]}}"#;
        assert_eq!(
            problems(text),
            [
                ("where.and[0].operator".into(), "unknown_operator"),
                ("where.and[1].or[0].value".into(), "empty_set"),
                ("where.and[1].or[1].value".into(), "not_an_integer"),
                ("where.and[2].extra".into(), "unknown_member"),
                ("where.and[2].value".into(), "invalid_value"),
                ("where.and[3].and".into(), "empty_group"),
                ("where.and[4]".into(), "condition_and_group"),
                ("where.and[5]".into(), "and_and_or"),
                ("where.and[5].or[0]".into(), "missing_member"),
                ("where.and[6]".into(), "empty_expression"),
                ("where.and[7].key".into(), "invalid_type"),
                ("where.and[7].value".into(), "invalid_value"),
                ("where.and[8].key".into(), "duplicate_member"),
                ("where.and[8].value".into(), "invalid_value"),
                ("where.and[9].key".into(), "empty_key"),
                ("where.and[9].value".into(), "invalid_value"),
                ("where.and[10].value".into(), "integer_out_of_range"),
            ]
        );
    }

    #[test]
    fn root_problems() {
        assert_eq!(problems("{}"), [(String::new(), "missing_where")]);
        assert_eq!(
            problems(r#"{"wher":{}}"#),
            [(String::new(), "missing_where"), ("wher".into(), "unknown_member")]
        );
        assert_eq!(problems("[1]"), [(String::new(), "not_an_object")]);
        assert_eq!(problems("{"), [(String::new(), "invalid_json")]);
        assert_eq!(problems(r#"{"where":5}"#), [("where".into(), "not_an_object")]);
        assert_eq!(
            problems(r#"{"where":{"and":{}}}"#),
            [("where.and".into(), "invalid_type")]
        );
    }

    #[test]
    fn numbers_strings_and_depth_are_read_as_the_line_evaluator_reads_them() {
        let cond = |value: &str| format!(r#"{{"where":{{"key":"A","operator":"lt","value":{value}}}}}"#);
        // `-0` is the integer 0, as in a log line.
        let Expr::Condition(c) = parse_text(&cond("-0")).unwrap() else {
            panic!()
        };
        // Held as its text, as a single value (SPEC B.1).
        assert_eq!(c.value, Value::Scalar(Scalar::String("0".into())));
        let message = |text: &str| {
            let p = parse_text(text).unwrap_err();
            (p[0].path.clone(), p[0].code, p[0].message.clone())
        };
        assert_eq!(
            message(&cond("1180591620717411303424")),
            (
                "where.value".into(),
                ProblemCode::IntegerOutOfRange,
                "1180591620717411303424 is outside the 64-bit integer range".into()
            )
        );
        assert_eq!(
            message(&cond("1e400")),
            (
                "where.value".into(),
                ProblemCode::InvalidValue,
                "1e400 is not an integer; filter values are strings, integers or booleans".into()
            )
        );
        let (path, code, text) = message(r#"{"where":{"key":"A","operator":"eq","value":"\ud800"}}"#);
        assert_eq!((path.as_str(), code), ("", ProblemCode::InvalidValue));
        assert!(
            text.starts_with("the filter cannot be read: `\\ud800` is a lone surrogate at line 1 column 46.")
                && text.contains("never equals a filter value"),
            "{text}"
        );
        // Groups nest up to MAX_DEPTH; deeper is `too_deep`, never "not JSON".
        let nested = |groups: usize| {
            let mut text = r#"{"key":"A","operator":"in","value":["x"]}"#.to_owned();
            for _ in 0..groups {
                text = format!(r#"{{"and":[{text}]}}"#);
            }
            format!(r#"{{"where":{text}}}"#)
        };
        assert_eq!(parse_text(&nested(MAX_DEPTH)).unwrap().depth(), MAX_DEPTH);
        for groups in [MAX_DEPTH + 1, MAX_DEPTH + 2, 10_000] {
            assert_eq!(message(&nested(groups)).1, ProblemCode::TooDeep, "{groups}");
        }
        assert_eq!(
            message(&nested(MAX_DEPTH + 1)).0,
            format!("where{}.and", ".and[0]".repeat(MAX_DEPTH))
        );
    }

    #[test]
    fn messages_say_what_to_do() {
        let p = parse_text(r#"{"where":{"key":"A","operator":"neq","value":"x"}}"#).unwrap_err();
        assert!(
            p[0].message.starts_with("unknown operator `neq`; did you mean `!eq`?"),
            "{}",
            p[0].message
        );
        let p = parse_text(r#"{"where":{"key":"A","operator":"eq","value":["x"]}}"#).unwrap_err();
        assert_eq!(
            p[0].message,
            "`eq` takes one value, not an array; for a set of values use `in`"
        );
        let p = parse_text(r#"{"wehre":{}}"#).unwrap_err();
        assert_eq!(
            p[1].message,
            "a filter has one member, `where`; `wehre` is not allowed; did you mean `where`?"
        );
        let p = parse_text("nope").unwrap_err();
        assert!(p[0].message.starts_with("the filter is not JSON: "), "{}", p[0].message);
    }

    /// What no message or path may hold: a character a terminal acts on, or one that
    /// changes how the rest of the line reads.
    fn assert_printable(what: &str) {
        assert!(
            !what.chars().any(|c| c.is_control()
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')),
            "{what:?}"
        );
    }

    /// Issue 22, item 13 (the same class in the JSON form): member names, operators, keys
    /// and values written with JSON escapes reach every message and path escaped.
    #[test]
    fn control_characters_of_the_input_are_escaped_in_paths_and_messages() {
        let text = r#"{"where":{"and":[
            {"key":"A","operator":"in\u001b","value":["a"]},
            {"key":"B","operator":"eq","value":"x","\u001b[2J\u202e":1},
            {"key":"C","operator":"in","value":"\u001b[31m\r\u2028"},
            {"key":"D","operator":"lt","value":"\u0085\u009b"}
        ]},"w\u200bhere\r":1}"#;
        let problems = parse_text(text).unwrap_err();
        assert_eq!(problems.len(), 5, "{problems:?}");
        for p in &problems {
            assert_printable(&p.path);
            assert_printable(&p.message);
            assert_printable(&p.to_string());
        }
        // The unknown member of the filter comes first: it is found before `where` is read.
        assert_eq!(problems[0].path, r"w\u200bhere\r");
        assert_eq!(problems[1].message, r"unknown operator `in\u001b`; did you mean `in`?");
        assert_eq!(problems[2].path, r"where.and[1].\u001b[2J\u202e");
        assert!(
            problems[3].message.contains(r#"like ["\u001b[31m\r\u2028"]"#),
            "{}",
            problems[3].message
        );
        assert!(
            problems[4].message.contains(r#""\u0085\u009b" is not an integer"#),
            "{}",
            problems[4].message
        );
    }

    /// Issue 22, item 16: `in` with one string of comma-separated values is told the list
    /// it probably meant (a one-element set of that text would match neither value).
    #[test]
    fn in_with_a_comma_separated_string_suggests_the_list() {
        let message = |op: &str, value: &str| {
            let text = format!(r#"{{"where":{{"key":"A","operator":"{op}","value":{value}}}}}"#);
            parse_text(&text).unwrap_err()[0].message.clone()
        };
        let m = message("in", r#""200,201""#);
        assert!(
            m.starts_with(r#"`in` takes an array of values, like ["200", "201"]"#),
            "{m}"
        );
        assert!(m.contains(r#"["200,201"] is a set of one value"#), "{m}");
        assert!(message("!in", r#"" cn , ru,""#).starts_with(r#"`!in` takes an array of values, like ["cn", "ru"]"#));
        // One value: the set of that value, as before.
        assert_eq!(
            message("in", r#""200""#),
            r#"`in` takes an array of values, like ["200"]"#
        );
        assert_eq!(message("in", "200"), "`in` takes an array of values, like [200]");
        assert_eq!(message("in", r#"",""#), r#"`in` takes an array of values, like [","]"#);
        // The array written as a string: the array.
        let m = message("in", r#""[200, \"a\", true]""#);
        assert!(
            m.starts_with(r#"`in` takes an array of values, like [200, "a", true]"#),
            "{m}"
        );
    }

    /// Issue 22, item 16: `~`, the C-like "contains" of Cloudflare's older filters page,
    /// gets its name, not only the list of operators.
    #[test]
    fn the_older_docs_operator_names_get_their_current_name() {
        for (given, meant) in [
            ("~", "contains"),
            ("==", "eq"),
            ("!=", "!eq"),
            ("<=", "leq"),
            ("gte", "geq"),
        ] {
            let text = format!(r#"{{"where":{{"key":"A","operator":"{given}","value":"1"}}}}"#);
            let m = parse_text(&text).unwrap_err()[0].message.clone();
            assert_eq!(m, format!("unknown operator `{given}`; did you mean `{meant}`?"));
        }
    }
}
