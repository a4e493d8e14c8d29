//! The filter compiled once for NDJSON lines: the field names it reads (a slot each), a
//! small hash table to find a member's slot from its key, and the condition tree with its
//! values prepared (canonical texts, integer bounds, substring searchers).

use memchr::memmem;

use super::super::ast::{Expr, Operator, Scalar, Value};
use super::super::Filter;

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
    pub(super) root: Node,
}

const BUCKETS: usize = 256;

/// Whether two byte strings are equal, without a call for the short ones (keys and values
/// of log lines mostly are): up to 32 bytes are compared as overlapping words.
#[inline]
pub(super) fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let u32_at = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().unwrap_or_default());
    let u64_at = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or_default());
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=8 => u32_at(a, 0) == u32_at(b, 0) && u32_at(a, n - 4) == u32_at(b, n - 4),
        9..=16 => u64_at(a, 0) == u64_at(b, 0) && u64_at(a, n - 8) == u64_at(b, n - 8),
        17..=32 => {
            // Four words, without branches between them.
            let x = (u64_at(a, 0) ^ u64_at(b, 0)) | (u64_at(a, 8) ^ u64_at(b, 8));
            let y = (u64_at(a, n - 16) ^ u64_at(b, n - 16)) | (u64_at(a, n - 8) ^ u64_at(b, n - 8));
            x | y == 0
        }
        _ => a == b,
    }
}

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

#[derive(Clone, Debug)]
pub(super) enum Node {
    Cond(Cond),
    All(Vec<Node>),
    Any(Vec<Node>),
}

#[derive(Clone, Debug)]
pub(super) struct Cond {
    pub(super) slot: usize,
    pub(super) negated: bool,
    pub(super) test: Test,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cmp {
    Lt,
    Leq,
    Gt,
    Geq,
}

/// The un-negated operator with its value prepared.
#[derive(Clone, Debug)]
pub(super) enum Test {
    /// The field's canonical text equals this.
    Eq(Box<[u8]>),
    /// The field's canonical text (or any element's) is one of these.
    In(Box<[Box<[u8]>]>),
    /// The field is a number in this relation with the bound.
    Cmp(Cmp, i64),
    StartsWith(Box<[u8]>),
    EndsWith(Box<[u8]>),
    /// Substring of a string field; element equality on an array field.
    Contains(Box<memmem::Finder<'static>>),
    /// A pairing of operator and value that never holds (the filter's shape rules it out).
    Never,
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
    pub(super) fn with_observed(filter: &Filter, observed: &[&str]) -> (Program, Vec<usize>) {
        let mut keys: Vec<Box<[u8]>> = Vec::new();
        let root = Program::compile(filter.expr(), &mut keys);
        let observed = observed
            .iter()
            .map(|name| slot_of(&mut keys, name.as_bytes()))
            .collect();
        (Program::new(keys, root), observed)
    }

    fn new(keys: Vec<Box<[u8]>>, root: Node) -> Program {
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
            root,
        }
    }

    fn compile(expr: &Expr, keys: &mut Vec<Box<[u8]>>) -> Node {
        match expr {
            Expr::And(items) => Node::All(items.iter().map(|e| Program::compile(e, keys)).collect()),
            Expr::Or(items) => Node::Any(items.iter().map(|e| Program::compile(e, keys)).collect()),
            Expr::Condition(c) => {
                let slot = slot_of(keys, c.key.as_bytes());
                let negated = c.operator.is_negative();
                let positive = if negated { c.operator.negated() } else { c.operator };
                let test = match (positive, &c.value) {
                    (Operator::In, Value::Set(set)) => Test::In(set.iter().map(text_bytes).collect()),
                    (Operator::Eq, Value::Scalar(s)) => Test::Eq(text_bytes(s)),
                    (Operator::Lt | Operator::Leq | Operator::Gt | Operator::Geq, Value::Scalar(s)) => {
                        let cmp = match positive {
                            Operator::Lt => Cmp::Lt,
                            Operator::Leq => Cmp::Leq,
                            Operator::Gt => Cmp::Gt,
                            _ => Cmp::Geq,
                        };
                        s.as_integer().map_or(Test::Never, |bound| Test::Cmp(cmp, bound))
                    }
                    (Operator::StartsWith, Value::Scalar(s)) => Test::StartsWith(text_bytes(s)),
                    (Operator::EndsWith, Value::Scalar(s)) => Test::EndsWith(text_bytes(s)),
                    (Operator::Contains, Value::Scalar(s)) => Test::Contains(Box::new(
                        memmem::Finder::new(s.canonical_text().as_bytes()).into_owned(),
                    )),
                    _ => Test::Never,
                };
                Node::Cond(Cond { slot, negated, test })
            }
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
