//! The emulated sites of edge mode (`edge.rs` serves them): what each site is
//! ([`EdgeSite`]: its zone and account, the origin's pages, what ESC alters, the
//! propagation delay), read from JSON with clear errors, and what it answers; which sites
//! are served ([`Edge`]) and the history of each scope's `always` they read ([`observe`],
//! which the API side calls after every request, so that nothing in the API's handlers or
//! state knows about the edge).

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use escpush_core::{Error, ScopeId};
use escpush_filter::DatasetScope;
use serde_json::{Map, Value};

use crate::state::State;
use crate::wire::HttpResponse;
use crate::{lock, random_token};

/// The longest propagation delay a site accepts, in seconds.
pub const MAX_EDGE_DELAY_SECS: f64 = 3600.0;

/// One page of a site's origin.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Page {
    pub path: String,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// `{cookie}` in the header values and the body stands for the request's `Cookie`
    /// header (empty without one): an origin that reflects what it was sent, as some do.
    pub reflect_cookie: bool,
}

impl Page {
    /// A page at `path` with `status`, `Content-Type: text/html` and `body`.
    pub fn new(path: impl Into<String>, status: u16, body: impl Into<String>) -> Self {
        Page {
            path: path.into(),
            status,
            headers: vec![("Content-Type".to_owned(), "text/html".to_owned())],
            body: body.into(),
            reflect_cookie: false,
        }
    }

    /// The origin's answer to a request with this `Cookie` header.
    fn answer(&self, cookie: Option<&str>) -> HttpResponse {
        let fill = |text: &str| match (self.reflect_cookie, cookie) {
            (true, cookie) => text.replace("{cookie}", cookie.unwrap_or_default()),
            (false, _) => text.to_owned(),
        };
        HttpResponse {
            status: self.status,
            headers: self.headers.iter().map(|(n, v)| (n.clone(), fill(v))).collect(),
            body: fill(&self.body).into_bytes(),
        }
    }
}

/// What ESC does to the responses of the paths `path` matches (`*` every path, `/a*` every
/// path that starts with `/a`, else exactly that path; the query is not part of the path).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Alteration {
    /// Sets a response header (replacing any of that name).
    SetHeader { path: String, name: String, value: String },
    /// Removes a response header.
    RemoveHeader { path: String, name: String },
    /// Redirects without contacting the origin.
    Redirect {
        path: String,
        status: u16,
        location: String,
    },
    /// Answers with this status and body without contacting the origin.
    Respond { path: String, status: u16, body: String },
}

impl Alteration {
    fn path(&self) -> &str {
        match self {
            Alteration::SetHeader { path, .. }
            | Alteration::RemoveHeader { path, .. }
            | Alteration::Redirect { path, .. }
            | Alteration::Respond { path, .. } => path,
        }
    }
}

/// The site of one zone.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct EdgeSite {
    pub zone: String,
    /// The zone's account: its `always` and its secret apply to the site too.
    pub account: Option<String>,
    pub pages: Vec<Page>,
    pub esc: Vec<Alteration>,
    /// How long a change of `always` takes to reach the site.
    pub delay: Duration,
}

impl EdgeSite {
    /// The demo site of `zone`: `/` (200), `/new` (200) and `/old` (404) at the origin;
    /// ESC sets `X-ESC: on` on every response and redirects `/old` to `/new` (301).
    pub fn new(zone: impl Into<String>) -> Self {
        EdgeSite {
            zone: zone.into(),
            account: None,
            pages: vec![
                Page::new("/", 200, "<h1>home</h1>"),
                Page::new("/new", 200, "<h1>new</h1>"),
                Page::new("/old", 404, "<h1>not found</h1>"),
            ],
            esc: vec![
                Alteration::SetHeader {
                    path: "*".to_owned(),
                    name: "X-ESC".to_owned(),
                    value: "on".to_owned(),
                },
                Alteration::Redirect {
                    path: "/old".to_owned(),
                    status: 301,
                    location: "/new".to_owned(),
                },
            ],
            delay: Duration::ZERO,
        }
    }

