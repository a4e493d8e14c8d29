//! One field's value as a job writes it: the ndjson and csv rules, and the conversion of a
//! timestamp field to the job's `timestamp_format`. The choices the docs leave open are the
//! rows of [`UNDOCUMENTED`](super::UNDOCUMENTED); this file is their code.

use std::io::Write as _;

use escpush_filter::{civil_from_unix, LineValue, Timestamp};

use super::resolve::{OutputType, TimestampFormat};

/// How values are written: the output type, and whether an object or array goes as a string
/// (`stringify_object`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Rules {
    pub output_type: OutputType,
    pub stringify_object: bool,
}

impl Rules {
    /// Appends the value of a field to `out`; `time` is the job's timestamp format when the
    /// field is one of the dataset's timestamps.
    pub(super) fn write(self, value: LineValue<'_>, time: Option<TimestampFormat>, out: &mut Vec<u8>) {
        if let Some(format) = time {
            // Missing or null is written as null below; a value that is no time as the line
            // holds it.
            if let Timestamp::At { seconds, nanos } = value.timestamp() {
                return Rules::write_time(format, seconds, nanos, out);
            }
        }
        match value {
            LineValue::Bool(true) => out.extend_from_slice(b"true"),
            LineValue::Bool(false) => out.extend_from_slice(b"false"),
            LineValue::Int(text) | LineValue::Float(text) => out.extend_from_slice(text),
            LineValue::Str(text) => self.string(text, out),
            LineValue::Array(_) | LineValue::Object(_) => {
                let start = out.len();
                value.push_compact(out);
                match (self.output_type, self.stringify_object) {
                    (OutputType::Ndjson, false) => {}
                    // Compact JSON holds no control character: only `"` and `\` are escaped.
                    (OutputType::Ndjson, true) => quote_in_place(out, start, |b| matches!(b, b'"' | b'\\'), b'\\'),
                    (OutputType::Csv, _) => quote_in_place(out, start, |b| b == b'"', b'"'),
                }
            }
            // Null, missing, and a kind of value escpush-filter adds later (as null until this
            // file knows it).
            _ => out.extend_from_slice(b"null"),
        }
    }

    /// A string: JSON's quoting in ndjson, RFC 4180's in csv.
    fn string(self, text: &[u8], out: &mut Vec<u8>) {
        match self.output_type {
            OutputType::Ndjson => json_string(text, out),
            OutputType::Csv => csv_string(text, out),
        }
    }

    /// A time in `format`: an integer, or RFC 3339 text, which holds nothing either type
    /// quotes, in double quotes. The digits are written by hand (a preview writes two times
    /// a record); [`Rules::write_time_fmt`] is the same text through `write!`, for the years
    /// RFC 3339 cannot hold in four digits and as the tests' reference.
    fn write_time(format: TimestampFormat, seconds: i64, nanos: u32, out: &mut Vec<u8>) {
        let ((y, m, d), (hh, mm, ss)) = civil_from_unix(seconds);
        if !(0..=9999).contains(&y) || nanos >= 1_000_000_000 {
            return Rules::write_time_fmt(format, seconds, nanos, out);
        }
        let fraction = match format {
            TimestampFormat::UnixNano => {
                return push_int(i128::from(seconds) * 1_000_000_000 + i128::from(nanos), out);
            }
            TimestampFormat::Unix => return push_int(i128::from(seconds), out),
            TimestampFormat::Rfc3339 => None,
            TimestampFormat::Rfc3339Ms => Some((nanos / 1_000_000, 3)),
            TimestampFormat::Rfc3339Ns => Some((nanos, 9)),
        };
        // Every part is within its width here: the year in 0..=9999, the rest by the calendar.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let part = |n: i64| n as u32;
        out.push(b'"');
        push_digits(part(y), 4, out);
        out.push(b'-');
        push_digits(part(m), 2, out);
        out.push(b'-');
        push_digits(part(d), 2, out);
        out.push(b'T');
        push_digits(part(hh), 2, out);
        out.push(b':');
        push_digits(part(mm), 2, out);
        out.push(b':');
        push_digits(part(ss), 2, out);
        if let Some((n, width)) = fraction {
            out.push(b'.');
            push_digits(n, width, out);
        }
        out.extend_from_slice(b"Z\"");
    }

