//! Compaction: an equivalent filter that is never larger (fewer operators first, then
//! fewer bytes), for filters that grew past the API's limits.
//!
//! Bottom up, every group is rewritten by rules that keep the meaning on every record
//! (flatten nested groups of the same kind, unwrap groups of one, drop repeated children,
//! merge `in` sets under `or` and `!in` sets under `and`, factor a condition shared by the
//! `and`s of an `or` (or the `or`s of an `and`) out of them), and by rules whose truth
//! depends on the records allowed (an `or` of `eq`s into `in`, which an array field
//! breaks; dropping a child the others imply, which covers absorption, subsumed prefixes
//! and merged bounds). Each rule of the second kind is kept only when the
//! [equivalence decision](super::equiv) proves it under the same rules (with the dataset
//! when one is given); the result as a whole is proven equivalent to the input too.

use std::collections::HashMap;
use std::fmt::Write;

use crate::dataset::Dataset;
use crate::problem::{Problem, ProblemCode};

use super::ast::{Condition, Expr, Operator, Value};
use super::equiv;
use super::validate::MAX_DEPTH;
use super::{Filter, Limits};

/// An equivalent filter never larger than `filter` (operators, then bytes). With a
/// dataset, equivalent on the records its schema allows.
pub fn compact(filter: &Filter, dataset: Option<&Dataset>) -> Filter {
    let mut c = Compactor { dataset };
    let mut expr = filter.expr().clone();
    // A few rounds: factoring can expose duplicates and merges, and merges factoring.
    for _ in 0..4 {
        let next = c.expr(expr.clone());
        if next == expr {
            break;
        }
        expr = next;
    }
    let out = Filter::from_expr(expr);
    // Every rewrite was proven or holds on every record; the whole is checked again when
    // it is small enough to check quickly.
    let proven =
        filter.operator_count() + out.operator_count() > 4 * MAX_PROVEN || equiv::equivalent(filter, &out, dataset);
    if out.expr().depth() <= MAX_DEPTH && size(&out) < size(filter) && proven {
        out
    } else {
        filter.clone()
    }
}

/// For a filter over the limits (by at most ten times): when its compact form fits, says
/// so at the end of the first limit problem, with the size it would have.
pub(crate) fn suggest(filter: &Filter, dataset: Option<&Dataset>, limits: Limits, problems: &mut [Problem]) {
    let (ops, bytes) = size(filter);
    let Some(problem) = problems
        .iter_mut()
        .find(|p| matches!(p.code, ProblemCode::TooManyOperators | ProblemCode::TooLarge))
    else {
        return;
    };
    if ops > 10 * limits.max_operators.max(1) || bytes > 10 * limits.max_bytes.max(1) {
        return;
    }
    let (c_ops, c_bytes) = size(&compact(filter, dataset));
    if c_ops <= limits.max_operators && c_bytes <= limits.max_bytes {
        let _ = write!(
            problem.message,
            ". `compact()` (escpush filter fmt --compact) rewrites it to an equivalent filter of {c_ops} operators \
             and {c_bytes} bytes, within the limits"
        );
    }
}

/// Operators first, then bytes.
pub(crate) fn size(f: &Filter) -> (usize, usize) {
    (f.operator_count(), f.byte_size())
}

struct Compactor<'a> {
    dataset: Option<&'a Dataset>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    And,
    Or,
}

fn group(kind: Kind, mut items: Vec<Expr>) -> Expr {
    if items.len() == 1 {
        return items.pop().expect("one item");
    }
    match kind {
        Kind::And => Expr::And(items),
        Kind::Or => Expr::Or(items),
    }
}

fn expr_size(e: &Expr) -> (usize, usize) {
    size(&Filter::from_expr(e.clone()))
}

/// The most conditions a rewrite that needs a proof may span; larger groups get only the
/// rewrites that hold on every record.
const MAX_PROVEN: usize = 256;

