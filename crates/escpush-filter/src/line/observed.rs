//! Fields a scan reads besides the filter's: the values of the fields it groups by and of its
//! time field, recorded by the same walk over the line (extra slots of the program, which no
//! condition reads), and the one rule that makes a group key of a value.
//!
//! # Group keys
//!
//! A value is grouped as the evaluation reads it, and as Python's `json.loads` makes it:
//!
//! - a string by its text, escapes resolved (`"c\u006e"` is `"cn"`);
//! - an integer by its canonical text, whatever its size (`-0` is `0`);
//! - a float by its `f64` value (`200.0` and `2e2` are one group, `-0.0` is `0.0`; a float
//!   beyond `f64` is infinite), never the same group as an integer (`200` and `200.0` are two,
//!   and neither is the string `"200"`);
//! - `true` and `false`;
//! - an array or an object by its JSON text without the whitespace outside strings
//!   (`[1, 2]` is `[1,2]`; the same value written with other escapes is another group);
//! - `null` is one group, and a missing field another (the filter's conditions treat both
//!   alike; a breakdown tells them apart).

use super::lexer::skip_ws;
use super::program::{Kind, Span};
use super::CompiledFilter;
use crate::time::{read_integer, read_rfc3339, Timestamp};

/// The value of an observed field in a line, as the evaluation reads it (see the [module
/// docs](self)).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum LineValue<'a> {
    /// Not in the line.
    Missing,
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer: its canonical text (decimal, `-0` written `0`), of any size.
    Int(&'a [u8]),
    /// A number with a fraction or an exponent, as written.
    Float(&'a [u8]),
    /// A string's text, escapes resolved (an escaped lone surrogate is encoded as UTF-8 would
    /// encode its code point, so the bytes may not be UTF-8).
    Str(&'a [u8]),
    /// An array, as written.
    Array(&'a [u8]),
    /// An object, as written.
    Object(&'a [u8]),
}

/// A group key's value, owned: what [`LineValue::push_key`] wrote, read back by
/// [`GroupValue::read_keys`]. One variant per kind of JSON value, and missing: JSON has no
/// other, so the enum is exhaustive.
#[derive(Clone, Debug, PartialEq)]
pub enum GroupValue {
    Missing,
    Null,
    Bool(bool),
    /// Canonical decimal text.
    Int(String),
    Float(f64),
    /// The text; not UTF-8 only where the line held an escaped lone surrogate.
    Str(Vec<u8>),
    /// Compact JSON text (see the [module docs](self)).
    Array(String),
    /// Compact JSON text.
    Object(String),
}

/// The value as tables and the command line show a group: strings as their text, numbers and
/// `true`/`false`/`null` as JSON writes them (a float always with a fraction or exponent,
/// `200.0`), arrays and objects as their compact JSON, a missing field as `(missing)`. A
/// string that would read as another value there (`"200"`, `"null"`, `"[]"`, `"inf"`, an
/// empty one, one with spaces at an end, or one in parentheses, as `"(missing)"` and the
/// rows that are not a group, such as `(other)`, are written) is shown quoted, as JSON writes
/// it, so that two groups never show alike. A group of several fields is labelled by
/// [`GroupValue::label`].
impl std::fmt::Display for GroupValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write(f, false)
    }
}

/// What joins the values of a group of several fields in its label.
const LABEL_SEPARATOR: &str = " · ";

impl GroupValue {
    /// The label of a group: its values as [`Display`](std::fmt::Display) shows them, joined
    /// by `" · "`. With several values, a string that holds `·` or begins with
    /// `[` or `{` is quoted too, so that the label reads back one way: no bare value then
    /// holds the separator, and a value beginning with `"`, `[` or `{` is one JSON value,
    /// whose end is known. So two groups never have one label (`"x · y"` and `"z"` give
    /// `"x · y" · z`, `"x"` and `"y · z"` give `x · "y · z"`).
    pub fn label(values: &[GroupValue]) -> String {
        struct Shown<'a>(&'a GroupValue, bool);
        impl std::fmt::Display for Shown<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.write(f, self.1)
            }
        }
        let several = values.len() > 1;
        let shown: Vec<String> = values.iter().map(|v| Shown(v, several).to_string()).collect();
        shown.join(LABEL_SEPARATOR)
    }

    fn write(&self, f: &mut std::fmt::Formatter<'_>, among_several: bool) -> std::fmt::Result {
        match self {
            GroupValue::Missing => f.write_str("(missing)"),
            GroupValue::Null => f.write_str("null"),
            GroupValue::Bool(b) => write!(f, "{b}"),
            GroupValue::Int(text) | GroupValue::Array(text) | GroupValue::Object(text) => f.write_str(text),
            GroupValue::Float(x) => write!(f, "{x:?}"),
            GroupValue::Str(bytes) => {
                let text = String::from_utf8_lossy(bytes);
                let quoted = reads_as_another_value(&text)
                    || (among_several && (text.contains('·') || text.starts_with(['[', '{'])));
                if quoted {
                    f.write_str(&serde_json::Value::String(text.into_owned()).to_string())
                } else {
                    f.write_str(&text)
                }
            }
        }
    }
}

