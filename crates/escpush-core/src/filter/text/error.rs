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
    /// How many characters the caret underlines (at least one).
    pub width: usize,
    /// The line of text holding the spot, as written.
    pub source_line: String,
    /// The kind of problem.
    pub code: ProblemCode,
    /// What is wrong and, where known, what was meant.
    pub message: String,
}

impl TextError {
    /// An error at byte offset `start` .. `end` of `text`.
    pub(crate) fn at(text: &str, start: usize, end: usize, code: ProblemCode, message: impl Into<String>) -> Self {
        let start = floor_char(text, start.min(text.len()));
        let end = floor_char(text, end.clamp(start, text.len()));
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = text[..start].matches('\n').count() + 1;
        let column = text[line_start..start].chars().count() + 1;
        let width = text[start..end.min(line_end)].chars().count().max(1);
        TextError {
            line,
            column,
            width,
            source_line: text[line_start..line_end].trim_end_matches('\r').to_owned(),
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
            .take(self.column - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!("    {}\n    {pad}{}", self.source_line, "^".repeat(self.width))
    }
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
}
