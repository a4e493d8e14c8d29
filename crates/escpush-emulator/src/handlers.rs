//! The API's behaviour: credentials, then one handler per endpoint of core's table. Routing
//! is the table's ([`Endpoint::route`]): a path no endpoint has is a 404, a method its
//! endpoints do not take a 405 with `Allow` from the table; [`handle`] answers each
//! endpoint in one exhaustive `match`, so a new row of the table does not compile until it
//! has its handler here. What is the emulator's own: its control route
//! (`/__emulator/logpush`), its state, faults and quirks.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use escpush_core::{
    ApiMessage, DestinationConf, Endpoint, Envelope, Error as CoreError, EscOp, InstantLogsSpec, JobSpec, OriginCheck,
    Route, Routed,
};
use escpush_filter::Filter;
use escpush_filter::{Dataset, DatasetScope};
use serde_json::{Map, Value};

use crate::lock;
use crate::state::State;
use crate::wire::{HttpRequest, HttpResponse};
use crate::Credentials;

/// The path prefix of every route.
pub(crate) const BASE_PATH: &str = "/client/v4";

/// The emulator's own control route (below [`BASE_PATH`]), not the API's: `GET` the
/// log-push quirks and the ownership challenges issued (as a test reads a bucket), `PUT`
/// the quirks.
const CONTROL_PATH: &str = "/__emulator/logpush";

/// The methods of [`CONTROL_PATH`].
const CONTROL_METHODS: &[&str] = &["GET", "PUT"];

/// The path below [`BASE_PATH`], without a trailing `/`: what core's table routes.
fn api_path(path: &str) -> Option<&str> {
    path.strip_prefix(BASE_PATH).map(|p| p.trim_end_matches('/'))
}

/// Whether `path` is the emulator's control route (whose answers list the challenges issued).
pub(crate) fn is_control(path: &str) -> bool {
    api_path(path) == Some(CONTROL_PATH)
}

