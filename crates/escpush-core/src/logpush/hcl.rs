//! Reading Terraform's `cloudflare_logpush_job` resources as desired jobs
//! ([`read_terraform_jobs`]): what `escpush logpush export --format terraform` writes, and
//! hand-written resources of the same shape, so that `apply` and `ensure` can take jobs a
//! team keeps in Terraform.
//!
//! The reader takes the native HCL syntax that such files use (blocks, attributes, comments,
//! quoted strings with their escapes, heredocs, numbers, booleans, `null`, lists, objects and
//! `jsonencode(...)`), and evaluates what a job's value needs without Terraform: literals,
//! and in `destination_conf` references to input variables (`${var.name}`), which become
//! references to `TF_VAR_name`, the environment variable Terraform itself reads for
//! `var.name` (see the `credentials` module). Any other expression (a `local.`, another
//! resource's attribute, a function other than `jsonencode`, an operator, a `for`) is
//! refused with the attribute and its line: escpush cannot evaluate it, and guessing would
//! apply something else. `zone_id` and `account_id` may be any expression: a literal one
//! must be the scope the jobs are applied to. Other blocks (`variable`, `import`,
//! `provider`, other resources) are read past.

use serde_json::{Map, Number, Value};

use crate::dataset_scope::DatasetScope;
use crate::error::Error;
use crate::problem::{Problem, ProblemCode};
use crate::scope::Scope;
use crate::suggest;

use super::fields::JobField;
use super::provider::{
    has_attribute, output_option_key, TERRAFORM_ATTRIBUTES, TERRAFORM_OUTPUT_OPTIONS, TERRAFORM_RESOURCE,
};

/// A piece of a template string: text, or what is between `${` and `}`.
#[derive(Clone, Debug, PartialEq)]
enum Part {
    Text(String),
    Interpolation(String),
    /// A `%{...}` directive.
    Directive,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Number(String),
    Template(Vec<Part>),
    Punct(&'static str),
    Newline,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

/// A syntax error: its line and what is wrong.
struct SyntaxError(usize, String);

const PUNCTS: &[&str] = &[
    "...", "==", "!=", "<=", ">=", "&&", "||", "=>", "{", "}", "[", "]", "(", ")", "=", ",", ":", ".", "?", "!", "+",
    "-", "*", "/", "%", "<", ">",
];

fn tokenize(text: &str) -> Result<Vec<Token>, SyntaxError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                out.push(Token {
                    tok: Tok::Newline,
                    line,
                });
                line += 1;
                i += 1;
            }
            ' ' | '\t' | '\r' | '\u{feff}' => i += 1,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                let start = line;
                i += 2;
                loop {
                    match chars.get(i) {
                        None => return Err(SyntaxError(start, "a /* comment is not closed".to_owned())),
                        Some('*') if chars.get(i + 1) == Some(&'/') => {
                            i += 2;
                            break;
                        }
                        Some('\n') => {
                            line += 1;
                            i += 1;
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            '"' => {
                let (parts, next) = quoted_template(&chars, i + 1, line)?;
                out.push(Token {
                    tok: Tok::Template(parts),
                    line,
                });
                i = next;
            }
            '<' if chars.get(i + 1) == Some(&'<')
                && chars.get(i + 2).is_some_and(|c| *c == '-' || c.is_alphabetic()) =>
            {
                let (parts, next, lines) = heredoc(&chars, i + 2, line)?;
                out.push(Token {
                    tok: Tok::Template(parts),
                    line,
                });
                line += lines;
                i = next;
            }
            c if c.is_ascii_digit() => {
                let start = i;
                while chars.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
                if chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                    i += 1;
                    while chars.get(i).is_some_and(char::is_ascii_digit) {
                        i += 1;
                    }
                }
                if chars.get(i).is_some_and(|c| *c == 'e' || *c == 'E') {
                    let mut j = i + 1;
                    if chars.get(j).is_some_and(|c| *c == '+' || *c == '-') {
                        j += 1;
                    }
                    if chars.get(j).is_some_and(char::is_ascii_digit) {
                        i = j;
                        while chars.get(i).is_some_and(char::is_ascii_digit) {
                            i += 1;
                        }
                    }
                }
                out.push(Token {
                    tok: Tok::Number(chars[start..i].iter().collect()),
                    line,
                });
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
                {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(chars[start..i].iter().collect()),
                    line,
                });
            }
            _ => {
                let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
                let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) else {
                    return Err(SyntaxError(line, format!("unexpected character {c:?}")));
                };
                out.push(Token {
                    tok: Tok::Punct(p),
                    line,
                });
                i += p.chars().count();
            }
        }
    }
    Ok(out)
}

