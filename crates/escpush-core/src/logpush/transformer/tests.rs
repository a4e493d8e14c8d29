//! The docs' two worked examples (transformers.mdx, Examples), input and delivered record
//! copied as written, and the contract's refusals.

use escpush_filter::{Json, ProblemCode};

use super::{check, preview, MAX_CODE_BYTES};

const AUDIT_INPUT: &str = r#"{
  "ActionType": "update",
  "ActorEmail": "user@example.com",
  "ActorID": "a1b2c3d4",
  "ActorIPAddress": "203.0.113.42",
  "ActorType": "user",
  "ActionTimestamp": "2026-05-21T15:00:00Z",
  "AccountID": "90796717",
  "ResourceID": "r1s2t3u4",
  "ResourceType": "zone",
  "ActorContext": "dashboard"
}"#;

pub(crate) const AUDIT_SQL: &str = "SELECT
  extract(epoch FROM to_timestamp(ActionTimestamp)) AS unix_ts,
  UPPER(ActionType) AS action_type,
  'Cloudflare' AS provider,
  named_struct(
    'type', ActorType,
    'email', ActorEmail,
    'ip', ActorIPAddress
  ) AS actor,
  ResourceType = 'zone' AS is_zone,
  [ResourceType, ResourceID] AS resource_meta
FROM audit_logs_v2
WHERE ActionType = 'update'";

const AUDIT_OUTPUT: &str = r#"{
  "action_type": "UPDATE",
  "actor": {
    "email": "user@example.com",
    "ip": "203.0.113.42",
    "type": "user"
  },
  "is_zone": true,
  "provider": "Cloudflare",
  "resource_meta": ["zone", "r1s2t3u4"],
  "unix_ts": 1779375600
}"#;

const HTTP_INPUT: &str = r#"{
  "ClientIP": "203.0.113.42",
  "ClientRequestHost": "example.com",
  "ClientRequestMethod": "POST",
  "ClientRequestPath": "/api/checkout",
  "ClientRequestUserAgent": "curl/7.85.0",
  "EdgeResponseStatus": 502,
  "EdgeStartTimestamp": "2026-05-21T15:00:00Z",
  "RayID": "8e2a1c60ef9e1c9a",
  "OriginResponseTime": 3200000000,
  "WAFAction": "unknown"
}"#;

pub(crate) const HTTP_SQL: &str = "SELECT
  extract(epoch FROM to_timestamp(EdgeStartTimestamp)) AS unix_ts,
  UPPER(ClientRequestMethod) AS method,
  'Cloudflare' AS provider,
  named_struct(
    'host', ClientRequestHost,
    'path', ClientRequestPath,
    'method', ClientRequestMethod
  ) AS request,
  EdgeResponseStatus >= 500 AS is_server_error,
  [ClientRequestHost, ClientRequestPath] AS request_meta
FROM http_requests
WHERE ClientRequestHost NOT IN ('internal.example.com', 'health.example.com')
  AND ClientRequestPath NOT LIKE '/healthz%'
  AND ClientRequestPath NOT LIKE '/metrics%'";

const HTTP_OUTPUT: &str = r#"{
  "is_server_error": true,
  "method": "POST",
  "provider": "Cloudflare",
  "request": {
    "host": "example.com",
    "method": "POST",
    "path": "/api/checkout"
  },
  "request_meta": ["example.com", "/api/checkout"],
  "unix_ts": 1779375600
}"#;

fn json(text: &str) -> Json {
    Json::parse(text).unwrap()
}

#[test]
fn the_docs_audit_logs_example_reproduces_exactly() {
    assert_eq!(check(AUDIT_SQL).unwrap().dataset(), "audit_logs_v2");
    assert_eq!(
        preview(AUDIT_SQL, &json(AUDIT_INPUT)).unwrap(),
        vec![json(AUDIT_OUTPUT)]
    );
}