/// Whether a string shown bare would look like another group's value, or like a row that is
/// not a group (see [`GroupValue`]'s `Display`).
fn reads_as_another_value(text: &str) -> bool {
    text.is_empty()
        || text.trim() != text
        || matches!(text, "inf" | "-inf" | "NaN")
        || (text.starts_with('(') && text.ends_with(')'))
        || text.starts_with('"')
        || serde_json::from_str::<serde_json::Value>(text).is_ok()
}

const MISSING: u8 = 0;
const NULL: u8 = 1;
const FALSE: u8 = 2;
const TRUE: u8 = 3;
const INT: u8 = 4;
const FLOAT: u8 = 5;
const STR: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;

impl LineValue<'_> {
    /// A float's value (`None` for anything else); beyond `f64`, infinite.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            LineValue::Float(text) => std::str::from_utf8(text).ok()?.parse().ok(),
            _ => None,
        }
    }

    /// Appends this value's group key to `out`: equal keys are equal values by the rule of
    /// the [module docs](self). Keys of several fields may be appended one after another and
    /// read back with [`GroupValue::read_keys`].
    pub fn push_key(&self, out: &mut Vec<u8>) {
        match self {
            LineValue::Missing => out.push(MISSING),
            LineValue::Null => out.push(NULL),
            LineValue::Bool(false) => out.push(FALSE),
            LineValue::Bool(true) => out.push(TRUE),
            LineValue::Int(text) => with_len(out, INT, text),
            LineValue::Float(_) => float_key(self.as_f64().unwrap_or(f64::NAN), out),
            LineValue::Str(text) => with_len(out, STR, text),
            LineValue::Array(text) | LineValue::Object(text) => {
                let tag = if matches!(self, LineValue::Array(_)) {
                    ARRAY
                } else {
                    OBJECT
                };
                let at = out.len();
                with_len(out, tag, &[]);
                compact(text, out);
                let len = u32::try_from(out.len() - at - 5).unwrap_or(u32::MAX);
                out[at + 1..at + 5].copy_from_slice(&len.to_le_bytes());
            }
        }
    }

    /// Appends an array's or an object's JSON text without the whitespace outside its
    /// strings (`[1, "a b"]` is `[1,"a b"]`: the text of its group key; its strings keep their
    /// escapes); any other value appends nothing.
    pub fn push_compact(&self, out: &mut Vec<u8>) {
        if let LineValue::Array(text) | LineValue::Object(text) = self {
            compact(text, out);
        }
    }

    /// The value as a time, in any of log-push's timestamp formats (see [`crate::time`]):
    /// an integer by its size, a string as RFC 3339; missing or `null` is
    /// [`Timestamp::Missing`], anything else [`Timestamp::Unreadable`].
    pub fn timestamp(&self) -> Timestamp {
        match self {
            LineValue::Missing | LineValue::Null => Timestamp::Missing,
            LineValue::Int(text) => read_integer(text),
            LineValue::Str(text) => read_rfc3339(text),
            _ => Timestamp::Unreadable,
        }
    }
}

