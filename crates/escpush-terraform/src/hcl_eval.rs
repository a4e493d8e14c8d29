//! The values of a `cloudflare_logpush_job` resource, evaluated as far as escpush can
//! without Terraform: literals, `jsonencode(...)` of a literal, `${var.name}` in a template
//! (as `${TF_VAR_name}`, which `apply` reads from the environment), `-` before a number;
//! every other expression is refused with what it is. A value is then converted to its
//! attribute's type as Terraform converts it ([`convert`]). The reader of the resources is
//! `hcl.rs`.

use hcl_edit::expr::{Expression, ObjectKey, TraversalOperator, UnaryOperator};
use hcl_edit::template::{Element, Template};
use hcl_edit::Span;
use serde_json::{Map, Number, Value};

use escpush_core::OptionValue;
use escpush_core::OUTPUT_OPTIONS;
use escpush_filter::Json;

/// A value as written: an expression of the native syntax with the text its spans index,
/// or a value of the JSON syntax (whose strings are templates).
#[derive(Clone, Copy)]
pub(crate) enum Written<'a> {
    Hcl(&'a Expression, &'a str),
    Json(&'a Json),
}

/// What an expression evaluates to, or why escpush cannot evaluate it.
pub(crate) type Evaluated = Result<Value, String>;

/// Evaluates a value: `var_refs` says whether `${var.name}` may appear in a template (as
/// `${TF_VAR_name}`).
///
/// `quote` says whether a message may quote what was written: not in an attribute that may
/// hold a credential written out (`destination_conf`, the secret fields), where an
/// expression escpush does not evaluate is named without its text.
pub(crate) fn evaluate(value: Written<'_>, var_refs: bool, quote: bool) -> Evaluated {
    match value {
        Written::Hcl(expr, text) => Eval { text, var_refs, quote }.expr(expr),
        Written::Json(json) => json_value(json, var_refs, quote),
    }
}

/// A value of the JSON syntax: each string a template, as Terraform reads it.
pub(crate) fn json_value(json: &Json, var_refs: bool, quote: bool) -> Evaluated {
    match json {
        Json::String(text) => {
            let template = hcl_edit::parser::parse_template(text)
                .map_err(|e| format!("a template that does not parse ({})", e.message()))?;
            Eval { text, var_refs, quote }.template(&template)
        }
        Json::Array(items) => items
            .iter()
            .map(|v| json_value(v, var_refs, quote))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        Json::Object(members) => members
            .iter()
            .map(|(k, v)| Ok((k.clone(), json_value(v, var_refs, quote)?)))
            .collect::<Result<Map<_, _>, String>>()
            .map(Value::Object),
        Json::BigNumber(text) => Err(format!("the number {text} is out of range")),
        other => Ok(Value::from(other.clone())),
    }
}

/// The evaluation of native-syntax expressions parsed from `text`.
#[derive(Clone, Copy)]
struct Eval<'a> {
    text: &'a str,
    var_refs: bool,
    quote: bool,
}

const OPERATORS: &str = "an expression with operators, which escpush does not evaluate";

