//! Routing and the API's behaviour. To add an API area, add a [`Route`] variant, its
//! pattern in [`route`], its methods in [`Route::allowed`] and its handler in [`handle`].

use std::collections::BTreeMap;

use escpush_core::{ApiMessage, DatasetScope, Envelope, Error as CoreError, JobSpec};
use serde_json::{json, Map, Value};

use crate::wire::{HttpRequest, HttpResponse};

/// The path prefix of every route.
pub(crate) const BASE_PATH: &str = "/client/v4";

/// Zone or account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScopeKind {
    Zone,
    Account,
}

impl From<ScopeKind> for DatasetScope {
    fn from(kind: ScopeKind) -> Self {
        match kind {
            ScopeKind::Zone => DatasetScope::Zone,
            ScopeKind::Account => DatasetScope::Account,
        }
    }
}

impl ScopeKind {
    /// `"zone"` or `"account"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeKind::Zone => "zone",
            ScopeKind::Account => "account",
        }
    }
}

/// A matched route.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Route<'a> {
    /// `/zones/{id}/disable_esc`, `/accounts/{id}/disable_esc`.
    Esc(ScopeKind, &'a str),
    /// `/zones/{id}/logpush/jobs`, `/accounts/{id}/logpush/jobs`.
    LogpushJobs(ScopeKind, &'a str),
    /// `/zones/{id}/logpush/jobs/{job_id}`, `/accounts/{id}/logpush/jobs/{job_id}`.
    LogpushJob(ScopeKind, &'a str, &'a str),
}

impl Route<'_> {
    /// The methods the route answers.
    pub fn allowed(&self) -> &'static [&'static str] {
        match self {
            Route::Esc(..) => &["GET", "POST", "DELETE"],
            Route::LogpushJobs(..) => &["GET", "POST"],
            Route::LogpushJob(..) => &["GET"],
        }
    }
}

/// Matches a request path (with the `/client/v4` prefix) to a route.
pub(crate) fn route(path: &str) -> Option<Route<'_>> {
    let rest = path.strip_prefix(BASE_PATH)?;
    let segments: Vec<&str> = rest.trim_end_matches('/').split('/').skip(1).collect();
    match segments.as_slice() {
        ["zones", id, "disable_esc"] if !id.is_empty() => Some(Route::Esc(ScopeKind::Zone, id)),
        ["accounts", id, "disable_esc"] if !id.is_empty() => Some(Route::Esc(ScopeKind::Account, id)),
        ["zones", id, "logpush", "jobs"] if !id.is_empty() => Some(Route::LogpushJobs(ScopeKind::Zone, id)),
        ["accounts", id, "logpush", "jobs"] if !id.is_empty() => Some(Route::LogpushJobs(ScopeKind::Account, id)),
        ["zones", id, "logpush", "jobs", job] if !id.is_empty() && !job.is_empty() => {
            Some(Route::LogpushJob(ScopeKind::Zone, id, job))
        }
        ["accounts", id, "logpush", "jobs", job] if !id.is_empty() && !job.is_empty() => {
            Some(Route::LogpushJob(ScopeKind::Account, id, job))
        }
        _ => None,
    }
}

/// The ESC setting of one scope.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct EscSetting {
    pub always: bool,
    pub secret: Option<String>,
}

impl EscSetting {
    /// The GET body: `{}` when ESC is active without a secret; `always` and `with_secret`
    /// each shown when they apply (both when both do).
    pub fn to_result(&self) -> Value {
        let mut obj = Map::new();
        if self.always {
            obj.insert("always".to_owned(), Value::Bool(true));
        }
        if let Some(secret) = &self.secret {
            obj.insert("with_secret".to_owned(), Value::String(secret.clone()));
        }
        Value::Object(obj)
    }

    /// For snapshots: never the secret itself.
    pub fn to_snapshot(&self) -> Value {
        json!({
            "always": self.always,
            "secret_set": self.secret.is_some(),
            "secret_length": self.secret.as_ref().map(|s| s.chars().count()),
        })
    }
}

/// Everything the emulator remembers between requests.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub zones: BTreeMap<String, EscSetting>,
    pub accounts: BTreeMap<String, EscSetting>,
    /// Log-push jobs per (scope, id), in creation order; ids are unique across scopes.
    pub jobs: BTreeMap<(ScopeKind, String), Vec<Value>>,
    pub last_job_id: u64,
}

impl State {
    pub fn esc_mut(&mut self, kind: ScopeKind, id: &str) -> &mut EscSetting {
        let map = match kind {
            ScopeKind::Zone => &mut self.zones,
            ScopeKind::Account => &mut self.accounts,
        };
        map.entry(id.to_owned()).or_default()
    }