    /// The site the JSON `config` describes: `{"zone", "account"?, "delay"? (seconds),
    /// "pages"? ({path: {"status"?, "headers"? ({name: value}), "body"?, "reflect_cookie"?
    /// (`{cookie}` in headers and body is the request's Cookie)}}), "esc"? ([{"path",
    /// and one of "set_header" ({name: value}), "remove_header" (name), "redirect"
    /// (location, with "status"? 301), "respond" (body, with "status"? 200)}])}`. Missing
    /// `pages` and `esc` are those of [`EdgeSite::new`]. The error names the member at fault.
    pub fn from_json(config: &Value) -> Result<EdgeSite, Error> {
        let bad = |what: &'static str, message: String| Error::InvalidInput { what, message };
        let obj = config
            .as_object()
            .ok_or_else(|| bad("site", "must be an object".to_owned()))?;
        for key in obj.keys() {
            if !["zone", "account", "delay", "pages", "esc"].contains(&key.as_str()) {
                return Err(bad(
                    "site",
                    format!("unknown member `{key}` (known: zone, account, delay, pages, esc)"),
                ));
            }
        }
        let zone = id_member(obj, "zone", "zone id")?.ok_or_else(|| bad("site", "`zone` is required".to_owned()))?;
        let mut site = EdgeSite::new(zone);
        site.account = id_member(obj, "account", "account id")?;
        if let Some(delay) = obj.get("delay").filter(|v| !v.is_null()) {
            let secs = delay
                .as_f64()
                .filter(|s| s.is_finite() && (0.0..=MAX_EDGE_DELAY_SECS).contains(s))
                .ok_or_else(|| {
                    bad(
                        "site delay",
                        format!("{delay} is not 0 to {MAX_EDGE_DELAY_SECS} seconds"),
                    )
                })?;
            site.delay = Duration::from_secs_f64(secs);
        }
        if let Some(pages) = obj.get("pages") {
            let pages = pages
                .as_object()
                .ok_or_else(|| bad("site pages", "must be an object {path: page}".to_owned()))?;
            site.pages = pages
                .iter()
                .map(|(path, page)| page_from_json(path, page))
                .collect::<Result<_, _>>()?;
        }
        if let Some(esc) = obj.get("esc") {
            let esc = esc
                .as_array()
                .ok_or_else(|| bad("site esc", "must be a list of alterations".to_owned()))?;
            site.esc = esc
                .iter()
                .enumerate()
                .map(|(i, a)| alteration_from_json(i, a))
                .collect::<Result<_, _>>()?;
        }
        Ok(site)
    }

    /// The response to `GET path` with this `Cookie` header, with ESC on (`esc`) or off.
    pub(crate) fn respond(&self, path: &str, esc: bool, cookie: Option<&str>) -> HttpResponse {
        let path = path.split('?').next().unwrap_or_default();
        let mut resp = None;
        if esc {
            for a in self.esc.iter().filter(|a| path_matches(a.path(), path)) {
                match a {
                    Alteration::Redirect { status, location, .. } => {
                        resp = Some(text_response(*status, "").header("Location", location.clone()));
                        break;
                    }
                    Alteration::Respond { status, body, .. } => {
                        resp = Some(text_response(*status, body));
                        break;
                    }
                    _ => {}
                }
            }
        }
        let mut resp = resp.unwrap_or_else(|| match self.pages.iter().find(|p| p.path == path) {
            Some(page) => page.answer(cookie),
            None => text_response(404, "not found"),
        });
        if esc {
            for a in self.esc.iter().filter(|a| path_matches(a.path(), path)) {
                match a {
                    Alteration::SetHeader { name, value, .. } => {
                        resp.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                        resp.headers.push((name.clone(), value.clone()));
                    }
                    Alteration::RemoveHeader { name, .. } => {
                        resp.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                    }
                    _ => {}
                }
            }
        }
        // A header that differs on every response, as CF-Ray does on the real edge.
        resp.headers
            .push(("CF-Ray".to_owned(), random_token("")[..16].to_owned()));
        resp
    }
}

pub(crate) fn text_response(status: u16, body: &str) -> HttpResponse {
    HttpResponse {
        status,
        headers: vec![("Content-Type".to_owned(), "text/plain".to_owned())],
        body: body.as_bytes().to_vec(),
    }
}

fn path_matches(pattern: &str, path: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => path.starts_with(prefix),
        None => pattern == path,
    }
}

fn id_member(obj: &Map<String, Value>, key: &str, what: &'static str) -> Result<Option<String>, Error> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => ScopeId::new(what, s.as_str()).map(|id| Some(id.as_str().to_owned())),
        Some(other) => Err(Error::InvalidInput {
            what,
            message: format!("must be a string, not {other}"),
        }),
    }
}

fn status_member(v: Option<&Value>, default: u16, what: &'static str) -> Result<u16, Error> {
    match v {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .and_then(|s| u16::try_from(s).ok())
            .filter(|s| (100..=599).contains(s))
            .ok_or_else(|| Error::InvalidInput {
                what,
                message: format!("{v} is not an HTTP status (100 to 599)"),
            }),
    }
}

fn string_member(v: Option<&Value>, what: &'static str) -> Result<Option<String>, Error> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.contains(['\r', '\n']) => Ok(Some(s.clone())),
        Some(other) => Err(Error::InvalidInput {
            what,
            message: format!("must be a string on one line, not {other}"),
        }),
    }
}

