//! "Did you mean ...?": the closest known name to a mistyped one.

/// `; did you mean `X`?` when there is a suggestion, else nothing.
pub(crate) fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!("; did you mean `{s}`?"))
}

/// `text` to quote in a message: whole up to 40 characters, else its first 40 and `…`, so
/// that a message about a 10 MB word stays a line.
pub(crate) fn cut(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]).into(),
        None => text.into(),
    }
}

/// `text` whole up to `max` characters, else its start and end around `…`: for a path or a
/// message that quotes an input of any size, shown in one screen while the full one stays
/// in the data (`Problem::path`, `Problem::message`).
pub(crate) fn shorten(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let count = text.chars().count();
    if count <= max {
        return text.into();
    }
    let head: String = text.chars().take(max * 2 / 3).collect();
    let tail: String = text.chars().skip(count - max / 3).collect();
    format!("{head}…{tail}").into()
}

/// The candidate closest to `given`: the same name in another case first, then the
/// smallest edit distance, if it is small for the name's length. `given` and the
/// candidates' keys are compared as they are (fold the case beforehand if wanted).
pub(crate) fn closest<T, K: AsRef<str>>(given: &str, candidates: impl IntoIterator<Item = (K, T)>) -> Option<T> {
    // One edit in four characters, at least one and at most three.
    let length = given.chars().count();
    let allowed = (length / 4).clamp(1, 3);
    let lower = given.to_ascii_lowercase();
    let mut best: Option<(usize, T)> = None;
    for (key, item) in candidates {
        let key = key.as_ref();
        if key.eq_ignore_ascii_case(given) {
            return Some(item);
        }
        // The distance is at least the difference of the lengths: a candidate too long or
        // too short is not measured (a name of a megabyte costs no more than a short one).
        if key.chars().count().abs_diff(length) > allowed {
            continue;
        }
        let distance = levenshtein(&lower, &key.to_ascii_lowercase());
        if best.as_ref().is_none_or(|(d, _)| distance < *d) {
            best = Some((distance, item));
        }
    }
    best.filter(|(d, _)| *d <= allowed).map(|(_, item)| item)
}

/// Edit distance (insertions, deletions, substitutions; a swap of neighbours counts one).
pub(crate) fn levenshtein(a: &str, b: &str) -> usize {
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
}
