//! The error of text that is not a filter: where (line, column, a caret under the spot) and
//! what, with the code a [`Problem`] carries, so that it converts to a [`FilterError`].

use std::fmt;

use crate::problem::{FilterError, Problem, ProblemCode};
use crate::shown;

/// Text that does not read as a filter: the first problem, with its position.
///
/// Lines end at every line break an editor shows (LF, CR LF, CR, VT, FF, NEL, U+2028,
/// U+2029). The line shown under the message writes each character that is not printable
/// as its escape (`\u001b`), and the caret is placed by terminal columns (a CJK character
/// takes two, a combining accent none, an escape its length; a tab is copied), so it sits
/// under the spot: see `crate::shown`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// 1-based line of the spot.
    pub line: usize,
    /// 1-based column of the spot, in characters of the line as written (a control
    /// character counts one, though it is shown as an escape).
    pub column: usize,
    /// How many terminal columns the caret underlines (at least one; at most the shown part).
    pub width: usize,
    /// The line of text holding the spot, as shown: each character that is not printable
    /// written as its escape, and a line longer than [`TextError::SHOWN`] columns cut to a
    /// window around the spot, `…` marking each cut (a 10 MB filter on one line gives a
    /// short message).
    pub source_line: String,
    /// What goes before the caret: a space per terminal column of `source_line` before the
    /// spot, its tabs copied.
    pad: String,
    /// The kind of problem.
    pub code: ProblemCode,
    /// What is wrong and, where known, what was meant.
    pub message: String,
}

impl TextError {
    /// The widest line shown whole under an error, in terminal columns.
    pub const SHOWN: usize = 120;

    /// An error at byte offset `start` .. `end` of `text` (for a reader of another syntax
    /// that holds a filter's text, as escpush-terraform's of HCL).
    pub fn at(text: &str, start: usize, end: usize, code: ProblemCode, message: impl Into<String>) -> Self {
        let start = shown::floor_char(text, start.min(text.len()));
        let end = shown::floor_char(text, end.clamp(start, text.len()));
        let (line, line_start) = shown::line_of(text, start);
        let line_end = shown::line_end(text, start);
        let column = text[line_start..start].chars().count() + 1;
        let (source_line, pad, width) = window(
            &text[line_start..line_end],
            start - line_start,
            end.min(line_end) - line_start,
        );
        TextError {
            line,
            column,
            width,
            source_line,
            pad,
            code,
            message: shown::message(&message.into()).into_owned(),
        }
    }

    /// `line L, column C`, the position as a problem's path.
    pub fn position(&self) -> String {
        format!("line {}, column {}", self.line, self.column)
    }

    /// The line of text and a caret under the spot, on two lines.
    pub fn caret(&self) -> String {
        format!("    {}\n    {}{}", self.source_line, self.pad, "^".repeat(self.width))
    }
}

/// `line` as shown with a caret under the spot at bytes `spot` .. `end`: the shown line
/// (cut to a window of about [`TextError::SHOWN`] terminal columns around the spot when it
/// is wider), the pad before the caret, and the caret's width.
fn window(line: &str, spot: usize, end: usize) -> (String, String, usize) {
    /// Columns kept before the spot, and at most under the caret, in a cut line.
    const BEFORE: usize = 40;
    const CARET: usize = 60;
    // Whether the whole line fits, measured no further than needed.
    let mut total = 0;
    let fits = line.chars().all(|c| {
        total += shown::cell(c).width;
        total <= TextError::SHOWN
    });
    let (before, under, after) = (&line[..spot], &line[spot..end], &line[end..]);
    let mut left: Vec<shown::Cell> = Vec::new();
    let mut cut_left = false;
    let mut used = 0;
    for c in before.chars().rev() {
        let cell = shown::cell(c);
        if !fits && used + cell.width > BEFORE {
            cut_left = true;
            break;
        }
        used += cell.width;
        left.push(cell);
    }
    left.reverse();
    let mut caret: Vec<shown::Cell> = Vec::new();
    let mut caret_width = 0;
    let mut taken = 0;
    for c in under.chars() {
        let cell = shown::cell(c);
        if !fits && !caret.is_empty() && caret_width + cell.width > CARET {
            break;
        }
        caret_width += cell.width;
        caret.push(cell);
        taken += 1;
    }
    let mut right: Vec<shown::Cell> = Vec::new();
    let budget = TextError::SHOWN.saturating_sub(used + caret_width);
    let mut right_width = 0;
    let mut cut_right = false;
    // What follows the caret: the rest of the spot (past 60 columns), then the line.
    for c in under.chars().chain(after.chars()).skip(taken) {
        let cell = shown::cell(c);
        if !fits && right_width + cell.width > budget {
            cut_right = true;
            break;
        }
        right_width += cell.width;
        right.push(cell);
    }
    let mut shown_line = String::new();
    let mut pad = String::new();
    if cut_left {
        shown_line.push('…');
        pad.push(' ');
    }
    for cell in &left {
        shown_line.push_str(&cell.text);
        if cell.tab {
            pad.push('\t');
        } else {
            pad.extend(std::iter::repeat_n(' ', cell.width));
        }
    }
    for cell in caret.iter().chain(&right) {
        shown_line.push_str(&cell.text);
    }
    if cut_right {
        shown_line.push('…');
    }
    (shown_line, pad, caret_width.max(1))
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} [{}]\n{}",
            self.position(),
            self.message,
            self.code,
            self.caret()
        )
    }
}

impl std::error::Error for TextError {}

impl From<TextError> for Problem {
    fn from(err: TextError) -> Self {
        let message = format!("{}\n{}", err.message, err.caret());
        Problem::new(err.position(), err.code, message)
    }
}

impl From<TextError> for FilterError {
    fn from(err: TextError) -> Self {
        FilterError::new(vec![err.into()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_and_caret() {
        let text = "A == 1 and\n  B >== 5";
        let start = text.find(">==").unwrap();
        let e = TextError::at(text, start, start + 3, ProblemCode::UnknownOperator, "bad");
        assert_eq!((e.line, e.column, e.width), (2, 5, 3));
        assert_eq!(e.caret(), "      B >== 5\n        ^^^");
        assert_eq!(e.position(), "line 2, column 5");
        let at_end = TextError::at(text, text.len(), text.len(), ProblemCode::InvalidValue, "end");
        assert_eq!((at_end.line, at_end.column, at_end.width), (2, 10, 1));
    }

    #[test]
    fn a_long_line_is_shown_as_a_window_around_the_spot() {
        let text = format!("A == 1 and B == {}x and C == 1", "y".repeat(1_000_000));
        let start = text.find('x').unwrap();
        let e = TextError::at(&text, start, text.len(), ProblemCode::InvalidValue, "bad");
        assert_eq!((e.line, e.column), (1, 1_000_017));
        let caret = e.caret();
        assert!(caret.len() < 400, "{}", caret.len());
        let (shown, under) = caret.split_once('\n').unwrap();
        assert!(
            shown.starts_with("    …yyy") && shown.ends_with("x and C == 1"),
            "{shown}"
        );
        // The caret is under the spot.
        let at = under.find('^').unwrap();
        assert_eq!(shown.chars().nth(at), Some('x'));
        // At the start of a long line: no leading cut.
        let e = TextError::at(&text, 0, 1, ProblemCode::InvalidValue, "bad");
        assert!(e.caret().starts_with("    A == 1 and") && e.caret().ends_with("\n    ^"));
    }
}