fn headers_member(v: Option<&Value>, what: &'static str) -> Result<Vec<(String, String)>, Error> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let obj = v.as_object().ok_or_else(|| Error::InvalidInput {
        what,
        message: "must be an object {name: value}".to_owned(),
    })?;
    obj.iter()
        .map(|(name, value)| {
            let ok_name = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b));
            let value = string_member(Some(value), what)?.unwrap_or_default();
            if ok_name {
                Ok((name.clone(), value))
            } else {
                Err(Error::InvalidInput {
                    what,
                    message: format!("`{name}` is not a header name"),
                })
            }
        })
        .collect()
}

fn page_from_json(path: &str, page: &Value) -> Result<Page, Error> {
    if !path.starts_with('/') {
        return Err(Error::InvalidInput {
            what: "site page",
            message: format!("path `{path}` must start with /"),
        });
    }
    let empty = Map::new();
    let obj = page.as_object().unwrap_or(&empty);
    if !page.is_object() {
        return Err(Error::InvalidInput {
            what: "site page",
            message: format!("`{path}` must be an object {{status, headers, body}}"),
        });
    }
    let known = ["status", "headers", "body", "reflect_cookie"];
    if let Some(key) = obj.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(Error::InvalidInput {
            what: "site page",
            message: format!("`{path}`: unknown member `{key}` (known: {})", known.join(", ")),
        });
    }
    let reflect_cookie = match obj.get("reflect_cookie") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(Error::InvalidInput {
                what: "site page",
                message: format!("`{path}`: reflect_cookie must be true or false, not {other}"),
            })
        }
    };
    let mut headers = headers_member(obj.get("headers"), "site page headers")?;
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("content-type")) {
        headers.insert(0, ("Content-Type".to_owned(), "text/html".to_owned()));
    }
    Ok(Page {
        path: path.to_owned(),
        status: status_member(obj.get("status"), 200, "site page status")?,
        headers,
        body: match obj.get("body") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(Error::InvalidInput {
                    what: "site page body",
                    message: format!("must be a string, not {other}"),
                })
            }
        },
        reflect_cookie,
    })
}

fn alteration_from_json(index: usize, a: &Value) -> Result<Alteration, Error> {
    let bad = |message: String| Error::InvalidInput {
        what: "site esc alteration",
        message: format!("#{index}: {message}"),
    };
    let obj = a.as_object().ok_or_else(|| bad("must be an object".to_owned()))?;
    let path = string_member(obj.get("path"), "site esc path")?.unwrap_or_else(|| "*".to_owned());
    let kinds: Vec<&str> = ["set_header", "remove_header", "redirect", "respond"]
        .into_iter()
        .filter(|k| obj.contains_key(*k))
        .collect();
    for key in obj.keys() {
        if !["path", "status", "set_header", "remove_header", "redirect", "respond"].contains(&key.as_str()) {
            return Err(bad(format!("unknown member `{key}`")));
        }
    }
    let [kind] = kinds[..] else {
        return Err(bad(
            "give exactly one of set_header, remove_header, redirect, respond".to_owned()
        ));
    };
    Ok(match kind {
        "set_header" => {
            let mut headers = headers_member(obj.get("set_header"), "site esc set_header")?;
            if headers.len() != 1 {
                return Err(bad("set_header is one {name: value}".to_owned()));
            }
            let (name, value) = headers.remove(0);
            Alteration::SetHeader { path, name, value }
        }
        "remove_header" => Alteration::RemoveHeader {
            path,
            name: string_member(obj.get("remove_header"), "site esc remove_header")?.unwrap_or_default(),
        },
        "redirect" => Alteration::Redirect {
            path,
            status: status_member(obj.get("status"), 301, "site esc status")?,
            location: string_member(obj.get("redirect"), "site esc redirect")?.unwrap_or_default(),
        },
        _ => Alteration::Respond {
            path,
            status: status_member(obj.get("status"), 200, "site esc status")?,
            body: match obj.get("respond") {
                Some(Value::String(s)) => s.clone(),
                _ => return Err(bad("respond is the body, a string".to_owned())),
            },
        },
    })
}

/// One served site.
pub(crate) struct Served {
    pub site: Arc<Mutex<EdgeSite>>,
    pub addr: SocketAddr,
    pub accept: Option<JoinHandle<()>>,
}

