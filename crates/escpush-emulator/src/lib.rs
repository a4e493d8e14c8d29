//! A loopback HTTP/1.1 server that behaves like Cloudflare's v4 API for the Edge Side Code
//! (ESC) deprecation controls and log-push jobs, for tests, demos and other SDKs (curl, the
//! official one). Job payloads are checked with escpush-core's own `JobSpec::from_body`, so
//! the emulator refuses exactly what the client would.
//!
//! ```
//! use escpush_emulator::{Emulator, Fault};
//!
//! let emu = Emulator::start()?;           // 127.0.0.1, a free port
//! assert!(emu.base_url().starts_with("http://127.0.0.1:"));
//! emu.fail_next(Fault::Status { status: 503, retry_after: None }, 1);
//! assert!(emu.state()["zones"].as_object().unwrap().is_empty());
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Behaviour
//! - Routes: every endpoint of escpush-core's table ([`escpush_core::Endpoint::ALL`]: its
//!   method, its path below `{base}` = `/client/v4`, the scopes it exists on), routed by the
//!   table itself: the ESC setting (`GET|POST|DELETE {base}/{scope}/disable_esc`, `{scope}`
//!   being `zones/{id}` or `accounts/{id}`), the log-push jobs and their datasets, fields
//!   (from the embedded schemas, with an optional drift), ownership and destination checks.
//!   Every well-formed id exists (state is created on first use). The API's documented job limits hold (core's `JOB_LIMITS`: 4 jobs per zone, 4
//!   `dlp_forensic_copies` jobs per account): a creation past one is refused with the
//!   documented "creating a new job is not allowed: exceeded max jobs allowed".
//! - `POST .../logpush/validate/origin` judges `logpull_options` with core's `OriginCheck`
//!   (against the `dataset` sent, as the docs' example sends one): `valid: false` with the
//!   reason, or a 400 for a body of another shape. A zone's Instant Logs sessions
//!   (`GET|POST {base}/zones/{id}/logpush/edge/jobs`; not the 2024 schema's `.../edge`) are
//!   checked with core's `InstantLogsSpec`; one is active per zone at a time (a second is a
//!   400), and, nothing ever listening to its `wss://` address, it ends five minutes after it
//!   opened (instant-logs.mdx, Limits).
//! - `GET|PUT {base}/__emulator/logpush` is the emulator's own control route (same
//!   credentials): it sets the log-push quirks (store filters re-serialized as a real server
//!   may; serve a field drift) and lists the ownership challenges issued.
//! - Checks, in order: unknown route → 404 (code 7003); method not allowed → 405 (code 7001,
//!   with `Allow`); no credentials → 401 (code 10000); wrong credentials → 403 (code 9103, or
//!   9109 for a token); a POST body other than `{"always": true}` or `{"with_secret": "<a
//!   secret>"}` sent as `application/json` → 400 (code 1001), read by core's
//!   `EscOp::read_body`: the secret follows `EscSecret`'s rules (1 to 100 cookie-octets).
//! - Credentials: `X-Auth-Key` with `X-Auth-Email`, or `Authorization: Bearer <token>`.
//! - Answers come in the v4 envelope. GET's result is `{}` when ESC is active without secret,
//!   and shows `always` and `with_secret` each when it applies (both when both do); POST and
//!   DELETE answer with the same shape, after the change.
//! - Where the spec says "not shown": DELETE clears `always` and keeps a configured secret;
//!   setting a secret leaves `always` as it was; a zone's status does not reflect its account's.
//! - Faults ([`Emulator::fail_next`], checked by [`FaultSpec::check`]) apply to the next
//!   requests whatever their route, before any check. A status, body or echo fault and a
//!   dropped connection leave the state unchanged; a delay, a trickle, a stall, a drip, a
//!   malformed or a truncated body, and a connection dropped after applying
//!   ([`Fault::DropAfterApply`]) come after the request took effect.
//! - Bounds: at most [`EmulatorBuilder::max_connections`] connections (256 by default), one
//!   thread each; at the cap a new connection replaces the one idle longest (or sending its
//!   head slowest), or gets a 503 when every one is busy. A request must begin within
//!   [`EmulatorBuilder::idle_timeout`] (30 s) and arrive whole within
//!   [`EmulatorBuilder::request_timeout`] (10 s) of its first byte; heads are capped at
//!   64 KiB and bodies at 1 MiB. Hundreds of idle or half-sent connections do not stop it
//!   answering.
//! - The request log keeps the most recent requests (10,000 by default,
//!   [`EmulatorBuilder::log_capacity`]), each with the answer it got (not a fault's). It
//!   redacts `X-Auth-Key`, `Authorization` and `Cookie`, every `with_secret` and a job's
//!   credentials; the state snapshot shows only whether a secret is set and its length.
//!
//! - Edge mode ([`Emulator::serve_site`], [`EdgeSite`]): a site per zone on its own port, whose
//!   responses ESC alters unless ESC is off for the request (the zone or its account disabled,
//!   or the cookie `disable_esc` equal to the zone's or the account's secret), with an optional
//!   propagation delay of `always`.
//!
//! Modules: `server` (listener, connections, faults applied), `edge` (edge mode: serving the sites), `sites` (the sites, what they answer, and the history of `always` they read), `wire` (HTTP/1.1 on
//! `httparse`), `faults`, `log` (the request ring), `state`, `handlers` (one handler per
//! endpoint of core's table), `descriptions`
//! (the docs' field descriptions the fields endpoint answers).
#![forbid(unsafe_code)]

