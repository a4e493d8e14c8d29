//! `record_template`: the subset of Go's text/template that log-output-options.mdx documents.
//!
//! "The template can only consist of these three types of tokens": an action, `{{ .Field }}`
//! or `{{ "constant text" }}`; text between the actions; a comment, `{{/* comments */}}`,
//! silently dropped. A constant is a Go string literal: interpreted (`"a\tb"`, Go's escapes)
//! or raw (`` `{{curly}}` ``, how the page writes literal double braces). Anything else
//! between `{{` and `}}` (`{{ if .A }}`, `{{ .A | printf }}`, `{{ . }}`, `{{ .A.B }}`, a
//! number, Go's trim markers `{{-` and `-}}`) is refused, naming the action and the character
//! it starts at, with the path `output_options.record_template`.

use escpush_filter::{Problem, ProblemCode};

/// One piece of a parsed template.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TemplatePart {
    /// Text written as it is: the text between actions, and constants.
    Text(String),
    /// `{{ .Field }}`: the value of the field (`null` when it is not in `field_names`).
    Field(String),
}

/// A `record_template`, parsed ([`RecordTemplate::parse`]): text and fields in order,
/// comments dropped and constants merged into the text around them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordTemplate {
    parts: Vec<TemplatePart>,
}

const PATH: &str = "output_options.record_template";

