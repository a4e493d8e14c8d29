//! One expression of a transformer's query lowered and typed (the `Lower` of `lower.rs`):
//! columns resolved, operators and functions given values of their types, refusals of
//! the contract (subqueries, aggregates, windows, unknown functions) at their place.

use escpush_filter::{suggest, ProblemCode};
use sqlparser::ast::{
    self, BinaryOperator, CastKind, DateTimeField, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Spanned,
    TrimWhereField, UnaryOperator,
};
use sqlparser::tokenizer::Span;

use super::ir::{BinOp, Func, Part, Ty, Value, AGGREGATES, E, FUNCTIONS};
use super::lower::{Columns, Lower};

impl Lower {
    /// One expression, lowered and typed; `None` after a problem.
    #[allow(clippy::too_many_lines)]
    pub(crate) fn expr(&mut self, expr: &Expr, cols: &Columns) -> Option<(E, Ty)> {
        let span = expr.span();
        match expr {
            Expr::Identifier(ident) => self.column(&ident.value, ident.span, cols),
            Expr::CompoundIdentifier(parts) => {
                self.unsupported(
                    span,
                    "known_fields",
                    format_args!(
                        "a qualified name `{}` (write the field alone)",
                        suggest::cut(&expr.to_string())
                    ),
                );
                let _ = parts;
                None
            }
            Expr::Value(v) => literal(&v.value).map(|(v, t)| (E::Lit(v), t)).or_else(|| {
                self.unsupported(
                    span,
                    "one_select",
                    format_args!("the literal `{}`", suggest::cut(&v.to_string())),
                );
                None
            }),
            Expr::Nested(inner) => self.expr(inner, cols),
            Expr::UnaryOp { op, expr: inner } => {
                let (e, t) = self.expr(inner, cols)?;
                match op {
                    UnaryOperator::Not => {
                        self.expect_bool(&t, inner.span(), "`NOT`");
                        Some((E::Not(Box::new(e)), Ty::Bool))
                    }
                    UnaryOperator::Minus => {
                        self.expect_number(&t, inner.span(), "`-`");
                        Some((E::Neg(Box::new(e)), t))
                    }
                    UnaryOperator::Plus => Some((e, t)),
                    other => {
                        self.unsupported(span, "known_functions", format_args!("the operator `{other}`"));
                        None
                    }
                }
            }
            Expr::BinaryOp { left, op, right } => self.binary(left, op, right, span, cols),
            Expr::IsNull(inner) | Expr::IsNotNull(inner) => {
                let (e, _) = self.expr(inner, cols)?;
                Some((E::IsNull(Box::new(e), matches!(expr, Expr::IsNotNull(_))), Ty::Bool))
            }
            Expr::IsTrue(inner) | Expr::IsFalse(inner) => {
                let (e, t) = self.expr(inner, cols)?;
                self.expect_bool(&t, inner.span(), "`IS TRUE`");
                let want = matches!(expr, Expr::IsTrue(_));
                let is = E::Bin(BinOp::Eq, Box::new(e.clone()), Box::new(E::Lit(Value::Bool(want))));
                // `IS TRUE` is never NULL: NULL IS TRUE is false.
                let not_null = E::IsNull(Box::new(e), true);
                Some((
                    E::Call(
                        Func::Coalesce,
                        vec![
                            E::Bin(BinOp::And, Box::new(not_null), Box::new(is)),
                            E::Lit(Value::Bool(false)),
                        ],
                    ),
                    Ty::Bool,
                ))
            }
            Expr::InList {
                expr: inner,
                list,
                negated,
            } => {
                let (e, t) = self.expr(inner, cols)?;
                let mut items = Vec::new();
                for item in list {
                    let (ie, it) = self.expr(item, cols)?;
                    self.expect_comparable(&t, &it, item.span(), "`IN`");
                    items.push(ie);
                }
                Some((E::In(Box::new(e), items, *negated), Ty::Bool))
            }
            Expr::InSubquery { .. } | Expr::Subquery(_) | Expr::Exists { .. } | Expr::InUnnest { .. } => {
                self.unsupported(span, "no_subqueries", "a subquery");
                None
            }
            Expr::Like {
                negated,
                any,
                expr: inner,
                pattern,
                escape_char,
            }
            | Expr::ILike {
                negated,
                any,
                expr: inner,
                pattern,
                escape_char,
            } => {
                // `ESCAPE '\'` only: the escape the interpreter's `LIKE` reads (and the one
                // escpush-filter's transformer dialect prints).
                let backslash = escape_char
                    .as_ref()
                    .is_none_or(|c| matches!(&c.value, ast::Value::SingleQuotedString(s) if s == "\\"));
                if *any || !backslash {
                    self.unsupported(span, "one_select", "`LIKE ANY` or `ESCAPE`");
                }
                let (e, t) = self.expr(inner, cols)?;
                let (p, pt) = self.expr(pattern, cols)?;
                self.expect_text(&t, inner.span(), "`LIKE`");
                self.expect_text(&pt, pattern.span(), "`LIKE`'s pattern");
                let case_insensitive = matches!(expr, Expr::ILike { .. });
                Some((
                    E::Like {
                        expr: Box::new(e),
                        pattern: Box::new(p),
                        negated: *negated,
                        case_insensitive,
                    },
                    Ty::Bool,
                ))
            }
            Expr::Between {
                expr: inner,
                negated,
                low,
                high,
            } => {
                let (e, t) = self.expr(inner, cols)?;
                let (l, lt) = self.expr(low, cols)?;
                let (h, ht) = self.expr(high, cols)?;
                self.expect_comparable(&t, &lt, low.span(), "`BETWEEN`");
                self.expect_comparable(&t, &ht, high.span(), "`BETWEEN`");
                Some((E::Between(Box::new(e), Box::new(l), Box::new(h), *negated), Ty::Bool))
            }
            Expr::Cast {
                kind,
                expr: inner,
                data_type,
                format,
                array,
            } => {
                if format.is_some() || *array || matches!(kind, CastKind::SafeCast) {
                    self.unsupported(span, "known_functions", "this `CAST`");
                }
                let (e, _) = self.expr(inner, cols)?;
                let Some(to) = cast_type(data_type) else {
                    self.unsupported(span, "known_functions", format_args!("`CAST` to `{data_type}`"));
                    return None;
                };
                Some((E::Cast(Box::new(e), to.clone()), to))
            }
            Expr::Extract { field, expr: inner, .. } => {
                let (e, t) = self.expr(inner, cols)?;
                let part = match field {
                    DateTimeField::Epoch => Part::Epoch,
                    DateTimeField::Year => Part::Year,
                    DateTimeField::Month => Part::Month,
                    DateTimeField::Day => Part::Day,
                    DateTimeField::Hour => Part::Hour,
                    DateTimeField::Minute => Part::Minute,
                    DateTimeField::Second => Part::Second,
                    other => {
                        self.unsupported(span, "known_functions", format_args!("`extract({other})`"));
                        return None;
                    }
                };
                if !matches!(t, Ty::Time | Ty::Any | Ty::Null) {
                    self.problem(
                        inner.span(),
                        ProblemCode::ValueTypeMismatch,
                        "types",
                        format_args!(
                            "`extract` takes a timestamp, not {} (wrap it in `to_timestamp`)",
                            t.name()
                        ),
                    );
                }
                let ty = if part == Part::Epoch { Ty::Float } else { Ty::Int };
                Some((E::Extract(part, Box::new(e)), ty))
            }
            Expr::Array(array) => {
                let mut elems = Vec::new();
                let mut ty = Ty::Null;
                for elem in &array.elem {
                    let (e, t) = self.expr(elem, cols)?;
                    if ty == Ty::Null {
                        ty = t;
                    }
                    elems.push(e);
                }
                Some((E::Array(elems), Ty::Array(Box::new(ty))))
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let operand = match operand {
                    Some(o) => Some(Box::new(self.expr(o, cols)?.0)),
                    None => None,
                };
                let mut whens = Vec::new();
                let mut ty = Ty::Null;
                for when in conditions {
                    let (c, ct) = self.expr(&when.condition, cols)?;
                    if operand.is_none() {
                        self.expect_bool(&ct, when.condition.span(), "`WHEN`");
                    }
                    let (r, rt) = self.expr(&when.result, cols)?;
                    if ty == Ty::Null {
                        ty = rt;
                    }
                    whens.push((c, r));
                }
                let otherwise = match else_result {
                    Some(e) => Some(Box::new(self.expr(e, cols)?.0)),
                    None => None,
                };
                Some((
                    E::Case {
                        operand,
                        whens,
                        otherwise,
                    },
                    ty,
                ))
            }
            // `TRIM(x)` and `TRIM([BOTH | LEADING | TRAILING] ' ' FROM x)` are forms of SQL's
            // grammar: the spaces trimmed, as `btrim`, `ltrim`, `rtrim`. Other characters are
            // not evaluated (refused below as unsupported).
            Expr::Trim {
                trim_where,
                trim_what,
                expr: inner,
                trim_characters: None,
            } if trim_what.as_deref().is_none_or(is_space_literal) => {
                let (e, t) = self.expr(inner, cols)?;
                self.expect_text(&t, inner.span(), "`trim`");
                let func = match trim_where {
                    None | Some(TrimWhereField::Both) => Func::Trim,
                    Some(TrimWhereField::Leading) => Func::Ltrim,
                    Some(TrimWhereField::Trailing) => Func::Rtrim,
                };
                Some((E::Call(func, vec![e]), Ty::Str))
            }
            Expr::Function(function) => self.function(function, span, cols),
            _ => {
                self.unsupported(
                    span,
                    "one_select",
                    format_args!("the expression `{}`", suggest::cut(&expr.to_string())),
                );
                None
            }
        }
    }

