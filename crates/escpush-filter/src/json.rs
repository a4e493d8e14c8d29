//! A JSON tree that keeps what `serde_json::Value` forgets: the order of an object's
//! members, members given twice, and numbers no `serde_json::Number` holds (integers beyond
//! 64 bits, floats beyond `f64`), as written. Filters are parsed through it so that problems
//! are reported in the order of the text, a repeated member is refused, not silently
//! dropped, and a message shows a number as it was written.
//!
//! [`Json::parse`] reads text with a bounded nesting depth (no recursion limit to hit, no
//! stack to overflow) and tells a lone surrogate escape (`"\ud800"`, which JSON's grammar
//! allows and a Rust string cannot hold) from a syntax error.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// One JSON value, objects as ordered lists of members.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    /// A number `serde_json::Number` cannot hold (an integer beyond 64 bits, a float
    /// beyond `f64`, Python's `inf` / `nan`), as written.
    BigNumber(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Parses JSON text (RFC 8259) nesting at most `max_depth` arrays and objects.
    pub fn parse_with_depth(text: &str, max_depth: usize) -> Result<Self, JsonError> {
        Parser::document(text, max_depth, false)
    }

    /// Parses JSON text nesting at most 128 levels (serde_json's limit).
    pub fn parse(text: &str) -> Result<Self, JsonError> {
        Json::parse_with_depth(text, 128)
    }

    /// As [`Json::parse_with_depth`], but an object that names a member twice is refused
    /// ([`JsonErrorKind::DuplicateMember`], at the second one), where `serde_json` and
    /// `json.loads` keep the last silently: the reading of a document a person wrote (an
    /// `apply` file, a job field given as JSON), where a repeated key is a mistake.
    pub fn parse_unique(text: &str, max_depth: usize) -> Result<Self, JsonError> {
        Parser::document(text, max_depth, true)
    }

    /// A short name of the value's JSON type, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) | Json::BigNumber(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

/// What kind of text [`Json::parse`] refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonErrorKind {
    /// Not JSON's grammar.
    Syntax,
    /// Arrays and objects nested deeper than allowed.
    TooDeep,
    /// A `\uD800`..`\uDFFF` escape without its other half: JSON, but not text.
    LoneSurrogate,
    /// An object names a member twice ([`Json::parse_unique`] only).
    DuplicateMember,
}

/// Why [`Json::parse`] refused a text, and where (1-based line and column, in characters;
/// lines end at every line break an editor shows: LF, CR LF, CR, VT, FF, NEL, U+2028 and
/// U+2029, as in every position escpush reports). A syntax error at a character that does
/// not print names it (`found U+FEFF (a byte-order mark)`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} at line {line} column {column}")]
pub struct JsonError {
    pub kind: JsonErrorKind,
    pub message: String,
    pub line: usize,
    pub column: usize,
}

struct Parser<'a> {
    source: &'a str,
    text: &'a [u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    /// Refuse a member named twice in one object.
    unique: bool,
}