impl Eval<'_> {
    /// The text `value` was parsed from, for a message (`…` where it may not be quoted).
    fn source(&self, value: &impl Span) -> &str {
        if !self.quote {
            return "…";
        }
        value.span().and_then(|span| self.text.get(span)).map_or("", str::trim)
    }

    fn expr(self, expr: &Expression) -> Evaluated {
        match expr {
            Expression::Null(_) => Ok(Value::Null),
            Expression::Bool(b) => Ok(Value::Bool(*b.value())),
            Expression::Number(n) => number(n.value(), false),
            Expression::String(s) => Ok(Value::String(self.literal(s.value()))),
            Expression::Array(items) => items
                .iter()
                .map(|e| self.expr(e))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            Expression::Object(object) => {
                let mut map = Map::new();
                for (key, value) in object {
                    let key = match key {
                        ObjectKey::Ident(ident) => ident.as_str().to_owned(),
                        ObjectKey::Expression(e) => match self.expr(e)? {
                            Value::String(key) => key,
                            _ => return Err(format!("the object key `{}`, which is not a string", self.source(e))),
                        },
                    };
                    map.insert(key, self.expr(value.expr())?);
                }
                Ok(Value::Object(map))
            }
            Expression::StringTemplate(template) => self.template(template),
            Expression::HeredocTemplate(heredoc) => self.template(&heredoc.template),
            Expression::Parenthesis(inner) => self.expr(inner.inner()),
            Expression::Variable(_) | Expression::Traversal(_) => Err(format!(
                "a reference to `{}`, which escpush does not evaluate",
                self.source(expr)
            )),
            Expression::FuncCall(call) => {
                let name = call
                    .name
                    .namespace
                    .iter()
                    .chain([&call.name.name])
                    .map(|part| part.as_str())
                    .collect::<Vec<_>>()
                    .join("::");
                if name != "jsonencode" {
                    return Err(format!(
                        "a call of {name}(), which escpush does not evaluate (only jsonencode)"
                    ));
                }
                match call.args.iter().collect::<Vec<_>>().as_slice() {
                    [arg] if !call.args.expand_final() => {
                        let plain = Eval {
                            var_refs: false,
                            ..self
                        };
                        Ok(Value::String(plain.expr(arg)?.to_string()))
                    }
                    _ => Err("a call of jsonencode() with other than one value".to_owned()),
                }
            }
            Expression::UnaryOp(op) => match (op.operator.value(), &op.expr) {
                (UnaryOperator::Neg, Expression::Number(n)) => number(n.value(), true),
                _ => Err(OPERATORS.to_owned()),
            },
            Expression::Conditional(_) => Err(format!(
                "the conditional `{}`, which escpush does not evaluate",
                self.source(expr)
            )),
            Expression::ForExpr(_) => Err("a `for` expression, which escpush does not evaluate".to_owned()),
            Expression::BinaryOp(_) => Err(OPERATORS.to_owned()),
        }
    }

    /// Literal text as a desired job holds it: in a destination (`var_refs`), where `${NAME}`
    /// is a reference, a literal `${` (Terraform's `$${`) is written `$${`, which `apply`
    /// reads back as `${` (see the `credentials` module).
    fn literal(self, text: &str) -> String {
        if self.var_refs {
            escpush_core::escape_references(text)
        } else {
            text.to_owned()
        }
    }

    /// A template's value: a template of one interpolation is its expression's value (as
    /// in HCL); else its text, each interpolation of a string, number or bool, and
    /// `${var.name}` as `${TF_VAR_name}` where `var_refs` allows it.
    fn template(self, template: &Template) -> Evaluated {
        if let Some(Element::Interpolation(one)) = template.as_single_element() {
            if variable(&one.expr).is_none() {
                return self.expr(&one.expr);
            }
        }
        let mut out = String::new();
        let mut strip_next = false;
        for element in template {
            match element {
                Element::Literal(text) => {
                    let text = if strip_next { text.trim_start() } else { text.as_str() };
                    out.push_str(&self.literal(text));
                    strip_next = false;
                }
                Element::Interpolation(interpolation) => {
                    if interpolation.strip.strip_start() {
                        out.truncate(out.trim_end().len());
                    }
                    strip_next = interpolation.strip.strip_end();
                    let inner = &interpolation.expr;
                    match (variable(inner), self.var_refs) {
                        (Some(name), true) => {
                            out.push_str("${TF_VAR_");
                            out.push_str(name);
                            out.push('}');
                        }
                        (Some(_), false) => {
                            return Err(format!(
                                "`${{{}}}`: escpush reads input variables in destination_conf only (its credentials)",
                                self.source(inner)
                            ))
                        }
                        (None, _) => match self.expr(inner)? {
                            Value::String(text) => out.push_str(&text),
                            v @ (Value::Number(_) | Value::Bool(_)) => out.push_str(&v.to_string()),
                            _ => {
                                return Err(format!(
                                    "`${{{}}}`, which is not a string, a number or a bool",
                                    self.source(inner)
                                ))
                            }
                        },
                    }
                }
                Element::Directive(_) => {
                    let text = if self.quote { self.source(element) } else { "%{ … }" };
                    let head = text.find('}').map_or(text, |end| &text[..=end]);
                    return Err(format!(
                        "the template directive `{head}`, which escpush does not evaluate"
                    ));
                }
            }
        }
        Ok(Value::String(out))
    }
}

