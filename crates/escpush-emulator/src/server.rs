//! The listener and its connections: a bounded number of connections, each on its own
//! thread; each request read (within its time limits), logged, given its fault (if one is
//! pending) or its normal answer, and written back.
//!
//! Bounds: at most [`Limits::max_connections`] connections are served at once. At the cap, a
//! new connection takes the place of the one that has waited longest for its next request
//! (idle, or sending its head slowly), which is closed; when every connection is busy
//! answering, the new one gets a 503 and is closed. A connection waits at most
//! [`Limits::idle_timeout`] for a request to begin and [`Limits::request_timeout`] for the
//! rest of it; heads and bodies are capped in size (`wire`). Threads and memory stay bounded
//! whatever the clients do.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Read};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::faults::{Fault, FaultQueue};
use crate::handlers::{error_response, respond};
use crate::log::{LoggedRequest, RequestLog};
use crate::sites::{observe, Edge};
use crate::state::State;
use crate::wire::{write_response_with, Delivery, HttpRequest, HttpResponse, ReadError, Reader};
use crate::{lock, Credentials};

/// How many connections, and how long a request may take to arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub max_connections: usize,
    pub idle_timeout: Duration,
    pub request_timeout: Duration,
}

/// The most connections served at once by default.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// How long a connection waits for a request to begin by default (idle keep-alive included).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a request may take from its first byte to its last by default.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
        }
    }
}

/// One open connection, as the accept loop sees it.
#[derive(Debug)]
pub(crate) struct ConnEntry {
    stream: TcpStream,
    /// Since when it waits for (or reads) its next request; `None` while it is answered.
    waiting_since: Option<Instant>,
}

/// What the server threads share with the [`crate::Emulator`] handle.
#[derive(Debug)]
pub(crate) struct Inner {
    pub creds: Credentials,
    pub state: Mutex<State>,
    pub log: Mutex<RequestLog>,
    pub faults: Mutex<FaultQueue>,
    pub stop: AtomicBool,
    pub conns: Mutex<HashMap<u64, ConnEntry>>,
    pub next_conn: AtomicU64,
    pub limits: Limits,
    /// Connections closed to make room for new ones, and refused with 503 (for tests).
    pub evicted: AtomicU64,
    pub refused: AtomicU64,
    /// API requests received.
    pub requests: AtomicU64,
    /// Edge mode: the sites and the history of `always` they read.
    pub edge: Mutex<Edge>,
}

impl Inner {
    /// Closes every open connection (the emulator stops).
    pub fn close_all(&self) {
        for (_, conn) in lock(&self.conns).drain() {
            let _ = conn.stream.shutdown(Shutdown::Both);
        }
    }

    /// Sleeps `d` in short slices; `Err` as soon as the emulator stops.
    fn sleep(&self, d: Duration) -> io::Result<()> {
        let until = Instant::now() + d;
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Err(io::Error::new(io::ErrorKind::ConnectionAborted, "the emulator stopped"));
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            thread::sleep(left.min(Duration::from_millis(50)));
        }
    }
}

/// A connection being served: its stream and its place in `Inner::conns`.
#[derive(Debug)]
pub(crate) struct Conn {
    stream: TcpStream,
    id: u64,
}

pub(crate) fn accept_loop(listener: &TcpListener, inner: &Arc<Inner>) {
    accept_with(listener, inner, "escpush-emulator-conn", serve_connection);
}

