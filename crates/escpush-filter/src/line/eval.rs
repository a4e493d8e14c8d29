//! The tests of a compiled filter, run on the spans the lexer recorded for one checked line:
//! each field's conditions at once (canonical texts, number comparisons, prefixes and
//! suffixes, substrings, array elements), then the tree on their results.

use std::cmp::Ordering;

use memchr::{memchr, memchr2};

use super::super::eval::cmp_float_int;
use super::lexer::{skip_ws, unescape};
use super::program::{Group, Kind, Program, Span, NO, YES};

pub(super) struct Line<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) spans: &'a [Span],
    pub(super) decoded: &'a [Vec<u8>],
    pub(super) program: &'a Program,
    /// For each group, once known: the mask of its conditions that hold.
    pub(super) held: &'a mut [u64],
    /// Bit `g % 64` of word `g / 64`: group `g`'s mask is known (all clear for a new line).
    pub(super) known: &'a mut [u64],
    /// Scratch space for unescaped array elements.
    pub(super) buf: &'a mut Vec<u8>,
}

impl Line<'_> {
    /// Whether the line matches: the jump code from `entry` (the tree, with `and` and `or`
    /// cut short); a field's conditions are tested, all at once, the first time one of them
    /// is needed.
    pub(super) fn eval(&mut self) -> bool {
        let program = self.program;
        let mut at = program.entry;
        while at < NO {
            let jump = program.code[at as usize];
            let group = jump.group as usize;
            let (word, flag) = (group / 64, 1u64 << (group % 64));
            if self.known[word] & flag == 0 {
                self.held[group] = self.test(&program.groups[group]);
                self.known[word] |= flag;
            }
            at = if jump.holds(self.held[group]) {
                jump.yes
            } else {
                jump.no
            };
        }
        at == YES
    }

    /// The mask of the group's conditions that the field's value makes hold. A missing field
    /// (or null) holds none, nor does a value of a type a condition does not take.
    #[inline(never)]
    pub(super) fn test(&mut self, group: &Group) -> u64 {
        let span = self.spans[group.slot];
        let raw = &self.bytes[span.start..span.end];
        match span.kind {
            Kind::Missing | Kind::Null | Kind::Object => 0,
            Kind::Str => {
                let text = if span.escaped {
                    &self.decoded[group.slot][..]
                } else {
                    raw
                };
                group.texts.get(text)
                    | group.prefixes.get::<false>(text)
                    | group.suffixes.get::<true>(text)
                    | group.substrings.get(text)
            }
            Kind::Int => group.texts.get(int_text(raw)) | numbers(group, raw, true),
            Kind::Float => numbers(group, raw, false),
            Kind::True => group.texts.get(b"true"),
            Kind::False => group.texts.get(b"false"),
            Kind::Array => {
                let elements = &group.elements;
                if elements.is_empty() {
                    return 0;
                }
                let mut held = 0;
                any_element(raw, self.buf, |e| {
                    held |= elements.get(e);
                    held == elements.all
                });
                held
            }
        }
    }
}

/// The masks of the group's number comparisons that hold for the number `text` (an integer,
/// or a float), read once for all of them.
fn numbers(group: &Group, text: &[u8], integer: bool) -> u64 {
    let ranges = &group.numbers;
    if ranges.is_empty() {
        return 0;
    }
    if integer {
        match short_int(text) {
            Some(n) => ranges.get(|bound| n.cmp(&bound)),
            None => ranges.get(|bound| cmp_int_text(text, bound)),
        }
    } else {
        match std::str::from_utf8(text).ok().and_then(|t| t.parse::<f64>().ok()) {
            // Only NaN has no order, and JSON cannot write it.
            Some(f) if !f.is_nan() => ranges.get(|bound| cmp_float_int(f, bound).unwrap_or(Ordering::Less)),
            _ => 0,
        }
    }
}

/// The value of a checked integer of up to 18 digits (which fits an `i64`).
#[inline]
fn short_int(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', digits)) => (true, digits),
        _ => (false, text),
    };
    if digits.len() > 18 {
        return None;
    }
    let n = digits.iter().fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
    Some(if negative { -n } else { n })
}

/// The canonical text of an integer as JSON writes it: itself, except `-0`.
fn int_text(text: &[u8]) -> &[u8] {
    if text == b"-0" {
        b"0"
    } else {
        text
    }
}

/// An integer's text (any length) against a bound.
pub(super) fn cmp_int_text(text: &[u8], bound: i64) -> Ordering {
    // Up to 18 digits fit an i64: add them up (they are checked digits).
    if let Some(n) = short_int(text) {
        return n.cmp(&bound);
    }
    // JSON integers are ASCII digits with an optional sign: i128 holds 38 digits.
    match std::str::from_utf8(text).ok().and_then(|t| t.parse::<i128>().ok()) {
        Some(n) => n.cmp(&i128::from(bound)),
        None if text.first() == Some(&b'-') => Ordering::Less,
        None => Ordering::Greater,
    }
}

/// Whether `pred` holds for the canonical text of any element of a checked array (`[...]`).
/// Elements without canonical text (floats, null, arrays, objects) are skipped.
fn any_element(array: &[u8], buf: &mut Vec<u8>, mut pred: impl FnMut(&[u8]) -> bool) -> bool {
    let mut pos = skip_ws(array, 1);
    if array.get(pos) == Some(&b']') {
        return false;
    }
    loop {
        let end = match array[pos] {
            b'"' => {
                let end = checked_string_end(array, pos + 1);
                let raw = &array[pos + 1..end];
                let text = if memchr(b'\\', raw).is_some() {
                    unescape(raw, buf);
                    &buf[..]
                } else {
                    raw
                };
                if pred(text) {
                    return true;
                }
                end + 1
            }
            b'-' | b'0'..=b'9' => {
                let mut end = pos + 1;
                while array
                    .get(end)
                    .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
                {
                    end += 1;
                }
                let text = &array[pos..end];
                if !text.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) && pred(int_text(text)) {
                    return true;
                }
                end
            }
            b't' => {
                if pred(b"true") {
                    return true;
                }
                pos + 4
            }
            b'f' => {
                if pred(b"false") {
                    return true;
                }
                pos + 5
            }
            b'n' => pos + 4,
            _ => checked_container_end(array, pos),
        };
        pos = skip_ws(array, end);
        if array[pos] == b']' {
            return false;
        }
        pos = skip_ws(array, pos + 1); // the `,`
    }
}

/// The closing quote of a string of a checked line.
fn checked_string_end(line: &[u8], mut pos: usize) -> usize {
    loop {
        let at = pos + memchr2(b'"', b'\\', &line[pos..]).unwrap_or(line.len() - pos);
        if line.get(at) == Some(&b'\\') {
            pos = at + 2;
        } else {
            return at;
        }
    }
}

/// The index after the object or array at `pos` of a checked line.
fn checked_container_end(line: &[u8], mut pos: usize) -> usize {
    let mut depth = 0usize;
    loop {
        match line[pos] {
            b'"' => pos = checked_string_end(line, pos + 1),
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return pos + 1;
                }
            }
            _ => {}
        }
        pos += 1;
    }
}
