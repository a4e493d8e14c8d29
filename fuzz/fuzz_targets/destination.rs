//! `destination_conf` text: parsing never panics; an error is `Invalid` with one problem at
//! `destination_conf`; a destination that parses keeps its text (`expose`), parses again to
//! itself, and its redacted form (also its `Display` and `Debug`) parses to a destination
//! whose every secret is `***` and that redacts to itself.
//!
//! Inputs whose first byte is odd build a destination from parts (a scheme, a path with an
//! optional `user:password@` and, for `sumo`, a collector code, and parameters): the
//! redacted text must not change when every credential (each parameter value but the shown
//! ones, the `user:password`, the collector code) is replaced by another value, so no part
//! of a credential can reach it.
#![no_main]

use escpush_core::{known_schemes, DestinationConf, Error, DESTINATIONS};
use libfuzzer_sys::fuzz_target;

/// The parameters whose values the redacted form shows (the documented list).
const SHOWN: &[&str] = &[
    "region",
    "sse",
    "channel",
    "insecure-skip-verify",
    "service",
    "ddsource",
    "host",
];

fn check_text(text: &str) {
    let parsed = DestinationConf::parse(text);
    let redacted = DestinationConf::redact(text);
    let conf = match parsed {
        Ok(conf) => conf,
        Err(Error::Invalid { problems }) => {
            assert_eq!(problems.len(), 1);
            assert_eq!(problems[0].path, "destination_conf");
            assert_eq!(redacted, "***");
            return;
        }
        Err(other) => panic!("not an Invalid error: {other:?}"),
    };
    assert!(known_schemes().any(|s| s == conf.scheme()));
    assert_eq!(conf.expose(), text.trim());
    assert_eq!(DestinationConf::parse(conf.expose()).as_ref(), Ok(&conf));
    assert_eq!(redacted, conf.redacted());
    assert_eq!(conf.to_string(), redacted);
    assert_eq!(format!("{conf:?}"), format!("DestinationConf({redacted:?})"));
    let again = DestinationConf::parse(&redacted)
        .unwrap_or_else(|e| panic!("the redacted form {redacted:?} of {text:?} does not parse: {e}"));
    assert_eq!(again.scheme(), conf.scheme());
    assert_eq!(again.redacted(), redacted, "redacting {text:?} twice");
    for secret in again.secret_values() {
        assert_eq!(secret, "***", "{text:?} redacted as {redacted:?}");
    }
}

/// Splits `bytes` at 0 bytes into text parts (lossy UTF-8).
fn parts(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|&b| b == 0)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect()
}

/// The destination text of parts: `scheme://[userinfo@]host[/rest][/code]?k=v&...`, each
/// secret replaced by `mask(i)` when given.
fn build(scheme: &str, p: &[String], mask: Option<&dyn Fn(usize) -> String>) -> String {
    let secret = |i: usize, s: &str| mask.map_or_else(|| s.to_owned(), |m| m(i));
    let mut text = format!("{scheme}://");
    if !p[0].is_empty() {
        text.push_str(&secret(0, &p[0]));
        text.push('@');
    }
    text.push_str(&p[1]);
    if scheme == "sumo" {
        text.push('/');
        text.push_str(&secret(1, &p[2]));
    } else {
        text.push_str(&p[2]);
    }
    for (n, pair) in p[3..].chunks(2).enumerate() {
        let [key, value] = pair else { break };
        text.push(if n == 0 { '?' } else { '&' });
        text.push_str(key);
        text.push('=');
        if SHOWN.contains(&key.as_str()) {
            text.push_str(value);
        } else {
            text.push_str(&secret(n + 2, value));
        }
    }
    text
}

fn check_parts(data: &[u8]) {
    let Some((&s, rest)) = data.split_first() else { return };
    let scheme = DESTINATIONS[usize::from(s) % DESTINATIONS.len()].scheme;
    let p = parts(rest);
    if p.len() < 3 {
        return;
    }
    // Keep every part where it was put: no separator inside a part, a host without `/`,
    // and text around the whole that trimming does not change.
    let bad = |t: &str, extra: &[char]| t.contains(['?', '&', '#', '\u{fffd}']) || t.contains(extra);
    if bad(&p[0], &['/', '@']) || bad(&p[1], &['/', '@']) || p[1].is_empty() || bad(&p[2], &[]) {
        return;
    }
    if scheme == "sumo" && p[2].contains('/') || scheme != "sumo" && !p[2].is_empty() && !p[2].starts_with('/') {
        return;
    }
    if p[3..]
        .chunks(2)
        .any(|kv| bad(&kv[0], &['=']) || kv.get(1).is_some_and(|v| bad(v, &[])))
    {
        return;
    }
    let text = build(scheme, &p, None);
    if text.trim() != text {
        return;
    }
    check_text(&text);
    let Ok(conf) = DestinationConf::parse(&text) else {
        return;
    };
    let masked = build(scheme, &p, Some(&|i| format!("m{i}")));
    let other =
        DestinationConf::parse(&masked).unwrap_or_else(|e| panic!("{masked:?} (from {text:?}) does not parse: {e}"));
    assert_eq!(
        conf.redacted(),
        other.redacted(),
        "the redacted form of {text:?} depends on its credentials"
    );
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((&mode, rest)) if mode % 2 == 1 => check_parts(rest),
        _ => {
            if let Ok(text) = std::str::from_utf8(data.get(1..).unwrap_or_default()) {
                check_text(text);
            }
        }
    }
});