    /// [`Rules::write_time`] through `write!`: every year (`{y:04}` of a year before 0 or
    /// after 9999 is what Rust prints).
    fn write_time_fmt(format: TimestampFormat, seconds: i64, nanos: u32, out: &mut Vec<u8>) {
        let ((y, m, d), (hh, mm, ss)) = civil_from_unix(seconds);
        let _ = match format {
            TimestampFormat::UnixNano => write!(out, "{}", i128::from(seconds) * 1_000_000_000 + i128::from(nanos)),
            TimestampFormat::Unix => write!(out, "{seconds}"),
            TimestampFormat::Rfc3339 => write!(out, "\"{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z\""),
            TimestampFormat::Rfc3339Ms => write!(
                out,
                "\"{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.{:03}Z\"",
                nanos / 1_000_000
            ),
            TimestampFormat::Rfc3339Ns => write!(out, "\"{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.{nanos:09}Z\""),
        };
    }
}

/// `n` in decimal, zero-padded to `width` digits (`n` has at most `width` digits).
#[inline]
fn push_digits(mut n: u32, width: usize, out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + width, b'0');
    for at in out[start..].iter_mut().rev() {
        #[allow(clippy::cast_possible_truncation)]
        let digit = (n % 10) as u8;
        *at = b'0' + digit;
        n /= 10;
    }
}

/// `n` in decimal, as `{n}` writes it.
fn push_int(n: i128, out: &mut Vec<u8>) {
    if n < 0 {
        out.push(b'-');
    }
    let mut digits = [0u8; 40];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        #[allow(clippy::cast_possible_truncation)]
        let digit = (rest % 10) as u8;
        digits[at] = b'0' + digit;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Makes `out[start..]` a string in place (no allocation): in double quotes, each byte that
/// `quoted` picks preceded by `escape` (`\` for JSON, `"` for csv, which doubles quotes).
fn quote_in_place(out: &mut Vec<u8>, start: usize, quoted: impl Fn(u8) -> bool, escape: u8) {
    let extra = out[start..].iter().filter(|&&b| quoted(b)).count();
    let old_end = out.len();
    out.resize(old_end + extra + 2, 0);
    let mut to = out.len() - 1;
    out[to] = b'"';
    for from in (start..old_end).rev() {
        let b = out[from];
        to -= 1;
        out[to] = b;
        if quoted(b) {
            to -= 1;
            out[to] = escape;
        }
    }
    out[start] = b'"';
}

/// `text` as a JSON string: `"` and `\` escaped, control characters as `\b \f \n \r \t` or
/// `\u00XX`, everything else as it is (UTF-8; no HTML escapes). A lone surrogate (which the
/// line may hold escaped, and its reading keeps as the three bytes UTF-8 would give its code
/// point) is written escaped again, `\udXXX`.
pub(crate) fn json_string(text: &[u8], out: &mut Vec<u8>) {
    if !needs_escape(text) {
        // Nothing to escape (the usual text): copied whole.
        out.reserve(text.len() + 2);
        out.push(b'"');
        out.extend_from_slice(text);
        out.push(b'"');
        return;
    }
    out.push(b'"');
    // Bytes that need nothing are copied in runs.
    let (mut run, mut i) = (0, 0);
    while i < text.len() {
        if plain_word(text, i, json_special) {
            i += 8;
            continue;
        }
        let b = text[i];
        if !json_special_byte(b) {
            i += 1;
            continue;
        }
        out.extend_from_slice(&text[run..i]);
        let mut len = 1;
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            0xED if text.get(i + 1).is_some_and(|&n| n >= 0xA0) && i + 2 < text.len() => {
                let code =
                    (u32::from(b & 0x0F) << 12) | (u32::from(text[i + 1] & 0x3F) << 6) | u32::from(text[i + 2] & 0x3F);
                let _ = write!(out, "\\u{code:04x}");
                len = 3;
            }
            0xED => out.push(b),
            _ => {
                let _ = write!(out, "\\u{b:04x}");
            }
        }
        i += len;
        run = i;
    }
    out.extend_from_slice(&text[run..]);
    out.push(b'"');
}

/// Non-zero when a byte of `w` is one [`json_string`] escapes (or may: `0xED` leads a
/// surrogate's three bytes).
#[inline]
fn json_special(w: u64) -> u64 {
    has_less(w, 0x20) | has_byte(w, b'"') | has_byte(w, b'\\') | has_byte(w, 0xED)
}

/// [`json_special`] of one byte.
#[inline]
fn json_special_byte(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\' || b == 0xED
}

/// Whether a byte of `text` is one [`json_special`] finds: 8 bytes a step, the last word
/// overlapping the one before it; bytes one by one below 8.
#[inline]
fn needs_escape(text: &[u8]) -> bool {
    let word = |i: usize| {
        text.get(i..i + 8)
            .and_then(|w| w.try_into().ok())
            .map_or(0, u64::from_le_bytes)
    };
    let n = text.len();
    if n < 8 {
        return text.iter().copied().any(json_special_byte);
    }
    let mut i = 0;
    while i + 8 <= n {
        if json_special(word(i)) != 0 {
            return true;
        }
        i += 8;
    }
    i < n && json_special(word(n - 8)) != 0
}

