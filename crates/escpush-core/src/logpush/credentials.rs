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
//! with every credential given ([`unresolved`]): the credentials a stored job holds are
//! filled in only for the place it already pushes to ([`fill_from_stored`]), never sent to
//! another host, bucket or path.
//!
//! A literal `${` (a destination that holds one, which is not a reference) is written `$${`,
//! as in HCL: what an export writes, and what the Terraform reader gives for Terraform's own
//! `$${`; the text is sent with each `$${` as `${` once no reference is left ([`unescape`]).

use std::ops::Range;

use super::destination::DestinationConf;

use serde_json::{Map, Value};

use crate::error::Error;
use escpush_filter::{Problem, ProblemCode};

/// The references of `text`, `${NAME}` (`NAME` of letters, digits and `_`, not starting
/// with a digit): where each is and its name. A `$${` is a literal `${` (see the module),
/// never the start of one.
pub(crate) fn references(text: &str) -> Vec<(Range<usize>, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("${") {
        let start = from + found;
        // `$${`: read from the left as HCL reads it, a `$` before `${` makes it literal.
        if text[..start].ends_with('$') {
            from = start + 2;
            continue;
        }
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

/// `text` (literal text, no reference) with each `${` written `$${`, so that it is not
/// read as a reference: how a jobs file, an export and the Terraform reader
/// (escpush-terraform) write a literal `${`.
///
/// ```
/// assert_eq!(escpush_core::escape_references("a${b}"), "a$${b}");
/// ```
pub fn escape_references(text: &str) -> String {
    text.replace("${", "$${")
}

/// `text` with each `$${` read as the literal `${` it stands for (the text to send, once no
/// reference is left in it).
pub(crate) fn unescape(text: &str) -> String {
    text.replace("$${", "${")
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
        problems: vec![escpush_filter::Problem::new(
            "destination_conf",
            escpush_filter::ProblemCode::InvalidValue,
            message,
        )],
    })
}

