//! A filter compiled for NDJSON log lines.
//!
//! [`CompiledFilter::matches_line`] decides one line from its bytes. It walks the line's
//! top-level members once, remembers where the values of the fields the filter names are,
//! and skips every other value without building anything: no document, no allocation per
//! line. The conditions were compiled once, per field: the value of a field is tested once
//! for all the conditions on it, the first time the tree needs one of them (one lookup in a
//! set of canonical texts for every `eq` and `in`, one vectorised search for all `contains`,
//! one lookup per length for `startsWith` and `endsWith`, one reading of a number for every
//! comparison), and the tree itself is jump code over those results, cut short as `and` and
//! `or` allow.
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

//!
//! # Where things are
//!
//! - [`stage1`]: the vectorised first pass (quote positions, byte classes); the only module
//!   of the crate allowed `unsafe`.
//! - `lexer`: the validating walk over the line's bytes (strings, numbers, literals,
//!   containers) that records where the fields the filter reads are.
//! - `program`: the filter compiled once: field slots, key hash, the conditions of each
//!   field compiled together (groups), the tree as jump code.
//! - `eval`: the groups tested on the recorded spans, and the jump code run on them.

mod eval;
mod lexer;
mod observed;
mod program;
mod sets;
mod stage1;
#[cfg(test)]
mod tests;

use std::fmt;

use self::eval::Line;
use self::lexer::{unescape, Quotes, CAREFUL, ESCAPES, INDEXED, PLAIN};
use self::program::{Program, Span};
use super::Filter;

pub use self::observed::{GroupValue, LineValue, TimestampCache};

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
    pub(super) fn at(offset: usize, reason: Malformation) -> MalformedLine {
        MalformedLine { offset, reason }
    }
}

pub(super) type Parsed<T> = Result<T, MalformedLine>;

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
/// use escpush_filter::{field, Malformation};
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
    /// Per group of conditions: the mask of those that hold on the current line, and
    /// whether it is known yet (see `eval`).
    held: Vec<u64>,
    known: Vec<u64>,
    /// The slots of the fields recorded for [`CompiledFilter::observed`], in the order given.
    observed: Vec<usize>,
}
impl CompiledFilter {
    /// Compiles `filter`; [`Filter::compile`] says the same.
    pub fn new(filter: &Filter) -> CompiledFilter {
        CompiledFilter::build(Some(filter), &[])
    }

    /// Compiles `filter`, with slots for the fields `observed` too (see `observed.rs`).
    fn build(filter: Option<&Filter>, observed: &[&str]) -> CompiledFilter {
        let (program, observed) = Program::with_observed(filter, observed);
        let slots = program.keys.len();
        let groups = program.groups.len();
        CompiledFilter {
            held: vec![0; groups],
            known: vec![0; groups.div_ceil(64)],
            program,
            spans: vec![Span::MISSING; slots],
            decoded: vec![Vec::new(); slots],
            buf: Vec::new(),
            stack: Vec::new(),
            quotes: Vec::new(),
            observed,
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
        self.known.fill(0);
        let mut line = self.line(line);
        Ok(line.eval())
    }

    /// The evaluation of the line whose spans the walk just recorded.
    fn line<'a>(&'a mut self, line: &'a [u8]) -> Line<'a> {
        Line {
            bytes: line,
            spans: &self.spans,
            decoded: &self.decoded,
            program: &self.program,
            held: &mut self.held,
            known: &mut self.known,
            buf: &mut self.buf,
        }
    }

    /// For the tests: the masks of every group of conditions on a line (each tested, whether
    /// the tree needs it or not).
    #[cfg(test)]
    fn masks(&mut self, line: &[u8]) -> Result<Vec<u64>, MalformedLine> {
        self.matches_line(line)?;
        let mut line = self.line(line);
        let groups = &line.program.groups;
        Ok(groups.iter().map(|g| line.test(g)).collect())
    }
}
