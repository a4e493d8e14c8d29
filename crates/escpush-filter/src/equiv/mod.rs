//! Exact equivalence of two filters, with a counterexample when they differ.
//!
//! A decision, not a sample. Every condition is an *atom* (its `!` form is the atom
//! negated, exactly, by the evaluation rules) on one field; atoms that mean the same
//! (`eq "200"` and `eq 200` compare the same text) are one. The boolean structure of
//! `f xor g` is built as a reduced ordered BDD over the atoms, ordered so that the atoms
//! of one field are adjacent. A record on which exactly one filter matches is a path to
//! `true` whose choices on each field some value can make at once; fields are
//! independent, so the search walks the atoms of one field along a path, asks
//! [`theory::witness`] for a value (pruning at the first impossible choice), and
//! remembers the nodes where a field starts from which no record exists. The record
//! found is checked with the tree evaluator before it is returned.
//!
//! Without a dataset a field may hold any JSON value; with one, each field is missing,
//! null, or of its documented type (int fields hold integers), and the record found fits.

mod bdd;
mod theory;

use std::collections::{HashMap, HashSet};

use crate::dataset::Dataset;

use self::bdd::{Bdd, Node, FALSE, TRUE};
use self::theory::{relation, witness, Atom, Kinds, Relation};
use super::ast::{Condition, Expr, Operator, Scalar, Value};
use super::eval::FieldValue;
use super::Filter;

