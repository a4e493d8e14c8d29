//! `account.logpush.transformers` (`escpush.Transformers`): the transformer endpoints of an
//! account (transformers.mdx; SDK 5.9 `logpush.transformers`), and `escpush.Transformer`, the
//! typed record they give. Conversion only: every rule is core's (`escpush_core::transformer`),
//! every request the transport's.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use escpush_core::transformer::{TransformerRecord, TransformerSpec, TransformerUpdate, TransformerVersion};
use escpush_core::Scope;
use escpush_http::Client;

use crate::convert::{self, repr, Int, Text};
use crate::errors;

/// A transformer as the API gives it: `id`, `name`, `description`, `dataset` (from its SQL's
/// `FROM`), `associated_jobs` (the jobs that reference it: dicts of `id`, `name`,
/// `object_tag`, `object_type`), `created_at`, `updated_at` (RFC 3339). Its SQL is
/// `transformers.content(id)`; `run(sample)` runs it on local logs. Holds no secret, and
/// compares by value (the record's members).
#[pyclass(name = "Transformer", module = "escpush", frozen, eq)]
#[derive(Clone)]
pub struct PyTransformer {
    inner: TransformerRecord,
    /// The account it was read from, to fetch its SQL (`_code`, for `run`).
    api: (Client, Scope),
}

impl std::fmt::Debug for PyTransformer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transformer")
            .field("inner", &self.inner)
            .field("scope", &self.api.1)
            .finish_non_exhaustive()
    }
}

impl PartialEq for PyTransformer {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
}

#[pymethods]
impl PyTransformer {
    #[getter]
    fn id(&self) -> u64 {
        self.inner.id
    }
    #[getter]
    fn name(&self) -> Option<&str> {
        self.inner.name.as_deref()
    }
    #[getter]
    fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }
    #[getter]
    fn dataset(&self) -> Option<&str> {
        self.inner.dataset.as_deref()
    }
    /// The jobs that reference the transformer, each a dict `{id, name, object_tag, object_type}`.
    #[getter]
    fn associated_jobs(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::from_json(py, &self.inner.to_value()["associated_jobs"])
    }
    /// The ids of the jobs that reference it.
    #[getter]
    fn job_ids(&self) -> Vec<u64> {
        self.inner.associated_jobs.iter().filter_map(|j| j.id).collect()
    }
    #[getter]
    fn created_at(&self) -> Option<&str> {
        self.inner.created_at.as_deref()
    }
    #[getter]
    fn updated_at(&self) -> Option<&str> {
        self.inner.updated_at.as_deref()
    }
    /// The record as a dict (the API's members, in the SDK's order).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::from_json(py, &self.inner.to_value())
    }
    /// Its SQL, fetched from the account it was read from: the latest version, or
    /// `version_id` (what `Transformer.run` runs; `transformers.content(id)` is the same).
    #[pyo3(signature = (*, version_id=None))]
    fn _code(&self, py: Python<'_>, version_id: Option<Int>) -> PyResult<String> {
        let version = version_id.map(|v| checked_id(py, v, "version_id")).transpose()?;
        let (client, scope) = &self.api;
        let id = self.inner.id;
        crate::logging::detach(py, || client.transformer_content(scope, id, version))
            .map_err(|e| errors::http_error(py, &e))
    }
    fn __repr__(&self, py: Python<'_>) -> String {
        let opt = |s: &Option<String>| s.as_deref().map_or_else(|| "None".to_owned(), |s| repr(py, s));
        format!(
            "Transformer(id={}, name={}, dataset={}, jobs={:?})",
            self.inner.id,
            opt(&self.inner.name),
            opt(&self.inner.dataset),
            self.job_ids()
        )
    }
}

fn version_dict<'py>(py: Python<'py>, v: &TransformerVersion) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", v.id)?;
    d.set_item("version", v.version)?;
    d.set_item("created_at", v.created_at.as_deref())?;
    Ok(d)
}

/// An id from Python: 1 or more.
fn checked_id(py: Python<'_>, id: Int, what: &str) -> PyResult<u64> {
    Ok(u64::try_from(id.within(py, what, 1, i64::MAX)?).unwrap_or_default())
}

/// The transformers of an account: `account.logpush.transformers` (a zone has none: the
/// endpoints are account-scoped, transformers.mdx). Every rule is checked before sending
/// (`InvalidInput` naming the rule and its source): `name` (at most 255 bytes) and `code`
/// required, `description` at most 4,096 bytes, `code` at most the SQL limit and a valid
/// transformer of a known dataset.
#[pyclass(name = "Transformers", module = "escpush", frozen)]
#[derive(Clone, Debug)]
pub struct PyTransformers {
    pub(crate) client: Client,
    pub(crate) scope: Scope,
}

impl PyTransformers {
    fn transformer(&self, py: Python<'_>, inner: TransformerRecord) -> PyResult<Py<PyTransformer>> {
        let api = (self.client.clone(), self.scope.clone());
        Py::new(py, PyTransformer { inner, api })
    }

