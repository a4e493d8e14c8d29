//! The formatter against every example of log-output-options.mdx, byte for byte, and
//! properties on generated records.
//!
//! Source of every example: cloudflare/cloudflare-docs,
//! `src/content/docs/logs/logpush/logpush-job/log-output-options.mdx` at commit
//! 20a026aeb4abfa43b22cc96fbc39faa8ad83c75f (section named on each test). The docs give each
//! example's output, not its input: the input here is three http_requests lines holding the
//! values the outputs show, with other fields around them in another order, as a job reads
//! them.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::*;
use crate::error::Error;
use crate::logpush::{JobSpec, LogpullOptions};
use escpush_filter::{field, Dataset, DatasetScope};

fn http() -> &'static Dataset {
    Dataset::get("http_requests", Some(DatasetScope::Zone)).unwrap()
}

const LINES: [&str; 3] = [
    r#"{"EdgeResponseStatus":200,"RayID":"3a6050bcbe121a87","EdgeStartTimestamp":1506702504433000200,"ClientIP":"89.163.242.206"}"#,
    r#"{"ClientIP":"89.163.242.207","EdgeResponseStatus":404,"EdgeStartTimestamp":"2017-09-29T16:28:24.4330003Z","RayID":"3a6050bcbe121a88"}"#,
    r#"{"RayID":"3a6050bcbe121a89","EdgeStartTimestamp":1506702504433000400,"ClientIP":"89.163.242.208","ClientCountry":"de"}"#,
];

/// The bytes one batch of [`LINES`] delivers under `options`.
fn deliver(options: &Value) -> String {
    let format = OutputFormat::from_output_options(options, http()).unwrap();
    let out = Formatter::new(&format)
        .deliver(LINES.iter().map(|l| l.as_bytes()))
        .unwrap();
    String::from_utf8(out).unwrap()
}

fn message(err: Error) -> String {
    match err {
        Error::Invalid { problems } => problems
            .iter()
            .map(|p| format!("{}: {}", p.path, p.message))
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    }
}

/// Section "ndjson", "Example output_options" and "Example output".
#[test]
fn docs_ndjson() {
    let options = json!({"field_names": ["ClientIP", "EdgeStartTimestamp", "RayID"], "output_type": "ndjson"});
    assert_eq!(
        deliver(&options),
        r#"{"ClientIP":"89.163.242.206","EdgeStartTimestamp":1506702504433000200,"RayID":"3a6050bcbe121a87"}
{"ClientIP":"89.163.242.207","EdgeStartTimestamp":1506702504433000300,"RayID":"3a6050bcbe121a88"}
{"ClientIP":"89.163.242.208","EdgeStartTimestamp":1506702504433000400,"RayID":"3a6050bcbe121a89"}
"#
    );
    // "Default output_options for `ndjson`": the same bytes when given explicitly.
    let mut explicit = options.clone();
    explicit.as_object_mut().unwrap().extend(
        json!({"record_prefix": "{", "record_suffix": "}\n", "field_delimiter": ","})
            .as_object()
            .unwrap()
            .clone(),
    );
    assert_eq!(deliver(&explicit), deliver(&options));
    // No output_type: ndjson ("default `ndjson`").
    let untyped = json!({"field_names": ["ClientIP", "EdgeStartTimestamp", "RayID"]});
    assert_eq!(deliver(&untyped), deliver(&options));
}

/// Section "ndjson", "`ndjson` with different field names".
#[test]
fn docs_ndjson_with_a_record_template() {
    let options = json!({
        "field_names": ["ClientIP", "EdgeStartTimestamp", "RayID"],
        "output_type": "ndjson",
        "record_template": "\"client-ip\":{{.ClientIP}},\"timestamp\":{{.EdgeStartTimestamp}},\"ray-id\":{{.RayID}}"
    });
    assert_eq!(
        deliver(&options),
        r#"{"client-ip":"89.163.242.206","timestamp":1506702504433000200,"ray-id":"3a6050bcbe121a87"}
{"client-ip":"89.163.242.207","timestamp":1506702504433000300,"ray-id":"3a6050bcbe121a88"}
{"client-ip":"89.163.242.208","timestamp":1506702504433000400,"ray-id":"3a6050bcbe121a89"}
"#
    );
}

