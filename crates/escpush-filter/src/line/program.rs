//! The filter compiled once for NDJSON lines: the field names it reads (a slot each), a
//! small hash table to find a member's slot from its key, and the condition tree with its
//! values prepared (canonical texts, integer bounds, substring searchers).

use super::super::ast::{Expr, Operator, Scalar, Value};
use super::super::Filter;
use super::sets::{same, Affixes, Cmp, Ranges, Substrings, TextMap};

/// The immutable part: field names and the condition tree.
#[derive(Clone, Debug)]
pub(super) struct Program {
    /// The names of the fields read, as UTF-8 bytes; a field's index is its slot.
    pub(super) keys: Vec<Box<[u8]>>,
    /// A hash table of the slots, for a quick lookup of each member's key: the slots whose
    /// key hashes to `h` are `slots[starts[h]..starts[h + 1]]`. Most keys of a line are not
    /// read, and land in an empty bucket without a comparison.
    pub(super) starts: Box<[u16; BUCKETS + 1]>,
    pub(super) slots: Vec<usize>,
    /// Bit `n` is set when a key of `n` bytes is read (bit 63: 63 bytes or more): a key of
    /// another length is not looked up at all.
    pub(super) lengths: u64,
    /// The tree (its tests numbered by group and bit), which the tests read.
    #[cfg(test)]
    pub(super) root: Node,
    /// The tree as jump code, and where it starts.
    pub(super) code: Vec<Jump>,
    pub(super) entry: u32,
    /// The conditions compiled per field: a field's conditions are tested together, once
    /// per line, the first time the tree needs one of them.
    pub(super) groups: Vec<Group>,
}

const BUCKETS: usize = 256;

/// A cheap hash of a key: its length and three of its bytes.
#[inline]
fn bucket(key: &[u8]) -> usize {
    let n = key.len();
    match (key.first(), key.last()) {
        (Some(&first), Some(&last)) => {
            (n * 7 + usize::from(first) * 3 + usize::from(last) * 5 + usize::from(key[n / 2])) % BUCKETS
        }
        _ => 0,
    }
}

/// The condition tree, its leaves pointing at the conditions compiled per field; compiled
/// further into [`Jump`]s.
#[derive(Clone, Debug)]
pub(super) enum Node {
    /// Condition `bit` of group `group` holds (or, `negated`, does not).
    Test {
        group: usize,
        bit: u32,
        negated: bool,
    },
    /// A condition whose operator and value never hold together (a bound that is not an
    /// integer): its value whatever the line.
    Const(bool),
    All(Vec<Node>),
    Any(Vec<Node>),
}

/// One step of the tree as jump code: the conditions `mask` of group `group`, each negated
/// where `flip` has its bit, tested together; then go on at `yes` if they hold (`any`: one of
/// them; otherwise: all of them), at `no` if not. [`YES`] and [`NO`] end the evaluation with
/// that answer. The conditions of one field that are items of the same `and` (or `or`) are
/// one step: a 30-condition `and` on 11 fields is 11 steps. Evaluated from
/// `Program::entry`, the jumps give the tree's value with `and` and `or` cut short exactly as
/// a walk of the tree would, without recursion (the items of an `and` or `or` are pure
/// tests, so which of them is tested first changes the work, never the answer).
#[derive(Clone, Copy, Debug)]
pub(super) struct Jump {
    pub(super) mask: u64,
    pub(super) flip: u64,
    pub(super) group: u32,
    pub(super) any: bool,
    pub(super) yes: u32,
    pub(super) no: u32,
}

impl Jump {
    /// Whether the step's conditions hold, given the mask of the group's conditions that
    /// hold on the line.
    #[inline(always)]
    #[allow(clippy::inline_always)] // the inner loop of every line's evaluation
    pub(super) fn holds(&self, held: u64) -> bool {
        let v = (held ^ self.flip) & self.mask;
        if self.any {
            v != 0
        } else {
            v == self.mask
        }
    }
}

/// Conditions of one group tested together (see [`Jump`]).
#[derive(Clone, Copy, Debug)]
struct Step {
    group: usize,
    mask: u64,
    flip: u64,
}

/// An item of an `and` or `or` as it becomes jump code: merged tests, or any other node.
enum Item<'n> {
    Step(Step),
    Node(&'n Node),
}