    fn column(&mut self, name: &str, span: Span, cols: &Columns) -> Option<(E, Ty)> {
        if let Some(ty) = cols.get(name) {
            return Some((E::Col(name.to_owned()), ty));
        }
        let suggestion = cols.suggest(name);
        let owner = match cols {
            Columns::Dataset(d) => format!("a field of `{}`", d.name()),
            Columns::Named(_) => "a column of the CTE it reads".to_owned(),
        };
        self.problem(
            span,
            ProblemCode::UnknownField,
            "known_fields",
            format_args!(
                "`{}` is not {owner}{}",
                suggest::cut(name),
                suggest::did_you_mean(suggestion.as_deref())
            ),
        );
        None
    }

    fn binary(
        &mut self,
        left: &Expr,
        op: &BinaryOperator,
        right: &Expr,
        span: Span,
        cols: &Columns,
    ) -> Option<(E, Ty)> {
        let op = match op {
            BinaryOperator::And => BinOp::And,
            BinaryOperator::Or => BinOp::Or,
            BinaryOperator::Eq => BinOp::Eq,
            BinaryOperator::NotEq => BinOp::NotEq,
            BinaryOperator::Lt => BinOp::Lt,
            BinaryOperator::LtEq => BinOp::LtEq,
            BinaryOperator::Gt => BinOp::Gt,
            BinaryOperator::GtEq => BinOp::GtEq,
            BinaryOperator::Plus => BinOp::Plus,
            BinaryOperator::Minus => BinOp::Minus,
            BinaryOperator::Multiply => BinOp::Mul,
            BinaryOperator::Divide => BinOp::Div,
            BinaryOperator::Modulo => BinOp::Mod,
            BinaryOperator::StringConcat => BinOp::Concat,
            BinaryOperator::Arrow => BinOp::Arrow,
            BinaryOperator::LongArrow => BinOp::LongArrow,
            other => {
                self.unsupported(span, "known_functions", format_args!("the operator `{other}`"));
                return None;
            }
        };
        let (l, lt) = self.expr(left, cols)?;
        let (r, rt) = self.expr(right, cols)?;
        let what = format!("`{op:?}`");
        let ty = match op {
            BinOp::And | BinOp::Or => {
                self.expect_bool(&lt, left.span(), "`AND` / `OR`");
                self.expect_bool(&rt, right.span(), "`AND` / `OR`");
                Ty::Bool
            }
            BinOp::Eq | BinOp::NotEq | BinOp::Lt | BinOp::LtEq | BinOp::Gt | BinOp::GtEq => {
                self.expect_comparable(&lt, &rt, span, "a comparison");
                Ty::Bool
            }
            BinOp::Plus | BinOp::Minus | BinOp::Mul | BinOp::Div | BinOp::Mod => {
                self.expect_number(&lt, left.span(), &what);
                self.expect_number(&rt, right.span(), &what);
                if lt == Ty::Int && rt == Ty::Int {
                    Ty::Int
                } else {
                    Ty::Float
                }
            }
            BinOp::Concat => Ty::Str,
            BinOp::Arrow | BinOp::LongArrow => {
                if !matches!(lt, Ty::Json | Ty::Str | Ty::Any | Ty::Null | Ty::Array(_)) {
                    self.problem(
                        left.span(),
                        ProblemCode::ValueTypeMismatch,
                        "types",
                        format_args!("`->` / `->>` read a JSON object, not {}", lt.name()),
                    );
                }
                if !matches!(rt, Ty::Str | Ty::Int | Ty::Any | Ty::Null) {
                    self.problem(
                        right.span(),
                        ProblemCode::ValueTypeMismatch,
                        "types",
                        "`->` / `->>` take a key (text) or an index (integer)",
                    );
                }
                if op == BinOp::Arrow {
                    Ty::Json
                } else {
                    Ty::Str
                }
            }
        };
        Some((E::Bin(op, Box::new(l), Box::new(r)), ty))
    }