/// The same section: "Literal with double curly-braces ... `\"{{`doublecurlybraces`}}\"`".
/// The page's own sentence is loose (`"double{{curly}}braces"` as the literal, and a
/// constant without the inner braces as the example); Go's rule, which it cites, writes the
/// raw constant's text as it is.
#[test]
fn docs_literal_double_braces() {
    let options = json!({"field_names": ["RayID"], "record_template": "\"{{`double{{curly}}braces`}}\":{{.RayID}}"});
    assert!(deliver(&options).starts_with("{\"double{{curly}}braces\":\"3a6050bcbe121a87\"}\n"));
    let options = json!({"field_names": ["RayID"], "record_template": "\"{{`doublecurlybraces`}}\""});
    assert!(deliver(&options).starts_with("{\"doublecurlybraces\"}\n"));
}

/// Section "csv", "Example output" (the page's block ends with an empty line after the last
/// record: the block's own, after the last record's `\n`).
#[test]
fn docs_csv() {
    let options = json!({"field_names": ["ClientIP", "EdgeStartTimestamp", "RayID"], "output_type": "csv"});
    assert_eq!(
        deliver(&options),
        r#""89.163.242.206",1506702504433000200,"3a6050bcbe121a87"
"89.163.242.207",1506702504433000300,"3a6050bcbe121a88"
"89.163.242.208",1506702504433000400,"3a6050bcbe121a89"
"#
    );
    // "Default output_options for CSV".
    let mut explicit = options.clone();
    explicit.as_object_mut().unwrap().extend(
        json!({"record_suffix": "\n", "field_delimiter": ","})
            .as_object()
            .unwrap()
            .clone(),
    );
    assert_eq!(deliver(&explicit), deliver(&options));
}

/// Section "csv/json variants", "csv with header".
#[test]
fn docs_csv_with_header() {
    let options = json!({
        "field_names": ["ClientIP", "EdgeStartTimestamp", "RayID"],
        "output_type": "csv",
        "batch_prefix": "ClientIP,EdgeStartTimestamp,RayID\n"
    });
    assert_eq!(
        deliver(&options),
        r#"ClientIP,EdgeStartTimestamp,RayID
"89.163.242.206",1506702504433000200,"3a6050bcbe121a87"
"89.163.242.207",1506702504433000300,"3a6050bcbe121a88"
"89.163.242.208",1506702504433000400,"3a6050bcbe121a89"
"#
    );
}

/// Section "csv/json variants", "tsv with header". The page renders its tabs as runs of
/// spaces ("ClientIP EdgeStartTimestamp  RayID"); its text is copied as it is and each run
/// of spaces read as the tab the options set.
#[test]
fn docs_tsv_with_header() {
    let options = json!({
        "field_names": ["ClientIP", "EdgeStartTimestamp", "RayID"],
        "output_type": "csv",
        "batch_prefix": "ClientIP\tEdgeStartTimestamp\tRayID\n",
        "field_delimiter": "\t"
    });
    let page = r#"ClientIP EdgeStartTimestamp  RayID
"89.163.242.206"    1506702504433000200 "3a6050bcbe121a87"
"89.163.242.207"    1506702504433000300 "3a6050bcbe121a88"
"89.163.242.208"    1506702504433000400 "3a6050bcbe121a89"
"#;
    let want: String = page
        .lines()
        .map(|l| l.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>().join("\t") + "\n")
        .collect();
    assert_eq!(deliver(&options), want);
}