/// The ends of the jump code: the line matches, or not.
pub(super) const YES: u32 = u32::MAX;
pub(super) const NO: u32 = u32::MAX - 1;

/// An un-negated condition on one field, its value prepared: what a group is made of.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Atom {
    /// The field's canonical text equals this.
    Eq(Box<[u8]>),
    /// The field's canonical text (or any element's) is one of these.
    In(Vec<Box<[u8]>>),
    /// The field is a number in this relation with the bound.
    Cmp(Cmp, i64),
    StartsWith(Box<[u8]>),
    EndsWith(Box<[u8]>),
    /// Substring of a string field; element equality on an array field.
    Contains(Box<[u8]>),
}

/// The conditions on one field (up to 64 of them, bit `i` for the `i`-th; a field with more
/// has several groups), compiled so that the field's value is tested once for all of them:
/// each structure below gives, for a value, the mask of the conditions it makes hold.
#[derive(Clone, Debug, Default)]
pub(super) struct Group {
    pub(super) slot: usize,
    /// Canonical texts (strings, integers, `true`, `false`): `eq` and `in`.
    pub(super) texts: TextMap,
    /// Canonical texts of array elements: `in` and `contains`.
    pub(super) elements: TextMap,
    /// Prefixes and suffixes of strings, by length.
    pub(super) prefixes: Affixes,
    pub(super) suffixes: Affixes,
    /// Substrings of strings: one search for all of them.
    pub(super) substrings: Substrings,
    /// Number comparisons, merged: see [`Ranges`].
    pub(super) numbers: Ranges,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Missing,
    Null,
    True,
    False,
    Int,
    Float,
    Str,
    Array,
    Object,
}

/// A value in the current line: strings span their content (between the quotes), other
/// values their text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) kind: Kind,
    pub(super) start: usize,
    pub(super) end: usize,
    /// A string with at least one escape: its text is in `decoded`.
    pub(super) escaped: bool,
}

impl Span {
    pub(super) const MISSING: Span = Span {
        kind: Kind::Missing,
        start: 0,
        end: 0,
        escaped: false,
    };
}

impl Group {
    /// The group of `atoms` (at most 64) on field `slot`.
    fn new(slot: usize, atoms: &[Atom]) -> Group {
        let mut group = Group {
            slot,
            ..Group::default()
        };
        let mut substrings = Vec::new();
        let mut numbers = Vec::new();
        for (bit, atom) in atoms.iter().enumerate() {
            let mask = 1u64 << bit;
            match atom {
                Atom::Eq(text) => group.texts.add(text, mask),
                Atom::In(set) => {
                    for text in set {
                        group.texts.add(text, mask);
                        group.elements.add(text, mask);
                    }
                }
                Atom::Cmp(cmp, bound) => numbers.push((*cmp, *bound, mask)),
                Atom::StartsWith(text) => group.prefixes.add(text, mask),
                Atom::EndsWith(text) => group.suffixes.add(text, mask),
                Atom::Contains(text) => {
                    group.elements.add(text, mask);
                    substrings.push((text.clone(), mask));
                }
            }
        }
        group.texts.seal();
        group.elements.seal();
        group.prefixes.seal();
        group.suffixes.seal();
        group.substrings = Substrings::build(&substrings);
        group.numbers = Ranges::new(&numbers);
        group
    }
}

/// The slot of the field `key`, given one if it has none yet.
fn slot_of(keys: &mut Vec<Box<[u8]>>, key: &[u8]) -> usize {
    keys.iter().position(|k| &**k == key).unwrap_or_else(|| {
        keys.push(key.into());
        keys.len() - 1
    })
}

fn text_bytes(s: &Scalar) -> Box<[u8]> {
    s.canonical_text().as_bytes().into()
}

impl Program {
    /// The program of `filter`, with a slot for each field of `observed` too (a field the
    /// filter reads shares its slot): the walk records their spans, no condition reads them.
    /// Returns the program and the slots of `observed`, in order.
    pub(super) fn with_observed(filter: Option<&Filter>, observed: &[&str]) -> (Program, Vec<usize>) {
        let mut keys: Vec<Box<[u8]>> = Vec::new();
        let mut atoms: Vec<Vec<Atom>> = Vec::new();
        // No filter keeps every line (a job without one).
        let root = filter.map_or(Node::Const(true), |f| Program::compile(f.expr(), &mut keys, &mut atoms));
        // Observed fields the filter does not read get slots after the filter's, with no atoms.
        let observed = observed
            .iter()
            .map(|name| slot_of(&mut keys, name.as_bytes()))
            .collect();
        (Program::new(keys, &atoms, root), observed)
    }