impl Compactor<'_> {
    fn same(&self, a: &Expr, b: &Expr) -> bool {
        let (a, b) = (Filter::from_expr(a.clone()), Filter::from_expr(b.clone()));
        a.operator_count() + b.operator_count() <= MAX_PROVEN && equiv::equivalent(&a, &b, self.dataset)
    }

    fn expr(&mut self, e: Expr) -> Expr {
        match e {
            Expr::Condition(c) => self.condition(dedup_set(c)),
            Expr::And(items) => self.group(Kind::And, items),
            Expr::Or(items) => self.group(Kind::Or, items),
        }
    }

    /// `k in [x]` as `k == x` (and `!in` as `!=`), two bytes shorter, where proven: on an
    /// array field `in` looks at the elements and `==` never holds.
    fn condition(&self, c: Condition) -> Expr {
        let single = match (&c.value, c.operator) {
            (Value::Set(items), Operator::In | Operator::NotIn) if items.len() == 1 => Some(items[0].clone()),
            _ => None,
        };
        let Some(value) = single else {
            return Expr::Condition(c);
        };
        let operator = if c.operator == Operator::In {
            Operator::Eq
        } else {
            Operator::NotEq
        };
        let one = Expr::Condition(Condition::canonical(c.key.clone(), operator, Value::Scalar(value)));
        let set = Expr::Condition(c);
        if self.same(&set, &one) {
            one
        } else {
            set
        }
    }

    fn group(&mut self, kind: Kind, items: Vec<Expr>) -> Expr {
        let items: Vec<Expr> = items.into_iter().map(|e| self.expr(e)).collect();
        let mut items = flatten(kind, items);
        dedup(&mut items);
        merge_sets(kind, &mut items);
        self.merge_eqs(kind, &mut items);
        self.drop_implied(kind, &mut items);
        let e = group(kind, items);
        let factored = factor(&e);
        match factored {
            Some(f) if expr_size(&f) < expr_size(&e) => self.expr(f),
            _ => e,
        }
    }

    /// `k == a or k == b` into `k in [a, b]` (and `!=` under `and` into `!in`), kept when
    /// proven: on an array field they differ.
    fn merge_eqs(&self, kind: Kind, items: &mut Vec<Expr>) {
        let (single, set) = match kind {
            Kind::Or => (Operator::Eq, Operator::In),
            Kind::And => (Operator::NotEq, Operator::NotIn),
        };
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, e) in items.iter().enumerate() {
            if let Expr::Condition(c) = e {
                if c.operator == single || c.operator == set {
                    by_key.entry(c.key.clone()).or_default().push(i);
                }
            }
        }
        let mut keys: Vec<(String, Vec<usize>)> = by_key.into_iter().filter(|(_, v)| v.len() > 1).collect();
        keys.sort_by_key(|(_, v)| v[0]);
        let mut remove = Vec::new();
        let mut replace = Vec::new();
        for (key, idx) in keys {
            let mut values = Vec::new();
            for &i in &idx {
                if let Expr::Condition(c) = &items[i] {
                    match &c.value {
                        Value::Scalar(s) => values.push(s.clone()),
                        Value::Set(s) => values.extend(s.iter().cloned()),
                    }
                }
            }
            let merged = Expr::Condition(dedup_set(Condition::canonical(key, set, Value::Set(values))));
            let before = group(kind, idx.iter().map(|&i| items[i].clone()).collect());
            if self.same(&before, &merged) {
                replace.push((idx[0], merged));
                remove.extend(idx[1..].iter().copied());
            }
        }
        for (i, e) in replace {
            items[i] = e;
        }
        remove.sort_unstable();
        for i in remove.into_iter().rev() {
            items.remove(i);
        }
    }

    /// Drops a child the group means without (absorbed, subsumed, implied by the others).
    fn drop_implied(&self, kind: Kind, items: &mut Vec<Expr>) {
        if items.len() < 2 || items.len() > 64 {
            return;
        }
        let mut i = items.len();
        while i > 0 && items.len() > 1 {
            i -= 1;
            let whole = group(kind, items.clone());
            let mut without = items.clone();
            without.remove(i);
            if self.same(&whole, &group(kind, without)) {
                items.remove(i);
            }
        }
    }
}

