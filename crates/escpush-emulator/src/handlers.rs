//! Routes and the API's behaviour: credentials, methods, the ESC and log-push handlers.
//! To add an endpoint, add a [`Route`] variant, its pattern in [`route`], its methods in
//! [`Route::allowed`] and its handler in [`handle`].

use std::sync::Mutex;

use escpush_core::{
    ApiMessage, Dataset, DatasetScope, DestinationConf, Envelope, Error as CoreError, Filter, JobSpec, MAX_SECRET_LEN,
};
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
    /// `{scope}/logpush/datasets/{dataset}/jobs`.
    DatasetJobs(DatasetScope, &'a str, &'a str),
    /// `{scope}/logpush/datasets/{dataset}/fields`.
    DatasetFields(DatasetScope, &'a str, &'a str),
    /// `{scope}/logpush/ownership`.
    Ownership(DatasetScope, &'a str),
    /// `{scope}/logpush/ownership/validate`.
    OwnershipValidate(DatasetScope, &'a str),
    /// `{scope}/logpush/validate/destination`.
    ValidateDestination(DatasetScope, &'a str),
    /// `{scope}/logpush/validate/destination/exists`.
    DestinationExists(DatasetScope, &'a str),
    /// `/__emulator/logpush`: the emulator's own control of its log-push quirks
    /// (`GET`: the quirks and the ownership challenges issued, as a test reads a bucket;
    /// `PUT`: sets the quirks).
    Control,
}

impl Route<'_> {
    /// The methods the route answers.
    pub fn allowed(&self) -> &'static [&'static str] {
        match self {
            Route::Esc(..) => &["GET", "POST", "DELETE"],
            Route::LogpushJobs(..) => &["GET", "POST"],
            Route::LogpushJob(..) => &["GET", "PUT", "DELETE"],
            Route::DatasetJobs(..) | Route::DatasetFields(..) => &["GET"],
            Route::Ownership(..)
            | Route::OwnershipValidate(..)
            | Route::ValidateDestination(..)
            | Route::DestinationExists(..) => &["POST"],
            Route::Control => &["GET", "PUT"],
        }
    }
}

/// Matches a request path (with the `/client/v4` prefix) to a route.
pub(crate) fn route(path: &str) -> Option<Route<'_>> {
    let rest = path.strip_prefix(BASE_PATH)?;
    let segments: Vec<&str> = rest.trim_end_matches('/').split('/').skip(1).collect();
    if segments.as_slice() == ["__emulator", "logpush"] {
        return Some(Route::Control);
    }
    let (kind, id, tail) = match segments.as_slice() {
        ["zones", id, tail @ ..] if !id.is_empty() => (DatasetScope::Zone, *id, tail),
        ["accounts", id, tail @ ..] if !id.is_empty() => (DatasetScope::Account, *id, tail),
        _ => return None,
    };
    match tail {
        ["logpush", "datasets", d, "jobs"] if !d.is_empty() => return Some(Route::DatasetJobs(kind, id, d)),
        ["logpush", "datasets", d, "fields"] if !d.is_empty() => return Some(Route::DatasetFields(kind, id, d)),
        ["logpush", "ownership"] => return Some(Route::Ownership(kind, id)),
        ["logpush", "ownership", "validate"] => return Some(Route::OwnershipValidate(kind, id)),
        ["logpush", "validate", "destination"] => return Some(Route::ValidateDestination(kind, id)),
        ["logpush", "validate", "destination", "exists"] => return Some(Route::DestinationExists(kind, id)),
        _ => {}
    }
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
        Route::LogpushJob(kind, id, job_id) => handle_job(*kind, id, job_id, req, state),
        Route::DatasetJobs(kind, id, dataset) => with_dataset(*kind, dataset, |d| {
            let state = lock(state);
            let jobs: Vec<Value> = state
                .jobs
                .get(&(*kind, (*id).to_owned()))
                .into_iter()
                .flatten()
                .filter(|j| j["dataset"].as_str() == Some(d.name()))
                .cloned()
                .collect();
            ok_response(Value::Array(jobs))
        }),
        Route::DatasetFields(kind, _, dataset) => with_dataset(*kind, dataset, |d| {
            let state = lock(state);
            ok_response(Value::Object(live_fields(d, &state.quirks)))
        }),
        Route::Ownership(kind, id) => with_destination(req, |conf, _| {
            let mut state = lock(state);
            let token = crate::random_token("challenge-");
            state
                .challenges
                .insert((*kind, (*id).to_owned(), conf.expose().to_owned()), token);
            let filename = format!(
                "{}/ownership-challenge-{}.txt",
                conf.path().trim_end_matches('/'),
                state.challenges.len()
            );
            ok_response(serde_json::json!({"filename": filename, "message": "", "valid": true}))
        }),
        Route::OwnershipValidate(kind, id) => with_destination(req, |conf, body| {
            let state = lock(state);
            let given = body
                .get("ownership_challenge")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let issued = state
                .challenges
                .get(&(*kind, (*id).to_owned(), conf.expose().to_owned()));
            let (valid, message) = match issued {
                Some(token) if token == given => (true, ""),
                Some(_) => (
                    false,
                    "the ownership challenge does not match the one written to the destination",
                ),
                None => (false, "no ownership challenge was requested for this destination"),
            };
            ok_response(serde_json::json!({"valid": valid, "message": message}))
        }),
        Route::ValidateDestination(..) => with_destination(req, |_, _| {
            ok_response(serde_json::json!({"valid": true, "message": ""}))
        }),
        // The docs ask it about `s3://foo`, a bucket without a region: the form only.
        Route::DestinationExists(kind, id) => with_address(req, |conf, _| {
            let state = lock(state);
            let exists = state
                .jobs
                .get(&(*kind, (*id).to_owned()))
                .into_iter()
                .flatten()
                .any(|j| j["destination_conf"].as_str() == Some(conf.expose()));
            ok_response(serde_json::json!({ "exists": exists }))
        }),
        Route::Control => handle_control(req, state),
    }
}

