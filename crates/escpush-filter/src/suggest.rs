//! "Did you mean ...?": the closest known name to a mistyped one; and the forms in which a
//! message quotes what a person wrote (cut, escaped: [`crate::shown`]). Public for the
//! crates of escpush that build their messages the same way (escpush-core's job rules).

/// `; did you mean `X`?` when there is a suggestion, else nothing.
pub fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!("; did you mean `{s}`?"))
}

/// `text` to quote in a message: whole up to 40 characters, else its first 40 and `…`, so
/// that a message about a 10 MB word stays a line; each character that is not printable
/// (a control character, a line break, a bidi control, ...) written as its escape
/// (`\u001b`), so that the message stays one line and does nothing to a terminal.
pub fn cut(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", crate::shown::escape(&text[..at])).into(),
        None => crate::shown::escape(text),
    }
}

/// `text` whole up to `max` characters, else its start and end around `…`: for a path or a
/// message that quotes an input of any size, shown in one screen while the full one stays
/// in the data (`Problem::path`, `Problem::message`).
pub fn shorten(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let count = text.chars().count();
    if count <= max {
        return text.into();
    }
    let head: String = text.chars().take(max * 2 / 3).collect();
    let tail: String = text.chars().skip(count - max / 3).collect();
    format!("{head}…{tail}").into()
}

/// The name among `candidates` closest to `given` by the rule of every did-you-mean escpush
/// shows ([`closest`]): for other faces' suggestions (the command line's commands and options).
///
/// ```
/// assert_eq!(escpush_filter::suggest::closest_name("scna", &["validate", "scan"]), Some("scan"));
/// assert_eq!(escpush_filter::suggest::closest_name("zzzz", &["validate", "scan"]), None);
/// ```
pub fn closest_name<'a>(given: &str, candidates: &[&'a str]) -> Option<&'a str> {
    closest(given, candidates.iter().map(|c| (*c, *c)))
}

/// The candidate closest to `given`: the same name in another case first, then the
/// smallest edit distance, if it is small for the name's length. `given` and the
/// candidates' keys are compared as they are (fold the case beforehand if wanted).
pub fn closest<T, K: AsRef<str>>(given: &str, candidates: impl IntoIterator<Item = (K, T)>) -> Option<T> {
    let mut rows = Rows::new(given);
    // One edit in four characters, at least one and at most three.
    let allowed = (rows.length / 4).clamp(1, 3);
    let mut best: Option<(usize, T)> = None;
    for (key, item) in candidates {
        let key = key.as_ref();
        if key.eq_ignore_ascii_case(given) {
            return Some(item);
        }
        // Only a candidate nearer than the best so far can take its place (the first of
        // equals is kept), so each is measured only as far as that bound: a name of a
        // megabyte, or hundreds of unknown names, cost little more than a short one.
        let bound = best.as_ref().map_or(allowed, |(d, _)| d.saturating_sub(1));
        if let Some(distance) = rows.distance_within(key, bound) {
            best = Some((distance, item));
        }
    }
    best.map(|(_, item)| item)
}

/// The edit distances of one name to candidates: the name, and the buffers of
/// [`Rows::distance_within`], kept from one candidate to the next.
struct Rows<'a> {
    given: &'a str,
    /// `given`'s length in characters.
    length: usize,
    /// `given` lower-cased, made when a first candidate is near enough in length to
    /// measure (so never for a name of a megabyte).
    name: Vec<char>,
    key: Vec<char>,
    before: Vec<usize>,
    prev: Vec<usize>,
    cur: Vec<usize>,
    /// The cells computed so far, for the tests.
    #[cfg(test)]
    cells: usize,
}

impl<'a> Rows<'a> {
    fn new(given: &'a str) -> Self {
        Rows {
            given,
            length: given.chars().count(),
            name: Vec::new(),
            key: Vec::new(),
            before: Vec::new(),
            prev: Vec::new(),
            cur: Vec::new(),
            #[cfg(test)]
            cells: 0,
        }
    }