/// Replaces in a job's `destination_conf` the references whose variable `lookup` gives,
/// leaving the others (a value is literal text: a `${` in it is written `$${`). Refused, with
/// nothing replaced: a variable set to the empty string or only spaces (how CI expands a
/// secret it does not have), which would send the destination without its credential; the
/// problem names the variable, at `destination_conf` ([`resolve_references`](super::resolve_references)
/// names the job too). `ensure`'s; `apply` resolves a whole document.
pub fn resolve_job_references(
    job: &mut Map<String, Value>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<(), Error> {
    let problems = empty_variables(job, &lookup);
    if !problems.is_empty() {
        return Err(Error::Invalid { problems });
    }
    if let Some(Value::String(text)) = job.get_mut("destination_conf") {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (range, name) in references(text) {
            if let Some(value) = lookup(name) {
                out.push_str(&text[last..range.start]);
                // The value is literal text: a `${` in it is no reference.
                out.push_str(&escape_references(&value));
                last = range.end;
            }
        }
        out.push_str(&text[last..]);
        *text = out;
    }
    Ok(())
}

/// A problem for each variable a job's `destination_conf` refers to that `lookup` gives as
/// the empty string or only spaces.
pub(super) fn empty_variables(job: &Map<String, Value>, lookup: &impl Fn(&str) -> Option<String>) -> Vec<Problem> {
    let Some(Value::String(text)) = job.get("destination_conf") else {
        return Vec::new();
    };
    let mut names: Vec<&str> = references(text)
        .into_iter()
        .map(|(_, name)| name)
        .filter(|name| lookup(name).is_some_and(|v| v.trim().is_empty()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            Problem::new(
                "destination_conf",
                ProblemCode::InvalidValue,
                format!(
                    "the variable {name} (`${{{name}}}`) is set to the empty string (or only spaces), which would send \
                     the destination without that credential: set it to the credential, or unset it to keep the one \
                     the job holds"
                ),
            )
        })
        .collect()
}

/// `wanted` (a `destination_conf` with references left unresolved) with each credential that
/// is one reference whole taken from `stored`, the same credential of the stored job's
/// destination (the same parameter, or the `user:password`, or the Sumo Logic collector's
/// path): so that the credentials a caller gives are sent with the ones it leaves to the
/// job. A reference inside a longer value, or one the stored destination has no credential
/// for, is left.
///
/// Only for the place the job pushes to: when the destination so filled is another place
/// than the stored one ([`DestinationConf::same_place`]: another scheme, host or bucket,
/// path, S3 `endpoint` or R2 `account-id`), `wanted` is given back as it is, so that the
/// job's credentials never go to another destination (the plan then refuses it, naming the
/// variables).
pub(crate) fn fill_from_stored(wanted: &str, stored: &str) -> String {
    let (Ok(want), Ok(held)) = (
        DestinationConf::parse_address(wanted),
        DestinationConf::parse_address(stored),
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
        out.push_str(&escape_references(&held.expose()[from]));
        last = range.end;
    }
    out.push_str(&text[last..]);
    let same_place = DestinationConf::parse_address(&unescape(&out)).is_ok_and(|filled| filled.same_place(&held));
    if same_place {
        out
    } else {
        wanted.to_owned()
    }
}

/// Whether `stored` is what `template` says once each of its references stands for some
/// non-empty text: the literal parts in order, nothing else between them.
pub(crate) fn matches_template(template: &str, stored: &str) -> bool {
    let refs = references(template);
    let mut literals = Vec::with_capacity(refs.len() + 1);
    let mut last = 0;
    for (range, _) in &refs {
        literals.push(unescape(&template[last..range.start]));
        last = range.end;
    }
    literals.push(unescape(&template[last..]));
    let literals: Vec<&str> = literals.iter().map(String::as_str).collect();
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
        resolve_references(&mut doc, |name| (name == "K").then(|| "v$1".to_owned())).unwrap();
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

    use crate::logpush::{desired_jobs, plan_job, plan_jobs, resolve_references};
    use crate::logpush::{PlanAction, PlanOptions};
    use crate::scope::Scope;
    use escpush_filter::DatasetScope;

    fn zone() -> Scope {
        Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap()
    }

    fn stored(dest: &str) -> Map<String, Value> {
        json!({"id": 7, "name": "x", "dataset": "http_requests", "destination_conf": dest,
               "enabled": true, "kind": "", "filter": null})
        .as_object()
        .cloned()
        .unwrap()
    }

    fn problems(err: &Error) -> String {
        match err {
            Error::Invalid { problems } => problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"),
            other => other.to_string(),
        }
    }

    /// Issue 33, item 1: a destination whose credentials are references left unset, at
    /// another host, bucket or path than the stored job's, is refused before anything is
    /// sent, naming the variables; the stored credentials never go to the new place.
    #[test]
    fn stored_credentials_never_move_to_another_destination() {
        let cases = [
            (
                "https://logs.example.com/in?header_Authorization=TOKEN-123",
                "https://other.example.net/in?header_Authorization=${LOGPUSH_X_HEADER_AUTHORIZATION}",
                "LOGPUSH_X_HEADER_AUTHORIZATION",
            ),
            (
                "https://logs.example.com/in?header_Authorization=TOKEN-123",
                "https://logs.example.com/other?header_Authorization=${LOGPUSH_X_HEADER_AUTHORIZATION}",
                "LOGPUSH_X_HEADER_AUTHORIZATION",
            ),
            (
                "s3://bucket/logs?region=us-east-1&access-key-id=AKID&secret-access-key=SAK-SECRET",
                "s3://other-bucket/logs?region=us-east-1&access-key-id=${A}&secret-access-key=${B}",
                "A, B",
            ),
            (
                "https://me:pw-secret@logs.example.com/in",
                "https://${U}@evil.example.net/in",
                "U",
            ),
            (
                "sumo://e.sumologic.com/receiver/v1/http/C0DE-SECRET",
                "sumo://other.sumologic.com/${C}",
                "C",
            ),
            (
                "s3://bucket/logs?region=us-east-1&endpoint=minio.example.com&access-key-id=AKID&secret-access-key=SAK",
                "s3://bucket/logs?region=us-east-1&endpoint=evil.example.net&access-key-id=${A}&secret-access-key=${B}",
                "A, B",
            ),
        ];
        for (held, wanted, names) in cases {
            let file = json!({"jobs": [{"name": "x", "dataset": "http_requests", "destination_conf": wanted}]});
            let want = desired_jobs(&file, DatasetScope::Zone).unwrap();
            // ensure (one job) and apply (a plan) alike.
            let err = plan_job(&want[0], &[stored(held)], &zone()).unwrap_err();
            let text = problems(&err);
            assert!(
                text.contains("moving the job to another destination") && text.contains("set the variable"),
                "{wanted}: {text}"
            );
            assert!(text.contains(names), "{wanted}: {text}");
            let err = plan_jobs(&want, &[stored(held)], &zone(), PlanOptions::new()).unwrap_err();
            assert!(problems(&err).contains("jobs[0].destination_conf"), "{err}");
            // The filling itself leaves the references.
            assert_eq!(fill_from_stored(wanted, held), wanted);
        }
        // The same place keeps taking the job's credentials: nothing to do, or an update of
        // another field with them.
        let held = "https://logs.example.com/in?header_Authorization=TOKEN-123&tags=a";
        for (wanted, action) in [
            (
                "https://logs.example.com/in?header_Authorization=${T}&tags=${G}",
                PlanAction::Unchanged,
            ),
            (
                "https://logs.example.com/in/?header_Authorization=${T}&tags=b",
                PlanAction::Update,
            ),
        ] {
            let file = json!({"jobs": [{"name": "x", "dataset": "http_requests", "destination_conf": wanted}]});
            let want = desired_jobs(&file, DatasetScope::Zone).unwrap();
            let entry = plan_job(&want[0], &[stored(held)], &zone()).unwrap();
            assert_eq!(entry.action, action, "{wanted}");
        }
        // Terraform's `${var.tok}` left unset: escpush-terraform's `tests/references.rs`.
    }

    /// The escape as HCL reads it (issue 33, item 4; the export and apply of a literal
    /// `${NAME}` are escpush-terraform's `tests/references.rs`): `$$${X}` is a `$` and a
    /// literal `${X}`.
    #[test]
    fn a_literal_reference_is_escaped_once() {
        assert!(references("a$${X}b$$${Y}").is_empty());
        assert_eq!(unescape("a$${X}b$$${Y}"), "a${X}b$${Y}");
        assert_eq!(escape_references("a${X}b$${Y}"), "a$${X}b$$${Y}");
    }

    /// Issue 33, item 5: a credential variable set to the empty string is refused, naming it.
    #[test]
    fn a_variable_set_to_the_empty_string_is_refused() {
        let dest = "https://logs.example.com/in?header_Authorization=${LOGPUSH_X_HEADER_AUTHORIZATION}&t=${T}";
        let mut doc = json!({"jobs": [{"name": "x", "dataset": "http_requests", "destination_conf": dest}],
                             "addresses": ["cloudflare_logpush_job.x"]});
        let err = resolve_references(&mut doc, |name| {
            Some(if name == "T" { "t".to_owned() } else { String::new() })
        })
        .unwrap_err();
        let text = problems(&err);
        assert!(
            text.contains("cloudflare_logpush_job.x.destination_conf")
                && text.contains("LOGPUSH_X_HEADER_AUTHORIZATION")
                && text.contains("empty string"),
            "{text}"
        );
        assert!(!text.contains("`${T}`"), "{text}");
        assert_eq!(doc["jobs"][0]["destination_conf"], dest, "nothing replaced");
        let mut job = doc["jobs"][0].as_object().cloned().unwrap();
        let err = resolve_job_references(&mut job, |_| Some(" ".to_owned())).unwrap_err();
        assert!(problems(&err).starts_with("destination_conf: "), "{err}");
    }
}