/// A quoted template from `i` (after its `"`): its parts and the index after its closing `"`.
fn quoted_template(chars: &[char], mut i: usize, line: usize) -> Result<(Vec<Part>, usize), SyntaxError> {
    let mut parts = Vec::new();
    let mut text = String::new();
    loop {
        let Some(&c) = chars.get(i) else {
            return Err(SyntaxError(line, "a string is not closed".to_owned()));
        };
        match c {
            '"' => break,
            '\n' => return Err(SyntaxError(line, "a quoted string does not end on its line".to_owned())),
            '\\' => {
                let (decoded, next) = escape(chars, i + 1, line)?;
                text.push(decoded);
                i = next;
            }
            '$' | '%' if chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&'{') => {
                text.push(c);
                text.push('{');
                i += 3;
            }
            '$' | '%' if chars.get(i + 1) == Some(&'{') => {
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                let (inner, next) = interpolation(chars, i + 2, line)?;
                parts.push(if c == '$' {
                    Part::Interpolation(inner)
                } else {
                    Part::Directive
                });
                i = next;
            }
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
    if !text.is_empty() || parts.is_empty() {
        parts.push(Part::Text(text));
    }
    Ok((parts, i + 1))
}

/// The character of an escape after its `\` at `i`, and the index after it.
fn escape(chars: &[char], i: usize, line: usize) -> Result<(char, usize), SyntaxError> {
    let hex = |n: usize| -> Result<(char, usize), SyntaxError> {
        let digits: String = chars.get(i + 1..i + 1 + n).unwrap_or_default().iter().collect();
        u32::from_str_radix(&digits, 16)
            .ok()
            .and_then(char::from_u32)
            .filter(|_| digits.len() == n)
            .map(|c| (c, i + 1 + n))
            .ok_or_else(|| SyntaxError(line, format!("\\{} needs {n} hex digits of a character", chars[i])))
    };
    match chars.get(i) {
        Some('n') => Ok(('\n', i + 1)),
        Some('r') => Ok(('\r', i + 1)),
        Some('t') => Ok(('\t', i + 1)),
        Some('"') => Ok(('"', i + 1)),
        Some('\\') => Ok(('\\', i + 1)),
        Some('u') => hex(4),
        Some('U') => hex(8),
        other => Err(SyntaxError(
            line,
            format!("\\{} is not an escape of HCL", other.copied().unwrap_or(' ')),
        )),
    }
}

/// The text of an interpolation from `i` (after its `${`) to its matching `}`, and the index
/// after that `}`.
fn interpolation(chars: &[char], mut i: usize, line: usize) -> Result<(String, usize), SyntaxError> {
    let start = i;
    let mut depth = 0usize;
    let mut in_string = false;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' if in_string => i += 1,
            '"' => in_string = !in_string,
            '{' if !in_string => depth += 1,
            '}' if !in_string && depth == 0 => return Ok((chars[start..i].iter().collect(), i + 1)),
            '}' if !in_string => depth -= 1,
            '\n' => break,
            _ => {}
        }
        i += 1;
    }
    Err(SyntaxError(
        line,
        "a ${ interpolation is not closed on its line".to_owned(),
    ))
}

