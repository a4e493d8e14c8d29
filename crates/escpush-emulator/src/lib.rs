//! A loopback HTTP/1.1 server that behaves like Cloudflare's v4 API for the Edge Side Code
//! (ESC) deprecation controls and log-push job creation, for tests, demos and other SDKs
//! (curl, the official one). Job payloads are checked with escpush-core's own
//! `JobSpec::from_body`, so the emulator refuses exactly what the client would.
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
//! - Routes: `GET|POST|DELETE {base}/zones/{id}/disable_esc` and `.../accounts/{id}/disable_esc`,
//!   where `{base}` is `/client/v4`. Every well-formed id exists (state is created on first use).
//! - Checks, in order: unknown route → 404 (code 7003); method not allowed → 405 (code 7001,
//!   with `Allow`); no credentials → 401 (code 10000); wrong credentials → 403 (code 9103, or
//!   9109 for a token); a POST body other than `{"always": true}` or `{"with_secret": "<1..100
//!   characters>"}` sent as `application/json` → 400 (code 1001).
//! - Credentials: `X-Auth-Key` with `X-Auth-Email`, or `Authorization: Bearer <token>`.
//! - Answers come in the v4 envelope. GET's result is `{}` when ESC is active without secret,
//!   and shows `always` and `with_secret` each when it applies (both when both do); POST and
//!   DELETE answer with the same shape, after the change.
//! - Where the spec says "not shown": DELETE clears `always` and keeps a configured secret;
//!   setting a secret leaves `always` as it was; a zone's status does not reflect its account's.
//! - Faults ([`Emulator::fail_next`]) apply to the next requests whatever their route, before
//!   any check. A status fault or a dropped connection leaves the state unchanged; a delay, a
//!   malformed or a truncated body is applied after the request took effect.
//! - The request log redacts `X-Auth-Key`, `Authorization` and `Cookie`, and every
//!   `with_secret` in a body; the state snapshot shows only whether a secret is set and its length.
#![forbid(unsafe_code)]

mod routes;
mod wire;

use std::collections::{HashMap, VecDeque};
use std::fmt::{self, Write as _};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, BufReader};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::{json, Value};

pub use routes::ScopeKind;
use routes::{error_response, route, State};
use wire::{read_request, write_response, HttpRequest, HttpResponse, ReadError};

/// How long an idle keep-alive connection is kept open.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// A fault to answer instead of (or on top of) the normal behaviour.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// Answer this status with an error envelope (and `Retry-After: n` when given).
    Status { status: u16, retry_after: Option<u64> },
    /// Answer 200 with a body that is not JSON.
    MalformedBody,
    /// Announce a longer body than is sent, then close the connection.
    TruncatedBody,
    /// Wait this long before answering normally.
    Delay(Duration),
    /// Close the connection without answering.
    Drop,
}

impl Fault {
    fn name(&self) -> String {
        match self {
            Fault::Status { status, .. } => format!("status {status}"),
            Fault::MalformedBody => "malformed body".to_owned(),
            Fault::TruncatedBody => "truncated body".to_owned(),
            Fault::Delay(d) => format!("delay {}ms", d.as_millis()),
            Fault::Drop => "dropped connection".to_owned(),
        }
    }
}

/// One request as the emulator received it, with credentials and secrets redacted.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct LoggedRequest {
    pub method: String,
    /// The path, with the `/client/v4` prefix, without the query.
    pub path: String,
    /// Every header; `X-Auth-Key`, `Authorization` and `Cookie` values are `<redacted>`.
    pub headers: Vec<(String, String)>,
    /// The JSON body with every `with_secret` replaced by `***` (a non-JSON body is
    /// described, not kept); `None` when there was no body.
    pub body: Option<Value>,
    /// The status answered; `None` when the connection was dropped.
    pub status: Option<u16>,
    /// The injected fault, if any.
    pub fault: Option<String>,
}

impl LoggedRequest {
    /// The entry as a JSON object (`method`, `path`, `headers`, `body`, `status`, `fault`).
    pub fn to_json(&self) -> Value {
        let headers: serde_json::Map<String, Value> = self
            .headers
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), Value::String(v.clone())))
            .collect();
        json!({
            "method": self.method,
            "path": self.path,
            "headers": headers,
            "body": self.body,
            "status": self.status,
            "fault": self.fault,
        })
    }
}

const REDACTED_HEADERS: [&str; 3] = ["x-auth-key", "authorization", "cookie"];

