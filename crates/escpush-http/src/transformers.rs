//! The transformer endpoints on [`Client`] (transformers.mdx; SDK 5.9
//! `logpush.transformers`): each core's request run by [`Client::execute`] and read by core;
//! and the check of a job's `transformer_id` before the job is sent ([`Client::check_job_transformer`]).

use escpush_core::transformer::{
    job_transformer_refusal, read_content, read_preview, read_transformer, read_transformer_deleted,
    read_transformer_list, read_versions, referenced_refusal, TransformerOp, TransformerRecord, TransformerSpec,
    TransformerUpdate, TransformerVersion,
};
use escpush_core::{Operation, Scope};
use escpush_filter::DatasetScope;
use serde_json::{Map, Value};

use crate::client::Client;
use crate::error::Error;

impl Client {
    /// `GET {account}/logpush/transformers`.
    pub fn transformers(&self, scope: &Scope) -> Result<Vec<TransformerRecord>, Error> {
        Ok(read_transformer_list(
            self.execute(&TransformerOp::List.request(scope)?)?,
        )?)
    }

    /// `POST {account}/logpush/transformers`: a checked creation (never retried once it may
    /// have reached the API).
    pub fn create_transformer(&self, scope: &Scope, spec: &TransformerSpec) -> Result<TransformerRecord, Error> {
        Ok(read_transformer(
            self.execute(&TransformerOp::Create(spec).request(scope)?)?,
        )?)
    }

    /// `GET {account}/logpush/transformers/{id}`.
    pub fn transformer(&self, scope: &Scope, id: u64) -> Result<TransformerRecord, Error> {
        Ok(read_transformer(
            self.execute(&TransformerOp::Get(id).request(scope)?)?,
        )?)
    }

    /// `PUT {account}/logpush/transformers/{id}`: a checked update.
    pub fn update_transformer(&self, scope: &Scope, update: &TransformerUpdate) -> Result<TransformerRecord, Error> {
        Ok(read_transformer(
            self.execute(&TransformerOp::Update(update).request(scope)?)?,
        )?)
    }

    /// `DELETE {account}/logpush/transformers/{id}`: the id removed, when the API says it.
    /// A transformer that jobs reference is refused before the `DELETE` is sent (core's
    /// `referenced_refusal`, read from the transformer's `associated_jobs`), as the API
    /// refuses it (409).
    pub fn delete_transformer(&self, scope: &Scope, id: u64) -> Result<Option<u64>, Error> {
        let jobs: Vec<u64> = self
            .transformer(scope, id)?
            .associated_jobs
            .iter()
            .filter_map(|j| j.id)
            .collect();
        if !jobs.is_empty() {
            return Err(Error::Core(referenced_refusal(id, &jobs).into()));
        }
        Ok(read_transformer_deleted(
            self.execute(&TransformerOp::Delete(id).request(scope)?)?,
        )?)
    }

    /// `GET .../transformers/{id}/content`: the SQL of the latest version, or of `version_id`.
    pub fn transformer_content(&self, scope: &Scope, id: u64, version_id: Option<u64>) -> Result<String, Error> {
        Ok(read_content(
            self.execute(&TransformerOp::Content(id, version_id).request(scope)?)?,
        )?)
    }

    /// `GET .../transformers/{id}/versions`: every save (the latest `limit`).
    pub fn transformer_versions(
        &self,
        scope: &Scope,
        id: u64,
        limit: Option<u64>,
    ) -> Result<Vec<TransformerVersion>, Error> {
        Ok(read_versions(
            self.execute(&TransformerOp::Versions(id, limit).request(scope)?)?,
        )?)
    }

    /// `POST .../transformers/preview`: `sql` (checked first) run by the API on one record.
    pub fn preview_transformer(
        &self,
        scope: &Scope,
        sql: &str,
        input: &Map<String, Value>,
    ) -> Result<Vec<Map<String, Value>>, Error> {
        Ok(read_preview(
            self.execute(&TransformerOp::Preview(sql, input).request(scope)?)?,
        )?)
    }

    /// Refuses, before a job is sent, a `transformer_id` (in `job`, the job as it will be)
    /// that is not a transformer of the account or not of the job's dataset: core's rule
    /// (`job_transformer_refusal`), fed the transformer read from the API. On a zone the
    /// account holding the transformer is not known to the client: the API judges it.
    pub fn check_job_transformer(&self, scope: &Scope, job: &Map<String, Value>) -> Result<(), Error> {
        let Some(id) = job.get("transformer_id").and_then(Value::as_u64) else {
            return Ok(());
        };
        if scope.kind() != DatasetScope::Account {
            return Ok(());
        }
        let dataset = job.get("dataset").and_then(Value::as_str).unwrap_or_default();
        let found = match self.transformer(scope, id) {
            Ok(t) => Some(t.dataset),
            Err(e) if e.status() == Some(404) => None,
            Err(e) => return Err(e),
        };
        match job_transformer_refusal(id, found.as_ref().map(Option::as_deref), dataset) {
            Some(r) => Err(Error::Core(r.into())),
            None => Ok(()),
        }
    }
}
