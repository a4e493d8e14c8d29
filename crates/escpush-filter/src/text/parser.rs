//! The text form → filter tree: a recursive-descent parser on the text itself (operators
//! are read in context, after a field name), with `not` pushed down to the conditions. The
//! words and values (operators, strings, numbers, lists) are read in `token.rs`.

use crate::dataset::Dataset;
use crate::problem::ProblemCode;
use crate::suggest::{self, cut};

use super::super::ast::{Condition, Expr, Operator, Value};
use super::super::validate::{check_condition, too_deep, MAX_DEPTH};
use super::error::TextError;

/// Problems of form (not of a value or a name) carry this code.
pub(super) const SYNTAX: ProblemCode = ProblemCode::InvalidSyntax;
/// Text that reads, asking for what the filter format cannot do (`matches`, functions, a
/// `not` with no exact form).
pub(super) const UNSUPPORTED: ProblemCode = ProblemCode::Unsupported;

/// The deepest nesting of parentheses and `not`s the parser follows: enough for a `not (`
/// at each of [`MAX_DEPTH`] levels of groups. The parser recurses once per level, with
/// frames of about 4 KiB unoptimised (much less in a release build): 128 levels fit in
/// well under 1 MiB of stack, so a Python thread or a Rust test thread never overflows
/// (issue 16: at 256 levels a 1 MiB thread crashed).
const MAX_NESTING: usize = 2 * MAX_DEPTH;

/// Parses the text form; with a dataset, field names are checked against it.
pub(crate) fn parse(text: &str, dataset: Option<&Dataset>) -> Result<Expr, TextError> {
    let mut p = Parser {
        text,
        pos: 0,
        dataset,
        nesting: 0,
    };
    p.skip_ws();
    if p.pos == text.len() {
        return Err(p.err(
            p.pos,
            p.pos,
            ProblemCode::EmptyExpression,
            "the filter is empty; write a condition such as `EdgeResponseStatus >= 500`",
        ));
    }
    let expr = p.or_expr(None)?;
    p.skip_ws();
    if p.pos < text.len() {
        let (start, end) = p.token_span();
        let what = &text[start..end];
        let message = if what == ")" {
            "this `)` closes no `(`".to_owned()
        } else {
            format!(
                "expected `and`, `or` or the end of the filter, found {}",
                p.found(start, end)
            )
        };
        return Err(p.err(start, end, SYNTAX, message));
    }
    if expr.depth() > MAX_DEPTH {
        return Err(p.err(0, text.len(), ProblemCode::TooDeep, too_deep("").message));
    }
    Ok(expr)
}

/// One item stays itself; several make an `and` group (`and_group`) or an `or` group.
fn group(mut items: Vec<Expr>, and_group: bool) -> Expr {
    if items.len() == 1 {
        items.pop().expect("one item")
    } else if and_group {
        Expr::And(items)
    } else {
        Expr::Or(items)
    }
}

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) pos: usize,
    pub(super) dataset: Option<&'a Dataset>,
    pub(super) nesting: usize,
}

/// Where a pending `not` was written (byte offset), for the error when it cannot be applied.
type Negation = Option<usize>;

fn flip(neg: Negation, at: usize) -> Negation {
    match neg {
        Some(_) => None,
        None => Some(at),
    }
}

pub(super) fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Words the text form reserves: a field with one of these names is written quoted.
pub(crate) fn is_keyword(word: &str) -> bool {
    ["and", "or", "not", "true", "false"]
        .iter()
        .any(|k| k.eq_ignore_ascii_case(word))
}

/// Functions of the Rules language the filter format has no counterpart for.
const UNSUPPORTED_FUNCTIONS: &[&str] = &[
    "lower",
    "upper",
    "len",
    "any",
    "all",
    "concat",
    "regex_replace",
    "wildcard_replace",
    "url_decode",
    "to_string",
    "remove_bytes",
    "lookup_json_string",
    "lookup_json_integer",
    "uuidv4",
    "encode_base64",
    "decode_base64",
    "cidr",
    "bit_slice",
    "substring",
    "split",
    "join",
    "has_key",
    "has_value",
    "remove_query_args",
    "sha256",
    "is_timed_hmac_valid_v0",
];