/// Section "csv/json variants", "json with nested object".
#[test]
fn docs_json_with_nested_object() {
    let options = json!({
        "field_names": ["ClientIP", "EdgeStartTimestamp", "RayID"],
        "output_type": "ndjson",
        "batch_prefix": "{\"events\":[",
        "batch_suffix": "\n]}\n",
        "record_prefix": "\n  {\"info\":{",
        "record_suffix": "}}",
        "record_delimiter": ","
    });
    assert_eq!(
        deliver(&options),
        r#"{"events":[
  {"info":{"ClientIP":"89.163.242.206","EdgeStartTimestamp":1506702504433000200,"RayID":"3a6050bcbe121a87"}},
  {"info":{"ClientIP":"89.163.242.207","EdgeStartTimestamp":1506702504433000300,"RayID":"3a6050bcbe121a88"}},
  {"info":{"ClientIP":"89.163.242.208","EdgeStartTimestamp":1506702504433000400,"RayID":"3a6050bcbe121a89"}}
]}
"#
    );
}

/// Sections "Replace logpull_options" and "How to migrate": the logpull_options and the
/// output_options the page pairs are the same settings.
#[test]
fn docs_logpull_options_migrate_to_output_options() {
    for (logpull, output) in [
        (
            "fields=ClientIP,EdgeStartTimestamp,RayID&sample=0.1&timestamps=rfc3339",
            json!({"field_names": ["ClientIP", "EdgeStartTimestamp", "RayID"], "sample_rate": 0.1, "timestamp_format": "rfc3339"}),
        ),
        (
            "fields=ClientIP,EdgeStartTimestamp,RayID&sample=0.1&timestamps=rfc3339&CVE-2021-44228=true",
            json!({"field_names": ["ClientIP", "EdgeStartTimestamp", "RayID"], "sample_rate": 0.1,
                   "timestamp_format": "rfc3339", "CVE-2021-44228": true}),
        ),
    ] {
        let from_logpull =
            OutputFormat::from_logpull_options(&LogpullOptions::parse(logpull).unwrap(), http()).unwrap();
        let from_output = OutputFormat::from_output_options(&output, http()).unwrap();
        assert_eq!(from_logpull, from_output, "{logpull}");
        assert_eq!(from_output.sample_rate().to_string(), "0.1");
        assert_eq!(from_output.timestamp_format(), TimestampFormat::Rfc3339);
    }
}

/// The list of settings: `timestamp_format` "Default `unixnano`", `rfc3339` in seconds; the
/// newer `rfc3339ms` and `rfc3339ns` (changelog 2026-03-25).
#[test]
fn docs_timestamp_formats() {
    let with = |format: &str| {
        deliver(&json!({"field_names": ["EdgeStartTimestamp"], "output_type": "csv", "timestamp_format": format}))
    };
    assert_eq!(
        with("unixnano"),
        "1506702504433000200\n1506702504433000300\n1506702504433000400\n"
    );
    assert_eq!(with("unix"), "1506702504\n1506702504\n1506702504\n");
    assert_eq!(with("rfc3339"), "\"2017-09-29T16:28:24Z\"\n".repeat(3));
    assert_eq!(with("rfc3339ms"), "\"2017-09-29T16:28:24.433Z\"\n".repeat(3));
    assert_eq!(
        with("rfc3339ns"),
        "\"2017-09-29T16:28:24.433000200Z\"\n\"2017-09-29T16:28:24.433000300Z\"\n\"2017-09-29T16:28:24.433000400Z\"\n"
    );
}

