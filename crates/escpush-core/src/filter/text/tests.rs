use crate::dataset::Dataset;
use crate::filter::{field, Filter};
use crate::problem::ProblemCode;

fn t(text: &str) -> Filter {
    Filter::from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn j(json: &str) -> Filter {
    Filter::parse(json).unwrap()
}

fn err(text: &str) -> super::TextError {
    Filter::from_text(text).expect_err(text)
}

#[test]
fn the_issue_examples_read_as_their_json() {
    let f = t(r#"EdgeResponseStatus >= 500 and ClientRequestHost endsWith ".example.com""#);
    assert_eq!(
        f.to_json(),
        r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":500},{"key":"ClientRequestHost","operator":"endsWith","value":".example.com"}]}}"#
    );
    let g =
        t(r#"(ClientCountry in ["cn", "ru"] or ClientASN == 13335) and not ClientRequestPath startsWith "/health""#);
    assert_eq!(
        g.to_json(),
        r#"{"where":{"and":[{"or":[{"key":"ClientCountry","operator":"in","value":["cn","ru"]},{"key":"ClientASN","operator":"eq","value":13335}]},{"key":"ClientRequestPath","operator":"!startsWith","value":"/health"}]}}"#
    );
    assert_eq!(
        g.to_text(),
        r#"(ClientCountry in ["cn", "ru"] or ClientASN == 13335) and ClientRequestPath !startsWith "/health""#
    );
}

#[test]
fn every_operator_spelling() {
    let cases = [
        ("A eq 1", "eq"),
        ("A == 1", "eq"),
        ("A !eq 1", "!eq"),
        ("A != 1", "!eq"),
        ("A ne 1", "!eq"),
        ("A lt 1", "lt"),
        ("A < 1", "lt"),
        ("A leq 1", "leq"),
        ("A le 1", "leq"),
        ("A <= 1", "leq"),
        ("A gt 1", "gt"),
        ("A > 1", "gt"),
        ("A geq 1", "geq"),
        ("A ge 1", "geq"),
        ("A >= 1", "geq"),
        ("A startsWith \"x\"", "startsWith"),
        ("starts_with(A, \"x\")", "startsWith"),
        ("A endsWith \"x\"", "endsWith"),
        ("ends_with(A, \"x\")", "endsWith"),
        ("A !startsWith \"x\"", "!startsWith"),
        ("not starts_with(A, \"x\")", "!startsWith"),
        ("A !endsWith \"x\"", "!endsWith"),
        ("A contains \"x\"", "contains"),
        ("A !contains \"x\"", "!contains"),
        ("A not contains \"x\"", "!contains"),
        ("A in [1, 2]", "in"),
        ("A in {1 2}", "in"),
        ("A !in [1]", "!in"),
        ("A not in [1]", "!in"),
        ("A NOT in {\"a\" \"b\"}", "!in"),
    ];
    for (text, op) in cases {
        let f = t(text);
        assert_eq!(f.expr().conditions()[0].operator().as_str(), op, "{text}");
        assert_eq!(t(&f.to_text()), f, "{text}");
    }
}

#[test]
fn precedence_parentheses_and_case() {
    assert_eq!(t("A == 1 or B == 2 and C == 3"), t("A == 1 OR (B == 2 AND C == 3)"));
    assert_eq!(t("A == 1 || B == 2 && C == 3"), t("A == 1 or (B == 2 and C == 3)"));
    let nested = t("(A == 1 or B == 2) or C == 3");
    assert_eq!(
        nested,
        j(
            r#"{"where":{"or":[{"or":[{"key":"A","operator":"eq","value":1},{"key":"B","operator":"eq","value":2}]},{"key":"C","operator":"eq","value":3}]}}"#
        )
    );
    assert_eq!(nested.to_text(), "(A == 1 or B == 2) or C == 3");
    assert_eq!(t("((A == 1))"), t("A == 1"));
    let one = j(r#"{"where":{"and":[{"or":[{"key":"A","operator":"eq","value":"1"}]}]}}"#);
    assert_eq!(one.to_text(), r#"and(or(A == "1"))"#);
    assert_eq!(t(&one.to_text()), one);
    assert_eq!(t("A == \"x\" # a comment\n and B == 2"), t("A == \"x\" and B == 2"));
}

#[test]
fn values_keep_their_type_and_keys_their_spelling() {
    let f = t(r#"A == "500" and A == 500 and A == true and A == "true" and A in ["1", 1, false]"#);
    assert_eq!(
        f.to_text(),
        r#"A == "500" and A == 500 and A == true and A == "true" and A in ["1", 1, false]"#
    );
    let odd = field("not").eq("x") & field("a b").eq("y") & field("é").eq("z") & field("http.request.uri").eq("-1");
    assert_eq!(
        odd.to_text(),
        r#""not" == "x" and "a b" == "y" and "é" == "z" and http.request.uri == "-1""#
    );
    assert_eq!(t(&odd.to_text()), odd);
    assert_eq!(t(r#"A == "tab\tq\"\u00e9""#), field("A").eq("tab\tq\"é"));
}

#[test]
fn not_is_pushed_down_where_exact() {
    assert_eq!(
        t("not (A == 1 or B startsWith \"x\")"),
        t("A != 1 and B !startsWith \"x\"")
    );
    assert_eq!(t("not (A == 1 and not B in [1])"), t("A != 1 or B in [1]"));
    assert_eq!(t("not not A < 5"), t("A < 5"));
    assert_eq!(t("!(A contains \"x\")"), t("A !contains \"x\""));
    assert_eq!(
        t("not and(A == 1)"),
        j(r#"{"where":{"or":[{"key":"A","operator":"!eq","value":1}]}}"#)
    );
    let e = err("B == 1 and not (A < 5)");
    assert_eq!((e.line, e.column), (1, 12));
    assert!(e.message.contains("a record without `A`"), "{}", e.message);
    assert!(err("A not lt 5").message.contains("no exact form"));
}

#[test]
fn errors_have_a_position_a_caret_and_a_suggestion() {
    let cases: &[(&str, usize, ProblemCode, &str)] = &[
        ("A >== 5", 3, ProblemCode::UnknownOperator, "did you mean `>=`?"),
        ("A gte 5", 3, ProblemCode::UnknownOperator, "did you mean `geq`?"),
        ("A neq 5", 3, ProblemCode::UnknownOperator, "did you mean `!eq`?"),
        (
            "A endswith \"x\"",
            3,
            ProblemCode::UnknownOperator,
            "did you mean `endsWith`?",
        ),
        ("A = 5", 3, ProblemCode::UnknownOperator, "did you mean `==`?"),
        (
            "A matches \"x.*\"",
            3,
            ProblemCode::Unsupported,
            "no regular expressions",
        ),
        ("A ~ \"x.*\"", 3, ProblemCode::Unsupported, "no regular expressions"),
        ("A wildcard \"x*\"", 3, ProblemCode::Unsupported, "wildcards"),
        (
            "lower(A) == \"x\"",
            1,
            ProblemCode::Unsupported,
            "no functions such as `lower(...)`",
        ),
        ("A == 1.5", 6, ProblemCode::InvalidValue, "not an integer"),
        ("A == 99999999999999999999", 6, ProblemCode::IntegerOutOfRange, "64-bit"),
        ("A == abc", 6, ProblemCode::InvalidValue, "did you mean \"abc\"?"),
        ("A == 'abc'", 6, ProblemCode::InvalidSyntax, "double quotes"),
        ("A == \"abc", 6, ProblemCode::InvalidSyntax, "not closed"),
        ("A == \"\\q\"", 6, ProblemCode::InvalidValue, "not valid"),
        ("(A == 1", 1, ProblemCode::InvalidSyntax, "not closed"),
        ("A == 1)", 7, ProblemCode::InvalidSyntax, "closes no"),
        ("A == 1 B == 2", 8, ProblemCode::InvalidSyntax, "expected `and`, `or`"),
        ("A == 1 and", 11, ProblemCode::InvalidSyntax, "expected a condition"),
        ("A", 2, ProblemCode::InvalidSyntax, "expected an operator after `A`"),
        ("A in []", 6, ProblemCode::EmptySet, "at least one value"),
        ("A in \"x\"", 6, ProblemCode::InvalidValue, "takes an array"),
        ("A == [1]", 6, ProblemCode::InvalidValue, "for a set of values use `in`"),
        ("A < \"x\"", 5, ProblemCode::NotAnInteger, "not an integer"),
        ("A in [1 2]", 9, ProblemCode::InvalidSyntax, "expected `,`"),
        ("   ", 4, ProblemCode::EmptyExpression, "empty"),
        ("\"\" == 1", 1, ProblemCode::EmptyKey, "empty"),
    ];
    for (text, column, code, needle) in cases {
        let e = err(text);
        assert_eq!((e.line, e.column, e.code), (1, *column, *code), "{text}: {e}");
        assert!(e.message.contains(needle), "{text}: {}", e.message);
        assert!(e.caret().contains('^'));
    }
    let e = err("A == 1 and\n   B >== 5");
    assert_eq!((e.line, e.column), (2, 6));
    assert_eq!(e.caret(), "       B >== 5\n         ^^^");
    let problem = crate::problem::FilterError::from(e).problems()[0].clone();
    assert_eq!(problem.path, "line 2, column 6");
    assert!(problem.message.ends_with("^^^"));
}

#[test]
fn fields_are_checked_against_a_dataset() {
    let http = Dataset::get("http_requests", None).unwrap();
    let e = Filter::from_text_for("EdgeResponseStatus >= 500 and ClientRequestHots == \"x\"", http).unwrap_err();
    assert_eq!((e.column, e.width, e.code), (31, 17, ProblemCode::UnknownField));
    assert!(
        e.message.ends_with("did you mean `ClientRequestHost`?"),
        "{}",
        e.message
    );
    assert!(Filter::from_text_for("EdgeResponseStatus >= 500", http).is_ok());
}

#[test]
fn parse_any_reads_json_quoted_json_and_text() {
    let f = j(r#"{"where":{"key":"A","operator":"eq","value":1}}"#);
    assert_eq!(Filter::parse_any(&f.to_json()).unwrap(), f);
    assert_eq!(
        Filter::parse_any(&serde_json::to_string(&f.to_json()).unwrap()).unwrap(),
        f
    );
    assert_eq!(Filter::parse_any("A == 1").unwrap(), f);
    assert_eq!(Filter::parse_any("\"A\" == 1").unwrap(), f);
    assert_eq!(
        Filter::parse_any("{").unwrap_err().problems()[0].code,
        ProblemCode::InvalidJson
    );
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = format!("{}A == 1{}", "(".repeat(100_000), ")".repeat(100_000));
    assert_eq!(err(&deep).code, ProblemCode::TooDeep);
    let nots = format!("{}A == 1", "not ".repeat(100_000));
    assert_eq!(err(&nots).code, ProblemCode::TooDeep);
}
