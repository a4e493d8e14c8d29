//! The words and values of the text form, read by the same [`Parser`] as `parser.rs`
//! reads its structure: operators (symbols, the 14 names, Rules-language words, with
//! did-you-mean), strings, numbers, booleans and lists.

use crate::problem::ProblemCode;
use crate::suggest::{self, cut};

use super::super::ast::{Operator, Scalar, Value};
use super::error::TextError;
use super::parser::{is_ident_start, Parser, SYNTAX, UNSUPPORTED};

impl Parser<'_> {
    /// The operator after a field name: one of the 14 names, a symbol, a Rules-language
    /// word (`ne`, `le`, `ge`), or `not` before one with an exact negation (`not in`).
    pub(super) fn operator(&mut self, key: &str) -> Result<(usize, Operator), TextError> {
        let start = self.pos;
        let rest = self.rest();
        if rest.starts_with('!') && rest[1..].starts_with(is_ident_start) {
            self.pos += 1;
            let (_, word) = self.ident().expect("an identifier follows");
            let name = format!("!{word}");
            return match name.parse::<Operator>() {
                Ok(op) => Ok((start, op)),
                Err(e) => Err(self.unknown_operator(start, &name, e.suggestion.map(Operator::as_str))),
            };
        }
        if rest.starts_with(|c: char| "=!<>~".contains(c)) {
            let len = rest.find(|c: char| !"=!<>~".contains(c)).unwrap_or(rest.len());
            let sym = &rest[..len];
            self.pos += len;
            if let Some(op) = Operator::from_text_word(sym) {
                return Ok((start, op));
            }
            match sym {
                "~" | "!~" => {
                    return Err(self.err(
                        start,
                        self.pos,
                        UNSUPPORTED,
                        "the filter format has no regular expressions (`~`, `matches`); use startsWith, endsWith, contains or in",
                    ))
                }
                _ => {
                    let meant = match sym {
                        "=" | "===" => Some("=="),
                        ">==" | "=>" => Some(">="),
                        "<==" | "=<" => Some("<="),
                        "<>" | "!==" | "=!" => Some("!="),
                        _ => None,
                    };
                    return Err(self.unknown_operator(start, sym, meant));
                }
            }
        }
        let Some((_, word)) = self.ident() else {
            let (s, e) = self.token_span();
            let found = self.found(s, e);
            return Err(self.err(
                s,
                e.max(s + 1),
                SYNTAX,
                format!(
                    "expected an operator after `{}` (such as ==, >=, startsWith, in), found {found}",
                    cut(key)
                ),
            ));
        };
        if word.eq_ignore_ascii_case("not") {
            self.skip_ws();
            let inner_start = self.pos;
            let Some((_, inner)) = self.ident() else {
                let (s, e) = self.token_span();
                return Err(self.err(
                    s,
                    e.max(s + 1),
                    SYNTAX,
                    "expected an operator after `not` (not in, not contains, not startsWith, ...)",
                ));
            };
            let op = self.word_operator(inner_start, inner)?;
            if op.is_numeric() || op.is_negative() {
                return Err(self.err(
                    start,
                    self.pos,
                    UNSUPPORTED,
                    format!(
                        "`not {inner}` has no exact form in the filter format{}",
                        if op.is_numeric() {
                            format!(
                                ": a record without `{key}` fails both `{}` and `{}`",
                                op.text(),
                                op.negated().text()
                            )
                        } else {
                            String::new()
                        }
                    ),
                ));
            }
            return Ok((start, op.negated()));
        }
        Ok((start, self.word_operator(start, word)?))
    }

    pub(super) fn word_operator(&self, start: usize, word: &str) -> Result<Operator, TextError> {
        if let Ok(op) = word.parse::<Operator>() {
            return Ok(op);
        }
        let Some(op) = Operator::from_text_word(word) else {
            let lower = word.to_ascii_lowercase();
            if ["matches", "wildcard", "strict", "regex", "like", "ilike", "glob"].contains(&lower.as_str()) {
                return Err(self.err(
                    start,
                    start + word.len(),
                    UNSUPPORTED,
                    format!("the filter format has no `{}`: no regular expressions, wildcards or patterns; use startsWith, endsWith, contains or in", cut(word)),
                ));
            }
            let suggestion = word
                .parse::<Operator>()
                .err()
                .and_then(|e| e.suggestion)
                .map(Operator::as_str);
            return Err(self.unknown_operator(start, word, suggestion));
        };
        Ok(op)
    }

    pub(super) fn unknown_operator(&self, start: usize, given: &str, meant: Option<&str>) -> TextError {
        self.err(
            start,
            start + given.len(),
            ProblemCode::UnknownOperator,
            format!("unknown operator `{}`{}", cut(given), suggest::did_you_mean(meant)),
        )
    }

    /// A value: a scalar, or a list `[a, b]` / Rules-language set `{a b}`.
    pub(super) fn value(&mut self, op: Operator) -> Result<Value, TextError> {
        let start = self.pos;
        let close = match self.peek() {
            Some('[') => ']',
            Some('{') => '}',
            _ => return Ok(Value::Scalar(self.scalar(op)?)),
        };
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.symbol(&close.to_string()) {
                break;
            }
            if self.pos == self.text.len() {
                return Err(self.err(
                    start,
                    start + 1,
                    SYNTAX,
                    format!("this list is not closed: expected `{close}`"),
                ));
            }
            if matches!(self.peek(), Some('[' | '{')) {
                return Err(self.err(
                    self.pos,
                    self.pos + 1,
                    ProblemCode::InvalidValue,
                    "a list holds strings, integers or booleans, not lists",
                ));
            }
            items.push(self.scalar(op)?);
            self.skip_ws();
            if close == ']' && !self.rest().starts_with(']') && !self.symbol(",") {
                let (s, e) = self.token_span();
                return Err(self.err(s, e.max(s + 1), SYNTAX, "expected `,` or `]` in the list"));
            }
            if close == '}' {
                self.symbol(",");
            }
        }
        Ok(Value::Set(items))
    }

    pub(super) fn scalar(&mut self, op: Operator) -> Result<Scalar, TextError> {
        let start = self.pos;
        match self.peek() {
            Some('"') => Ok(Scalar::String(self.string()?)),
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' || c == '.' => self.number(),
            Some('\'') => {
                let end = self.rest()[1..]
                    .find('\'')
                    .map_or(self.text.len(), |i| self.pos + i + 2);
                Err(self.err(start, end, SYNTAX, "strings are written in double quotes (\"...\")"))
            }
            Some(c) if is_ident_start(c) => {
                let (_, word) = self.ident().expect("a word");
                match word {
                    "true" => Ok(Scalar::Bool(true)),
                    "false" => Ok(Scalar::Bool(false)),
                    _ => Err(self.err(
                        start,
                        self.pos,
                        ProblemCode::InvalidValue,
                        format!(
                            "`{}` is not a value: strings are written in double quotes{}",
                            cut(word),
                            if word.eq_ignore_ascii_case("true") || word.eq_ignore_ascii_case("false") {
                                format!("; did you mean `{}`?", word.to_ascii_lowercase())
                            } else {
                                format!("; did you mean \"{}\"?", cut(word))
                            }
                        ),
                    )),
                }
            }
            _ => {
                let (s, e) = self.token_span();
                let found = self.found(s, e);
                let shape = if op.takes_set() {
                    "a list [\"a\", \"b\"]"
                } else {
                    "a value (\"text\", 500, true)"
                };
                Err(self.err(
                    s,
                    e.max(s + 1),
                    SYNTAX,
                    format!("expected {shape} after `{}`, found {found}", op.text()),
                ))
            }
        }
    }

    pub(super) fn number(&mut self) -> Result<Scalar, TextError> {
        let start = self.pos;
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "+-._".contains(c)))
            .unwrap_or(rest.len());
        let text = &rest[..len];
        self.pos += len;
        if super::super::ast::canonical_int_text(text) {
            return text.parse::<i64>().map(Scalar::Int).map_err(|_| {
                self.err(
                    start,
                    self.pos,
                    ProblemCode::IntegerOutOfRange,
                    format!("{} is outside the 64-bit integer range", cut(text)),
                )
            });
        }
        Err(self.err(
            start,
            self.pos,
            ProblemCode::InvalidValue,
            format!(
                "{} is not an integer as JSON writes one; filter values are strings, integers or booleans",
                cut(text)
            ),
        ))
    }

    /// A double-quoted string with JSON escapes.
    pub(super) fn string(&mut self) -> Result<String, TextError> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let mut i = start + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => break,
                _ => i += 1,
            }
        }
        if i >= bytes.len() {
            return Err(self.err(start, start + 1, SYNTAX, "this string is not closed: expected `\"`"));
        }
        let literal = &self.text[start..=i];
        self.pos = i + 1;
        serde_json::from_str::<String>(literal).map_err(|e| {
            self.err(
                start,
                i + 1,
                ProblemCode::InvalidValue,
                format!("this string is not valid: {e} (strings take JSON escapes such as \\\" and \\u00e9)"),
            )
        })
    }
}
