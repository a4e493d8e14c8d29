//! The client never hangs or double-sends: every `Retry-After` a server may send, servers
//! that stall or trickle, connections dropped after a write was applied, 16 threads on one
//! client, the client-side rate limit through a 429 storm. Real sockets on loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use escpush_core::{EscState, JobSpec, Scope};
use escpush_emulator::{Emulator, Fault, LoggedRequest};
use escpush_filter::DatasetScope;
use escpush_http::{Client, Error, RateLimit};
use serde_json::{json, Map, Value};

mod common;
use common::{client, with_timeout};

const OK: &str = r#"{"success":true,"errors":[],"messages":[],"result":{}}"#;

/// A server that answers each request with the next of `script` (the value of a
/// `Retry-After` header on a 429, or `None` for a 200), then 200s; counts the requests.
struct Scripted {
    addr: std::net::SocketAddr,
    count: Arc<AtomicUsize>,
}

impl Scripted {
    fn start(script: Vec<Option<String>>) -> Scripted {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let count = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&count);
        std::thread::spawn(move || {
            let mut script = script.into_iter();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                if read_head(&stream).is_none() {
                    continue;
                }
                seen.fetch_add(1, Ordering::SeqCst);
                let answer = match script.next().flatten() {
                    Some(retry_after) => {
                        let body = r#"{"success":false,"errors":[{"code":10000,"message":"slow down"}],"messages":[],"result":null}"#;
                        format!(
                            "HTTP/1.1 429 Too Many Requests\r\nRetry-After: {retry_after}\r\nContent-Length: {}\r\n\
                             Connection: close\r\n\r\n{body}",
                            body.len()
                        )
                    }
                    None => format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{OK}",
                        OK.len()
                    ),
                };
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        Scripted { addr, count }
    }

    fn client(&self, timeout: Duration) -> Client {
        Client::builder()
            .base_url(format!("http://{}/client/v4", self.addr))
            .api_token("t")
            .backoff(Duration::from_millis(20))
            .max_backoff(Duration::from_millis(20))
            .timeout(timeout)
            .build()
            .unwrap()
    }

    fn requests(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

/// Reads a request head (requests here have no body).
fn read_head(stream: &TcpStream) -> Option<()> {
    let mut r = BufReader::new(stream);
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            return Some(());
        }
    }
}

fn zone() -> Scope {
    Scope::zone("z1").unwrap()
}

#[test]
fn every_kind_of_retry_after_is_handled() {
    let one_second = Duration::from_secs(1);
    // Ignored (the backoff applies, 20 ms): negative, fractional, garbage, empty.
    for ignored in ["-5", "1.5", "soon", "", "Sun, 06 Nov 1994 08:49:37 CET"] {
        let server = Scripted::start(vec![Some(ignored.to_owned())]);
        let t = Instant::now();
        assert_eq!(
            server.client(one_second).esc_status(&zone()).unwrap().state(),
            EscState::Enabled
        );
        assert!(t.elapsed() < Duration::from_millis(900), "{ignored}: {:?}", t.elapsed());
        assert_eq!(server.requests(), 2, "{ignored}");
    }
    // A date in the past: retry now.
    let server = Scripted::start(vec![Some("Sun, 06 Nov 1994 08:49:37 GMT".to_owned())]);
    let t = Instant::now();
    server.client(one_second).esc_status(&zone()).unwrap();
    assert!(t.elapsed() < Duration::from_millis(900) && server.requests() == 2);
    // A near date: waited for.
    let soon = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(2));
    let server = Scripted::start(vec![Some(soon)]);
    let t = Instant::now();
    server.client(Duration::from_secs(5)).esc_status(&zone()).unwrap();
    assert!(t.elapsed() >= Duration::from_millis(900), "{:?}", t.elapsed());
    // Larger than the deadline, as seconds, a far date, or beyond every clock: the call
    // ends at once, says when to retry, and nothing is sent again.
    for far in [
        "3600".to_owned(),
        "Fri, 31 Dec 9999 23:59:59 GMT".to_owned(),
        "99999999999999999999999999".to_owned(),
        u64::MAX.to_string(),
    ] {
        let server = Scripted::start(vec![Some(far.clone())]);
        let t = Instant::now();
        let err = server.client(one_second).esc_status(&zone()).unwrap_err();
        assert!(t.elapsed() < Duration::from_millis(900), "{far}: {:?}", t.elapsed());
        assert!(matches!(err, Error::RetryLater { .. }), "{far}: {err}");
        let text = err.to_string();
        assert!(
            text.contains("asks to retry in") && text.contains("GMT") && text.contains("timeout of 1 s"),
            "{far}: {text}"
        );
        assert_eq!(server.requests(), 1, "{far}");
    }
    // Above max_retry_after but within the deadline: cut to max_retry_after.
    let server = Scripted::start(vec![Some("30".to_owned())]);
    let capped = Client::builder()
        .base_url(format!("http://{}/client/v4", server.addr))
        .api_token("t")
        .max_retry_after(Duration::from_millis(50))
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let t = Instant::now();
    capped.esc_status(&zone()).unwrap();
    assert!(t.elapsed() < Duration::from_millis(800), "{:?}", t.elapsed());
    assert_eq!(server.requests(), 2);
}