mod descriptions;
mod edge;
mod faults;
/// For the fuzz targets of `fuzz/` only: not part of the API.
#[doc(hidden)]
pub mod fuzzing;
mod handlers;
mod log;
mod server;
mod sites;
mod state;
mod transformers;
mod wire;

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use escpush_core::Scope;
use serde_json::Value;

pub use faults::{Fault, FaultSpec, FieldDrift, LogpushQuirks, MAX_FAULT_COUNT, MAX_FAULT_DELAY_SECS};
pub use log::{LoggedRequest, DEFAULT_LOG_CAPACITY};
use server::{accept_loop, Inner};
pub use server::{DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUEST_TIMEOUT};
pub use sites::{Alteration, EdgeSite, Page, MAX_EDGE_DELAY_SECS};
use state::State;

/// A random-looking string from std's randomly keyed hasher (test credentials, not keys
/// that protect anything).
fn random_token(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut out = String::from(prefix);
    for _ in 0..2 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        let _ = write!(out, "{:016x}", h.finish());
    }
    out
}

/// The credentials the emulator accepts.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Credentials {
    pub api_key: String,
    pub email: String,
    pub api_token: String,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("api_key", &escpush_filter::MASK)
            .field("email", &self.email)
            .field("api_token", &escpush_filter::MASK)
            .finish()
    }
}

/// Settings of an emulator before it starts.
#[derive(Debug, Clone)]
#[must_use]
pub struct EmulatorBuilder {
    port: u16,
    creds: Credentials,
    log_capacity: usize,
    limits: server::Limits,
}

impl Default for EmulatorBuilder {
    fn default() -> Self {
        EmulatorBuilder {
            port: 0,
            creds: Credentials {
                api_key: random_token("emu-key-"),
                email: "user@example.com".to_owned(),
                api_token: random_token("emu-token-"),
            },
            log_capacity: DEFAULT_LOG_CAPACITY,
            limits: server::Limits::default(),
        }
    }
}

