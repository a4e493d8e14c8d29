//! A filter compiled for NDJSON log lines.
//!
//! [`CompiledFilter::matches_line`] decides one line from its bytes. It walks the line's
//! top-level members once, remembers where the values of the fields the filter names are,
//! and skips every other value without building anything: no document, no allocation per
//! line. The conditions were compiled once (canonical texts, integer bounds, substring
//! searchers), so evaluating one is a byte comparison.
//!
//! # What a line is, and when it is malformed
//!
//! A line holds one JSON object (RFC 8259), in UTF-8, optionally surrounded by JSON
//! whitespace (space, tab, CR, LF). [`is_blank`] tells a line of whitespace only; a scan skips
//! those. Every line is checked **completely**, not only the fields the filter reads: UTF-8,
//! the grammar of every member and of nested objects and arrays, strings (no raw control
//! characters, valid escapes), numbers and literals, and nothing after the object. Anything
//! else is a [`MalformedLine`] with the byte offset and the reason, never a guess. The check
//! is cheap because strings, which are most of a log line, are not read byte by byte: one
//! vectorised pass over the line ([`stage1`]) lists the positions of its quotes
//! and tells whether it holds backslashes, control characters or non-ASCII bytes. On a line
//! without backslashes or control characters (most log lines), each string then ends at the
//! next quote of the list; other lines are read with searches that check escapes and, where
//! needed, every byte. On such a line, a member written the way log lines mostly are
//! (`"key":value,` without whitespace, the value a string, a short integer, a literal or
//! `[]`) is read by a short path; every other member goes through the general code, which is
//! also where every error is found, so the short path changes neither what is accepted nor
//! the offset and reason of any error (tested against the general code on random lines).
//!
//! The checks follow RFC 8259 and, where it leaves room, Python's `json.loads` (the
//! reference the benchmark peers use):
//!
//! - `NaN`, `Infinity` and `-Infinity`, which `json.loads` accepts, are not JSON: malformed.
//! - A value that is not an object (`[1]`, `"x"`, `5`) is malformed: a log line is a record.
//! - Escaped lone surrogates (`"\ud800"`) are accepted, as `json.loads` does (serde_json
//!   refuses them). They never equal a filter value, which is valid UTF-8; prefixes,
//!   suffixes and substrings around them still match.
//! - Integers may have any number of digits (`json.loads` refuses more than 4300), and
//!   nesting has no depth limit (`json.loads` stops at Python's recursion limit, serde_json
//!   at 128).
//!
//! # Evaluation, on a valid line
//!
//! Exactly [`Filter::matches`] on the record `json.loads` makes of the line:
//!
//! - Only top-level members are fields; keys compare after unescaping
//!   (`"Client\u0052equestHost"` is `ClientRequestHost`).
//! - Duplicate keys: the **last** occurrence wins, as in `json.loads` and serde_json.
//! - `null` is a missing field.
//! - Numbers: a number written without fraction or exponent is an integer whose canonical
//!   text is its decimal form (`-0` is `0`), whatever its size; any other number (`200.0`,
//!   `2e2`) is a float with no canonical text, compared exactly with integer bounds; a float
//!   beyond `f64` is infinite. (serde_json turns integers beyond 64 bits into floats and
//!   refuses infinite ones; this evaluator keeps to `json.loads`.)

use std::cmp::Ordering;
use std::fmt;

use memchr::{memchr, memchr2, memmem};

use super::ast::{Expr, Operator, Scalar, Value};
use super::eval::cmp_float_int;
use super::stage1;
use super::Filter;

/// Why a line is not a JSON object (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Malformation {
    /// The bytes are not UTF-8.
    NotUtf8,
    /// The line holds a JSON value that is not an object, or no JSON value.
    NotAnObject,
    /// The line ends inside the object.
    UnexpectedEnd,
    /// Another byte was expected here; the text says which.
    Expected(&'static str),
    /// A raw control character inside a string.
    ControlCharacter,
    /// A backslash not followed by a valid escape.
    InvalidEscape,
    /// A number that does not follow JSON's grammar (`01`, `1.`, `-`, `.5`).
    InvalidNumber,
    /// Something that starts like `true`, `false` or `null` and is not.
    InvalidLiteral,
    /// Bytes after the object.
    TrailingData,
}

impl fmt::Display for Malformation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Malformation::NotUtf8 => f.write_str("the bytes are not UTF-8"),
            Malformation::NotAnObject => f.write_str("the line is not a JSON object"),
            Malformation::UnexpectedEnd => f.write_str("the line ends inside the object"),
            Malformation::Expected(what) => write!(f, "expected {what}"),
            Malformation::ControlCharacter => f.write_str("a control character inside a string"),
            Malformation::InvalidEscape => f.write_str("an invalid escape in a string"),
            Malformation::InvalidNumber => f.write_str("an invalid number"),
            Malformation::InvalidLiteral => f.write_str("an invalid literal (not true, false or null)"),
            Malformation::TrailingData => f.write_str("data after the object"),
        }
    }
}

