//! What the text of an argument or an object's key says, read one way for a path, a glob
//! and an object storage URL (`inputs.rs`, `store.rs`): a URL's scheme, glob characters, a log
//! file's name, the time range in a log-push file's name, and a time as a person writes it
//! ([`parse_time`]).

use std::path::Path;

use escpush_filter::unix_from_civil;

/// The scheme of `arg` if it is a URL (`s3://...`): letters, digits, `+`, `-` or `.` before
/// `://`, more than one character so that `C://` stays a Windows path.
pub(crate) fn url_scheme(arg: &str) -> Option<&str> {
    let (scheme, _) = arg.split_once("://")?;
    let ok = scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    ok.then_some(scheme)
}

/// Whether a file name looks like logs: see the module docs.
pub(crate) fn is_log_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    is_log_file_name(&name)
}

pub(crate) fn is_log_file_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    !name.starts_with('.')
        && [".gz", ".log", ".ndjson", ".jsonl", ".json"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

pub(crate) fn has_glob(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

/// The time range in a log-push file name, `START_END_...` with both times as
/// `YYYYMMDDTHHMMSSZ`: unix seconds.
pub fn logpush_range(name: &str) -> Option<(i64, i64)> {
    let bytes = name.as_bytes();
    if bytes.len() < 33 || bytes[16] != b'_' {
        return None;
    }
    let start = compact_time(&name[..16])?;
    let end = compact_time(&name[17..33])?;
    if bytes.len() > 33 && bytes[33] != b'_' && bytes[33] != b'.' {
        return None;
    }
    Some((start, end))
}

/// `YYYYMMDDTHHMMSSZ`.
fn compact_time(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 16 || b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    let date = (digits(&s[0..4])?, digits(&s[4..6])?, digits(&s[6..8])?);
    let time = (digits(&s[9..11])?, digits(&s[11..13])?, digits(&s[13..15])?);
    unix_from_civil(date, time)
}

fn digits(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Reads an ISO-8601 time as unix seconds: `2026-11-22`, `2026-11-22T10:30`,
/// `2026-11-22T10:30:00Z`, `2026-11-22 10:30:00.5+01:00`, or the compact log-push form
/// `20261122T103000Z`. Without an offset the time is UTC (log-push names are UTC); a fraction
/// of a second is dropped.
pub fn parse_time(text: &str) -> Result<i64, String> {
    let bad = || {
        format!(
            "`{text}` is not an ISO-8601 time (such as 2026-11-22, 2026-11-22T10:30:00Z or \
             2026-11-22T10:30:00+01:00)"
        )
    };
    let s = text.trim();
    if let Some(t) = compact_time(s) {
        return Ok(t);
    }
    if s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit()) {
        let date = (
            digits(&s[0..4]).ok_or_else(bad)?,
            digits(&s[4..6]).ok_or_else(bad)?,
            digits(&s[6..8]).ok_or_else(bad)?,
        );
        return unix_from_civil(date, (0, 0, 0)).ok_or_else(bad);
    }
    let b = s.as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(bad());
    }
    let date = (
        digits(&s[0..4]).ok_or_else(bad)?,
        digits(&s[5..7]).ok_or_else(bad)?,
        digits(&s[8..10]).ok_or_else(bad)?,
    );
    let rest = &s[10..];
    if rest.is_empty() {
        return unix_from_civil(date, (0, 0, 0)).ok_or_else(bad);
    }
    let rest = rest.strip_prefix(['T', 't', ' ']).ok_or_else(bad)?;
    // The time, then an optional offset.
    let (clock, offset) = match rest.find(['Z', 'z', '+', '-']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let clock = clock.split_once('.').map_or(clock, |(whole, frac)| {
        if frac.bytes().all(|b| b.is_ascii_digit()) {
            whole
        } else {
            "bad"
        }
    });
    let fields: Vec<&str> = clock.split(':').collect();
    if !(2..=3).contains(&fields.len()) || fields.iter().any(|f| f.len() != 2) {
        return Err(bad());
    }
    let hh = digits(fields[0]).ok_or_else(bad)?;
    let mm = digits(fields[1]).ok_or_else(bad)?;
    let ss = fields.get(2).map_or(Some(0), |f| digits(f)).ok_or_else(bad)?;
    let local = unix_from_civil(date, (hh, mm, ss)).ok_or_else(bad)?;
    let offset_secs = match offset {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = if offset.starts_with('-') { -1 } else { 1 };
            let o = offset[1..].replace(':', "");
            if o.len() != 4 {
                return Err(bad());
            }
            let h = digits(&o[..2]).ok_or_else(bad)?;
            let m = digits(&o[2..]).ok_or_else(bad)?;
            if h > 23 || m > 59 {
                return Err(bad());
            }
            sign * (h * 3600 + m * 60)
        }
    };
    Ok(local - offset_secs)
}

#[cfg(test)]
mod tests {
    use escpush_filter::format_time;

    use super::*;

    #[test]
    fn times() {
        assert_eq!(parse_time("1970-01-01"), Ok(0));
        assert_eq!(parse_time("2026-11-22T00:00:30Z"), Ok(1_795_305_630));
        assert_eq!(parse_time("20261122T000030Z"), Ok(1_795_305_630));
        assert_eq!(parse_time("2026-11-22 01:00:30+01:00"), Ok(1_795_305_630));
        assert_eq!(parse_time("2026-11-21T23:00:30.75-01:00"), Ok(1_795_305_630));
        assert_eq!(parse_time("2026-11-22T00:00"), Ok(1_795_305_600));
        assert_eq!(parse_time("20261122"), Ok(1_795_305_600));
        for bad in [
            "",
            "yesterday",
            "2026-02-30",
            "2026-11-22T25:00",
            "2026-11-22T10",
            "2026-11-22X",
            "2026-11-22T10:00+1",
        ] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
        assert_eq!(format_time(1_795_305_630), "2026-11-22T00:00:30Z");
        assert_eq!(format_time(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(parse_time(&format_time(-86_401)), Ok(-86_401));
    }

    #[test]
    fn logpush_names() {
        let name = "20261122T000000Z_20261122T000030Z_0a1b2c3d.log.gz";
        assert_eq!(logpush_range(name), Some((1_795_305_600, 1_795_305_630)));
        assert_eq!(
            logpush_range("20261122T000000Z_20261122T000030Z.log"),
            Some((1_795_305_600, 1_795_305_630))
        );
        assert_eq!(logpush_range("logs.ndjson.gz"), None);
        assert_eq!(logpush_range("20261122T000000Z_20261199T000030Z_x.log.gz"), None);
        assert_eq!(logpush_range("20261122T000000Z_20261122T000030Zx.log.gz"), None);
    }

    #[test]
    fn url_schemes() {
        assert_eq!(url_scheme("s3://bucket/prefix/"), Some("s3"));
        assert_eq!(url_scheme("C://logs"), None);
        assert_eq!(url_scheme("logs/a.gz"), None);
        assert_eq!(url_scheme("weird dir://x"), None);
    }
}