/// Whether the 8 bytes of `text` from `i` (when there are 8) hold none that `special`
/// finds: such a word is copied as it is, 8 bytes a step (strings are most of a record).
#[inline]
fn plain_word(text: &[u8], i: usize, special: impl Fn(u64) -> u64) -> bool {
    text.get(i..i + 8)
        .and_then(|w| w.try_into().ok())
        .is_some_and(|w| special(u64::from_le_bytes(w)) == 0)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Non-zero when a byte of `w` is below `n` (`n` at most 128), zero otherwise.
#[inline]
fn has_less(w: u64, n: u8) -> u64 {
    w.wrapping_sub(ONES * u64::from(n)) & !w & HIGHS
}

/// Non-zero when a byte of `w` is `b`, zero otherwise.
#[inline]
fn has_byte(w: u64, b: u8) -> u64 {
    has_less(w ^ (ONES * u64::from(b)), 1)
}

/// `text` as a csv string (RFC 4180): in double quotes, each `"` doubled, every other
/// character as it is (a line break too). A lone surrogate is U+FFFD (three bytes, as it was).
pub(super) fn csv_string(text: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    let (mut run, mut i) = (0, 0);
    while i < text.len() {
        if plain_word(text, i, |w| has_byte(w, b'"') | has_byte(w, 0xED)) {
            i += 8;
            continue;
        }
        let b = text[i];
        if b != b'"' && b != 0xED {
            i += 1;
            continue;
        }
        out.extend_from_slice(&text[run..i]);
        let mut len = 1;
        if b == b'"' {
            out.extend_from_slice(b"\"\"");
        } else if text.get(i + 1).is_some_and(|&n| n >= 0xA0) && i + 2 < text.len() {
            out.extend_from_slice("\u{FFFD}".as_bytes());
            len = 3;
        } else {
            out.push(b);
        }
        i += len;
        run = i;
    }
    out.extend_from_slice(&text[run..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ndjson(value: LineValue<'_>, time: Option<TimestampFormat>) -> String {
        let mut out = Vec::new();
        Rules {
            output_type: OutputType::Ndjson,
            stringify_object: false,
        }
        .write(value, time, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn csv(value: LineValue<'_>) -> String {
        let mut out = Vec::new();
        Rules {
            output_type: OutputType::Csv,
            stringify_object: false,
        }
        .write(value, None, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn values_in_each_type() {
        assert_eq!(
            ndjson(LineValue::Str(b"a\"b\\c\n\x01\x7f\xc3\xa9<&>"), None),
            "\"a\\\"b\\\\c\\n\\u0001\x7fé<&>\""
        );
        assert_eq!(csv(LineValue::Str(b"a\"b,c\nd")), "\"a\"\"b,c\nd\"");
        assert_eq!(ndjson(LineValue::Str(&[0xED, 0xA0, 0x80]), None), "\"\\ud800\"");
        // U+D55C is ED 95 9C in UTF-8: no surrogate.
        assert_eq!(ndjson(LineValue::Str("한\"".as_bytes()), None), "\"한\\\"\"");
        assert_eq!(csv(LineValue::Str("한\"".as_bytes())), "\"한\"\"\"");
        assert_eq!(csv(LineValue::Str(&[b'x', 0xED, 0xA0, 0x80])), "\"x\u{FFFD}\"");
        for (v, text) in [
            (LineValue::Int(b"-12"), "-12"),
            (LineValue::Float(b"2.5e3"), "2.5e3"),
            (LineValue::Bool(true), "true"),
            (LineValue::Null, "null"),
            (LineValue::Missing, "null"),
        ] {
            assert_eq!(ndjson(v, None), text);
            assert_eq!(csv(v), text);
        }
        assert_eq!(
            ndjson(LineValue::Array(br#"[1, "a ,b" , {"k" : null}]"#), None),
            r#"[1,"a ,b",{"k":null}]"#
        );
        assert_eq!(csv(LineValue::Object(br#"{"k" : "v"}"#)), r#""{""k"":""v""}""#);
        let mut out = Vec::new();
        Rules {
            output_type: OutputType::Ndjson,
            stringify_object: true,
        }
        .write(LineValue::Object(br#"{"k" : "v"}"#), None, &mut out);
        assert_eq!(out, br#""{\"k\":\"v\"}""#);
    }

    /// The digits written by hand are `write!`'s, byte for byte: every format, across the
    /// calendar's edges (leap days, centuries, the epoch, years 0 and 9999 and beyond), and
    /// fractions of every width.
    #[test]
    fn hand_written_times_are_write_fmt() {
        const FORMATS: [TimestampFormat; 5] = [
            TimestampFormat::UnixNano,
            TimestampFormat::Unix,
            TimestampFormat::Rfc3339,
            TimestampFormat::Rfc3339Ms,
            TimestampFormat::Rfc3339Ns,
        ];
        let mut seconds: Vec<i64> = vec![
            0,
            -1,
            1,
            86_399,
            86_400,
            951_782_400,     // 2000-02-29
            4_107_542_399,   // 2100-02-28T23:59:59
            -62_167_219_200, // 0000-01-01
            -62_167_219_201, // -0001-12-31T23:59:59
            253_402_300_799, // 9999-12-31T23:59:59
            253_402_300_800, // 10000-01-01
            i64::MAX / 1_000_000_000,
            i64::MIN / 1_000_000_000,
        ];
        // A walk over four centuries in steps that reach every hour, minute and second.
        let mut s = -62_167_219_200i64;
        while s < 253_402_300_800 {
            seconds.push(s);
            s += 7_919_993;
        }
        for &second in &seconds {
            for nanos in [0, 1, 9, 999_999, 1_000_000, 123_456_789, 999_999_999] {
                for format in FORMATS {
                    let (mut fast, mut reference) = (Vec::new(), Vec::new());
                    Rules::write_time(format, second, nanos, &mut fast);
                    Rules::write_time_fmt(format, second, nanos, &mut reference);
                    assert_eq!(
                        String::from_utf8(fast).unwrap(),
                        String::from_utf8(reference).unwrap(),
                        "{second} s {nanos} ns as {format:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn timestamps_in_each_format() {
        let nanos = LineValue::Int(b"1795305630123456789");
        let text = LineValue::Str(b"2026-11-22T01:00:30.123456789+01:00");
        for v in [nanos, text] {
            assert_eq!(ndjson(v, Some(TimestampFormat::UnixNano)), "1795305630123456789");
            assert_eq!(ndjson(v, Some(TimestampFormat::Unix)), "1795305630");
            assert_eq!(ndjson(v, Some(TimestampFormat::Rfc3339)), "\"2026-11-22T00:00:30Z\"");
            assert_eq!(
                ndjson(v, Some(TimestampFormat::Rfc3339Ms)),
                "\"2026-11-22T00:00:30.123Z\""
            );
            assert_eq!(
                ndjson(v, Some(TimestampFormat::Rfc3339Ns)),
                "\"2026-11-22T00:00:30.123456789Z\""
            );
        }
        // Not a time: as the line holds it; missing: null.
        assert_eq!(ndjson(LineValue::Str(b"soon"), Some(TimestampFormat::Unix)), "\"soon\"");
        assert_eq!(ndjson(LineValue::Float(b"1.5"), Some(TimestampFormat::Unix)), "1.5");
        assert_eq!(ndjson(LineValue::Missing, Some(TimestampFormat::Rfc3339)), "null");
        assert_eq!(
            ndjson(LineValue::Int(b"-1"), Some(TimestampFormat::Rfc3339)),
            "\"1969-12-31T23:59:59Z\""
        );
    }

    /// The 8-byte steps of `json_string` and `csv_string` agree with their byte steps: every
    /// byte value, and a lone surrogate, at every place of strings around a word's length.
    #[test]
    fn strings_are_quoted_the_same_in_words_and_bytes() {
        type Write = fn(&[u8], &mut Vec<u8>);
        let inner = |write: Write, piece: &[u8]| {
            let mut out = Vec::new();
            write(piece, &mut out);
            out[1..out.len() - 1].to_vec()
        };
        let writers: [Write; 2] = [json_string, csv_string];
        let pieces: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).chain([b"\xED\xA0\x80".to_vec()]).collect();
        for write in writers {
            for piece in &pieces {
                let quoted = inner(write, piece);
                for len in 0..20 {
                    for at in 0..=len {
                        let mut text = vec![b'a'; len];
                        text.splice(at..at, piece.iter().copied());
                        let mut expected = vec![b'"'];
                        expected.extend(std::iter::repeat_n(b'a', at));
                        expected.extend_from_slice(&quoted);
                        expected.extend(std::iter::repeat_n(b'a', len - at));
                        expected.push(b'"');
                        let mut out = Vec::new();
                        write(&text, &mut out);
                        assert_eq!(out, expected, "{piece:?} at {at} of {len}");
                    }
                }
            }
        }
    }
}