impl<'a> Parser<'a> {
    pub(super) fn err(&self, start: usize, end: usize, code: ProblemCode, message: impl Into<String>) -> TextError {
        TextError::at(self.text, start, end, code, message)
    }

    /// The token at `start` .. `end` as a message names it: quoted, or the end of the
    /// filter, or a lone character that does not print by its code and kind (`U+FEFF (a
    /// byte-order mark)`).
    pub(super) fn found(&self, start: usize, end: usize) -> String {
        let token = &self.text[start..end];
        let mut chars = token.chars();
        match (chars.next(), chars.next()) {
            (None, _) => "the end of the filter".to_owned(),
            (Some(c), None) if !crate::shown::is_printable(c) => crate::shown::describe_char(c),
            _ => format!("`{}`", cut(token)),
        }
    }

    pub(super) fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub(super) fn skip_ws(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            if trimmed.starts_with('#') {
                // A comment ends at any line break (`crate::shown`), as a line does.
                self.pos += trimmed.find(crate::shown::is_line_break).unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    /// The span of the token at `pos`, for messages: a word, a quoted string, or one character.
    pub(super) fn token_span(&self) -> (usize, usize) {
        let rest = self.rest();
        let Some(c) = rest.chars().next() else {
            return (self.pos, self.pos);
        };
        let len = if is_ident_start(c) || c.is_ascii_digit() || c == '-' {
            rest.find(|ch: char| !(is_ident_char(ch) || ch == '-'))
                .unwrap_or(rest.len())
                .max(1)
        } else if "=!<>~&|".contains(c) {
            rest.find(|ch: char| !"=!<>~&|".contains(ch)).unwrap_or(rest.len())
        } else {
            c.len_utf8()
        };
        (self.pos, self.pos + len)
    }

    pub(super) fn ident(&mut self) -> Option<(usize, &'a str)> {
        let rest = self.rest();
        if !rest.starts_with(is_ident_start) {
            return None;
        }
        let len = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
        let start = self.pos;
        self.pos += len;
        Some((start, &rest[..len]))
    }

    /// A keyword (`and`, `or`, `not`, any case) at `pos` as a whole word, consumed if found.
    pub(super) fn keyword(&mut self, word: &str) -> bool {
        let rest = self.rest();
        if rest.len() >= word.len()
            && rest.is_char_boundary(word.len())
            && rest[..word.len()].eq_ignore_ascii_case(word)
            && !rest[word.len()..].starts_with(is_ident_char)
        {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    pub(super) fn symbol(&mut self, sym: &str) -> bool {
        if self.rest().starts_with(sym) {
            self.pos += sym.len();
            true
        } else {
            false
        }
    }

    pub(super) fn enter(&mut self, at: usize) -> Result<(), TextError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(self.err(at, at + 1, ProblemCode::TooDeep, "parentheses and `not`s nest too deep"));
        }
        Ok(())
    }

    pub(super) fn or_expr(&mut self, neg: Negation) -> Result<Expr, TextError> {
        let mut items = vec![self.and_expr(neg)?];
        loop {
            self.skip_ws();
            if self.keyword("or") || self.symbol("||") {
                self.skip_ws();
                items.push(self.and_expr(neg)?);
            } else {
                break;
            }
        }
        Ok(group(items, neg.is_some()))
    }

    pub(super) fn and_expr(&mut self, neg: Negation) -> Result<Expr, TextError> {
        let mut items = vec![self.unary(neg)?];
        loop {
            self.skip_ws();
            if self.keyword("and") || self.symbol("&&") {
                self.skip_ws();
                items.push(self.unary(neg)?);
            } else {
                break;
            }
        }
        Ok(group(items, neg.is_none()))
    }

    pub(super) fn unary(&mut self, neg: Negation) -> Result<Expr, TextError> {
        self.skip_ws();
        let start = self.pos;
        if self.symbol("(") {
            self.enter(start)?;
            self.skip_ws();
            let expr = self.or_expr(neg)?;
            self.close(start)?;
            self.nesting -= 1;
            return Ok(expr);
        }
        if self.keyword("not") || (self.rest().starts_with('!') && !self.rest().starts_with("!=") && self.symbol("!")) {
            self.enter(start)?;
            let expr = self.unary(flip(neg, start))?;
            self.nesting -= 1;
            return Ok(expr);
        }
        if let Some(expr) = self.keyword_group(start, neg)? {
            return Ok(expr);
        }
        self.condition(neg)
    }

    /// `and(x)` / `or(x)`: a group of one expression; `None` when the text holds neither
    /// word. Apart from `unary`, whose frame is on the stack once per level of parentheses
    /// (a small frame, so that 256 levels fit a 1 MiB thread even unoptimised).
    #[inline(never)]
    fn keyword_group(&mut self, start: usize, neg: Negation) -> Result<Option<Expr>, TextError> {
        for (word, is_and) in [("and", true), ("or", false)] {
            let save = self.pos;
            if self.keyword(word) {
                self.skip_ws();
                let paren = self.pos;
                if self.symbol("(") {
                    // `and(x)` / `or(x)`: a group of one expression.
                    self.enter(paren)?;
                    self.skip_ws();
                    let inner = self.or_expr(neg)?;
                    self.close(paren)?;
                    self.nesting -= 1;
                    let negated_kind = neg.is_some();
                    return Ok(Some(if is_and == negated_kind {
                        Expr::Or(vec![inner])
                    } else {
                        Expr::And(vec![inner])
                    }));
                }
                self.pos = save;
                return Err(self.err(
                    start,
                    start + word.len(),
                    SYNTAX,
                    format!(
                        "expected a condition, found `{}`",
                        &self.text[start..start + word.len()]
                    ),
                ));
            }
        }
        Ok(None)
    }

    pub(super) fn close(&mut self, open: usize) -> Result<(), TextError> {
        self.skip_ws();
        if self.symbol(")") {
            return Ok(());
        }
        let (s, e) = self.token_span();
        let found = self.found(s, e);
        Err(self.err(
            open,
            open + 1,
            SYNTAX,
            format!("this `(` is not closed: expected `)` (or `and`, `or`), found {found}"),
        ))
    }

    /// `KEY OP VALUE`, `"quoted key" OP VALUE`, or `starts_with(KEY, VALUE)`.
    pub(super) fn condition(&mut self, neg: Negation) -> Result<Expr, TextError> {
        let start = self.pos;
        let (key, key_end) = if self.peek() == Some('"') {
            let key = self.string()?;
            (key, self.pos)
        } else if let Some((s, word)) = self.ident() {
            let after = self.pos;
            self.skip_ws();
            if self.peek() == Some('(') {
                return self.function(s, word, neg);
            }
            self.pos = after;
            (word.to_owned(), after)
        } else {
            let (s, e) = self.token_span();
            let message = if s == e {
                "expected a condition, found the end of the filter".to_owned()
            } else {
                format!(
                    "expected a condition (a field name, `not` or `(`), found {}",
                    self.found(s, e)
                )
            };
            return Err(self.err(s, e, SYNTAX, message));
        };
        self.check_key(&key, start, key_end)?;
        self.skip_ws();
        let (op_start, op) = self.operator(&key)?;
        self.skip_ws();
        let value_start = self.pos;
        let value = self.value(op)?;
        let value_end = self.pos;
        self.finish(key, op, value, neg, (start, op_start, value_start, value_end))
    }

    pub(super) fn check_key(&self, key: &str, start: usize, end: usize) -> Result<(), TextError> {
        if key.is_empty() {
            return Err(self.err(start, end, ProblemCode::EmptyKey, "the field name is empty"));
        }
        if let Some(dataset) = self.dataset {
            if dataset.field(key).is_none() {
                let hint = suggest::did_you_mean(dataset.suggest_field(key));
                return Err(self.err(
                    start,
                    end,
                    ProblemCode::UnknownField,
                    format!("`{}` is not a field of {}{hint}", cut(key), dataset.name()),
                ));
            }
        }
        Ok(())
    }

    /// A condition from its parts, checked as [`Condition::new`] checks, with `not` applied.
    pub(super) fn finish(
        &self,
        key: String,
        op: Operator,
        value: Value,
        neg: Negation,
        (start, op_start, value_start, value_end): (usize, usize, usize, usize),
    ) -> Result<Expr, TextError> {
        let condition = Condition::canonical(key, op, value);
        if let Some(problem) = check_condition(&condition, "").into_iter().next() {
            let (s, e) = if problem.path == "value" {
                (value_start, value_end)
            } else {
                (op_start, value_end)
            };
            return Err(self.err(s, e, problem.code, problem.message));
        }
        let Some(not_at) = neg else {
            return Ok(Expr::Condition(condition));
        };
        if op.is_numeric() {
            let shown = &self.text[start..value_end];
            return Err(self.err(
                not_at,
                value_end,
                UNSUPPORTED,
                format!(
                    "`not` cannot be written exactly for `{shown}`: a record without `{}` (or where it is not a \
                     number) fails both `{}` and its opposite `{}`, and the filter format has no other negation; \
                     write the opposite comparison if that is what you mean",
                    condition.key,
                    op.text(),
                    op.negated().text(),
                ),
            ));
        }
        Ok(Expr::Condition(Condition {
            operator: op.negated(),
            ..condition
        }))
    }

    /// `starts_with(KEY, VALUE)` and its kin; other functions are refused.
    pub(super) fn function(&mut self, start: usize, name: &str, neg: Negation) -> Result<Expr, TextError> {
        let name_end = start + name.len();
        let op = match name {
            "starts_with" | "startsWith" => Operator::StartsWith,
            "ends_with" | "endsWith" => Operator::EndsWith,
            "contains" => Operator::Contains,
            _ => {
                let lower = name.to_ascii_lowercase();
                let message = if UNSUPPORTED_FUNCTIONS.contains(&lower.as_str()) {
                    format!(
                        "the filter format compares a field as it is: it has no functions such as `{name}(...)`; \
                         compare the field itself (matching is case-sensitive)"
                    )
                } else {
                    format!("`{}(...)` is not a function the filter format has; the ones it reads are starts_with(FIELD, \"x\") and ends_with(FIELD, \"x\")", cut(name))
                };
                return Err(self.err(start, name_end, UNSUPPORTED, message));
            }
        };
        self.skip_ws();
        let open = self.pos;
        self.symbol("(");
        self.skip_ws();
        let key_start = self.pos;
        let key = if self.peek() == Some('"') {
            self.string()?
        } else if let Some((_, word)) = self.ident() {
            word.to_owned()
        } else {
            let (s, e) = self.token_span();
            return Err(self.err(
                s,
                e,
                SYNTAX,
                format!("`{name}` takes a field name first: {name}(FIELD, \"x\")"),
            ));
        };
        self.check_key(&key, key_start, self.pos)?;
        self.skip_ws();
        if !self.symbol(",") {
            let (s, e) = self.token_span();
            return Err(self.err(
                s,
                e,
                SYNTAX,
                format!("expected `,` then the value: {name}(FIELD, \"x\")"),
            ));
        }
        self.skip_ws();
        let value_start = self.pos;
        let value = self.value(op)?;
        let value_end = self.pos;
        self.close(open)?;
        self.finish(key, op, value, neg, (start, start, value_start, value_end))
    }
}