/// Accepts connections until the emulator stops, each served by `serve` on its own thread
/// and registered in `inner.conns` (so that stopping closes it, and so that the cap holds).
/// The API and every edge site accept through this, under one cap.
pub(crate) fn accept_with<F>(listener: &TcpListener, inner: &Arc<Inner>, name: &str, serve: F)
where
    F: Fn(Conn, &Inner) + Clone + Send + 'static,
{
    for stream in listener.incoming() {
        if inner.stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else {
            // Out of descriptors or memory for a moment: wait a little rather than spin.
            thread::sleep(Duration::from_millis(10));
            continue;
        };
        if !make_room(inner) {
            // Counted before the answer goes out, so whoever reads it sees the count.
            inner.refused.fetch_add(1, Ordering::Relaxed);
            refuse(stream);
            continue;
        }
        let Ok(clone) = stream.try_clone() else { continue };
        let id = inner.next_conn.fetch_add(1, Ordering::Relaxed);
        lock(&inner.conns).insert(
            id,
            ConnEntry {
                stream: clone,
                waiting_since: Some(Instant::now()),
            },
        );
        let conn_inner = Arc::clone(inner);
        let serve = serve.clone();
        let spawned = thread::Builder::new().name(name.to_owned()).spawn(move || {
            serve(Conn { stream, id }, &conn_inner);
            lock(&conn_inner.conns).remove(&id);
        });
        if spawned.is_err() {
            if let Some(entry) = lock(&inner.conns).remove(&id) {
                let _ = entry.stream.shutdown(Shutdown::Both);
            }
        }
    }
}

/// Below the cap: true. At it: closes the connection that has waited longest for a request
/// (its thread ends) and gives true; false when every connection is busy answering.
fn make_room(inner: &Inner) -> bool {
    let mut conns = lock(&inner.conns);
    if conns.len() < inner.limits.max_connections {
        return true;
    }
    let oldest = conns
        .iter()
        .filter_map(|(id, c)| c.waiting_since.map(|t| (t, *id)))
        .min()
        .map(|(_, id)| id);
    match oldest.and_then(|id| conns.remove(&id)) {
        Some(entry) => {
            inner.evicted.fetch_add(1, Ordering::Relaxed);
            let _ = entry.stream.shutdown(Shutdown::Both);
            true
        }
        None => false,
    }
}

/// A 503 for a connection over the cap, written without waiting for its request.
fn refuse(mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
    let resp = error_response(503, 1503, "too many connections; retry").header("Retry-After", "1");
    let how = Delivery {
        close: true,
        ..Delivery::default()
    };
    let _ = write_response_with(&mut stream, &resp, how, &|_| Ok(()));
    let _ = stream.shutdown(Shutdown::Both);
}

/// A connection's reading side, with the time limits of the request being read: until its
/// first byte, `idle`; from then on, until `started + request`.
struct Timed<'a> {
    stream: TcpStream,
    limits: &'a Limits,
    started: Option<Instant>,
}

impl Read for Timed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let timeout = match self.started {
            None => self.limits.idle_timeout,
            Some(at) => (at + self.limits.request_timeout).saturating_duration_since(Instant::now()),
        };
        if timeout.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "the request took too long"));
        }
        self.stream.set_read_timeout(Some(timeout))?;
        let n = self.stream.read(buf)?;
        if n > 0 && self.started.is_none() {
            self.started = Some(Instant::now());
        }
        Ok(n)
    }
}

/// Reads the requests of one connection and writes what `answer` gives (`None`: close it
/// unanswered), until the client or the emulator closes it, or a time limit passes. A
/// request that cannot be read gets `bad(status, message)` and the connection is closed.
pub(crate) fn serve_requests(
    conn: Conn,
    inner: &Inner,
    bad: impl Fn(u16, String) -> HttpResponse,
    mut answer: impl FnMut(&HttpRequest) -> Option<(HttpResponse, Delivery)>,
) {
    let Conn { stream, id } = conn;
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = Reader::new(Timed {
        stream,
        limits: &inner.limits,
        started: None,
    });
    let waiting = |since: Option<Instant>| {
        if let Some(entry) = lock(&inner.conns).get_mut(&id) {
            entry.waiting_since = since;
        }
    };
    let sleep = |d: Duration| inner.sleep(d);
    loop {
        reader.get_mut().started = None;
        waiting(Some(Instant::now()));
        let req = match reader.read_request(&mut writer) {
            Ok(req) => req,
            Err(ReadError::Closed | ReadError::Io) => return,
            Err(ReadError::Bad(status, message)) => {
                let how = Delivery {
                    close: true,
                    ..Delivery::default()
                };
                let _ = write_response_with(&mut writer, &bad(status, message), how, &sleep);
                return;
            }
        };
        waiting(None);
        if inner.stop.load(Ordering::SeqCst) {
            return;
        }
        let Some((resp, how)) = answer(&req) else {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        };
        if write_response_with(&mut writer, &resp, how, &sleep).is_err() || how.close {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        }
    }
}