/// A heredoc from `i` (after its `<<`): its parts, the index of the end of its closing
/// marker's line, and how many line ends it holds.
fn heredoc(chars: &[char], mut i: usize, line: usize) -> Result<(Vec<Part>, usize, usize), SyntaxError> {
    let indented = chars.get(i) == Some(&'-');
    if indented {
        i += 1;
    }
    let start = i;
    while chars.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
        i += 1;
    }
    let marker: String = chars[start..i].iter().collect();
    while chars.get(i).is_some_and(|c| *c == ' ' || *c == '\r') {
        i += 1;
    }
    if chars.get(i) != Some(&'\n') {
        return Err(SyntaxError(
            line,
            format!("a heredoc <<{marker} starts a line of its own"),
        ));
    }
    i += 1;
    let mut lines: Vec<String> = Vec::new();
    loop {
        let from = i;
        while chars.get(i).is_some_and(|c| *c != '\n') {
            i += 1;
        }
        if from == i && i >= chars.len() {
            return Err(SyntaxError(
                line,
                format!("the heredoc <<{marker} has no closing {marker}"),
            ));
        }
        let text: String = chars[from..i].iter().collect();
        if text.trim() == marker {
            break;
        }
        lines.push(text.trim_end_matches('\r').to_owned());
        if i >= chars.len() {
            return Err(SyntaxError(
                line,
                format!("the heredoc <<{marker} has no closing {marker}"),
            ));
        }
        i += 1;
    }
    let spanned = lines.len() + 1;
    if indented {
        let cut = lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        for l in &mut lines {
            *l = l.get(cut..).unwrap_or_default().to_owned();
        }
    }
    let mut body = lines.join("\n");
    body.push('\n');
    // A heredoc's text takes no backslash escapes; `$${` and `%%{` are literal, `${` starts
    // an interpolation.
    let body: Vec<char> = body.chars().collect();
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut j = 0;
    while j < body.len() {
        let c = body[j];
        if (c == '$' || c == '%') && body.get(j + 1) == Some(&c) && body.get(j + 2) == Some(&'{') {
            text.push(c);
            text.push('{');
            j += 3;
        } else if (c == '$' || c == '%') && body.get(j + 1) == Some(&'{') {
            if !text.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut text)));
            }
            let (inner, next) = interpolation(&body, j + 2, line)?;
            parts.push(if c == '$' {
                Part::Interpolation(inner)
            } else {
                Part::Directive
            });
            j = next;
        } else {
            text.push(c);
            j += 1;
        }
    }
    if !text.is_empty() || parts.is_empty() {
        parts.push(Part::Text(text));
    }
    Ok((parts, i, spanned))
}

/// An item of a body.
enum Item {
    Attribute {
        name: String,
        value: Vec<Token>,
        line: usize,
    },
    Block {
        kind: String,
        labels: Vec<String>,
        body: Vec<Item>,
        line: usize,
    },
}

