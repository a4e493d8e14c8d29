//! The transformer endpoints (transformers.mdx; SDK 5.9 `logpush.transformers`): the state
//! of an account's transformers with every save a new version, the jobs that reference
//! each (read from the jobs themselves, so attaching and detaching is a job's
//! `transformer_id`), and every check, each core's (`escpush_core::transformer`), as the
//! client makes them before sending.

use std::sync::Mutex;

use escpush_core::transformer::{
    self, feature_refusal, job_transformer_refusal, referenced_refusal, TransformerRefusal, TransformerSpec,
    TransformerUpdate,
};
use escpush_core::{Endpoint, Route};
use escpush_filter::{DatasetScope, Json};
use serde_json::{json, Map, Value};

use crate::lock;
use crate::state::{State, Stored, Version};
use crate::wire::{HttpRequest, HttpResponse};

/// The v4 error code of a refused transformer request.
const REFUSED: i64 = 1004;

fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    escpush_filter::format_time(secs)
}

/// An error answer in the v4 envelope.
fn error_response(status: u16, code: i64, message: impl Into<String>) -> HttpResponse {
    HttpResponse::json(
        status,
        escpush_core::Envelope::error(vec![escpush_core::ApiMessage::new(code, message)]).to_bytes(),
    )
}

fn refused(r: &TransformerRefusal) -> HttpResponse {
    error_response(r.status, REFUSED, r.message.clone())
}

fn ok(result: Value) -> HttpResponse {
    HttpResponse::json(200, escpush_core::Envelope::ok(result).to_bytes())
}

