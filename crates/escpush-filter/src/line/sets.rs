//! The sets a compiled filter tests a field's value against, each built once: number
//! comparisons merged into [`Ranges`], texts looked up in a [`TextMap`], prefixes and
//! suffixes in [`Affixes`], substrings in [`Substrings`] (one pass for many). `program.rs`
//! builds them from a filter's conditions and its matcher reads them.

use std::cmp::Ordering;

use aho_corasick::packed;
use memchr::memmem;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Cmp {
    Lt,
    Leq,
    Gt,
    Geq,
}

impl Cmp {
    /// Whether the relation holds for a number that compares so with the bound.
    pub(super) fn holds(self, o: Ordering) -> bool {
        match self {
            Cmp::Lt => o == Ordering::Less,
            Cmp::Leq => o != Ordering::Greater,
            Cmp::Gt => o == Ordering::Greater,
            Cmp::Geq => o != Ordering::Less,
        }
    }
}

/// Number comparisons merged into ranges: the distinct bounds, sorted, cut the numbers into
/// ranges (below the first bound, equal to it, between it and the next, ...), and each range
/// has the mask of the comparisons that hold in it. A number's range is found by comparing
/// it with each bound once, whatever the number of comparisons.
#[derive(Clone, Debug, Default)]
pub(super) struct Ranges {
    pub(super) bounds: Vec<i64>,
    /// Range `2i` lies below `bounds[i]` (and above the bound before), range `2i + 1` is
    /// `bounds[i]` itself; range `2 * bounds.len()` lies above the last bound.
    pub(super) masks: Vec<u64>,
}

impl Ranges {
    pub(super) fn new(comparisons: &[(Cmp, i64, u64)]) -> Ranges {
        let mut bounds: Vec<i64> = comparisons.iter().map(|(_, bound, _)| *bound).collect();
        bounds.sort_unstable();
        bounds.dedup();
        let masks = (0..=2 * bounds.len())
            .map(|range| {
                // A number of range `2i` or `2i + 1` against bound `j`.
                let (i, on) = (range / 2, range % 2 == 1);
                comparisons.iter().fold(0, |held, &(cmp, bound, mask)| {
                    let j = bounds.partition_point(|&b| b < bound);
                    let o = if on && i == j {
                        Ordering::Equal
                    } else if i > j {
                        Ordering::Greater
                    } else {
                        Ordering::Less
                    };
                    if cmp.holds(o) {
                        held | mask
                    } else {
                        held
                    }
                })
            })
            .collect();
        Ranges { bounds, masks }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }

    /// The mask of the comparisons that hold for a number, given how it compares with a
    /// bound.
    #[inline]
    pub(super) fn get(&self, cmp: impl Fn(i64) -> Ordering) -> u64 {
        let mut range = 0;
        for &bound in &self.bounds {
            match cmp(bound) {
                Ordering::Greater => range += 2,
                Ordering::Equal => {
                    range += 1;
                    break;
                }
                Ordering::Less => break,
            }
        }
        self.masks[range]
    }
}

/// Byte strings, each with a mask: the masks of the strings equal to a value, in one lookup.
/// A few are compared in turn; more are found through a hash table.
#[derive(Clone, Debug, Default)]
pub(super) struct TextMap {
    entries: Vec<(Box<[u8]>, u64)>,
    /// Open addressing over `entries` (index + 1; 0 is empty), a power of two long; empty
    /// while there are few entries.
    table: Vec<u32>,
    /// The masks of all entries together.
    pub(super) all: u64,
    /// Bit `n` is set when an entry has `n` bytes (bit 63: 63 bytes or more): a value of
    /// another length is not looked up at all.
    lengths: u64,
}

/// Entries compared in turn, up to this many; a hash table for more.
const LINEAR: usize = 8;

impl TextMap {
    pub(super) fn add(&mut self, text: &[u8], mask: u64) {
        match self.entries.iter_mut().find(|(t, _)| **t == *text) {
            Some((_, m)) => *m |= mask,
            None => self.entries.push((text.into(), mask)),
        }
        self.all |= mask;
        self.lengths |= 1 << text.len().min(63);
    }