    #[allow(clippy::too_many_lines)]
    fn function(&mut self, function: &ast::Function, span: Span, cols: &Columns) -> Option<(E, Ty)> {
        let name = function.name.to_string().to_lowercase();
        if function.over.is_some() {
            self.unsupported(
                span,
                "no_windows",
                format_args!("the window function `{name}(...) OVER`"),
            );
            return None;
        }
        if AGGREGATES.contains(&name.as_str()) || function.filter.is_some() || !function.within_group.is_empty() {
            self.unsupported(
                span,
                "no_aggregation",
                format_args!("the aggregate `{}`", name.to_uppercase()),
            );
            return None;
        }
        let args: Vec<&Expr> = match &function.args {
            FunctionArguments::None => Vec::new(),
            FunctionArguments::Subquery(q) => {
                self.unsupported(q.span(), "no_subqueries", "a subquery");
                return None;
            }
            FunctionArguments::List(list) => {
                if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
                    self.unsupported(
                        span,
                        "no_aggregation",
                        format_args!("`{name}` with `DISTINCT` or clauses"),
                    );
                    return None;
                }
                let mut args = Vec::new();
                for arg in &list.args {
                    let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg else {
                        self.unsupported(arg.span(), "known_functions", format_args!("this argument of `{name}`"));
                        return None;
                    };
                    args.push(e);
                }
                args
            }
        };
        if name == "named_struct" {
            return self.named_struct(&args, span, cols);
        }
        if name == "unnest" {
            self.unsupported(
                span,
                "unnest",
                "`unnest` inside an expression (write it as a projection's whole expression)",
            );
            return None;
        }
        let Some(&(_, func, least, most)) = FUNCTIONS.iter().find(|(n, ..)| *n == name) else {
            let names: Vec<&str> = FUNCTIONS
                .iter()
                .map(|(n, ..)| *n)
                .chain(["named_struct", "unnest"])
                .collect();
            let suggestion = suggest::closest_name(&name, &names);
            self.unsupported(
                span,
                "known_functions",
                format_args!(
                    "the function `{}`{}",
                    suggest::cut(&name),
                    suggest::did_you_mean(suggestion)
                ),
            );
            return None;
        };
        if args.len() < least || args.len() > most {
            self.problem(
                span,
                ProblemCode::InvalidValue,
                "known_functions",
                format_args!(
                    "`{name}` takes {}, not {} argument(s)",
                    if least == most {
                        least.to_string()
                    } else {
                        format!("at least {least}")
                    },
                    args.len()
                ),
            );
            return None;
        }
        let mut lowered = Vec::new();
        let mut types = Vec::new();
        for arg in &args {
            let (e, t) = self.expr(arg, cols)?;
            lowered.push(e);
            types.push(t);
        }
        let first = types.first().cloned().unwrap_or(Ty::Null);
        let ty = match func {
            Func::Upper | Func::Lower | Func::Trim | Func::Ltrim | Func::Rtrim | Func::Replace => {
                for (t, a) in types.iter().zip(&args) {
                    self.expect_text(t, a.span(), &format!("`{name}`"));
                }
                Ty::Str
            }
            Func::StartsWith | Func::EndsWith => {
                for (t, a) in types.iter().zip(&args) {
                    self.expect_text(t, a.span(), &format!("`{name}`"));
                }
                Ty::Bool
            }
            Func::Length => {
                self.expect_text(&first, args[0].span(), &format!("`{name}`"));
                Ty::Int
            }
            Func::Concat => Ty::Str,
            Func::Coalesce | Func::NullIf => {
                for (t, a) in types.iter().zip(&args).skip(1) {
                    self.expect_comparable(&first, t, a.span(), &format!("`{name}`"));
                }
                types.iter().find(|t| **t != Ty::Null).cloned().unwrap_or(Ty::Null)
            }
            Func::ToTimestamp => {
                if !matches!(first, Ty::Str | Ty::Int | Ty::Float | Ty::Time | Ty::Any | Ty::Null) {
                    self.problem(
                        args[0].span(),
                        ProblemCode::ValueTypeMismatch,
                        "types",
                        format_args!("`to_timestamp` takes text or a number, not {}", first.name()),
                    );
                }
                Ty::Time
            }
            Func::Abs | Func::Round => {
                self.expect_number(&first, args[0].span(), &format!("`{name}`"));
                if func == Func::Round {
                    Ty::Float
                } else {
                    first
                }
            }
            Func::MakeArray => Ty::Array(Box::new(first)),
        };
        Some((E::Call(func, lowered), ty))
    }

    fn named_struct(&mut self, args: &[&Expr], span: Span, cols: &Columns) -> Option<(E, Ty)> {
        if args.is_empty() || !args.len().is_multiple_of(2) {
            self.problem(
                span,
                ProblemCode::InvalidValue,
                "known_functions",
                "`named_struct` takes pairs of a name and a value",
            );
            return None;
        }
        let mut members = Vec::new();
        for pair in args.chunks(2) {
            let key = match pair[0] {
                Expr::Value(v) => match &v.value {
                    ast::Value::SingleQuotedString(s) => s.clone(),
                    _ => String::new(),
                },
                _ => String::new(),
            };
            if key.is_empty() {
                self.problem(
                    pair[0].span(),
                    ProblemCode::InvalidValue,
                    "known_functions",
                    "a `named_struct` member's name is a text literal ('name')",
                );
                return None;
            }
            let (e, _) = self.expr(pair[1], cols)?;
            members.push((key, e));
        }
        Some((E::Struct(members), Ty::Struct))
    }

    fn expect_bool(&mut self, t: &Ty, span: Span, what: &str) {
        if !matches!(t, Ty::Bool | Ty::Any | Ty::Null) {
            self.problem(
                span,
                ProblemCode::ValueTypeMismatch,
                "types",
                format_args!("{what} needs a condition, not {}", t.name()),
            );
        }
    }

    fn expect_number(&mut self, t: &Ty, span: Span, what: &str) {
        if !t.numeric() {
            self.problem(
                span,
                ProblemCode::ValueTypeMismatch,
                "types",
                format_args!("{what} needs a number, not {}", t.name()),
            );
        }
    }

    fn expect_text(&mut self, t: &Ty, span: Span, what: &str) {
        if !matches!(t, Ty::Str | Ty::Any | Ty::Null) {
            self.problem(
                span,
                ProblemCode::ValueTypeMismatch,
                "types",
                format_args!("{what} needs text, not {}", t.name()),
            );
        }
    }

    fn expect_comparable(&mut self, a: &Ty, b: &Ty, span: Span, what: &str) {
        if !a.comparable(b) {
            self.problem(
                span,
                ProblemCode::ValueTypeMismatch,
                "types",
                format_args!("{what} of {} with {} can never hold", a.name(), b.name()),
            );
        }
    }
}