/// The items of a body from `*i`, up to its closing `}` (`nested`) or the end.
fn body(tokens: &[Token], i: &mut usize, nested: bool) -> Result<Vec<Item>, SyntaxError> {
    let mut items = Vec::new();
    loop {
        while tokens.get(*i).is_some_and(|t| t.tok == Tok::Newline) {
            *i += 1;
        }
        let Some(token) = tokens.get(*i) else {
            return if nested {
                Err(SyntaxError(
                    tokens.last().map_or(1, |t| t.line),
                    "a block is not closed".to_owned(),
                ))
            } else {
                Ok(items)
            };
        };
        let line = token.line;
        let name = match &token.tok {
            Tok::Punct("}") if nested => {
                *i += 1;
                return Ok(items);
            }
            Tok::Ident(name) => name.clone(),
            _ => return Err(SyntaxError(line, "expected an attribute or a block".to_owned())),
        };
        *i += 1;
        if tokens.get(*i).is_some_and(|t| t.tok == Tok::Punct("=")) {
            *i += 1;
            let start = *i;
            let mut depth = 0usize;
            while let Some(t) = tokens.get(*i) {
                match &t.tok {
                    Tok::Newline | Tok::Punct("}") if depth == 0 => break,
                    Tok::Punct("{" | "[" | "(") => depth += 1,
                    Tok::Punct("}" | "]" | ")") => depth = depth.saturating_sub(1),
                    _ => {}
                }
                *i += 1;
            }
            items.push(Item::Attribute {
                name,
                value: tokens[start..*i].to_vec(),
                line,
            });
            continue;
        }
        let mut labels = Vec::new();
        loop {
            match tokens.get(*i).map(|t| &t.tok) {
                Some(Tok::Template(parts)) => labels.push(plain_text(parts).unwrap_or_default()),
                Some(Tok::Ident(label)) => labels.push(label.clone()),
                Some(Tok::Punct("{")) => break,
                _ => {
                    return Err(SyntaxError(
                        line,
                        format!("`{name}` is neither `{name} = value` nor a block"),
                    ))
                }
            }
            *i += 1;
        }
        *i += 1;
        let inner = body(tokens, i, true)?;
        items.push(Item::Block {
            kind: name,
            labels,
            body: inner,
            line,
        });
    }
}

/// The text of a template without interpolations.
fn plain_text(parts: &[Part]) -> Option<String> {
    match parts {
        [Part::Text(text)] => Some(text.clone()),
        _ => None,
    }
}

/// What an expression evaluates to, or why escpush cannot evaluate it.
type Evaluated = Result<Value, String>;

/// Evaluates an attribute's tokens: `var_refs` says whether `${var.name}` may appear in a
/// template (as `${TF_VAR_name}`).
fn evaluate(tokens: &[Token], var_refs: bool) -> Evaluated {
    let tokens: Vec<&Token> = tokens.iter().filter(|t| t.tok != Tok::Newline).collect();
    let mut i = 0;
    let value = expression(&tokens, &mut i, var_refs)?;
    if i < tokens.len() {
        return Err("an expression with operators, which escpush does not evaluate".to_owned());
    }
    Ok(value)
}

fn expression(tokens: &[&Token], i: &mut usize, var_refs: bool) -> Evaluated {
    let Some(token) = tokens.get(*i) else {
        return Err("no value".to_owned());
    };
    *i += 1;
    match &token.tok {
        Tok::Template(parts) => template(parts, var_refs),
        Tok::Number(text) => number(text, false),
        Tok::Punct("-") => match tokens.get(*i).map(|t| &t.tok) {
            Some(Tok::Number(text)) => {
                *i += 1;
                number(text, true)
            }
            _ => Err("an expression with operators, which escpush does not evaluate".to_owned()),
        },
        Tok::Punct("(") => {
            let value = expression(tokens, i, var_refs)?;
            close(tokens, i, ")")?;
            Ok(value)
        }
        Tok::Punct("[") => {
            let mut items = Vec::new();
            loop {
                if tokens.get(*i).is_some_and(|t| t.tok == Tok::Punct("]")) {
                    *i += 1;
                    return Ok(Value::Array(items));
                }
                items.push(expression(tokens, i, var_refs)?);
                match tokens.get(*i).map(|t| &t.tok) {
                    Some(Tok::Punct(",")) => *i += 1,
                    Some(Tok::Punct("]")) => {}
                    _ => return Err("a list whose items are not separated by commas".to_owned()),
                }
            }
        }
        Tok::Punct("{") => {
            let mut map = Map::new();
            loop {
                match tokens.get(*i).map(|t| &t.tok) {
                    Some(Tok::Punct("}")) => {
                        *i += 1;
                        return Ok(Value::Object(map));
                    }
                    Some(Tok::Punct(",")) => *i += 1,
                    Some(Tok::Ident(key)) => {
                        *i += 1;
                        let key = key.clone();
                        let value = object_value(tokens, i, var_refs)?;
                        map.insert(key, value);
                    }
                    Some(Tok::Template(parts)) => {
                        let Some(key) = plain_text(parts) else {
                            return Err("an object key with an interpolation".to_owned());
                        };
                        *i += 1;
                        let value = object_value(tokens, i, var_refs)?;
                        map.insert(key, value);
                    }
                    _ => return Err("an object escpush cannot read".to_owned()),
                }
            }
        }
        Tok::Ident(name) if tokens.get(*i).is_some_and(|t| t.tok == Tok::Punct("(")) => {
            *i += 1;
            if name != "jsonencode" {
                return Err(format!(
                    "a call of {name}(), which escpush does not evaluate (only jsonencode)"
                ));
            }
            let value = expression(tokens, i, false)?;
            close(tokens, i, ")")?;
            Ok(Value::String(value.to_string()))
        }
        Tok::Ident(name) => match name.as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            "null" => Ok(Value::Null),
            _ => {
                let mut path = name.clone();
                while tokens.get(*i).is_some_and(|t| t.tok == Tok::Punct(".")) {
                    match tokens.get(*i + 1).map(|t| &t.tok) {
                        Some(Tok::Ident(part)) => {
                            path.push('.');
                            path.push_str(part);
                            *i += 2;
                        }
                        _ => break,
                    }
                }
                Err(format!("a reference to `{path}`, which escpush does not evaluate"))
            }
        },
        _ => Err("an expression escpush cannot read".to_owned()),
    }
}