/// A line that is not one JSON object: where (byte offset in the line) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("byte {offset}: {reason}")]
pub struct MalformedLine {
    /// The byte of the line where the problem was found (0-based).
    pub offset: usize,
    /// What is wrong there.
    pub reason: Malformation,
}

impl MalformedLine {
    fn at(offset: usize, reason: Malformation) -> MalformedLine {
        MalformedLine { offset, reason }
    }
}

type Parsed<T> = Result<T, MalformedLine>;

/// Whether the line holds JSON whitespace only (space, tab, CR, LF), or nothing.
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

impl Filter {
    /// The filter compiled for NDJSON lines: see [`CompiledFilter`].
    pub fn compile(&self) -> CompiledFilter {
        CompiledFilter::new(self)
    }
}

/// A [`Filter`] compiled into an evaluator of NDJSON lines. See the [module docs](self) for
/// the exact rules.
///
/// It holds its own scratch space, so evaluation needs `&mut self`; clone it for each
/// thread (cloning is cheap).
///
/// ```
/// use escpush_core::{field, Malformation};
///
/// let mut f = (field("EdgeResponseStatus").ge(500) & field("ClientCountry").is_in(["cn", "ru"])).compile();
/// assert_eq!(f.matches_line(br#"{"EdgeResponseStatus":503,"ClientCountry":"cn"}"#), Ok(true));
/// assert_eq!(f.matches_line(br#"{"EdgeResponseStatus":"503","ClientCountry":"cn"}"#), Ok(false));
/// let err = f.matches_line(br#"{"EdgeResponseStatus":503,"#).unwrap_err();
/// assert_eq!((err.offset, err.reason), (26, Malformation::UnexpectedEnd));
/// ```
#[derive(Clone, Debug)]
pub struct CompiledFilter {
    program: Program,
    /// Where each field's value is in the current line.
    spans: Vec<Span>,
    /// The unescaped text of fields whose string value holds escapes, by slot.
    decoded: Vec<Vec<u8>>,
    /// Unescaped keys and array elements.
    buf: Vec<u8>,
    /// Open containers while a nested value is checked (`{` or `[`).
    stack: Vec<u8>,
    /// The positions of the current line's quotes (see [`stage1`]).
    quotes: Vec<u32>,
}

/// The immutable part: field names and the condition tree.
#[derive(Clone, Debug)]
struct Program {
    /// The names of the fields read, as UTF-8 bytes; a field's index is its slot.
    keys: Vec<Box<[u8]>>,
    /// A hash table of the slots, for a quick lookup of each member's key: the slots whose
    /// key hashes to `h` are `slots[starts[h]..starts[h + 1]]`. Most keys of a line are not
    /// read, and land in an empty bucket without a comparison.
    starts: Box<[u16; BUCKETS + 1]>,
    slots: Vec<usize>,
    /// Bit `n` is set when a key of `n` bytes is read (bit 63: 63 bytes or more): a key of
    /// another length is not looked up at all.
    lengths: u64,
    root: Node,
}

const BUCKETS: usize = 256;

/// Whether two byte strings are equal, without a call for the short ones (keys and values
/// of log lines mostly are): up to 32 bytes are compared as overlapping words.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let u32_at = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().unwrap_or_default());
    let u64_at = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or_default());
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=8 => u32_at(a, 0) == u32_at(b, 0) && u32_at(a, n - 4) == u32_at(b, n - 4),
        9..=16 => u64_at(a, 0) == u64_at(b, 0) && u64_at(a, n - 8) == u64_at(b, n - 8),
        17..=32 => {
            // Four words, without branches between them.
            let x = (u64_at(a, 0) ^ u64_at(b, 0)) | (u64_at(a, 8) ^ u64_at(b, 8));
            let y = (u64_at(a, n - 16) ^ u64_at(b, n - 16)) | (u64_at(a, n - 8) ^ u64_at(b, n - 8));
            x | y == 0
        }
        _ => a == b,
    }
}

/// A cheap hash of a key: its length and three of its bytes.
#[inline]
fn bucket(key: &[u8]) -> usize {
    let n = key.len();
    match (key.first(), key.last()) {
        (Some(&first), Some(&last)) => {
            (n * 7 + usize::from(first) * 3 + usize::from(last) * 5 + usize::from(key[n / 2])) % BUCKETS
        }
        _ => 0,
    }
}

#[derive(Clone, Debug)]
enum Node {
    Cond(Cond),
    All(Vec<Node>),
    Any(Vec<Node>),
}

