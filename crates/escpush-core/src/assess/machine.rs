//! The assessment as a state machine a transport drives: [`Assessment::step`] says what to
//! do next, [`Assessment::feed`] takes what came of it, [`Assessment::interrupt`] stops it.
//! Every decision is here: the spec's test order, the checks, when to roll back, and the
//! way back to the state each scope was found in. The machine never does I/O and never
//! reads a clock: the transport waits, polls and fetches.

use std::collections::VecDeque;
use std::time::Duration;

use super::compare::{check, differences, mask_text, Difference, Fetched};
use super::plan::{AssessPlan, SiteUrl};
use super::report::{AssessReport, NotRestored, Outcome, StageName, StageReport, TrackedScope, UrlResult};
use crate::esc::{EscOp, EscSecret, EscStatus};
use crate::scope::Scope;

/// What the transport does next.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// GET the scope's ESC status; answer with [`Event::Status`].
    ReadStatus(Scope),
    /// POST `{"with_secret": ...}` on the scope; answer with [`Event::Done`].
    SetSecret(Scope, EscSecret),
    /// GET the URL, redirects not followed, within `timeout`; with `Cookie:
    /// disable_esc=<secret>` when `cookie` is given; answer with [`Event::Fetched`], the
    /// response built with [`SiteResponse::masked`](super::SiteResponse::masked) and `mask`
    /// (the assessment's secret: a site may reflect the cookie; the machine masks the
    /// headers again, but the body's hash only the transport can).
    Fetch {
        url: SiteUrl,
        cookie: Option<EscSecret>,
        mask: EscSecret,
        timeout: Duration,
    },
    /// POST `{"always": true}` on the scope; answer with [`Event::Done`].
    Disable(Scope),
    /// GET the scope's status every `poll` until it reports `always`, at most for `limit`;
    /// answer with [`Event::Disabled`].
    WaitUntilDisabled {
        scope: Scope,
        limit: Duration,
        poll: Duration,
    },
    /// Wait this long (checking for interruptions); answer with [`Event::Done`].
    Settle(Duration),
    /// Perform `op` on the scope to put it back; answer with [`Event::Done`]. Interruptions
    /// are not taken during a restore.
    Restore { scope: Scope, op: EscOp },
    /// Nothing left: read [`Assessment::report`].
    Done,
}

impl Step {
    /// What the step does, for progress lines; never the secret.
    pub fn describe(&self) -> String {
        match self {
            Step::ReadStatus(s) => format!("reading the ESC status of {s}"),
            Step::SetSecret(s, _) => format!("setting a new test secret on {s}"),
            Step::Fetch { url, cookie, .. } => format!(
                "fetching {} {}",
                url.shown(),
                if cookie.is_some() {
                    "without ESC (test cookie)"
                } else {
                    "as visitors get it"
                }
            ),
            Step::Disable(s) => format!("disabling ESC for {s}"),
            Step::WaitUntilDisabled { scope, .. } => format!("waiting until the API reports ESC disabled for {scope}"),
            Step::Settle(d) => format!("waiting {} s for the change to reach the edge", d.as_secs_f64()),
            Step::Restore { scope, op } => match op {
                EscOp::Enable => format!("re-enabling ESC for {scope}"),
                EscOp::Disable => format!("disabling ESC for {scope} (kept disabled)"),
                _ => format!("setting the previous test secret of {scope} again"),
            },
            Step::Done => "done".to_owned(),
        }
    }

    /// Whether the step puts a scope back (the transport does not interrupt it).
    pub fn is_restore(&self) -> bool {
        matches!(self, Step::Restore { .. })
    }
}