/// The jobs of any scope whose `transformer_id` is `id`: `(id, name, scope kind, scope id, dataset)`.
fn associated(state: &State, id: u64) -> Vec<(u64, Value, DatasetScope, String, String)> {
    state
        .jobs
        .iter()
        .flat_map(|((kind, scope), jobs)| jobs.iter().map(move |j| (kind, scope, j)))
        .filter(|(_, _, j)| j["transformer_id"].as_u64() == Some(id))
        .map(|(kind, scope, j)| {
            (
                j["id"].as_u64().unwrap_or_default(),
                j["name"].clone(),
                *kind,
                scope.clone(),
                j["dataset"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The record the API answers (SDK 5.9 `TransformerGetResponse`).
fn record(state: &State, t: &Stored) -> Value {
    let jobs: Vec<Value> = associated(state, t.id)
        .into_iter()
        .map(|(id, name, kind, scope, _)| json!({"id": id, "name": name, "object_tag": scope, "object_type": kind.as_str()}))
        .collect();
    json!({
        "id": t.id,
        "name": t.name,
        "description": t.description,
        "dataset": t.dataset,
        "associated_jobs": jobs,
        "created_at": t.created_at,
        "updated_at": t.updated_at,
    })
}

fn body(req: &HttpRequest) -> Result<Map<String, Value>, HttpResponse> {
    match serde_json::from_slice::<Value>(&req.body) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(error_response(400, REFUSED, "the body must be a JSON object")),
        Err(e) => Err(error_response(400, REFUSED, format!("the body is not JSON: {e}"))),
    }
}

/// A query parameter that is an integer, if given.
fn query_number(req: &HttpRequest, key: &str) -> Result<Option<u64>, HttpResponse> {
    for pair in req.query.split('&') {
        if let Some((k, v)) = pair.split_once('=') {
            if k == key {
                return v
                    .parse()
                    .map(Some)
                    .map_err(|_| error_response(400, REFUSED, format!("`{key}` is `{v}`, not an integer")));
            }
        }
    }
    Ok(None)
}

/// The place of transformer `arg` among the account's, or the answer: 400 for an id that is
/// not an integer, 404 for none there.
fn find(state: &State, account: &str, arg: &str) -> Result<usize, HttpResponse> {
    let Ok(id) = arg.parse::<u64>() else {
        return Err(error_response(
            400,
            REFUSED,
            format!("`{arg}` is not a transformer id; ids are integers"),
        ));
    };
    state
        .transformers
        .get(account)
        .and_then(|ts| ts.iter().position(|t| t.id == id))
        .ok_or_else(|| error_response(404, 1000, format!("transformer {id} not found for this account")))
}

/// Answers a transformer endpoint (`handlers.rs` routes only those here).
pub(crate) fn handle(route: &Route<'_>, req: &HttpRequest, state: &Mutex<State>) -> HttpResponse {
    let account = route.scope_id;
    let arg = route.args.first().copied().unwrap_or_default();
    let mut state = lock(state);
    let endpoint = route.endpoint;
    if state.quirks.transformers_unavailable {
        return refused(&feature_refusal());
    }
    match endpoint {
        Endpoint::TransformerList => {
            let list: Vec<Value> = state
                .transformers
                .get(account)
                .into_iter()
                .flatten()
                .map(|t| record(&state, t))
                .collect();
            ok(Value::Array(list))
        }
        Endpoint::TransformerCreate => create(&mut state, account, req),
        Endpoint::TransformerPreview => preview(req),
        Endpoint::TransformerGet => match find(&state, account, arg) {
            Ok(i) => ok(record(&state, &state.transformers[account][i])),
            Err(resp) => resp,
        },
        Endpoint::TransformerContent => {
            let i = match find(&state, account, arg) {
                Ok(i) => i,
                Err(resp) => return resp,
            };
            let t = &state.transformers[account][i];
            match query_number(req, "version_id") {
                Err(resp) => resp,
                Ok(None) => ok(json!({"content": t.versions.last().map(|v| v.code.clone())})),
                Ok(Some(v)) => match t.versions.iter().find(|x| x.id == v) {
                    Some(x) => ok(json!({"content": x.code})),
                    None => error_response(404, 1000, format!("transformer {} has no version {v}", t.id)),
                },
            }
        }
        Endpoint::TransformerVersions => {
            let i = match find(&state, account, arg) {
                Ok(i) => i,
                Err(resp) => return resp,
            };
            let versions = &state.transformers[account][i].versions;
            // The latest `limit`, oldest first (SDK 5.9: "Maximum number of versions to return").
            let skip = match query_number(req, "limit") {
                Err(resp) => return resp,
                Ok(Some(n)) => versions.len().saturating_sub(usize::try_from(n).unwrap_or(usize::MAX)),
                Ok(None) => 0,
            };
            let list: Vec<Value> = versions[skip..]
                .iter()
                .map(|v| json!({"id": v.id, "version": v.number, "created_at": v.created_at}))
                .collect();
            ok(Value::Array(list))
        }
        Endpoint::TransformerUpdate => update(&mut state, account, arg, req),
        Endpoint::TransformerDelete => {
            let i = match find(&state, account, arg) {
                Ok(i) => i,
                Err(resp) => return resp,
            };
            let id = state.transformers[account][i].id;
            let jobs: Vec<u64> = associated(&state, id).into_iter().map(|j| j.0).collect();
            if !jobs.is_empty() {
                return refused(&referenced_refusal(id, &jobs));
            }
            state.transformers.get_mut(account).map(|ts| ts.remove(i));
            ok(json!({ "id": id }))
        }
        _ => unreachable!("handlers.rs routes only the transformer endpoints here"),
    }
}

/// `POST`: the body read by core's `TransformerSpec` (the client's checks), its first version.
fn create(state: &mut State, account: &str, req: &HttpRequest) -> HttpResponse {
    let spec = match body(req).map(|b| TransformerSpec::from_body(&b)) {
        Ok(Ok(spec)) => spec,
        Ok(Err(r)) => return refused(&r),
        Err(resp) => return resp,
    };
    state.last_transformer_id += 1;
    state.last_version_id += 1;
    let at = now();
    let stored = Stored {
        id: state.last_transformer_id,
        name: spec.name().to_owned(),
        description: spec.description().map(str::to_owned),
        dataset: spec.dataset().map(str::to_owned),
        created_at: at.clone(),
        updated_at: at.clone(),
        versions: vec![Version {
            id: state.last_version_id,
            number: 1,
            created_at: at,
            code: spec.code().to_owned(),
        }],
    };
    let answer = record(state, &stored);
    state.transformers.entry(account.to_owned()).or_default().push(stored);
    ok(answer)
}

/// `PUT`: `name` required, `code` a new version, `description` left out clears it (SDK 5.9);
/// new SQL of another dataset than the jobs that reference it is refused, as attaching it is.
fn update(state: &mut State, account: &str, arg: &str, req: &HttpRequest) -> HttpResponse {
    let i = match find(state, account, arg) {
        Ok(i) => i,
        Err(resp) => return resp,
    };
    let id = state.transformers[account][i].id;
    let update = match body(req).map(|b| TransformerUpdate::from_body(id, &b)) {
        Ok(Ok(u)) => u,
        Ok(Err(r)) => return refused(&r),
        Err(resp) => return resp,
    };
    if let Some(dataset) = update.dataset() {
        for (_, _, _, _, job_dataset) in associated(state, id) {
            if let Some(r) = job_transformer_refusal(id, Some(Some(dataset)), &job_dataset) {
                return refused(&r);
            }
        }
    }
    let at = now();
    if update.code().is_some() {
        state.last_version_id += 1;
    }
    let version_id = state.last_version_id;
    let t = &mut state.transformers.get_mut(account).expect("found above")[i];
    update.name().clone_into(&mut t.name);
    t.description = update.description().map(str::to_owned);
    t.updated_at.clone_from(&at);
    if let Some(code) = update.code() {
        t.dataset = update.dataset().map(str::to_owned);
        let version = t.versions.len() as u64 + 1;
        t.versions.push(Version {
            id: version_id,
            number: version,
            created_at: at,
            code: code.to_owned(),
        });
    }
    let t = t.clone();
    ok(record(state, &t))
}

/// `POST .../preview {sql, input}`: the SQL judged as a creation's `code` is, then run on the
/// one record by core's `preview`; nothing is kept.
fn preview(req: &HttpRequest) -> HttpResponse {
    let b = match body(req) {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    let Some(sql) = b.get("sql").and_then(Value::as_str) else {
        return error_response(
            400,
            REFUSED,
            "missing required field: sql (SDK 5.9 TransformerPreviewParams)",
        );
    };
    let Some(input) = b.get("input").filter(|i| i.is_object()) else {
        return error_response(
            400,
            REFUSED,
            "missing required field: input, one log record as a JSON object (SDK 5.9 TransformerPreviewParams)",
        );
    };
    if let Err(mut r) = transformer::code_problem(sql) {
        r.field = "sql";
        return refused(&r);
    }
    match transformer::preview(sql, &Json::from(input.clone())) {
        Ok(records) => ok(Value::Array(records.into_iter().map(Value::from).collect())),
        Err(problems) => error_response(400, REFUSED, problems.to_string()),
    }
}

/// The refusal of a job body's `transformer_id` (create or update, `record` the job as it
/// will be): not a transformer of the account (for a zone's job, of any account: the
/// emulator does not know which account holds a zone), or of another dataset.
pub(crate) fn job_refusal(
    state: &State,
    kind: DatasetScope,
    scope: &str,
    job: &Map<String, Value>,
) -> Option<HttpResponse> {
    let id = job.get("transformer_id")?.as_u64()?;
    let dataset = job.get("dataset").and_then(Value::as_str).unwrap_or_default();
    let found = state
        .transformers
        .iter()
        .filter(|(account, _)| kind == DatasetScope::Zone || account.as_str() == scope)
        .flat_map(|(_, ts)| ts.iter())
        .find(|t| t.id == id)
        .map(|t| t.dataset.as_deref());
    job_transformer_refusal(id, found, dataset).map(|r| refused(&r))
}
