//! Edge mode: a site per zone (`sites.rs`: what each is and answers), each on its own
//! listener of 127.0.0.1, whose responses ESC alters unless ESC is off for the request: the
//! zone or its account disabled (`always`), or a `disable_esc` cookie equal to the secret
//! of the zone or of its account. An optional propagation delay makes a change of `always`
//! visible to the site only after some time, as on the real edge; secrets apply at once.
//! The site's origin answers from a table of pages; what ESC does is a list of alterations
//! (set or remove a header, redirect, answer without the origin).
//!
//! The API side reports every request to [`observe`](crate::sites::observe), which records
//! when each scope's `always` changed; the site reads that history, so nothing in the API's
//! handlers or state knows about the edge.

use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use escpush_filter::DatasetScope;

use crate::lock;
use crate::server::{accept_with, serve_requests, Conn, Inner};
use crate::sites::{observe, text_response, EdgeSite, Served};
use crate::wire::Delivery;

/// Serves `site` on a new listener (or replaces the configuration of the zone's site,
/// keeping its address); gives the site's root URL `http://127.0.0.1:{port}`.
pub(crate) fn serve(inner: &Arc<Inner>, site: EdgeSite) -> io::Result<String> {
    let mut edge = lock(&inner.edge);
    if let Some(served) = edge.sites.get(&site.zone) {
        let addr = served.addr;
        *lock(&served.site) = site;
        return Ok(format!("http://{addr}"));
    }
    let listener = TcpListener::bind(("127.0.0.1", 0))?;
    let addr = listener.local_addr()?;
    let zone = site.zone.clone();
    let shared = Arc::new(Mutex::new(site));
    let (accept_inner, accept_site) = (Arc::clone(inner), Arc::clone(&shared));
    let accept = thread::Builder::new()
        .name(format!("escpush-edge-{}", addr.port()))
        .spawn(move || {
            let serve = move |conn: Conn, inner: &Inner| serve_connection(conn, inner, &accept_site);
            accept_with(&listener, &accept_inner, "escpush-edge-conn", serve);
        })?;
    edge.sites.insert(
        zone,
        Served {
            site: shared,
            addr,
            accept: Some(accept),
        },
    );
    drop(edge);
    observe(&inner.state, &inner.edge);
    Ok(format!("http://{addr}"))
}

/// The root URL of each site, by zone.
pub(crate) fn sites(inner: &Inner) -> Vec<(String, String)> {
    lock(&inner.edge)
        .sites
        .iter()
        .map(|(zone, s)| (zone.clone(), format!("http://{}", s.addr)))
        .collect()
}

/// Wakes and joins every site's accept loop (the stop flag is already set).
pub(crate) fn shutdown(inner: &Inner) {
    let served: Vec<Served> = std::mem::take(&mut lock(&inner.edge).sites).into_values().collect();
    for mut s in served {
        let _ = TcpStream::connect_timeout(&s.addr, Duration::from_secs(1));
        if let Some(handle) = s.accept.take() {
            let _ = handle.join();
        }
    }
}

/// Forgets the history of `always` (after a reset of the state).
pub(crate) fn reset(inner: &Inner) {
    lock(&inner.edge).history.clear();
    observe(&inner.state, &inner.edge);
}

fn serve_connection(conn: Conn, inner: &Inner, site: &Mutex<EdgeSite>) {
    let bad = |status: u16, message: String| text_response(status, &message);
    serve_requests(conn, inner, bad, |req| {
        let site = lock(site).clone();
        let esc = esc_applies(inner, &site, req.header("cookie"));
        let resp = if req.method == "GET" || req.method == "HEAD" {
            let mut resp = site.respond(&req.path, esc, req.header("cookie"));
            if req.method == "HEAD" {
                resp.body.clear();
            }
            resp
        } else {
            text_response(405, "the emulated site answers GET and HEAD").header("Allow", "GET, HEAD")
        };
        let how = Delivery {
            close: req.close,
            ..Delivery::default()
        };
        Some((resp, how))
    });
}

/// Whether ESC runs for a request to `site` with this `Cookie` header.
fn esc_applies(inner: &Inner, site: &EdgeSite, cookie: Option<&str>) -> bool {
    let mut scopes = vec![(DatasetScope::Zone, site.zone.clone())];
    if let Some(account) = &site.account {
        scopes.push((DatasetScope::Account, account.clone()));
    }
    let state = lock(&inner.state);
    let by_cookie = scopes.iter().any(|(kind, id)| {
        let setting = state.esc(*kind, id);
        setting.secret.is_some() && {
            let secret_only = crate::state::EscSetting {
                always: false,
                secret: setting.secret,
            };
            secret_only.disabled_for(cookie)
        }
    });
    drop(state);
    if by_cookie {
        return false;
    }
    let edge = lock(&inner.edge);
    !scopes.iter().any(|key| edge.always_seen(key, site.delay))
}