/// Children of the same kind merged into the group; groups of one unwrapped.
fn flatten(kind: Kind, items: Vec<Expr>) -> Vec<Expr> {
    let mut out = Vec::with_capacity(items.len());
    for e in items {
        match (kind, e) {
            (Kind::And, Expr::And(inner)) | (Kind::Or, Expr::Or(inner)) => out.extend(flatten(kind, inner)),
            (_, Expr::And(mut inner) | Expr::Or(mut inner)) if inner.len() == 1 => {
                out.extend(flatten(kind, vec![inner.pop().expect("one item")]));
            }
            (_, e) => out.push(e),
        }
    }
    out
}

/// Repeated children dropped (the first kept).
fn dedup(items: &mut Vec<Expr>) {
    let mut seen: Vec<Expr> = Vec::new();
    items.retain(|e| {
        if seen.contains(e) {
            false
        } else {
            seen.push(e.clone());
            true
        }
    });
}

/// An `in` / `!in` set without values of the same canonical text (`1` and `"1"`).
fn dedup_set(mut c: Condition) -> Condition {
    if let Value::Set(items) = &mut c.value {
        let mut seen: Vec<String> = Vec::new();
        items.retain(|s| {
            let t = s.canonical_text().into_owned();
            if seen.contains(&t) {
                false
            } else {
                seen.push(t);
                true
            }
        });
    }
    c
}

/// `k in A or k in B` is `k in A ∪ B` on every record (so is `!in` under `and`).
fn merge_sets(kind: Kind, items: &mut Vec<Expr>) {
    let op = match kind {
        Kind::Or => Operator::In,
        Kind::And => Operator::NotIn,
    };
    let mut first: HashMap<String, usize> = HashMap::new();
    let mut keep = vec![true; items.len()];
    for i in 0..items.len() {
        let Expr::Condition(c) = &items[i] else { continue };
        if c.operator != op {
            continue;
        }
        match first.get(&c.key) {
            None => {
                first.insert(c.key.clone(), i);
            }
            Some(&j) => {
                let Value::Set(extra) = c.value.clone() else { continue };
                if let Expr::Condition(target) = &mut items[j] {
                    if let Value::Set(values) = &mut target.value {
                        values.extend(extra);
                    }
                    *target = dedup_set(target.clone());
                }
                keep[i] = false;
            }
        }
    }
    let mut it = keep.into_iter();
    items.retain(|_| it.next().unwrap_or(true));
}

