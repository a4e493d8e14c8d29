//! What one field can hold, and a value of it that gives chosen atoms chosen truth values.
//!
//! A field of a record is missing (or null, the same to every condition), a boolean, an
//! integer of any size, a float, a string, or an array (objects behave as missing). Given
//! truth values for some atoms on the field, [`witness`] finds a value that gives them
//! exactly those values, or proves there is none, by testing a finite set of candidates
//! that is complete for every kind:
//!
//! - integers: a true `eq` / `in` leaves only its values; otherwise the bounds make an
//!   interval and the false `eq` / `in` exclude finitely many points, so the first
//!   `k + 1` points from one end (k the number of atoms) include an answer if any exists;
//! - floats: the region is an interval with integer ends, and the float nearest to an end
//!   on its inner side is one of the three floats around that end;
//! - strings: a true `eq` / `in` leaves only its texts; otherwise the string `P#C1#..#S`
//!   (longest required prefix, the required substrings, longest required suffix, joined
//!   by a character `#` no constant holds) has every required part, and any constant it
//!   starts with, ends with, holds or equals lies inside a required part, so every string
//!   with the required parts has it too: if this one breaks a false atom, all do;
//! - arrays: the required elements (true `contains`) and one element of each true `in`
//!   that no false atom forbids; adding an element only makes atoms on its text true;
//! - booleans and missing: one value each.
//!
//! Every candidate is checked with the tree evaluator's own condition test.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::ast::{canonical_int, Condition, Operator};
use crate::dataset::FieldType;
use crate::eval::{eval_condition, FieldValue};

/// An atom: a positive condition, and what the search needs to know about it.
pub(super) struct Atom {
    pub(super) field: usize,
    /// The condition with a positive operator (`eq`, `in`, `lt`, ..., `contains`).
    pub(super) cond: Condition,
    /// The canonical texts it compares with (`eq`, `in`, `contains`, prefixes, suffixes).
    pub(super) texts: Vec<String>,
    /// The integer bound of `lt`..`geq`.
    pub(super) bound: Option<i64>,
}

impl Atom {
    fn op(&self) -> Operator {
        self.cond.operator()
    }
}

/// The kinds of value a field may hold.
#[derive(Clone, Copy, Debug)]
#[allow(clippy::struct_excessive_bools)] // one flag per kind of JSON value
pub(super) struct Kinds {
    boolean: bool,
    int: bool,
    float: bool,
    string: bool,
    string_array: bool,
    int_array: bool,
}

impl Kinds {
    /// Any JSON value (no dataset).
    pub(super) const ANY: Kinds = Kinds {
        boolean: true,
        int: true,
        float: true,
        string: true,
        string_array: true,
        int_array: true,
    };

    /// Only missing or null (a field the dataset does not have, or cannot filter).
    const NONE: Kinds = Kinds {
        boolean: false,
        int: false,
        float: false,
        string: false,
        string_array: false,
        int_array: false,
    };

    /// What a field of this type holds besides null: int fields hold integers, float
    /// fields numbers, ...
    pub(super) fn of(ty: Option<FieldType>) -> Kinds {
        let none = Kinds::NONE;
        match ty {
            None | Some(FieldType::Object | FieldType::ObjectArray) => none,
            Some(FieldType::String) => Kinds { string: true, ..none },
            Some(FieldType::Int) => Kinds { int: true, ..none },
            Some(FieldType::Float) => Kinds {
                int: true,
                float: true,
                ..none
            },
            Some(FieldType::Bool) => Kinds { boolean: true, ..none },
            Some(FieldType::StringArray) => Kinds {
                string_array: true,
                ..none
            },
            Some(FieldType::IntArray) => Kinds {
                int_array: true,
                ..none
            },
            Some(FieldType::IntOrString) => Kinds {
                int: true,
                string: true,
                ..none
            },
            Some(_) => Kinds::ANY,
        }
    }
}

/// A value for the field that gives every `(atom, truth)` its truth, `Some(Null)` when
/// missing will do; `None` when no value of the allowed kinds does.
pub(super) fn witness(kinds: Kinds, lits: &[(&Atom, bool)]) -> Option<FieldValue<'static>> {
    let fits = |v: &FieldValue<'_>| lits.iter().all(|(a, t)| eval_condition(&a.cond, Some(v)) == *t);
    if lits.iter().all(|(_, t)| !t) {
        return Some(FieldValue::Null);
    }
    let mut found = None;
    let mut try_value = |v: FieldValue<'static>| {
        if found.is_none() && fits(&v) {
            found = Some(v);
        }
        found.is_some()
    };
    if kinds.boolean && (try_value(FieldValue::Bool(true)) || try_value(FieldValue::Bool(false))) {
        return found;
    }
    if kinds.int && integers(lits).into_iter().any(|n| try_value(FieldValue::Int(n))) {
        return found;
    }
    if kinds.float && floats(lits).into_iter().any(|x| try_value(FieldValue::Float(x))) {
        return found;
    }
    if kinds.string
        && strings(lits)
            .into_iter()
            .any(|s| try_value(FieldValue::Str(Cow::Owned(s))))
    {
        return found;
    }
    for int_elements in [false, true] {
        let allowed = if int_elements {
            kinds.int_array
        } else {
            kinds.string_array
        };
        if allowed {
            if let Some(v) = array(lits, int_elements) {
                if try_value(v) {
                    return found;
                }
            }
        }
    }
    None
}

