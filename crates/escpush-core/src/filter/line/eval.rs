//! The tests of a compiled filter, run on the spans the lexer recorded for one checked line:
//! canonical texts, number comparisons, prefixes, substrings, array elements.

use std::cmp::Ordering;

use memchr::{memchr, memchr2};

use super::super::eval::cmp_float_int;
use super::lexer::{skip_ws, unescape};
use super::program::{same, Cmp, Kind, Node, Span, Test};

pub(super) struct Line<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) spans: &'a [Span],
    pub(super) decoded: &'a [Vec<u8>],
}

impl Line<'_> {
    pub(super) fn eval(&self, node: &Node, buf: &mut Vec<u8>) -> bool {
        match node {
            Node::Cond(c) => {
                let span = self.spans[c.slot];
                let held = match span.kind {
                    Kind::Missing | Kind::Null => false,
                    _ => self.holds(&c.test, c.slot, span, buf),
                };
                held != c.negated
            }
            Node::All(items) => items.iter().all(|n| self.eval(n, buf)),
            Node::Any(items) => items.iter().any(|n| self.eval(n, buf)),
        }
    }

    /// The text of a string field.
    #[inline]
    fn str_text(&self, slot: usize, span: Span) -> &[u8] {
        if span.escaped {
            &self.decoded[slot]
        } else {
            &self.bytes[span.start..span.end]
        }
    }

    /// The canonical text of a scalar field: strings as they are, integers in decimal,
    /// `true` / `false`; `None` for floats, arrays and objects.
    #[inline]
    fn canonical(&self, slot: usize, span: Span) -> Option<&[u8]> {
        match span.kind {
            Kind::Str => Some(self.str_text(slot, span)),
            Kind::Int => Some(int_text(&self.bytes[span.start..span.end])),
            Kind::True => Some(b"true"),
            Kind::False => Some(b"false"),
            _ => None,
        }
    }

    fn holds(&self, test: &Test, slot: usize, span: Span, buf: &mut Vec<u8>) -> bool {
        match test {
            Test::Eq(wanted) => self.canonical(slot, span).is_some_and(|x| same(x, wanted)),
            Test::In(set) => {
                if span.kind == Kind::Array {
                    any_element(&self.bytes[span.start..span.end], buf, |e| {
                        set.iter().any(|t| same(t, e))
                    })
                } else {
                    self.canonical(slot, span)
                        .is_some_and(|x| set.iter().any(|t| same(t, x)))
                }
            }
            Test::Cmp(cmp, bound) => {
                let number = &self.bytes[span.start..span.end];
                let ord = match span.kind {
                    Kind::Int => Some(cmp_int_text(number, *bound)),
                    Kind::Float => cmp_float_text(number, *bound),
                    _ => None,
                };
                ord.is_some_and(|o| match cmp {
                    Cmp::Lt => o == Ordering::Less,
                    Cmp::Leq => o != Ordering::Greater,
                    Cmp::Gt => o == Ordering::Greater,
                    Cmp::Geq => o != Ordering::Less,
                })
            }
            Test::StartsWith(prefix) => span.kind == Kind::Str && self.str_text(slot, span).starts_with(prefix),
            Test::EndsWith(suffix) => span.kind == Kind::Str && self.str_text(slot, span).ends_with(suffix),
            Test::Contains(finder) => match span.kind {
                Kind::Str => finder.find(self.str_text(slot, span)).is_some(),
                Kind::Array => {
                    let needle = finder.needle();
                    any_element(&self.bytes[span.start..span.end], buf, |e| e == needle)
                }
                _ => false,
            },
            Test::Never => false,
        }
    }
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
    let (negative, digits) = match text.split_first() {
        Some((b'-', digits)) => (true, digits),
        _ => (false, text),
    };
    if digits.len() <= 18 {
        let n = digits.iter().fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
        return if negative { -n } else { n }.cmp(&bound);
    }
    // JSON integers are ASCII digits with an optional sign: i128 holds 38 digits.
    match std::str::from_utf8(text).ok().and_then(|t| t.parse::<i128>().ok()) {
        Some(n) => n.cmp(&i128::from(bound)),
        None if text.first() == Some(&b'-') => Ordering::Less,
        None => Ordering::Greater,
    }
}

/// A float's text against a bound, exactly (beyond `f64`, the float is infinite).
fn cmp_float_text(text: &[u8], bound: i64) -> Option<Ordering> {
    let f: f64 = std::str::from_utf8(text).ok()?.parse().ok()?;
    cmp_float_int(f, bound)
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
