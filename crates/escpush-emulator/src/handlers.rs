//! Routes and the API's behaviour: credentials, methods, the ESC and log-push handlers.
//! To add an endpoint, add a [`Route`] variant, its pattern in [`route`], its methods in
//! [`Route::allowed`] and its handler in [`handle`].

use std::sync::Mutex;

use escpush_core::{ApiMessage, DatasetScope, Envelope, Error as CoreError, JobSpec, MAX_SECRET_LEN};
use serde_json::{Map, Value};

use crate::lock;
use crate::state::State;
use crate::wire::{HttpRequest, HttpResponse};
use crate::Credentials;

/// The path prefix of every route.
pub(crate) const BASE_PATH: &str = "/client/v4";

/// A matched route.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Route<'a> {
    /// `/zones/{id}/disable_esc`, `/accounts/{id}/disable_esc`.
    Esc(DatasetScope, &'a str),
    /// `/zones/{id}/logpush/jobs`, `/accounts/{id}/logpush/jobs`.
    LogpushJobs(DatasetScope, &'a str),
    /// `/zones/{id}/logpush/jobs/{job_id}`, `/accounts/{id}/logpush/jobs/{job_id}`.
    LogpushJob(DatasetScope, &'a str, &'a str),
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
        ["zones", id, "disable_esc"] if !id.is_empty() => Some(Route::Esc(DatasetScope::Zone, id)),
        ["accounts", id, "disable_esc"] if !id.is_empty() => Some(Route::Esc(DatasetScope::Account, id)),
        ["zones", id, "logpush", "jobs"] if !id.is_empty() => Some(Route::LogpushJobs(DatasetScope::Zone, id)),
        ["accounts", id, "logpush", "jobs"] if !id.is_empty() => Some(Route::LogpushJobs(DatasetScope::Account, id)),
        ["zones", id, "logpush", "jobs", job] if !id.is_empty() && !job.is_empty() => {
            Some(Route::LogpushJob(DatasetScope::Zone, id, job))
        }
        ["accounts", id, "logpush", "jobs", job] if !id.is_empty() && !job.is_empty() => {
            Some(Route::LogpushJob(DatasetScope::Account, id, job))
        }
        _ => None,
    }
}

/// The answer to a request no fault took over: route, method, credentials, then the handler.
pub(crate) fn respond(req: &HttpRequest, creds: &Credentials, state: &Mutex<State>) -> HttpResponse {
    let Some(route) = route(&req.path) else {
        return error_response(404, 7003, format!("No route for the URI {}", req.path));
    };
    let allowed = route.allowed();
    if !allowed.contains(&req.method.as_str()) {
        return error_response(405, 7001, format!("Method {} not available for that URI.", req.method))
            .header("Allow", allowed.join(", "));
    }
    if let Some(resp) = check_auth(req, creds) {
        return resp;
    }
    handle(&route, req, state)
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

/// An error answer in the v4 envelope.
pub(crate) fn error_response(status: u16, code: i64, message: impl Into<String>) -> HttpResponse {
    HttpResponse::json(status, Envelope::error(vec![ApiMessage::new(code, message)]).to_bytes())
}

fn ok_response(result: Value) -> HttpResponse {
    HttpResponse::json(200, Envelope::ok(result).to_bytes())
}

/// Answers a routed, authenticated request whose method the route allows.
pub(crate) fn handle(route: &Route<'_>, req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    match route {
        Route::Esc(kind, id) => handle_esc(*kind, id, req, state),
        Route::LogpushJobs(kind, id) => handle_jobs(*kind, id, req, state),
        Route::LogpushJob(kind, id, job_id) => handle_job(*kind, id, job_id, state),
    }
}

/// The v4 error code the emulator gives a job payload the API would refuse.
const INVALID_JOB: i64 = 1004;

fn handle_jobs(kind: DatasetScope, id: &str, req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    if req.method == "GET" {
        let state = lock(state);
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
    let spec = match JobSpec::from_body(&body, kind) {
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
    let mut state = lock(state);
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

fn handle_job(kind: DatasetScope, id: &str, job_id: &str, state: &Mutex<State>) -> HttpResponse {
    let Ok(job_id) = job_id.parse::<u64>() else {
        return error_response(
            400,
            INVALID_JOB,
            format!("`{job_id}` is not a job id; job ids are integers"),
        );
    };
    let state = lock(state);
    let found = state
        .jobs
        .get(&(kind, id.to_owned()))
        .and_then(|jobs| jobs.iter().find(|j| j["id"].as_u64() == Some(job_id)));
    match found {
        Some(job) => ok_response(job.clone()),
        None => error_response(404, 1000, format!("no log-push job {job_id} in {} {id}", kind.as_str())),
    }
}

fn handle_esc(kind: DatasetScope, id: &str, req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    let mut state = lock(state);
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
            if (1..=MAX_SECRET_LEN).contains(&len) {
                Ok(EscBody::Secret(s.clone()))
            } else {
                Err(format!(
                    "`with_secret` has {len} characters; it takes 1 to {MAX_SECRET_LEN}"
                ))
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
            Some(Route::Esc(DatasetScope::Zone, "abc"))
        );
        assert_eq!(
            route("/client/v4/accounts/a1/disable_esc/"),
            Some(Route::Esc(DatasetScope::Account, "a1"))
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
}