impl Parser<'_> {
    /// The one value `text` holds, with nothing but spaces after it.
    fn document(text: &str, max_depth: usize, unique: bool) -> Result<Json, JsonError> {
        let mut p = Parser {
            source: text,
            text: text.as_bytes(),
            pos: 0,
            depth: 0,
            max_depth,
            unique,
        };
        let value = p.value()?;
        p.skip_ws();
        if p.pos < p.text.len() {
            return Err(p.error(JsonErrorKind::Syntax, "trailing characters"));
        }
        Ok(value)
    }

    fn error(&self, kind: JsonErrorKind, message: impl Into<String>) -> JsonError {
        let mut message = message.into();
        if kind == JsonErrorKind::Syntax {
            // A character no one sees: name it (a byte-order mark left at the start of a
            // decoded file, or pasted into the middle, reads as "expected value" otherwise).
            let at = crate::shown::floor_char(self.source, self.pos.min(self.source.len()));
            if let Some(c) = self.source[at..].chars().next() {
                if !crate::shown::is_printable(c) && !matches!(c, ' ' | '\t' | '\n' | '\r') {
                    message.push_str(", found ");
                    message.push_str(&crate::shown::describe_char(c));
                    if c == '\u{feff}' && at == 0 {
                        message.push_str(
                            ": the text was decoded with its byte-order mark kept; drop it (Python's \
                             `utf-8-sig` codec does)",
                        );
                    }
                }
            }
        }
        self.located(kind, message)
    }

    /// An error at the current position, its message as given.
    fn located(&self, kind: JsonErrorKind, message: String) -> JsonError {
        let (line, column) = crate::shown::line_column(self.source, self.pos);
        JsonError {
            kind,
            message,
            line,
            column,
        }
    }

    fn syntax(&self, message: &str) -> JsonError {
        self.error(JsonErrorKind::Syntax, message)
    }

    fn skip_ws(&mut self) {
        while matches!(self.text.get(self.pos), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Json, JsonError> {
        self.skip_ws();
        match self.text.get(self.pos) {
            None => Err(self.syntax("EOF while parsing a value")),
            Some(b'{' | b'[') => self.container(),
            Some(b'"') => self.string().map(Json::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(_) => Err(self.syntax("expected value")),
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, JsonError> {
        if self.text[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.syntax("expected value"))
        }
    }

    /// An array or object, with its nested values; one level of Rust recursion per level of
    /// JSON, at most `max_depth`.
    fn container(&mut self) -> Result<Json, JsonError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(self.error(
                JsonErrorKind::TooDeep,
                format!("arrays and objects nest more than {} levels deep", self.max_depth),
            ));
        }
        let object = self.text[self.pos] == b'{';
        let close = if object { b'}' } else { b']' };
        self.pos += 1;
        let mut items = Vec::new();
        let mut members = Vec::new();
        let mut seen = std::collections::HashSet::new();
        self.skip_ws();
        if self.text.get(self.pos) == Some(&close) {
            self.pos += 1;
        } else {
            loop {
                if object {
                    self.skip_ws();
                    if self.text.get(self.pos) != Some(&b'"') {
                        return Err(self.syntax(if self.pos >= self.text.len() {
                            "EOF while parsing an object"
                        } else {
                            "key must be a string"
                        }));
                    }
                    let key_at = self.pos;
                    let key = self.string()?;
                    if self.unique {
                        // Linear per member up to a few dozen; a set beyond, so that a
                        // 10 MB object is not quadratic.
                        let repeated = if members.len() < 32 {
                            members.iter().any(|(k, _): &(String, Json)| *k == key)
                        } else {
                            if seen.is_empty() {
                                seen.extend(members.iter().map(|(k, _): &(String, Json)| k.clone()));
                            }
                            !seen.insert(key.clone())
                        };
                        if repeated {
                            self.pos = key_at;
                            return Err(self.error(
                                JsonErrorKind::DuplicateMember,
                                format!(
                                    "member `{}` is given twice in one object; keep one",
                                    crate::suggest::cut(&key)
                                ),
                            ));
                        }
                    }
                    self.skip_ws();
                    if self.text.get(self.pos) != Some(&b':') {
                        return Err(self.syntax("expected `:`"));
                    }
                    self.pos += 1;
                    members.push((key, self.value()?));
                } else {
                    items.push(self.value()?);
                }
                self.skip_ws();
                match self.text.get(self.pos) {
                    Some(b',') => self.pos += 1,
                    Some(&b) if b == close => {
                        self.pos += 1;
                        break;
                    }
                    None => return Err(self.syntax("EOF while parsing a list or an object")),
                    Some(_) => {
                        return Err(self.syntax(if object {
                            "expected `,` or `}`"
                        } else {
                            "expected `,` or `]`"
                        }))
                    }
                }
            }
        }
        self.depth -= 1;
        Ok(if object {
            Json::Object(members)
        } else {
            Json::Array(items)
        })
    }

    /// The string whose opening quote is at `pos`, escapes resolved.
    fn string(&mut self) -> Result<String, JsonError> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(&b) = self.text.get(self.pos) else {
                return Err(self.syntax("EOF while parsing a string"));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    // The text was UTF-8 and escapes add whole characters.
                    return Ok(String::from_utf8(out).unwrap_or_default());
                }
                b'\\' => self.escape(&mut out)?,
                0..=0x1f => {
                    return Err(self.located(
                        JsonErrorKind::Syntax,
                        "control character (\\u0000-\\u001F) found while parsing a string".to_owned(),
                    ))
                }
                _ => {
                    out.push(b);
                    self.pos += 1;
                }
            }
        }
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let hex = std::str::from_utf8(self.text.get(at..at + 4)?).ok()?;
        if hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            u32::from_str_radix(hex, 16).ok()
        } else {
            None
        }
    }

    /// The escape at `pos` (a backslash), appended to `out` as UTF-8.
    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), JsonError> {
        let byte = match self.text.get(self.pos + 1) {
            None => return Err(self.syntax("EOF while parsing a string")),
            Some(b'"') => b'"',
            Some(b'\\') => b'\\',
            Some(b'/') => b'/',
            Some(b'b') => 0x08,
            Some(b'f') => 0x0c,
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            Some(b't') => b'\t',
            Some(b'u') => {
                let start = self.pos;
                let code = self
                    .hex4(self.pos + 2)
                    .ok_or_else(|| self.syntax("invalid \\u escape"))?;
                self.pos += 6;
                let code = if (0xD800..0xDC00).contains(&code) && self.text[self.pos..].starts_with(b"\\u") {
                    match self.hex4(self.pos + 2) {
                        Some(low) if (0xDC00..0xE000).contains(&low) => {
                            self.pos += 6;
                            0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        _ => code,
                    }
                } else {
                    code
                };
                let Some(c) = char::from_u32(code) else {
                    self.pos = start;
                    return Err(self.error(
                        JsonErrorKind::LoneSurrogate,
                        format!("`\\u{code:04x}` is a lone surrogate"),
                    ));
                };
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                return Ok(());
            }
            Some(_) => return Err(self.syntax("invalid escape")),
        };
        out.push(byte);
        self.pos += 2;
        Ok(())
    }

    /// A number by JSON's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.pos;
        let digits = |p: &mut Parser<'_>| {
            let from = p.pos;
            while p.text.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos > from
        };
        if self.text.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match self.text.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.syntax("invalid number")),
        }
        let mut integer = true;
        if self.text.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            integer = false;
            if !digits(self) {
                return Err(self.syntax("invalid number"));
            }
        }
        if matches!(self.text.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            integer = false;
            if matches!(self.text.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.syntax("invalid number"));
            }
        }
        let text = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or_default();
        let number = if integer {
            text.parse::<i64>()
                .map(serde_json::Number::from)
                .or_else(|_| text.parse::<u64>().map(serde_json::Number::from))
                .ok()
        } else {
            text.parse::<f64>().ok().and_then(serde_json::Number::from_f64)
        };
        Ok(number.map_or_else(|| Json::BigNumber(text.to_owned()), Json::Number))
    }
}

