//! Credentials kept out of job files: a `destination_conf` in a jobs file (or in Terraform)
//! may name each credential by a reference, `${NAME}`, instead of holding it:
//! `s3://bucket/logs?region=us-east-1&secret-access-key=${LOGPUSH_EDGE_ERRORS_SECRET_ACCESS_KEY}`.
//! What `escpush logpush export` writes, so that no credential is ever written out.
//!
//! A reference is resolved from the variables the caller gives ([`resolve_references`]: the
//! command line gives its environment; a Terraform `${var.x}` is read as `${TF_VAR_x}`,
//! Terraform's own environment variable for it). One left unresolved means "the credential
//! the stored job holds": the plan of `apply` and `ensure` compares the rest of the text
//! ([`matches_template`]), so a file that names its credentials this way is "nothing to do"
//! for the jobs it came from; but a job is created, or moved to another destination, only
//! with every credential given ([`unresolved`]).

use std::ops::Range;

use serde_json::Value;

/// The references of `text`, `${NAME}` (`NAME` of letters, digits and `_`, not starting
/// with a digit): where each is and its name.
pub(crate) fn references(text: &str) -> Vec<(Range<usize>, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("${") {
        let start = from + found;
        let name_start = start + 2;
        let len = text[name_start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len() - name_start);
        let name = &text[name_start..name_start + len];
        let closed = text[name_start + len..].starts_with('}');
        if closed && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') {
            out.push((start..name_start + len + 1, name));
            from = name_start + len + 1;
        } else {
            from = name_start;
        }
    }
    out
}

/// The names of the references `text` still holds.
pub(crate) fn unresolved(text: &str) -> Vec<&str> {
    references(text).into_iter().map(|(_, name)| name).collect()
}

/// The refusal of a `destination_conf` that still holds references where it is to be sent
/// (a creation, a move to another destination): which credentials are missing, and where
/// they come from.
pub(crate) fn unresolved_error(text: &str, doing: &str) -> Option<crate::error::Error> {
    let names = unresolved(text);
    if names.is_empty() {
        return None;
    }
    let listed: Vec<String> = names.iter().map(|n| format!("`${{{n}}}`")).collect();
    let message = format!(
        "{doing} sends the destination with its credentials, and {} {} not given: set the variable{} {} (in the \
         environment, for the command line; a Terraform `var.x` is read from TF_VAR_x)",
        listed.join(", "),
        if names.len() == 1 { "is" } else { "are" },
        if names.len() == 1 { "" } else { "s" },
        names.join(", "),
    );
    Some(crate::error::Error::Invalid {
        problems: vec![crate::problem::Problem::new(
            "destination_conf",
            crate::problem::ProblemCode::InvalidValue,
            message,
        )],
    })
}

/// Replaces in each job's `destination_conf` of `doc` (`{"jobs": [...]}`) the references
/// whose variable `lookup` gives, leaving the others. A job or a value of another shape is
/// left as it is (the checks of [`desired_jobs`](super::desired_jobs) report it).
pub fn resolve_references(doc: &mut Value, lookup: impl Fn(&str) -> Option<String>) {
    let Some(jobs) = doc.get_mut("jobs").and_then(Value::as_array_mut) else {
        return;
    };
    for job in jobs {
        if let Some(Value::String(text)) = job.get_mut("destination_conf") {
            let mut out = String::with_capacity(text.len());
            let mut last = 0;
            for (range, name) in references(text) {
                if let Some(value) = lookup(name) {
                    out.push_str(&text[last..range.start]);
                    out.push_str(&value);
                    last = range.end;
                }
            }
            out.push_str(&text[last..]);
            *text = out;
        }
    }
}

/// `wanted` (a `destination_conf` with references left unresolved) with each credential that
/// is one reference whole taken from `stored`, the same credential of the stored job's
/// destination (the same parameter, or the `user:password`, or the Sumo Logic collector's
/// path): so that the credentials a caller gives are sent with the ones it leaves to the
/// job. A reference inside a longer value, or one the stored destination has no credential
/// for, is left.
pub(crate) fn fill_from_stored(wanted: &str, stored: &str) -> String {
    let (Ok(want), Ok(held)) = (
        super::destination::DestinationConf::parse_address(wanted),
        super::destination::DestinationConf::parse_address(stored),
    ) else {
        return wanted.to_owned();
    };
    let mut held_parts = held.secret_parts();
    let text = want.expose();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (range, hint) in want.secret_parts() {
        let value = &text[range.clone()];
        let whole = references(value).first().is_some_and(|(r, _)| *r == (0..value.len()));
        let Some(at) = held_parts.iter().position(|(_, h)| *h == hint).filter(|_| whole) else {
            continue;
        };
        let (from, _) = held_parts.remove(at);
        out.push_str(&text[last..range.start]);
        out.push_str(&held.expose()[from]);
        last = range.end;
    }
    out.push_str(&text[last..]);
    out
}