/// The `= value` (or `: value`) of an object's item.
fn object_value(tokens: &[&Token], i: &mut usize, var_refs: bool) -> Evaluated {
    match tokens.get(*i).map(|t| &t.tok) {
        Some(Tok::Punct("=" | ":")) => {
            *i += 1;
            expression(tokens, i, var_refs)
        }
        _ => Err("an object item without `=`".to_owned()),
    }
}

fn close(tokens: &[&Token], i: &mut usize, what: &'static str) -> Result<(), String> {
    if tokens.get(*i).is_some_and(|t| t.tok == Tok::Punct(what)) {
        *i += 1;
        Ok(())
    } else {
        Err(format!("an expression escpush cannot read (expected `{what}`)"))
    }
}

fn number(text: &str, negative: bool) -> Evaluated {
    let signed = if negative { format!("-{text}") } else { text.to_owned() };
    if let Ok(n) = signed.parse::<i64>() {
        return Ok(Value::from(n));
    }
    if let Ok(n) = signed.parse::<u64>() {
        return Ok(Value::from(n));
    }
    signed
        .parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
        .ok_or_else(|| format!("the number {signed} is out of range"))
}

/// A template's text; `${var.name}` as `${TF_VAR_name}` where `var_refs` allows it.
fn template(parts: &[Part], var_refs: bool) -> Evaluated {
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Text(text) => {
                if var_refs && text.contains("${") {
                    return Err("a literal `${` in a destination, which escpush would read as a variable".to_owned());
                }
                out.push_str(text);
            }
            Part::Interpolation(inner) => {
                let inner = inner.trim();
                let name = inner
                    .strip_prefix("var.")
                    .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
                match name {
                    Some(name) if var_refs => {
                        out.push_str("${TF_VAR_");
                        out.push_str(name);
                        out.push('}');
                    }
                    Some(_) => {
                        return Err(format!(
                            "`${{{inner}}}`: escpush reads input variables in destination_conf only (its credentials)"
                        ))
                    }
                    None => return Err(format!("`${{{inner}}}`, which escpush does not evaluate")),
                }
            }
            Part::Directive => return Err("a %{ template directive, which escpush does not evaluate".to_owned()),
        }
    }
    Ok(Value::String(out))
}

