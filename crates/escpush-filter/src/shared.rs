//! [`SharedFilter`]: a filter that many owners share and combine without copying, for
//! bindings whose filters are immutable values (Python's `Filter`).
//!
//! `f & g` on two shared filters is a node pointing at both: constant time, however big
//! they are. The flat filter is made once, when first asked for, by walking the nodes
//! without recursion, with the same result as [`Filter`]'s `&` / `|` (a group of the same
//! kind is merged into its parent). So `f = f & g` in a loop is linear, not quadratic. The
//! depth rule ([`MAX_DEPTH`](super::MAX_DEPTH)) is checked at each step, in constant time.

use std::sync::{Arc, OnceLock};

use super::ast::Expr;
use super::validate::{too_deep, MAX_DEPTH};
use super::{Filter, FilterError};

/// A [`Filter`] behind a shared pointer, cheap to clone and to combine. See the
/// [module docs](self).
#[derive(Clone, Debug)]
pub struct SharedFilter(Arc<Node>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Condition,
    And,
    Or,
}

#[derive(Debug)]
struct Node {
    /// What the root of the flat filter is.
    kind: Kind,
    /// How deep its groups nest ([`Expr::depth`]).
    depth: usize,
    /// A combination not flattened yet: its two operands (empty for a leaf, and once dropped).
    parts: Vec<SharedFilter>,
    /// The flat filter; set from the start for a leaf.
    flat: OnceLock<Filter>,
}

impl From<Filter> for SharedFilter {
    fn from(filter: Filter) -> Self {
        let kind = match filter.expr() {
            Expr::Condition(_) => Kind::Condition,
            Expr::And(_) => Kind::And,
            Expr::Or(_) => Kind::Or,
        };
        let depth = filter.expr().depth();
        SharedFilter(Arc::new(Node {
            kind,
            depth,
            parts: Vec::new(),
            flat: OnceLock::from(filter),
        }))
    }
}

impl SharedFilter {
    /// `self & other`; refused when groups would nest deeper than the limit.
    pub fn and(&self, other: &SharedFilter) -> Result<SharedFilter, FilterError> {
        self.combine(other, Kind::And)
    }

    /// `self | other`; refused when groups would nest deeper than the limit.
    pub fn or(&self, other: &SharedFilter) -> Result<SharedFilter, FilterError> {
        self.combine(other, Kind::Or)
    }

    fn combine(&self, other: &SharedFilter, kind: Kind) -> Result<SharedFilter, FilterError> {
        // An operand of the same kind is merged: its items sit one level up.
        let items_depth = |f: &SharedFilter| {
            if f.0.kind == kind {
                f.0.depth - 1
            } else {
                f.0.depth
            }
        };
        let depth = 1 + items_depth(self).max(items_depth(other));
        if depth > MAX_DEPTH {
            return Err(FilterError::new(vec![too_deep("where")]));
        }
        Ok(SharedFilter(Arc::new(Node {
            kind,
            depth,
            parts: vec![self.clone(), other.clone()],
            flat: OnceLock::new(),
        })))
    }

    /// The flat filter, made on first use and kept.
    pub fn filter(&self) -> &Filter {
        self.0.flat.get_or_init(|| self.flatten())
    }

    /// Collects the items of this combination left to right: operands of the same kind that
    /// are not flat yet are opened in place (a loop, not recursion, however long the chain);
    /// the others are flattened (recursion as deep as groups nest, at most `MAX_DEPTH`).
    fn flatten(&self) -> Filter {
        let and = self.0.kind == Kind::And;
        let mut items: Vec<Expr> = Vec::new();
        let mut stack: Vec<&SharedFilter> = self.0.parts.iter().rev().collect();
        while let Some(part) = stack.pop() {
            if part.0.flat.get().is_none() && part.0.kind == self.0.kind {
                stack.extend(part.0.parts.iter().rev());
                continue;
            }
            match (part.filter().expr(), and) {
                (Expr::And(inner), true) | (Expr::Or(inner), false) => items.extend(inner.iter().cloned()),
                (other, _) => items.push(other.clone()),
            }
        }
        Filter::from_expr(if and { Expr::And(items) } else { Expr::Or(items) })
    }
}

impl PartialEq for SharedFilter {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.filter() == other.filter()
    }
}

impl Eq for SharedFilter {}

impl std::hash::Hash for SharedFilter {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.filter().hash(state);
    }
}

/// Dropping a long chain of combinations one node at a time, not by recursion.
impl Drop for Node {
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.parts);
        while let Some(part) = stack.pop() {
            if let Ok(mut node) = Arc::try_unwrap(part.0) {
                stack.append(&mut node.parts);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field;

    #[test]
    fn combining_gives_what_filter_operators_give() {
        let (x, y, z) = (field("X").eq("x"), field("Y").eq("y"), field("Z").eq("z"));
        let s = |f: &Filter| SharedFilter::from(f.clone());
        let cases = [
            (
                s(&x).and(&s(&y)).unwrap().and(&s(&z)).unwrap(),
                x.clone() & y.clone() & z.clone(),
            ),
            (
                s(&x).and(&s(&y).or(&s(&z)).unwrap()).unwrap(),
                x.clone() & (y.clone() | z.clone()),
            ),
            (
                s(&x).and(&s(&y)).unwrap().or(&s(&z)).unwrap(),
                (x.clone() & y.clone()) | z.clone(),
            ),
            (
                s(&(x.clone() | y.clone())).or(&s(&x).or(&s(&z)).unwrap()).unwrap(),
                (x.clone() | y.clone()) | (x.clone() | z.clone()),
            ),
        ];
        for (shared, plain) in cases {
            assert_eq!(shared.filter(), &plain);
            assert_eq!(shared.0.depth, plain.expr().depth());
        }
    }

    #[test]
    fn a_long_chain_is_linear_to_build_flatten_and_drop() {
        // 200,000 steps: a copy per step would take hours; recursion per step would
        // overflow the stack, in flattening or in dropping.
        let started = std::time::Instant::now();
        let leaf = SharedFilter::from(field("A").eq("x"));
        let mut f = leaf.clone();
        for _ in 1..200_000 {
            f = f.and(&leaf).unwrap();
        }
        assert_eq!(f.filter().operator_count(), 200_000);
        assert_eq!(f.filter().expr().depth(), 1);
        let mut g = leaf.clone();
        for _ in 1..200_000 {
            g = g.or(&leaf).unwrap();
        }
        drop(g);
        drop(f);
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
    }

    #[test]
    fn depth_is_checked_at_each_step() {
        let leaf = SharedFilter::from(field("A").eq("x"));
        let step = |f: &SharedFilter, i: usize| if i.is_multiple_of(2) { leaf.and(f) } else { leaf.or(f) };
        let mut f = leaf.clone();
        for i in 0..MAX_DEPTH {
            f = step(&f, i).unwrap();
        }
        assert_eq!(f.filter().expr().depth(), MAX_DEPTH);
        let err = step(&f, MAX_DEPTH).unwrap_err();
        assert_eq!(err.problems()[0].code, crate::ProblemCode::TooDeep);
        assert_eq!(Filter::parse(&f.filter().to_json()).unwrap(), *f.filter());
    }
}
