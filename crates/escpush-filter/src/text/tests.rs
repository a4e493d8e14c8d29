use crate::dataset::Dataset;
use crate::problem::ProblemCode;
use crate::{field, Filter};

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
        r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":"500"},{"key":"ClientRequestHost","operator":"endsWith","value":".example.com"}]}}"#
    );
    let g =
        t(r#"(ClientCountry in ["cn", "ru"] or ClientASN == 13335) and not ClientRequestPath startsWith "/health""#);
    assert_eq!(
        g.to_json(),
        r#"{"where":{"and":[{"or":[{"key":"ClientCountry","operator":"in","value":["cn","ru"]},{"key":"ClientASN","operator":"eq","value":"13335"}]},{"key":"ClientRequestPath","operator":"!startsWith","value":"/health"}]}}"#
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
    assert_eq!(one.to_text(), "and(or(A == 1))");
    assert_eq!(t(&one.to_text()), one);
    assert_eq!(t("A == \"x\" # a comment\n and B == 2"), t("A == \"x\" and B == 2"));
}

#[test]
fn values_keep_their_type_and_keys_their_spelling() {
    let f = t(r#"A == "500" and A == 500 and A == true and A == "true" and A in ["1", 1, false]"#);
    assert_eq!(
        f.to_text(),
        // A single integer is held as its text (SPEC B.1), printed bare; sets keep their types.
        r#"A == 500 and A == 500 and A == true and A == "true" and A in ["1", 1, false]"#
    );
    let odd = field("not").eq("x") & field("a b").eq("y") & field("é").eq("z") & field("http.request.uri").eq("-1");
    assert_eq!(
        odd.to_text(),
        r#""not" == "x" and "a b" == "y" and "é" == "z" and http.request.uri == -1"#
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

/// No character of the error that a terminal acts on (ESC, BEL, CR, ...) or that changes
/// how the rest reads (bidi controls, zero-width and line separators): the message and the
/// caret line hold only printable text, line feeds between lines, and tabs.
fn assert_printable(shown: &str) {
    for c in shown.chars() {
        assert!(
            c == '\n'
                || c == '\t'
                || !(c.is_control()
                    || matches!(c, '\u{a0}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')),
            "{c:?} reaches the terminal in {shown:?}"
        );
    }
}

/// Issue 22, item 13: a bare CR, VT, FF, NEL, U+2028 or U+2029 ends a line as LF and CR LF
/// do (Unicode's mandatory breaks), so the error names the line and column an editor shows
/// and the excerpt is that line alone.
#[test]
fn every_line_break_counts_as_one() {
    for brk in ["\n", "\r\n", "\r", "\u{b}", "\u{c}", "\u{85}", "\u{2028}", "\u{2029}"] {
        let text = format!("A == 1 and{brk}  B >== 5 # x{brk}{brk}");
        let e = err(&text);
        assert_eq!((e.line, e.column, e.width), (2, 5, 3), "{brk:?}");
        assert_eq!(e.caret(), "      B >== 5 # x\n        ^^^", "{brk:?}");
        assert_eq!(e.position(), "line 2, column 5");
        // An error on the third line, after a comment ended by the same break.
        let text = format!("A == 1 # a comment{brk}and B == 2{brk} or C >== 5");
        let e = err(&text);
        assert_eq!((e.line, e.column), (3, 7), "{brk:?}: {e}");
        assert_eq!(e.caret(), "     or C >== 5\n          ^^^", "{brk:?}");
    }
    // CR LF is one break, not two; at the end of the text, the spot is after the last line.
    let e = err("A == 1 and\r\n\r\n");
    assert_eq!((e.line, e.column), (3, 1));
}

/// Issue 22, item 13: control characters of the text (an OSC title sequence here) are
/// written as escapes in the message and the caret line, and the caret stays under the
/// spot: each escape takes as many columns in the pad as it does in the line.
#[test]
fn control_characters_are_escaped_and_the_caret_stays_under_the_spot() {
    let e = err("A == 1 and \u{1b}]0;pwned\u{7} == 1");
    let shown = e.to_string();
    assert_printable(&shown);
    assert!(
        e.message.ends_with("found U+001B (a control character)"),
        "{}",
        e.message
    );
    assert_eq!(
        e.caret(),
        "    A == 1 and \\u001b]0;pwned\\u0007 == 1\n               ^^^^^^"
    );
    // A byte-order mark (text decoded without dropping it) is named.
    let e = err("\u{feff}A == 1");
    assert!(e.message.ends_with("found U+FEFF (a byte-order mark)"), "{}", e.message);
    assert_eq!(e.caret(), "    \\ufeffA == 1\n    ^^^^^^");
    // Before the spot: a bidi override, a zero-width space, a DEL, a C1 control, a
    // byte-order mark, a no-break space; each shown as its escape, the caret after them all.
    let text = "A == \"\u{202e}x\u{200b}\u{7f}\u{9b}\u{feff}\u{a0}\" and B >== 5";
    let e = err(text);
    assert_printable(&e.to_string());
    let (line, under) = e
        .caret()
        .split_once('\n')
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .unwrap();
    assert_eq!(line, r#"    A == "\u202ex\u200b\u007f\u009b\ufeff\u00a0" and B >== 5"#);
    assert_eq!(under.find('^'), line.find(">=="), "{line}\n{under}");
    assert_eq!(e.column, 22, "the column counts characters of the text as written");
}

/// The caret sits under the spot however wide the characters before it are on a terminal:
/// a CJK character takes two columns, a combining accent none, a tab is copied.
#[test]
fn the_caret_counts_terminal_columns() {
    let e = err("A == \"中文\" and\tB == \"e\u{301}\" and C >== 5");
    let (line, under) = e
        .caret()
        .split_once('\n')
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .unwrap();
    assert_eq!(line, "    A == \"中文\" and\tB == \"e\u{301}\" and C >== 5");
    assert_eq!(under, format!("    {}\t{}^^^", " ".repeat(15), " ".repeat(15)));
    // Under a wide character, the caret is as wide as it is.
    let e = err("A == 1 and 中 == 1");
    assert_eq!(e.caret(), "    A == 1 and 中 == 1\n               ^^");
}

/// A long line is cut to a window of terminal columns: a line of escapes stays short.
#[test]
fn a_long_line_of_control_characters_is_shown_in_a_short_window() {
    let text = format!("A == 1 and B == 2 and {}", "\u{1}".repeat(100_000));
    let e = err(&text);
    let caret = e.caret();
    assert_printable(&caret);
    let (line, under) = caret.split_once('\n').unwrap();
    assert!(line.chars().count() < 200, "{line}");
    assert_eq!(&line[under.find('^').unwrap()..][..6], r"\u0001");
}
