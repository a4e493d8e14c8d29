//! The validating walk over one line: RFC 8259's grammar checked completely (strings,
//! escapes, numbers, literals, nested containers, trailing bytes), recording the spans of
//! the fields the filter reads. See the [module docs](super) for the rules.

use memchr::{memchr, memchr2};

use super::program::{Kind, Span};
use super::{CompiledFilter, Malformation, MalformedLine, Parsed};

/// A `u64` with `0x01` in every byte, and one with `0x80` in every byte: for checking the
/// 8 bytes of a word at once.
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// How strings are read: the line's bytes decide which is safe (see [`stage1`]).
pub(super) const INDEXED: u8 = 0; // no backslash, no control character: a string ends at the next quote, from the list
pub(super) const PLAIN: u8 = 1; // the same, on a line too long for the list: the next quote is searched for
pub(super) const ESCAPES: u8 = 2; // backslashes, no control character
pub(super) const CAREFUL: u8 = 3; // control characters somewhere: every string byte is checked

/// The positions of a line's quotes when it has no backslash ([`stage1::index`]), and how
/// many of them the walk has passed: the next string opens at `at[next]` and closes at
/// `at[next + 1]`. Every string of the line goes through [`string_end`], in order, so the
/// two never disagree. Empty in the other modes.
pub(super) struct Quotes<'q> {
    pub(super) at: &'q [u32],
    pub(super) next: usize,
}

#[inline]
pub(super) fn skip_ws(line: &[u8], mut pos: usize) -> usize {
    while let Some(&b) = line.get(pos) {
        if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
            pos += 1;
        } else {
            break;
        }
    }
    pos
}