#[derive(Clone, Debug)]
struct Cond {
    slot: usize,
    negated: bool,
    test: Test,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Lt,
    Leq,
    Gt,
    Geq,
}

/// The un-negated operator with its value prepared.
#[derive(Clone, Debug)]
enum Test {
    /// The field's canonical text equals this.
    Eq(Box<[u8]>),
    /// The field's canonical text (or any element's) is one of these.
    In(Box<[Box<[u8]>]>),
    /// The field is a number in this relation with the bound.
    Cmp(Cmp, i64),
    StartsWith(Box<[u8]>),
    EndsWith(Box<[u8]>),
    /// Substring of a string field; element equality on an array field.
    Contains(Box<memmem::Finder<'static>>),
    /// A pairing of operator and value that never holds (the filter's shape rules it out).
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Missing,
    Null,
    True,
    False,
    Int,
    Float,
    Str,
    Array,
    Object,
}

/// A value in the current line: strings span their content (between the quotes), other
/// values their text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    kind: Kind,
    start: usize,
    end: usize,
    /// A string with at least one escape: its text is in `decoded`.
    escaped: bool,
}

impl Span {
    const MISSING: Span = Span {
        kind: Kind::Missing,
        start: 0,
        end: 0,
        escaped: false,
    };
}

fn text_bytes(s: &Scalar) -> Box<[u8]> {
    s.canonical_text().as_bytes().into()
}

impl Program {
    fn new(filter: &Filter) -> Program {
        let mut keys: Vec<Box<[u8]>> = Vec::new();
        let root = Program::compile(filter.expr(), &mut keys);
        let mut slots: Vec<usize> = (0..keys.len()).collect();
        slots.sort_by_key(|&slot| bucket(&keys[slot]));
        let mut starts = Box::new([0u16; BUCKETS + 1]);
        for h in 0..BUCKETS {
            let n = slots.iter().filter(|&&slot| bucket(&keys[slot]) == h).count();
            starts[h + 1] = starts[h] + u16::try_from(n).expect("fewer than 65536 fields");
        }
        let lengths = keys.iter().fold(0, |bits, key| bits | 1 << key.len().min(63));
        Program {
            keys,
            starts,
            slots,
            lengths,
            root,
        }
    }

    fn compile(expr: &Expr, keys: &mut Vec<Box<[u8]>>) -> Node {
        match expr {
            Expr::And(items) => Node::All(items.iter().map(|e| Program::compile(e, keys)).collect()),
            Expr::Or(items) => Node::Any(items.iter().map(|e| Program::compile(e, keys)).collect()),
            Expr::Condition(c) => {
                let key = c.key.as_bytes();
                let slot = keys.iter().position(|k| &**k == key).unwrap_or_else(|| {
                    keys.push(key.into());
                    keys.len() - 1
                });
                let negated = c.operator.is_negative();
                let positive = if negated { c.operator.negated() } else { c.operator };
                let test = match (positive, &c.value) {
                    (Operator::In, Value::Set(set)) => Test::In(set.iter().map(text_bytes).collect()),
                    (Operator::Eq, Value::Scalar(s)) => Test::Eq(text_bytes(s)),
                    (Operator::Lt | Operator::Leq | Operator::Gt | Operator::Geq, Value::Scalar(s)) => {
                        let cmp = match positive {
                            Operator::Lt => Cmp::Lt,
                            Operator::Leq => Cmp::Leq,
                            Operator::Gt => Cmp::Gt,
                            _ => Cmp::Geq,
                        };
                        s.as_integer().map_or(Test::Never, |bound| Test::Cmp(cmp, bound))
                    }
                    (Operator::StartsWith, Value::Scalar(s)) => Test::StartsWith(text_bytes(s)),
                    (Operator::EndsWith, Value::Scalar(s)) => Test::EndsWith(text_bytes(s)),
                    (Operator::Contains, Value::Scalar(s)) => Test::Contains(Box::new(
                        memmem::Finder::new(s.canonical_text().as_bytes()).into_owned(),
                    )),
                    _ => Test::Never,
                };
                Node::Cond(Cond { slot, negated, test })
            }
        }
    }

    /// The slot of a member's key, if the filter reads that field.
    #[inline]
    fn lookup(&self, key: &[u8]) -> Option<usize> {
        if self.lengths >> key.len().min(63) & 1 == 0 {
            return None;
        }
        let h = bucket(key);
        let (lo, hi) = (usize::from(self.starts[h]), usize::from(self.starts[h + 1]));
        if lo == hi {
            return None;
        }
        self.lookup_in(&self.slots[lo..hi], key)
    }

    /// The slot among `slots` whose key is `key`. Apart from the rest of the lookup, which
    /// is all most keys need: inlined, the comparison makes the member loop slower.
    #[inline(never)]
    fn lookup_in(&self, slots: &[usize], key: &[u8]) -> Option<usize> {
        slots.iter().copied().find(|&slot| same(&self.keys[slot], key))
    }
}