/// The answer to a request no fault took over: route, method, credentials, then the handler.
pub(crate) fn respond(req: &HttpRequest, creds: &Credentials, state: &Mutex<State>) -> HttpResponse {
    let no_route = || error_response(404, 7003, format!("No route for the URI {}", req.path));
    let not_allowed = |allowed: &[&str]| {
        error_response(405, 7001, format!("Method {} not available for that URI.", req.method))
            .header("Allow", allowed.join(", "))
    };
    let Some(path) = api_path(&req.path) else {
        return no_route();
    };
    if path == CONTROL_PATH {
        if !CONTROL_METHODS.contains(&req.method.as_str()) {
            return not_allowed(CONTROL_METHODS);
        }
        return check_auth(req, creds).unwrap_or_else(|| handle_control(req, state));
    }
    match Endpoint::route(&req.method, path) {
        Routed::Found(route) => check_auth(req, creds).unwrap_or_else(|| handle(&route, req, state)),
        Routed::MethodNotAllowed(allowed) => {
            let names: Vec<&str> = allowed.iter().map(|m| m.as_str()).collect();
            not_allowed(&names)
        }
        Routed::NotFound => no_route(),
    }
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

/// Answers a routed, authenticated request: one arm per endpoint of core's table.
pub(crate) fn handle(route: &Route<'_>, req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    let (kind, id) = (route.kind, route.scope_id);
    // The template's arguments, in order (the table gives each endpoint its count).
    let arg = |i: usize| route.args.get(i).copied().unwrap_or_default();
    match route.endpoint {
        Endpoint::EscStatus => ok_response(lock(state).esc(kind, id).to_result()),
        Endpoint::EscSet => esc_set(kind, id, req, state),
        Endpoint::EscEnable => {
            // Choice where the spec says "not shown": DELETE clears `always` only; a
            // configured secret stays (it is a separate, per-request switch).
            let mut state = lock(state);
            let setting = state.esc_mut(kind, id);
            setting.always = false;
            ok_response(setting.to_result())
        }
        Endpoint::JobList => list_jobs(kind, id, state),
        Endpoint::JobCreate => create_job(kind, id, req, state),
        Endpoint::JobGet => get_job(kind, id, arg(0), state),
        Endpoint::JobUpdate => update_job(kind, id, arg(0), req, state),
        Endpoint::JobDelete => delete_job(kind, id, arg(0), state),
        Endpoint::DatasetJobs => with_dataset(kind, arg(0), |d| {
            let state = lock(state);
            let jobs: Vec<Value> = state
                .jobs
                .get(&(kind, id.to_owned()))
                .into_iter()
                .flatten()
                .filter(|j| j["dataset"].as_str() == Some(d.name()))
                .cloned()
                .collect();
            ok_response(Value::Array(jobs))
        }),
        Endpoint::DatasetFields => with_dataset(kind, arg(0), |d| {
            let state = lock(state);
            ok_response(Value::Object(live_fields(d, &state.quirks)))
        }),
        Endpoint::OwnershipChallenge => with_destination(req, |conf, _| {
            let mut state = lock(state);
            let token = crate::random_token("challenge-");
            state
                .challenges
                .insert((kind, id.to_owned(), conf.expose().to_owned()), token);
            // Under the bucket's path, as the docs' example (`burritobot/logs/ownership-
            // challenge.txt`), but never under a part that is a credential (a Sumo Logic
            // collector's path, a `user:password@`): the answer shows the name.
            let filename = format!(
                "{}/ownership-challenge-{}.txt",
                conf.shown_path().trim_end_matches('/'),
                state.challenges.len()
            );
            ok_response(serde_json::json!({"filename": filename, "message": "", "valid": true}))
        }),
        Endpoint::OwnershipValidate => with_destination(req, |conf, body| {
            let state = lock(state);
            let given = body
                .get("ownership_challenge")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let issued = state.challenges.get(&(kind, id.to_owned(), conf.expose().to_owned()));
            // `{valid}` alone: the schema's logpush_validate_ownership_response and SDK 5.9's
            // OwnershipValidation give no reason for a challenge refused.
            let valid = issued.is_some_and(|token| token == given);
            ok_response(serde_json::json!({ "valid": valid }))
        }),
        Endpoint::ValidateDestination => with_destination(req, |_, _| {
            ok_response(serde_json::json!({"valid": true, "message": ""}))
        }),
        // The docs ask it about `s3://foo`, a bucket without a region: the form only, and
        // whether a job pushes to that place (core's `DestinationConf::same_place`).
        Endpoint::DestinationExists => with_address(req, |conf, _| {
            let state = lock(state);
            let exists = state
                .jobs
                .get(&(kind, id.to_owned()))
                .into_iter()
                .flatten()
                .filter_map(|j| j["destination_conf"].as_str())
                .filter_map(|text| DestinationConf::parse_address(text).ok())
                .any(|job| job.same_place(conf));
            ok_response(serde_json::json!({ "exists": exists }))
        }),
        Endpoint::ValidateOrigin => validate_origin(kind, req),
        Endpoint::InstantLogsList => {
            let mut state = lock(state);
            let sessions = active_sessions(&mut state, id);
            ok_response(Value::Array(sessions.iter().map(|(_, s)| s.clone()).collect()))
        }
        Endpoint::InstantLogsCreate => create_instant_logs_job(id, req, state),
        Endpoint::TransformerList
        | Endpoint::TransformerCreate
        | Endpoint::TransformerPreview
        | Endpoint::TransformerGet
        | Endpoint::TransformerContent
        | Endpoint::TransformerVersions
        | Endpoint::TransformerUpdate
        | Endpoint::TransformerDelete => crate::transformers::handle(route, req, state),
    }
}

/// `POST {scope}/logpush/validate/origin`: a body of another shape is a 400; options that do
/// not hold (they do not parse, or name fields the dataset lacks) are `valid: false` with
/// the reason, as the API's validation answers (schema `S:logpush_validate_response`).
/// Both judged by core's `OriginCheck`, as the client judges them before sending.
fn validate_origin(kind: DatasetScope, req: &HttpRequest) -> HttpResponse {
    let body = match json_object(req) {
        Ok(body) => Value::Object(body),
        Err(resp) => return resp,
    };
    match OriginCheck::from_body(&body, kind).map(|check| check.verdict()) {
        Err(err) => problems_response(err),
        Ok(Ok(())) => ok_response(serde_json::json!({"valid": true, "message": ""})),
        Ok(Err(err)) => ok_response(serde_json::json!({"valid": false, "message": err.to_string()})),
    }
}

/// How long an Instant Logs session lives: "Maximum session time is 60 minutes", and it stops
/// "if you stop listening to a socket for more than five minutes" (instant-logs.mdx, Limits).
/// The emulator serves no WebSocket, so nothing ever listens: a session stops five minutes
/// after it opened.
const SESSION_UNHEARD: Duration = Duration::from_secs(5 * 60);

/// The sessions of a zone still active (the others forgotten).
fn active_sessions<'s>(state: &'s mut State, zone: &str) -> &'s mut Vec<(Instant, Value)> {
    let sessions = state.instant_logs.entry(zone.to_owned()).or_default();
    sessions.retain(|(opened, _)| opened.elapsed() < SESSION_UNHEARD);
    sessions
}

