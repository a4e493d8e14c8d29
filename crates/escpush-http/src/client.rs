//! [`Client`]: a configured ureq agent with credentials and a retry policy, and one public
//! method per API operation, each a core request run by [`Client::execute`] and its answer
//! read by core.

use std::fmt;
use std::time::Duration;

use escpush_core::{read_job, read_job_list, EscOp, EscSecret, EscStatus, JobOp, JobSpec, Operation, Scope};
use serde_json::Value;

use crate::auth::Auth;
use crate::builder::ClientBuilder;
use crate::error::Error;

/// When and how often a call is repeated.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RetryPolicy {
    pub max_retries: u32,
    pub backoff: Duration,
    pub max_backoff: Duration,
    pub max_retry_after: Duration,
}

/// A blocking client of the v4 API. Cheap to share between threads (`&Client` is enough);
/// connections are pooled.
#[derive(Clone)]
pub struct Client {
    pub(crate) agent: ureq::Agent,
    pub(crate) base_url: String,
    pub(crate) auth: Auth,
    pub(crate) timeout: Duration,
    pub(crate) retry: RetryPolicy,
    pub(crate) max_body: u64,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.base_url)
            .field("auth", &self.auth)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.retry.max_retries)
            .finish_non_exhaustive()
    }
}

impl Client {
    pub(crate) fn new(
        agent: ureq::Agent,
        base_url: String,
        auth: Auth,
        timeout: Duration,
        retry: RetryPolicy,
        max_body: u64,
    ) -> Client {
        Client {
            agent,
            base_url,
            auth,
            timeout,
            retry,
            max_body,
        }
    }

    /// Settings for a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The API root this client talks to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The authentication scheme (never the credential).
    pub fn auth(&self) -> &Auth {
        &self.auth
    }

    /// The deadline of each call.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Performs one ESC operation on `scope` and gives the envelope's `result`.
    pub fn esc(&self, scope: &Scope, op: &EscOp) -> Result<Value, Error> {
        self.execute(&op.request(scope))
    }

    /// `GET .../disable_esc`: the status and, when configured, the secret. An answer that
    /// holds no status is a malformed response (core's reading).
    pub fn esc_status(&self, scope: &Scope) -> Result<EscStatus, Error> {
        self.execute_with(&EscOp::Status.request(scope), EscStatus::from_answer)
    }

    /// `POST .../disable_esc {"always": true}`: ESC off for every request of the scope.
    pub fn esc_disable(&self, scope: &Scope) -> Result<(), Error> {
        self.esc(scope, &EscOp::Disable).map(drop)
    }

    /// `DELETE .../disable_esc`: ESC on again.
    pub fn esc_enable(&self, scope: &Scope) -> Result<(), Error> {
        self.esc(scope, &EscOp::Enable).map(drop)
    }

    /// `POST .../disable_esc {"with_secret": "..."}`: requests with cookie
    /// `disable_esc=<secret>` skip ESC.
    pub fn esc_set_secret(&self, scope: &Scope, secret: &EscSecret) -> Result<(), Error> {
        self.esc(scope, &EscOp::SetSecret(secret.clone())).map(drop)
    }

    /// `POST {scope}/logpush/jobs`: creates the job and gives the stored record. Never
    /// retried once the body may have reached the server: when the connection breaks after
    /// that, the error ([`Error::OutcomeUnknown`]) says that the job may exist and how to
    /// look for it.
    pub fn create_job(&self, scope: &Scope, spec: &JobSpec) -> Result<Value, Error> {
        match self.execute(&JobOp::Create(spec).request(scope)?) {
            Ok(result) => Ok(Value::Object(read_job(result)?)),
            Err(Error::OutcomeUnknown { cause, .. }) => {
                let named = spec.name().map_or_else(
                    || format!("of dataset `{}`", spec.dataset().name()),
                    |n| format!("named `{n}`"),
                );
                Err(Error::OutcomeUnknown {
                    cause,
                    check: format!(
                        "the job may exist; list the jobs of {scope} and look for one {named} before creating it \
                         again (a creation is never retried)"
                    ),
                })
            }
            Err(other) => Err(other),
        }
    }

    /// `GET {scope}/logpush/jobs`: every job of the zone or account.
    pub fn jobs(&self, scope: &Scope) -> Result<Vec<Value>, Error> {
        let jobs = read_job_list(self.execute(&JobOp::List.request(scope)?)?)?;
        Ok(jobs.into_iter().map(Value::Object).collect())
    }

    /// `GET {scope}/logpush/jobs/{job_id}`: one job.
    pub fn job(&self, scope: &Scope, job_id: u64) -> Result<Value, Error> {
        Ok(Value::Object(read_job(
            self.execute(&JobOp::Get(job_id).request(scope)?)?,
        )?))
    }
}
