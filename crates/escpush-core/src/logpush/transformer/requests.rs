//! The requests of the transformer endpoints ([`TransformerOp`], on the rows of the endpoint
//! table) and the readers of their answers: a transformer's typed record
//! ([`TransformerRecord`], [`read_transformer`]), its versions ([`TransformerVersion`]), its
//! SQL ([`read_content`]) and a preview's records ([`read_preview`]). The shapes are SDK
//! 5.9's `types/logpush/transformer_*` and `transformers/{content,version}_*`.

use serde_json::{Map, Value};

use crate::endpoints::Endpoint;
use crate::envelope::read_list;
use crate::error::Error;
use crate::operation::Operation;
use crate::request::Request;
use crate::scope::Scope;
use escpush_filter::json_kind;

use super::record::{TransformerSpec, TransformerUpdate};

/// One operation on the transformers of an account. Each variant names its endpoint.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TransformerOp<'a> {
    /// `GET {account}/logpush/transformers`.
    List,
    /// `POST {account}/logpush/transformers {name, code, description?}`.
    Create(&'a TransformerSpec),
    /// `POST {account}/logpush/transformers/preview {sql, input}`: the SQL run on one
    /// record; the SQL is checked before it is sent.
    Preview(&'a str, &'a Map<String, Value>),
    /// `GET {account}/logpush/transformers/{id}`.
    Get(u64),
    /// `GET {account}/logpush/transformers/{id}/content[?version_id=N]`.
    Content(u64, Option<u64>),
    /// `GET {account}/logpush/transformers/{id}/versions[?limit=N]`.
    Versions(u64, Option<u64>),
    /// `PUT {account}/logpush/transformers/{id} {name, code?, description?}`.
    Update(&'a TransformerUpdate),
    /// `DELETE {account}/logpush/transformers/{id}`.
    Delete(u64),
}

/// A path with one query parameter, when given.
fn with_query(mut request: Request, key: &str, value: Option<u64>) -> Request {
    if let Some(v) = value {
        request.path = format!("{}?{key}={v}", request.path);
    }
    request
}

impl Operation for TransformerOp<'_> {
    fn request(&self, scope: &Scope) -> Result<Request, Error> {
        let id = |n: &u64| n.to_string();
        Ok(match self {
            TransformerOp::List => Endpoint::TransformerList.request(scope, &[])?,
            TransformerOp::Create(spec) => Endpoint::TransformerCreate
                .request(scope, &[])?
                .with_body(spec.to_body())
                .with_outcome_check(format!(
                    "the transformer may exist; list the transformers of {scope} and look for one named `{}` \
                     before creating it again (a creation that may have reached the API is never retried)",
                    spec.name()
                )),
            TransformerOp::Preview(sql, input) => {
                super::record::code_problem(sql).map_err(|mut r| {
                    r.field = "sql";
                    Error::from(r)
                })?;
                Endpoint::TransformerPreview
                    .request(scope, &[])?
                    .with_body(serde_json::json!({"sql": sql, "input": input}))
            }
            TransformerOp::Get(n) => Endpoint::TransformerGet.request(scope, &[&id(n)])?,
            TransformerOp::Content(n, version) => with_query(
                Endpoint::TransformerContent.request(scope, &[&id(n)])?,
                "version_id",
                *version,
            ),
            TransformerOp::Versions(n, limit) => with_query(
                Endpoint::TransformerVersions.request(scope, &[&id(n)])?,
                "limit",
                *limit,
            ),
            TransformerOp::Update(update) => Endpoint::TransformerUpdate
                .request(scope, &[&id(&update.id())])?
                .with_body(update.to_body()),
            TransformerOp::Delete(n) => Endpoint::TransformerDelete.request(scope, &[&id(n)])?,
        })
    }
}

/// A job that references a transformer (SDK 5.9 `AssociatedJob`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AssociatedJob {
    pub id: Option<u64>,
    pub name: Option<String>,
    /// The zone or account tag.
    pub object_tag: Option<String>,
    /// `zone` or `account`.
    pub object_type: Option<String>,
}

/// A transformer as the API answers it (SDK 5.9 `TransformerGetResponse`): every member
/// optional there; `id` required here (a record without one names nothing).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TransformerRecord {
    pub id: u64,
    pub name: Option<String>,
    pub description: Option<String>,
    /// From the SQL's `FROM`; informational, may be absent (SDK 5.9).
    pub dataset: Option<String>,
    pub associated_jobs: Vec<AssociatedJob>,
    /// RFC 3339.
    pub created_at: Option<String>,
    /// RFC 3339.
    pub updated_at: Option<String>,
}

impl TransformerRecord {
    /// The record as JSON, its members in the SDK's order.
    pub fn to_value(&self) -> Value {
        let jobs: Vec<Value> = self
            .associated_jobs
            .iter()
            .map(|j| {
                serde_json::json!({"id": j.id, "name": j.name, "object_tag": j.object_tag, "object_type": j.object_type})
            })
            .collect();
        serde_json::json!({
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "dataset": self.dataset,
            "associated_jobs": jobs,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        })
    }
}

/// One saved version of a transformer's SQL (SDK 5.9 `VersionListResponse`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TransformerVersion {
    pub id: u64,
    /// Sequential, from 1.
    pub version: u64,
    pub created_at: Option<String>,
}

