//! How a delivered record's values are written as JSON: one owner for core's preview
//! (`eval.rs`) and for the records of a local run (escpush-py writes the engine's Arrow
//! batches with these). An object's members are sorted by name, as the docs' delivered
//! records are; a time is RFC 3339 in UTC (`Z`, the fraction's digits as needed); a number
//! that holds an integer is written as one: the docs' `extract(epoch FROM ...)` delivers
//! `1747839600`, which DataFusion computes as a float.

use escpush_filter::Json;

/// The largest integer every float below it holds exactly (2^53).
const EXACT: f64 = 9_007_199_254_740_992.0;

/// `text` as a JSON string (`"` and `\` and control characters escaped, the rest as UTF-8).
pub fn write_string(text: &str, out: &mut Vec<u8>) {
    crate::logpush::output::json_string(text.as_bytes(), out);
}

/// A float: an integer's digits when it holds one (up to 2^53), else its shortest text
/// that reads back the same; `null` for NaN and the infinities (JSON has none).
pub fn write_float(value: f64, out: &mut Vec<u8>) {
    match float_json(value) {
        Json::Number(n) => out.extend_from_slice(n.to_string().as_bytes()),
        _ => out.extend_from_slice(b"null"),
    }
}

/// A float as a JSON value, by [`write_float`]'s rule.
pub fn float_json(value: f64) -> Json {
    if value.is_finite() && value.fract() == 0.0 && value.abs() <= EXACT {
        #[allow(clippy::cast_possible_truncation)] // integral and within 2^53: exact
        return Json::Number((value as i64).into());
    }
    serde_json::Number::from_f64(value).map_or(Json::Null, Json::Number)
}

/// A time (seconds since the epoch and nanoseconds past them) as RFC 3339 in UTC, quoted.
pub fn write_time(seconds: i64, nanos: u32, out: &mut Vec<u8>) {
    out.push(b'"');
    out.extend_from_slice(time_text(seconds, nanos).as_bytes());
    out.push(b'"');
}

/// A time's RFC 3339 text in UTC: `2024-06-01T00:00:00Z`, `2024-06-01T00:00:00.5Z`.
pub fn time_text(seconds: i64, nanos: u32) -> String {
    let text = escpush_filter::format_time(seconds);
    if nanos == 0 {
        return text;
    }
    let frac = format!("{nanos:09}");
    let frac = frac.trim_end_matches('0');
    text.strip_suffix('Z').map_or(text.clone(), |t| format!("{t}.{frac}Z"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl Fn(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        f(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_float_that_holds_an_integer_is_written_as_one() {
        assert_eq!(text(|o| write_float(1_747_839_600.0, o)), "1747839600");
        assert_eq!(text(|o| write_float(-0.0, o)), "0");
        assert_eq!(text(|o| write_float(1.5, o)), "1.5");
        assert_eq!(text(|o| write_float(0.1, o)), "0.1");
        // Past 2^53 an integral float is no exact integer: its shortest float text.
        assert_eq!(text(|o| write_float(1e20, o)), "1e+20");
        assert_eq!(text(|o| write_float(f64::NAN, o)), "null");
        assert_eq!(text(|o| write_float(f64::INFINITY, o)), "null");
    }

    #[test]
    fn times_are_rfc3339_in_utc_with_the_fraction_they_need() {
        assert_eq!(text(|o| write_time(1_717_200_000, 0, o)), "\"2024-06-01T00:00:00Z\"");
        assert_eq!(
            text(|o| write_time(1_717_200_000, 500_000_000, o)),
            "\"2024-06-01T00:00:00.5Z\""
        );
        assert_eq!(text(|o| write_time(0, 1, o)), "\"1970-01-01T00:00:00.000000001Z\"");
    }

    #[test]
    fn strings_are_escaped_as_json_requires() {
        assert_eq!(
            text(|o| write_string("a\"b\\c\n\u{1}é", o)),
            "\"a\\\"b\\\\c\\n\\u0001é\""
        );
    }
}