/// Whether `stored` is what `template` says once each of its references stands for some
/// non-empty text: the literal parts in order, nothing else between them.
pub(crate) fn matches_template(template: &str, stored: &str) -> bool {
    let refs = references(template);
    let mut literals = Vec::with_capacity(refs.len() + 1);
    let mut last = 0;
    for (range, _) in &refs {
        literals.push(&template[last..range.start]);
        last = range.end;
    }
    literals.push(&template[last..]);
    fits(&literals, stored)
}

/// Whether `text` is `literals[0] X1 literals[1] X2 ... literals[n]` for non-empty `Xi`:
/// the first literal a prefix, the last a suffix, each one between found at its leftmost
/// place after at least one character (leftmost leaves the most room for the rest, so it
/// finds a match whenever there is one).
fn fits(literals: &[&str], text: &str) -> bool {
    let [first, middle @ .., last] = literals else {
        return literals.first().is_some_and(|only| *only == text);
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    for literal in middle {
        let Some(skip) = rest.char_indices().nth(1).map(|(i, _)| i) else {
            return false;
        };
        let Some(found) = rest[skip..].find(literal) else {
            return false;
        };
        rest = &rest[skip + found + literal.len()..];
    }
    rest.len() > last.len() && rest.ends_with(last) && rest.is_char_boundary(rest.len() - last.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_are_found_by_their_form() {
        let text = "s3://b/p?region=r&access-key-id=${KEY_ID}&secret-access-key=${_S3cret}&x=${1a}&y=${}&z=${A";
        let names: Vec<&str> = references(text).into_iter().map(|(_, n)| n).collect();
        assert_eq!(names, ["KEY_ID", "_S3cret"]);
        assert!(unresolved("s3://b/p?region=r").is_empty());
    }

    #[test]
    fn resolving_replaces_what_is_known_and_keeps_the_rest() {
        let mut doc = json!({"jobs": [
            {"destination_conf": "https://${U}@h/p?header_X=${K}&k2=${K}"},
            {"destination_conf": 3},
            "not a job",
        ]});
        resolve_references(&mut doc, |name| (name == "K").then(|| "v$1".to_owned()));
        assert_eq!(
            doc["jobs"][0]["destination_conf"],
            "https://${U}@h/p?header_X=v$1&k2=v$1"
        );
        assert_eq!(doc["jobs"][1]["destination_conf"], 3);
    }

    #[test]
    fn credentials_left_to_the_job_are_its_own() {
        let stored = "s3://b/p?region=r&access-key-id=AK&secret-access-key=OLD";
        assert_eq!(
            fill_from_stored("s3://b/p?region=r&access-key-id=${A}&secret-access-key=NEW", stored),
            "s3://b/p?region=r&access-key-id=AK&secret-access-key=NEW"
        );
        assert_eq!(
            fill_from_stored(
                "https://${U}@h/p?header_X=Basic%20${T}",
                "https://u:p@h/p?header_X=Basic%20t"
            ),
            "https://u:p@h/p?header_X=Basic%20${T}"
        );
        assert_eq!(
            fill_from_stored("r2://b/p?secret=${S}", "r2://b/p"),
            "r2://b/p?secret=${S}"
        );
    }

    #[test]
    fn a_template_matches_the_texts_it_stands_for() {
        let t = "s3://b/p?region=r&access-key-id=${A}&secret-access-key=${B}";
        assert!(matches_template(
            t,
            "s3://b/p?region=r&access-key-id=AK&secret-access-key=s/e+c=r&t"
        ));
        assert!(!matches_template(
            t,
            "s3://b/q?region=r&access-key-id=AK&secret-access-key=s"
        ));
        assert!(!matches_template(
            t,
            "s3://b/p?region=r&access-key-id=&secret-access-key=s"
        ));
        assert!(!matches_template(t, "s3://b/p?region=r&access-key-id=AK"));
        assert!(matches_template("s3://b/p?region=r", "s3://b/p?region=r"));
        assert!(!matches_template("s3://b/p?region=r", "s3://b/p?region=r2"));
        assert!(matches_template("sumo://h/${C}", "sumo://h/receiver/v1/http/é"));
    }
}