    fn new(keys: Vec<Box<[u8]>>, atoms: &[Vec<Atom>], mut root: Node) -> Program {
        let first: Vec<usize> = atoms
            .iter()
            .scan(0, |next, list| {
                let first = *next;
                *next += list.len().div_ceil(64);
                Some(first)
            })
            .collect();
        Program::number(&mut root, &first);
        let mut code = Vec::new();
        let entry = Program::jumps(&root, YES, NO, &mut code);
        let groups = atoms
            .iter()
            .enumerate()
            .flat_map(|(slot, atoms)| atoms.chunks(64).map(move |chunk| Group::new(slot, chunk)))
            .collect();
        let mut slots: Vec<usize> = (0..keys.len()).collect();
        slots.sort_by_key(|&slot| bucket(&keys[slot]));
        let mut starts = Box::new([0u16; BUCKETS + 1]);
        for h in 0..BUCKETS {
            let n = slots.iter().filter(|&&slot| bucket(&keys[slot]) == h).count();
            starts[h + 1] = starts[h] + u16::try_from(n).expect("fewer than 65536 fields");
        }
        let lengths = keys.iter().fold(0, |bits, key| bits | 1 << key.len().min(63));
        Program {
            keys,
            starts,
            slots,
            lengths,
            #[cfg(test)]
            root,
            code,
            entry,
            groups,
        }
    }

    /// The tree of `expr`, each condition made an atom of its field's list (the same
    /// condition twice, or once negated, is one atom): atom `i` of a field is bit `i % 64` of
    /// the field's group `i / 64`, groups numbered field by field in slot order.
    fn compile(expr: &Expr, keys: &mut Vec<Box<[u8]>>, atoms: &mut Vec<Vec<Atom>>) -> Node {
        match expr {
            Expr::And(items) => Node::All(items.iter().map(|e| Program::compile(e, keys, atoms)).collect()),
            Expr::Or(items) => Node::Any(items.iter().map(|e| Program::compile(e, keys, atoms)).collect()),
            Expr::Condition(c) => {
                let slot = slot_of(keys, c.key.as_bytes());
                if atoms.len() < keys.len() {
                    atoms.push(Vec::new());
                }
                let (positive, negated) = c.operator.positive();
                let scalar = match &c.value {
                    Value::Scalar(s) => Some(s),
                    Value::Set(_) => None,
                };
                // A bound that is not an integer, or a value of the wrong shape (checked when
                // the filter is made), holds nowhere: the test is a constant.
                let compare = |cmp: Cmp| scalar.and_then(Scalar::as_integer).map(|bound| Atom::Cmp(cmp, bound));
                let atom = match positive {
                    Operator::In => match &c.value {
                        Value::Set(set) => Some(Atom::In(set.iter().map(text_bytes).collect())),
                        Value::Scalar(_) => None,
                    },
                    Operator::Eq => scalar.map(|s| Atom::Eq(text_bytes(s))),
                    Operator::Lt => compare(Cmp::Lt),
                    Operator::Leq => compare(Cmp::Leq),
                    Operator::Gt => compare(Cmp::Gt),
                    Operator::Geq => compare(Cmp::Geq),
                    Operator::StartsWith => scalar.map(|s| Atom::StartsWith(text_bytes(s))),
                    Operator::EndsWith => scalar.map(|s| Atom::EndsWith(text_bytes(s))),
                    Operator::Contains => scalar.map(|s| Atom::Contains(text_bytes(s))),
                    // `positive` is the un-negated side of every operator.
                    Operator::NotEq
                    | Operator::NotStartsWith
                    | Operator::NotEndsWith
                    | Operator::NotContains
                    | Operator::NotIn => unreachable!("{positive} is a negation"),
                };
                let Some(atom) = atom else {
                    return Node::Const(negated);
                };
                let list = &mut atoms[slot];
                let index = list.iter().position(|a| *a == atom).unwrap_or_else(|| {
                    list.push(atom);
                    list.len() - 1
                });
                // The field and the atom's index for now: `number` makes them a group and a bit.
                Node::Test {
                    group: slot,
                    bit: u32::try_from(index).expect("fewer than 2^32 conditions"),
                    negated,
                }
            }
        }
    }