fn object(value: Value, what: &str) -> Result<Map<String, Value>, Error> {
    match value {
        Value::Object(o) => Ok(o),
        other => Err(Error::malformed(format!(
            "{what} is {}, not an object",
            json_kind(&other)
        ))),
    }
}

fn opt_text(obj: &Map<String, Value>, key: &str, what: &str) -> Result<Option<String>, Error> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(Error::malformed(format!(
            "{what}'s `{key}` is {}, not a string",
            json_kind(other)
        ))),
    }
}

fn opt_id(obj: &Map<String, Value>, key: &str, what: &str) -> Result<Option<u64>, Error> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| Error::malformed(format!("{what}'s `{key}` is {}, not an integer", json_kind(v)))),
    }
}

fn id(obj: &Map<String, Value>, what: &str) -> Result<u64, Error> {
    opt_id(obj, "id", what)?.ok_or_else(|| Error::malformed(format!("{what} has no `id`")))
}

/// Reads the `result` of a transformer answer (create, get, update).
pub fn read_transformer(result: Value) -> Result<TransformerRecord, Error> {
    let what = "the transformer";
    let obj = object(result, what)?;
    let associated_jobs = match obj.get("associated_jobs") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let w = format!("associated job {i}");
                let job = object(item.clone(), &w)?;
                Ok(AssociatedJob {
                    id: opt_id(&job, "id", &w)?,
                    name: opt_text(&job, "name", &w)?,
                    object_tag: opt_text(&job, "object_tag", &w)?,
                    object_type: opt_text(&job, "object_type", &w)?,
                })
            })
            .collect::<Result<_, Error>>()?,
        Some(other) => {
            return Err(Error::malformed(format!(
                "the transformer's `associated_jobs` is {}, not an array",
                json_kind(other)
            )))
        }
    };
    Ok(TransformerRecord {
        id: id(&obj, what)?,
        name: opt_text(&obj, "name", what)?,
        description: opt_text(&obj, "description", what)?,
        dataset: opt_text(&obj, "dataset", what)?,
        associated_jobs,
        created_at: opt_text(&obj, "created_at", what)?,
        updated_at: opt_text(&obj, "updated_at", what)?,
    })
}

/// Reads the `result` of the transformer list.
pub fn read_transformer_list(result: Value) -> Result<Vec<TransformerRecord>, Error> {
    read_list(result, "the transformer list", |_, item| read_transformer(item))
}

/// Reads the `result` of a version list.
pub fn read_versions(result: Value) -> Result<Vec<TransformerVersion>, Error> {
    read_list(result, "the version list", |i, item| {
        let what = format!("version {i}");
        let obj = object(item, &what)?;
        Ok(TransformerVersion {
            id: id(&obj, &what)?,
            version: opt_id(&obj, "version", &what)?.unwrap_or_default(),
            created_at: opt_text(&obj, "created_at", &what)?,
        })
    })
}

/// Reads the `result` of `.../content`: `{content}`, the SQL.
pub fn read_content(result: Value) -> Result<String, Error> {
    opt_text(&object(result, "the content answer")?, "content", "the content answer")?
        .ok_or_else(|| Error::malformed("the content answer has no `content`"))
}

/// Reads the `result` of a preview: the delivered records (objects), none when the record
/// was filtered out.
pub fn read_preview(result: Value) -> Result<Vec<Map<String, Value>>, Error> {
    read_list(result, "the preview", |i, item| {
        object(item, &format!("preview record {i}"))
    })
}

/// Reads the `result` of a transformer `DELETE`: `{id}` (or `null`).
pub fn read_transformer_deleted(result: Value) -> Result<Option<u64>, Error> {
    if result.is_null() {
        return Ok(None);
    }
    opt_id(
        &object(result, "the deleted transformer")?,
        "id",
        "the deleted transformer",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_follow_the_table() {
        let account = Scope::account("a1").unwrap();
        let spec = TransformerSpec::new("n", "SELECT ClientIP FROM http_requests", None).unwrap();
        let req = TransformerOp::Create(&spec).request(&account).unwrap();
        assert_eq!(req.path, "/accounts/a1/logpush/transformers");
        assert_eq!(req.body.as_ref().unwrap()["name"], "n");
        let req = TransformerOp::Content(3, Some(2)).request(&account).unwrap();
        assert_eq!(req.path, "/accounts/a1/logpush/transformers/3/content?version_id=2");
        assert!(TransformerOp::List.request(&Scope::zone("z1").unwrap()).is_err());
        let input = Map::new();
        let err = TransformerOp::Preview("", &input).request(&account).unwrap_err();
        assert!(err.to_string().contains("missing required field: code"), "{err}");
    }

    #[test]
    fn records_are_read_typed() {
        let r = read_transformer(json!({"id": 4, "name": "n", "dataset": "http_requests",
            "associated_jobs": [{"id": 9, "object_type": "zone"}], "created_at": "2026-01-01T00:00:00Z"}))
        .unwrap();
        assert_eq!((r.id, r.associated_jobs[0].id), (4, Some(9)));
        assert!(read_transformer(json!({"name": "n"})).is_err());
        assert!(read_transformer(json!({"id": 1, "associated_jobs": {}})).is_err());
        assert_eq!(read_content(json!({"content": "SELECT 1"})).unwrap(), "SELECT 1");
        assert_eq!(read_versions(json!([{"id": 1, "version": 1}])).unwrap()[0].version, 1);
        assert_eq!(read_preview(json!([{"a": 1}])).unwrap().len(), 1);
    }
}