/// The API's answer to a request the reader refused (400, 413, 431, 505): an error in the
/// v4 envelope whose code is `1000 +` the status.
pub(crate) fn bad_request(status: u16, message: String) -> HttpResponse {
    error_response(status, 1000 + i64::from(status), message)
}

fn serve_connection(conn: Conn, inner: &Inner) {
    serve_requests(conn, inner, bad_request, |req| {
        inner.requests.fetch_add(1, Ordering::Relaxed);
        let fault = lock(&inner.faults).next();
        let mut entry = LoggedRequest::new(req, fault.as_ref().map(Fault::name));
        // The API's own answers only: a fault's may quote credentials, the control route's
        // lists the challenges issued.
        let keep_answer = fault.is_none() && !crate::handlers::is_control(&req.path);
        let answered = answer(req, fault, inner);
        observe(&inner.state, &inner.edge);
        if let Some((resp, _)) = &answered {
            entry.status = Some(resp.status);
            if keep_answer {
                entry.set_answer(req, &resp.body);
            }
        }
        lock(&inner.log).push(entry);
        answered
    });
}

/// The answer to `req` with `fault` applied; `None` to drop the connection unanswered.
fn answer(req: &HttpRequest, fault: Option<Fault>, inner: &Inner) -> Option<(HttpResponse, Delivery)> {
    let normal = || respond(req, &inner.creds, &inner.state);
    let plain = Delivery {
        close: req.close,
        ..Delivery::default()
    };
    Some(match fault {
        None => (normal(), plain),
        Some(Fault::Drop) => return None,
        Some(Fault::DropAfterApply) => {
            let _ = normal();
            return None;
        }
        Some(Fault::Status { status, retry_after }) => {
            let mut resp = error_response(status, 10_000 + i64::from(status), "injected fault");
            if let Some(secs) = retry_after {
                resp = resp.header("Retry-After", secs.to_string());
            }
            (resp, plain)
        }
        Some(Fault::Body { status, body }) => (HttpResponse::json(status, body), plain),
        Some(Fault::Echo { status }) => (error_response(status, 10_000 + i64::from(status), echo(req)), plain),
        Some(Fault::Delay(d)) => {
            // The answer is made after the wait (a stop cuts it short: no answer then).
            inner.sleep(d).ok()?;
            (normal(), plain)
        }
        Some(Fault::Stall(d)) => (
            normal(),
            Delivery {
                stall: Some(d),
                ..plain
            },
        ),
        Some(Fault::Drip(d)) => (normal(), Delivery { drip: Some(d), ..plain }),
        Some(Fault::Trickle(d)) => (normal(), Delivery { pace: Some(d), ..plain }),
        Some(Fault::MalformedBody) => {
            let _ = normal();
            let body = b"{\"success\": true, \"result\": <html>oops</html>".to_vec();
            (HttpResponse::json(200, body), plain)
        }
        Some(Fault::TruncatedBody) => {
            let mut resp = normal();
            let announced = resp.body.len() + 64;
            resp.body.truncate(resp.body.len() / 2);
            (
                resp,
                Delivery {
                    content_length: Some(announced),
                    close: true,
                    ..Delivery::default()
                },
            )
        }
    })
}

/// The request as a careless server would quote it back: every header and the body, raw.
fn echo(req: &HttpRequest) -> String {
    let mut text = format!("cannot process {} {}; headers:", req.method, req.path);
    for (k, v) in &req.headers {
        let _ = write!(text, " {k}: {v};");
    }
    let _ = write!(text, " body: {}", String::from_utf8_lossy(&req.body));
    text
}