    /// The edit distance of the name and `key`, each lower-cased:
    /// insertions, deletions and substitutions, a swap of neighbours counting one (optimal
    /// string alignment), when it is at most `bound`; else `None`. Only the cells
    /// within `bound` of the diagonal are computed (one outside is more than `bound` away
    /// and is held as `bound + 1`), and it stops at the first row whose every cell is over
    /// `bound`: no later row has a smaller value.
    fn distance_within(&mut self, key: &str, bound: usize) -> Option<usize> {
        let k = bound;
        // The distance is at least the difference of the lengths: a candidate too long or
        // too short is not measured at all.
        if key.chars().count().abs_diff(self.length) > k {
            return None;
        }
        if self.name.len() != self.length {
            self.name.extend(self.given.chars().map(|c| c.to_ascii_lowercase()));
        }
        let a = &self.name;
        self.key.clear();
        self.key.extend(key.chars().map(|c| c.to_ascii_lowercase()));
        let b = &self.key;
        let far = k + 1;
        for row in [&mut self.before, &mut self.prev, &mut self.cur] {
            row.clear();
            row.resize(b.len() + 1, far);
        }
        for (j, cell) in self.prev.iter_mut().enumerate().take(k + 1) {
            *cell = j;
        }
        for i in 1..=a.len() {
            let lo = i.saturating_sub(k).max(1);
            let hi = (i + k).min(b.len());
            self.cur[lo - 1] = if lo == 1 { i } else { far };
            let mut row_min = self.cur[lo - 1];
            for j in lo..=hi {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut value = (self.prev[j] + 1).min(self.cur[j - 1] + 1).min(self.prev[j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    value = value.min(self.before[j - 2] + 1);
                }
                self.cur[j] = value;
                row_min = row_min.min(value);
            }
            #[cfg(test)]
            {
                self.cells += hi + 1 - lo;
            }
            if hi < b.len() {
                self.cur[hi + 1] = far;
            }
            if row_min > k {
                return None;
            }
            std::mem::swap(&mut self.before, &mut self.prev);
            std::mem::swap(&mut self.prev, &mut self.cur);
        }
        Some(self.prev[b.len()]).filter(|d| *d <= k)
    }
}

/// The whole table of the edit distance that [`Rows::distance_within`] bounds: the
/// reference the tests hold it to.
#[cfg(test)]
fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Optimal string alignment: three rows of the table.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_name_is_not_compared_with_every_candidate() {
        let huge = "x".repeat(10_000_000);
        let start = std::time::Instant::now();
        assert_eq!(closest(&huge, [("unix", 1), ("rfc3339", 2)]), None);
        assert!(start.elapsed().as_secs() < 2);
        assert_eq!(closest("unixx", [("unix", 1), ("rfc3339", 2)]), Some(1));
    }

    #[test]
    fn shorten_keeps_both_ends() {
        assert_eq!(shorten("abcdef", 6), "abcdef");
        assert_eq!(shorten("abcdefghij", 6), "abcd…ij");
    }

    #[test]
    fn cut_keeps_short_text_and_shortens_long_text() {
        assert_eq!(cut("abc"), "abc");
        let long = "é".repeat(100);
        assert_eq!(cut(&long), format!("{}…", "é".repeat(40)));
        assert_eq!(cut("a\u{1b}]0;x\u{7}\n\u{202e}"), "a\\u001b]0;x\\u0007\\n\\u202e");
        assert_eq!(cut(&"\r".repeat(50)), format!("{}…", "\\r".repeat(40)));
    }