/// [`LineValue::timestamp`] with a memory of the last text read: the lines of a log come in
/// time order and a second's lines share its text (`"2024-05-14T00:00:00Z"`), so a reader of
/// every line's time (a preview's span and batches) reads each text once. One per thread.
///
/// ```
/// use escpush_filter::{LineValue, Timestamp, TimestampCache};
///
/// let mut cache = TimestampCache::default();
/// let at = cache.timestamp(&LineValue::Str(b"2024-05-14T00:00:01Z"));
/// assert_eq!(at, Timestamp::At { seconds: 1_715_644_801, nanos: 0 });
/// assert_eq!(cache.timestamp(&LineValue::Str(b"2024-05-14T00:00:01Z")), at);
/// // The same digits as an integer are another reading (seconds, not text).
/// assert_eq!(cache.timestamp(&LineValue::Int(b"1715644801")), at);
/// assert_eq!(cache.timestamp(&LineValue::Null), Timestamp::Missing);
/// ```
#[derive(Clone, Debug, Default)]
pub struct TimestampCache {
    /// The text last read, whether it was an integer, and its reading (`None`: none yet).
    text: Vec<u8>,
    int: bool,
    read: Option<Timestamp>,
}

impl TimestampCache {
    /// `value` as a time: [`LineValue::timestamp`], read again only when its text is not
    /// the last one's.
    #[inline]
    pub fn timestamp(&mut self, value: &LineValue<'_>) -> Timestamp {
        let (text, int) = match value {
            LineValue::Int(text) => (*text, true),
            LineValue::Str(text) => (*text, false),
            other => return other.timestamp(),
        };
        if let Some(read) = self.read {
            if self.int == int && self.text == text {
                return read;
            }
        }
        let read = value.timestamp();
        self.text.clear();
        self.text.extend_from_slice(text);
        self.int = int;
        self.read = Some(read);
        read
    }
}

