//! escpush-http against the emulator over loopback: real sockets, real HTTP, no mocks.

use std::time::{Duration, Instant};

use escpush_core::{EscSecret, EscState, Scope};
use escpush_emulator::{Emulator, Fault};
use escpush_http::{Client, Error};

mod common;
use common::{client, with_timeout};

#[test]
fn every_operation_on_both_scopes() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let token_client = Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .build()
        .unwrap();
    for scope in [
        Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap(),
        Scope::account("acc-1").unwrap(),
    ] {
        assert_eq!(c.esc_status(&scope).unwrap().state(), EscState::Enabled);
        let secret = EscSecret::new("s3cret-for-testing").unwrap();
        c.esc_set_secret(&scope, &secret).unwrap();
        let st = token_client.esc_status(&scope).unwrap();
        assert_eq!((st.state(), st.secret.as_ref()), (EscState::Secret, Some(&secret)));
        c.esc_disable(&scope).unwrap();
        let st = c.esc_status(&scope).unwrap();
        assert!(st.always && st.secret.is_some());
        assert_eq!(st.state(), EscState::Disabled);
        c.esc_enable(&scope).unwrap();
        assert_eq!(c.esc_status(&scope).unwrap().state(), EscState::Secret);
    }
    let log = emu.requests();
    assert_eq!(log.len(), 14);
    let post = log.iter().find(|r| r.method == "POST").unwrap();
    assert!(post
        .headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("content-type") && v == "application/json"));
    assert_eq!(post.body.as_ref().unwrap()["with_secret"], "***");
    assert!(log.iter().all(|r| r.status == Some(200)));
    let everything = format!("{log:?} {:?} {c:?} {token_client:?}", emu.state());
    assert!(!everything.contains("s3cret-for-testing"));
    assert!(!everything.contains(emu.api_key()) && !everything.contains(emu.api_token()));
}

#[test]
fn wrong_credentials_are_api_errors() {
    let emu = Emulator::start().unwrap();
    let zone = Scope::zone("z").unwrap();
    let bad = Client::builder()
        .base_url(emu.base_url())
        .api_key("nope", emu.email())
        .build()
        .unwrap();
    let err = bad.esc_status(&zone).unwrap_err();
    assert_eq!(err.status(), Some(403));
    assert_eq!(err.api_errors()[0].code, 9103);
    let bad = Client::builder()
        .base_url(emu.base_url())
        .api_token("nope")
        .build()
        .unwrap();
    assert_eq!(bad.esc_status(&zone).unwrap_err().status(), Some(403));
    let wrong_path = Client::builder()
        .base_url(format!("http://{}/client/v3", emu.addr()))
        .api_token(emu.api_token())
        .build()
        .unwrap();
    assert_eq!(wrong_path.esc_status(&zone).unwrap_err().status(), Some(404));
}

#[test]
fn retries_on_429_and_5xx_honouring_retry_after() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z").unwrap();
    emu.fail_next(
        Fault::Status {
            status: 429,
            retry_after: Some(1),
        },
        1,
    );
    emu.fail_next(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        1,
    );
    let t = Instant::now();
    c.esc_disable(&zone).unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "Retry-After was not honoured: {:?}",
        t.elapsed()
    );
    assert_eq!(emu.requests().len(), 3);
    assert_eq!(emu.state()["zones"]["z"]["esc"]["always"], true);

    // More failures than retries: the last answer is the error.
    emu.clear_requests();
    emu.fail_next(
        Fault::Status {
            status: 500,
            retry_after: None,
        },
        5,
    );
    let err = c.esc_status(&zone).unwrap_err();
    assert!(err.is_api() && err.status() == Some(500), "{err}");
    assert_eq!(emu.requests().len(), 3);
    emu.clear_faults();

    // A Retry-After above the cap is cut to it.
    let capped = Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .max_retry_after(Duration::from_millis(20))
        .build()
        .unwrap();
    emu.fail_next(
        Fault::Status {
            status: 429,
            retry_after: Some(3600),
        },
        1,
    );
    let t = Instant::now();
    capped.esc_status(&zone).unwrap();
    assert!(t.elapsed() < Duration::from_secs(2));

    // No retries when asked for none; 4xx other than 429 never retried.
    let once = Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .max_retries(0)
        .build()
        .unwrap();
    emu.fail_next(
        Fault::Status {
            status: 429,
            retry_after: None,
        },
        1,
    );
    assert_eq!(once.esc_status(&zone).unwrap_err().status(), Some(429));
    emu.clear_requests();
    emu.fail_next(
        Fault::Status {
            status: 400,
            retry_after: None,
        },
        1,
    );
    assert_eq!(c.esc_status(&zone).unwrap_err().status(), Some(400));
    assert_eq!(emu.requests().len(), 1);
}