/// A short name of a JSON value's type, for messages (`"an array"`).
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

impl From<serde_json::Value> for Json {
    fn from(value: serde_json::Value) -> Self {
        match value {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(b) => Json::Bool(b),
            serde_json::Value::Number(n) => Json::Number(n),
            serde_json::Value::String(s) => Json::String(s),
            serde_json::Value::Array(items) => Json::Array(items.into_iter().map(Json::from).collect()),
            serde_json::Value::Object(map) => Json::Object(map.into_iter().map(|(k, v)| (k, Json::from(v))).collect()),
        }
    }
}

/// Back to a `serde_json::Value`; of a member given twice, the last one stays.
impl From<Json> for serde_json::Value {
    fn from(json: Json) -> Self {
        match json {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(b),
            Json::Number(n) => serde_json::Value::Number(n),
            Json::BigNumber(text) => text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or(serde_json::Value::Null, serde_json::Value::Number),
            Json::String(s) => serde_json::Value::String(s),
            Json::Array(items) => serde_json::Value::Array(items.into_iter().map(Into::into).collect()),
            Json::Object(members) => {
                serde_json::Value::Object(members.into_iter().map(|(k, v)| (k, v.into())).collect())
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a number that JSON cannot hold"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        Json::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            members.push((key, value));
        }
        Ok(Json::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_member_order_and_duplicates() {
        let json = Json::parse(r#"{"b":1,"a":[true,null,"x"],"b":2.5}"#).unwrap();
        let Json::Object(members) = json else {
            panic!("not an object")
        };
        let keys: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "b"]);
        assert_eq!(
            members[1].1,
            Json::Array(vec![Json::Bool(true), Json::Null, Json::String("x".into())])
        );
    }

    #[test]
    fn parses_what_serde_json_parses_and_numbers_it_cannot_hold() {
        for text in [
            r#"{"a":[1,-2,3.5,1e3,true,false,null,"x\"\u00e9\ud83d\ude00\n"],"b":{}}"#,
            " [ ] ",
            "0",
        ] {
            let mine: serde_json::Value = Json::parse(text).unwrap().into();
            let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(mine, theirs, "{text}");
        }
        assert_eq!(Json::parse("-0").unwrap(), Json::Number(0.into()));
        assert_eq!(
            Json::parse("1180591620717411303424").unwrap(),
            Json::BigNumber("1180591620717411303424".into())
        );
        assert_eq!(Json::parse("1e400").unwrap(), Json::BigNumber("1e400".into()));
    }

    #[test]
    fn refusals_say_what_and_where() {
        for (text, kind, message) in [
            (
                "{",
                JsonErrorKind::Syntax,
                "EOF while parsing an object at line 1 column 2",
            ),
            ("[1,]", JsonErrorKind::Syntax, "expected value at line 1 column 4"),
            (
                "{\"a\":1}x",
                JsonErrorKind::Syntax,
                "trailing characters at line 1 column 8",
            ),
            ("\n 01", JsonErrorKind::Syntax, "trailing characters at line 2 column 3"),
            // Issue 22, item 13: a bare CR ends a line as LF does (JSON allows it between
            // tokens); inside a string, U+2028 does too, as an editor shows it.
            (
                "[1,\r 2,\r\n3,]",
                JsonErrorKind::Syntax,
                "expected value at line 3 column 3",
            ),
            (
                "[\"a\u{2028}b\", x]",
                JsonErrorKind::Syntax,
                "expected value at line 2 column 5",
            ),
            // Issue 22, item 15: a byte-order mark is named, at the start and in the middle.
            (
                "\u{feff}{}",
                JsonErrorKind::Syntax,
                "expected value, found U+FEFF (a byte-order mark): the text was decoded with its byte-order \
                 mark kept; drop it (Python's `utf-8-sig` codec does) at line 1 column 1",
            ),
            (
                "{\"a\":1,\n\u{feff}\"b\":2}",
                JsonErrorKind::Syntax,
                "key must be a string, found U+FEFF (a byte-order mark) at line 2 column 1",
            ),
            (
                "[1]\u{feff}",
                JsonErrorKind::Syntax,
                "trailing characters, found U+FEFF (a byte-order mark) at line 1 column 4",
            ),
            (
                "[\u{1b}]",
                JsonErrorKind::Syntax,
                "expected value, found U+001B (a control character) at line 1 column 2",
            ),
            (
                "\"\\ud800\"",
                JsonErrorKind::LoneSurrogate,
                "`\\ud800` is a lone surrogate at line 1 column 2",
            ),
            (
                "\"\\udc00\\ud800\"",
                JsonErrorKind::LoneSurrogate,
                "`\\udc00` is a lone surrogate at line 1 column 2",
            ),
            ("\"\\x\"", JsonErrorKind::Syntax, "invalid escape at line 1 column 2"),
            (
                "\"a\tb\"",
                JsonErrorKind::Syntax,
                "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3",
            ),
            (
                "[[[]]]",
                JsonErrorKind::TooDeep,
                "arrays and objects nest more than 2 levels deep at line 1 column 3",
            ),
        ] {
            let err = Json::parse_with_depth(text, 2).unwrap_err();
            assert_eq!((err.kind, err.to_string().as_str()), (kind, message), "{text}");
        }
        // Deep text is refused without recursing into it.
        let deep = "[".repeat(1_000_000);
        assert_eq!(Json::parse(&deep).unwrap_err().kind, JsonErrorKind::TooDeep);
    }

    #[test]
    fn parse_unique_refuses_a_member_given_twice_at_the_second() {
        let err = Json::parse_unique("{\"a\":1,\n \"b\":{\"c\":1,\"c\":2}}", 8).unwrap_err();
        assert_eq!(err.kind, JsonErrorKind::DuplicateMember);
        assert_eq!(
            err.to_string(),
            "member `c` is given twice in one object; keep one at line 2 column 13"
        );
        // Beyond the linear scan: a set.
        let many: Vec<String> = (0..100).map(|i| format!("\"k{i}\":{i}")).collect();
        let text = format!("{{{},\"k7\":0}}", many.join(","));
        assert_eq!(
            Json::parse_unique(&text, 8).unwrap_err().kind,
            JsonErrorKind::DuplicateMember
        );
        assert!(Json::parse_unique(&format!("{{{}}}", many.join(",")), 8).is_ok());
        // The same key in two objects is fine; plain parse keeps both members.
        assert!(Json::parse_unique(r#"[{"a":1},{"a":2}]"#, 8).is_ok());
        assert!(Json::parse(r#"{"a":1,"a":2}"#).is_ok());
        // The member's name is quoted with its control characters escaped.
        let err = Json::parse_unique("{\"\\u001b]0;x\":1,\"\\u001b]0;x\":2}", 8).unwrap_err();
        assert!(
            err.message.starts_with(r"member `\u001b]0;x` is given twice"),
            "{}",
            err.message
        );
    }

    #[test]
    fn converts_from_serde_value() {
        let value: serde_json::Value = serde_json::json!({"k": [1, "two"]});
        assert_eq!(
            Json::from(value),
            Json::Object(vec![(
                "k".into(),
                Json::Array(vec![Json::Number(1.into()), Json::String("two".into())])
            )])
        );
    }
}