/// The desired jobs (`{"jobs": [...]}`, as [`desired_jobs`](super::desired_jobs) reads
/// them) of the `cloudflare_logpush_job` resources of a Terraform file, for `scope`.
///
/// Each resource is one job, its attributes the job's fields of the same name
/// (`output_options` as an attribute, v5, or a block, v4; its `cve_2021_44228` is
/// `CVE-2021-44228`). An attribute left out is left as the job has it, as in any jobs file
/// (where Terraform would set the provider's default). Refused, every problem with its
/// resource, attribute and line: an attribute the resource does not have, a value escpush
/// cannot evaluate, a literal `zone_id`/`account_id` of another scope, `count` and
/// `for_each` (one resource is one job here).
///
/// ```
/// use escpush_core::{read_terraform_jobs, Scope};
///
/// let tf = r#"
/// resource "cloudflare_logpush_job" "errors" {
///   zone_id          = var.zone_id
///   name             = "errors"
///   dataset          = "http_requests"
///   destination_conf = "s3://logs/http?region=us-east-1&secret-access-key=${var.errors_secret}"
///   filter           = jsonencode({ where = { key = "EdgeResponseStatus", operator = "geq", value = 500 } })
/// }"#;
/// let zone = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap();
/// let doc = read_terraform_jobs(tf, &zone).unwrap();
/// assert_eq!(doc["jobs"][0]["destination_conf"], "s3://logs/http?region=us-east-1&secret-access-key=${TF_VAR_errors_secret}");
/// ```
pub fn read_terraform_jobs(text: &str, scope: &Scope) -> Result<Value, Error> {
    let syntax = |SyntaxError(line, message)| Error::Invalid {
        problems: vec![Problem::new(
            format!("line {line}"),
            ProblemCode::InvalidSyntax,
            message,
        )],
    };
    let tokens = tokenize(text).map_err(syntax)?;
    let items = body(&tokens, &mut 0, false).map_err(syntax)?;
    let mut problems = Vec::new();
    let mut jobs = Vec::new();
    for item in &items {
        let Item::Block {
            kind,
            labels,
            body,
            line,
        } = item
        else {
            continue;
        };
        if kind != "resource" || labels.first().map(String::as_str) != Some(TERRAFORM_RESOURCE) {
            continue;
        }
        let address = format!("{TERRAFORM_RESOURCE}.{}", labels.get(1).map_or("", String::as_str));
        let mut found = Vec::new();
        let job = resource_job(body, scope, &address, *line, &mut found);
        if found.is_empty() {
            jobs.push(Value::Object(job));
        }
        problems.extend(found);
    }
    if problems.is_empty() {
        Ok(serde_json::json!({ "jobs": jobs }))
    } else {
        Err(Error::Invalid { problems })
    }
}