/// How strings are read: the line's bytes decide which is safe (see [`stage1`]).
const INDEXED: u8 = 0; // no backslash, no control character: a string ends at the next quote, from the list
const PLAIN: u8 = 1; // the same, on a line too long for the list: the next quote is searched for
const ESCAPES: u8 = 2; // backslashes, no control character
const CAREFUL: u8 = 3; // control characters somewhere: every string byte is checked

/// The positions of a line's quotes when it has no backslash ([`stage1::index`]), and how
/// many of them the walk has passed: the next string opens at `at[next]` and closes at
/// `at[next + 1]`. Every string of the line goes through [`string_end`], in order, so the
/// two never disagree. Empty in the other modes.
struct Quotes<'q> {
    at: &'q [u32],
    next: usize,
}

#[inline]
fn skip_ws(line: &[u8], mut pos: usize) -> usize {
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
fn string_end<const MODE: u8>(line: &[u8], start: usize, q: &mut Quotes<'_>) -> Parsed<(usize, bool)> {
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
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
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
fn number_end(line: &[u8], pos: usize) -> Parsed<(usize, bool)> {
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
fn short_integer_end(line: &[u8], pos: usize) -> Option<usize> {
    match line.get(pos) {
        Some(b'1'..=b'9') => {
            const ONES: u64 = 0x0101_0101_0101_0101;
            const HIGH: u64 = 0x8080_8080_8080_8080;
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

impl CompiledFilter {
    /// Compiles `filter`; [`Filter::compile`] says the same.
    pub fn new(filter: &Filter) -> CompiledFilter {
        let program = Program::new(filter);
        let slots = program.keys.len();
        CompiledFilter {
            program,
            spans: vec![Span::MISSING; slots],
            decoded: vec![Vec::new(); slots],
            buf: Vec::new(),
            stack: Vec::new(),
            quotes: Vec::new(),
        }
    }

    /// Whether one line (without its line break) passes the filter, or why it is not a JSON
    /// object. A blank line is malformed here; scans skip blank lines ([`is_blank`]).
    pub fn matches_line(&mut self, line: &[u8]) -> Result<bool, MalformedLine> {
        let (quotes, bytes) = if line.len() <= stage1::MAX_LINE {
            stage1::index(line, &mut self.quotes)
        } else {
            (0, stage1::classify(line))
        };
        if bytes.non_ascii {
            if let Err(e) = std::str::from_utf8(line) {
                return Err(MalformedLine::at(e.valid_up_to(), Malformation::NotUtf8));
            }
        }
        let mode = if bytes.control {
            CAREFUL
        } else if bytes.backslash {
            ESCAPES
        } else if line.len() <= stage1::MAX_LINE {
            INDEXED
        } else {
            PLAIN
        };
        self.evaluate(line, mode, quotes)
    }

    /// Checks and evaluates a line of UTF-8 in `mode`, which must suit its bytes; in
    /// `INDEXED` mode, `self.quotes[..quotes]` are the positions of its quotes.
    fn evaluate(&mut self, line: &[u8], mode: u8, quotes: usize) -> Result<bool, MalformedLine> {
        self.spans.fill(Span::MISSING);
        let list = std::mem::take(&mut self.quotes);
        let mut q = Quotes {
            at: &list[..quotes],
            next: 0,
        };
        let read = match mode {
            INDEXED => self.read::<INDEXED>(line, &mut q),
            PLAIN => self.read::<PLAIN>(line, &mut q),
            ESCAPES => self.read::<ESCAPES>(line, &mut q),
            _ => self.read::<CAREFUL>(line, &mut q),
        };
        self.quotes = list;
        read?;
        for (slot, span) in self.spans.iter().enumerate() {
            if span.escaped {
                unescape(&line[span.start..span.end], &mut self.decoded[slot]);
            }
        }
        let line = Line {
            bytes: line,
            spans: &self.spans,
            decoded: &self.decoded,
        };
        Ok(line.eval(&self.program.root, &mut self.buf))
    }

    /// Reads the top-level object: checks all of it and records the spans of the fields the
    /// filter reads (the last occurrence of a key wins).
    fn read<const MODE: u8>(&mut self, line: &[u8], q: &mut Quotes<'_>) -> Parsed<()> {
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
fn unescape(raw: &[u8], out: &mut Vec<u8>) {
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

/// A checked line with the spans of the fields the filter reads.
struct Line<'a> {
    bytes: &'a [u8],
    spans: &'a [Span],
    decoded: &'a [Vec<u8>],
}

impl Line<'_> {
    fn eval(&self, node: &Node, buf: &mut Vec<u8>) -> bool {
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
fn cmp_int_text(text: &[u8], bound: i64) -> Ordering {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::field;
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
}