#[test]
fn the_docs_http_requests_example_reproduces_exactly() {
    assert_eq!(check(HTTP_SQL).unwrap().dataset(), "http_requests");
    assert_eq!(preview(HTTP_SQL, &json(HTTP_INPUT)).unwrap(), vec![json(HTTP_OUTPUT)]);
    // Its `WHERE` drops a health check.
    let health = HTTP_INPUT.replace("/api/checkout", "/healthz/live");
    assert_eq!(preview(HTTP_SQL, &json(&health)).unwrap(), Vec::<Json>::new());
    let internal = HTTP_INPUT.replace("\"example.com\"", "\"internal.example.com\"");
    assert_eq!(preview(HTTP_SQL, &json(&internal)).unwrap(), Vec::<Json>::new());
}

fn problem(sql: &str) -> (String, ProblemCode, String) {
    let problems = check(sql).unwrap_err().problems;
    let p = &problems[0];
    (p.path.clone(), p.code, p.message.clone())
}

#[test]
fn every_documented_refusal_is_refused_with_its_rule_and_place() {
    let cases: &[(&str, ProblemCode, &str, &str)] = &[
        (
            "SELECT ClientIP FROM http_requests JOIN firewall_events ON true",
            ProblemCode::Unsupported,
            "no_joins",
            "line 1, column 41",
        ),
        (
            "SELECT ClientIP FROM http_requests WHERE ClientIP IN (SELECT ClientIP FROM http_requests)",
            ProblemCode::Unsupported,
            "no_subqueries",
            "line 1, column 42",
        ),
        (
            "SELECT COUNT(*) FROM http_requests",
            ProblemCode::Unsupported,
            "no_aggregation",
            "line 1, column 8",
        ),
        (
            "SELECT ClientIP FROM http_requests GROUP BY ClientIP",
            ProblemCode::Unsupported,
            "no_aggregation",
            "line 1, column 45",
        ),
        (
            "SELECT row_number() OVER () FROM http_requests",
            ProblemCode::Unsupported,
            "no_windows",
            "line 1, column 8",
        ),
        (
            "SELECT ClientIP FROM http_requests\nORDER BY ClientIP",
            ProblemCode::Unsupported,
            "no_order_by",
            "line 2, column 10",
        ),
        (
            "SELECT ClientIP FROM http_requests; SELECT RayID FROM http_requests",
            ProblemCode::Unsupported,
            "one_statement",
            "line 1, column 37",
        ),
        (
            "SELECT ClientIP FROM http_request",
            ProblemCode::UnknownDataset,
            "from_dataset",
            "line 1, column 22",
        ),
        (
            "SELECT\n  ClientIp FROM http_requests",
            ProblemCode::UnknownField,
            "known_fields",
            "line 2, column 3",
        ),
        (
            "SELECT ClientIP FROM http_requests WHERE ClientIP > 5",
            ProblemCode::ValueTypeMismatch,
            "types",
            "line 1, column 42",
        ),
        (
            "SELECT UPPER(EdgeResponseStatus) FROM http_requests",
            ProblemCode::ValueTypeMismatch,
            "types",
            "line 1, column 14",
        ),
        (
            "SELECT ClientIP FROM http_requests WHERE",
            ProblemCode::InvalidSyntax,
            "syntax",
            "line 1, column 41",
        ),
        (
            "DELETE FROM http_requests",
            ProblemCode::Unsupported,
            "one_select",
            "line 1, column 1",
        ),
    ];
    let mut wrong = Vec::new();
    for (sql, code, rule, place) in cases {
        let (path, got, message) = problem(sql);
        if (got, path.as_str()) != (*code, *place)
            || !message.contains(&format!("rule `{rule}`"))
            || !message.contains("transformers.mdx")
        {
            wrong.push(format!("{sql}\n  {path} {got}: {message}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let (_, _, message) = problem("SELECT\n  ClientIp FROM http_requests");
    assert!(message.contains("did you mean `ClientIP`?"), "{message}");
}

#[test]
fn sql_past_ten_kilobytes_is_refused_as_the_api_answers_413() {
    let long = format!(
        "SELECT ClientIP FROM http_requests WHERE ClientIP = '{}'",
        "x".repeat(MAX_CODE_BYTES)
    );
    let problems = check(&long).unwrap_err();
    assert_eq!(
        (problems.problems[0].code, problems.status()),
        (ProblemCode::TooLarge, 413)
    );
}

#[test]
fn ctes_unnest_and_json_access_run_on_one_record() {
    let sql = "WITH errors AS (SELECT ClientRequestHost AS host, RequestHeaders, EdgeResponseStatus FROM http_requests WHERE EdgeResponseStatus >= 500)
        SELECT host, RequestHeaders ->> 'host' AS h, RequestHeaders -> 'x' AS x FROM errors";
    let checked = check(sql).unwrap();
    let input =
        json(r#"{"ClientRequestHost":"a.example","EdgeResponseStatus":503,"RequestHeaders":{"host":"a","x":{"b":1}}}"#);
    assert_eq!(
        checked.run(&input).unwrap(),
        vec![json(r#"{"h":"a","host":"a.example","x":{"b":1}}"#)]
    );
    let unnest = check("SELECT RayID, unnest(SecurityActions) AS action FROM http_requests").unwrap();
    let input = json(r#"{"RayID":"r","SecurityActions":["block","log"]}"#);
    assert_eq!(
        unnest.run(&input).unwrap(),
        vec![
            json(r#"{"RayID":"r","action":"block"}"#),
            json(r#"{"RayID":"r","action":"log"}"#)
        ]
    );
    let star = check("SELECT * FROM http_requests WHERE ClientIP IS NOT NULL").unwrap();
    assert_eq!(
        star.run(&json(r#"{"ClientIP":"1","RayID":"r"}"#)).unwrap(),
        vec![json(r#"{"ClientIP":"1","RayID":"r"}"#)]
    );
    assert_eq!(star.run(&json(r#"{"RayID":"r"}"#)).unwrap(), Vec::<Json>::new());
}

#[test]
fn a_transformer_that_only_filters_is_read_back_as_a_job_filter_with_its_price_note() {
    let sql =
        "SELECT ClientIP, RayID FROM http_requests WHERE EdgeResponseStatus >= 500 AND ClientRequestPath LIKE '/api/%'";
    let form = check(sql).unwrap().as_job_filter().unwrap();
    assert_eq!(form.fields, Some(vec!["ClientIP".to_owned(), "RayID".to_owned()]));
    assert_eq!(
        form.filter.to_string(),
        r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":"500"},{"key":"ClientRequestPath","operator":"startsWith","value":"/api/"}]}}"#
    );
    assert!(form.note.contains("$0.04 per GB of input"), "{}", form.note);
    // The docs' http example reshapes: not a filter.
    assert!(check(HTTP_SQL).unwrap().as_job_filter().is_none());
    // A negative test is named in the note: SQL drops a record without the field.
    let not_in = check("SELECT * FROM http_requests WHERE ClientRequestHost NOT IN ('a', 'b')").unwrap();
    let form = not_in.as_job_filter().unwrap();
    assert_eq!(form.fields, None);
    assert!(form.note.contains("without `ClientRequestHost`"), "{}", form.note);
}

#[test]
fn what_to_transformer_prints_passes_the_check_and_reads_back_as_the_same_filter() {
    use escpush_filter::{field, Dataset, Filter};
    let http = Dataset::get("http_requests", None).unwrap();
    let filters: Vec<Filter> = vec![
        field("EdgeResponseStatus").ge(500),
        field("ClientRequestHost").eq("a.example") | field("ClientRequestPath").starts_with("/a_b%"),
        field("ClientRequestHost").is_in(["a", "b"]) & !field("ClientRequestPath").contains("x"),
        field("ClientRequestPath").ends_with("\\.php") & field("ClientRequestMethod").ne("GET"),
        field("EdgeResponseStatus").ge(i64::MIN),
        // `LIKE '%'`: any text.
        field("ClientRequestHost").starts_with("") & field("ClientRequestPath").contains(""),
    ];
    for filter in filters {
        let sql = filter.to_transformer(http, Some(&["ClientIP"])).unwrap();
        let checked = check(&sql).unwrap_or_else(|e| panic!("{sql}\n{e}"));
        let back = checked.as_job_filter().unwrap_or_else(|| panic!("{sql}"));
        assert!(back.filter.equivalent(&filter, Some(http)), "{sql}\n{}", back.filter);
        assert_eq!(back.fields, Some(vec!["ClientIP".to_owned()]));
    }
}

#[test]
fn the_prefilter_keeps_every_record_the_transformer_delivers_for() {
    // The docs' http example: its whole WHERE is a filter's.
    let pre = check(HTTP_SQL).unwrap().prefilter().unwrap();
    assert_eq!(pre.operator_count(), 3);
    // A conjunct no filter has is left to the engine; an OR with one has no prefilter.
    let sql = "SELECT RayID FROM http_requests WHERE EdgeResponseStatus >= 500 AND UPPER(ClientRequestMethod) = 'GET'";
    assert_eq!(check(sql).unwrap().prefilter().unwrap().operator_count(), 1);
    let sql = "SELECT RayID FROM http_requests WHERE EdgeResponseStatus >= 500 OR UPPER(ClientRequestMethod) = 'GET'";
    assert!(check(sql).unwrap().prefilter().is_none());
    for input in [HTTP_INPUT.to_owned(), HTTP_INPUT.replace("/api/checkout", "/metrics/x")] {
        let delivered = !preview(HTTP_SQL, &json(&input)).unwrap().is_empty();
        let record: serde_json::Value = serde_json::from_str(&input).unwrap();
        assert!(!delivered || pre.matches(&record));
    }
}

#[test]
fn a_local_run_reads_the_fields_the_sql_reads_and_no_more() {
    let read = |sql: &str| check(sql).unwrap().fields_read();
    // The docs' http example: five fields, in the dataset's order, each once.
    assert_eq!(
        read(HTTP_SQL).unwrap(),
        [
            "ClientRequestHost",
            "ClientRequestMethod",
            "ClientRequestPath",
            "EdgeResponseStatus",
            "EdgeStartTimestamp"
        ]
    );
    // Through a CTE: the stage that reads the dataset; CASE, COALESCE and the WHERE count.
    let cte =
        "WITH t AS (SELECT ClientIP AS ip, CASE WHEN EdgeResponseStatus > 499 THEN COALESCE(RayID, ZoneName) END AS c \
               FROM http_requests WHERE ClientCountry = 'fr') SELECT ip, c FROM t";
    assert_eq!(
        read(cte).unwrap(),
        ["ClientCountry", "ClientIP", "EdgeResponseStatus", "RayID", "ZoneName"]
    );
    // `*` reads every field a line has: no projection.
    assert_eq!(read("SELECT * FROM http_requests WHERE ClientIP = '1.2.3.4'"), None);
    assert!(check("SELECT * FROM http_requests").unwrap().input().is_none());
}

#[test]
fn a_local_runs_input_keeps_the_lines_values_as_written_times_included() {
    use crate::Delivery;
    let job = check(HTTP_SQL).unwrap().input().unwrap();
    assert!(job.filter.is_some(), "the prefilter runs in the same walk");
    let mut formatter = job.formatter();
    let mut out = Vec::new();
    let mut batch = formatter.batch();
    for line in [
        // A time as RFC 3339 text, one as unix nanoseconds: each as the line holds it (a job
        // would convert both to its timestamp_format).
        r#"{"EdgeStartTimestamp":"2024-06-01T00:00:00Z","ClientRequestHost":"a.example","ClientRequestPath":"/x","ClientRequestMethod":"get","EdgeResponseStatus":503,"RayID":"r1"}"#,
        r#"{"EdgeStartTimestamp":1717200000000000000,"ClientRequestHost":"b.example","ClientRequestPath":"/y\"q","ClientRequestMethod":"GET"}"#,
    ] {
        assert_eq!(
            formatter.add(&mut batch, line.as_bytes(), &mut out),
            Ok(Delivery::Delivered)
        );
    }
    // The prefilter drops what the WHERE drops.
    let health = r#"{"ClientRequestHost":"health.example.com","ClientRequestPath":"/"}"#;
    assert_eq!(
        formatter.add(&mut batch, health.as_bytes(), &mut out),
        Ok(Delivery::Filtered)
    );
    formatter.finish(batch, &mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        concat!(
            r#"{"ClientRequestHost":"a.example","ClientRequestMethod":"get","ClientRequestPath":"/x","EdgeResponseStatus":503,"EdgeStartTimestamp":"2024-06-01T00:00:00Z"}"#,
            "\n",
            r#"{"ClientRequestHost":"b.example","ClientRequestMethod":"GET","ClientRequestPath":"/y\"q","EdgeResponseStatus":null,"EdgeStartTimestamp":1717200000000000000}"#,
            "\n"
        )
    );
}

/// Runs `sql` on `line` with [`super::LineTransformer`]: its records, as written.
fn run_line(sql: &str, prefilter: bool, line: &str) -> Result<Option<(usize, String)>, super::LineError> {
    let mut run = check(sql).unwrap().lines(prefilter);
    let mut out = Vec::new();
    Ok(run
        .line(line.as_bytes(), &mut out)?
        .map(|n| (n, String::from_utf8(out).unwrap())))
}

#[test]
fn a_line_run_delivers_what_the_preview_delivers_written_as_ndjson() {
    // The docs' example: the same record as the preview's, members sorted, one line.
    let line = Json::parse(AUDIT_INPUT).unwrap();
    let compact = serde_json::Value::from(line.clone()).to_string();
    let (n, text) = run_line(AUDIT_SQL, true, &compact).unwrap().unwrap();
    assert_eq!(n, 1);
    assert!(text.ends_with("}\n") && text.matches('\n').count() == 1);
    let written = Json::parse(text.trim_end()).unwrap();
    assert_eq!(vec![written], preview(AUDIT_SQL, &line).unwrap());
    assert!(
        text.starts_with(r#"{"action_type":"UPDATE","actor":{"email":"#),
        "{text}"
    );
    assert!(text.contains(r#""unix_ts":1779375600"#), "{text}");
    // The prefilter drops what the WHERE drops before the query runs; without it the query
    // drops it: no record either way.
    let other = compact.replace("\"update\"", "\"delete\"");
    assert_eq!(run_line(AUDIT_SQL, true, &other).unwrap(), None);
    assert_eq!(run_line(AUDIT_SQL, false, &other).unwrap(), Some((0, String::new())));
}

#[test]
fn a_line_run_reads_whole_lines_for_star_and_several_records_for_unnest() {
    let star = "SELECT * FROM http_requests WHERE EdgeResponseStatus >= 500";
    let got = run_line(
        star,
        true,
        r#"{"z":1.0,"EdgeResponseStatus":502,"a":{"y":[1,2.5],"b":null}}"#,
    )
    .unwrap();
    assert_eq!(
        got,
        Some((
            1,
            "{\"EdgeResponseStatus\":502,\"a\":{\"b\":null,\"y\":[1,2.5]},\"z\":1}\n".into()
        ))
    );
    let unnest = "SELECT RayID, unnest(SecurityActions) AS action FROM http_requests";
    let got = run_line(unnest, true, r#"{"RayID":"r","SecurityActions":["log","block"]}"#).unwrap();
    assert_eq!(
        got,
        Some((
            2,
            "{\"RayID\":\"r\",\"action\":\"log\"}\n{\"RayID\":\"r\",\"action\":\"block\"}\n".into()
        ))
    );
    // Escapes in the line are read, and written again as JSON text.
    let got = run_line(
        "SELECT ClientRequestPath AS p FROM http_requests",
        true,
        r#"{"ClientRequestPath":"/a\"b\u00e9\t"}"#,
    );
    assert_eq!(got.unwrap(), Some((1, "{\"p\":\"/a\\\"bé\\t\"}\n".into())));
}

#[test]
fn a_line_run_names_a_malformed_line_and_a_line_the_query_fails_on() {
    let sql = "SELECT EdgeResponseStatus / ClientRequestBytes AS per FROM http_requests";
    assert!(matches!(
        run_line(sql, true, "{\"EdgeResponseStatus\":"),
        Err(super::LineError::Malformed(_))
    ));
    let failed = run_line(sql, true, r#"{"EdgeResponseStatus":200,"ClientRequestBytes":0}"#).unwrap_err();
    assert_eq!(failed, super::LineError::Failed("division by zero".into()));
    assert_eq!(
        failed.to_string(),
        "the transformer failed on this line: division by zero"
    );
}

#[test]
fn the_epoch_of_a_time_with_a_fraction_is_computed_as_datafusion_computes_it() {
    // DataFusion: the nanoseconds since the epoch as a float, over 10^9.
    let sql = "SELECT extract(epoch FROM to_timestamp(EdgeStartTimestamp)) AS e FROM http_requests";
    let got = run_line(sql, true, r#"{"EdgeStartTimestamp":"2026-05-21T15:00:02.002Z"}"#).unwrap();
    #[allow(clippy::cast_precision_loss)]
    let expected = 1_779_375_602_002_000_000_i64 as f64 / 1e9;
    assert_eq!(expected.to_string(), "1779375602.0019999");
    assert_eq!(got, Some((1, format!("{{\"e\":{expected}}}\n"))));
}

#[test]
fn trim_in_sqls_own_form_is_the_trim_function() {
    // `TRIM(x)` is a form of SQL's grammar, not a function call: it was refused as unsupported.
    let sql = "SELECT TRIM(ClientRequestHost) AS t, TRIM(BOTH ' ' FROM ClientRequestHost) AS b FROM http_requests";
    let got = run_line(sql, true, r#"{"ClientRequestHost":"  a b  "}"#).unwrap();
    assert_eq!(got, Some((1, "{\"b\":\"a b\",\"t\":\"a b\"}\n".into())));
    let refused = check("SELECT TRIM('x' FROM ClientRequestHost) AS t FROM http_requests").unwrap_err();
    assert_eq!(refused.problems[0].code, ProblemCode::Unsupported, "{refused}");
}

/// `LIKE`'s prefix test (`abc%`, no other wildcard or escape) answers as the general
/// matcher does, and a pattern with another wildcard or an escape still goes to it.
#[test]
fn like_patterns_match_by_sqls_rules() {
    let cases = [
        ("/healthz/live", "/healthz%", true),
        ("/health", "/healthz%", false),
        ("/healthz", "/healthz%", true),
        ("", "%", true),
        ("abc", "", false),
        ("", "", true),
        ("abc", "abc", true),
        ("abcd", "abc", false),
        ("a%c", "a\\%%", true),
        ("abc", "a\\%%", false),
        ("a_b", "a_%", true),
        ("ab", "a_%", true),
        ("a", "a_%", false),
        ("é/x", "é%", true),
        ("e/x", "é%", false),
        ("xyz", "%y%", true),
        ("path.php", "%.php", true),
    ];
    for (text, pattern, want) in cases {
        let sql = format!(
            "SELECT ClientRequestPath AS p FROM http_requests WHERE ClientRequestPath LIKE '{}'",
            pattern.replace('\'', "''")
        );
        let input = Json::Object(vec![("ClientRequestPath".to_owned(), Json::String(text.into()))]);
        let rows = preview(&sql, &input).unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(!rows.is_empty(), want, "{text:?} LIKE {pattern:?}");
    }
}

/// A local run's line writer (records written from the query's expressions where it can,
/// rows otherwise) delivers what the preview (rows made whole, then JSON) delivers, record
/// for record; a line the query fails on leaves nothing in the output.
#[test]
fn a_local_run_writes_what_the_preview_delivers() {
    let sqls = [
        HTTP_SQL,
        // Names out of order, nested structs and arrays, literals, a name given twice.
        "SELECT named_struct('z', ClientIP, 'a', named_struct('y', RayID, 'b', [EdgeResponseStatus, 1])) AS s, \
         'x' AS b, ClientIP AS a, RayID AS b FROM http_requests",
        // Computed values of every kind, one that can fail (direct), two (rows).
        "SELECT EdgeResponseStatus / 100 AS class, LOWER(ClientRequestHost) AS h, \
         CASE WHEN EdgeResponseStatus >= 500 THEN 'error' ELSE NULL END AS kind, \
         to_timestamp(EdgeStartTimestamp) AS at FROM http_requests",
        "SELECT EdgeResponseStatus / 100 AS class, 10 / EdgeResponseStatus AS inverse FROM http_requests",
        "SELECT ClientIP AS c, named_struct('q', 100 / EdgeResponseStatus, 'p', RayID) AS b, RayID AS a FROM http_requests",
        // `unnest`, a CTE, and `*`.
        "SELECT ClientIP AS ip, unnest([ClientRequestHost, ClientRequestPath]) AS part FROM http_requests",
        "WITH t AS (SELECT ClientIP AS ip, EdgeResponseStatus AS s FROM http_requests WHERE EdgeResponseStatus > 0) \
         SELECT s, ip FROM t WHERE s < 600",
        "SELECT * FROM http_requests WHERE EdgeResponseStatus >= 400",
    ];
    let lines = [
        r#"{"ClientIP":"10.0.0.1","RayID":"r1","EdgeResponseStatus":503,"ClientRequestHost":"A.example","ClientRequestPath":"/x\"y","EdgeStartTimestamp":"2024-06-01T00:00:00.5Z"}"#,
        r#"{"ClientIP":"10.0.0.2","EdgeResponseStatus":200,"ClientRequestHost":"b.example","ClientRequestPath":"/é\u0001","EdgeStartTimestamp":1717200000}"#,
        r#"{"ClientIP":"10.0.0.3","EdgeResponseStatus":0,"ClientRequestHost":null,"ClientRequestMethod":"get"}"#,
        r#"{"RayID":"r4"}"#,
    ];
    for sql in sqls {
        let checked = check(sql).unwrap_or_else(|e| panic!("{sql}\n{e}"));
        for prefilter in [false, true] {
            let mut run = checked.lines(prefilter);
            for line in lines {
                let mut out = b"before\n".to_vec();
                let expected = preview(sql, &Json::parse(line).unwrap());
                match run.line(line.as_bytes(), &mut out) {
                    Ok(n) => {
                        let written: Vec<Json> = std::str::from_utf8(&out[7..])
                            .unwrap()
                            .lines()
                            .map(|l| Json::parse(l).unwrap())
                            .collect();
                        let expected = if n.is_some() { expected.unwrap() } else { Vec::new() };
                        assert_eq!(written, expected, "{sql}\n{line}");
                        assert_eq!(n.unwrap_or(0), written.len());
                    }
                    Err(e) => {
                        assert!(expected.is_err(), "{sql}\n{line}: {e}");
                        assert_eq!(out, b"before\n", "{sql}\n{line}: a failed line writes nothing");
                    }
                }
            }
        }
    }
}