    /// Builds the hash table once every entry is in.
    pub(super) fn seal(&mut self) {
        if self.entries.len() <= LINEAR {
            return;
        }
        let size = (self.entries.len() * 2).next_power_of_two();
        self.table = vec![0; size];
        for (i, (text, _)) in self.entries.iter().enumerate() {
            let mut h = hash(text) & (size - 1);
            while self.table[h] != 0 {
                h = (h + 1) & (size - 1);
            }
            self.table[h] = u32::try_from(i + 1).expect("fewer than 2^32 values");
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The mask of the entry equal to `text` (0: none). Most values are of a length no entry
    /// has: they are answered here, without a call.
    #[inline(always)]
    #[allow(clippy::inline_always)] // measured: a call for every value of a field costs more
    pub(super) fn get(&self, text: &[u8]) -> u64 {
        if self.lengths >> text.len().min(63) & 1 == 0 {
            return 0;
        }
        self.find(text)
    }

    #[inline(never)]
    pub(super) fn find(&self, text: &[u8]) -> u64 {
        if self.table.is_empty() {
            return self.entries.iter().find(|(t, _)| same(t, text)).map_or(0, |(_, m)| *m);
        }
        let mask = self.table.len() - 1;
        let mut h = hash(text) & mask;
        loop {
            match self.table[h] {
                0 => return 0,
                i => {
                    let (t, m) = &self.entries[i as usize - 1];
                    if same(t, text) {
                        return *m;
                    }
                }
            }
            h = (h + 1) & mask;
        }
    }
}

/// A quick hash of a byte string: its length and its first and last 8 bytes, mixed by a
/// multiplication (the table compares the whole string anyway).
#[inline]
fn hash(text: &[u8]) -> usize {
    let word = |s: &[u8]| {
        let mut w = [0u8; 8];
        w[..s.len()].copy_from_slice(s);
        u64::from_le_bytes(w)
    };
    let n = text.len();
    let (head, tail) = if n >= 8 {
        (word(&text[..8]), word(&text[n - 8..]))
    } else {
        (word(text), 0)
    };
    let h = (head ^ tail.rotate_left(29) ^ (n as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    #[allow(clippy::cast_possible_truncation)] // the high bits, to index a table
    let h = (h >> 32) as usize;
    h
}

/// Prefixes (or suffixes) by length: a value is looked up once per length.
#[derive(Clone, Debug, Default)]
pub(super) struct Affixes {
    by_length: Vec<(usize, TextMap)>,
}

impl Affixes {
    pub(super) fn add(&mut self, text: &[u8], mask: u64) {
        if let Some((_, map)) = self.by_length.iter_mut().find(|(n, _)| *n == text.len()) {
            map.add(text, mask);
        } else {
            let mut map = TextMap::default();
            map.add(text, mask);
            self.by_length.push((text.len(), map));
        }
    }

    pub(super) fn seal(&mut self) {
        self.by_length.sort_by_key(|(n, _)| *n);
        self.by_length.iter_mut().for_each(|(_, map)| map.seal());
    }

    /// The masks of the prefixes of `text` (`SUFFIX`: of its suffixes).
    #[inline]
    pub(super) fn get<const SUFFIX: bool>(&self, text: &[u8]) -> u64 {
        let mut held = 0;
        for (n, map) in &self.by_length {
            let Some(part) = (if SUFFIX {
                text.len().checked_sub(*n).map(|at| &text[at..])
            } else {
                text.get(..*n)
            }) else {
                break; // sorted by length: the rest are longer still
            };
            held |= map.get(part);
        }
        held
    }
}

/// Substrings searched for in a string: `memmem` for one; for several, one vectorised
/// search for all of them together (Aho-Corasick's packed searcher, Teddy).
#[derive(Clone, Debug, Default)]
pub(super) struct Substrings {
    /// The conditions whose substring is empty: any string holds it.
    empty: u64,
    /// Substrings searched for one by one (one, or many more than the packed searcher takes).
    each: Vec<(memmem::Finder<'static>, u64)>,
    /// The packed searcher, leftmost-longest, and for each of its patterns the masks of the
    /// patterns that are prefixes of it (itself included): those found at the same place.
    packed: Option<(packed::Searcher, Vec<u64>)>,
    /// The masks of all non-empty substrings together.
    all: u64,
}

impl Substrings {
    pub(super) fn build(needles: &[(Box<[u8]>, u64)]) -> Substrings {
        let mut out = Substrings::default();
        let mut rest: Vec<&(Box<[u8]>, u64)> = Vec::new();
        for entry in needles {
            if entry.0.is_empty() {
                out.empty |= entry.1;
            } else {
                rest.push(entry);
                out.all |= entry.1;
            }
        }
        if rest.len() > 1 {
            let searcher = packed::Config::new()
                .match_kind(packed::MatchKind::LeftmostLongest)
                .builder()
                .extend(rest.iter().map(|(needle, _)| needle))
                .build();
            if let Some(searcher) = searcher {
                let implied = rest
                    .iter()
                    .map(|(long, _)| {
                        rest.iter()
                            .filter(|(short, _)| long.starts_with(short))
                            .fold(0, |m, (_, mask)| m | mask)
                    })
                    .collect();
                out.packed = Some((searcher, implied));
                return out;
            }
        }
        out.each = rest
            .iter()
            .map(|(needle, mask)| (memmem::Finder::new(needle).into_owned(), *mask))
            .collect();
        out
    }

    /// The masks of the substrings `text` holds.
    ///
    /// The packed search finds, from a position, the first position where a substring
    /// starts and the longest one there; every other substring there is a prefix of it. So
    /// searching again from the next position, until none is found, finds every substring
    /// that occurs.
    #[inline]
    pub(super) fn get(&self, text: &[u8]) -> u64 {
        let mut held = self.empty;
        if let Some((searcher, implied)) = &self.packed {
            let mut from = 0;
            while let Some(found) = searcher.find_in(text, aho_corasick::Span::from(from..text.len())) {
                held |= implied[found.pattern().as_usize()];
                if held & self.all == self.all {
                    break;
                }
                from = found.start() + 1;
            }
        }
        for (finder, mask) in &self.each {
            if finder.find(text).is_some() {
                held |= mask;
            }
        }
        held
    }
}