/// Texts a true `eq` / `in` allows: the value must be one of them (`None`: no such atom).
fn required_texts<'a>(lits: &[(&'a Atom, bool)]) -> Option<&'a [String]> {
    lits.iter()
        .find(|(a, t)| *t && matches!(a.op(), Operator::Eq | Operator::In))
        .map(|(a, _)| a.texts.as_slice())
}

fn integers(lits: &[(&Atom, bool)]) -> Vec<i128> {
    if let Some(texts) = required_texts(lits) {
        return texts.iter().filter_map(|t| canonical_int(t)).collect();
    }
    let (mut lo, mut hi) = (None::<i128>, None::<i128>);
    for (a, t) in lits {
        let Some(b) = a.bound.map(i128::from) else { continue };
        let orderings = a.op().orderings();
        if orderings.is_empty() {
            continue;
        }
        // On an integer every comparison is defined: false `lt b` is `>= b`, and so on. The
        // literal holds where the number compares with `b` in one of its orderings (or, when
        // false, its partner's), which hold below `b` or above it, `b` included or not.
        let holds_at = |o: Ordering| orderings.contains(&o) == *t;
        let (is_upper, limit) = match (holds_at(Ordering::Less), holds_at(Ordering::Equal)) {
            (true, false) => (true, b - 1),
            (true, true) => (true, b),
            (false, false) => (false, b + 1),
            (false, true) => (false, b),
        };
        if is_upper {
            hi = Some(hi.map_or(limit, |h| h.min(limit)));
        } else {
            lo = Some(lo.map_or(limit, |l| l.max(limit)));
        }
    }
    let steps = i128::try_from(lits.len()).unwrap_or(i128::MAX) + 1;
    match (lo, hi) {
        (Some(l), _) => (0..steps)
            .map(|i| l + i)
            .filter(|n| hi.is_none_or(|h| *n <= h))
            .collect(),
        (None, Some(h)) => (0..steps).map(|i| h - i).collect(),
        (None, None) => (0..steps).collect(),
    }
}

#[allow(clippy::cast_precision_loss)] // the nearest float, and its neighbours
fn floats(lits: &[(&Atom, bool)]) -> Vec<f64> {
    let mut out = vec![0.5, -0.5, 1e300, -1e300];
    for (a, _) in lits {
        if let Some(b) = a.bound {
            let x = b as f64;
            out.extend([x + 0.5, x - 0.5, x, x.next_down(), x.next_up()]);
        }
    }
    out
}

fn strings(lits: &[(&Atom, bool)]) -> Vec<String> {
    if let Some(texts) = required_texts(lits) {
        return texts.to_vec();
    }
    let longest = |op: Operator| {
        lits.iter()
            .filter(|(a, t)| *t && a.op() == op)
            .map(|(a, _)| a.texts[0].as_str())
            .max_by_key(|s| s.len())
            .unwrap_or("")
    };
    let sep = separator(lits);
    let mut s = longest(Operator::StartsWith).to_owned();
    for (a, t) in lits {
        if *t && a.op() == Operator::Contains {
            s.push(sep);
            s.push_str(&a.texts[0]);
        }
    }
    s.push(sep);
    s.push_str(longest(Operator::EndsWith));
    vec![s]
}

/// A character no text of these atoms holds.
fn separator(lits: &[(&Atom, bool)]) -> char {
    ('#'..=char::MAX)
        .filter(|c| !c.is_alphanumeric())
        .find(|c| !lits.iter().any(|(a, _)| a.texts.iter().any(|t| t.contains(*c))))
        .unwrap_or('\u{10FFFF}')
}

fn array(lits: &[(&Atom, bool)], int_elements: bool) -> Option<FieldValue<'static>> {
    let forbidden = |text: &str| {
        lits.iter().any(|(a, t)| {
            !*t && matches!(a.op(), Operator::Contains | Operator::In) && a.texts.iter().any(|x| x == text)
        })
    };
    let usable = |text: &str| !forbidden(text) && (!int_elements || canonical_int(text).is_some());
    let mut elements: Vec<String> = Vec::new();
    for (a, t) in lits {
        if !*t {
            continue;
        }
        match a.op() {
            Operator::Contains => elements.push(a.texts[0].clone()),
            Operator::In => elements.push(a.texts.iter().find(|x| usable(x))?.clone()),
            // No other operator holds on an array; atoms are un-negated.
            Operator::Eq
            | Operator::Lt
            | Operator::Leq
            | Operator::Gt
            | Operator::Geq
            | Operator::StartsWith
            | Operator::EndsWith
            | Operator::NotEq
            | Operator::NotStartsWith
            | Operator::NotEndsWith
            | Operator::NotContains
            | Operator::NotIn => {}
        }
    }
    let items = elements
        .into_iter()
        .map(|text| {
            if int_elements {
                canonical_int(&text).map(FieldValue::Int)
            } else {
                Some(FieldValue::Str(Cow::Owned(text)))
            }
        })
        .collect::<Option<Vec<_>>>()?;
    Some(FieldValue::Array(items))
}