pub(super) fn literal(value: &ast::Value) -> Option<(Value<'static>, Ty)> {
    Some(match value {
        ast::Value::Number(text, _) => match text.parse::<i64>() {
            Ok(n) => (Value::Int(n), Ty::Int),
            Err(_) => (Value::Float(text.parse::<f64>().ok()?), Ty::Float),
        },
        ast::Value::SingleQuotedString(s) => (Value::text(s.clone()), Ty::Str),
        ast::Value::Boolean(b) => (Value::Bool(*b), Ty::Bool),
        ast::Value::Null => (Value::Null, Ty::Null),
        _ => return None,
    })
}

fn cast_type(data_type: &ast::DataType) -> Option<Ty> {
    use ast::DataType as D;
    Some(match data_type {
        D::Varchar(_)
        | D::Text
        | D::String(_)
        | D::Char(_)
        | D::CharVarying(_)
        | D::Character(_)
        | D::CharacterVarying(_) => Ty::Str,
        D::BigInt(_) | D::Int(_) | D::Integer(_) | D::SmallInt(_) | D::TinyInt(_) | D::Int64 | D::Int32 => Ty::Int,
        D::Double(_)
        | D::DoublePrecision
        | D::Float(_)
        | D::Real
        | D::Float64
        | D::Float32
        | D::Decimal(_)
        | D::Numeric(_) => Ty::Float,
        D::Boolean | D::Bool => Ty::Bool,
        D::Timestamp(..) => Ty::Time,
        _ => return None,
    })
}

/// `' '`: the one character `TRIM` evaluates.
fn is_space_literal(e: &Expr) -> bool {
    matches!(e, Expr::Value(v) if matches!(&v.value, ast::Value::SingleQuotedString(s) if s == " "))
}