    #[test]
    fn distances() {
        assert_eq!(levenshtein("", ""), 0);
        assert_eq!(levenshtein("abc", ""), 3);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("ClientRequestHots", "ClientRequestHost"), 1);
        assert_eq!(levenshtein("ab", "ba"), 1);
    }

    #[test]
    fn closest_prefers_case_then_distance_and_gives_up_when_far() {
        let names = ["ClientRequestHost", "ClientRequestPath", "EdgeResponseStatus"];
        let pick = |given: &str| closest(given, names.iter().map(|n| (*n, *n)));
        assert_eq!(pick("clientrequesthost"), Some("ClientRequestHost"));
        assert_eq!(pick("ClientRequestHots"), Some("ClientRequestHost"));
        assert_eq!(pick("EdgeResponseStatu"), Some("EdgeResponseStatus"));
        assert_eq!(pick("Colo"), None);
        assert_eq!(did_you_mean(Some("x")), "; did you mean `x`?");
        assert_eq!(did_you_mean(None), "");
    }

    /// Found by the fuzz target `parse_filter`: a filter whose key was a few kilobytes took
    /// half a second to validate (an edit distance to every field of the dataset, each
    /// quadratic in the key's length). A name far longer than every candidate is now not
    /// measured; a name of a megabyte took minutes.
    #[test]
    fn a_long_name_is_not_measured_against_short_ones() {
        let long = "ClientRequestHost".repeat(60_000);
        let names = ["ClientRequestHost", "ClientRequestPath", "EdgeResponseStatus"];
        let started = std::time::Instant::now();
        for _ in 0..10 {
            assert_eq!(closest(&long, names.iter().map(|n| (*n, *n))), None);
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(
            closest("ClientRequestHostX", names.iter().map(|n| (*n, *n))),
            Some("ClientRequestHost")
        );
        assert_eq!(
            closest("ClientRequestHo", names.iter().map(|n| (*n, *n))),
            Some("ClientRequestHost")
        );
    }

    /// What `closest` gave before it bounded each distance: every candidate of a near
    /// length measured whole, the first of the smallest kept.
    fn closest_by_whole_table<'a>(given: &str, candidates: &[&'a str]) -> Option<&'a str> {
        let length = given.chars().count();
        let allowed = (length / 4).clamp(1, 3);
        let mut best: Option<(usize, &str)> = None;
        for key in candidates {
            if key.eq_ignore_ascii_case(given) {
                return Some(key);
            }
            if key.chars().count().abs_diff(length) > allowed {
                continue;
            }
            let distance = levenshtein(&given.to_ascii_lowercase(), &key.to_ascii_lowercase());
            if best.is_none_or(|(d, _)| distance < d) {
                best = Some((distance, key));
            }
        }
        best.filter(|(d, _)| *d <= allowed).map(|(_, key)| key)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The banded distance is the whole table's whenever that is within the bound, and
        /// `None` exactly when it is not (a small alphabet, so that near names are common).
        #[test]
        fn the_bounded_distance_is_the_whole_tables(a in "[abAB\u{e9}]{0,12}", b in "[abAB\u{e9}]{0,12}", bound in 0usize..5) {
            let whole = levenshtein(&a.to_ascii_lowercase(), &b.to_ascii_lowercase());
            let bounded = Rows::new(&a).distance_within(&b, bound);
            proptest::prop_assert_eq!(bounded, (whole <= bound).then_some(whole), "{:?} {:?}", a, b);
        }

        /// `closest` picks what it picked when every distance was measured whole.
        #[test]
        fn closest_picks_what_the_whole_table_picks(
            given in "[abcAB]{0,14}",
            candidates in proptest::collection::vec("[abcAB]{0,14}", 0..12),
        ) {
            let keys: Vec<&str> = candidates.iter().map(String::as_str).collect();
            let picked = closest(&given, keys.iter().map(|k| (*k, *k)));
            proptest::prop_assert_eq!(picked, closest_by_whole_table(&given, &keys));
        }
    }

    /// An unknown name is measured only near the diagonal and only until every cell of a
    /// row is over the bound: a few cells, where the whole table of two 25-character names
    /// has 625 (fuzzing `logpull_options` spent nearly all its time measuring those).
    #[test]
    fn an_unknown_name_is_given_up_on_after_a_few_rows() {
        let mut rows = Rows::new("zqwxyzvutsrqponmlkjihgfed");
        assert_eq!(rows.distance_within("ClientRequestField007Name", 3), None);
        assert!(rows.cells <= 4 * 7, "{} cells", rows.cells);

        let mut rows = Rows::new("clientrequestfield007nmae");
        assert_eq!(rows.distance_within("ClientRequestField007Name", 3), Some(1));
        assert!(rows.cells <= 25 * 7, "{} cells", rows.cells);
        assert_eq!(rows.distance_within("ClientRequestField007Name", 0), None);

        // A name far longer than the candidates is not even lower-cased.
        let huge = "x".repeat(1_000_000);
        let mut rows = Rows::new(&huge);
        assert_eq!(rows.distance_within("ClientRequestField007Name", 3), None);
        assert!(rows.name.is_empty() && rows.cells == 0);
    }
}