/// A record on which exactly one of two filters matches: the fields it needs (any field
/// not listed is missing), with values of any JSON kind (integers of any size).
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample {
    fields: Vec<(String, FieldValue<'static>)>,
}

impl Counterexample {
    /// The fields and their values, in the order the filters first name them.
    pub fn fields(&self) -> &[(String, FieldValue<'static>)] {
        &self.fields
    }

    /// The record as a JSON object. An integer beyond the 64-bit ranges (only needed for
    /// bounds at the ends of them) is written as the nearest float.
    pub fn to_json(&self) -> serde_json::Value {
        fn json(v: &FieldValue<'_>) -> serde_json::Value {
            match v {
                FieldValue::Null | FieldValue::Object => serde_json::Value::Null,
                FieldValue::Bool(b) => (*b).into(),
                FieldValue::Int(n) => match (i64::try_from(*n), u64::try_from(*n)) {
                    (Ok(i), _) => i.into(),
                    (_, Ok(u)) => u.into(),
                    #[allow(clippy::cast_precision_loss)]
                    _ => (*n as f64).into(),
                },
                FieldValue::Float(x) => (*x).into(),
                FieldValue::Str(s) => s.as_ref().into(),
                FieldValue::Array(items) => items.iter().map(json).collect(),
            }
        }
        serde_json::Value::Object(self.fields.iter().map(|(k, v)| (k.clone(), json(v))).collect())
    }

    fn record(&self) -> HashMap<String, FieldValue<'static>> {
        self.fields.iter().cloned().collect()
    }
}

/// Whether `f` and `g` match exactly the same records (with a dataset, the records its
/// schema allows).
pub fn equivalent(f: &Filter, g: &Filter, dataset: Option<&Dataset>) -> bool {
    counterexample(f, g, dataset).is_none()
}

/// A record on which exactly one of `f` and `g` matches, or `None` when they are equivalent.
///
/// # Panics
///
/// Never, unless the decision is wrong: the record found is checked with the tree
/// evaluator, and a record on which both filters agree is a bug, not an answer.
pub fn counterexample(f: &Filter, g: &Filter, dataset: Option<&Dataset>) -> Option<Counterexample> {
    let (atoms, order, bdd, diff) = diagram(f, g);
    if diff == FALSE {
        return None;
    }
    let kinds: Vec<Kinds> = atoms
        .fields
        .iter()
        .map(|name| match dataset {
            None => Kinds::ANY,
            Some(ds) => Kinds::of(ds.field(name).map(crate::dataset::FieldSchema::field_type)),
        })
        .collect();
    let mut search = Search {
        bdd: &bdd,
        atoms: &atoms.list,
        by_var: &order.by_var,
        kinds: &kinds,
        dead: HashSet::new(),
    };
    let found = search.find(diff)?;
    let mut fields: Vec<(usize, FieldValue<'static>)> = found
        .into_iter()
        .filter(|(_, v)| !matches!(v, FieldValue::Null))
        .collect();
    fields.sort_by_key(|(i, _)| *i);
    let cx = Counterexample {
        fields: fields.into_iter().map(|(i, v)| (atoms.fields[i].clone(), v)).collect(),
    };
    let record = cx.record();
    assert_ne!(
        f.matches(&record),
        g.matches(&record),
        "a counterexample is checked by the tree evaluator"
    );
    Some(cx)
}

/// The atoms of the filters, one per distinct meaning, and the fields they read.
#[derive(Default)]
struct Atoms {
    fields: Vec<String>,
    field_index: HashMap<String, usize>,
    list: Vec<Atom>,
    index: HashMap<(usize, Operator, Vec<String>, Option<i64>), usize>,
}

impl Atoms {
    fn collect(&mut self, expr: &Expr) {
        for c in expr.conditions() {
            self.atom(c);
        }
    }

    /// The atom of a condition and whether the condition is its negation.
    fn atom(&mut self, c: &Condition) -> (usize, bool) {
        let field = if let Some(&i) = self.field_index.get(&c.key) {
            i
        } else {
            self.fields.push(c.key.clone());
            self.field_index.insert(c.key.clone(), self.fields.len() - 1);
            self.fields.len() - 1
        };
        let (op, negated, texts, bound) = meaning(c);
        let key = (field, op, texts.clone(), bound);
        if let Some(&i) = self.index.get(&key) {
            return (i, negated);
        }
        let value = match bound {
            Some(b) => Value::Scalar(Scalar::Int(b)),
            None if op.takes_set() => Value::Set(texts.iter().cloned().map(Scalar::String).collect()),
            None => Value::Scalar(Scalar::String(texts[0].clone())),
        };
        self.list.push(Atom {
            field,
            cond: Condition::canonical(c.key.clone(), op, value),
            texts,
            bound,
        });
        self.index.insert(key, self.list.len() - 1);
        (self.list.len() - 1, negated)
    }

    /// The atom of a condition already collected.
    fn lookup(&self, c: &Condition) -> (usize, bool) {
        let (op, negated, texts, bound) = meaning(c);
        (self.index[&(self.field_index[&c.key], op, texts, bound)], negated)
    }

    /// Variables: atoms ordered by field (in order of first use), then by first use.
    fn order(&self) -> Order {
        let mut by_var: Vec<usize> = (0..self.list.len()).collect();
        let kind = |a: &Atom| match a.cond.operator {
            Operator::Lt | Operator::Leq | Operator::Gt | Operator::Geq => 0,
            Operator::Eq => 1,
            Operator::In => 2,
            Operator::StartsWith | Operator::EndsWith | Operator::Contains => 3,
            // Atoms are un-negated (`meaning`).
            Operator::NotEq
            | Operator::NotStartsWith
            | Operator::NotEndsWith
            | Operator::NotContains
            | Operator::NotIn => 4,
        };
        by_var.sort_by(|&i, &j| {
            let (a, b) = (&self.list[i], &self.list[j]);
            (a.field, kind(a), a.bound, &a.texts, i).cmp(&(b.field, kind(b), b.bound, &b.texts, j))
        });
        let mut rank = vec![0u32; self.list.len()];
        for (v, &i) in by_var.iter().enumerate() {
            rank[i] = u32::try_from(v).expect("fewer than 2^32 atoms");
        }
        Order { by_var, rank }
    }
}

/// What a condition compares: its positive operator, whether it is negated, the canonical
/// texts of its values (sorted, once each, for sets) and its integer bound.
fn meaning(c: &Condition) -> (Operator, bool, Vec<String>, Option<i64>) {
    let (op, negated) = c.operator.positive();
    let (texts, bound) = match &c.value {
        Value::Set(items) => {
            let mut texts: Vec<String> = items.iter().map(|s| s.canonical_text().into_owned()).collect();
            texts.sort();
            texts.dedup();
            (texts, None)
        }
        Value::Scalar(s) if op.is_numeric() => (Vec::new(), s.as_integer()),
        Value::Scalar(s) => (vec![s.canonical_text().into_owned()], None),
    };
    (op, negated, texts, bound)
}

struct Order {
    /// The atom of each variable.
    by_var: Vec<usize>,
    /// The variable of each atom.
    rank: Vec<u32>,
}

/// The expression's diagram, within `care` (every intermediate result too, so that
/// assignments no record can make never multiply the diagram; `TRUE` for large filters).
fn build(bdd: &mut Bdd, expr: &Expr, atoms: &Atoms, rank: &[u32], care: Node) -> Node {
    match expr {
        Expr::Condition(c) => {
            let (atom, negated) = atoms.lookup(c);
            let lit = bdd.literal(rank[atom]);
            let lit = if negated { bdd.not(lit) } else { lit };
            bdd.and(lit, care)
        }
        Expr::And(items) => items.iter().fold(care, |acc, e| {
            let n = build(bdd, e, atoms, rank, care);
            bdd.and(acc, n)
        }),
        Expr::Or(items) => items.iter().fold(FALSE, |acc, e| {
            let n = build(bdd, e, atoms, rank, care);
            bdd.or(acc, n)
        }),
    }
}

struct Search<'a> {
    bdd: &'a Bdd,
    atoms: &'a [Atom],
    by_var: &'a [usize],
    kinds: &'a [Kinds],
    /// Nodes where a field's atoms start from which no path reaches `true`.
    dead: HashSet<Node>,
}

type Found = Vec<(usize, FieldValue<'static>)>;

impl Search<'_> {
    fn field_of(&self, node: Node) -> Option<usize> {
        self.bdd.var(node).map(|v| self.atoms[self.by_var[v as usize]].field)
    }

    /// A value for every field from `node` (where a field's atoms start) to `true`.
    fn find(&mut self, node: Node) -> Option<Found> {
        if node == TRUE {
            return Some(Vec::new());
        }
        if node == FALSE || self.dead.contains(&node) {
            return None;
        }
        let field = self.field_of(node).expect("an inner node");
        let mut lits = Vec::new();
        let found = self.walk(node, field, &mut lits);
        if found.is_none() {
            self.dead.insert(node);
        }
        found
    }

    fn walk(&mut self, node: Node, field: usize, lits: &mut Vec<(usize, bool)>) -> Option<Found> {
        if node == FALSE {
            return None;
        }
        if self.field_of(node) != Some(field) {
            let value = self.value(field, lits)?;
            let mut rest = self.find(node)?;
            rest.push((field, value));
            return Some(rest);
        }
        let var = self.bdd.var(node).expect("an inner node") as usize;
        let atom = self.by_var[var];
        for (truth, child) in [(true, self.bdd.high(node)), (false, self.bdd.low(node))] {
            lits.push((atom, truth));
            if self.value(field, lits).is_some() {
                if let Some(found) = self.walk(child, field, lits) {
                    return Some(found);
                }
            }
            lits.pop();
        }
        None
    }

    fn value(&self, field: usize, lits: &[(usize, bool)]) -> Option<FieldValue<'static>> {
        let chosen: Vec<(&Atom, bool)> = lits.iter().map(|&(a, t)| (&self.atoms[a], t)).collect();
        witness(self.kinds[field], &chosen)
    }
}