/// The list of settings: "CVE-2021-44228 ... all occurrences of `${` in the generated files
/// to be replaced with `x{`", across the joins of what is written.
#[test]
fn docs_cve_2021_44228() {
    let line = br#"{"ClientRequestUserAgent":"${jndi:ldap://x}$","ClientRequestPath":"{a}"}"#;
    let options = json!({"field_names": ["ClientRequestUserAgent", "ClientRequestPath"], "output_type": "csv",
                         "field_delimiter": "$", "record_prefix": "${", "CVE-2021-44228": true});
    let format = OutputFormat::from_output_options(&options, http()).unwrap();
    let out = Formatter::new(&format).deliver([&line[..]]).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "x{\"x{jndi:ldap://x}$\"$\"{a}\"\n");
    let off = OutputFormat::from_output_options(&json!({"field_names": ["ClientRequestUserAgent"]}), http()).unwrap();
    let out = Formatter::new(&off).deliver([&line[..]]).unwrap();
    assert_eq!(
        out,
        br#"{"ClientRequestUserAgent":"${jndi:ldap://x}$"}"#.iter().chain(b"\n").copied().collect::<Vec<_>>()
    );
}

/// The list of settings: a template field not in `field_names` "will end up as `null`".
#[test]
fn docs_template_field_not_in_field_names_is_null() {
    let options =
        json!({"field_names": ["RayID"], "output_type": "csv", "record_template": "{{.RayID}} {{.ClientIP}}"});
    assert_eq!(deliver(&options).lines().next(), Some("\"3a6050bcbe121a87\" null"));
}

#[test]
fn the_filter_and_sampling_decide_which_lines_are_records() {
    let options = json!({"field_names": ["RayID"], "output_type": "csv", "record_delimiter": "|", "batch_prefix": "["});
    let format = OutputFormat::from_output_options(&options, http()).unwrap();
    let mut f = Formatter::with_filter(&format, &field("ClientIP").ne("89.163.242.207"));
    assert_eq!(
        f.deliver(LINES.iter().map(|l| l.as_bytes())).unwrap(),
        b"[\"3a6050bcbe121a87\"\n|\"3a6050bcbe121a89\"\n"
    );
    // No record: no batch.
    assert_eq!(f.deliver([LINES[1].as_bytes()]).unwrap(), b"");
    assert!(f.deliver([&b"{\"RayID\":"[..]]).is_err());
    // What became of each line.
    let sampled =
        OutputFormat::from_output_options(&json!({"field_names": ["RayID"], "sample_rate": 0.5}), http()).unwrap();
    let mut f = Formatter::with_filter(&sampled, &field("ClientIP").ne("89.163.242.207"));
    let (mut batch, mut out) = (f.batch(), Vec::new());
    let outcomes: Vec<Delivery> = (0..40)
        .map(|i| {
            let line = format!("{{\"RayID\":\"{i}\",\"ClientIP\":\"89.163.242.20{}\"}}", 6 + i % 2);
            f.add(&mut batch, line.as_bytes(), &mut out).unwrap()
        })
        .collect();
    let count = |o| outcomes.iter().filter(|&&x| x == o).count();
    assert_eq!(count(Delivery::Filtered), 20);
    assert!(count(Delivery::Delivered) > 0 && count(Delivery::SampledOut) > 0);
    assert_eq!(batch.records(), count(Delivery::Delivered) as u64);
    // Sampling: deterministic for a seed, near its rate over many lines.
    let half =
        OutputFormat::from_output_options(&json!({"field_names": ["RayID"], "sample_rate": 0.25}), http()).unwrap();
    let lines: Vec<String> = (0..20_000).map(|i| format!("{{\"RayID\":\"{i:x}\"}}")).collect();
    let kept = |seed| {
        let f = Formatter::new(&half).with_seed(seed);
        lines.iter().filter(|l| f.sampled(l.as_bytes())).count()
    };
    assert_eq!(kept(7), kept(7));
    assert!((4_500..5_500).contains(&kept(7)), "{}", kept(7));
    assert_ne!(kept(7), kept(8));
    let all = OutputFormat::from_output_options(&json!({"field_names": ["RayID"], "sample_rate": 1}), http()).unwrap();
    assert!(lines.iter().all(|l| Formatter::new(&all).sampled(l.as_bytes())));
}

