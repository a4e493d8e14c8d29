//! Times as log-push writes them, and the calendar arithmetic behind them: the one reading of a
//! timestamp field of a log line ([`LineValue::timestamp`](crate::LineValue::timestamp)), of a date and time of day
//! ([`unix_from_civil`]) and the one way a time is printed ([`format_time`]).
//!
//! A job writes its timestamp fields in the format its `timestamp_format` (or the
//! `timestamps=` of `logpull_options`) names:
//!
//! | format | a value | read as |
//! |---|---|---|
//! | `unixnano` (the default) | `1795305630123456789` | nanoseconds since the epoch |
//! | `unix` | `1795305630` | seconds since the epoch |
//! | `rfc3339` | `"2026-11-22T00:00:30Z"` | RFC 3339 text |
//! | `rfc3339ms` | `"2026-11-22T00:00:30.123Z"` | RFC 3339 text, milliseconds |
//! | `rfc3339ns` | `"2026-11-22T00:00:30.123456789Z"` | RFC 3339 text, nanoseconds |
//!
//! A line does not say which format wrote it, so a timestamp is read in any of them: a JSON
//! integer by its size (below 10^11 seconds, which reaches the year 5138; below 10^14
//! milliseconds, as fields named `...Ms` hold; below 10^17 microseconds; nanoseconds
//! beyond, which covers every time after March 1973), a string as RFC 3339 (`T`, `t` or a
//! space between date and time, any number of fraction digits, `Z`, `z` or an offset, which
//! RFC 3339 requires; a leap second `:60` counts in its minute). Anything else (a float, a
//! string in another form, an impossible date, an array) is [`Timestamp::Unreadable`]: a scan
//! counts such lines apart, it never guesses and never drops them. So is a time before
//! 0001-01-01T00:00:00Z or after 9999-12-31T23:59:59.999999999Z ([`FIRST_SECOND`],
//! [`LAST_SECOND`]): RFC 3339 writes years in four digits, and a time outside them could not
//! be printed in it (nor read by Python's `datetime`, which `ScanResult`'s tables use).

/// What a timestamp field of one line holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Timestamp {
    /// The field is not in the line, or is `null`.
    Missing,
    /// The field holds something that is not a time in any log-push format.
    Unreadable,
    /// A time: whole seconds since the epoch (rounded down), and nanoseconds past them.
    At {
        /// Seconds since 1970-01-01T00:00:00Z, rounded down (negative before it).
        seconds: i64,
        /// Nanoseconds past `seconds`, `0..1_000_000_000`.
        nanos: u32,
    },
}

/// The first second a timestamp may name: 0001-01-01T00:00:00Z.
pub const FIRST_SECOND: i64 = -62_135_596_800;
/// The last second a timestamp may name: 9999-12-31T23:59:59Z.
pub const LAST_SECOND: i64 = 253_402_300_799;

/// A time, when it lies between [`FIRST_SECOND`] and [`LAST_SECOND`].
fn within_years(seconds: i64, nanos: u32) -> Timestamp {
    if (FIRST_SECOND..=LAST_SECOND).contains(&seconds) {
        Timestamp::At { seconds, nanos }
    } else {
        Timestamp::Unreadable
    }
}

