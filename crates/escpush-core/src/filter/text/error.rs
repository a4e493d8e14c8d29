//! The error of text that is not a filter: where (line, column, a caret under the spot) and
//! what, with the code a [`Problem`] carries, so that it converts to a [`FilterError`].

use std::fmt;

use crate::problem::{FilterError, Problem, ProblemCode};

/// Text that does not read as a filter: the first problem, with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// 1-based line of the spot.
    pub line: usize,
    /// 1-based column of the spot, in characters.
    pub column: usize,
    /// How many characters the caret underlines (at least one; at most the shown part).
    pub width: usize,
    /// The line of text holding the spot, as written; a line longer than
    /// [`TextError::SHOWN`] characters is cut to a window around the spot, `…` marking
    /// each cut (a 10 MB filter on one line gives a short message).
    pub source_line: String,
    /// The 1-based column of the spot within `source_line`.
    shown_column: usize,
    /// The kind of problem.
    pub code: ProblemCode,
    /// What is wrong and, where known, what was meant.
    pub message: String,
}

impl TextError {
    /// The longest line shown whole under an error, in characters.
    pub const SHOWN: usize = 120;

    /// An error at byte offset `start` .. `end` of `text`.
    pub(crate) fn at(text: &str, start: usize, end: usize, code: ProblemCode, message: impl Into<String>) -> Self {
        let start = floor_char(text, start.min(text.len()));
        let end = floor_char(text, end.clamp(start, text.len()));
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = text[..start].matches('\n').count() + 1;
        let column = text[line_start..start].chars().count() + 1;
        let width = text[start..end.min(line_end)].chars().count().max(1);
        let whole = text[line_start..line_end].trim_end_matches('\r');
        let (source_line, shown_column, width) = window(whole, column, width);
        TextError {
            line,
            column,
            width,
            source_line,
            shown_column,
            code,
            message: message.into(),
        }
    }

    /// `line L, column C`, the position as a problem's path.
    pub fn position(&self) -> String {
        format!("line {}, column {}", self.line, self.column)
    }

    /// The line of text and a caret under the spot, on two lines.
    pub fn caret(&self) -> String {
        let pad: String = self
            .source_line
            .chars()
            .take(self.shown_column - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!("    {}\n    {pad}{}", self.source_line, "^".repeat(self.width))
    }
}

/// `line` cut to at most about [`TextError::SHOWN`] characters around the spot at 1-based
/// `column` (`width` characters wide): the line, the spot's column in it, the width shown.
fn window(line: &str, column: usize, width: usize) -> (String, usize, usize) {
    const BEFORE: usize = 40;
    const CARET: usize = 60;
    let length = line.chars().count();
    if length <= TextError::SHOWN {
        return (line.to_owned(), column, width);
    }
    let spot = column - 1;
    let width = width.min(CARET);
    let from = spot.saturating_sub(BEFORE);
    let to = (spot + width + (TextError::SHOWN - BEFORE - CARET)).min(length);
    let mut shown = String::new();
    if from > 0 {
        shown.push('…');
    }
    shown.extend(line.chars().skip(from).take(to - from));
    if to < length {
        shown.push('…');
    }
    let shown_column = spot - from + 1 + usize::from(from > 0);
    (shown, shown_column, width.min(to.saturating_sub(spot)).max(1))
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
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