/// `POST /zones/{zone_id}/logpush/edge/jobs`: the body read by core's `InstantLogsSpec` (the
/// client's checks); "Only one active Instant Logs session per zone" (instant-logs.mdx,
/// Limits), so a second one while the first is active is refused. The answer is the session
/// (schema `S:logpush_instant_logs_job`): its `wss://` address (the docs' form), its id, and
/// the `fields`, `filter` and `sample` given, as given.
fn create_instant_logs_job(zone: &str, req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    let body = match json_object(req) {
        Ok(body) => body,
        Err(resp) => return resp,
    };
    if let Err(err) = InstantLogsSpec::from_body(&Value::Object(body.clone())) {
        return problems_response(err);
    }
    let mut state = lock(state);
    let sessions = active_sessions(&mut state, zone);
    if sessions.len() >= escpush_core::MAX_ACTIVE_SESSIONS {
        return error_response(
            400,
            INVALID_JOB,
            "creating a new Instant Logs job is not allowed: a zone has one active Instant Logs session at a time",
        );
    }
    let session_id = crate::random_token("");
    let mut record = Map::new();
    record.insert(
        "destination_conf".to_owned(),
        format!("wss://logs.cloudflare.com/instant-logs/ws/sessions/{session_id}").into(),
    );
    for key in ["fields", "filter", "sample"] {
        if let Some(value) = body.get(key).filter(|v| !v.is_null()) {
            record.insert(key.to_owned(), value.clone());
        }
    }
    record.insert("session_id".to_owned(), session_id.into());
    let record = Value::Object(record);
    sessions.push((Instant::now(), record.clone()));
    ok_response(record)
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
    match json_body(req) {
        Ok(Value::Object(obj)) => Ok(obj),
        Ok(_) => Err(error_response(400, INVALID_JOB, "the body must be a JSON object")),
        Err(message) => Err(error_response(400, INVALID_JOB, message)),
    }
}

/// Answers with the body's `destination_conf`, checked with core's parser.
fn with_destination(
    req: &HttpRequest,
    f: impl FnOnce(&DestinationConf, &Map<String, Value>) -> HttpResponse,
) -> HttpResponse {
    with_destination_read(req, DestinationConf::parse, f)
}

/// Answers with the body's `destination_conf` read by its form only (core's
/// `DestinationConf::parse_address`), as the destination-exists check reads it.
fn with_address(
    req: &HttpRequest,
    f: impl FnOnce(&DestinationConf, &Map<String, Value>) -> HttpResponse,
) -> HttpResponse {
    with_destination_read(req, DestinationConf::parse_address, f)
}