impl fmt::Debug for Served {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Served")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

pub(crate) type AlwaysMap = BTreeMap<(DatasetScope, String), bool>;

/// The sites, and the history of `always` the sites read (oldest first).
#[derive(Debug, Default)]
pub(crate) struct Edge {
    pub sites: BTreeMap<String, Served>,
    pub history: VecDeque<(Instant, AlwaysMap)>,
}

impl Edge {
    /// Whether `always` holds for `key` as seen `delay` after the fact.
    pub(crate) fn always_seen(&self, key: &(DatasetScope, String), delay: Duration) -> bool {
        let now = Instant::now();
        self.history
            .iter()
            .rev()
            .find(|(at, _)| now.saturating_duration_since(*at) >= delay)
            .or_else(|| self.history.front())
            .is_some_and(|(_, map)| map.get(key).copied().unwrap_or(false))
    }
}

/// Records the scopes' `always` in `state` now in the history the sites read (the server
/// calls it after every API request, and edge mode after a reset and when it serves a site).
pub(crate) fn observe(state: &Mutex<State>, edge: &Mutex<Edge>) {
    let now_map: AlwaysMap = lock(state)
        .esc
        .iter()
        .map(|(k, setting)| (k.clone(), setting.always))
        .collect();
    let mut edge = lock(edge);
    if edge.history.back().is_some_and(|(_, last)| *last == now_map) {
        return;
    }
    edge.history.push_back((Instant::now(), now_map));
    // Keep what the longest delay can still need.
    let longest = edge
        .sites
        .values()
        .map(|s| lock(&s.site).delay)
        .max()
        .unwrap_or_default();
    while edge.history.len() > 1 && edge.history[1].0.elapsed() > longest + Duration::from_secs(1) {
        edge.history.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_are_read_from_json_with_clear_errors() {
        let site = EdgeSite::from_json(&serde_json::json!({
            "zone": "z1", "account": "a1", "delay": 0.5,
            "pages": {"/": {"status": 200, "body": "hi"}, "/down": {"status": 502}},
            "esc": [
                {"path": "*", "set_header": {"X-ESC": "on"}},
                {"path": "/down", "respond": "maintenance", "status": 200},
                {"path": "/a*", "redirect": "/b"},
                {"remove_header": "Server"},
            ],
        }))
        .unwrap();
        assert_eq!(site.delay, Duration::from_millis(500));
        assert_eq!(site.pages.len(), 2);
        assert_eq!(site.esc.len(), 4);
        let on = site.respond("/down?x=1", true, None);
        assert_eq!((on.status, on.body.as_slice()), (200, &b"maintenance"[..]));
        assert!(on.headers.iter().any(|(n, v)| n == "X-ESC" && v == "on"));
        assert_eq!(site.respond("/down", false, None).status, 502);
        let redirect = site.respond("/abc", true, None);
        assert_eq!(redirect.status, 301);
        assert!(redirect.headers.iter().any(|(n, v)| n == "Location" && v == "/b"));
        assert_eq!(site.respond("/nope", false, None).status, 404);
        // An origin that reflects the request's cookie.
        let site = EdgeSite::from_json(&serde_json::json!({
            "zone": "z1", "esc": [],
            "pages": {"/": {"status": 302, "headers": {"Location": "/l?{cookie}"}, "body": "got {cookie}",
                            "reflect_cookie": true},
                      "/plain": {"body": "{cookie}"}},
        }))
        .unwrap();
        let seen = site.respond("/", false, Some("disable_esc=s"));
        assert!(seen
            .headers
            .iter()
            .any(|(n, v)| n == "Location" && v == "/l?disable_esc=s"));
        assert_eq!(seen.body, b"got disable_esc=s");
        assert_eq!(site.respond("/", false, None).body, b"got ");
        assert_eq!(site.respond("/plain", false, Some("c=1")).body, b"{cookie}");
        for (bad, says) in [
            (serde_json::json!({}), "`zone` is required"),
            (serde_json::json!({"zone": "a/b"}), "invalid zone id"),
            (serde_json::json!({"zone": "z", "delay": -1}), "site delay"),
            (
                serde_json::json!({"zone": "z", "pages": {"x": {}}}),
                "must start with /",
            ),
            (serde_json::json!({"zone": "z", "esc": [{"path": "*"}]}), "exactly one"),
            (
                serde_json::json!({"zone": "z", "esc": [{"redirect": "/x", "status": 99}]}),
                "not an HTTP status",
            ),
            (serde_json::json!({"zone": "z", "colour": 1}), "unknown member `colour`"),
            (
                serde_json::json!({"zone": "z", "pages": {"/": {"colour": 1}}}),
                "`/`: unknown member `colour`",
            ),
            (
                serde_json::json!({"zone": "z", "pages": {"/": {"reflect_cookie": "yes"}}}),
                "reflect_cookie must be true or false",
            ),
        ] {
            let msg = EdgeSite::from_json(&bad).unwrap_err().to_string();
            assert!(msg.contains(says), "{bad}: {msg}");
        }
    }
}