    pub fn esc(&self, kind: ScopeKind, id: &str) -> EscSetting {
        let map = match kind {
            ScopeKind::Zone => &self.zones,
            ScopeKind::Account => &self.accounts,
        };
        map.get(id).cloned().unwrap_or_default()
    }

    pub fn snapshot(&self) -> Value {
        let side = |m: &BTreeMap<String, EscSetting>| -> Value {
            Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), json!({ "esc": v.to_snapshot() })))
                    .collect(),
            )
        };
        let mut snapshot = json!({ "zones": side(&self.zones), "accounts": side(&self.accounts) });
        for ((kind, id), jobs) in &self.jobs {
            let key = if *kind == ScopeKind::Zone { "zones" } else { "accounts" };
            let redacted: Vec<Value> = jobs
                .iter()
                .cloned()
                .map(|mut job| {
                    if let Value::Object(fields) = &mut job {
                        escpush_core::redact_job(fields);
                    }
                    job
                })
                .collect();
            let entry = snapshot[key]
                .as_object_mut()
                .expect("a snapshot side is an object")
                .entry(id.clone())
                .or_insert_with(|| json!({ "esc": EscSetting::default().to_snapshot() }));
            entry["logpush_jobs"] = Value::Array(redacted);
        }
        snapshot
    }
}

/// An error answer in the v4 envelope.
pub(crate) fn error_response(status: u16, code: i64, message: impl Into<String>) -> HttpResponse {
    HttpResponse::json(status, Envelope::error(vec![ApiMessage::new(code, message)]).to_bytes())
}

fn ok_response(result: Value) -> HttpResponse {
    HttpResponse::json(200, Envelope::ok(result).to_bytes())
}

/// Answers a routed, authenticated request whose method the route allows.
pub(crate) fn handle(route: &Route<'_>, req: &HttpRequest, state: &std::sync::Mutex<State>) -> HttpResponse {
    match route {
        Route::Esc(kind, id) => handle_esc(*kind, id, req, state),
        Route::LogpushJobs(kind, id) => handle_jobs(*kind, id, req, state),
        Route::LogpushJob(kind, id, job_id) => handle_job(*kind, id, job_id, state),
    }
}

/// The v4 error code the emulator gives a job payload the API would refuse.
const INVALID_JOB: i64 = 1004;

fn handle_jobs(kind: ScopeKind, id: &str, req: &HttpRequest, state: &std::sync::Mutex<State>) -> HttpResponse {
    if req.method == "GET" {
        let state = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let jobs = state.jobs.get(&(kind, id.to_owned())).cloned().unwrap_or_default();
        return ok_response(Value::Array(jobs));
    }
    let content_type = req.header("content-type").unwrap_or_default();
    if !content_type.to_ascii_lowercase().starts_with("application/json") {
        return error_response(
            400,
            INVALID_JOB,
            "the body must be JSON with `Content-Type: application/json`",
        );
    }
    let body: Value = match serde_json::from_slice(&req.body) {
        Ok(v) => v,
        Err(e) => {
            return error_response(
                400,
                INVALID_JOB,
                format!("the body is not valid JSON: {}", e.classify_name()),
            )
        }
    };
    // The same checks as the client's, so that both sides refuse the same payloads.
    let spec = match JobSpec::from_body(&body, kind.into()) {
        Ok(spec) => spec,
        Err(err) => {
            let problems = match err {
                CoreError::Invalid { problems } => problems,
                CoreError::Filter(f) => f.into_problems(),
                other => return error_response(400, INVALID_JOB, other.to_string()),
            };
            let errors = problems
                .into_iter()
                .map(|p| {
                    let message = if p.path.is_empty() {
                        p.message
                    } else {
                        format!("{}: {}", p.path, p.message)
                    };
                    ApiMessage::new(INVALID_JOB, message)
                })
                .collect();
            return HttpResponse::json(400, Envelope::error(errors).to_bytes());
        }
    };
    let mut state = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    state.last_job_id += 1;
    let mut record = Map::new();
    record.insert("id".to_owned(), state.last_job_id.into());
    record.insert("enabled".to_owned(), false.into());
    record.insert("name".to_owned(), Value::Null);
    record.insert("logpull_options".to_owned(), Value::Null);
    record.insert("filter".to_owned(), Value::Null);
    record.insert("frequency".to_owned(), "high".into());
    record.insert("kind".to_owned(), "".into());
    if let Value::Object(given) = spec.to_body() {
        record.extend(given);
    }
    for key in ["last_complete", "last_error", "error_message"] {
        record.insert(key.to_owned(), Value::Null);
    }
    let record = Value::Object(record);
    state
        .jobs
        .entry((kind, id.to_owned()))
        .or_default()
        .push(record.clone());
    ok_response(record)
}

