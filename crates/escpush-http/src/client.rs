//! [`Client`]: a configured ureq agent with credentials and a retry policy, and one public
//! method per API operation, each a core request run by [`Client::execute`] and its answer
//! read by core. Its settings, and [`Client::builder`], are `builder.rs`.

use std::fmt;
use std::time::Duration;

use escpush_core::{
    desired_jobs, plan_document, plan_job, read_deleted, read_exists, read_fields, read_instant_logs_job,
    read_instant_logs_jobs, read_job, read_job_list, read_ownership_challenge, read_valid, ApiMessage, DestinationConf,
    EscOp, EscSecret, EscStatus, InstantLogsSpec, JobOp, JobSpec, JobUpdate, Operation, OriginCheck,
    OwnershipChallenge, Plan, PlanAction, PlanEntry, PlanOptions, RetryPolicy, Scope,
};
use serde_json::{Map, Value};

use crate::auth::Auth;
use crate::error::Error;
use crate::limit::{Limiter, RateLimit};

/// What a plan's deletion says when its answer was lost and its retry met 404: the job is
/// gone, deleted by the first attempt ([`Client::apply_entry`]).
pub const DELETED_BY_EARLIER_ATTEMPT: &str =
    "deleted: the answer to the DELETE was lost, and its retry found the job gone (404)";

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
    /// The client-side rate limit, shared by clones; `None`: off.
    pub(crate) limiter: Option<Limiter>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.base_url)
            .field("auth", &self.auth)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.retry.max_retries)
            .field("rate_limit", &self.rate_limit())
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
        rate_limit: Option<RateLimit>,
    ) -> Client {
        Client {
            agent,
            base_url,
            auth,
            timeout,
            retry,
            max_body,
            limiter: rate_limit.map(Limiter::new),
        }
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

    /// The client-side rate limit, when one is on ([`ClientBuilder::rate_limit`]).
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.limiter.as_ref().map(Limiter::limit)
    }

    /// Performs one ESC operation on `scope` and gives the envelope's `result`.
    pub fn esc(&self, scope: &Scope, op: &EscOp) -> Result<Value, Error> {
        self.execute(&op.request(scope)?)
    }

    /// `GET .../disable_esc`: the status and, when configured, the secret. An answer that
    /// holds no status is a malformed response (core's reading).
    pub fn esc_status(&self, scope: &Scope) -> Result<EscStatus, Error> {
        self.execute_with(&EscOp::Status.request(scope)?, EscStatus::from_answer)
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
    /// retried once the body may have reached the server (only after a 429, which refuses a
    /// request unprocessed, or when no connection was made): when the connection breaks or
    /// the deadline passes after that, the error ([`Error::OutcomeUnknown`]) says that the
    /// job may exist and how to look for it.
    pub fn create_job(&self, scope: &Scope, spec: &JobSpec) -> Result<Value, Error> {
        if let Value::Object(body) = spec.to_body() {
            self.check_job_transformer(scope, &body)?;
        }
        Ok(Value::Object(read_job(
            self.execute(&JobOp::Create(spec).request(scope)?)?,
        )?))
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

    /// `PUT {scope}/logpush/jobs/{job_id}`, as the API takes it: reads the job and sends only
    /// `changes` (field → value; `null` clears; `output_options` merged onto the stored one
    /// and sent whole), checked first as a creation would check them on the stored job with
    /// the changes ([`JobUpdate::new`]). Gives the stored job.
    /// Retried on 429, 5xx and dropped connections: the same body gives the same job.
    pub fn update_job(&self, scope: &Scope, job_id: u64, changes: &Map<String, Value>) -> Result<Value, Error> {
        let stored = read_job(self.execute(&JobOp::Get(job_id).request(scope)?)?)?;
        let update = JobUpdate::new(&stored, changes, scope.kind())?;
        self.put_job(scope, &update)
    }

    /// Sends a checked [`JobUpdate`] (`PUT`) and gives the stored job.
    pub fn put_job(&self, scope: &Scope, update: &JobUpdate) -> Result<Value, Error> {
        if let Value::Object(mut body) = update.to_body() {
            body.insert("dataset".to_owned(), update.dataset().name().into());
            self.check_job_transformer(scope, &body)?;
        }
        Ok(Value::Object(read_job(
            self.execute(&JobOp::Update(update).request(scope)?)?,
        )?))
    }

    /// `DELETE {scope}/logpush/jobs/{job_id}`; gives the id the API reports removed. Retried
    /// like a read. A job already gone is an API error 404 that says so, except on a retry
    /// after an attempt whose answer was lost (or a 5xx): that 404 is the deletion done by the
    /// earlier attempt, and gives `None` (the answer that held the id was lost; the
    /// transport's events say so).
    pub fn delete_job(&self, scope: &Scope, job_id: u64) -> Result<Option<u64>, Error> {
        match self.execute(&JobOp::Delete(job_id).request(scope)?) {
            Ok(result) => Ok(read_deleted(result)?),
            Err(Error::Core(escpush_core::Error::Api {
                status: 404,
                mut errors,
            })) => {
                errors.insert(
                    0,
                    ApiMessage::new(
                        0,
                        format!("not found: {scope} has no log-push job {job_id} (already deleted, or never there)"),
                    ),
                );
                Err(Error::Core(escpush_core::Error::Api { status: 404, errors }))
            }
            Err(other) => Err(other),
        }
    }

    /// `GET {scope}/logpush/datasets/{dataset}/jobs`: the jobs of one dataset.
    pub fn dataset_jobs(&self, scope: &Scope, dataset: &str) -> Result<Vec<Value>, Error> {
        let jobs = read_job_list(self.execute(&JobOp::DatasetJobs(dataset).request(scope)?)?)?;
        Ok(jobs.into_iter().map(Value::Object).collect())
    }

    /// `GET {scope}/logpush/datasets/{dataset}/fields`: the live field list, `(name,
    /// description)` in the API's order.
    pub fn fields(&self, scope: &Scope, dataset: &str) -> Result<Vec<(String, String)>, Error> {
        Ok(read_fields(self.execute(&JobOp::Fields(dataset).request(scope)?)?)?)
    }

    /// `POST {scope}/logpush/ownership`: the API writes a challenge file to the destination
    /// and says where (the destination's credentials masked); an answer with `valid: false`
    /// is an API error with its message.
    pub fn ownership_challenge(&self, scope: &Scope, conf: &DestinationConf) -> Result<OwnershipChallenge, Error> {
        Ok(read_ownership_challenge(
            self.execute(&JobOp::OwnershipChallenge(conf).request(scope)?)?,
            conf,
        )?)
    }

    /// `POST {scope}/logpush/ownership/validate`: whether `challenge` is the token the API
    /// wrote to the destination; `valid: false` is an API error.
    pub fn validate_ownership(&self, scope: &Scope, conf: &DestinationConf, challenge: &str) -> Result<(), Error> {
        let result = self.execute(&JobOp::ValidateOwnership(conf, challenge).request(scope)?)?;
        read_valid(result, "the ownership challenge")?;
        Ok(())
    }

    /// `POST {scope}/logpush/validate/destination`: whether the API can push to the
    /// destination; gives its message, and `valid: false` is an API error.
    pub fn validate_destination(&self, scope: &Scope, conf: &DestinationConf) -> Result<String, Error> {
        let result = self.execute(&JobOp::ValidateDestination(conf).request(scope)?)?;
        Ok(read_valid(result, "the destination")?)
    }

    /// `POST {scope}/logpush/validate/destination/exists`: whether a job already pushes to
    /// that place (see [`DestinationConf::same_place`], how the emulator answers it).
    pub fn destination_exists(&self, scope: &Scope, conf: &DestinationConf) -> Result<bool, Error> {
        Ok(read_exists(
            self.execute(&JobOp::DestinationExists(conf).request(scope)?)?,
        )?)
    }

    /// `POST {scope}/logpush/validate/origin`: whether the API takes the `logpull_options`
    /// of `check` (checked against its dataset before sending, see [`OriginCheck::new`]);
    /// gives its message, and `valid: false` is an API error.
    pub fn validate_origin(&self, scope: &Scope, check: &OriginCheck) -> Result<String, Error> {
        let result = self.execute(&JobOp::ValidateOrigin(check).request(scope)?)?;
        Ok(read_valid(result, "the logpull options")?)
    }

    /// `GET /zones/{zone_id}/logpush/edge/jobs`: the zone's Instant Logs jobs (an account
    /// has none: refused before sending).
    pub fn instant_logs_jobs(&self, scope: &Scope) -> Result<Vec<Value>, Error> {
        let jobs = read_instant_logs_jobs(self.execute(&JobOp::InstantLogsJobs.request(scope)?)?)?;
        Ok(jobs.into_iter().map(Value::Object).collect())
    }

    /// `POST /zones/{zone_id}/logpush/edge/jobs`: opens an Instant Logs session and gives
    /// it, with its `wss://` address (`destination_conf`). Sent again only when it cannot
    /// have been processed, like a job creation: a zone has one active session at a time
    /// (when the answer is lost after sending, [`Error::OutcomeUnknown`] says to list the
    /// zone's sessions first).
    pub fn create_instant_logs_job(&self, scope: &Scope, spec: &InstantLogsSpec) -> Result<Value, Error> {
        let result = self.execute(&JobOp::CreateInstantLogsJob(spec).request(scope)?)?;
        Ok(Value::Object(read_instant_logs_job(result)?))
    }

    /// The job named in `desired` (its fields as a creation takes them, `name` required),
    /// made so: created when no job of the scope has the name, updated in the fields that
    /// differ (by meaning) when one has, left alone when it matches. Gives what was planned
    /// and the stored job. A creation on a scope at its job limit is refused before it is
    /// sent.
    pub fn ensure_job(&self, scope: &Scope, desired: &Map<String, Value>) -> Result<(PlanEntry, Value), Error> {
        let planned = self.plan_ensure(scope, desired)?;
        self.carry_out_ensure(scope, planned)
    }

    /// What [`Client::ensure_job`] would do, sending nothing but the list of jobs: look at
    /// the entry (what it changes, the job before and after) before
    /// [`Client::carry_out_ensure`] writes it.
    pub fn plan_ensure(&self, scope: &Scope, desired: &Map<String, Value>) -> Result<PlannedEnsure, Error> {
        let doc = serde_json::json!({ "jobs": [desired] });
        let mut wanted = desired_jobs(&doc, scope.kind())?;
        let stored = read_job_list(self.execute(&JobOp::List.request(scope)?)?)?;
        let entry = plan_job(&wanted.remove(0), &stored, scope)?;
        Ok(PlannedEnsure { entry, stored })
    }

    /// Writes what [`Client::plan_ensure`] planned; gives the entry and the stored job.
    pub fn carry_out_ensure(&self, scope: &Scope, planned: PlannedEnsure) -> Result<(PlanEntry, Value), Error> {
        let PlannedEnsure { entry, stored } = planned;
        let job = match self.apply_entry(scope, &entry)? {
            Some(job) => job,
            None => stored
                .into_iter()
                .find(|j| j.get("id").and_then(Value::as_u64) == entry.job_id)
                .map(Value::Object)
                .unwrap_or_default(),
        };
        Ok((entry, job))
    }

    /// The plan that brings the scope's jobs to `doc` (`{"jobs": [...]}`, see
    /// [`escpush_core::desired_jobs`]); nothing is sent but the list of jobs. A plan that
    /// would break the scope's job limits is refused ([`escpush_core::plan_jobs`]).
    pub fn plan_jobs(&self, scope: &Scope, doc: &Value, options: PlanOptions) -> Result<Plan, Error> {
        // Checked before anything is sent; planned with each job named as the document names it.
        desired_jobs(doc, scope.kind())?;
        let stored = read_job_list(self.execute(&JobOp::List.request(scope)?)?)?;
        Ok(plan_document(doc, &stored, scope, options)?)
    }

    /// Carries out a plan's writes in the order of [`Plan::steps`] (updates and creations,
    /// then deletions, so that a failure loses no job), stopping at the first failure.
    /// Gives, for each entry of the plan, what its write gave back (the created or updated
    /// job, `Value::Null` for a deletion; `None` when the entry sends nothing).
    ///
    /// A failure is [`Error::PlanStopped`]: the write's error, and which entries were
    /// written before it (its message says so: "...; before it, apply created `a` (job 9);
    /// not sent: delete `b` (job 2)").
    pub fn apply_plan(&self, scope: &Scope, plan: &Plan) -> Result<Vec<Option<Value>>, Error> {
        self.apply_plan_until(scope, plan, || false)
    }

    /// [`Client::apply_plan`], asking `stop` before each write: when it answers `true`,
    /// nothing more is sent, and the results so far are given (the entries not reached are
    /// `None`, as if they sent nothing). For a caller that stops between writes on its own
    /// signal (Python's Ctrl-C, SIGTERM), so that the write under way ends and none starts.
    pub fn apply_plan_until(
        &self,
        scope: &Scope,
        plan: &Plan,
        mut stop: impl FnMut() -> bool,
    ) -> Result<Vec<Option<Value>>, Error> {
        let mut results: Vec<Option<Value>> = vec![None; plan.entries.len()];
        for i in plan.steps() {
            if stop() {
                break;
            }
            match self.apply_entry(scope, &plan.entries[i]) {
                Ok(result) => results[i] = result,
                Err(error) => {
                    let done: Vec<bool> = results.iter().map(Option::is_some).collect();
                    let ids: Vec<Option<u64>> = results
                        .iter()
                        .map(|r| r.as_ref().and_then(|j| j.get("id")).and_then(Value::as_u64))
                        .collect();
                    let progress = plan.progress(&done, &ids, i);
                    return Err(Error::PlanStopped {
                        error: Box::new(error),
                        failed: i,
                        done,
                        ids,
                        progress,
                    });
                }
            }
        }
        Ok(results)
    }

    /// Carries out one entry of a plan: the created or updated job, `Value::Null` for a
    /// deletion (`{"note": ...}` when its answer was lost and its retry met 404: deleted by
    /// the first attempt, [`DELETED_BY_EARLIER_ATTEMPT`]), `None` when the entry sends nothing.
    pub fn apply_entry(&self, scope: &Scope, entry: &PlanEntry) -> Result<Option<Value>, Error> {
        match (entry.action, entry.operation()) {
            (_, None) => Ok(None),
            (PlanAction::Create, Some(JobOp::Create(spec))) => self.create_job(scope, spec).map(Some),
            (_, Some(JobOp::Update(update))) => self.put_job(scope, update).map(Some),
            (_, Some(JobOp::Delete(id))) => self.delete_job(scope, id).map(|deleted| {
                Some(match deleted {
                    Some(_) => Value::Null,
                    None => serde_json::json!({ "note": DELETED_BY_EARLIER_ATTEMPT }),
                })
            }),
            (_, Some(op)) => self.execute(&op.request(scope)?).map(Some),
        }
    }
}

/// An `ensure_job` planned, not yet written ([`Client::plan_ensure`]): the entry, and the
/// scope's jobs as they were listed.
#[derive(Clone)]
#[non_exhaustive]
pub struct PlannedEnsure {
    /// What the write does: its action, the fields it changes, the job before and after.
    pub entry: PlanEntry,
    stored: Vec<Map<String, Value>>,
}

/// The entry (its own `Debug` masks secrets) and how many jobs were listed: the listed jobs
/// hold their destinations' credentials.
impl std::fmt::Debug for PlannedEnsure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlannedEnsure")
            .field("entry", &self.entry)
            .field("stored_jobs", &self.stored.len())
            .finish()
    }
}