#[test]
fn a_huge_timeout_is_accepted_and_does_not_overflow_the_clock() {
    let server = Scripted::start(vec![]);
    let c = server.client(Duration::from_secs(u64::MAX));
    c.esc_status(&zone()).unwrap();
}

/// The call of a client with `timeout` against a server answering with `fault` ends with a
/// timeout error within `[low, high)`.
fn assert_cut(fault: Fault, timeout: Duration, low: Duration, high: Duration) -> Emulator {
    let emu = Emulator::start().unwrap();
    let c = with_timeout(&emu, timeout);
    emu.fail_next(fault, 5);
    let t = Instant::now();
    let err = c.esc_status(&zone()).unwrap_err();
    let took = t.elapsed();
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    assert!(took >= low && took < high, "{took:?}");
    let said = format!("timeout of {} s", timeout.as_secs_f64());
    assert!(err.to_string().contains(&said), "{err}");
    emu
}

#[test]
fn a_server_that_stalls_after_its_headers_is_cut_at_the_deadline() {
    assert_cut(
        Fault::Stall(Duration::from_secs(3600)),
        Duration::from_millis(700),
        Duration::from_millis(650),
        Duration::from_millis(1200),
    );
}

#[test]
fn a_server_that_trickles_a_byte_a_second_is_cut_at_the_deadline() {
    let emu = assert_cut(
        Fault::Drip(Duration::from_secs(1)),
        Duration::from_millis(1500),
        Duration::from_millis(1400),
        Duration::from_secs(2),
    );
    // A fast drip fits: the answer is whole and right.
    emu.clear_faults();
    emu.fail_next(Fault::Drip(Duration::from_millis(2)), 1);
    assert_eq!(
        with_timeout(&emu, Duration::from_secs(5))
            .esc_status(&zone())
            .unwrap()
            .state(),
        EscState::Enabled
    );
}

fn posts(log: &[LoggedRequest], path: &str) -> usize {
    log.iter()
        .filter(|r| r.method == "POST" && r.path.ends_with(path))
        .count()
}

fn spec(name: &str) -> JobSpec {
    JobSpec::builder("http_requests", DatasetScope::Zone)
        .name(name)
        .destination_conf("s3://b?region=r&access-key-id=AKID&secret-access-key=SAK")
        .build()
        .unwrap()
}