/// What came of a step.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// The status a GET read.
    Status(EscStatus),
    /// The write, the wait or the settle time is done.
    Done,
    /// What a fetch gave (a failed connection is a [`Fetched::Failed`], not an error).
    Fetched(Fetched),
    /// Whether the API reported the scope disabled before the limit.
    Disabled { seen: bool },
    /// The API call failed (after its retries): the assessment stops and restores.
    Failed(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    ReadInitial(usize),
    SetSecret,
    RequestFetch { url: usize, cookie: bool },
    Disable(usize),
    Wait(usize),
    Settle(usize),
    StageFetch(usize, usize),
    Restoring,
    ReadFinal(usize),
    Done,
}

/// Where the machine goes once the restore queue is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    Stage(usize),
    Finish,
}

/// One assessment in progress. See the module documentation.
#[derive(Debug)]
pub struct Assessment {
    plan: AssessPlan,
    secret: EscSecret,
    phase: Phase,
    scopes: Vec<TrackedScope>,
    stages: Vec<StageReport>,
    with_esc: Vec<Option<Fetched>>,
    without_esc: Vec<Option<Fetched>>,
    differences: Vec<Difference>,
    error: Option<String>,
    notes: Vec<String>,
    queue: VecDeque<(usize, EscOp)>,
    after: After,
    not_restored: Vec<NotRestored>,
}

impl Assessment {
    /// A new assessment of `plan`, which sets `secret` on the zone for the request stage
    /// (make it from the OS random source: [`EscSecret`]'s rules apply).
    pub fn new(plan: AssessPlan, secret: EscSecret) -> Self {
        let mut scopes = vec![TrackedScope::new(plan.zone.clone())];
        if let Some(account) = &plan.account {
            scopes.push(TrackedScope::new(account.clone()));
        }
        let n = plan.urls.len();
        let stages = [StageName::Request, StageName::Zone, StageName::Account]
            .into_iter()
            .map(StageReport::new)
            .collect();
        Assessment {
            plan,
            secret,
            phase: Phase::ReadInitial(0),
            scopes,
            stages,
            with_esc: vec![None; n],
            without_esc: vec![None; n],
            differences: Vec::new(),
            error: None,
            notes: Vec::new(),
            queue: VecDeque::new(),
            after: After::Finish,
            not_restored: Vec::new(),
        }
    }

    /// The plan being run.
    pub fn plan(&self) -> &AssessPlan {
        &self.plan
    }

    /// What to do next ([`Step::Done`] when finished).
    pub fn step(&self) -> Step {
        let scope = |i: usize| self.scopes[i].scope.clone();
        match self.phase {
            Phase::ReadInitial(i) | Phase::ReadFinal(i) => Step::ReadStatus(scope(i)),
            Phase::SetSecret => Step::SetSecret(scope(0), self.secret.clone()),
            Phase::RequestFetch { url, cookie } => Step::Fetch {
                url: self.plan.urls[url].clone(),
                cookie: cookie.then(|| self.secret.clone()),
                mask: self.secret.clone(),
                timeout: self.plan.timeout,
            },
            Phase::Disable(stage) => Step::Disable(scope(stage - 1)),
            Phase::Wait(stage) => Step::WaitUntilDisabled {
                scope: scope(stage - 1),
                limit: self.plan.wait_limit,
                poll: self.plan.poll,
            },
            Phase::Settle(_) => Step::Settle(self.plan.settle),
            Phase::StageFetch(_, url) => Step::Fetch {
                url: self.plan.urls[url].clone(),
                cookie: None,
                mask: self.secret.clone(),
                timeout: self.plan.timeout,
            },
            Phase::Restoring => match self.queue.front() {
                Some((i, op)) => Step::Restore {
                    scope: scope(*i),
                    op: op.clone(),
                },
                None => Step::Done,
            },
            Phase::Done => Step::Done,
        }
    }