/// A group key's tag, then its bytes' length (4 bytes, little-endian), then the bytes.
fn with_len(out: &mut Vec<u8>, tag: u8, bytes: &[u8]) {
    out.push(tag);
    out.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// A number's group key: its bits, -0.0 as 0.0 (as in Python's dict and SQL's GROUP BY).
fn float_key(f: f64, out: &mut Vec<u8>) {
    let f = if f == 0.0 { 0.0 } else { f };
    out.push(FLOAT);
    out.extend_from_slice(&f.to_bits().to_le_bytes());
}

impl GroupValue {
    /// Appends this value's group key to `out`: the bytes [`LineValue::push_key`] wrote for
    /// the value it was read from, so that keys read back ([`GroupValue::read_keys`]) and
    /// written again compare, sort and hash as the scan's own (a merge of partial scans
    /// sorts its groups as one scan would).
    pub fn push_key(&self, out: &mut Vec<u8>) {
        match self {
            GroupValue::Missing => out.push(MISSING),
            GroupValue::Null => out.push(NULL),
            GroupValue::Bool(false) => out.push(FALSE),
            GroupValue::Bool(true) => out.push(TRUE),
            GroupValue::Int(text) => with_len(out, INT, text.as_bytes()),
            GroupValue::Float(f) => float_key(*f, out),
            GroupValue::Str(bytes) => with_len(out, STR, bytes),
            GroupValue::Array(text) => with_len(out, ARRAY, text.as_bytes()),
            GroupValue::Object(text) => with_len(out, OBJECT, text.as_bytes()),
        }
    }

    /// Reads back the values [`LineValue::push_key`] appended to `key`, in order; `None` if
    /// `key` was not made that way.
    pub fn read_keys(mut key: &[u8]) -> Option<Vec<GroupValue>> {
        let mut values = Vec::new();
        while let Some((&tag, rest)) = key.split_first() {
            let text = |rest: &[u8]| -> Option<(Vec<u8>, usize)> {
                let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
                Some((rest.get(4..4 + len)?.to_vec(), 4 + len))
            };
            let (value, used) = match tag {
                MISSING => (GroupValue::Missing, 0),
                NULL => (GroupValue::Null, 0),
                FALSE => (GroupValue::Bool(false), 0),
                TRUE => (GroupValue::Bool(true), 0),
                FLOAT => {
                    let bits = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
                    (GroupValue::Float(f64::from_bits(bits)), 8)
                }
                STR => {
                    let (bytes, used) = text(rest)?;
                    (GroupValue::Str(bytes), used)
                }
                INT | ARRAY | OBJECT => {
                    let (bytes, used) = text(rest)?;
                    let s = String::from_utf8(bytes).ok()?;
                    let value = match tag {
                        INT => GroupValue::Int(s),
                        ARRAY => GroupValue::Array(s),
                        _ => GroupValue::Object(s),
                    };
                    (value, used)
                }
                _ => return None,
            };
            values.push(value);
            key = &rest[used..];
        }
        Some(values)
    }
}

/// A checked JSON value's text without the whitespace outside its strings.
fn compact(text: &[u8], out: &mut Vec<u8>) {
    let mut pos = 0;
    while pos < text.len() {
        let next = skip_ws(text, pos);
        if next > pos {
            pos = next;
            continue;
        }
        if text[pos] == b'"' {
            let mut end = pos + 1;
            while text[end] != b'"' {
                end += if text[end] == b'\\' { 2 } else { 1 };
            }
            out.extend_from_slice(&text[pos..=end]);
            pos = end + 1;
        } else {
            out.push(text[pos]);
            pos += 1;
        }
    }
}

impl CompiledFilter {
    /// `filter` compiled as [`Filter::compile`](crate::Filter::compile) does, also recording
    /// the values of `fields` in each line (whether the filter reads them or not), for
    /// [`CompiledFilter::observed`]. Field names compare as the filter's keys do (after
    /// unescaping; the last occurrence of a key in a line wins).
    pub fn with_observed<S: AsRef<str>>(filter: &crate::Filter, fields: &[S]) -> CompiledFilter {
        let names: Vec<&str> = fields.iter().map(AsRef::as_ref).collect();
        CompiledFilter::build(Some(filter), &names)
    }

    /// A reader of the values of `fields` in each line that keeps every valid line: what
    /// [`CompiledFilter::with_observed`] makes, without a filter (a job that has none). The
    /// line is still checked whole ([`CompiledFilter::matches_line`] answers `Ok(true)` or
    /// why it is malformed).
    ///
    /// ```
    /// use escpush_filter::{CompiledFilter, LineValue};
    ///
    /// let mut lines = CompiledFilter::reading(&["RayID"]);
    /// assert_eq!(lines.matches_line(br#"{"RayID":"3a6050bcbe121a87"}"#), Ok(true));
    /// assert_eq!(lines.observed(br#"{"RayID":"3a6050bcbe121a87"}"#, 0), LineValue::Str(b"3a6050bcbe121a87"));
    /// assert!(lines.matches_line(br#"{"RayID":"#).is_err());
    /// ```
    pub fn reading<S: AsRef<str>>(fields: &[S]) -> CompiledFilter {
        let names: Vec<&str> = fields.iter().map(AsRef::as_ref).collect();
        CompiledFilter::build(None, &names)
    }

    /// How many fields [`CompiledFilter::with_observed`] was given.
    pub fn observed_len(&self) -> usize {
        self.observed.len()
    }

    /// The value of the `index`-th observed field (in the order given to
    /// [`CompiledFilter::with_observed`]) in `line`, which must be the line last passed to
    /// [`CompiledFilter::matches_line`], and one it accepted (`Ok`). For any other line the
    /// value is meaningless (but reading it is safe).
    ///
    /// ```
    /// use escpush_filter::{field, LineValue};
    ///
    /// let f = field("EdgeResponseStatus").ge(500);
    /// let mut lines = escpush_filter::CompiledFilter::with_observed(&f, &["ClientCountry", "EdgeResponseStatus", "Zone"]);
    /// let line = br#"{"ClientCountry":"c\u006e","EdgeResponseStatus":503,"Zone":null}"#;
    /// assert_eq!(lines.matches_line(line), Ok(true));
    /// assert_eq!(lines.observed(line, 0), LineValue::Str(b"cn"));
    /// assert_eq!(lines.observed(line, 1), LineValue::Int(b"503"));
    /// assert_eq!(lines.observed(line, 2), LineValue::Null);
    /// ```
    pub fn observed<'a>(&'a self, line: &'a [u8], index: usize) -> LineValue<'a> {
        let Some(&slot) = self.observed.get(index) else {
            return LineValue::Missing;
        };
        let span: Span = self.spans[slot];
        let Some(text) = line.get(span.start..span.end) else {
            return LineValue::Missing;
        };
        match span.kind {
            Kind::Missing => LineValue::Missing,
            Kind::Null => LineValue::Null,
            Kind::True => LineValue::Bool(true),
            Kind::False => LineValue::Bool(false),
            Kind::Int => LineValue::Int(if text == b"-0" { b"0" } else { text }),
            Kind::Float => LineValue::Float(text),
            Kind::Str if span.escaped => LineValue::Str(&self.decoded[slot]),
            Kind::Str => LineValue::Str(text),
            Kind::Array => LineValue::Array(text),
            Kind::Object => LineValue::Object(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field;

    fn key(values: &[LineValue<'_>]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in values {
            v.push_key(&mut out);
        }
        out
    }

    #[test]
    fn observed_values_as_the_evaluation_reads_them() {
        let f = field("A").eq("x");
        let fields = ["A", "B", "C", "D", "E", "F", "G", "H", "Missing"];
        let mut lines = CompiledFilter::with_observed(&f, &fields);
        assert_eq!(lines.observed_len(), 9);
        let surrogate = ["é".as_bytes(), &[0xED, 0xA0, 0x80]].concat();
        for line in [
            &br#"{"A":"x","B":-0,"C":2e2,"D":[1, "a b" ,{}],"E":{"k" : 1},"F":true,"G":null,"H":"\u00e9\ud800","A":"x"}"#[..],
            br#"{ "A" : "x" , "B" : -0 , "C" : 2e2 , "D" : [1, "a b" ,{}] , "E" : {"k" : 1} , "F" : true , "G" : null , "H" : "\u00e9\ud800" }"#,
        ] {
            assert_eq!(lines.matches_line(line), Ok(true));
            let v = |i| lines.observed(line, i);
            assert_eq!(v(0), LineValue::Str(b"x"));
            assert_eq!(v(1), LineValue::Int(b"0"));
            assert_eq!(v(2).as_f64(), Some(200.0));
            assert_eq!(v(3), LineValue::Array(br#"[1, "a b" ,{}]"#));
            assert_eq!(v(4), LineValue::Object(br#"{"k" : 1}"#));
            assert_eq!(v(5), LineValue::Bool(true));
            assert_eq!(v(6), LineValue::Null);
            assert_eq!(v(7), LineValue::Str(&surrogate));
            assert_eq!(v(8), LineValue::Missing);
            assert_eq!(lines.observed(line, 99), LineValue::Missing);
            let (mut a, mut o) = (Vec::new(), Vec::new());
            lines.observed(line, 3).push_compact(&mut a);
            lines.observed(line, 4).push_compact(&mut o);
            lines.observed(line, 0).push_compact(&mut o);
            assert_eq!((&a[..], &o[..]), (&br#"[1,"a b",{}]"#[..], &br#"{"k":1}"#[..]));
        }
        // The filter itself is unchanged by the extra slots.
        assert_eq!(lines.matches_line(br#"{"A":"y","B":1}"#), Ok(false));
        assert_eq!(lines.matches_line(br#"{"B":1,"A":"x"}"#), Ok(true));
    }

    #[test]
    fn group_keys_follow_json_loads() {
        // Equal values, one key; different values (or types), different keys.
        assert_eq!(key(&[LineValue::Float(b"200.0")]), key(&[LineValue::Float(b"2e2")]));
        assert_eq!(key(&[LineValue::Float(b"-0.0")]), key(&[LineValue::Float(b"0e5")]));
        assert_ne!(key(&[LineValue::Int(b"200")]), key(&[LineValue::Float(b"200.0")]));
        assert_ne!(key(&[LineValue::Int(b"200")]), key(&[LineValue::Str(b"200")]));
        assert_ne!(key(&[LineValue::Null]), key(&[LineValue::Missing]));
        assert_ne!(key(&[LineValue::Str(b"true")]), key(&[LineValue::Bool(true)]));
        assert_eq!(
            key(&[LineValue::Array(br#"[ 1 , "a b" ]"#)]),
            key(&[LineValue::Array(br#"[1,"a b"]"#)])
        );
        assert_ne!(key(&[LineValue::Array(b"[]")]), key(&[LineValue::Object(b"{}")]));
        // Two fields: ("a", "b") is not ("ab", "").
        assert_ne!(
            key(&[LineValue::Str(b"a"), LineValue::Str(b"b")]),
            key(&[LineValue::Str(b"ab"), LineValue::Str(b"")])
        );
        let all = key(&[
            LineValue::Missing,
            LineValue::Null,
            LineValue::Bool(false),
            LineValue::Int(b"-12345678901234567890123"),
            LineValue::Float(b"1e400"),
            LineValue::Str(b"cn"),
            LineValue::Array(br#"[ "x\"]" ]"#),
            LineValue::Object(br#"{ "k" : [ ] }"#),
        ]);
        assert_eq!(
            GroupValue::read_keys(&all),
            Some(vec![
                GroupValue::Missing,
                GroupValue::Null,
                GroupValue::Bool(false),
                GroupValue::Int("-12345678901234567890123".into()),
                GroupValue::Float(f64::INFINITY),
                GroupValue::Str(b"cn".to_vec()),
                GroupValue::Array(r#"["x\"]"]"#.into()),
                GroupValue::Object(r#"{"k":[]}"#.into()),
            ])
        );
        assert_eq!(GroupValue::read_keys(&[INT, 9, 0, 0, 0]), None);
        // Written again, the values give the scan's own key, byte for byte.
        let mut again = Vec::new();
        for value in GroupValue::read_keys(&all).unwrap() {
            value.push_key(&mut again);
        }
        assert_eq!(again, all);
        let shown: Vec<String> = GroupValue::read_keys(&all)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            shown,
            [
                "(missing)",
                "null",
                "false",
                "-12345678901234567890123",
                "inf",
                "cn",
                r#"["x\"]"]"#,
                r#"{"k":[]}"#
            ]
        );
        assert_eq!(GroupValue::Float(200.0).to_string(), "200.0");
        // A string that would show as another value is quoted; others are shown bare.
        let shown = |s: &str| GroupValue::Str(s.as_bytes().to_vec()).to_string();
        for (text, as_shown) in [
            ("200", r#""200""#),
            ("200.0", r#""200.0""#),
            ("null", r#""null""#),
            ("true", r#""true""#),
            ("(missing)", r#""(missing)""#),
            ("[1,2]", r#""[1,2]""#),
            ("inf", r#""inf""#),
            ("", r#""""#),
            (" cn", r#"" cn""#),
            ("\"q\"", r#""\"q\"""#),
            ("(other)", r#""(other)""#),
            ("(other: 3 groups)", r#""(other: 3 groups)""#),
            ("cn", "cn"),
            ("www.example.com", "www.example.com"),
            ("Mozilla/5.0 (X11)", "Mozilla/5.0 (X11)"),
            ("2024-05-14T00:00:00Z", "2024-05-14T00:00:00Z"),
        ] {
            assert_eq!(shown(text), as_shown, "{text:?}");
        }
    }

    #[test]
    fn labels_of_several_values_read_back_one_way() {
        let s = |t: &str| GroupValue::Str(t.as_bytes().to_vec());
        let label = |values: &[GroupValue]| GroupValue::label(values);
        // The separator inside a value (issue 33, item 17).
        assert_ne!(label(&[s("x · y"), s("z")]), label(&[s("x"), s("y · z")]));
        assert_eq!(label(&[s("x · y"), s("z")]), r#""x · y" · z"#);
        assert_eq!(label(&[s("x"), s("y · z")]), r#"x · "y · z""#);
        // An array holding the separator beside strings cut where it stands.
        let arr = |t: &str| GroupValue::Array(t.to_owned());
        assert_ne!(
            label(&[arr(r#"["x · y"]"#), s(r#"["1"#), s(r#"2"]"#)]),
            label(&[s(r#"["x"#), s(r#"y"]"#), arr(r#"["1 · 2"]"#)])
        );
        // One value: shown as Display shows it, a separator and all.
        assert_eq!(label(&[s("x · y")]), "x · y");
        assert_eq!(label(&[s("cn"), GroupValue::Int("200".into())]), "cn · 200");
        assert_eq!(label(&[]), "");
    }

    #[test]
    fn timestamps_of_values() {
        assert_eq!(LineValue::Missing.timestamp(), Timestamp::Missing);
        assert_eq!(LineValue::Null.timestamp(), Timestamp::Missing);
        assert_eq!(
            LineValue::Int(b"1795305630").timestamp(),
            Timestamp::At {
                seconds: 1_795_305_630,
                nanos: 0
            }
        );
        assert_eq!(LineValue::Float(b"1795305630.5").timestamp(), Timestamp::Unreadable);
        assert_eq!(LineValue::Bool(true).timestamp(), Timestamp::Unreadable);
        assert_eq!(LineValue::Str(b"yesterday").timestamp(), Timestamp::Unreadable);
    }
}