/// What two atoms on one field say about each other on every value, as far as cheap
/// reasoning goes: used to keep the diagram to assignments that can happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Relation {
    /// Never both true.
    Exclusive,
    /// The first true makes the second true.
    Implies,
    /// The second true makes the first true.
    ImpliedBy,
    /// Nothing known.
    Free,
}

/// The relation of `a` and `b` (atoms on the same field). Only facts that hold for every
/// kind of value: an `eq` holds only on a scalar with that text; `startsWith`/`endsWith`
/// only on a string; `lt`..`geq` only on a number; `contains` only on a string or array.
pub(super) fn relation(a: &Atom, b: &Atom) -> Relation {
    use Operator as O;
    use Relation as R;
    let flip = |r: Relation| match r {
        R::Implies => R::ImpliedBy,
        R::ImpliedBy => R::Implies,
        other => other,
    };
    let (oa, ob) = (a.op(), b.op());
    let rank = |op: Operator| match op {
        O::Eq => 0,
        O::StartsWith => 1,
        O::EndsWith => 2,
        O::Contains => 3,
        O::In => 4,
        O::Lt | O::Leq | O::Gt | O::Geq => 5,
        // Atoms are un-negated.
        O::NotEq | O::NotStartsWith | O::NotEndsWith | O::NotContains | O::NotIn => 6,
    };
    if rank(oa) > rank(ob) {
        return flip(relation(b, a));
    }
    let (x, y) = (first_text(a), first_text(b));
    match (oa, ob) {
        (O::Eq, O::Eq) => {
            if x == y {
                R::Implies
            } else {
                R::Exclusive
            }
        }
        (O::Eq, O::In) => {
            if b.texts.iter().any(|t| t == x) {
                R::Implies
            } else {
                R::Exclusive
            }
        }
        (O::Eq, O::StartsWith) if !x.starts_with(y) => R::Exclusive,
        (O::Eq, O::EndsWith) if !x.ends_with(y) => R::Exclusive,
        (O::Eq, O::Contains) if !x.contains(y) => R::Exclusive,
        (O::Eq, _) if ob.is_numeric() => match canonical_int(x) {
            Some(n) if numeric_holds(ob, b.bound, n) => R::Free,
            _ => R::Exclusive,
        },
        (O::StartsWith, O::StartsWith) | (O::EndsWith, O::EndsWith) => {
            let (fwd, back) = if oa == O::StartsWith {
                (x.starts_with(y), y.starts_with(x))
            } else {
                (x.ends_with(y), y.ends_with(x))
            };
            match (fwd, back) {
                (true, _) => R::Implies,
                (_, true) => R::ImpliedBy,
                _ => R::Exclusive,
            }
        }
        (O::StartsWith | O::EndsWith, O::Contains) if x.contains(y) => R::Implies,
        (O::StartsWith | O::EndsWith | O::Contains, _) if ob.is_numeric() => R::Exclusive,
        _ if oa.is_numeric() && ob.is_numeric() => numeric_relation(oa, a.bound, ob, b.bound),
        _ => R::Free,
    }
}

fn first_text(atom: &Atom) -> &str {
    atom.texts.first().map_or("", String::as_str)
}

fn numeric_holds(op: Operator, bound: Option<i64>, n: i128) -> bool {
    let Some(b) = bound.map(i128::from) else { return false };
    op.orderings().contains(&n.cmp(&b))
}

/// Two comparisons as intervals of the real line: inclusion or disjointness.
fn numeric_relation(oa: Operator, a: Option<i64>, ob: Operator, b: Option<i64>) -> Relation {
    let (Some(a), Some(b)) = (a, b) else {
        return Relation::Free;
    };
    let upper = |op: Operator| op.orderings().contains(&Ordering::Less);
    let closed = |op: Operator| op.orderings().contains(&Ordering::Equal);
    match (upper(oa), upper(ob)) {
        (true, true) | (false, false) => {
            // For upper bounds, a ⊆ b when a's end is below b's (or equal and not more closed).
            let sub = |x: i64, cx: bool, y: i64, cy: bool, up: bool| {
                if up {
                    x < y || (x == y && (!cx || cy))
                } else {
                    x > y || (x == y && (!cx || cy))
                }
            };
            let up = upper(oa);
            if sub(a, closed(oa), b, closed(ob), up) {
                Relation::Implies
            } else if sub(b, closed(ob), a, closed(oa), up) {
                Relation::ImpliedBy
            } else {
                Relation::Free
            }
        }
        (up_a, _) => {
            let ((u, cu), (l, cl)) = if up_a {
                ((a, closed(oa)), (b, closed(ob)))
            } else {
                ((b, closed(ob)), (a, closed(oa)))
            };
            // Below u and above l: empty when u < l, or u == l unless both are closed.
            if u < l || (u == l && !(cu && cl)) {
                Relation::Exclusive
            } else {
                Relation::Free
            }
        }
    }
}