    /// Appends the jump code of `node` to `code`, going on at `yes` if the node holds and at
    /// `no` if not; returns where the node's code starts (or `yes` / `no` when it needs no
    /// test). The items of an `and` are chained on success, those of an `or` on failure,
    /// last to first, so that each knows where to go next.
    fn jumps(node: &Node, yes: u32, no: u32, code: &mut Vec<Jump>) -> u32 {
        match node {
            Node::Test { group, bit, negated } => Program::step(
                Step {
                    group: *group,
                    mask: 1 << bit,
                    flip: if *negated { 1 << bit } else { 0 },
                },
                false,
                yes,
                no,
                code,
            ),
            Node::Const(value) => {
                if *value {
                    yes
                } else {
                    no
                }
            }
            Node::All(items) => Program::merged(items).iter().rev().fold(yes, |next, item| match item {
                Item::Step(step) => Program::step(*step, false, next, no, code),
                Item::Node(node) => Program::jumps(node, next, no, code),
            }),
            Node::Any(items) => Program::merged(items).iter().rev().fold(no, |next, item| match item {
                Item::Step(step) => Program::step(*step, true, yes, next, code),
                Item::Node(node) => Program::jumps(node, yes, next, code),
            }),
        }
    }

    /// Appends one step and returns where it is.
    fn step(step: Step, any: bool, yes: u32, no: u32, code: &mut Vec<Jump>) -> u32 {
        code.push(Jump {
            mask: step.mask,
            flip: step.flip,
            group: u32::try_from(step.group).expect("fewer than 2^32 groups"),
            any,
            yes,
            no,
        });
        u32::try_from(code.len() - 1).expect("fewer than 2^32 - 2 conditions")
    }

    /// The items of an `and` or `or` with the tests of each group merged into one step, at
    /// the place of the group's first test. A condition and its negation on the same atom
    /// stay in separate steps (one step cannot ask a bit to be both set and clear).
    fn merged(items: &[Node]) -> Vec<Item<'_>> {
        let mut out: Vec<Item<'_>> = Vec::with_capacity(items.len());
        for item in items {
            let Node::Test { group, bit, negated } = item else {
                out.push(Item::Node(item));
                continue;
            };
            let (bit, flip) = (1u64 << bit, if *negated { 1u64 << bit } else { 0 });
            let joined = out.iter_mut().any(|o| match o {
                Item::Step(s) if s.group == *group && (s.mask & bit == 0 || s.flip & bit == flip) => {
                    s.mask |= bit;
                    s.flip |= flip;
                    true
                }
                _ => false,
            });
            if !joined {
                out.push(Item::Step(Step {
                    group: *group,
                    mask: bit,
                    flip,
                }));
            }
        }
        out
    }

    /// Turns the field and atom index of every test into its group and bit, `first[slot]`
    /// being the first group of the field.
    fn number(node: &mut Node, first: &[usize]) {
        match node {
            Node::Test { group, bit, .. } => {
                *group = first[*group] + *bit as usize / 64;
                *bit %= 64;
            }
            Node::Const(_) => {}
            Node::All(items) | Node::Any(items) => items.iter_mut().for_each(|n| Program::number(n, first)),
        }
    }
    /// The slot of a member's key, if the filter reads that field.
    #[inline]
    pub(super) fn lookup(&self, key: &[u8]) -> Option<usize> {
        if self.lengths >> key.len().min(63) & 1 == 0 {
            return None;
        }
        let h = bucket(key);
        let (lo, hi) = (usize::from(self.starts[h]), usize::from(self.starts[h + 1]));
        if lo == hi {
            return None;
        }
        self.lookup_in(&self.slots[lo..hi], key)
    }

    /// The slot among `slots` whose key is `key`. Apart from the rest of the lookup, which
    /// is all most keys need: inlined, the comparison makes the member loop slower.
    #[inline(never)]
    fn lookup_in(&self, slots: &[usize], key: &[u8]) -> Option<usize> {
        slots.iter().copied().find(|&slot| same(&self.keys[slot], key))
    }
}