fn zone_jobs(emu: &Emulator) -> Vec<Value> {
    emu.state()["zones"]["z1"]["logpush_jobs"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn a_creation_applied_then_dropped_is_sent_once_and_says_what_to_check() {
    let emu = Emulator::start().unwrap();
    let c = Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .backoff(Duration::from_millis(5))
        .max_retries(5)
        .build()
        .unwrap();
    // The dangerous case: the server created the job, then the connection broke.
    emu.fail_next(Fault::DropAfterApply, 1);
    let err = c.create_job(&zone(), &spec("edge-errors")).unwrap_err();
    assert!(matches!(err, Error::OutcomeUnknown { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("may have taken effect")
            && text.contains("list the jobs of zone z1")
            && text.contains("`edge-errors`")
            && text.contains("never retried"),
        "{text}"
    );
    let log = emu.requests();
    assert_eq!(posts(&log, "/logpush/jobs"), 1, "sent exactly once: {log:?}");
    assert_eq!(log.len(), 1);
    let jobs = zone_jobs(&emu);
    assert_eq!(jobs.len(), 1, "the job exists: {jobs:?}");
    assert_eq!(jobs[0]["name"], "edge-errors");
    // Looking, as the error says, finds it.
    assert_eq!(c.jobs(&zone()).unwrap()[0]["name"], "edge-errors");

    // Dropped before applying: also sent once, and nothing was created.
    emu.clear_requests();
    emu.fail_next(Fault::Drop, 1);
    assert!(matches!(
        c.create_job(&zone(), &spec("second")).unwrap_err(),
        Error::OutcomeUnknown { .. }
    ));
    assert_eq!(posts(&emu.requests(), "/logpush/jobs"), 1);
    assert_eq!(zone_jobs(&emu).len(), 1);

    // Cut while the answer is read (a stall past the deadline): once, and the same advice.
    emu.clear_requests();
    emu.fail_next(Fault::Stall(Duration::from_secs(3600)), 1);
    let slow = with_timeout(&emu, Duration::from_millis(300));
    let err = slow.create_job(&zone(), &spec("third")).unwrap_err();
    assert!(
        matches!(&err, Error::OutcomeUnknown { cause, .. } if matches!(**cause, Error::Timeout { .. })),
        "{err}"
    );
    assert_eq!(posts(&emu.requests(), "/logpush/jobs"), 1);
    assert_eq!(zone_jobs(&emu).len(), 2, "the stalled creation took effect");

    // A 5xx may follow a change: not retried either.
    emu.clear_requests();
    emu.fail_next(
        Fault::Status {
            status: 502,
            retry_after: None,
        },
        1,
    );
    let err = c.create_job(&zone(), &spec("fourth")).unwrap_err();
    assert_eq!(err.status(), Some(502));
    // ... and says that it may have taken effect, and how to find out (issue 33's class:
    // an answer that may follow a change, to a request that is not safe to repeat).
    let text = err.to_string();
    assert!(
        text.contains("may have taken effect") && text.contains("list the jobs of zone z1"),
        "{text}"
    );
    // The note follows the API's own messages, which keep their places and codes.
    match &err {
        escpush_http::Error::Core(escpush_core::Error::Api { errors, .. }) => {
            assert!(errors.len() >= 2 && errors[0].code != 0, "{errors:?}");
            assert_eq!(errors.last().map(|e| e.code), Some(0), "{errors:?}");
        }
        other => panic!("not the API's error: {other:?}"),
    }
    assert_eq!(posts(&emu.requests(), "/logpush/jobs"), 1);

    // A 429 refused the request before it was processed: retried, one job made.
    emu.clear_requests();
    emu.fail_next(
        Fault::Status {
            status: 429,
            retry_after: Some(0),
        },
        2,
    );
    c.create_job(&zone(), &spec("fifth")).unwrap();
    assert_eq!(posts(&emu.requests(), "/logpush/jobs"), 3);
    let names: Vec<Value> = zone_jobs(&emu).iter().map(|j| j["name"].clone()).collect();
    assert_eq!(names, [json!("edge-errors"), json!("third"), json!("fifth")]);
}

#[test]
fn idempotent_requests_are_retried_after_an_applied_write_was_dropped() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    // ESC POSTs set a state: repeating one gives the same state.
    emu.fail_next(Fault::DropAfterApply, 1);
    c.esc_disable(&zone()).unwrap();
    assert_eq!(posts(&emu.requests(), "/disable_esc"), 2, "retried once");
    assert_eq!(c.esc_status(&zone()).unwrap().state(), EscState::Disabled);
    emu.fail_next(Fault::DropAfterApply, 1);
    c.esc_enable(&zone()).unwrap();
    assert_eq!(c.esc_status(&zone()).unwrap().state(), EscState::Enabled);
    // A PUT sets the fields it sends: the same body twice gives the same job.
    let job = c.create_job(&zone(), &spec("j")).unwrap();
    let id = job["id"].as_u64().unwrap();
    emu.clear_requests();
    emu.fail_next(Fault::Delay(Duration::ZERO), 1); // the GET that reads the job: answered
    emu.fail_next(Fault::DropAfterApply, 1); // the PUT: applied, its answer lost
    let mut changes = Map::new();
    changes.insert("enabled".into(), json!(true));
    let updated = c.update_job(&zone(), id, &changes).unwrap();
    assert_eq!(updated["enabled"], true);
    let puts = emu.requests().iter().filter(|r| r.method == "PUT").count();
    assert_eq!(puts, 2);
    assert_eq!(zone_jobs(&emu).len(), 1);
    // A DELETE whose answer was lost: the retry finds the job gone, which is the deletion
    // done (issue 33); the id it would have given was lost with the answer.
    emu.fail_next(Fault::DropAfterApply, 1);
    assert_eq!(c.delete_job(&zone(), id).unwrap(), None);
    assert!(zone_jobs(&emu).is_empty());
}

#[test]
fn sixteen_threads_share_one_client() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let calls = 40;
    std::thread::scope(|s| {
        for t in 0..16 {
            let c = &c;
            s.spawn(move || {
                let zone = Scope::zone(format!("zone-{t}")).unwrap();
                for i in 0..calls {
                    if i % 2 == 0 {
                        c.esc_disable(&zone).unwrap();
                        assert_eq!(c.esc_status(&zone).unwrap().state(), EscState::Disabled);
                    } else {
                        c.esc_enable(&zone).unwrap();
                        assert_eq!(c.esc_status(&zone).unwrap().state(), EscState::Enabled);
                    }
                }
            });
        }
    });
    let log = emu.requests();
    assert_eq!(log.len(), 16 * calls * 2);
    assert!(log.iter().all(|r| r.status == Some(200)));
    let zones = emu.state()["zones"].as_object().unwrap().clone();
    assert_eq!(zones.len(), 16);
    assert!(zones.values().all(|z| z["esc"]["always"] == false));
}

fn received(r: &LoggedRequest) -> f64 {
    r.received.duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

/// No `max + 1` requests of the log within `per` seconds.
fn assert_within_limit(log: &[LoggedRequest], max: usize, per: f64) {
    let mut at: Vec<f64> = log.iter().map(received).collect();
    at.sort_by(f64::total_cmp);
    for w in at.windows(max + 1) {
        assert!(
            w[max] - w[0] >= per,
            "{} requests within {:.3} s",
            max + 1,
            w[max] - w[0]
        );
    }
}

fn limited(emu: &Emulator, max: u32, per: Duration, timeout: Duration) -> Client {
    Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .backoff(Duration::from_millis(1))
        .max_backoff(Duration::from_millis(1))
        .max_retries(50)
        .timeout(timeout)
        .rate_limit(Some(RateLimit::new(max, per).unwrap()))
        .build()
        .unwrap()
}

#[test]
fn the_rate_limit_spaces_requests_from_many_threads() {
    let emu = Emulator::start().unwrap();
    let c = limited(&emu, 5, Duration::from_millis(500), Duration::from_secs(10));
    assert_eq!(c.rate_limit().unwrap().to_string(), "5 requests per 0.5 s");
    let t = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..4 {
            let c = &c;
            s.spawn(move || {
                for _ in 0..3 {
                    c.esc_status(&zone()).unwrap();
                }
            });
        }
    });
    // 12 requests, 5 per window: the 11th waits for two windows.
    assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
    let log = emu.requests();
    assert_eq!(log.len(), 12);
    assert_within_limit(&log, 5, 0.5);
    // Off by default.
    assert!(client(&emu).rate_limit().is_none());
}

#[test]
fn a_429_storm_is_survived_within_the_rate_limit() {
    let emu = Emulator::start().unwrap();
    let c = limited(&emu, 5, Duration::from_millis(500), Duration::from_secs(20));
    // 20 answers of 429 without a wait: the client retries, each retry counted.
    emu.fail_next(
        Fault::Status {
            status: 429,
            retry_after: Some(0),
        },
        20,
    );
    std::thread::scope(|s| {
        for t in 0..3 {
            let c = &c;
            s.spawn(move || {
                let zone = Scope::zone(format!("storm-{t}")).unwrap();
                c.esc_disable(&zone).unwrap();
                assert!(c.esc_status(&zone).unwrap().always);
            });
        }
    });
    let log = emu.requests();
    assert_eq!(log.len(), 26, "20 refused and 6 answered");
    assert_eq!(log.iter().filter(|r| r.status == Some(429)).count(), 20);
    assert_within_limit(&log, 5, 0.5);
}

#[test]
fn a_rate_limit_wait_past_the_deadline_fails_at_once_and_sends_nothing() {
    let emu = Emulator::start().unwrap();
    let c = limited(&emu, 2, Duration::from_secs(10), Duration::from_millis(300));
    c.esc_status(&zone()).unwrap();
    c.esc_status(&zone()).unwrap();
    let t = Instant::now();
    let err = c.esc_status(&zone()).unwrap_err();
    assert!(t.elapsed() < Duration::from_millis(250), "{:?}", t.elapsed());
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("client-side rate limit of 2 requests per 10 s") && text.contains("was not sent"),
        "{text}"
    );
    assert_eq!(emu.requests().len(), 2);
    // A clone shares the window.
    assert!(c.clone().esc_status(&zone()).is_err());
    assert_eq!(emu.requests().len(), 2);
}

