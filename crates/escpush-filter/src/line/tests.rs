//! Unit tests of the line evaluator: every module of it, against each other and the tree evaluator.

use super::eval::cmp_int_text;
use super::lexer::number_end;
use super::program;
use super::sets::same;
use super::*;
use crate::{field, Condition, Expr, Operator, Scalar, Value};
use proptest::prelude::*;

fn check(filter: &Filter, line: &str) -> Result<bool, MalformedLine> {
    filter.compile().matches_line(line.as_bytes())
}

fn reason(filter: &Filter, line: &[u8]) -> (usize, Malformation) {
    let err = filter.compile().matches_line(line).unwrap_err();
    (err.offset, err.reason)
}

#[test]
fn only_top_level_keys_count_and_the_last_one_wins() {
    let f = field("A").eq("x");
    assert_eq!(check(&f, r#"{"B":{"A":"x"},"C":[{"A":"x"}]}"#), Ok(false));
    assert_eq!(check(&f, r#"{"B":"\"A\":\"x\"","A":"y"}"#), Ok(false));
    assert_eq!(check(&f, r#"{"A":"x","A":"y"}"#), Ok(false));
    assert_eq!(check(&f, r#"{"A":"y","A":"x"}"#), Ok(true));
    assert_eq!(check(&f, r#"{"A":"x","A":null}"#), Ok(false));
    assert_eq!(check(&field("A").ne("x"), r#"{"A":"x","A":null}"#), Ok(true));
    assert_eq!(check(&f, r#" { "A" : "x" } "#), Ok(true));
}

#[test]
fn keys_and_values_compare_unescaped() {
    let f = field("ClientRequestHost").eq("é\"/\u{1F600}");
    assert_eq!(
        check(&f, r#"{"Client\u0052equestHost":"\u00e9\"\/\ud83d\ude00"}"#),
        Ok(true)
    );
    assert_eq!(check(&f, "{\"ClientRequestHost\":\"é\\\"/\u{1F600}\"}"), Ok(true));
    let lone = r#"{"A":"ab\ud800cd"}"#;
    assert_eq!(check(&field("A").starts_with("ab"), lone), Ok(true));
    assert_eq!(check(&field("A").ends_with("cd"), lone), Ok(true));
    assert_eq!(check(&field("A").contains("b"), lone), Ok(true));
    assert_eq!(check(&field("A").eq("abcd"), lone), Ok(false));
    assert_eq!(check(&field("A").eq("\t"), "{\"A\":\"\\t\"}"), Ok(true));
}

#[test]
fn numbers_in_every_form() {
    let eq = |v: &str, line: &str| check(&field("N").eq(v), line).unwrap();
    assert!(eq("200", r#"{"N":200}"#));
    assert!(eq("0", r#"{"N":-0}"#));
    assert!(!eq("-0", r#"{"N":-0}"#));
    assert!(!eq("200", r#"{"N":200.0}"#));
    assert!(!eq("200", r#"{"N":2e2}"#));
    assert!(eq(
        "123456789012345678901234567890",
        r#"{"N":123456789012345678901234567890}"#
    ));
    let cmp = |f: Filter, line: &str| check(&f, line).unwrap();
    assert!(cmp(field("N").ge(200), r#"{"N":2e2}"#));
    assert!(cmp(field("N").lt(0), r#"{"N":-1e400}"#));
    assert!(cmp(field("N").gt(i64::MAX), r#"{"N":1e400}"#));
    assert!(cmp(
        field("N").gt(i64::MAX),
        r#"{"N":99999999999999999999999999999999999999999}"#
    ));
    assert!(cmp(
        field("N").lt(i64::MIN),
        r#"{"N":-99999999999999999999999999999999999999999}"#
    ));
    assert!(cmp(field("N").le(0), r#"{"N":-0.0}"#));
    assert!(!cmp(field("N").lt(0), r#"{"N":-0.0}"#));
    assert!(!cmp(field("N").gt(0), r#"{"N":true}"#));
    assert!(!cmp(field("N").gt(0), r#"{"N":"5"}"#));
}

#[test]
fn arrays_compare_elements() {
    let line = r#"{"A":["waf",7,true,null,1.5,[1],{"a":"waf"},"r\u0061te"]}"#;
    assert_eq!(check(&field("A").contains("waf"), line), Ok(true));
    assert_eq!(check(&field("A").contains("wa"), line), Ok(false));
    assert_eq!(check(&field("A").contains("rate"), line), Ok(true));
    assert_eq!(check(&field("A").contains(7), line), Ok(true));
    assert_eq!(check(&field("A").is_in(["true"]), line), Ok(true));
    assert_eq!(check(&field("A").is_in(["1.5", "1", "a"]), line), Ok(false));
    assert_eq!(check(&field("A").not_in(["x"]), line), Ok(true));
    assert_eq!(check(&field("A").eq("waf"), line), Ok(false));
    assert_eq!(check(&field("A").contains("x"), r#"{"A":[]}"#), Ok(false));
    assert_eq!(check(&field("A").contains("x"), r#"{"A":{"x":"x"}}"#), Ok(false));
}

#[test]
fn malformed_lines_say_where_and_why() {
    let f = field("A").eq("x");
    assert_eq!(reason(&f, b""), (0, Malformation::NotAnObject));
    assert_eq!(reason(&f, b"[1]"), (0, Malformation::NotAnObject));
    assert_eq!(reason(&f, br#"{"A":"x"} x"#), (10, Malformation::TrailingData));
    assert_eq!(reason(&f, br#"{"A":"x""#), (8, Malformation::UnexpectedEnd));
    assert_eq!(reason(&f, br#"{"A":"x"#), (7, Malformation::UnexpectedEnd));
    assert_eq!(
        reason(&f, br#"{"A" "x"}"#),
        (5, Malformation::Expected("`:` after a key"))
    );
    assert_eq!(
        reason(&f, br#"{"B":01}"#),
        (6, Malformation::Expected("`,` or `}` after a value"))
    );
    assert_eq!(reason(&f, br#"{"B":1.}"#), (7, Malformation::InvalidNumber));
    assert_eq!(reason(&f, br#"{"B":NaN}"#), (5, Malformation::Expected("a value")));
    assert_eq!(reason(&f, br#"{"B":tru}"#), (5, Malformation::InvalidLiteral));
    assert_eq!(reason(&f, br#"{"B":"\x"}"#), (6, Malformation::InvalidEscape));
    assert_eq!(reason(&f, b"{\"B\":\"a\tb\"}"), (7, Malformation::ControlCharacter));
    assert_eq!(reason(&f, b"{\"B\":\"\xff\"}"), (6, Malformation::NotUtf8));
    assert_eq!(reason(&f, br#"{"B":[1,]}"#), (8, Malformation::Expected("a value")));
    assert_eq!(
        reason(&f, br#"{"B":{"c":1]}"#),
        (11, Malformation::Expected("`,` or `}` after a value"))
    );
    assert_eq!(
        reason(&f, br#"{"B":[[[]]}"#),
        (10, Malformation::Expected("`,` or `]` after a value"))
    );
    assert_eq!(
        reason(&f, br#"{"B":{1:2}}"#),
        (6, Malformation::Expected("a key (a string)"))
    );
    assert_eq!(reason(&f, br"{,}"), (1, Malformation::Expected("a key (a string)")));
    assert_eq!(
        MalformedLine::at(3, Malformation::InvalidNumber).to_string(),
        "byte 3: an invalid number"
    );
    // Tab and CR are whitespace outside strings.
    assert_eq!(check(&f, "\t{\"A\" :\t\"x\"}\r"), Ok(true));
}

#[test]
fn numbers_end_where_the_grammar_says_whatever_byte_follows() {
    // The 8-bytes-at-a-time path against a byte-by-byte reading of the grammar.
    for prefix in ["1", "12", "1234567", "12345678", "-1", "0", "10"] {
        for b in 0..=255u8 {
            let mut line = prefix.as_bytes().to_vec();
            line.push(b);
            line.extend_from_slice(b"9,\"x\":1}");
            let digits = line
                .iter()
                .skip(usize::from(prefix.starts_with('-')))
                .take_while(|c| c.is_ascii_digit())
                .count();
            let end = digits + usize::from(prefix.starts_with('-'));
            let got = number_end(&line, 0);
            if prefix.starts_with('0') && digits > 1 {
                assert_eq!(got, Ok((1, true)), "{prefix} {b:#x}: 0 then more digits ends at the 0");
            } else if matches!(line[end], b'.' | b'e' | b'E') {
                assert!(got.is_err() || !got.unwrap().1, "{prefix} {b:#x}");
            } else {
                assert_eq!(got, Ok((end, true)), "{prefix} {b:#x}");
            }
        }
    }
}

#[test]
fn keys_of_every_length_are_found() {
    for n in (1..=70).chain([200]) {
        let key = "k".repeat(n);
        let f = field(&*key).eq("x") | field(&*"k".repeat(n + 1)).eq("y");
        let line = format!(
            r#"{{"{}":"z","{key}":"x","{}":"x"}}"#,
            "k".repeat(n.saturating_sub(1)),
            "j".repeat(n)
        );
        assert_eq!(check(&f, &line), Ok(true), "{n}");
        assert_eq!(check(&f, &line.replace(":\"x\"", ":\"w\"")), Ok(false), "{n}");
    }
}

#[test]
fn short_comparisons_agree_with_slice_equality() {
    for n in 0..40u8 {
        let a: Vec<u8> = (1..=n).collect();
        assert!(same(&a, &a.clone()));
        assert!(!same(&a, &(0..=n).collect::<Vec<u8>>()), "lengths differ");
        for i in 0..a.len() {
            let mut b = a.clone();
            b[i] ^= 0x20;
            assert!(!same(&a, &b), "{n} bytes, byte {i} differs");
        }
    }
}

#[test]
fn integer_texts_compare_with_bounds_whatever_their_length() {
    let texts = [
        "0",
        "-0",
        "7",
        "-7",
        "999999999999999999",
        "-999999999999999999",
        "1000000000000000000",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "-123456789012345678901234567890",
    ];
    for text in texts {
        let n: i128 = text.parse().unwrap();
        for bound in [i64::MIN, -8, -7, -1, 0, 1, 7, 999_999_999_999_999_999, i64::MAX] {
            assert_eq!(
                cmp_int_text(text.as_bytes(), bound),
                n.cmp(&i128::from(bound)),
                "{text} {bound}"
            );
        }
    }
}

#[test]
fn blank_lines() {
    assert!(is_blank(b"") && is_blank(b" \t\r") && !is_blank(b" {}"));
}

#[test]
fn deep_nesting_needs_no_recursion() {
    let deep = format!(r#"{{"B":{}{},"A":"x"}}"#, "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(check(&field("A").eq("x"), &deep), Ok(true));
}

/// Ways of writing a JSON value, valid or nearly: nested containers, escapes, control
/// characters, non-ASCII, numbers in every form, whitespace.
fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just(r#""x""#.to_owned()),
        Just(r#""""#.to_owned()),
        Just(r#""a\"b\\c\u00e9\/""#.to_owned()),
        Just("\"tab\there\"".to_owned()),
        Just(r#""é€😀""#.to_owned()),
        Just("-0".to_owned()),
        Just("12345678901".to_owned()),
        Just("2.5e-3".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("null".to_owned()),
        "[a-z0-9 ]{0,70}".prop_map(|s| format!("\"{s}\"")),
        any::<i64>().prop_map(|n| n.to_string()),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            proptest::collection::vec((prop_oneof![Just("A"), Just("B"), Just("k")], inner), 0..4).prop_map(
                |members| {
                    let members: Vec<String> = members.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                    format!("{{{}}}", members.join(","))
                }
            ),
        ]
    })
}

/// A top-level object of such members, then a few bytes changed: inserted fragments
/// (quotes, backslashes, brackets, control characters) and deleted bytes.
fn json_line() -> impl Strategy<Value = Vec<u8>> {
    let key = prop_oneof![Just("A"), Just("B"), Just("C"), Just(r"\u0041"), Just("x")];
    let member = (
        key,
        json_value(),
        prop_oneof![3 => Just(""), 1 => Just(" "), 1 => Just("\t")],
    );
    let fragment = prop_oneof![
        Just(&b"\""[..]),
        Just(&b"\\"[..]),
        Just(&b"{"[..]),
        Just(&b"]"[..]),
        Just(&b","[..]),
        Just(&b":"[..]),
        Just(&b"\x01"[..]),
        Just(&b"\n"[..]),
        Just(&b" "[..]),
        Just(&b"\xc3"[..]),
    ];
    let edit = (any::<prop::sample::Index>(), proptest::option::of(fragment));
    (
        proptest::collection::vec(member, 0..8),
        proptest::collection::vec(edit, 0..3),
        any::<bool>(),
    )
        .prop_map(|(members, edits, pad)| {
            let members: Vec<String> = members
                .iter()
                .map(|(k, v, ws)| format!("{ws}\"{k}\"{ws}:{ws}{v}{ws}"))
                .collect();
            let mut line = format!("{{{}}}", members.join(",")).into_bytes();
            if pad {
                // Past the 64-byte blocks' ends as well.
                line.splice(1..1, b" ".repeat(61).iter().copied());
            }
            for (at, fragment) in edits {
                let at = at.index(line.len() + 1);
                match fragment {
                    Some(bytes) => drop(line.splice(at..at, bytes.iter().copied())),
                    None if at < line.len() => drop(line.remove(at)),
                    None => {}
                }
            }
            line
        })
}

/// The result of evaluating `line` in `mode`, with what the walk found.
fn in_mode(f: &mut CompiledFilter, line: &[u8], mode: u8) -> (Result<bool, MalformedLine>, Vec<Span>) {
    let (quotes, _) = stage1::index(line, &mut f.quotes);
    let result = f.evaluate(line, mode, quotes);
    (result, f.spans.clone())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Every way of reading strings that suits a line's bytes gives the same result,
    /// spans and malformation (byte offset and reason) as the careful one, which checks
    /// every byte; and `matches_line` picks one of them.
    #[test]
    fn every_mode_that_suits_a_line_reads_it_the_same(line in json_line()) {
        let filter = field("A").eq("x") | field("B").ge(5) | field("C").contains("y") | field("k").is_in(["true"]);
        let mut f = filter.compile();
        let careful = in_mode(&mut f, &line, CAREFUL);
        if std::str::from_utf8(&line).is_ok() {
            prop_assert_eq!(f.matches_line(&line), careful.0);
        }
        let (_, bytes) = stage1::index(&line, &mut f.quotes);
        if !bytes.control {
            prop_assert_eq!(&in_mode(&mut f, &line, ESCAPES), &careful);
            if !bytes.backslash {
                prop_assert_eq!(&in_mode(&mut f, &line, PLAIN), &careful);
                prop_assert_eq!(&in_mode(&mut f, &line, INDEXED), &careful);
            }
        }
    }
}

#[test]
fn lines_too_long_for_the_quote_list_are_read_the_same() {
    let f = field("A").eq("x") & field("B").contains("y");
    let filler = "z".repeat(stage1::MAX_LINE);
    for (line, expected) in [
        (format!(r#"{{"B":"y{filler}","A":"x"}}"#), Ok(true)),
        (format!(r#"{{"B":"{filler}","A":"x"}}"#), Ok(false)),
        (
            format!(r#"{{"B":"y{filler}","A":"x"#),
            Err((stage1::MAX_LINE + 15, Malformation::UnexpectedEnd)),
        ),
    ] {
        assert!(line.len() > stage1::MAX_LINE);
        let got = check(&f, &line).map_err(|e| (e.offset, e.reason));
        assert_eq!(got, expected);
    }
}

/// Values chosen to meet each other: prefixes, suffixes and substrings of one another,
/// numbers and their texts, booleans, the empty string.
const CLOSE: [&str; 13] = [
    "", "a", "b", "ab", "ba", "aba", "bab", "abab", "é", "5", "-3", "200", "true",
];

/// A condition on `A` (mostly) or `B`: every operator, values that meet.
fn crowded_condition() -> impl Strategy<Value = Condition> {
    let scalar = prop_oneof![
        prop::sample::select(CLOSE.to_vec()).prop_map(Scalar::from),
        prop::sample::select(vec![-3i64, 0, 5, 199, 200, 201]).prop_map(Scalar::Int),
        any::<bool>().prop_map(Scalar::Bool),
    ];
    (
        prop_oneof![4 => Just("A"), 1 => Just("B")],
        prop::sample::select(Operator::ALL.to_vec()),
        scalar.clone(),
        prop::collection::vec(scalar, 1..6),
        prop::sample::select(vec![-3i64, 0, 5, 199, 200, 201, i64::MIN, i64::MAX]),
    )
        .prop_map(|(key, op, one, set, n)| {
            let value = if op.takes_set() {
                Value::Set(set)
            } else if op.is_numeric() {
                Value::Scalar(Scalar::Int(n))
            } else {
                Value::Scalar(one)
            };
            Condition::new(key, op, value).expect("generated conditions are well formed")
        })
}

/// The JSON text of a value of `A` or `B` (written as serde_json reads it like `json.loads`:
/// no `-0`, no integers beyond 64 bits): the close values as strings (some escaped), numbers,
/// floats, booleans, null, arrays of them, objects.
fn crowded_value() -> impl Strategy<Value = String> {
    let scalar = prop_oneof![
        prop::sample::select(CLOSE.to_vec()).prop_map(|s| format!("\"{s}\"")),
        prop::sample::select(vec![r#""\u0061b""#, r#""a\u0062a""#, r#""x\"aba""#, r#""\u00e9""#])
            .prop_map(str::to_owned),
        prop::sample::select(vec![
            "-3", "0", "5", "199", "200", "201", "200.0", "199.5", "2e2", "-3.0", "true", "false", "null"
        ])
        .prop_map(str::to_owned),
    ];
    prop_oneof![
        4 => scalar.clone(),
        2 => prop::collection::vec(scalar, 0..5).prop_map(|v| format!("[{}]", v.join(","))),
        1 => Just(r#"{"A":"a"}"#.to_owned()),
    ]
}

/// Filters of many conditions on the same field: 10 to 60 small trees of nested `and` and
/// `or` under an `and` or an `or` (often more than 64 conditions on one field, which then
/// needs two groups).
fn crowded_filter() -> impl Strategy<Value = Expr> {
    let tree = crowded_condition()
        .prop_map(Expr::Condition)
        .prop_recursive(2, 8, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 1..4).prop_map(Expr::And),
                proptest::collection::vec(inner, 1..4).prop_map(Expr::Or),
            ]
        });
    (proptest::collection::vec(tree, 10..60), any::<bool>()).prop_map(|(items, and)| {
        if and {
            Expr::And(items)
        } else {
            Expr::Or(items)
        }
    })
}

/// The leaves of the compiled tree, in the order of the filter's conditions.
fn leaves<'a>(node: &'a program::Node, out: &mut Vec<&'a program::Node>) {
    match node {
        program::Node::All(items) | program::Node::Any(items) => items.iter().for_each(|n| leaves(n, out)),
        leaf => out.push(leaf),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// The conditions on a field are compiled together (a set of texts for `eq` and `in`,
    /// one search for several substrings, prefixes and suffixes by length, one reading of a
    /// number for all comparisons; more than 64 of them in several groups). Each must still
    /// hold exactly when it holds alone by `Filter::matches`: missing fields, null, type
    /// mismatches and negations included; and the whole filter, its `and` and `or` run as
    /// jump code, exactly when `Filter::matches` says so.
    #[test]
    fn each_condition_compiled_per_field_holds_as_it_does_alone(
        expr in crowded_filter(),
        members in proptest::collection::vec((prop_oneof![Just("A"), Just("B"), Just("C")], crowded_value()), 0..4),
    ) {
        let filter = Filter::new(expr).unwrap();
        let mut f = filter.compile();
        let members: Vec<String> = members.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        let line = format!("{{{}}}", members.join(","));
        let masks = f.masks(line.as_bytes()).unwrap();
        let record: serde_json::Value = serde_json::from_str(&line).unwrap();
        let conditions = filter.expr().conditions();
        let mut compiled = Vec::new();
        leaves(&f.program.root, &mut compiled);
        prop_assert_eq!(compiled.len(), conditions.len());
        for (condition, leaf) in conditions.into_iter().zip(compiled) {
            let alone = Filter::new(Expr::Condition(condition.clone())).unwrap().matches(&record);
            let got = match *leaf {
                program::Node::Test { group, bit, negated } => (masks[group] >> bit & 1 == 1) != negated,
                program::Node::Const(value) => value,
                _ => unreachable!("`leaves` takes only tests and constants"),
            };
            prop_assert_eq!(got, alone, "{:?} on {}", condition, line);
        }
        prop_assert_eq!(f.matches_line(line.as_bytes()), Ok(filter.matches(&record)), "{} on {}", filter, line);
    }
}

/// The conditions of one field under the same `and` (or `or`) are one step of the jump code,
/// tested together: the 30-condition filter of the benchmark, on 11 fields, is 11 steps. A
/// condition beside its own negation cannot share a step, and keeps the answer.
#[test]
fn conditions_of_a_field_in_one_and_or_or_are_one_step() {
    let g_and30 = include_str!("../../../../benches/data/filters/g_and30.json");
    let f = Filter::parse(g_and30).unwrap().compile();
    assert_eq!(f.program.code.len(), 11);
    let both = |e: Filter| e.compile().program.code.len();
    let three = field("A").eq("x") & field("A").ne("y") & field("A").contains("z");
    assert_eq!(both(three.clone()), 1);
    assert_eq!(
        both(field("A").eq("x") | field("A").ne("y") | field("A").contains("z")),
        1
    );
    // A condition and its negation: two steps, and the answers of `and` (never) and `or`
    // (always, when the field is there or not).
    let never = field("A").eq("x") & field("B").eq("y") & field("A").ne("x");
    let always = field("A").eq("x") | field("B").eq("y") | field("A").ne("x");
    assert_eq!(both(never.clone()), 3);
    for line in [r#"{"A":"x","B":"y"}"#, r#"{"A":"z","B":"y"}"#, r#"{"B":"y"}"#, "{}"] {
        assert_eq!(check(&never, line), Ok(false), "{line}");
        assert_eq!(check(&always, line), Ok(true), "{line}");
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(check(&three, line), Ok(three.matches(&record)), "{line}");
    }
}