/// The index of the quote closing the string whose content starts at `start`, and whether
/// the string holds escapes. Checks escapes and, in `CAREFUL` mode, control characters.
#[inline]
pub(super) fn string_end<const MODE: u8>(line: &[u8], start: usize, q: &mut Quotes<'_>) -> Parsed<(usize, bool)> {
    let unterminated = || MalformedLine::at(line.len(), Malformation::UnexpectedEnd);
    if MODE == INDEXED {
        return match q.at.get(q.next..q.next + 2) {
            Some(&[open, close]) => {
                debug_assert_eq!(open as usize + 1, start, "the walk and the quote list agree");
                q.next += 2;
                Ok((close as usize, false))
            }
            _ => Err(unterminated()),
        };
    }
    if MODE == PLAIN {
        return find_quote::<false>(line, start)
            .map(|at| (at, false))
            .ok_or_else(unterminated);
    }
    let mut escaped = false;
    let mut pos = start;
    loop {
        let at = if MODE == ESCAPES {
            find_quote::<true>(line, pos).ok_or_else(unterminated)?
        } else {
            let i = line[pos..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .ok_or_else(unterminated)?;
            pos + i
        };
        match line[at] {
            b'"' => return Ok((at, escaped)),
            b'\\' => {
                escaped = true;
                pos = escape_end(line, at)?;
            }
            _ => return Err(MalformedLine::at(at, Malformation::ControlCharacter)),
        }
    }
}

/// The first `"` (or, with `BACKSLASH`, `\\`) at or after `pos`. Log strings are mostly
/// short, so the first 32 bytes are searched 8 at a time in a register (no call, no set-up);
/// longer strings go to `memchr`.
#[inline]
fn find_quote<const BACKSLASH: bool>(line: &[u8], mut pos: usize) -> Option<usize> {
    // A byte of `word` equal to the byte in every lane of `pattern` sets its high bit; bits
    // above the first match may be wrong, the lowest one never is.
    let matches = |word: u64, pattern: u64| {
        let x = word ^ pattern;
        x.wrapping_sub(ONES) & !x & HIGH
    };
    let limit = pos + 32;
    while let Some(bytes) = line.get(pos..pos + 8) {
        let word = u64::from_le_bytes(bytes.try_into().unwrap_or_default());
        let mut found = matches(word, ONES * u64::from(b'"'));
        if BACKSLASH {
            found |= matches(word, ONES * u64::from(b'\\'));
        }
        if found != 0 {
            return Some(pos + (found.trailing_zeros() / 8) as usize);
        }
        pos += 8;
        if pos >= limit {
            let rest = line.get(pos..)?;
            let i = if BACKSLASH {
                memchr2(b'"', b'\\', rest)
            } else {
                memchr(b'"', rest)
            };
            return i.map(|i| pos + i);
        }
    }
    line.get(pos..)?
        .iter()
        .position(|&b| b == b'"' || (BACKSLASH && b == b'\\'))
        .map(|i| pos + i)
}

/// Checks the escape at `at` (a backslash) and returns the index after it.
fn escape_end(line: &[u8], at: usize) -> Parsed<usize> {
    match line.get(at + 1) {
        None => Err(MalformedLine::at(line.len(), Malformation::UnexpectedEnd)),
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(at + 2),
        Some(b'u') => {
            let hex = line
                .get(at + 2..at + 6)
                .ok_or_else(|| MalformedLine::at(line.len(), Malformation::UnexpectedEnd))?;
            if hex.iter().all(u8::is_ascii_hexdigit) {
                Ok(at + 6)
            } else {
                Err(MalformedLine::at(at, Malformation::InvalidEscape))
            }
        }
        Some(_) => Err(MalformedLine::at(at, Malformation::InvalidEscape)),
    }
}

/// The end of the number starting at `pos`, and whether it is an integer (no fraction, no
/// exponent). JSON's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
#[inline]
pub(super) fn number_end(line: &[u8], pos: usize) -> Parsed<(usize, bool)> {
    if let Some(end) = short_integer_end(line, pos) {
        return Ok((end, true));
    }
    let digits = |mut p: usize| {
        while line.get(p).is_some_and(u8::is_ascii_digit) {
            p += 1;
        }
        p
    };
    let invalid = |p: usize| MalformedLine::at(p, Malformation::InvalidNumber);
    let mut p = pos;
    if line.get(p) == Some(&b'-') {
        p += 1;
    }
    match line.get(p) {
        Some(b'0') => p += 1,
        Some(b'1'..=b'9') => p = digits(p + 1),
        _ => return Err(invalid(p)),
    }
    let mut integer = true;
    if line.get(p) == Some(&b'.') {
        let end = digits(p + 1);
        if end == p + 1 {
            return Err(invalid(end));
        }
        p = end;
        integer = false;
    }
    if matches!(line.get(p), Some(b'e' | b'E')) {
        p += 1;
        if matches!(line.get(p), Some(b'+' | b'-')) {
            p += 1;
        }
        let end = digits(p);
        if end == p {
            return Err(invalid(end));
        }
        p = end;
        integer = false;
    }
    Ok((p, integer))
}

/// Where the number at `pos` ends if it is a short integer, most log numbers: a lone `0`, or
/// up to 7 digits, the first not `0` (found 8 bytes at a time). `None` for anything else
/// (sign, fraction, exponent, more digits, the end of the line near), which the full
/// grammar reads.
#[inline(always)]
#[allow(clippy::inline_always)] // measured: called, it costs a fifth of its time
pub(super) fn short_integer_end(line: &[u8], pos: usize) -> Option<usize> {
    match line.get(pos) {
        Some(b'1'..=b'9') => {
            let word = u64::from_le_bytes(line.get(pos..pos + 8)?.try_into().ok()?);
            // Per byte, without carries between bytes: at least `0`, at most `9`, and ASCII.
            let from_0 = ((word | HIGH) - ONES * 0x30) & HIGH;
            let to_9 = (((ONES * 0x39) | HIGH) - (word & !HIGH)) & HIGH;
            let not_digit = !(from_0 & to_9 & !word) & HIGH;
            if not_digit == 0 {
                return None;
            }
            let end = pos + (not_digit.trailing_zeros() / 8) as usize;
            (!matches!(line.get(end), Some(b'.' | b'e' | b'E'))).then_some(end)
        }
        Some(b'0') => match line.get(pos + 1) {
            Some(b'0'..=b'9' | b'.' | b'e' | b'E') => None,
            _ => Some(pos + 1),
        },
        _ => None,
    }
}

/// The end of the literal `word` at `pos` (of known length, so compared in registers).
#[inline]
fn literal_end<const N: usize>(line: &[u8], pos: usize, word: &[u8; N]) -> Parsed<usize> {
    if line.get(pos..pos + N) == Some(word) {
        Ok(pos + N)
    } else {
        Err(MalformedLine::at(pos, Malformation::InvalidLiteral))
    }
}

/// filter reads (the last occurrence of a key wins).
impl CompiledFilter {
    /// Reads the top-level object: checks all of it and records the spans of the fields the
    pub(super) fn read<const MODE: u8>(&mut self, line: &[u8], q: &mut Quotes<'_>) -> Parsed<()> {
        let mut pos = skip_ws(line, 0);
        if line.get(pos) != Some(&b'{') {
            return Err(MalformedLine::at(pos, Malformation::NotAnObject));
        }
        pos = skip_ws(line, pos + 1);
        if line.get(pos) == Some(&b'}') {
            return finish(line, pos + 1);
        }
        loop {
            if MODE == INDEXED {
                if let Some((next, last)) = self.compact_member(line, pos, q) {
                    if last {
                        return finish(line, next);
                    }
                    pos = next;
                    continue;
                }
            }
            match line.get(pos) {
                Some(b'"') => {}
                None => return Err(MalformedLine::at(pos, Malformation::UnexpectedEnd)),
                Some(_) => return Err(MalformedLine::at(pos, Malformation::Expected("a key (a string)"))),
            }
            let (key_end, key_escaped) = string_end::<MODE>(line, pos + 1, q)?;
            let slot = if key_escaped {
                unescape(&line[pos + 1..key_end], &mut self.buf);
                self.program.lookup(&self.buf)
            } else {
                self.program.lookup(&line[pos + 1..key_end])
            };
            pos = skip_ws(line, key_end + 1);
            match line.get(pos) {
                Some(b':') => {}
                None => return Err(MalformedLine::at(pos, Malformation::UnexpectedEnd)),
                Some(_) => return Err(MalformedLine::at(pos, Malformation::Expected("`:` after a key"))),
            }
            pos = skip_ws(line, pos + 1);
            // Strings and numbers, most of a log line, are read here; the rest out of line.
            let end = match line.get(pos) {
                Some(b'"') => {
                    let (end, escaped) = string_end::<MODE>(line, pos + 1, q)?;
                    if let Some(slot) = slot {
                        self.spans[slot] = Span {
                            kind: Kind::Str,
                            start: pos + 1,
                            end,
                            escaped,
                        };
                    }
                    end + 1
                }
                Some(b'0'..=b'9' | b'-') => {
                    let (end, integer) = number_end(line, pos)?;
                    if let Some(slot) = slot {
                        self.spans[slot] = Span {
                            kind: if integer { Kind::Int } else { Kind::Float },
                            start: pos,
                            end,
                            escaped: false,
                        };
                    }
                    end
                }
                _ => {
                    let (span, end) = self.value::<MODE>(line, pos, q)?;
                    if let Some(slot) = slot {
                        self.spans[slot] = span;
                    }
                    end
                }
            };
            pos = skip_ws(line, end);
            match line.get(pos) {
                Some(b',') => pos = skip_ws(line, pos + 1),
                Some(b'}') => return finish(line, pos + 1),
                None => return Err(MalformedLine::at(pos, Malformation::UnexpectedEnd)),
                Some(_) => {
                    return Err(MalformedLine::at(
                        pos,
                        Malformation::Expected("`,` or `}` after a value"),
                    ))
                }
            }
        }
    }

    /// The member at `pos` when it is written the way log lines mostly are, in `INDEXED`
    /// mode: `"key":value` followed by `,"` or `}`, without whitespace, the value a string, a
    /// short integer, `true`, `false`, `null` or `[]`. Records its span and returns where the
    /// next member starts (or the index after the `}`, with `true`). `None` for any other
    /// member, having changed nothing: the general code reads it (and finds any error).
    #[inline]
    fn compact_member(&mut self, line: &[u8], pos: usize, q: &mut Quotes<'_>) -> Option<(usize, bool)> {
        // The key's quotes are the next two of the list (`pos` is the first, if anything).
        let key_end = *q.at.get(q.next + 1)? as usize;
        let key = line.get(pos + 1..key_end)?;
        if line.get(pos) != Some(&b'"') || line.get(key_end + 1) != Some(&b':') {
            return None;
        }
        // The value's quotes, if it is a string, follow the key's (only `:` lies between).
        let (value, end, quotes) = compact_scalar(line, key_end + 2, q.at, q.next + 2)?;
        let next = match line.get(end..end + 2) {
            Some(b",\"") => (end + 1, false),
            _ if line.get(end) == Some(&b'}') => (end + 1, true),
            _ => return None,
        };
        if let Some(slot) = self.program.lookup(key) {
            self.spans[slot] = value;
        }
        q.next += 2 + quotes;
        Some(next)
    }

    /// Checks the value starting at `pos`; returns its span and the index after it.
    #[inline]
    fn value<const MODE: u8>(&mut self, line: &[u8], pos: usize, q: &mut Quotes<'_>) -> Parsed<(Span, usize)> {
        let span = |kind, start, end| Span {
            kind,
            start,
            end,
            escaped: false,
        };
        match line.get(pos) {
            Some(b'"') => {
                let (end, escaped) = string_end::<MODE>(line, pos + 1, q)?;
                Ok((
                    Span {
                        kind: Kind::Str,
                        start: pos + 1,
                        end,
                        escaped,
                    },
                    end + 1,
                ))
            }
            Some(b'-' | b'0'..=b'9') => {
                let (end, integer) = number_end(line, pos)?;
                let kind = if integer { Kind::Int } else { Kind::Float };
                Ok((span(kind, pos, end), end))
            }
            Some(b't') => literal_end(line, pos, b"true").map(|end| (span(Kind::True, pos, end), end)),
            Some(b'f') => literal_end(line, pos, b"false").map(|end| (span(Kind::False, pos, end), end)),
            Some(b'n') => literal_end(line, pos, b"null").map(|end| (span(Kind::Null, pos, end), end)),
            Some(b'{' | b'[') => {
                let kind = if line[pos] == b'{' { Kind::Object } else { Kind::Array };
                let end = self.container::<MODE>(line, pos, q)?;
                Ok((span(kind, pos, end), end))
            }
            None => Err(MalformedLine::at(pos, Malformation::UnexpectedEnd)),
            Some(_) => Err(MalformedLine::at(pos, Malformation::Expected("a value"))),
        }
    }

    /// Checks the object or array starting at `pos` and everything in it, without
    /// recursion; returns the index after it.
    fn container<const MODE: u8>(&mut self, line: &[u8], mut pos: usize, q: &mut Quotes<'_>) -> Parsed<usize> {
        let end_of_line = |pos: usize| MalformedLine::at(pos, Malformation::UnexpectedEnd);
        self.stack.clear();
        loop {
            // `pos` is at a value.
            match line.get(pos) {
                Some(&open @ (b'{' | b'[')) => {
                    pos = skip_ws(line, pos + 1);
                    let close = if open == b'{' { b'}' } else { b']' };
                    if line.get(pos) == Some(&close) {
                        pos += 1;
                    } else {
                        self.stack.push(open);
                        if open == b'{' {
                            pos = member_value::<MODE>(line, pos, q)?;
                        }
                        continue;
                    }
                }
                Some(_) => {
                    let compact = if MODE == INDEXED {
                        compact_scalar(line, pos, q.at, q.next)
                    } else {
                        None
                    };
                    pos = match compact {
                        Some((_, end, quotes)) => {
                            q.next += quotes;
                            end
                        }
                        None => self.value::<MODE>(line, pos, q)?.1,
                    };
                }
                None => return Err(end_of_line(pos)),
            }
            // After a value: close containers, or move on to the next value.
            loop {
                let Some(&open) = self.stack.last() else {
                    return Ok(pos);
                };
                pos = skip_ws(line, pos);
                match (open, line.get(pos)) {
                    (_, Some(b',')) => {
                        pos = skip_ws(line, pos + 1);
                        if open == b'{' {
                            pos = member_value::<MODE>(line, pos, q)?;
                        }
                        break;
                    }
                    (b'{', Some(b'}')) | (b'[', Some(b']')) => {
                        self.stack.pop();
                        pos += 1;
                    }
                    (_, None) => return Err(end_of_line(pos)),
                    (b'{', Some(_)) => {
                        return Err(MalformedLine::at(
                            pos,
                            Malformation::Expected("`,` or `}` after a value"),
                        ))
                    }
                    (_, Some(_)) => {
                        return Err(MalformedLine::at(
                            pos,
                            Malformation::Expected("`,` or `]` after a value"),
                        ))
                    }
                }
            }
        }
    }
}

/// The value at `at` when it is a string, a short integer, `true`, `false`, `null` or `[]`,
/// in `INDEXED` mode, `quotes[next..]` being the positions of the quotes from the value's on:
/// its span, the index after it, and how many quotes it holds. `None` for any other value, which the
/// general code reads.
#[inline(always)]
#[allow(clippy::inline_always)] // measured: called, the member loop is a tenth slower
fn compact_scalar(line: &[u8], at: usize, quotes: &[u32], next: usize) -> Option<(Span, usize, usize)> {
    let span = |kind, start, end| Span {
        kind,
        start,
        end,
        escaped: false,
    };
    Some(match *line.get(at)? {
        b'"' => {
            let close = *quotes.get(next + 1)? as usize;
            (span(Kind::Str, at + 1, close), close + 1, 2)
        }
        b'0'..=b'9' => {
            let end = short_integer_end(line, at)?;
            (span(Kind::Int, at, end), end, 0)
        }
        b't' if line.get(at..at + 4) == Some(b"true") => (span(Kind::True, at, at + 4), at + 4, 0),
        b'f' if line.get(at..at + 5) == Some(b"false") => (span(Kind::False, at, at + 5), at + 5, 0),
        b'n' if line.get(at..at + 4) == Some(b"null") => (span(Kind::Null, at, at + 4), at + 4, 0),
        b'[' if line.get(at + 1) == Some(&b']') => (span(Kind::Array, at, at + 2), at + 2, 0),
        _ => return None,
    })
}

/// Checks `"key":` at `pos` inside a nested object; returns the index of the value.
fn member_value<const MODE: u8>(line: &[u8], pos: usize, q: &mut Quotes<'_>) -> Parsed<usize> {
    match line.get(pos) {
        Some(b'"') => {}
        None => return Err(MalformedLine::at(pos, Malformation::UnexpectedEnd)),
        Some(_) => return Err(MalformedLine::at(pos, Malformation::Expected("a key (a string)"))),
    }
    let (end, _) = string_end::<MODE>(line, pos + 1, q)?;
    let pos = skip_ws(line, end + 1);
    match line.get(pos) {
        Some(b':') => Ok(skip_ws(line, pos + 1)),
        None => Err(MalformedLine::at(pos, Malformation::UnexpectedEnd)),
        Some(_) => Err(MalformedLine::at(pos, Malformation::Expected("`:` after a key"))),
    }
}

/// After the object: whitespace only.
fn finish(line: &[u8], pos: usize) -> Parsed<()> {
    let pos = skip_ws(line, pos);
    if pos == line.len() {
        Ok(())
    } else {
        Err(MalformedLine::at(pos, Malformation::TrailingData))
    }
}

/// The text of a checked string's content (between the quotes), escapes resolved. Escaped
/// surrogate pairs become one character; a lone surrogate is encoded as UTF-8 would encode
/// its code point (WTF-8), so that it can never equal valid UTF-8.
pub(super) fn unescape(raw: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while let Some(j) = memchr(b'\\', &raw[i..]) {
        let at = i + j;
        out.extend_from_slice(&raw[i..at]);
        i = at + 2;
        let byte = match raw[at + 1] {
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let mut code = hex4(&raw[at + 2..at + 6]);
                i = at + 6;
                if (0xD800..0xDC00).contains(&code) && raw[i..].starts_with(b"\\u") {
                    let low = hex4(&raw[i + 2..i + 6]);
                    if (0xDC00..0xE000).contains(&low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        i += 6;
                    }
                }
                push_code_point(code, out);
                continue;
            }
            other => other, // `"`, `\`, `/`
        };
        out.push(byte);
    }
    out.extend_from_slice(&raw[i..]);
}

fn hex4(hex: &[u8]) -> u32 {
    hex.iter().fold(0, |n, &b| {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => b - b'A' + 10,
        };
        n * 16 + u32::from(digit)
    })
}

#[allow(clippy::cast_possible_truncation)] // each byte is masked or shifted into range
fn push_code_point(code: u32, out: &mut Vec<u8>) {
    if code < 0x80 {
        out.push(code as u8);
    } else if code < 0x800 {
        out.extend_from_slice(&[0xC0 | (code >> 6) as u8, 0x80 | (code & 0x3F) as u8]);
    } else if code < 0x1_0000 {
        out.extend_from_slice(&[
            0xE0 | (code >> 12) as u8,
            0x80 | ((code >> 6) & 0x3F) as u8,
            0x80 | (code & 0x3F) as u8,
        ]);
    } else {
        out.extend_from_slice(&[
            0xF0 | (code >> 18) as u8,
            0x80 | ((code >> 12) & 0x3F) as u8,
            0x80 | ((code >> 6) & 0x3F) as u8,
            0x80 | (code & 0x3F) as u8,
        ]);
    }
}