    /// Whether the machine is finished.
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Stops the assessment (Ctrl-C, a progress callback that raised, the caller's own
    /// reason): every scope changed so far is put back. Ignored once the way back has begun
    /// (a restore or the final reading is never interrupted). Returns whether it took effect;
    /// when it did not, perform [`Assessment::step`] as usual.
    pub fn interrupt(&mut self, reason: impl Into<String>) -> bool {
        match self.phase {
            Phase::Restoring if self.after != After::Finish => {
                // Between stages: no further stage; the way back is rebuilt from what changed.
                self.error = Some(format!("interrupted: {}", reason.into()));
                self.finish();
                true
            }
            Phase::Restoring | Phase::ReadFinal(_) | Phase::Done => false,
            _ => {
                self.fail(format!("interrupted: {}", reason.into()));
                true
            }
        }
    }

    /// Takes what came of the current step. The secret is masked in what it carries (a
    /// response's headers, a failure's text) before anything is kept.
    #[allow(clippy::too_many_lines)]
    pub fn feed(&mut self, event: Event) {
        let event = match event {
            Event::Fetched(f) => Event::Fetched(f.masked(&self.secret)),
            Event::Failed(message) => Event::Failed(mask_text(&message, &self.secret)),
            other => other,
        };
        match (self.phase, event) {
            (_, Event::Failed(message)) => self.failed_step(message),
            (Phase::ReadInitial(i), Event::Status(status)) => {
                if status.always {
                    self.notes.push(format!(
                        "ESC was already disabled for {} when the assessment began",
                        self.scopes[i].scope
                    ));
                }
                self.scopes[i].initial = Some(status);
                self.phase = if i + 1 < self.scopes.len() {
                    Phase::ReadInitial(i + 1)
                } else {
                    Phase::SetSecret
                };
            }
            (Phase::SetSecret, Event::Done) => {
                self.scopes[0].secret_changed = true;
                self.stages[0].outcome = Outcome::Running;
                self.phase = Phase::RequestFetch { url: 0, cookie: false };
            }
            (Phase::RequestFetch { url, cookie: false }, Event::Fetched(f)) => {
                self.with_esc[url] = Some(f);
                self.phase = Phase::RequestFetch { url, cookie: true };
            }
            (Phase::RequestFetch { url, cookie: true }, Event::Fetched(f)) => {
                self.request_fetched(url, f);
            }
            (Phase::Disable(stage), Event::Done) => {
                self.phase = Phase::Wait(stage);
            }
            (Phase::Wait(stage), Event::Disabled { seen }) => {
                if seen {
                    self.phase = Phase::Settle(stage);
                } else {
                    self.stages[stage].problem = Some(format!(
                        "the API did not report ESC disabled for {} within {} s",
                        self.scopes[stage - 1].scope,
                        self.plan.wait_limit.as_secs_f64()
                    ));
                    self.roll_back(stage);
                }
            }
            (Phase::Settle(stage), Event::Done) => self.phase = Phase::StageFetch(stage, 0),
            (Phase::StageFetch(stage, url), Event::Fetched(f)) => self.stage_fetched(stage, url, f),
            (Phase::Restoring, Event::Done) => {
                if let Some((i, op)) = self.queue.pop_front() {
                    let tracked = &mut self.scopes[i];
                    match op {
                        EscOp::Enable => tracked.disabled = false,
                        EscOp::Disable => tracked.kept_disabled = true,
                        EscOp::SetSecret(_) => tracked.secret_changed = false,
                        _ => {}
                    }
                }
                self.next_restore();
            }
            (Phase::ReadFinal(i), Event::Status(status)) => {
                self.scopes[i].final_status = Some(status);
                self.next_final(i);
            }
            (phase, event) => {
                // A transport that answers a step with the wrong event is a bug: stop safely.
                self.failed_step(format!("internal error: {event:?} does not answer {phase:?}"));
            }
        }
    }

    /// The outcome, complete once [`Assessment::is_done`].
    pub fn report(&self) -> AssessReport {
        AssessReport::new(
            &self.scopes,
            self.stages.clone(),
            self.differences.clone(),
            self.error.clone(),
            self.notes.clone(),
            self.not_restored.clone(),
        )
    }

    /// Runs the machine to its end with `perform` doing each step: for a transport that
    /// needs no interruption (tests, a Rust caller's own HTTP stack).
    pub fn run(mut self, mut perform: impl FnMut(&Step) -> Event) -> AssessReport {
        loop {
            let step = self.step();
            if step == Step::Done {
                return self.report();
            }
            let event = perform(&step);
            self.feed(event);
        }
    }

    fn request_fetched(&mut self, url: usize, f: Fetched) {
        let problem = check(&f, self.plan.expect_status.as_deref());
        if let Some(reflected) = f.response().map(|r| &r.reflected).filter(|r| !r.is_empty()) {
            self.notes.push(format!(
                "{} reflects the test cookie ({}): left out of the comparison, the secret masked",
                self.plan.urls[url].shown(),
                reflected.join(", ")
            ));
        }
        let with = self.with_esc[url].clone();
        if let (Some(Fetched::Response(w)), Fetched::Response(n)) = (&with, &f) {
            let found = differences(self.plan.urls[url].shown(), w, n, &self.plan.ignore_headers);
            self.differences.extend(found);
        }
        self.stages[0].urls.push(UrlResult {
            url: self.plan.urls[url].shown().to_owned(),
            with_esc: with,
            without_esc: f.clone(),
            problem,
        });
        self.without_esc[url] = Some(f);
        if url + 1 < self.plan.urls.len() {
            self.phase = Phase::RequestFetch {
                url: url + 1,
                cookie: false,
            };
        } else if self.stages[0].urls.iter().any(|u| u.problem.is_some()) {
            self.stages[0].outcome = Outcome::Failed;
            self.stages[0].problem =
                Some("a response without ESC failed its check; the zone was not touched".to_owned());
            self.finish();
        } else {
            self.stages[0].outcome = Outcome::Passed;
            self.start_stage(1);
        }
    }

    fn start_stage(&mut self, stage: usize) {
        self.stages[stage].outcome = Outcome::Running;
        // Marked before the POST is sent: a POST whose answer is lost may have taken effect.
        let tracked = &mut self.scopes[stage - 1];
        tracked.disabled = !tracked.initial.as_ref().is_some_and(|s| s.always);
        self.phase = Phase::Disable(stage);
    }

    fn stage_fetched(&mut self, stage: usize, url: usize, f: Fetched) {
        let mut problem = check(&f, self.plan.expect_status.as_deref());
        let cookie = self.without_esc[url].as_ref().and_then(Fetched::response);
        let with = self.with_esc[url].as_ref().and_then(Fetched::response);
        if let (None, Fetched::Response(got), Some(want)) = (&problem, &f, cookie) {
            let ignore = &self.plan.ignore_headers;
            let url_text = self.plan.urls[url].shown();
            if got.status != want.status {
                problem = Some(format!(
                    "status {}, but {} with the test cookie",
                    got.status, want.status
                ));
            }
            if let Some(with) = with {
                let esc_visible = !differences(url_text, with, want, ignore).is_empty();
                if esc_visible
                    && differences(url_text, with, got, ignore).is_empty()
                    && !differences(url_text, want, got, ignore).is_empty()
                {
                    problem = Some(
                        "the response is still the one with ESC: the change had not reached the edge; \
                         a longer settle time may help"
                            .to_owned(),
                    );
                }
            }
        }
        let failed = problem.is_some();
        self.stages[stage].urls.push(UrlResult {
            url: self.plan.urls[url].shown().to_owned(),
            with_esc: None,
            without_esc: f,
            problem,
        });
        if failed {
            self.stages[stage].problem = Some("a response without ESC failed its check".to_owned());
            self.roll_back(stage);
        } else if url + 1 < self.plan.urls.len() {
            self.phase = Phase::StageFetch(stage, url + 1);
        } else {
            self.stages[stage].outcome = Outcome::Passed;
            if stage == 1 && self.scopes.len() > 1 {
                // The account stage measures the account's switch: the zone's own is put back first.
                self.queue.clear();
                if self.scopes[0].disabled {
                    self.queue.push_back((0, EscOp::Enable));
                }
                self.after = After::Stage(2);
                self.phase = Phase::Restoring;
                self.next_restore();
            } else {
                self.finish();
            }
        }
    }

    /// A check failed in `stage`: the scope goes back at once, then the assessment ends.
    fn roll_back(&mut self, stage: usize) {
        self.stages[stage].outcome = Outcome::RolledBack;
        self.finish();
    }

    /// The current step failed (an API error, an interruption).
    fn failed_step(&mut self, message: String) {
        match self.phase {
            Phase::Restoring => {
                if self.after != After::Finish {
                    // The zone could not be put back between stages: no account stage; the
                    // final way back tries again.
                    self.error = Some(format!("putting {} back failed: {message}", self.scopes[0].scope));
                    self.finish();
                    return;
                }
                if let Some((i, op)) = self.queue.pop_front() {
                    self.not_restored
                        .push(NotRestored::new(&self.scopes[i].scope, &op, message));
                }
                self.next_restore();
            }
            Phase::ReadFinal(i) => {
                self.notes.push(format!(
                    "the final status of {} could not be read: {message}",
                    self.scopes[i].scope
                ));
                self.next_final(i);
            }
            Phase::Done => {}
            _ => self.fail(message),
        }
    }

    fn fail(&mut self, message: String) {
        self.error = Some(message);
        let stage = match self.phase {
            Phase::SetSecret => {
                // The POST may have taken effect.
                self.scopes[0].secret_changed = true;
                Some(0)
            }
            Phase::RequestFetch { .. } => Some(0),
            Phase::Disable(s) | Phase::Wait(s) | Phase::Settle(s) | Phase::StageFetch(s, _) => Some(s),
            _ => None,
        };
        if let Some(s) = stage {
            self.stages[s].outcome = if s == 0 { Outcome::Failed } else { Outcome::RolledBack };
        }
        self.finish();
    }

    /// The way back: every scope to the state it was found in, or kept disabled when asked
    /// and every stage that ran passed; then the final statuses.
    fn finish(&mut self) {
        self.after = After::Finish;
        self.queue.clear();
        let passed = self.error.is_none()
            && self
                .stages
                .iter()
                .all(|s| matches!(s.outcome, Outcome::Passed | Outcome::Skipped));
        let keep = self.plan.keep_disabled && passed;
        for i in (0..self.scopes.len()).rev() {
            let tracked = &self.scopes[i];
            let tested = self.stages[i + 1].outcome == Outcome::Passed;
            if keep && tested {
                if !tracked.disabled && !tracked.initial.as_ref().is_some_and(|s| s.always) {
                    self.queue.push_back((i, EscOp::Disable));
                } else if tracked.disabled {
                    self.scopes[i].kept_disabled = true;
                }
            } else if tracked.disabled {
                self.queue.push_back((i, EscOp::Enable));
            }
        }
        for i in 0..self.scopes.len() {
            let tracked = &self.scopes[i];
            if tracked.secret_changed {
                if let Some(old) = tracked.initial.as_ref().and_then(|s| s.secret.clone()) {
                    self.queue.push_back((i, EscOp::SetSecret(old)));
                }
            }
        }
        self.phase = Phase::Restoring;
        self.next_restore();
    }

    fn next_restore(&mut self) {
        if self.queue.is_empty() {
            match self.after {
                After::Stage(stage) => {
                    self.after = After::Finish;
                    self.start_stage(stage);
                }
                After::Finish => self.phase = Phase::ReadFinal(0),
            }
        }
    }

    fn next_final(&mut self, i: usize) {
        self.phase = if i + 1 < self.scopes.len() {
            Phase::ReadFinal(i + 1)
        } else {
            Phase::Done
        };
    }
}