/// `(a and b) or (a and c)` into `a and (b or c)`, and `(a or b) and (a or c)` into
/// `a or (b and c)`: the child shared by the most sub-groups, factored out of them.
fn factor(e: &Expr) -> Option<Expr> {
    let (kind, items) = match e {
        Expr::Or(items) => (Kind::Or, items),
        Expr::And(items) => (Kind::And, items),
        Expr::Condition(_) => return None,
    };
    let inner_kind = match kind {
        Kind::Or => Kind::And,
        Kind::And => Kind::Or,
    };
    let parts = |x: &Expr| -> Vec<Expr> {
        match (inner_kind, x) {
            (Kind::And, Expr::And(v)) | (Kind::Or, Expr::Or(v)) => v.clone(),
            _ => vec![x.clone()],
        }
    };
    // The part shared by the most children (at least two).
    let mut best: Option<(usize, Expr)> = None;
    let all: Vec<Vec<Expr>> = items.iter().map(parts).collect();
    for p in all.iter().flatten() {
        let n = all.iter().filter(|ps| ps.contains(p)).count();
        if n >= 2 && best.as_ref().is_none_or(|(m, _)| n > *m) {
            best = Some((n, p.clone()));
        }
    }
    let (_, shared) = best?;
    let mut with = Vec::new();
    let mut without = Vec::new();
    let mut absorbed = false;
    for (item, ps) in items.iter().zip(&all) {
        if ps.contains(&shared) {
            let rest: Vec<Expr> = ps.iter().filter(|p| **p != shared).cloned().collect();
            // `a or (a and b)`: the shared part alone absorbs the others that hold it.
            absorbed |= rest.is_empty();
            if !rest.is_empty() {
                with.push(group(inner_kind, rest));
            }
        } else {
            without.push(item.clone());
        }
    }
    let factored = if absorbed {
        shared
    } else {
        group(inner_kind, vec![shared, group(kind, with)])
    };
    let mut out = vec![factored];
    out.extend(without);
    Some(group(kind, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Dataset;

    fn t(text: &str) -> Filter {
        Filter::from_text(text).unwrap()
    }

    fn http() -> &'static Dataset {
        Dataset::get("http_requests", None).unwrap()
    }

    #[test]
    fn rewrites_the_issue_names() {
        let cases: &[(&str, Option<&Dataset>, &str)] = &[
            (
                "(A == 1 and B == 2) and (C == 3 and A == 1)",
                None,
                "A == 1 and B == 2 and C == 3",
            ),
            (
                r#"ClientCountry == "cn" or ClientCountry == "ru" or ClientCountry == "cn""#,
                Some(http()),
                r#"ClientCountry in ["cn", "ru"]"#,
            ),
            (r#"A == "cn" or A == "ru""#, None, r#"A == "cn" or A == "ru""#),
            (r#"A != "cn" and A != "ru""#, None, r#"A != "cn" and A != "ru""#),
            (
                r#"ClientCountry != "cn" and ClientCountry != "ru""#,
                Some(http()),
                r#"ClientCountry !in ["cn", "ru"]"#,
            ),
            ("A in [1, 2] or A in [2, 3]", None, "A in [1, 2, 3]"),
            ("A !in [1] and A !in [\"1\", 4]", None, "A !in [1, 4]"),
            ("A == 1 or (A == 1 and B == 2)", None, "A == 1"),
            (
                "(A == 1 and B == 2) or (A == 1 and C == 3)",
                None,
                "A == 1 and (B == 2 or C == 3)",
            ),
            (
                "(A == 1 or B == 2) and (A == 1 or C == 3)",
                None,
                "A == 1 or B == 2 and C == 3",
            ),
            ("A < 10 or A < 20", None, "A < 20"),
            ("A >= 5 and A >= 7 and A < 100", None, "A >= 7 and A < 100"),
            (
                r#"P startsWith "/api/v1" or P startsWith "/api""#,
                None,
                r#"P startsWith "/api""#,
            ),
            ("and(or(A == 1))", None, "A == 1"),
            (
                r#"ClientCountry in ["cn"] and ClientCountry !in ["ru"]"#,
                Some(http()),
                r#"ClientCountry == "cn""#,
            ),
            (r#"A in ["cn"] or B !in ["ru"]"#, None, r#"A in ["cn"] or B !in ["ru"]"#),
        ];
        for (input, dataset, expected) in cases {
            let f = t(input);
            let c = f.compact(*dataset);
            assert_eq!(c.to_text(), *expected, "{input}");
            assert!(f.equivalent(&c, *dataset));
            assert!(size(&c) <= size(&f));
        }
    }

    #[test]
    fn a_distributed_form_factors_back() {
        // (a or b) and (c or d) and (e or f), expanded into 8 `and`s of 3.
        let clauses = [("A", 1, 2), ("B", 3, 4), ("C", 5, 6)];
        let mut terms: Vec<Vec<String>> = vec![Vec::new()];
        for (k, x, y) in clauses {
            terms = terms
                .into_iter()
                .flat_map(|t| {
                    [x, y].map(|v| {
                        let mut t = t.clone();
                        t.push(format!("{k} == {v}"));
                        t
                    })
                })
                .collect();
        }
        let text = terms
            .iter()
            .map(|t| format!("({})", t.join(" and ")))
            .collect::<Vec<_>>()
            .join(" or ");
        let f = t(&text);
        assert_eq!(f.operator_count(), 24);
        let c = f.compact(None);
        assert!(f.equivalent(&c, None));
        assert_eq!(c.operator_count(), 6, "{}", c.to_text());
    }
}