#[test]
fn a_connection_that_was_never_made_is_retried_even_for_a_creation() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let c = Client::builder()
        .base_url(format!("http://127.0.0.1:{port}/client/v4"))
        .api_token("t")
        .backoff(Duration::from_millis(100))
        .max_backoff(Duration::from_millis(100))
        .max_retries(3)
        .build()
        .unwrap();
    // Serve on the port after the first refusal: the retry reaches it.
    let late = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = [0u8; 4096];
        let mut got = Vec::new();
        while !String::from_utf8_lossy(&got).contains("s3://") {
            let n = s.read(&mut buf).unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        let body = r#"{"success":true,"errors":[],"messages":[],"result":{"id":7,"dataset":"http_requests","destination_conf":"s3://b?region=r"}}"#;
        let _ = write!(
            s,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    });
    let job = c.create_job(&zone(), &spec("late")).unwrap();
    assert_eq!(job["id"], 7);
    late.join().unwrap();
}

/// Issue 33, item 7: an error that quotes a destination's credential percent-decoded, or
/// the token of its `Authorization` value alone, shows it masked: create, validate
/// destination, ownership and exists alike.
#[test]
fn errors_never_quote_a_destination_credential_in_another_form() {
    use escpush_core::DestinationConf;
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let splunk = "splunk://splunk.example.com:8088/services/collector/raw?channel=FE0ECFAD-13D5-401B-847D-77833BD77131\
                  &insecure-skip-verify=false&header_Authorization=Splunk%20T0KEN-5EC7E7";
    let s3 = "s3://bucket/logs?region=us-east-1&access-key-id=AKID&secret-access-key=abc%2Bdef%2Fghi";
    for (dest, quoted, secret) in [
        (splunk, "bad header Authorization: Splunk T0KEN-5EC7E7", "T0KEN-5EC7E7"),
        (splunk, "token T0KEN-5EC7E7 refused", "T0KEN-5EC7E7"),
        (s3, "SignatureDoesNotMatch for secret abc+def/ghi", "def/ghi"),
    ] {
        let conf = DestinationConf::parse(dest).unwrap();
        let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
            .name("j")
            .destination_conf(dest)
            .extra("ownership_challenge", json!("challenge-0123456789"))
            .build()
            .unwrap();
        let answer =
            json!({"success": false, "errors": [{"code": 1002, "message": quoted}], "messages": [], "result": null});
        let fault = || Fault::Body {
            status: 400,
            body: answer.to_string().into_bytes(),
        };
        let mut shown = Vec::new();
        emu.fail_next(fault(), 1);
        shown.push(c.create_job(&zone(), &spec).unwrap_err().to_string());
        emu.fail_next(fault(), 1);
        shown.push(c.validate_destination(&zone(), &conf).unwrap_err().to_string());
        emu.fail_next(fault(), 1);
        shown.push(c.ownership_challenge(&zone(), &conf).unwrap_err().to_string());
        emu.fail_next(fault(), 1);
        shown.push(c.destination_exists(&zone(), &conf).unwrap_err().to_string());
        for text in shown {
            assert!(!text.contains(secret) && text.contains("***"), "{dest}: {text}");
        }
    }
}