/// The `name` of a `var.name` reference (a name an environment variable can hold).
pub(crate) fn variable(expr: &Expression) -> Option<&str> {
    let Expression::Traversal(traversal) = expr else {
        return None;
    };
    let (Expression::Variable(root), [op]) = (&traversal.expr, traversal.operators.as_slice()) else {
        return None;
    };
    match op.value() {
        TraversalOperator::GetAttr(name) if root.as_str() == "var" => {
            Some(name.as_str()).filter(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        }
        _ => None,
    }
}

fn number(n: &hcl_edit::Number, negative: bool) -> Evaluated {
    let value = if negative {
        n.as_i64()
            .and_then(i64::checked_neg)
            .map(Value::from)
            .or_else(|| n.as_f64().and_then(|f| Number::from_f64(-f)).map(Value::Number))
    } else {
        n.as_i64()
            .map(Value::from)
            .or_else(|| n.as_u64().map(Value::from))
            .or_else(|| n.as_f64().and_then(Number::from_f64).map(Value::Number))
    };
    value.ok_or_else(|| format!("the number {}{n} is out of range", if negative { "-" } else { "" }))
}

/// The text of an expression as written, for a message and to compare with what the caller
/// names: the native syntax's source text; in the JSON syntax, the expression of a string
/// that is one interpolation (`"${var.zone_id}"` is `var.zone_id`).
pub(crate) fn expression_text(value: Written<'_>) -> Option<String> {
    match value {
        Written::Hcl(expr, text) => expr.span().and_then(|span| text.get(span)).map(|t| t.trim().to_owned()),
        Written::Json(Json::String(text)) => {
            let template = hcl_edit::parser::parse_template(text).ok()?;
            match template.as_single_element() {
                Some(Element::Interpolation(one)) => one
                    .expr
                    .span()
                    .and_then(|span| text.get(span))
                    .map(|t| t.trim().to_owned()),
                _ => None,
            }
        }
        Written::Json(_) => None,
    }
}

/// A value as Terraform converts it to the attribute's type (`ty`: `"int"`, `"string"`,
/// `"bool"`, anything else left as it is): a string that reads as a number to a number
/// (`"30"`, `"1e3"`), `"true"`/`"false"` to a bool, a number or a bool to its text; any other
/// string where a number or a bool goes is refused, as Terraform refuses it.
pub(crate) fn convert(value: Value, ty: &str) -> Evaluated {
    match (ty, value) {
        ("int", Value::String(text)) => match text.trim().parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(if n.fract() == 0.0 && n.abs() < 9.0e15 {
                // A whole number is an integer, as the JSON the provider sends writes it.
                #[allow(clippy::cast_possible_truncation)]
                Value::from(n as i64)
            } else {
                Number::from_f64(n).map_or(Value::Null, Value::Number)
            }),
            _ => Err(format!(
                "the string {}, where Terraform takes a number",
                escpush_filter::shown::json_string(&text)
            )),
        },
        ("bool", Value::String(text)) => match text.as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!(
                "the string {}, where Terraform takes true or false",
                escpush_filter::shown::json_string(&text)
            )),
        },
        ("string", v @ (Value::Number(_) | Value::Bool(_))) => Ok(Value::String(v.to_string())),
        (_, v) => Ok(v),
    }
}

/// The type Terraform converts an `output_options` key's value to (see [`convert`]).
pub(crate) fn option_type(key: &str) -> &'static str {
    match OUTPUT_OPTIONS.iter().find(|o| o.name == key).map(|o| o.value) {
        Some(OptionValue::Bool) => "bool",
        Some(OptionValue::Fraction) => "int",
        Some(OptionValue::Text | OptionValue::OneOf(_)) => "string",
        _ => "",
    }
}