/// Answers with the dataset the path names, if the scope holds it.
fn with_dataset(kind: DatasetScope, name: &str, f: impl FnOnce(&'static Dataset) -> HttpResponse) -> HttpResponse {
    match Dataset::get(name, Some(kind)) {
        Ok(d) => f(d),
        Err(err) => error_response(400, INVALID_JOB, err.to_string()),
    }
}

/// The JSON object body of a request.
fn json_object(req: &HttpRequest) -> Result<Map<String, Value>, HttpResponse> {
    let content_type = req.header("content-type").unwrap_or_default();
    if !content_type.to_ascii_lowercase().starts_with("application/json") {
        return Err(error_response(
            400,
            INVALID_JOB,
            "the body must be JSON with `Content-Type: application/json`",
        ));
    }
    match serde_json::from_slice(&req.body) {
        Ok(Value::Object(obj)) => Ok(obj),
        Ok(_) => Err(error_response(400, INVALID_JOB, "the body must be a JSON object")),
        Err(e) => Err(error_response(
            400,
            INVALID_JOB,
            format!("the body is not valid JSON: {}", e.classify_name()),
        )),
    }
}

/// Answers with the body's `destination_conf`, checked with core's parser.
fn with_destination(
    req: &HttpRequest,
    f: impl FnOnce(&DestinationConf, &Map<String, Value>) -> HttpResponse,
) -> HttpResponse {
    let body = match json_object(req) {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    match body
        .get("destination_conf")
        .and_then(Value::as_str)
        .map(DestinationConf::parse)
    {
        Some(Ok(conf)) => f(&conf, &body),
        Some(Err(err)) => error_response(400, INVALID_JOB, err.to_string()),
        None => error_response(400, INVALID_JOB, "destination_conf: a string is required"),
    }
}

/// Answers with the body's `destination_conf` read by its form only (core's
/// `DestinationConf::parse_address`), as the destination-exists check reads it.
fn with_address(
    req: &HttpRequest,
    f: impl FnOnce(&DestinationConf, &Map<String, Value>) -> HttpResponse,
) -> HttpResponse {
    let body = match json_object(req) {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    match body
        .get("destination_conf")
        .and_then(Value::as_str)
        .map(DestinationConf::parse_address)
    {
        Some(Ok(conf)) => f(&conf, &body),
        Some(Err(err)) => error_response(400, INVALID_JOB, err.to_string()),
        None => error_response(400, INVALID_JOB, "destination_conf: a string is required"),
    }
}

/// The ownership challenges issued, by scope and destination.
type Challenges = std::collections::BTreeMap<(DatasetScope, String, String), String>;

/// Refuses an `ownership_challenge` that is not the one this emulator wrote to the
/// destination for the scope (the API checks that its claims match the job's: the zone or
/// account and the destination; logpush-ownership-challenge.mdx). Whether one is needed at
/// all is core's rule, checked before.
fn check_challenge(
    challenges: &Challenges,
    kind: DatasetScope,
    id: &str,
    body: &Map<String, Value>,
    destination: &str,
) -> Option<HttpResponse> {
    let given = body.get("ownership_challenge")?.as_str()?;
    let issued = challenges.get(&(kind, id.to_owned(), destination.to_owned()));
    if issued.is_some_and(|token| token == given) {
        return None;
    }
    Some(error_response(
        400,
        INVALID_JOB,
        "ownership_challenge: not the challenge written to this destination for this zone or account; ask for a new \
         one (POST .../logpush/ownership) and give the token it writes",
    ))
}

/// The live field list: the embedded schema's fields, each with the docs' description as
/// the API answers it, with the quirks' drift applied.
fn live_fields(d: &Dataset, quirks: &crate::faults::LogpushQuirks) -> Map<String, Value> {
    let drift = quirks.field_drift.get(d.name()).cloned().unwrap_or_default();
    let mut out = Map::new();
    for f in d.fields() {
        if !drift.remove.iter().any(|r| r == f.name()) {
            let description = crate::descriptions::description(d, f.name());
            out.insert(f.name().to_owned(), Value::String(description.to_owned()));
        }
    }
    for (name, description) in drift.add {
        out.insert(name, Value::String(description));
    }
    out
}

fn handle_control(req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    if req.method == "GET" {
        return ok_response(lock(state).logpush_control());
    }
    let body = match json_object(req) {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    match crate::faults::LogpushQuirks::from_json(&Value::Object(body)) {
        Ok(quirks) => {
            lock(state).quirks = quirks;
            ok_response(serde_json::json!({}))
        }
        Err(message) => error_response(400, INVALID_JOB, message),
    }
}

/// A job's problems as the API lists them: one error entry each, prefixed by its path.
fn problems_response(err: CoreError) -> HttpResponse {
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
    HttpResponse::json(400, Envelope::error(errors).to_bytes())
}

/// One expression of [`reserialize_filter`], as a careless server prints it.
fn expr(v: &Value) -> String {
    let Some(obj) = v.as_object() else { return v.to_string() };
    for kind in ["and", "or"] {
        if let Some(Value::Array(items)) = obj.get(kind) {
            let parts: Vec<String> = if items.len() >= 3 {
                let rest = serde_json::json!({ kind: items[1..].to_vec() });
                vec![expr(&items[0]), expr(&rest)]
            } else {
                items.iter().map(expr).collect()
            };
            return format!("{{\"{kind}\": [{}]}}", parts.join(", "));
        }
    }
    let value = match &obj["value"] {
        Value::Number(n) => Value::String(n.to_string()),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| {
                    if let Value::Number(n) = i {
                        Value::String(n.to_string())
                    } else {
                        i.clone()
                    }
                })
                .collect(),
        ),
        other => other.clone(),
    };
    let value = serde_json::to_string(&value)
        .unwrap_or_default()
        .replace("\",\"", "\", \"");
    format!(
        "{{\"value\": {value}, \"operator\": {}, \"key\": {}}}",
        obj["operator"], obj["key"]
    )
}

/// A stored filter as a server may write it back (when `reserialize_filters` is on):
/// members in reverse order, spaces after `:` and `,`, numbers as strings, a group of three
/// or more nested as its first member and a group of the rest.
pub(crate) fn reserialize_filter(text: &str) -> String {
    let Ok(filter) = Filter::parse(text) else {
        return text.to_owned();
    };
    format!("{{\"where\": {}}}", expr(&filter.to_value()["where"]))
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
        Err(err) => return problems_response(err),
    };
    let mut state = lock(state);
    if let Value::Object(given) = &body {
        if let Some(resp) = check_challenge(&state.challenges, kind, id, given, spec.destination().expose()) {
            return resp;
        }
    }
    // The API's documented job limits, as the client's plan reads them (core's JOB_LIMITS).
    let held = state.jobs.get(&(kind, id.to_owned()));
    let datasets: Vec<&str> = held
        .into_iter()
        .flatten()
        .map(|j| j["dataset"].as_str().unwrap_or_default())
        .collect();
    if escpush_core::limit_reached(kind, &datasets, spec.dataset().name()).is_some() {
        return error_response(400, INVALID_JOB, escpush_core::MAX_JOBS_MESSAGE);
    }
    state.last_job_id += 1;
    // The record as core's job field table makes it from what the creation gave.
    let Value::Object(given) = spec.to_body() else {
        unreachable!("a job body is an object")
    };
    let mut record = escpush_core::job_record(state.last_job_id, &given);
    if state.quirks.reserialize_filters {
        reserialize_record(&mut record);
    }
    let record = Value::Object(record);
    state
        .jobs
        .entry((kind, id.to_owned()))
        .or_default()
        .push(record.clone());
    ok_response(record)
}

fn reserialize_record(record: &mut Map<String, Value>) {
    if let Some(Value::String(text)) = record.get("filter") {
        let again = reserialize_filter(text);
        record.insert("filter".to_owned(), Value::String(again));
    }
}

fn handle_job(kind: DatasetScope, id: &str, job_id: &str, req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    let Ok(job_id) = job_id.parse::<u64>() else {
        return error_response(
            400,
            INVALID_JOB,
            format!("`{job_id}` is not a job id; job ids are integers"),
        );
    };
    let not_found = || error_response(404, 1000, format!("no log-push job {job_id} in {} {id}", kind.as_str()));
    let body = if req.method == "PUT" {
        match json_object(req) {
            Ok(b) => Some(b),
            Err(resp) => return resp,
        }
    } else {
        None
    };
    let mut guard = lock(state);
    let state = &mut *guard;
    let reserialize = state.quirks.reserialize_filters;
    let challenges = &state.challenges;
    let Some(jobs) = state.jobs.get_mut(&(kind, id.to_owned())) else {
        return not_found();
    };
    let Some(at) = jobs.iter().position(|j| j["id"].as_u64() == Some(job_id)) else {
        return not_found();
    };
    match (req.method.as_str(), body) {
        ("DELETE", _) => {
            jobs.remove(at);
            ok_response(serde_json::json!({ "id": job_id }))
        }
        ("PUT", Some(body)) => {
            let Value::Object(mut record) = jobs[at].clone() else {
                return not_found();
            };
            // Judged as the client judges its own body (core's check_update): dataset and
            // kind cannot change, the fields sent are checked on the job with them applied,
            // a new destination comes with its challenge.
            if let Err(err) = escpush_core::check_update(&record, &body, kind) {
                return problems_response(err);
            }
            let destination = body
                .get("destination_conf")
                .or_else(|| record.get("destination_conf"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if let Some(resp) = check_challenge(challenges, kind, id, &body, &destination) {
                return resp;
            }
            // A PUT changes exactly the fields it sends (example-logpush-curl.mdx); what the
            // record never holds (the challenge) is not kept.
            for (key, value) in body {
                let field = escpush_core::JobField::get(&key);
                if field.is_some_and(|f| f.update && f.record != escpush_core::InRecord::Never) {
                    record.insert(key, value);
                }
            }
            if reserialize {
                reserialize_record(&mut record);
            }
            jobs[at] = Value::Object(record);
            ok_response(jobs[at].clone())
        }
        _ => ok_response(jobs[at].clone()),
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

    #[test]
    fn logpush_routes() {
        assert_eq!(
            route("/client/v4/zones/z/logpush/datasets/http_requests/fields"),
            Some(Route::DatasetFields(DatasetScope::Zone, "z", "http_requests"))
        );
        assert_eq!(
            route("/client/v4/accounts/a/logpush/validate/destination/exists"),
            Some(Route::DestinationExists(DatasetScope::Account, "a"))
        );
        assert_eq!(route("/client/v4/__emulator/logpush"), Some(Route::Control));
        assert_eq!(route("/client/v4/zones/z/logpush/datasets//fields"), None);
    }

    #[test]
    fn a_reserialized_filter_means_the_same() {
        let f = r#"{"where":{"and":[{"key":"EdgeResponseStatus","operator":"geq","value":500},{"key":"ClientCountry","operator":"in","value":["cn","ru"]},{"key":"EdgeResponseStatus","operator":"in","value":[1,2]}]}}"#;
        let again = reserialize_filter(f);
        assert_eq!(
            again,
            r#"{"where": {"and": [{"value": "500", "operator": "geq", "key": "EdgeResponseStatus"}, {"and": [{"value": ["cn", "ru"], "operator": "in", "key": "ClientCountry"}, {"value": ["1", "2"], "operator": "in", "key": "EdgeResponseStatus"}]}]}}"#
        );
        let http = Dataset::get("http_requests", None).unwrap();
        let (a, b) = (Filter::parse(f).unwrap(), Filter::parse(&again).unwrap());
        assert_ne!(a, b);
        assert!(a.equivalent(&b, Some(http)));
    }
}