#[test]
fn dropped_and_truncated_answers_are_retried_then_reported() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z").unwrap();
    emu.fail_next(Fault::Drop, 1);
    emu.fail_next(Fault::TruncatedBody, 1);
    c.esc_status(&zone).unwrap();
    assert_eq!(emu.requests().len(), 3);
    emu.fail_next(Fault::Drop, 3);
    assert!(matches!(c.esc_status(&zone).unwrap_err(), Error::Transport { .. }));
}

#[test]
fn malformed_bodies_and_timeouts() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    let zone = Scope::zone("z").unwrap();
    emu.fail_next(Fault::MalformedBody, 1);
    let err = c.esc_status(&zone).unwrap_err();
    assert!(err.is_malformed_response() && err.status() == Some(200), "{err}");
    let quick = Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    emu.fail_next(Fault::Delay(Duration::from_millis(1500)), 1);
    let t = Instant::now();
    assert!(matches!(quick.esc_status(&zone).unwrap_err(), Error::Timeout { .. }));
    assert!(t.elapsed() < Duration::from_millis(1400));
}

#[test]
fn retry_after_past_the_deadline_stops_the_call_and_says_when_to_retry() {
    let emu = Emulator::start().unwrap();
    let c = with_timeout(&emu, Duration::from_secs(1));
    let zone = Scope::zone("z").unwrap();
    emu.fail_next(
        Fault::Status {
            status: 429,
            retry_after: Some(3600),
        },
        3,
    );
    let t = Instant::now();
    let err = c.esc_status(&zone).unwrap_err();
    assert!(t.elapsed() < Duration::from_millis(900), "{:?}", t.elapsed());
    assert!(
        matches!(err, Error::RetryLater { .. }) && err.status() == Some(429),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("retry in 3600 s") && text.contains("GMT") && text.contains("timeout of 1 s"),
        "{text}"
    );
    assert_eq!(
        emu.requests().len(),
        1,
        "no attempt after the answer that asks to wait past the deadline"
    );
}

#[test]
fn the_deadline_covers_retries_and_a_slow_head_then_a_slow_body() {
    let emu = Emulator::start().unwrap();
    let zone = Scope::zone("z").unwrap();
    let c = with_timeout(&emu, Duration::from_secs(1));
    // 600 ms before the head, 600 ms more for the body: each phase fits, the call does not.
    emu.fail_next(Fault::Trickle(Duration::from_millis(600)), 1);
    let t = Instant::now();
    let err = c.esc_status(&zone).unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    assert!(err.to_string().contains("timeout of 1 s"), "{err}");
    assert!(t.elapsed() < Duration::from_millis(1150), "{:?}", t.elapsed());
    // Delays that each fit but not together: retries stop at the deadline.
    emu.clear_faults();
    emu.fail_next(
        Fault::Status {
            status: 503,
            retry_after: Some(0),
        },
        1,
    );
    emu.fail_next(Fault::Delay(Duration::from_millis(700)), 1);
    let c = Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .timeout(Duration::from_secs(1))
        .max_retries(50)
        .backoff(Duration::from_millis(300))
        .max_backoff(Duration::from_millis(300))
        .build()
        .unwrap();
    let t = Instant::now();
    assert!(c.esc_status(&zone).is_ok(), "one retry fits");
    assert!(t.elapsed() < Duration::from_secs(1));
    let t = Instant::now();
    emu.fail_next(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        50,
    );
    let err = c.esc_status(&zone).unwrap_err();
    // The retries stop at the deadline: the error is the last 503 when its retry would not
    // fit, or (on a loaded machine, where the last retry starts and the deadline cuts it)
    // a timeout that names the 503 the server kept answering.
    let said_503 = err.status() == Some(503)
        || matches!(&err, Error::Timeout { message } if message.contains("the server answered HTTP 503"));
    assert!(
        said_503 && t.elapsed() < Duration::from_millis(1100),
        "{err} {:?}",
        t.elapsed()
    );
    // A slow answer within the deadline is fine.
    emu.clear_faults();
    emu.fail_next(Fault::Trickle(Duration::from_millis(200)), 1);
    assert!(with_timeout(&emu, Duration::from_secs(2)).esc_status(&zone).is_ok());
}