    fn run<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Client, &Scope) -> Result<T, escpush_http::Error> + Send,
    ) -> PyResult<T> {
        crate::logging::detach(py, || f(&self.client, &self.scope)).map_err(|e| errors::http_error(py, &e))
    }
}

#[pymethods]
impl PyTransformers {
    /// Every transformer of the account, each an `escpush.Transformer`.
    fn list(&self, py: Python<'_>) -> PyResult<Vec<Py<PyTransformer>>> {
        let list = self.run(py, Client::transformers)?;
        list.into_iter().map(|t| self.transformer(py, t)).collect()
    }

    /// Creates a transformer from its SQL (`code`); checked first, never retried once it may
    /// have reached the API. Returns the stored `escpush.Transformer` (its first version).
    #[pyo3(signature = (*, name, code, description=None))]
    fn create(&self, py: Python<'_>, name: Text, code: Text, description: Option<Text>) -> PyResult<Py<PyTransformer>> {
        let spec = TransformerSpec::new(&name, &code, description.as_deref())
            .map_err(|r| errors::core_error(py, &escpush_core::Error::from(r)))?;
        let t = self.run(py, |c, s| c.create_transformer(s, &spec))?;
        self.transformer(py, t)
    }

    /// One transformer.
    fn get(&self, py: Python<'_>, transformer_id: Int) -> PyResult<Py<PyTransformer>> {
        let id = checked_id(py, transformer_id, "transformer id")?;
        let t = self.run(py, |c, s| c.transformer(s, id))?;
        self.transformer(py, t)
    }

    /// Changes a transformer: `name` is required (SDK 5.9); new `code` saves a new version;
    /// a `description` left out clears the stored one (as the API does).
    #[pyo3(signature = (transformer_id, *, name, code=None, description=None))]
    fn update(
        &self,
        py: Python<'_>,
        transformer_id: Int,
        name: Text,
        code: Option<Text>,
        description: Option<Text>,
    ) -> PyResult<Py<PyTransformer>> {
        let id = checked_id(py, transformer_id, "transformer id")?;
        let update = TransformerUpdate::new(id, &name, code.as_deref(), description.as_deref())
            .map_err(|r| errors::core_error(py, &escpush_core::Error::from(r)))?;
        let t = self.run(py, |c, s| c.update_transformer(s, &update))?;
        self.transformer(py, t)
    }

    /// Deletes a transformer and returns its id; the API refuses (409, `ApiError`) while a
    /// job references it: detach it first (`update_job(id, transformer_id=None)`).
    fn delete(&self, py: Python<'_>, transformer_id: Int) -> PyResult<u64> {
        let id = checked_id(py, transformer_id, "transformer id")?;
        let deleted = self.run(py, |c, s| c.delete_transformer(s, id))?;
        Ok(deleted.unwrap_or(id))
    }

    /// The SQL of the latest version, or of version `version_id` (a version's `id`).
    #[pyo3(signature = (transformer_id, *, version_id=None))]
    fn content(&self, py: Python<'_>, transformer_id: Int, version_id: Option<Int>) -> PyResult<String> {
        let id = checked_id(py, transformer_id, "transformer id")?;
        let version = version_id.map(|v| checked_id(py, v, "version_id")).transpose()?;
        self.run(py, |c, s| c.transformer_content(s, id, version))
    }

    /// Every saved version (the latest `limit`), each `{"id", "version", "created_at"}`.
    #[pyo3(signature = (transformer_id, *, limit=None))]
    fn versions<'py>(&self, py: Python<'py>, transformer_id: Int, limit: Option<Int>) -> PyResult<Bound<'py, PyList>> {
        let id = checked_id(py, transformer_id, "transformer id")?;
        let limit = limit.map(|v| checked_id(py, v, "limit")).transpose()?;
        let versions = self.run(py, |c, s| c.transformer_versions(s, id, limit))?;
        let list = PyList::empty(py);
        for v in &versions {
            list.append(version_dict(py, v)?)?;
        }
        Ok(list)
    }

    /// Runs `sql` (checked first) on one record `input` (a dict) at the API, nothing kept;
    /// returns the delivered records (an empty list when the record is filtered out).
    fn preview(&self, py: Python<'_>, sql: Text, input: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let json = convert::to_json(input, "input").map_err(|m| errors::invalid_input(py, m))?;
        let serde_json::Value::Object(record) = serde_json::Value::from(json) else {
            return Err(errors::invalid_input(py, "invalid input: one log record, a dict"));
        };
        let records = self.run(py, |c, s| c.preview_transformer(s, &sql, &record))?;
        let values: Vec<serde_json::Value> = records.into_iter().map(serde_json::Value::Object).collect();
        convert::from_json(py, &serde_json::Value::Array(values))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Transformers(account={})", repr(py, self.scope.id()))
    }
}