/// One resource's job; its problems pushed on `problems`.
fn resource_job(
    items: &[Item],
    scope: &Scope,
    address: &str,
    line: usize,
    problems: &mut Vec<Problem>,
) -> Map<String, Value> {
    let mut problem = |attribute: &str, line: usize, message: String| {
        let path = if attribute.is_empty() {
            address.to_owned()
        } else {
            format!("{address}.{attribute}")
        };
        problems.push(Problem::new(
            path,
            ProblemCode::InvalidValue,
            format!("line {line}: {message}"),
        ));
    };
    let mut job = Map::new();
    let mut scopes = Vec::new();
    for item in items {
        match item {
            Item::Attribute { name, value, line } => match name.as_str() {
                "zone_id" | "account_id" => {
                    let kind = if name == "zone_id" {
                        DatasetScope::Zone
                    } else {
                        DatasetScope::Account
                    };
                    scopes.push(kind);
                    if let Some(message) = other_scope(kind, value, scope) {
                        problem(name, *line, message);
                    }
                }
                "count" | "for_each" => problem(
                    name,
                    *line,
                    format!("escpush reads one job per resource and does not expand {name}; write each job out"),
                ),
                "provider" | "depends_on" => {}
                field if has_attribute(field) && JobField::get(field).is_some() => {
                    match evaluate(value, field == "destination_conf") {
                        Ok(Value::Null) => {}
                        Ok(Value::Object(options)) if field == "output_options" => {
                            job.insert(field.to_owned(), output_options(&options, *line, &mut problem));
                        }
                        Ok(v) => {
                            job.insert(field.to_owned(), v);
                        }
                        Err(why) => problem(field, *line, format!("{why}; write its value")),
                    }
                }
                other => {
                    let hint =
                        suggest::did_you_mean(suggest::closest(other, TERRAFORM_ATTRIBUTES.iter().map(|a| (*a, *a))));
                    problem(
                        other,
                        *line,
                        format!("`{other}` is not an attribute of {TERRAFORM_RESOURCE}{hint}"),
                    );
                }
            },
            Item::Block { kind, body, line, .. } => match kind.as_str() {
                "lifecycle" | "timeouts" => {}
                "output_options" => {
                    let mut options = Map::new();
                    for item in body {
                        if let Item::Attribute { name, value, line } = item {
                            match evaluate(value, false) {
                                Ok(v) => {
                                    options.insert(name.clone(), v);
                                }
                                Err(why) => problem(
                                    &format!("output_options.{name}"),
                                    *line,
                                    format!("{why}; write its value"),
                                ),
                            }
                        }
                    }
                    job.insert(
                        "output_options".to_owned(),
                        output_options(&options, *line, &mut problem),
                    );
                }
                other => problem(
                    other,
                    *line,
                    format!("`{other}` is not a block of {TERRAFORM_RESOURCE}"),
                ),
            },
        }
    }
    if scopes.len() > 1 {
        problem("", line, "a job has zone_id or account_id, not both".to_owned());
    }
    job
}

/// Why a resource's `zone_id` (`kind` zone) or `account_id` is not `scope`, if it is not:
/// another kind, or a literal id of another zone or account (any other expression is taken
/// as the scope).
fn other_scope(kind: DatasetScope, value: &[Token], scope: &Scope) -> Option<String> {
    let attribute = super::provider::scope_attribute(kind);
    if let Ok(Value::String(id)) = evaluate(value, false) {
        (kind != scope.kind() || id != scope.id()).then(|| {
            format!(
                "the job is of {} {id}, and the jobs are applied to {scope}: change {attribute}, or apply to that {}",
                kind.as_str(),
                kind.as_str()
            )
        })
    } else {
        (kind != scope.kind()).then(|| {
            format!(
                "the job is of {}, and the jobs are applied to {scope}",
                kind.with_article()
            )
        })
    }
}

