//! The listener and its connections: one thread per connection, each request read, logged,
//! given its fault (if one is pending) or its normal answer, and written back.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use crate::faults::{Fault, FaultQueue};
use crate::handlers::{error_response, respond};
use crate::log::{LoggedRequest, RequestLog};
use crate::state::State;
use crate::wire::{write_response, Delivery, HttpRequest, HttpResponse, ReadError, Reader};
use crate::{lock, Credentials};

/// How long an idle keep-alive connection is kept open.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// What the server threads share with the [`crate::Emulator`] handle.
#[derive(Debug)]
pub(crate) struct Inner {
    pub creds: Credentials,
    pub state: Mutex<State>,
    pub log: Mutex<RequestLog>,
    pub faults: Mutex<FaultQueue>,
    pub stop: AtomicBool,
    pub conns: Mutex<HashMap<u64, TcpStream>>,
    pub next_conn: AtomicU64,
    /// Edge mode: the sites and the history of `always` they read.
    pub edge: Mutex<crate::edge::Edge>,
}

pub(crate) fn accept_loop(listener: &TcpListener, inner: &Arc<Inner>) {
    accept_with(listener, inner, "escpush-emulator-conn", serve_connection);
}

/// Accepts connections until the emulator stops, each served by `serve` on its own thread
/// and registered in `inner.conns` (so that stopping closes it). The API and every edge
/// site accept through this.
pub(crate) fn accept_with<F>(listener: &TcpListener, inner: &Arc<Inner>, name: &str, serve: F)
where
    F: Fn(TcpStream, &Inner) + Clone + Send + 'static,
{
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
        let serve = serve.clone();
        let spawned = thread::Builder::new().name(name.to_owned()).spawn(move || {
            serve(stream, &conn_inner);
            lock(&conn_inner.conns).remove(&id);
        });
        if spawned.is_err() {
            lock(&inner.conns).remove(&id);
        }
    }
}

/// Reads the requests of one connection and writes what `answer` gives (`None`: close it
/// unanswered), until the client or the emulator closes it. A request that cannot be read
/// gets `bad(status, message)` and the connection is closed.
pub(crate) fn serve_requests(
    stream: TcpStream,
    inner: &Inner,
    bad: impl Fn(u16, String) -> HttpResponse,
    mut answer: impl FnMut(&HttpRequest) -> Option<(HttpResponse, Delivery)>,
) {
    let _ = stream.set_read_timeout(Some(IDLE_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut reader = Reader::new(stream);
    loop {
        let req = match reader.read_request(&mut writer) {
            Ok(req) => req,
            Err(ReadError::Closed | ReadError::Io) => return,
            Err(ReadError::Bad(status, message)) => {
                let how = Delivery {
                    close: true,
                    ..Delivery::default()
                };
                let _ = write_response(&mut writer, &bad(status, message), how);
                return;
            }
        };
        if inner.stop.load(Ordering::SeqCst) {
            return;
        }
        let Some((resp, how)) = answer(&req) else {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        };
        if write_response(&mut writer, &resp, how).is_err() || how.close {
            let _ = writer.shutdown(Shutdown::Both);
            return;
        }
    }
}

fn serve_connection(stream: TcpStream, inner: &Inner) {
    let bad = |status: u16, message: String| error_response(status, 1000 + i64::from(status), message);
    serve_requests(stream, inner, bad, |req| {
        let fault = lock(&inner.faults).next();
        let mut entry = LoggedRequest::new(req, fault.as_ref().map(Fault::name));
        let answered = answer(req, fault, inner);
        crate::edge::observe(inner);
        entry.status = answered.as_ref().map(|(resp, _)| resp.status);
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
            thread::sleep(d);
            (normal(), plain)
        }
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
                    pace: None,
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