#[test]
fn refusals_name_the_option() {
    for (options, path, words) in [
        (
            json!({"field_names": ["RayID"], "output_type": "xml"}),
            "output_options.output_type",
            "\"xml\"",
        ),
        (
            json!({"field_names": ["RayID"], "sample_rate": 0}),
            "output_options.sample_rate",
            "above 0",
        ),
        (
            json!({"field_names": ["RayID"], "sample_rate": 1.5}),
            "output_options.sample_rate",
            "at most 1",
        ),
        (
            json!({"field_names": ["RayID"], "record_template": "{{ if .RayID }}x{{ end }}"}),
            "output_options.record_template",
            "`{{ if .RayID }}` at character 1",
        ),
        (
            json!({"field_names": ["RayID"], "timestamp_format": "iso"}),
            "output_options.timestamp_format",
            "\"iso\"",
        ),
        (json!({"output_type": "csv"}), "output_options.field_names", "not given"),
        (json!({"field_names": ["RayId"]}), "output_options.field_names", "RayID"),
        (
            json!({"field_names": ["RayID"], "recordprefix": "x"}),
            "output_options.recordprefix",
            "record_prefix",
        ),
    ] {
        let err = message(OutputFormat::from_output_options(&options, http()).unwrap_err());
        assert!(err.contains(path) && err.contains(words), "{options}: {err}");
    }
    let logpull = LogpullOptions::parse("fields=RayID&sample=2").unwrap();
    let err = message(OutputFormat::from_logpull_options(&logpull, http()).unwrap_err());
    assert!(
        err.contains("logpull_options.sample") && err.contains("at most 1"),
        "{err}"
    );
}

/// A creation with a template the API would refuse is refused, at the template's path.
#[test]
fn a_job_with_a_template_outside_the_subset_is_refused_at_creation() {
    let body = |template: &str| {
        json!({"dataset": "http_requests", "destination_conf": "r2://b/p?account-id=a&access-key-id=k&secret-access-key=s",
               "output_options": {"field_names": ["RayID"], "record_template": template}})
    };
    let err = message(JobSpec::from_body(&body("{{ .RayID | printf }}"), DatasetScope::Zone).unwrap_err());
    assert!(
        err.contains("output_options.record_template: ") && err.contains("`{{ .RayID | printf }}` at character 1"),
        "{err}"
    );
    // An update is judged as a creation of the job it makes: the same refusal.
    let stored = body("{{ .RayID }}");
    let update = json!({"output_options": {"field_names": ["RayID"], "record_template": "{{ range .RayID }}"}});
    let err = crate::logpush::check_update(
        stored.as_object().unwrap(),
        update.as_object().unwrap(),
        DatasetScope::Zone,
    );
    let err = message(err.unwrap_err());
    assert!(
        err.contains("output_options.record_template: ") && err.contains("`{{ range .RayID }}`"),
        "{err}"
    );
    let spec = JobSpec::from_body(&body("{{ .RayID }}"), DatasetScope::Zone).unwrap();
    let format = spec.output_format().unwrap();
    assert_eq!(format.field_names(), ["RayID"]);
    assert_eq!(
        Formatter::new(&format).deliver([LINES[0].as_bytes()]).unwrap(),
        b"{\"3a6050bcbe121a87\"}\n"
    );
}

// ---- properties ------------------------------------------------------------------------