#[test]
fn a_retry_cut_by_the_deadline_names_what_the_server_had_answered() {
    let emu = Emulator::start().unwrap();
    let zone = Scope::zone("z1").unwrap();
    emu.fail_next(
        Fault::Status {
            status: 503,
            retry_after: Some(0),
        },
        1,
    );
    emu.fail_next(Fault::Delay(Duration::from_secs(5)), 1);
    let err = with_timeout(&emu, Duration::from_secs(1))
        .esc_status(&zone)
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("before it, the server answered HTTP 503 and asked for a retry"),
        "{err}"
    );
}

#[test]
fn a_server_that_echoes_the_request_never_shows_its_secrets() {
    let emu = Emulator::start().unwrap();
    let zone = Scope::zone("z").unwrap();
    let secret = EscSecret::new("echoed-secret-value").unwrap();
    for c in [client(&emu), with_timeout(&emu, Duration::from_secs(5))] {
        emu.fail_next(Fault::Echo { status: 400 }, 1);
        let err = c.esc_set_secret(&zone, &secret).unwrap_err();
        let shown = format!("{err} {err:?} {:?}", err.api_errors());
        assert!(shown.contains("cannot process POST"), "the echo arrived: {shown}");
        for leaked in [emu.api_key(), emu.api_token(), secret.expose()] {
            assert!(!shown.contains(leaked), "{leaked} in {shown}");
        }
    }
}

#[test]
fn response_size_is_capped() {
    let emu = Emulator::start().unwrap();
    let tiny = Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .max_response_bytes(10)
        .build()
        .unwrap();
    let err = tiny.esc_status(&Scope::zone("z").unwrap()).unwrap_err();
    assert!(matches!(err, Error::ResponseTooLarge { limit: 10 }), "{err}");
}

#[test]
fn connection_refused_is_a_transport_error() {
    let port = {
        let emu = Emulator::start().unwrap();
        emu.port()
    };
    let c = Client::builder()
        .base_url(format!("http://127.0.0.1:{port}/client/v4"))
        .api_token("t")
        .backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    assert!(matches!(
        c.esc_status(&Scope::zone("z").unwrap()).unwrap_err(),
        Error::Transport { .. }
    ));
}

#[test]
fn concurrent_requests() {
    let emu = Emulator::start().unwrap();
    let c = client(&emu);
    std::thread::scope(|s| {
        for t in 0..8 {
            let c = &c;
            s.spawn(move || {
                let zone = Scope::zone(format!("zone-{t}")).unwrap();
                for _ in 0..10 {
                    c.esc_disable(&zone).unwrap();
                    assert!(c.esc_status(&zone).unwrap().always);
                    c.esc_enable(&zone).unwrap();
                }
            });
        }
    });
    assert_eq!(emu.requests().len(), 8 * 30);
    assert_eq!(emu.state()["zones"].as_object().unwrap().len(), 8);
}