impl RecordTemplate {
    /// Parses a template, or says which action is not of the documented subset and where
    /// (a problem at `output_options.record_template`: the action's text and the character,
    /// counted from 1, its `{{` starts at).
    ///
    /// ```
    /// use escpush_core::{RecordTemplate, TemplatePart};
    ///
    /// let t = RecordTemplate::parse(r#""ip":{{ .ClientIP }}{{/* dropped */}}{{ `{{x}}` }}"#).unwrap();
    /// assert_eq!(
    ///     t.parts(),
    ///     [TemplatePart::Text("\"ip\":".into()), TemplatePart::Field("ClientIP".into()), TemplatePart::Text("{{x}}".into())]
    /// );
    /// let err = RecordTemplate::parse("a{{ if .ClientIP }}b{{ end }}").unwrap_err();
    /// assert_eq!(err.path, "output_options.record_template");
    /// assert!(err.message.contains("`{{ if .ClientIP }}` at character 2"), "{}", err.message);
    /// ```
    pub fn parse(text: &str) -> Result<RecordTemplate, Problem> {
        let mut parts = Vec::new();
        let mut rest = text;
        let mut at = 0; // bytes of `text` before `rest`
        let mut literal = String::new();
        while let Some(open) = rest.find("{{") {
            literal.push_str(&rest[..open]);
            let start = at + open;
            let action = &text[start..];
            let (len, part) = action_of(action).map_err(|why| refusal(text, start, why))?;
            match part {
                Action::Comment => {}
                Action::Constant(c) => literal.push_str(&c),
                Action::Field(name) => {
                    if !literal.is_empty() {
                        parts.push(TemplatePart::Text(std::mem::take(&mut literal)));
                    }
                    parts.push(TemplatePart::Field(name.to_owned()));
                }
            }
            at = start + len;
            rest = &text[at..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(TemplatePart::Text(literal));
        }
        Ok(RecordTemplate { parts })
    }

    /// Its pieces, in order.
    pub fn parts(&self) -> &[TemplatePart] {
        &self.parts
    }
}

enum Action<'a> {
    Comment,
    Constant(String),
    Field(&'a str),
}

/// Why an action is refused: it is unclosed, or not of the subset.
#[derive(Clone, Copy)]
enum Why {
    Unclosed,
    NotAllowed(usize),
    BadConstant(usize, &'static str),
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// The action `text` starts with (at its `{{`): its length up to its `}}` and what it is.
fn action_of(text: &str) -> Result<(usize, Action<'_>), Why> {
    let inner = &text[2..];
    if let Some(body) = inner.strip_prefix("/*") {
        // Go: a comment starts and ends at the delimiters.
        return match body.find("*/") {
            Some(end) if body[end + 2..].starts_with("}}") => Ok((2 + 2 + end + 2 + 2, Action::Comment)),
            Some(_) => Err(Why::NotAllowed(end_of(text))),
            None => Err(Why::Unclosed),
        };
    }
    let trimmed = inner.trim_start_matches(is_space);
    let lead = 2 + inner.len() - trimmed.len();
    let (len, action) = match trimmed.chars().next() {
        Some('"') => {
            let (len, value) = interpreted(trimmed).map_err(|why| match why {
                Some(message) => Why::BadConstant(end_of(text), message),
                None => Why::Unclosed,
            })?;
            (len, Action::Constant(value))
        }
        Some('`') => match trimmed[1..].find('`') {
            // Go drops carriage returns from raw strings.
            Some(end) => (end + 2, Action::Constant(trimmed[1..=end].replace('\r', ""))),
            None => return Err(Why::Unclosed),
        },
        Some('.') => {
            let name_len = trimmed[1..]
                .char_indices()
                .find(|&(i, c)| !(c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())))
                .map_or(trimmed.len() - 1, |(i, _)| i);
            if name_len == 0 {
                return Err(Why::NotAllowed(end_of(text)));
            }
            (1 + name_len, Action::Field(&trimmed[1..=name_len]))
        }
        _ => return Err(Why::NotAllowed(end_of(text))),
    };
    let after = &trimmed[len..];
    let tail = after.trim_start_matches(is_space);
    if tail.starts_with("}}") {
        Ok((lead + len + (after.len() - tail.len()) + 2, action))
    } else if text.contains("}}") {
        Err(Why::NotAllowed(end_of(text)))
    } else {
        Err(Why::Unclosed)
    }
}

/// Where the action `text` starts with ends: after its first `}}`, else the whole text.
fn end_of(text: &str) -> usize {
    text[2..].find("}}").map_or(text.len(), |i| i + 4)
}

/// A Go interpreted string literal at the start of `text`: its length and its value; `Err(None)`
/// when it does not end, `Err(Some(why))` for a bad escape.
fn interpreted(text: &str) -> Result<(usize, String), Option<&'static str>> {
    let mut out = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((i + 1, out)),
            '\n' => {
                return Err(Some(
                    "a constant in double quotes holds no line break (use a raw `...` constant)",
                ))
            }
            '\\' => {
                let Some((_, e)) = chars.next() else { return Err(None) };
                let simple = match e {
                    'a' => Some('\u{7}'),
                    'b' => Some('\u{8}'),
                    'f' => Some('\u{c}'),
                    'n' => Some('\n'),
                    'r' => Some('\r'),
                    't' => Some('\t'),
                    'v' => Some('\u{b}'),
                    '\\' => Some('\\'),
                    '"' => Some('"'),
                    _ => None,
                };
                if let Some(s) = simple {
                    out.push(s);
                    continue;
                }
                let (digits, radix) = match e {
                    'x' => (2, 16),
                    'u' => (4, 16),
                    'U' => (8, 16),
                    '0'..='7' => (2, 8),
                    _ => return Err(Some("an unknown escape in a constant (Go's are \\a \\b \\f \\n \\r \\t \\v \\\\ \\\" \\x \\u \\U and octal)")),
                };
                let mut code = if radix == 8 { e.to_digit(8).unwrap_or(0) } else { 0 };
                for _ in 0..digits {
                    let d = chars.next().and_then(|(_, d)| d.to_digit(radix));
                    let Some(d) = d else {
                        return Err(Some("an escape in a constant with too few digits"));
                    };
                    code = code.saturating_mul(radix).saturating_add(d);
                }
                if matches!(e, 'x' | '0'..='7') {
                    // A byte: Go writes it as it is; escpush keeps text UTF-8, so only ASCII.
                    match u8::try_from(code).ok().filter(u8::is_ascii) {
                        Some(b) => out.push(char::from(b)),
                        None => {
                            return Err(Some(
                                "a byte escape in a constant above \\x7f (write the character itself)",
                            ))
                        }
                    }
                } else {
                    match char::from_u32(code) {
                        Some(ch) => out.push(ch),
                        None => return Err(Some("an escape in a constant that is no Unicode character")),
                    }
                }
            }
            other => out.push(other),
        }
    }
    Err(None)
}

