//! The compiled line evaluator (the only `unsafe` of escpush-core lives in its first pass)
//! against the tree evaluator: on any line that serde_json reads as an object, both give
//! the same answer, and the line evaluator never calls such a line malformed.
//!
//! The input is a filter of 1 to 16 conditions made from the first bytes (fields `a`, `b`,
//! `c`, every operator, a few values of each type, several of them prefixes, suffixes and
//! substrings of one another, so that the conditions on a field are compiled together: sets
//! of texts, several substrings in one search), then the line. Lines where the two evaluators
//! differ by design are skipped: integers beyond 64 bits and `-0` (serde_json reads them
//! as floats, `json.loads` and the line evaluator as integers).
#![no_main]

use escpush_filter::Filter;
use escpush_filter::{field, Operator, Scalar, Value};
use libfuzzer_sys::fuzz_target;

const KEYS: [&str; 3] = ["a", "b", "c"];

fn scalar(byte: u8) -> Scalar {
    match byte % 14 {
        0 => Scalar::from("x"),
        1 => Scalar::from("5"),
        2 => Scalar::from(""),
        3 => Scalar::from("true"),
        4 => Scalar::from("ab"),
        5 => Scalar::Int(5),
        6 => Scalar::Int(-3),
        7 => Scalar::Int(200),
        8 => Scalar::Bool(true),
        9 => Scalar::Bool(false),
        10 => Scalar::from("a"),
        11 => Scalar::from("b"),
        12 => Scalar::from("aba"),
        _ => Scalar::from("ba"),
    }
}

/// A filter of 1 to 16 conditions from the first bytes, and the rest of the input.
fn filter(data: &[u8]) -> Option<(Filter, &[u8])> {
    let (&head, mut rest) = data.split_first()?;
    let mut out: Option<Filter> = None;
    for _ in 0..=(head % 16) {
        let [k, o, v, w, tail @ ..] = rest else { return None };
        rest = tail;
        let operator = Operator::ALL[usize::from(*o) % Operator::ALL.len()];
        let value = if operator.takes_set() {
            Value::Set(vec![scalar(*v), scalar(*w)])
        } else if operator.is_numeric() {
            Value::Scalar(Scalar::Int(i64::from(*v as i8)))
        } else {
            Value::Scalar(scalar(*v))
        };
        let condition = field(KEYS[usize::from(*k) % KEYS.len()]).op(operator, value).ok()?;
        out = Some(match out {
            None => condition,
            Some(f) if k & 0x80 == 0 => f & condition,
            Some(f) => f | condition,
        });
    }
    Some((out?, rest))
}

fn differs_by_design(line: &[u8]) -> bool {
    let mut digits = 0;
    for (i, &b) in line.iter().enumerate() {
        if b == b'-' && line.get(i + 1) == Some(&b'0') {
            return true;
        }
        digits = if b.is_ascii_digit() { digits + 1 } else { 0 };
        if digits > 18 {
            return true;
        }
    }
    false
}

fuzz_target!(|data: &[u8]| {
    let Some((filter, line)) = filter(data) else { return };
    let compiled = filter.compile().matches_line(line);
    let Ok(record @ serde_json::Value::Object(_)) = serde_json::from_slice::<serde_json::Value>(line) else {
        return;
    };
    if differs_by_design(line) {
        return;
    }
    let tree = filter.matches(&record);
    match compiled {
        Ok(matched) => assert_eq!(matched, tree, "{} on {}", filter, String::from_utf8_lossy(line)),
        Err(err) => panic!("{err} on a line serde_json reads: {}", String::from_utf8_lossy(line)),
    }
});