const FIELDS: [&str; 6] = [
    "ClientRequestUserAgent",
    "EdgeResponseStatus",
    "ClientRequestBytes",
    "EdgeStartTimestamp",
    "Cookies",
    "ClientIP",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[\"\\\\,\\n\\t\\u{0}-\\u{1f}a-zé€😀 ]{0,12}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\"]{0,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A time: seconds from March 1973 to 2500, nanoseconds, written as unixnano or as RFC 3339
/// text. (A line does not say which format wrote it: an integer is read by its size, and
/// nanoseconds before 10^17, March 1973, read as another unit: escpush-filter's `time.rs`.)
fn time() -> impl Strategy<Value = (i64, u32, Value)> {
    (100_000_000i64..16_725_225_600, 0u32..1_000_000_000, any::<bool>()).prop_map(|(s, n, as_text)| {
        let written = if as_text {
            Value::from(format!(
                "{}.{n:09}Z",
                escpush_filter::format_time(s).trim_end_matches('Z')
            ))
        } else {
            Value::from(u64::try_from(s).unwrap() * 1_000_000_000 + u64::from(n))
        };
        (s, n, written)
    })
}

fn converted(seconds: i64, nanos: u32, format: TimestampFormat) -> Value {
    let text = escpush_filter::format_time(seconds);
    let whole = text.trim_end_matches('Z');
    match format {
        TimestampFormat::UnixNano => Value::from(u64::try_from(seconds).unwrap() * 1_000_000_000 + u64::from(nanos)),
        TimestampFormat::Unix => Value::from(seconds),
        TimestampFormat::Rfc3339 => Value::from(text.clone()),
        TimestampFormat::Rfc3339Ms => Value::from(format!("{whole}.{:03}Z", nanos / 1_000_000)),
        _ => Value::from(format!("{whole}.{nanos:09}Z")),
    }
}

fn record() -> impl Strategy<Value = (Map<String, Value>, Option<(i64, u32)>)> {
    (
        prop::collection::vec(prop::option::of(value()), FIELDS.len()),
        prop::option::of(time()),
        prop::collection::btree_map("[A-Z][a-z]{1,6}", scalar(), 0..3),
    )
        .prop_map(|(values, time, others)| {
            let mut line: Map<String, Value> = others.into_iter().collect();
            for (name, v) in FIELDS.iter().zip(values) {
                if let Some(v) = v {
                    line.insert((*name).to_owned(), v);
                }
            }
            line.remove("EdgeStartTimestamp");
            let at = time.map(|(s, n, written)| {
                line.insert("EdgeStartTimestamp".into(), written);
                (s, n)
            });
            (line, at)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// An ndjson record, read back by serde_json, is the line projected to `field_names`
    /// (missing as null, the timestamp converted).
    #[test]
    fn ndjson_reads_back_as_the_projected_line(
        (line, at) in record(),
        picks in prop::sample::subsequence(FIELDS.to_vec(), 1..=FIELDS.len()),
        format in prop::sample::select(TimestampFormat::ALL.to_vec()),
    ) {
        let options = json!({"field_names": picks, "timestamp_format": format.name()});
        let f = OutputFormat::from_output_options(&options, http()).unwrap();
        let text = serde_json::to_string(&line).unwrap();
        let out = Formatter::new(&f).deliver([text.as_bytes()]).unwrap();
        prop_assert_eq!(out.last(), Some(&b'\n'));
        let back: Map<String, Value> = serde_json::from_slice(&out).unwrap();
        // The line as serde_json reads its text (a float read back from the same text).
        let line: Map<String, Value> = serde_json::from_str(&text).unwrap();
        let mut want = Map::new();
        for name in &picks {
            let v = match (*name, at) {
                ("EdgeStartTimestamp", Some((s, n))) => converted(s, n, format),
                _ => line.get(*name).cloned().unwrap_or(Value::Null),
            };
            want.insert((*name).to_owned(), v);
        }
        prop_assert_eq!(back, want);
    }

    /// A csv record read back by RFC 4180's rule gives back each value, whatever quotes,
    /// delimiters and line breaks its strings hold: a string as its text, anything else
    /// (bare, or an object or array in quotes) as its JSON.
    #[test]
    fn csv_reads_back(
        values in prop::collection::vec(prop_oneof![
            "[\",;|\t\n\ra-zé ]{0,8}".prop_map(Value::String),
            value(),
        ], 1..5),
        delimiter in "[,;\t|]",
    ) {
        let names = &["ClientIP", "ClientRequestHost", "ClientRequestPath", "ClientRequestUserAgent", "RayID"][..values.len()];
        let line: Map<String, Value> = names.iter().zip(&values).map(|(n, v)| ((*n).to_owned(), v.clone())).collect();
        let text = serde_json::to_string(&line).unwrap();
        // The values as serde_json reads the line's text (a float read back from the same text).
        let line: Map<String, Value> = serde_json::from_str(&text).unwrap();
        let options = json!({"field_names": names, "output_type": "csv", "field_delimiter": delimiter});
        let f = OutputFormat::from_output_options(&options, http()).unwrap();
        let out = Formatter::new(&f).deliver([text.as_bytes()]).unwrap();
        let out = String::from_utf8(out).unwrap();
        let fields = read_csv_record(out.strip_suffix('\n').unwrap(), delimiter.chars().next().unwrap());
        prop_assert_eq!(fields.len(), names.len());
        for (name, (field, quoted)) in names.iter().zip(fields) {
            let want = &line[*name];
            match want {
                Value::String(s) => prop_assert_eq!((&field, quoted), (s, true)),
                Value::Array(_) | Value::Object(_) => {
                    prop_assert!(quoted);
                    prop_assert_eq!(&serde_json::from_str::<Value>(&field).unwrap(), want);
                }
                _ => {
                    prop_assert!(!quoted);
                    prop_assert_eq!(&serde_json::from_str::<Value>(&field).unwrap(), want);
                }
            }
        }
    }
}

/// One record of RFC 4180 text: each field's text, and whether it was quoted.
fn read_csv_record(text: &str, delimiter: char) -> Vec<(String, bool)> {
    let mut fields = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        let mut field = String::new();
        let quoted = chars.peek() == Some(&'"');
        if quoted {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => field.push(c),
                    None => panic!("unterminated: {text:?}"),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == delimiter {
                    break;
                }
                field.push(c);
                chars.next();
            }
        }
        fields.push((field, quoted));
        match chars.next() {
            None => return fields,
            Some(c) => assert_eq!(c, delimiter, "{text:?}"),
        }
    }
}

/// A time field's conversion is kept for the next line with the same text: each record of a
/// run of lines equals the record a fresh formatter writes for that line alone, whether its
/// time repeats the line before's text, changes, or holds the same digits as a string and as
/// an integer.
#[test]
fn a_repeated_time_text_converts_as_a_fresh_one() {
    let lines = [
        r#"{"EdgeStartTimestamp":"2024-05-14T00:00:00Z","EdgeEndTimestamp":"2024-05-14T00:00:01Z"}"#,
        r#"{"EdgeStartTimestamp":"2024-05-14T00:00:00Z","EdgeEndTimestamp":"2024-05-14T00:00:01Z"}"#,
        r#"{"EdgeStartTimestamp":"2024-05-14T00:00:02Z","EdgeEndTimestamp":"2024-05-14T00:00:00Z"}"#,
        r#"{"EdgeStartTimestamp":1715644802,"EdgeEndTimestamp":"1715644802"}"#,
        r#"{"EdgeStartTimestamp":"1715644802","EdgeEndTimestamp":1715644802}"#,
        r#"{"EdgeStartTimestamp":null,"EdgeEndTimestamp":"not a time"}"#,
        r#"{"EdgeStartTimestamp":"2024-05-14T00:00:00Z"}"#,
    ];
    for timestamp_format in ["unixnano", "unix", "rfc3339"] {
        let options =
            json!({"field_names": ["EdgeStartTimestamp", "EdgeEndTimestamp"], "timestamp_format": timestamp_format});
        let format = OutputFormat::from_output_options(&options, http()).unwrap();
        let mut reused = Formatter::new(&format);
        for line in lines {
            let mut out = Vec::new();
            assert_eq!(reused.add_record(line.as_bytes(), &mut out), Ok(Delivery::Delivered));
            let mut alone = Vec::new();
            let _ = Formatter::new(&format).add_record(line.as_bytes(), &mut alone);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                String::from_utf8(alone).unwrap(),
                "{timestamp_format}: {line}"
            );
        }
    }
}
