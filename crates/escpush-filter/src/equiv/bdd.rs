//! Reduced ordered binary decision diagrams over the atoms of two filters: the boolean
//! structure of `f xor g`, with variables ordered so that the atoms of one field are adjacent.

use std::collections::HashMap;

/// A node index; 0 is false, 1 is true.
pub(super) type Node = u32;
pub(super) const FALSE: Node = 0;
pub(super) const TRUE: Node = 1;
const TERMINAL: u32 = u32::MAX;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Op {
    And,
    Or,
    Xor,
}

pub(super) struct Bdd {
    /// `(var, low, high)`: low when the variable is false.
    nodes: Vec<(u32, Node, Node)>,
    unique: HashMap<(u32, Node, Node), Node>,
    memo: HashMap<(Op, Node, Node), Node>,
}

impl Bdd {
    pub(super) fn new() -> Self {
        Bdd {
            nodes: vec![(TERMINAL, FALSE, FALSE), (TERMINAL, TRUE, TRUE)],
            unique: HashMap::new(),
            memo: HashMap::new(),
        }
    }

    pub(super) fn var(&self, n: Node) -> Option<u32> {
        let v = self.nodes[n as usize].0;
        (v != TERMINAL).then_some(v)
    }

    pub(super) fn low(&self, n: Node) -> Node {
        self.nodes[n as usize].1
    }

    pub(super) fn high(&self, n: Node) -> Node {
        self.nodes[n as usize].2
    }

    fn mk(&mut self, var: u32, low: Node, high: Node) -> Node {
        if low == high {
            return low;
        }
        if let Some(&n) = self.unique.get(&(var, low, high)) {
            return n;
        }
        let n = Node::try_from(self.nodes.len()).expect("fewer than 2^32 nodes");
        self.nodes.push((var, low, high));
        self.unique.insert((var, low, high), n);
        n
    }

    /// The function that is the variable itself.
    pub(super) fn literal(&mut self, var: u32) -> Node {
        self.mk(var, FALSE, TRUE)
    }

    pub(super) fn and(&mut self, a: Node, b: Node) -> Node {
        self.apply(Op::And, a, b)
    }

    pub(super) fn or(&mut self, a: Node, b: Node) -> Node {
        self.apply(Op::Or, a, b)
    }

    pub(super) fn xor(&mut self, a: Node, b: Node) -> Node {
        self.apply(Op::Xor, a, b)
    }

    pub(super) fn not(&mut self, a: Node) -> Node {
        self.apply(Op::Xor, a, TRUE)
    }

    fn apply(&mut self, op: Op, a: Node, b: Node) -> Node {
        match op {
            Op::And => {
                if a == FALSE || b == FALSE {
                    return FALSE;
                }
                if a == TRUE {
                    return b;
                }
                if b == TRUE || a == b {
                    return a;
                }
            }
            Op::Or => {
                if a == TRUE || b == TRUE {
                    return TRUE;
                }
                if a == FALSE {
                    return b;
                }
                if b == FALSE || a == b {
                    return a;
                }
            }
            Op::Xor => {
                if a == b {
                    return FALSE;
                }
                if a == FALSE {
                    return b;
                }
                if b == FALSE {
                    return a;
                }
                if a == TRUE && b == TRUE {
                    return FALSE;
                }
            }
        }
        let key = (op, a.min(b), a.max(b));
        if let Some(&n) = self.memo.get(&key) {
            return n;
        }
        let (va, vb) = (self.nodes[a as usize].0, self.nodes[b as usize].0);
        let var = va.min(vb);
        let (a0, a1) = if va == var { (self.low(a), self.high(a)) } else { (a, a) };
        let (b0, b1) = if vb == var { (self.low(b), self.high(b)) } else { (b, b) };
        let low = self.apply(op, a0, b0);
        let high = self.apply(op, a1, b1);
        let n = self.mk(var, low, high);
        self.memo.insert(key, n);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boolean_laws() {
        let mut b = Bdd::new();
        let (x, y, z) = (b.literal(0), b.literal(1), b.literal(2));
        let yz = b.or(y, z);
        let lhs = b.and(x, yz);
        let (xy, xz) = (b.and(x, y), b.and(x, z));
        let rhs = b.or(xy, xz);
        assert_eq!(lhs, rhs, "distribution gives the same node");
        let nx = b.not(x);
        assert_eq!(b.or(x, nx), TRUE);
        assert_eq!(b.and(x, nx), FALSE);
        assert_eq!(b.xor(lhs, rhs), FALSE);
        let nn = b.not(nx);
        assert_eq!(nn, x);
    }
}