/// Answers with the body's `destination_conf` as `read` reads it.
fn with_destination_read(
    req: &HttpRequest,
    read: impl FnOnce(&str) -> Result<DestinationConf, CoreError>,
    f: impl FnOnce(&DestinationConf, &Map<String, Value>) -> HttpResponse,
) -> HttpResponse {
    let body = match json_object(req) {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    match body.get("destination_conf").and_then(Value::as_str).map(read) {
        Some(Ok(conf)) => f(&conf, &body),
        Some(Err(err)) => error_response(400, INVALID_JOB, err.to_string()),
        None => error_response(400, INVALID_JOB, "destination_conf: a string is required"),
    }
}

/// The jobs of every scope (the state's).
type Jobs = std::collections::BTreeMap<(DatasetScope, String), Vec<Value>>;

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

/// `GET {scope}/logpush/jobs`: every job of the scope.
fn list_jobs(kind: DatasetScope, id: &str, state: &Mutex<State>) -> HttpResponse {
    let state = lock(state);
    let jobs = state.jobs.get(&(kind, id.to_owned())).cloned().unwrap_or_default();
    ok_response(Value::Array(jobs))
}

/// `POST {scope}/logpush/jobs`: the body judged by core's `JobSpec::from_body` (the
/// client's own checks, so that both sides refuse the same payloads), the challenge against
/// the ones written, the scope's job limits; the record as core's table makes it.
fn create_job(kind: DatasetScope, id: &str, req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    let body = match json_body(req) {
        Ok(body) => body,
        Err(message) => return error_response(400, INVALID_JOB, message),
    };
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
    if escpush_core::emulator::limit_reached(kind, &datasets, spec.dataset().name()).is_some() {
        return error_response(400, INVALID_JOB, escpush_core::MAX_JOBS_MESSAGE);
    }
    state.last_job_id += 1;
    // The record as core's job field table makes it from what the creation gave.
    let Value::Object(given) = spec.to_body() else {
        unreachable!("a job body is an object")
    };
    let mut record = escpush_core::emulator::job_record(state.last_job_id, &given);
    if let Some(resp) = crate::transformers::job_refusal(&state, kind, id, &record) {
        state.last_job_id -= 1;
        return resp;
    }
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

/// The jobs of the scope and the place in them of the job the path names (`job_id`), or
/// the answer when there is none: 400 for an id that is not an integer, 404 for no such job.
fn find_job<'s>(
    jobs: &'s mut Jobs,
    kind: DatasetScope,
    id: &str,
    job_id: &str,
) -> Result<(&'s mut Vec<Value>, usize), HttpResponse> {
    let Ok(number) = job_id.parse::<u64>() else {
        return Err(error_response(
            400,
            INVALID_JOB,
            format!("`{job_id}` is not a job id; job ids are integers"),
        ));
    };
    let not_found = || error_response(404, 1000, format!("no log-push job {number} in {} {id}", kind.as_str()));
    let jobs = jobs.get_mut(&(kind, id.to_owned())).ok_or_else(not_found)?;
    let at = jobs
        .iter()
        .position(|j| j["id"].as_u64() == Some(number))
        .ok_or_else(not_found)?;
    Ok((jobs, at))
}

/// `GET {scope}/logpush/jobs/{job_id}`.
fn get_job(kind: DatasetScope, id: &str, job_id: &str, state: &Mutex<State>) -> HttpResponse {
    let mut state = lock(state);
    match find_job(&mut state.jobs, kind, id, job_id) {
        Ok((jobs, at)) => ok_response(jobs[at].clone()),
        Err(resp) => resp,
    }
}

/// `DELETE {scope}/logpush/jobs/{job_id}`: answers `{id}` (schema, SDK 5.9).
fn delete_job(kind: DatasetScope, id: &str, job_id: &str, state: &Mutex<State>) -> HttpResponse {
    let mut state = lock(state);
    match find_job(&mut state.jobs, kind, id, job_id) {
        Ok((jobs, at)) => {
            let removed = jobs.remove(at);
            ok_response(serde_json::json!({ "id": removed["id"] }))
        }
        Err(resp) => resp,
    }
}

/// `PUT {scope}/logpush/jobs/{job_id}`: judged as the client judges its own body (core's
/// `check_update`: dataset and kind cannot change, the fields sent are checked on the job
/// with them applied, a new destination comes with its challenge), the challenge against
/// the ones written, then the record as core updates it (`updated_record`: only the fields
/// sent change, example-logpush-curl.mdx).
fn update_job(kind: DatasetScope, id: &str, job_id: &str, req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    let body = match json_object(req) {
        Ok(body) => body,
        Err(resp) => return resp,
    };
    let mut guard = lock(state);
    let state = &mut *guard;
    let reserialize = state.quirks.reserialize_filters;
    let (jobs, at) = match find_job(&mut state.jobs, kind, id, job_id) {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    let Value::Object(record) = &jobs[at] else {
        unreachable!("a stored job is an object")
    };
    if let Err(err) = escpush_core::check_update(record, &body, kind) {
        return problems_response(err);
    }
    let mut record = escpush_core::emulator::updated_record(record, &body);
    // A transformer attached is the account's and of the job's dataset (core's rule).
    if body.get("transformer_id").is_some_and(|t| !t.is_null()) {
        if let Some(resp) = crate::transformers::job_refusal(state, kind, id, &record) {
            return resp;
        }
    }
    // The challenge is checked against the destination the job will push to.
    let destination = record["destination_conf"].as_str().unwrap_or_default().to_owned();
    if let Some(resp) = check_challenge(&state.challenges, kind, id, &body, &destination) {
        return resp;
    }
    if reserialize {
        reserialize_record(&mut record);
    }
    let (jobs, at) = match find_job(&mut state.jobs, kind, id, job_id) {
        Ok(found) => found,
        Err(resp) => return resp,
    };
    jobs[at] = Value::Object(record);
    ok_response(jobs[at].clone())
}

/// `POST .../disable_esc`: the body read by core's own reader ([`EscOp::read_body`]), so
/// that a secret the client refuses to send (`EscSecret::new`) is refused here too.
fn esc_set(kind: DatasetScope, id: &str, req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    let body = match json_body(req) {
        Ok(body) => body,
        Err(message) => return error_response(400, 1001, message),
    };
    let op = match EscOp::read_body(&body) {
        Ok(op) => op,
        Err(err) => return error_response(400, 1001, err.to_string()),
    };
    let mut state = lock(state);
    let setting = state.esc_mut(kind, id);
    match op {
        EscOp::SetSecret(secret) => setting.secret = Some(secret.expose().to_owned()),
        // Setting a secret leaves `always` unchanged, and `always` leaves the secret (SPEC §3).
        _ => setting.always = true,
    }
    ok_response(setting.to_result())
}

/// The JSON body of a request sent as `application/json`, or why not.
fn json_body(req: &HttpRequest) -> Result<Value, String> {
    let content_type = req.header("content-type").unwrap_or_default();
    if !content_type.to_ascii_lowercase().starts_with("application/json") {
        return Err("the body must be JSON with `Content-Type: application/json`".to_owned());
    }
    serde_json::from_slice(&req.body).map_err(|e| format!("the body is not valid JSON: {}", e.classify_name()))
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

    fn request(method: &str, path: &str, body: &str) -> HttpRequest {
        HttpRequest {
            method: method.to_owned(),
            path: path.to_owned(),
            query: String::new(),
            headers: vec![
                ("Authorization".to_owned(), "Bearer t".to_owned()),
                ("Content-Type".to_owned(), "application/json".to_owned()),
            ],
            body: body.as_bytes().to_vec(),
            close: false,
        }
    }

    fn answer(method: &str, path: &str, body: &str) -> (u16, Option<String>, Value) {
        answer_on(&Mutex::new(State::default()), method, path, body)
    }

    fn answer_on(state: &Mutex<State>, method: &str, path: &str, body: &str) -> (u16, Option<String>, Value) {
        let creds = Credentials {
            api_key: "k".to_owned(),
            email: "e@x".to_owned(),
            api_token: "t".to_owned(),
        };
        let resp = respond(&request(method, path, body), &creds, state);
        let allow = resp.headers.iter().find(|(k, _)| k == "Allow").map(|(_, v)| v.clone());
        (resp.status, allow, serde_json::from_slice(&resp.body).unwrap())
    }

    #[test]
    fn routes_come_from_the_table_below_the_base_path() {
        assert_eq!(answer("GET", "/client/v4/zones/abc/disable_esc", "").0, 200);
        assert_eq!(answer("GET", "/client/v4/accounts/a1/disable_esc/", "").0, 200);
        assert_eq!(answer("GET", "/client/v4/__emulator/logpush", "").0, 200);
        for missing in [
            "/zones/abc/disable_esc",
            "/client/v4/zones//disable_esc",
            "/client/v4/zones/a/b/disable_esc",
            "/client/v4/zones/z/logpush/datasets//fields",
            "/client/v4",
            "/",
        ] {
            let (status, _, body) = answer("GET", missing, "");
            assert_eq!(
                (status, &body["errors"][0]["code"]),
                (404, &Value::from(7003)),
                "{missing}"
            );
        }
        // 405 with `Allow` from the table's methods, in its order (and the control route's own).
        for (path, allow) in [
            ("/client/v4/zones/z/disable_esc", "GET, POST, DELETE"),
            ("/client/v4/accounts/a/logpush/jobs", "GET, POST"),
            ("/client/v4/zones/z/logpush/jobs/1", "GET, PUT, DELETE"),
            ("/client/v4/zones/z/logpush/validate/destination/exists", "POST"),
            ("/client/v4/__emulator/logpush", "GET, PUT"),
        ] {
            let (status, allowed, body) = answer("PATCH", path, "");
            assert_eq!((status, allowed.as_deref()), (405, Some(allow)), "{path}");
            assert_eq!(body["errors"][0]["code"], 7001);
        }
    }

    #[test]
    fn esc_bodies_are_read_by_core() {
        let path = "/client/v4/zones/z/disable_esc";
        let (status, _, body) = answer("POST", path, r#"{"with_secret": "s3cret"}"#);
        assert_eq!((status, &body["result"]["with_secret"]), (200, &Value::from("s3cret")));
        // A secret `EscSecret::new` refuses, which the emulator used to take (it checked the
        // length only): the client could never send it, the emulator now refuses it too.
        for (secret, rule) in [("top secret", "a space"), ("top;secret", "a semicolon")] {
            let (status, _, body) = answer("POST", path, &format!(r#"{{"with_secret": "{secret}"}}"#));
            let message = body["errors"][0]["message"].as_str().unwrap();
            assert_eq!((status, &body["errors"][0]["code"]), (400, &Value::from(1001)));
            assert!(message.contains(rule) && !message.contains(secret), "{message}");
        }
    }

    #[test]
    fn instant_logs_one_session_per_zone_on_the_documented_path() {
        let state = Mutex::new(State::default());
        let path = "/client/v4/zones/z1/logpush/edge/jobs";
        let (status, _, body) = answer_on(&state, "GET", path, "");
        assert_eq!((status, &body["result"]), (200, &serde_json::json!([])));
        let docs = r#"{"fields": "ClientIP,RayID", "sample": 100, "filter": "", "kind": "instant-logs"}"#;
        let (status, _, body) = answer_on(&state, "POST", path, docs);
        assert_eq!(status, 200, "{body}");
        let session = &body["result"];
        let sid = session["session_id"].as_str().unwrap();
        assert_eq!(
            session["destination_conf"],
            format!("wss://logs.cloudflare.com/instant-logs/ws/sessions/{sid}")
        );
        assert_eq!(
            (&session["fields"], &session["sample"], &session["filter"]),
            (&"ClientIP,RayID".into(), &100.into(), &"".into())
        );
        assert!(escpush_core::read_instant_logs_job(session.clone()).is_ok());
        assert_eq!(
            answer_on(&state, "GET", path, "").2["result"],
            serde_json::json!([session])
        );
        // One active session per zone (instant-logs.mdx); another zone has its own.
        let (status, _, body) = answer_on(&state, "POST", path, "{}");
        assert_eq!(status, 400, "{body}");
        assert!(body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("one active Instant Logs session"));
        assert_eq!(
            answer_on(&state, "POST", "/client/v4/zones/z2/logpush/edge/jobs", "{}").0,
            200
        );
        // Checked as the client checks (core's InstantLogsSpec).
        let (status, _, body) = answer_on(
            &state,
            "POST",
            "/client/v4/zones/z3/logpush/edge/jobs",
            r#"{"fields": "ClientIPP", "sample": 0}"#,
        );
        assert_eq!(status, 400);
        let messages: Vec<&str> = body["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["message"].as_str().unwrap())
            .collect();
        assert!(
            messages[0].starts_with("fields[0]: `ClientIPP` is not a field of http_requests"),
            "{messages:?}"
        );
        assert!(messages[1].starts_with("sample: "), "{messages:?}");
        // Zones only, and not the 2024 schema's out-of-date path.
        for missing in [
            "/client/v4/accounts/a1/logpush/edge/jobs",
            "/client/v4/zones/z1/logpush/edge",
        ] {
            assert_eq!(answer_on(&state, "POST", missing, "{}").0, 404, "{missing}");
        }
    }

    #[test]
    fn origin_options_are_judged_by_core() {
        let path = "/client/v4/zones/z/logpush/validate/origin";
        let docs = r#"{"logpull_options": "fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339&CVE-2021-44228=true", "dataset": "http_requests"}"#;
        let (status, _, body) = answer("POST", path, docs);
        assert_eq!(
            (status, &body["result"]),
            (200, &serde_json::json!({"valid": true, "message": ""}))
        );
        let (status, _, body) = answer(
            "POST",
            path,
            r#"{"logpull_options": "fields=RayID,Nope", "dataset": "http_requests"}"#,
        );
        assert_eq!((status, &body["result"]["valid"]), (200, &Value::Bool(false)));
        assert!(body["result"]["message"]
            .as_str()
            .unwrap()
            .contains("`Nope` is not a field of http_requests"));
        assert_eq!(
            answer("POST", path, r#"{"logpull_options": null}"#).2["result"]["valid"],
            true
        );
        for bad in [
            r"{}",
            r#"{"logpull_options": 5}"#,
            r#"{"logpull_options": null, "dataset": "gateway_dns"}"#,
        ] {
            assert_eq!(answer("POST", path, bad).0, 400, "{bad}");
        }
        assert_eq!(
            answer(
                "POST",
                "/client/v4/accounts/a/logpush/validate/origin",
                r#"{"logpull_options": null}"#
            )
            .0,
            200
        );
    }

    #[test]
    fn a_put_filter_is_a_string_stored_as_a_creation_stores_it() {
        // The API takes `filter` as a string (schema, SDK `Optional[str]`): the object form
        // is refused as on creation, and the text is stored canonical, as a creation's is.
        let state = Mutex::new(State::default());
        let jobs = "/client/v4/zones/z/logpush/jobs";
        let body = r#"{"dataset": "http_requests", "destination_conf": "r2://b/p?account-id=a"}"#;
        let (status, _, created) = answer_on(&state, "POST", jobs, body);
        assert_eq!(status, 200, "{created}");
        let job = format!("{jobs}/{}", created["result"]["id"]);
        let object = r#"{"filter": {"where": {"key": "ClientIP", "operator": "eq", "value": "1.1.1.1"}}}"#;
        let (status, _, body) = answer_on(&state, "PUT", &job, object);
        assert_eq!(status, 400, "{body}");
        assert!(
            body["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains("`filter` takes a string"),
            "{body}"
        );
        let text =
            r#"{"filter": "{ \"where\" : {\"value\": \"1.1.1.1\", \"operator\": \"eq\", \"key\": \"ClientIP\"}}"}"#;
        let (status, _, body) = answer_on(&state, "PUT", &job, text);
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            body["result"]["filter"],
            r#"{"where":{"key":"ClientIP","operator":"eq","value":"1.1.1.1"}}"#
        );
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