/// Issue 33, item 3: a DELETE whose answer is lost (the job deleted, then the connection
/// dropped) is retried, meets 404, and that is the deletion done: `delete_job` succeeds,
/// and a plan carries on (with delete_first, the replacement is created).
#[test]
fn a_delete_whose_answer_was_lost_is_done_when_its_retry_meets_404() {
    use escpush_core::{desired_jobs, PlanOptions};
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let id = c.create_job(&zone(), &spec("old")).unwrap()["id"].as_u64().unwrap();
    emu.fail_next(Fault::DropAfterApply, 1);
    assert_eq!(c.delete_job(&zone(), id).unwrap(), None, "done; the id unknown");
    assert!(zone_jobs(&emu).is_empty());
    let deletes = emu.requests().iter().filter(|r| r.method == "DELETE").count();
    assert_eq!(deletes, 2, "sent, lost, sent again");
    // A 404 on the first attempt is still "not found".
    let err = c.delete_job(&zone(), id).unwrap_err();
    assert!(err.to_string().contains("already deleted, or never there"), "{err}");

    // apply with delete_first: the old job deleted (its answer lost), the new one created.
    let id = c.create_job(&zone(), &spec("old")).unwrap()["id"].as_u64().unwrap();
    let doc = json!({"jobs": [{"name": "new", "dataset": "http_requests",
                              "destination_conf": "s3://b?region=r&access-key-id=AKID&secret-access-key=SAK"}]});
    desired_jobs(&doc, DatasetScope::Zone).unwrap();
    let plan = c
        .plan_jobs(&zone(), &doc, PlanOptions::new().prune(true).delete_first(true))
        .unwrap();
    emu.clear_requests();
    emu.fail_next(Fault::DropAfterApply, 1);
    let results = c.apply_plan(&zone(), &plan).unwrap();
    assert_eq!(results.iter().filter(|r| r.is_some()).count(), 2, "{results:?}");
    let names: Vec<Value> = zone_jobs(&emu).iter().map(|j| j["name"].clone()).collect();
    assert_eq!(names, [json!("new")]);
    assert!(!zone_jobs(&emu).iter().any(|j| j["id"] == id));
}