fn handle_job(kind: ScopeKind, id: &str, job_id: &str, state: &std::sync::Mutex<State>) -> HttpResponse {
    let Ok(job_id) = job_id.parse::<u64>() else {
        return error_response(
            400,
            INVALID_JOB,
            format!("`{job_id}` is not a job id; job ids are integers"),
        );
    };
    let state = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let found = state
        .jobs
        .get(&(kind, id.to_owned()))
        .and_then(|jobs| jobs.iter().find(|j| j["id"].as_u64() == Some(job_id)));
    match found {
        Some(job) => ok_response(job.clone()),
        None => error_response(404, 1000, format!("no log-push job {job_id} in {} {id}", kind.as_str())),
    }
}

fn handle_esc(kind: ScopeKind, id: &str, req: &HttpRequest, state: &std::sync::Mutex<State>) -> HttpResponse {
    let mut state = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match req.method.as_str() {
        "GET" => ok_response(state.esc(kind, id).to_result()),
        "DELETE" => {
            // Choice where the spec says "not shown": DELETE clears `always` only; a
            // configured secret stays (it is a separate, per-request switch).
            let setting = state.esc_mut(kind, id);
            setting.always = false;
            ok_response(setting.to_result())
        }
        "POST" => match parse_esc_body(req) {
            Ok(EscBody::Always) => {
                let setting = state.esc_mut(kind, id);
                setting.always = true;
                ok_response(setting.to_result())
            }
            Ok(EscBody::Secret(secret)) => {
                // Setting a secret leaves `always` unchanged (SPEC §3).
                let setting = state.esc_mut(kind, id);
                setting.secret = Some(secret);
                ok_response(setting.to_result())
            }
            Err(message) => error_response(400, 1001, message),
        },
        _ => unreachable!("methods are checked against Route::allowed"),
    }
}

enum EscBody {
    Always,
    Secret(String),
}

fn parse_esc_body(req: &HttpRequest) -> Result<EscBody, String> {
    let content_type = req.header("content-type").unwrap_or_default();
    if !content_type.to_ascii_lowercase().starts_with("application/json") {
        return Err("the body must be JSON with `Content-Type: application/json`".to_owned());
    }
    let value: Value =
        serde_json::from_slice(&req.body).map_err(|e| format!("the body is not valid JSON: {}", e.classify_name()))?;
    let Value::Object(obj) = value else {
        return Err("the body must be a JSON object: {\"always\": true} or {\"with_secret\": \"...\"}".to_owned());
    };
    let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    match (keys.as_slice(), obj.get("always"), obj.get("with_secret")) {
        (["always"], Some(Value::Bool(true)), _) => Ok(EscBody::Always),
        (["always"], Some(_), _) => Err("`always` only takes the value true; use DELETE to enable ESC".to_owned()),
        (["with_secret"], _, Some(Value::String(s))) => {
            let len = s.chars().count();
            if (1..=100).contains(&len) {
                Ok(EscBody::Secret(s.clone()))
            } else {
                Err(format!("`with_secret` has {len} characters; it takes 1 to 100"))
            }
        }
        (["with_secret"], _, Some(_)) => Err("`with_secret` must be a string".to_owned()),
        _ => Err("the body must be exactly {\"always\": true} or {\"with_secret\": \"...\"}".to_owned()),
    }
}

trait ClassifyName {
    fn classify_name(&self) -> &'static str;
}

impl ClassifyName for serde_json::Error {
    fn classify_name(&self) -> &'static str {
        match self.classify() {
            serde_json::error::Category::Io => "I/O error",
            serde_json::error::Category::Syntax => "syntax error",
            serde_json::error::Category::Data => "data error",
            serde_json::error::Category::Eof => "unexpected end",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(
            route("/client/v4/zones/abc/disable_esc"),
            Some(Route::Esc(ScopeKind::Zone, "abc"))
        );
        assert_eq!(
            route("/client/v4/accounts/a1/disable_esc/"),
            Some(Route::Esc(ScopeKind::Account, "a1"))
        );
        for bad in [
            "/zones/abc/disable_esc",
            "/client/v4/zones//disable_esc",
            "/client/v4/zones/a/b/disable_esc",
            "/",
        ] {
            assert_eq!(route(bad), None, "{bad}");
        }
    }

    #[test]
    fn settings_render_as_the_spec_shows() {
        let mut s = EscSetting::default();
        assert_eq!(s.to_result(), json!({}));
        s.always = true;
        assert_eq!(s.to_result(), json!({"always": true}));
        s.secret = Some("abc".to_owned());
        assert_eq!(s.to_result(), json!({"always": true, "with_secret": "abc"}));
        assert!(!s.to_snapshot().to_string().contains("abc"));
    }
}