/// The problem of the action starting at byte `start` of `text`.
fn refusal(text: &str, start: usize, why: Why) -> Problem {
    let character = text[..start].chars().count() + 1;
    let action = |len: usize| escpush_filter::suggest::cut(&text[start..start + len]).into_owned();
    let message = match why {
        Why::Unclosed => format!(
            "`record_template`: the action at character {character} (`{}`) has no closing `}}}}`",
            action(text.len() - start)
        ),
        Why::NotAllowed(len) => format!(
            "`record_template`: the action `{}` at character {character} is not one a log-push template takes: \
             only `{{{{ .Field }}}}`, `{{{{ \"constant\" }}}}` (or a raw `` `constant` ``) and `{{{{/* comment */}}}}` \
             (log-output-options.mdx: no functions, conditionals, loops, pipelines or sub-templates)",
            action(len)
        ),
        Why::BadConstant(len, why) => format!(
            "`record_template`: the action `{}` at character {character}: {why}",
            action(len)
        ),
    };
    Problem::new(PATH, ProblemCode::InvalidValue, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Vec<TemplatePart> {
        RecordTemplate::parse(text).unwrap().parts().to_vec()
    }

    fn refused(text: &str) -> String {
        let p = RecordTemplate::parse(text).unwrap_err();
        assert_eq!(p.path, PATH);
        p.message
    }

    #[test]
    fn the_three_tokens() {
        use TemplatePart::{Field, Text};
        assert_eq!(
            parts(r#""client-ip":{{.ClientIP}},"ray-id":{{ .RayID }}"#),
            [
                Text("\"client-ip\":".into()),
                Field("ClientIP".into()),
                Text(",\"ray-id\":".into()),
                Field("RayID".into())
            ]
        );
        assert_eq!(parts("a{{/* x }} y */}}b"), [Text("ab".into())]);
        assert_eq!(
            parts("\"{{`double{{curly}}braces`}}\""),
            [Text("\"double{{curly}}braces\"".into())]
        );
        assert_eq!(parts(r#"{{ "a\tb\"\u00e9\x41\101" }}"#), [Text("a\tb\"éAA".into())]);
        assert_eq!(parts(r#"{{"}}"}}"#), [Text("}}".into())]);
        assert_eq!(parts("}} {"), [Text("}} {".into())]);
        assert_eq!(parts(""), []);
        assert_eq!(parts("{{._a1}}"), [Field("_a1".into())]);
    }

    #[test]
    fn everything_else_is_refused_naming_the_action_and_where() {
        for (text, action, at) in [
            ("x{{ if .A }}y{{ end }}", "{{ if .A }}", 2),
            ("{{ .A | printf \"%s\" }}", "{{ .A | printf \"%s\" }}", 1),
            ("ab{{ . }}", "{{ . }}", 3),
            ("é{{ .A.B }}", "{{ .A.B }}", 2),
            ("{{ 3 }}", "{{ 3 }}", 1),
            ("{{- .A }}", "{{- .A }}", 1),
            ("{{ .A -}}", "{{ .A -}}", 1),
            ("{{ /* c */ }}", "{{ /* c */ }}", 1),
            ("{{template \"x\"}}", "{{template \"x\"}}", 1),
            ("{{ \"a\" \"b\" }}", "{{ \"a\" \"b\" }}", 1),
        ] {
            let message = refused(text);
            assert!(
                message.contains(&format!("`{action}` at character {at}")) && message.contains("record_template"),
                "{text}: {message}"
            );
        }
        assert!(refused("a{{ .A ").contains("at character 2"));
        assert!(refused("{{ .A ").contains("no closing"));
        assert!(refused("{{/* open").contains("no closing"));
        assert!(refused(r#"{{ "\q" }}"#).contains("unknown escape"));
    }
}