fn redact_body(body: &[u8]) -> Option<Value> {
    if body.is_empty() {
        return None;
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(mut v) => {
            redact_secrets(&mut v);
            Some(v)
        }
        Err(_) => Some(Value::String(format!("<{} bytes, not JSON>", body.len()))),
    }
}

fn redact_secrets(v: &mut Value) {
    match v {
        Value::Object(obj) => {
            escpush_core::redact_job(obj); // a job payload's credentials
            for (k, item) in obj.iter_mut() {
                if k == "with_secret" {
                    *item = Value::String("***".to_owned());
                } else {
                    redact_secrets(item);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_secrets),
        _ => {}
    }
}

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
struct Credentials {
    api_key: String,
    email: String,
    api_token: String,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("api_key", &"<redacted>")
            .field("email", &self.email)
            .field("api_token", &"<redacted>")
            .finish()
    }
}

/// Settings of an emulator before it starts.
#[derive(Debug, Clone)]
#[must_use]
pub struct EmulatorBuilder {
    port: u16,
    creds: Credentials,
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

    /// Binds 127.0.0.1 and starts serving, one thread per connection.
    pub fn start(self) -> io::Result<Emulator> {
        let listener = TcpListener::bind(("127.0.0.1", self.port))?;
        let addr = listener.local_addr()?;
        let inner = Arc::new(Inner {
            creds: self.creds,
            state: Mutex::new(State::default()),
            log: Mutex::new(Vec::new()),
            faults: Mutex::new(VecDeque::new()),
            stop: AtomicBool::new(false),
            conns: Mutex::new(HashMap::new()),
            next_conn: AtomicU64::new(0),
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

#[derive(Debug)]
struct Inner {
    creds: Credentials,
    state: Mutex<State>,
    log: Mutex<Vec<LoggedRequest>>,
    faults: Mutex<VecDeque<(Fault, usize)>>,
    stop: AtomicBool,
    conns: Mutex<HashMap<u64, TcpStream>>,
    next_conn: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
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
        format!("http://{}{}", self.addr, routes::BASE_PATH)
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
        if count > 0 {
            lock(&self.inner.faults).push_back((fault, count));
        }
    }

    /// Drops every pending fault.
    pub fn clear_faults(&self) {
        lock(&self.inner.faults).clear();
    }

    /// The requests received so far, oldest first.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        lock(&self.inner.log).clone()
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

    /// Whether a request to a zone (or an account) with this `Cookie` header would be served
    /// with ESC disabled: `always` is set, or the cookie `disable_esc` carries the secret.
    pub fn esc_disabled_for(&self, kind: ScopeKind, id: &str, cookie_header: Option<&str>) -> bool {
        let setting = lock(&self.inner.state).esc(kind, id);
        if setting.always {
            return true;
        }
        let (Some(secret), Some(header)) = (setting.secret, cookie_header) else {
            return false;
        };
        header
            .split(';')
            .filter_map(|kv| kv.trim().split_once('='))
            .any(|(k, v)| k == "disable_esc" && v == secret)
    }

    /// Forgets the state, the log and the pending faults.
    pub fn reset(&self) {
        *lock(&self.inner.state) = State::default();
        self.clear_requests();
        self.clear_faults();
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
        for (_, conn) in lock(&self.inner.conns).drain() {
            let _ = conn.shutdown(Shutdown::Both);
        }
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

fn accept_loop(listener: &TcpListener, inner: &Arc<Inner>) {
    for stream in listener.incoming() {
        if inner.stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let id = inner.next_conn.fetch_add(1, Ordering::Relaxed);
        if let Ok(clone) = stream.try_clone() {
            lock(&inner.conns).insert(id, clone);
        }
        let conn_inner = Arc::clone(inner);
        let spawned = thread::Builder::new()
            .name("escpush-emulator-conn".to_owned())
            .spawn(move || {
                serve_connection(stream, &conn_inner);
                lock(&conn_inner.conns).remove(&id);
            });
        if spawned.is_err() {
            lock(&inner.conns).remove(&id);
        }
    }
}

fn serve_connection(stream: TcpStream, inner: &Inner) {
    let _ = stream.set_read_timeout(Some(IDLE_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    loop {
        let req = match read_request(&mut reader, &mut writer) {
            Ok(req) => req,
            Err(ReadError::Closed | ReadError::Io) => return,
            Err(ReadError::Bad(status, message)) => {
                let resp = error_response(status, 1000 + i64::from(status), message);
                let _ = write_response(&mut writer, &resp, resp.body.len(), true);
                return;
            }
        };
        if inner.stop.load(Ordering::SeqCst) {
            return;
        }
        let fault = next_fault(inner);
        let mut entry = LoggedRequest {
            method: req.method.clone(),
            path: req.path.clone(),
            headers: req
                .headers
                .iter()
                .map(|(k, v)| {
                    let redacted = REDACTED_HEADERS.iter().any(|h| k.eq_ignore_ascii_case(h));
                    (k.clone(), if redacted { "<redacted>".to_owned() } else { v.clone() })
                })
                .collect(),
            body: redact_body(&req.body),
            status: None,
            fault: fault.as_ref().map(Fault::name),
        };
        let (resp, content_length, close) = match fault {
            Some(Fault::Drop) => {
                lock(&inner.log).push(entry);
                let _ = writer.shutdown(Shutdown::Both);
                return;
            }
            Some(Fault::Status { status, retry_after }) => {
                let mut resp = error_response(status, 10_000 + i64::from(status), "injected fault");
                if let Some(secs) = retry_after {
                    resp = resp.header("Retry-After", secs.to_string());
                }
                let len = resp.body.len();
                (resp, len, req.close)
            }
            Some(Fault::Delay(d)) => {
                thread::sleep(d);
                let resp = respond(&req, inner);
                let len = resp.body.len();
                (resp, len, req.close)
            }
            Some(Fault::MalformedBody) => {
                let _ = respond(&req, inner);
                let resp = HttpResponse::json(200, b"{\"success\": true, \"result\": <html>oops</html>".to_vec());
                let len = resp.body.len();
                (resp, len, req.close)
            }
            Some(Fault::TruncatedBody) => {
                let mut resp = respond(&req, inner);
                let len = resp.body.len() + 64;
                resp.body.truncate(resp.body.len() / 2);
                (resp, len, true)
            }
            None => {
                let resp = respond(&req, inner);
                let len = resp.body.len();
                (resp, len, req.close)
            }
        };
        entry.status = Some(resp.status);
        lock(&inner.log).push(entry);
        if write_response(&mut writer, &resp, content_length, close).is_err() || close {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        }
    }
}

fn next_fault(inner: &Inner) -> Option<Fault> {
    let mut faults = lock(&inner.faults);
    let (fault, remaining) = faults.front_mut()?;
    let fault = fault.clone();
    *remaining -= 1;
    if *remaining == 0 {
        faults.pop_front();
    }
    Some(fault)
}

fn respond(req: &HttpRequest, inner: &Inner) -> HttpResponse {
    let Some(route) = route(&req.path) else {
        return error_response(404, 7003, format!("No route for the URI {}", req.path));
    };
    let allowed = route.allowed();
    if !allowed.contains(&req.method.as_str()) {
        return error_response(405, 7001, format!("Method {} not available for that URI.", req.method))
            .header("Allow", allowed.join(", "));
    }
    if let Some(resp) = check_auth(req, &inner.creds) {
        return resp;
    }
    routes::handle(&route, req, &inner.state)
}

fn check_auth(req: &HttpRequest, creds: &Credentials) -> Option<HttpResponse> {
    if let Some(auth) = req.header("authorization") {
        let ok = auth
            .strip_prefix("Bearer ")
            .is_some_and(|t| t.trim() == creds.api_token);
        return (!ok).then(|| error_response(403, 9109, "Invalid access token"));
    }
    match (req.header("x-auth-key"), req.header("x-auth-email")) {
        (None, None) => Some(error_response(
            401,
            10000,
            "Authentication error: send X-Auth-Key and X-Auth-Email, or Authorization: Bearer <token>",
        )),
        (Some(key), Some(email)) if key == creds.api_key && email.eq_ignore_ascii_case(&creds.email) => None,
        (Some(_), None) | (None, Some(_)) => Some(error_response(
            401,
            10000,
            "Authentication error: X-Auth-Key and X-Auth-Email go together",
        )),
        _ => Some(error_response(403, 9103, "Unknown X-Auth-Key or X-Auth-Email")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

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
        assert!(emu.esc_disabled_for(ScopeKind::Zone, "z1", Some("a=b; disable_esc=topsecret")));
        assert!(!emu.esc_disabled_for(ScopeKind::Zone, "z1", Some("disable_esc=nope")));
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
