//! The transport's request events (the `log` facade, target `escpush`): one per attempt,
//! one per retry wait, one per wait for the rate limit, every secret masked; none formatted
//! while no logger takes them. Its own test binary, as a process has one logger.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use escpush_core::{EscSecret, Scope};
use escpush_emulator::{Emulator, Fault};
use escpush_http::{Client, RateLimit, LOG_TARGET};

struct Capture {
    on: Mutex<bool>,
    lines: Mutex<Vec<String>>,
    /// Records seen for other targets (ureq's own): they are not ours to show.
    others: Mutex<usize>,
}

impl log::Log for Capture {
    fn enabled(&self, meta: &log::Metadata<'_>) -> bool {
        meta.target() == LOG_TARGET && *lock(&self.on)
    }
    fn log(&self, record: &log::Record<'_>) {
        if record.target() != LOG_TARGET {
            *lock(&self.others) += 1;
            return;
        }
        assert!(*lock(&self.on), "an event was sent while its target was off");
        assert_eq!(record.level(), log::Level::Debug);
        lock(&self.lines).push(record.args().to_string());
    }
    fn flush(&self) {}
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

static CAPTURE: Capture = Capture {
    on: Mutex::new(false),
    lines: Mutex::new(Vec::new()),
    others: Mutex::new(0),
};

/// Tests share the one logger: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn capture(on: bool) -> MutexGuard<'static, ()> {
    let guard = lock(&SERIAL);
    let _ = log::set_logger(&CAPTURE);
    log::set_max_level(log::LevelFilter::Debug);
    *lock(&CAPTURE.on) = on;
    lock(&CAPTURE.lines).clear();
    guard
}

/// A client of the emulator (token credentials, short backoff), with this rate limit.
fn client(emu: &Emulator, limit: Option<RateLimit>) -> Client {
    Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .backoff(Duration::from_millis(5))
        .rate_limit(limit)
        .build()
        .unwrap()
}

fn lines() -> Vec<String> {
    lock(&CAPTURE.lines).clone()
}

#[test]
fn each_attempt_and_retry_is_an_event_with_no_secret() {
    let _g = capture(true);
    let emu = Emulator::start().unwrap();
    let c = client(&emu, None);
    let zone = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap();
    emu.fail_next(
        Fault::Status {
            status: 429,
            retry_after: Some(0),
        },
        1,
    );
    emu.fail_next(Fault::Echo { status: 503 }, 1);
    let secret = EscSecret::new("s3cret-for-the-log").unwrap();
    c.esc_set_secret(&zone, &secret).unwrap();
    let got = lines();
    assert_eq!(got.len(), 5, "{got:#?}");
    let path = "/zones/023e105f4ecef8ad9ca31a8372d0c353/disable_esc";
    assert_eq!(
        got[0],
        format!(
            "POST {}{path} {{\"with_secret\":\"***\"}} -> HTTP 429 (attempt 1, ",
            emu.base_url()
        ) + got[0].rsplit_once(", ").unwrap().1
    );
    assert!(
        got[1].starts_with(&format!(
            "POST {path}: retrying in 0 s, HTTP 429 asked for it (Retry-After); attempt 2 of 3"
        )),
        "{}",
        got[1]
    );
    assert!(got[2].contains("-> HTTP 503 (attempt 2, "), "{}", got[2]);
    assert!(
        got[3].contains("after HTTP 503 (backoff); attempt 3 of 3"),
        "{}",
        got[3]
    );
    assert!(got[4].contains("-> HTTP 200 (attempt 3, "), "{}", got[4]);
    let all = got.join("\n");
    assert!(
        !all.contains("s3cret-for-the-log") && !all.contains(emu.api_token()),
        "{all}"
    );
}

#[test]
fn a_failed_connection_names_the_url_and_how_to_change_it() {
    let _g = capture(true);
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}/client/v4");
    let c = Client::builder()
        .base_url(&base)
        .api_token("tok-not-in-any-message")
        .max_retries(0)
        .build()
        .unwrap();
    let err = c.esc_status(&Scope::zone("z").unwrap()).unwrap_err().to_string();
    assert!(err.contains(&format!("cannot connect to {base}")), "{err}");
    assert!(err.contains("CLOUDFLARE_BASE_URL") && err.contains("base_url"), "{err}");
    let got = lines();
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].starts_with(&format!(
        "GET {base}/zones/z/disable_esc -> failed: transport error: cannot connect"
    )));
    assert!(!format!("{err}{got:?}").contains("tok-not-in-any-message"));
}

#[test]
fn rate_limit_waits_are_events() {
    let _g = capture(true);
    let emu = Emulator::start().unwrap();
    let c = client(&emu, Some(RateLimit::new(1, Duration::from_millis(200)).unwrap()));
    let zone = Scope::zone("z").unwrap();
    c.esc_status(&zone).unwrap();
    c.esc_status(&zone).unwrap();
    let got = lines();
    assert!(
        got.iter()
            .any(|l| l.starts_with("GET /zones/z/disable_esc: waited ") && l.contains("client-side rate limit")),
        "{got:#?}"
    );
}

#[test]
fn nothing_is_sent_while_the_target_is_off() {
    let _g = capture(false);
    let emu = Emulator::start().unwrap();
    let c = client(&emu, None);
    c.esc_status(&Scope::zone("z").unwrap()).unwrap();
    // Capture::log asserts that no event of ours arrives while off.
    assert!(lines().is_empty());
}