/// Up to this many atoms, every intermediate diagram is kept within the care set.
const SMALL_ATOMS: usize = 64;

/// The atoms, their order, and the diagram of `f xor g` restricted to assignments the
/// relations between atoms of one field allow.
fn diagram(f: &Filter, g: &Filter) -> (Atoms, Order, Bdd, Node) {
    let mut atoms = Atoms::default();
    atoms.collect(f.expr());
    atoms.collect(g.expr());
    let order = atoms.order();
    let mut bdd = Bdd::new();
    let care = care_set(&mut bdd, &atoms, &order);
    // Within the care set at every step keeps the diagrams of small filters small (the
    // worst adversarial pair within the API's limits); on a large filter it makes each
    // condition a copy of the care set, quadratic and worse (1,000 conditions: 120 s in a
    // release build; issue 16). Then the care set applies once, to the difference: the
    // same function, since `(a ∧ c) ⊕ (b ∧ c) = (a ⊕ b) ∧ c`.
    let within = if atoms.list.len() <= SMALL_ATOMS { care } else { TRUE };
    let a = build(&mut bdd, f.expr(), &atoms, &order.rank, within);
    let b = build(&mut bdd, g.expr(), &atoms, &order.rank, within);
    let diff = bdd.xor(a, b);
    let diff = bdd.and(diff, care);
    (atoms, order, bdd, diff)
}

/// The assignments the pairwise relations of atoms on one field allow.
fn care_set(bdd: &mut Bdd, atoms: &Atoms, order: &Order) -> Node {
    let mut care = TRUE;
    let vars = &order.by_var;
    // Fields from the last, so that each conjunction adds to the top of the diagram.
    let mut start = vars.len();
    while start > 0 {
        let field = atoms.list[vars[start - 1]].field;
        let mut first = start - 1;
        while first > 0 && atoms.list[vars[first - 1]].field == field {
            first -= 1;
        }
        let mut local = TRUE;
        // Relations only help; past a few hundred atoms on a field their count costs more.
        let pairs = if start - first <= 200 {
            first..start
        } else {
            start..start
        };
        for i in pairs.rev() {
            for j in (i + 1..start).rev() {
                let (a, b) = (&atoms.list[vars[i]], &atoms.list[vars[j]]);
                let (vi, vj) = (
                    u32::try_from(i).expect("few atoms"),
                    u32::try_from(j).expect("few atoms"),
                );
                let clause = match relation(a, b) {
                    Relation::Free => continue,
                    Relation::Exclusive => {
                        let (x, y) = (bdd.literal(vi), bdd.literal(vj));
                        let both = bdd.and(x, y);
                        bdd.not(both)
                    }
                    Relation::Implies => {
                        let (x, y) = (bdd.literal(vi), bdd.literal(vj));
                        let nx = bdd.not(x);
                        bdd.or(nx, y)
                    }
                    Relation::ImpliedBy => {
                        let (x, y) = (bdd.literal(vi), bdd.literal(vj));
                        let ny = bdd.not(y);
                        bdd.or(ny, x)
                    }
                };
                local = bdd.and(local, clause);
            }
        }
        care = bdd.and(local, care);
        start = first;
    }
    care
}

#[cfg(test)]
mod tests;