/// Reads the text of a JSON integer as a timestamp (the `unix` and `unixnano` formats, and
/// milliseconds and microseconds, by its size). See the [module docs](self).
pub(crate) fn read_integer(text: &[u8]) -> Timestamp {
    let (negative, digits) = match text.split_first() {
        Some((b'-', digits)) => (true, digits),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 30 || !digits.iter().all(u8::is_ascii_digit) {
        return Timestamp::Unreadable;
    }
    let magnitude = digits.iter().fold(0i128, |n, &d| n * 10 + i128::from(d - b'0'));
    let n = if negative { -magnitude } else { magnitude };
    // Nanoseconds per unit, by the size of the number.
    let unit: i128 = match magnitude {
        m if m < 100_000_000_000 => 1_000_000_000,
        m if m < 100_000_000_000_000 => 1_000_000,
        m if m < 100_000_000_000_000_000 => 1_000,
        _ => 1,
    };
    let nanos = n * unit;
    match i64::try_from(nanos.div_euclid(1_000_000_000)) {
        Ok(seconds) => within_years(seconds, u32::try_from(nanos.rem_euclid(1_000_000_000)).unwrap_or(0)),
        Err(_) => Timestamp::Unreadable,
    }
}

/// Reads RFC 3339 text (`2026-11-22T00:00:30.5+01:00`); see the [module docs](self).
impl Timestamp {
    /// Reads a log line's time as text (RFC 3339, as the `rfc3339` format writes it) or as
    /// the text of an integer (the `unix` and `unixnano` formats, milliseconds and
    /// microseconds by its size): the reading of the scan, for other readers of a record's
    /// time (core's transformer preview, `to_timestamp`).
    pub fn read(text: &str) -> Timestamp {
        match text.as_bytes() {
            [b'-' | b'0'..=b'9', rest @ ..] if rest.iter().all(u8::is_ascii_digit) => read_integer(text.as_bytes()),
            bytes => read_rfc3339(bytes),
        }
    }
}

pub(crate) fn read_rfc3339(text: &[u8]) -> Timestamp {
    rfc3339(text).map_or(Timestamp::Unreadable, |(seconds, nanos)| within_years(seconds, nanos))
}

fn rfc3339(b: &[u8]) -> Option<(i64, u32)> {
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = b.get(range)?;
        digits
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| digits.iter().fold(0i64, |n, &d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let date = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut pos = 19;
    let mut nanos = 0u32;
    if b[pos] == b'.' {
        let start = pos + 1;
        pos = start;
        while b.get(pos).is_some_and(u8::is_ascii_digit) {
            if pos - start < 9 {
                nanos = nanos * 10 + u32::from(b[pos] - b'0');
            }
            pos += 1;
        }
        if pos == start {
            return None;
        }
        for _ in (pos - start)..9 {
            nanos *= 10;
        }
    }
    let offset = match b.get(pos..)? {
        b"Z" | b"z" => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let digit = |d: &u8| d.is_ascii_digit().then(|| i64::from(d - b'0'));
            let (h, m) = (digit(h1)? * 10 + digit(h2)?, digit(m1)? * 10 + digit(m2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let offset = h * 3600 + m * 60;
            if *sign == b'-' {
                -offset
            } else {
                offset
            }
        }
        _ => return None,
    };
    // A leap second belongs to the minute it is written in.
    if ss > 60 {
        return None;
    }
    let local = unix_from_civil(date, (hh, mm, ss.min(59)))?;
    if ss == 60 {
        nanos = 999_999_999;
    }
    Some((local - offset, nanos))
}

/// Seconds since the epoch of a date `(year, month, day)` and a time of day `(hour, minute,
/// second)` in UTC, or `None` when there is no such date or time (the 30th of February, hour
/// 24). Second 60 (a leap second) is accepted and counted as the next minute's first.
pub fn unix_from_civil((y, m, d): (i64, i64, i64), (hh, mm, ss): (i64, i64, i64)) -> Option<i64> {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in_month = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if !(1..=days_in_month).contains(&d)
        || !(0..=23).contains(&hh)
        || !(0..=59).contains(&mm)
        || !(0..=60).contains(&ss)
    {
        return None;
    }
    Some(days_from_civil(y, m, d) * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date and time of day of `unix_seconds` (UTC): `((year, month, day), (hour, minute,
/// second))`, the inverse of [`unix_from_civil`].
pub fn civil_from_unix(unix_seconds: i64) -> ((i64, i64, i64), (i64, i64, i64)) {
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400);
    // Inverse of days_from_civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    ((y, m, d), (secs / 3600, secs % 3600 / 60, secs % 60))
}

/// `unix_seconds` as `YYYY-MM-DDTHH:MM:SSZ`, the form escpush prints every time in.
pub fn format_time(unix_seconds: i64) -> String {
    let ((y, m, d), (hh, mm, ss)) = civil_from_unix(unix_seconds);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64, nanos: u32) -> Timestamp {
        Timestamp::At { seconds, nanos }
    }

    #[test]
    fn every_log_push_format() {
        // The same instant in the five formats a job writes.
        assert_eq!(read_integer(b"1795305630"), at(1_795_305_630, 0)); // unix
        assert_eq!(read_integer(b"1795305630123456789"), at(1_795_305_630, 123_456_789)); // unixnano
        assert_eq!(read_rfc3339(b"2026-11-22T00:00:30Z"), at(1_795_305_630, 0)); // rfc3339
        assert_eq!(
            read_rfc3339(b"2026-11-22T00:00:30.123Z"),
            at(1_795_305_630, 123_000_000)
        ); // rfc3339ms
        assert_eq!(
            read_rfc3339(b"2026-11-22T00:00:30.123456789Z"),
            at(1_795_305_630, 123_456_789)
        ); // rfc3339ns
           // Milliseconds and microseconds, by size; before the epoch.
        assert_eq!(read_integer(b"1795305630123"), at(1_795_305_630, 123_000_000));
        assert_eq!(read_integer(b"1795305630123456"), at(1_795_305_630, 123_456_000));
        assert_eq!(read_integer(b"-1"), at(-1, 0));
        assert_eq!(read_integer(b"0"), at(0, 0));
        assert_eq!(read_integer(b"-1500000000000000001"), at(-1_500_000_001, 999_999_999));
    }

    #[test]
    fn rfc3339_variants_and_refusals() {
        assert_eq!(read_rfc3339(b"2026-11-22 01:00:30+01:00"), at(1_795_305_630, 0));
        assert_eq!(
            read_rfc3339(b"2026-11-21t23:00:30.5-01:00"),
            at(1_795_305_630, 500_000_000)
        );
        assert_eq!(
            read_rfc3339(b"2026-11-22T00:00:30.1234567891z"),
            at(1_795_305_630, 123_456_789)
        );
        assert_eq!(read_rfc3339(b"2016-12-31T23:59:60Z"), at(1_483_228_799, 999_999_999));
        assert_eq!(read_rfc3339(b"2000-02-29T00:00:00Z"), at(951_782_400, 0));
        for bad in [
            &b""[..],
            b"2026-11-22",
            b"2026-11-22T00:00:30",
            b"2026-11-22T00:00:30+0100",
            b"2026-11-22T00:00:30.Z",
            b"2026-02-30T00:00:00Z",
            b"2026-11-22T24:00:00Z",
            b"2026-11-22T00:60:00Z",
            b"2026-11-22T00:00:61Z",
            b"2026-11-22T00:00:30Z ",
            b"2026-11-22T00:00:30+24:00",
            b"20261122T000030Z",
            b"1795305630",
        ] {
            assert_eq!(
                read_rfc3339(bad),
                Timestamp::Unreadable,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert_eq!(read_integer(b"1".repeat(40).as_slice()), Timestamp::Unreadable);
    }

    #[test]
    fn times_outside_years_1_to_9999_are_unreadable() {
        assert_eq!(read_rfc3339(b"0001-01-01T00:00:00Z"), at(FIRST_SECOND, 0));
        assert_eq!(
            read_rfc3339(b"9999-12-31T23:59:59.999999999Z"),
            at(LAST_SECOND, 999_999_999)
        );
        assert_eq!(format_time(FIRST_SECOND), "0001-01-01T00:00:00Z");
        assert_eq!(format_time(LAST_SECOND), "9999-12-31T23:59:59Z");
        for bad in [
            &b"0000-12-31T23:00:00Z"[..],
            b"0001-01-01T00:30:00+01:00",
            b"9999-12-31T23:30:00-01:00",
        ] {
            assert_eq!(
                read_rfc3339(bad),
                Timestamp::Unreadable,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        // Nanoseconds, as the property test found: one before 0001-01-01, and one past 9999.
        assert_eq!(read_integer(b"-62135596800000000001"), Timestamp::Unreadable);
        assert_eq!(read_integer(b"-62135596800000001"), Timestamp::Unreadable);
        assert_eq!(read_integer(b"-62135596800000000000"), at(FIRST_SECOND, 0));
        assert_eq!(read_integer(b"253402300800000000000"), Timestamp::Unreadable);
    }

    #[test]
    fn calendar() {
        assert_eq!(format_time(1_795_305_630), "2026-11-22T00:00:30Z");
        assert_eq!(format_time(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_time(-86_401), "1969-12-30T23:59:59Z");
        assert_eq!(unix_from_civil((1969, 12, 30), (23, 59, 59)), Some(-86_401));
        assert_eq!(unix_from_civil((2026, 2, 29), (0, 0, 0)), None);
    }
}