/// An `output_options` object of attributes, as the job's keys (`cve_2021_44228` as
/// `CVE-2021-44228`); `null` attributes left out.
fn output_options(options: &Map<String, Value>, line: usize, problem: &mut impl FnMut(&str, usize, String)) -> Value {
    let mut out = Map::new();
    for (attribute, value) in options {
        if value.is_null() {
            continue;
        }
        if let Some(key) =
            output_option_key(attribute).filter(|_| TERRAFORM_OUTPUT_OPTIONS.contains(&attribute.as_str()))
        {
            out.insert(key.to_owned(), value.clone());
        } else {
            let hint = suggest::did_you_mean(suggest::closest(
                attribute,
                TERRAFORM_OUTPUT_OPTIONS.iter().map(|a| (*a, *a)),
            ));
            problem(
                &format!("output_options.{attribute}"),
                line,
                format!("`{attribute}` is not an attribute of output_options{hint}"),
            );
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logpush::{export_jobs, ExportFormat, FilterForm};
    use serde_json::json;

    fn zone() -> Scope {
        Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap()
    }

    #[test]
    fn an_export_reads_back_as_its_jobs() {
        let job = json!({
            "id": 3, "name": "edge.errors", "dataset": "http_requests", "enabled": true, "kind": "",
            "destination_conf": "https://user:pw@logs.example.com/in?header_Authorization=Basic%20x&region=eu",
            "filter": r#"{"where":{"and":[{"key":"ClientRequestHost","operator":"in","value":["a\"${b}","%{c}\\"]},{"key":"EdgeResponseStatus","operator":"geq","value":500}]}}"#,
            "max_upload_bytes": 5_000_000,
            "output_options": {"CVE-2021-44228": true, "field_names": ["ClientIP"], "sample_rate": 0.25,
                                "record_suffix": "}\n", "stringify_object": true},
        });
        for form in [FilterForm::Text, FilterForm::Jsonencode] {
            let tf = export_jobs(
                &[job.as_object().unwrap().clone()],
                &zone(),
                ExportFormat::Terraform(form),
                None,
            )
            .unwrap();
            let doc = read_terraform_jobs(&tf, &zone()).unwrap();
            let read = &doc["jobs"][0];
            assert_eq!(
                read["destination_conf"],
                "https://${TF_VAR_edge_errors_userinfo}@logs.example.com/in?header_Authorization=${TF_VAR_edge_errors_header_authorization}&region=eu"
            );
            let filter = crate::Filter::parse(read["filter"].as_str().unwrap()).unwrap();
            assert_eq!(filter, crate::Filter::parse(job["filter"].as_str().unwrap()).unwrap());
            assert_eq!(
                read["output_options"],
                json!({"CVE-2021-44228": true, "field_names": ["ClientIP"], "sample_rate": 0.25, "record_suffix": "}\n"})
            );
            for key in ["name", "dataset", "enabled", "kind", "max_upload_bytes"] {
                assert_eq!(read[key], job[key], "{key}");
            }
        }
    }

    #[test]
    fn hand_written_resources_of_the_same_shape() {
        let tf = r#"
            /* v4 style */
            resource "cloudflare_logpush_job" "a" {
              zone_id = cloudflare_zone.main.id  // any expression
              name    = "a"
              dataset = "http_requests"
              destination_conf = <<-EOT
                s3://b/p?region=r&secret-access-key=${var.key}
              EOT
              output_options {
                cve_2021_44228 = false
              }
              lifecycle { prevent_destroy = true }
            }
            resource "cloudflare_zone" "main" { name = "example.com" }
        "#;
        let doc = read_terraform_jobs(tf, &zone()).unwrap();
        assert_eq!(
            doc["jobs"][0]["destination_conf"],
            "s3://b/p?region=r&secret-access-key=${TF_VAR_key}\n"
        );
        assert_eq!(doc["jobs"][0]["output_options"], json!({"CVE-2021-44228": false}));
    }

    #[test]
    fn what_cannot_be_evaluated_is_refused_with_its_place() {
        let tf = r#"
resource "cloudflare_logpush_job" "a" {
  zone_id = "0000000000000000000000000000000f"
  name    = local.name
  filtr   = "x"
  filter  = "${var.f}"
  enabled = var.on ? true : false
  count   = 2
}"#;
        let err = read_terraform_jobs(tf, &zone()).unwrap_err().to_string();
        for expected in [
            "cloudflare_logpush_job.a.zone_id: line 3: the job is of zone 0000000000000000000000000000000f",
            "cloudflare_logpush_job.a.name: line 4: a reference to `local.name`",
            "cloudflare_logpush_job.a.filtr: line 5: `filtr` is not an attribute of cloudflare_logpush_job; did you mean `filter`",
            "cloudflare_logpush_job.a.filter: line 6: `${var.f}`: escpush reads input variables in destination_conf only",
            "cloudflare_logpush_job.a.enabled: line 7",
            "cloudflare_logpush_job.a.count: line 8",
        ] {
            assert!(err.contains(expected), "{expected}\n{err}");
        }
        let err = read_terraform_jobs("resource \"cloudflare_logpush_job\" \"a\" {\n  name = \"a\n}", &zone())
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2"), "{err}");
    }
}