impl EmulatorBuilder {
    /// The port on 127.0.0.1 (0, the default: a free one).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// The accepted `X-Auth-Key` (default: random).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.creds.api_key = key.into();
        self
    }

    /// The accepted `X-Auth-Email` (default `user@example.com`).
    pub fn email(mut self, email: impl Into<String>) -> Self {
        self.creds.email = email.into();
        self
    }

    /// The accepted bearer token (default: random).
    pub fn api_token(mut self, token: impl Into<String>) -> Self {
        self.creds.api_token = token.into();
        self
    }

    /// How many requests the log keeps, the most recent ones (default
    /// [`DEFAULT_LOG_CAPACITY`]; 0 keeps none). A long-running emulator stays bounded.
    pub fn log_capacity(mut self, n: usize) -> Self {
        self.log_capacity = n;
        self
    }

    /// The most connections served at once (default [`DEFAULT_MAX_CONNECTIONS`], at least
    /// 1). At the cap, a new connection replaces the one that has waited longest for its
    /// next request; when all are busy answering, it gets a 503 and is closed.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.limits.max_connections = n.max(1);
        self
    }

    /// How long a connection may wait for a request to begin, idle keep-alive included
    /// (default [`DEFAULT_IDLE_TIMEOUT`]); it is closed after that.
    pub fn idle_timeout(mut self, d: Duration) -> Self {
        self.limits.idle_timeout = d.max(Duration::from_millis(1));
        self
    }

    /// How long a request may take from its first byte to its last (default
    /// [`DEFAULT_REQUEST_TIMEOUT`]): a client that sends its head or body too slowly is
    /// disconnected.
    pub fn request_timeout(mut self, d: Duration) -> Self {
        self.limits.request_timeout = d.max(Duration::from_millis(1));
        self
    }

    /// Binds 127.0.0.1 and starts serving, one thread per connection, at most
    /// [`EmulatorBuilder::max_connections`] of them.
    pub fn start(self) -> io::Result<Emulator> {
        let listener = TcpListener::bind(("127.0.0.1", self.port))?;
        let addr = listener.local_addr()?;
        let inner = Arc::new(Inner {
            creds: self.creds,
            state: Mutex::new(State::default()),
            log: Mutex::new(log::RequestLog::new(self.log_capacity)),
            faults: Mutex::new(faults::FaultQueue::default()),
            stop: AtomicBool::new(false),
            conns: Mutex::new(HashMap::new()),
            next_conn: AtomicU64::new(0),
            limits: self.limits,
            evicted: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            edge: Mutex::new(sites::Edge::default()),
        });
        let accept_inner = Arc::clone(&inner);
        let accept = thread::Builder::new()
            .name(format!("escpush-emulator-{}", addr.port()))
            .spawn(move || accept_loop(&listener, &accept_inner))?;
        Ok(Emulator {
            addr,
            inner,
            accept: Some(accept),
        })
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What [`Emulator::stats`] gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerStats {
    /// Connections open now (the API's and the edge sites').
    pub open_connections: usize,
    /// Connections closed to make room at the cap.
    pub evicted: u64,
    /// Connections answered 503 at the cap.
    pub refused: u64,
    /// API requests received (read whole), faults included.
    pub requests: u64,
}

/// A running emulator; stops when dropped (or with [`Emulator::stop`]).
#[derive(Debug)]
pub struct Emulator {
    addr: SocketAddr,
    inner: Arc<Inner>,
    accept: Option<JoinHandle<()>>,
}

impl Emulator {
    /// Starts an emulator on a free port of 127.0.0.1 with random credentials.
    pub fn start() -> io::Result<Emulator> {
        Emulator::builder().start()
    }

    /// Settings for an emulator.
    pub fn builder() -> EmulatorBuilder {
        EmulatorBuilder::default()
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:{port}/client/v4`.
    pub fn base_url(&self) -> String {
        format!("http://{}{}", self.addr, handlers::BASE_PATH)
    }

    /// The accepted API key.
    pub fn api_key(&self) -> &str {
        &self.inner.creds.api_key
    }

    /// The accepted email.
    pub fn email(&self) -> &str {
        &self.inner.creds.email
    }

    /// The accepted API token.
    pub fn api_token(&self) -> &str {
        &self.inner.creds.api_token
    }

    /// The next `count` requests get `fault` (queued after faults already pending).
    pub fn fail_next(&self, fault: Fault, count: usize) {
        lock(&self.inner.faults).push(fault, count);
    }

    /// Checks `spec` ([`FaultSpec::check`]) and queues its fault; nothing is queued when an
    /// argument is out of range.
    pub fn fail_next_spec(&self, spec: &FaultSpec) -> Result<(), escpush_core::Error> {
        let (fault, count) = spec.check()?;
        self.fail_next(fault, count);
        Ok(())
    }

    /// Drops every pending fault.
    pub fn clear_faults(&self) {
        lock(&self.inner.faults).clear();
    }

    /// The connections open now; since the start, how many were closed to make room for
    /// new ones or refused (503) at the cap, and how many requests were received (the log
    /// keeps only the most recent).
    pub fn stats(&self) -> ServerStats {
        ServerStats {
            open_connections: lock(&self.inner.conns).len(),
            evicted: self.inner.evicted.load(Ordering::Relaxed),
            refused: self.inner.refused.load(Ordering::Relaxed),
            requests: self.inner.requests.load(Ordering::Relaxed),
        }
    }

    /// The most recent requests received (up to the log's capacity), oldest first.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        lock(&self.inner.log).to_vec()
    }

    /// Forgets the requests received so far.
    pub fn clear_requests(&self) {
        lock(&self.inner.log).clear();
    }

    /// A snapshot of the state:
    /// `{"zones": {id: {"esc": {"always", "secret_set", "secret_length"}}}, "accounts": {...}}`.
    pub fn state(&self) -> Value {
        lock(&self.inner.state).snapshot()
    }

    /// Whether a request to `scope` with this `Cookie` header would be served with ESC
    /// disabled: `always` is set, or the cookie `disable_esc` carries the secret.
    pub fn esc_disabled_for(&self, scope: &Scope, cookie_header: Option<&str>) -> bool {
        lock(&self.inner.state)
            .esc(scope.kind(), scope.id())
            .disabled_for(cookie_header)
    }

    /// The ownership challenge this emulator wrote to `destination` for `scope` after
    /// `POST .../logpush/ownership` (what a test reads from its bucket, to pass as a job's
    /// `ownership_challenge`), or `None` if none was asked for.
    pub fn written_challenge(&self, scope: &Scope, destination: &str) -> Option<String> {
        let key = (scope.kind(), scope.id().to_owned(), destination.trim().to_owned());
        lock(&self.inner.state).challenges.get(&key).cloned()
    }

    /// Forgets the state, the log and the pending faults (the edge sites keep serving).
    pub fn reset(&self) {
        *lock(&self.inner.state) = State::default();
        edge::reset(&self.inner);
        self.clear_requests();
        self.clear_faults();
    }

    /// Sets the log-push quirks (the same as `PUT {base}/__emulator/logpush`): filters stored
    /// re-serialized as a real server may, a drift of the live field lists.
    pub fn set_logpush_quirks(&self, quirks: LogpushQuirks) {
        lock(&self.inner.state).quirks = quirks;
    }

    /// Whether filters are stored re-serialized, and the ownership challenges issued (the same
    /// as `GET {base}/__emulator/logpush`).
    pub fn logpush_control(&self) -> Value {
        lock(&self.inner.state).logpush_control()
    }

    /// Edge mode: serves `site` (the zone's site, whose responses ESC alters unless ESC is
    /// off for the request) on its own port of 127.0.0.1, and gives its root URL
    /// `http://127.0.0.1:{port}`. Serving a zone again replaces its site's configuration at
    /// the same URL.
    pub fn serve_site(&self, site: EdgeSite) -> io::Result<String> {
        edge::serve(&self.inner, site)
    }

    /// The root URL of each zone's site, by zone id.
    pub fn sites(&self) -> Vec<(String, String)> {
        edge::sites(&self.inner)
    }

    /// Blocks until the emulator is stopped from another thread (for a standalone server).
    pub fn wait(mut self) {
        if let Some(handle) = self.accept.take() {
            let _ = handle.join();
        }
    }

    /// Stops accepting, closes open connections and joins the accepting thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if self.inner.stop.swap(true, Ordering::SeqCst) {
            return;
        }
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        edge::shutdown(&self.inner);
        self.inner.close_all();
        if let Some(handle) = self.accept.take() {
            let _ = handle.join();
        }
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    fn raw(emu: &Emulator, request: &str) -> String {
        let mut s = TcpStream::connect(emu.addr()).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    }

    #[test]
    fn serves_and_checks() {
        let emu = Emulator::builder().api_key("k").email("e@x.io").start().unwrap();
        let auth = "X-Auth-Key: k\r\nX-Auth-Email: e@x.io\r\nConnection: close\r\n";
        let get = raw(
            &emu,
            &format!("GET /client/v4/zones/z1/disable_esc HTTP/1.1\r\n{auth}\r\n"),
        );
        assert!(
            get.starts_with("HTTP/1.1 200") && get.ends_with(r#""result":{}}"#),
            "{get}"
        );
        let body = r#"{"with_secret":"topsecret"}"#;
        let post = raw(
            &emu,
            &format!(
                "POST /client/v4/zones/z1/disable_esc HTTP/1.1\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        );
        assert!(post.starts_with("HTTP/1.1 200"), "{post}");
        let z1 = Scope::zone("z1").unwrap();
        assert!(emu.esc_disabled_for(&z1, Some("a=b; disable_esc=topsecret")));
        assert!(!emu.esc_disabled_for(&z1, Some("disable_esc=nope")));
        let bad = raw(&emu, &format!("POST /client/v4/zones/z1/disable_esc HTTP/1.1\r\n{auth}Content-Type: application/json\r\nContent-Length: 16\r\n\r\n{{\"always\":false}}"));
        assert!(bad.starts_with("HTTP/1.1 400"), "{bad}");
        assert!(raw(
            &emu,
            "GET /client/v4/zones/z1/disable_esc HTTP/1.1\r\nConnection: close\r\n\r\n"
        )
        .starts_with("HTTP/1.1 401"));
        assert!(raw(&emu, "GET /client/v4/nope HTTP/1.1\r\nConnection: close\r\n\r\n").starts_with("HTTP/1.1 404"));
        let put = raw(
            &emu,
            &format!("PUT /client/v4/zones/z1/disable_esc HTTP/1.1\r\n{auth}\r\n"),
        );
        assert!(
            put.starts_with("HTTP/1.1 405") && put.contains("Allow: GET, POST, DELETE"),
            "{put}"
        );
        let log = emu.requests();
        assert_eq!(log.len(), 6);
        let text = format!("{:?}", log.iter().map(LoggedRequest::to_json).collect::<Vec<_>>());
        assert!(!text.contains("topsecret") && !text.contains("\"k\""), "{text}");
        assert_eq!(emu.state()["zones"]["z1"]["esc"]["secret_length"], 9);
    }

    #[test]
    fn the_log_keeps_each_answer_masked_but_not_a_faults() {
        let emu = Emulator::builder().api_key("k").email("e@x.io").start().unwrap();
        let auth = "X-Auth-Key: k\r\nX-Auth-Email: e@x.io\r\nConnection: close\r\n";
        let post = |body: &str| {
            raw(
                &emu,
                &format!(
                    "POST /client/v4/zones/z1/logpush/jobs HTTP/1.1\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                ),
            )
        };
        let job = r#"{"dataset":"http_requests","destination_conf":"s3://b/l?region=us&access-key-id=AKIDTOPSECRET&secret-access-key=topsecretkey"}"#;
        let created = post(job);
        assert!(created.starts_with("HTTP/1.1 200"), "{created}");
        emu.fail_next(Fault::Echo { status: 400 }, 1);
        assert!(post(job).starts_with("HTTP/1.1 400"));
        raw(
            &emu,
            &format!("GET /client/v4/__emulator/logpush HTTP/1.1\r\n{auth}\r\n"),
        );
        let log = emu.requests();
        let answer = log[0].answer.as_ref().expect("the API's answer is kept");
        assert_eq!(answer["success"], true);
        assert_eq!(answer["result"]["dataset"], "http_requests");
        assert_eq!(answer["result"]["id"], 1);
        let conf = answer["result"]["destination_conf"].as_str().unwrap();
        assert!(conf.contains("secret-access-key=***"), "{conf}");
        assert_eq!(log[1].answer, None, "an echo quotes the credentials: not kept");
        assert_eq!(log[2].answer, None, "the control route lists the challenges: not kept");
        let text = format!("{:?}", log.iter().map(LoggedRequest::to_json).collect::<Vec<_>>());
        assert!(!text.contains("TOPSECRET") && !text.contains("topsecret"), "{text}");
        assert!(text.contains("\"answer\""), "{text}");
    }

    #[test]
    fn faults_are_served_in_order() {
        let emu = Emulator::start().unwrap();
        emu.fail_next(
            Fault::Status {
                status: 429,
                retry_after: Some(3),
            },
            1,
        );
        emu.fail_next(Fault::Drop, 1);
        let r = raw(&emu, "GET /anything HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 429") && r.contains("Retry-After: 3"), "{r}");
        assert_eq!(raw(&emu, "GET /anything HTTP/1.1\r\n\r\n"), "");
        assert!(raw(&emu, "GET /x HTTP/1.1\r\nConnection: close\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert_eq!(emu.requests()[1].status, None);
    }

    #[test]
    fn the_log_keeps_the_most_recent_requests() {
        let emu = Emulator::builder().log_capacity(2).start().unwrap();
        for path in ["/a", "/b", "/c"] {
            raw(&emu, &format!("GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n"));
        }
        let paths: Vec<String> = emu.requests().into_iter().map(|r| r.path).collect();
        assert_eq!(paths, ["/b", "/c"]);
    }

    #[test]
    fn fault_specs_are_checked_before_anything_is_queued() {
        let emu = Emulator::start().unwrap();
        let too_long = FaultSpec {
            delay: Some(1e30),
            ..FaultSpec::default()
        };
        assert!(emu.fail_next_spec(&too_long).is_err());
        let empty = FaultSpec {
            body: Some(b"null".to_vec()),
            status: Some(204),
            ..FaultSpec::default()
        };
        emu.fail_next_spec(&empty).unwrap();
        let r = raw(&emu, "GET /x HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(
            r.starts_with("HTTP/1.1 204 No Content") && r.ends_with("\r\n\r\n"),
            "{r}"
        );
        assert!(raw(&emu, "GET /x HTTP/1.1\r\nConnection: close\r\n\r\n").starts_with("HTTP/1.1 404"));
    }

    #[test]
    fn credentials_never_show_in_debug() {
        let emu = Emulator::builder()
            .api_key("supersecretkey")
            .api_token("supersecrettoken")
            .start()
            .unwrap();
        let dbg = format!("{emu:?}");
        assert!(!dbg.contains("supersecret"), "{dbg}");
    }
}
