//! What an assessment found and where it left each scope: [`AssessReport`], its JSON (the
//! shape `escpush esc assess --json` prints) and its text summary.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::compare::{Difference, Fetched};
use crate::esc::{EscOp, EscStatus};
use crate::scope::Scope;

/// The three stages of the spec's test order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StageName {
    Request,
    Zone,
    Account,
}

impl StageName {
    /// `"request"`, `"zone"` or `"account"`.
    pub fn as_str(self) -> &'static str {
        match self {
            StageName::Request => "request",
            StageName::Zone => "zone",
            StageName::Account => "account",
        }
    }
}

/// How a stage ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// Not run.
    Skipped,
    /// Still running (only in a report taken before the end).
    Running,
    /// Every check passed.
    Passed,
    /// A check failed or an error stopped it, and nothing of it is left to put back, or
    /// putting it back failed.
    Failed,
    /// A check failed or an error stopped it, and its scope was put back.
    RolledBack,
}

impl Outcome {
    /// `"skipped"`, `"running"`, `"passed"`, `"failed"` or `"rolled_back"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Skipped => "skipped",
            Outcome::Running => "running",
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::RolledBack => "rolled_back",
        }
    }
}

/// One URL of one stage.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UrlResult {
    pub url: String,
    /// The response as visitors get it (request stage only).
    pub with_esc: Option<Fetched>,
    /// The response without ESC: with the test cookie (request stage), or with the scope
    /// disabled (zone and account stages).
    pub without_esc: Fetched,
    /// Why it failed its check, or None.
    pub problem: Option<String>,
}

impl UrlResult {
    /// `{"url", "with_esc", "without_esc", "passed", "problem"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "url": self.url,
            "with_esc": self.with_esc.as_ref().map(Fetched::to_json),
            "without_esc": self.without_esc.to_json(),
            "passed": self.problem.is_none(),
            "problem": self.problem,
        })
    }
}

/// One stage: its outcome and the URLs it fetched.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StageReport {
    pub name: StageName,
    pub outcome: Outcome,
    pub urls: Vec<UrlResult>,
    /// Why it did not pass, or None.
    pub problem: Option<String>,
}

impl StageReport {
    pub(crate) fn new(name: StageName) -> Self {
        StageReport {
            name,
            outcome: Outcome::Skipped,
            urls: Vec::new(),
            problem: None,
        }
    }

    /// `{"name", "outcome", "problem", "urls": [...]}`.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name.as_str(),
            "outcome": self.outcome.as_str(),
            "problem": self.problem,
            "urls": self.urls.iter().map(UrlResult::to_json).collect::<Vec<_>>(),
        })
    }
}

/// A scope the way back could not reach, and the command that does it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct NotRestored {
    pub scope: Scope,
    /// What the failed request was to do.
    pub action: String,
    /// Why it failed (never a secret).
    pub error: String,
    /// The exact command that puts the scope back.
    pub command: String,
}

impl NotRestored {
    pub(crate) fn new(scope: &Scope, op: &EscOp, error: String) -> Self {
        let flag = format!("--{} {}", scope.kind(), scope.id());
        let (action, command) = match op {
            EscOp::Disable => (
                "disable ESC (kept disabled as asked)",
                format!("escpush esc disable {flag}"),
            ),
            EscOp::SetSecret(_) => (
                "set the previous test secret again",
                format!("escpush esc secret {flag} --secret-file FILE_WITH_YOUR_PREVIOUS_SECRET"),
            ),
            _ => ("re-enable ESC", format!("escpush esc enable {flag}")),
        };
        NotRestored {
            scope: scope.clone(),
            action: action.to_owned(),
            error,
            command,
        }
    }

    /// `{"scope", "id", "action", "error", "command"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "scope": self.scope.kind(),
            "id": self.scope.id(),
            "action": self.action,
            "error": self.error,
            "command": self.command,
        })
    }
}

/// What the machine knows of one scope.
#[derive(Clone, Debug)]
pub(crate) struct TrackedScope {
    pub scope: Scope,
    pub initial: Option<EscStatus>,
    pub final_status: Option<EscStatus>,
    /// ESC was disabled by the assessment and not yet put back.
    pub disabled: bool,
    /// The assessment's secret replaced what was there.
    pub secret_changed: bool,
    /// Left disabled as asked.
    pub kept_disabled: bool,
}

impl TrackedScope {
    pub fn new(scope: Scope) -> Self {
        TrackedScope {
            scope,
            initial: None,
            final_status: None,
            disabled: false,
            secret_changed: false,
            kept_disabled: false,
        }
    }
}

/// The status of a scope as `escpush esc status --json` prints it:
/// `{"scope", "id", "state", "disabled", "secret_set", "secret_length"}`.
pub fn status_json(scope: &Scope, status: &EscStatus) -> Value {
    let length = status.secret.as_ref().map(crate::esc::EscSecret::len);
    json!({
        "scope": scope.kind(),
        "id": scope.id(),
        "state": status.state().as_str(),
        "disabled": status.always,
        "secret_set": length.is_some(),
        "secret_length": length,
    })
}

/// One scope of an assessment: its status before and after (None: not read).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScopeReport {
    pub scope: Scope,
    pub initial: Option<EscStatus>,
    pub final_status: Option<EscStatus>,
}

/// The outcome of an assessment.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AssessReport {
    /// The scopes, zone first.
    pub scopes: Vec<ScopeReport>,
    pub stages: Vec<StageReport>,
    pub differences: Vec<Difference>,
    /// The API error or the interruption that stopped the assessment.
    pub error: Option<String>,
    pub notes: Vec<String>,
    pub not_restored: Vec<NotRestored>,
    /// The scopes left disabled as asked.
    pub kept_disabled: Vec<Scope>,
    /// The scopes where the assessment's secret stays (no API call removes a secret).
    pub secret_left: Vec<Scope>,
}

impl AssessReport {
    pub(crate) fn new(
        scopes: &[TrackedScope],
        mut stages: Vec<StageReport>,
        differences: Vec<Difference>,
        error: Option<String>,
        notes: Vec<String>,
        not_restored: Vec<NotRestored>,
    ) -> Self {
        for (i, tracked) in scopes.iter().enumerate() {
            let stage = &mut stages[i + 1];
            if stage.outcome == Outcome::RolledBack && not_restored.iter().any(|n| n.scope == tracked.scope) {
                stage.outcome = Outcome::Failed;
            }
        }
        AssessReport {
            scopes: scopes
                .iter()
                .map(|t| ScopeReport {
                    scope: t.scope.clone(),
                    initial: t.initial.clone(),
                    final_status: t.final_status.clone(),
                })
                .collect(),
            stages,
            differences,
            error,
            notes,
            not_restored,
            kept_disabled: scopes
                .iter()
                .filter(|t| t.kept_disabled)
                .map(|t| t.scope.clone())
                .collect(),
            secret_left: scopes
                .iter()
                .filter(|t| t.secret_changed && t.initial.as_ref().is_none_or(|s| s.secret.is_none()))
                .map(|t| t.scope.clone())
                .collect(),
        }
    }

    /// Every stage that ran passed, nothing stopped it, and every scope is where it should be.
    pub fn ok(&self) -> bool {
        self.error.is_none()
            && self.restored()
            && self
                .stages
                .iter()
                .all(|s| matches!(s.outcome, Outcome::Passed | Outcome::Skipped))
    }

    /// Every scope is as it was found, or kept disabled as asked.
    pub fn restored(&self) -> bool {
        self.not_restored.is_empty()
    }

    /// A stage's check failed (as opposed to an error or an interruption).
    pub fn check_failed(&self) -> bool {
        self.stages
            .iter()
            .any(|s| s.urls.iter().any(|u| u.problem.is_some()) || s.problem.is_some())
    }

    /// The JSON `escpush esc assess --json` prints: `{"ok", "restored", "initial",
    /// "final", "stages", "differences", "error", "not_restored", "kept_disabled",
    /// "secret_left", "notes"}`.
    pub fn to_json(&self) -> Value {
        let states = |pick: fn(&ScopeReport) -> &Option<EscStatus>| {
            self.scopes
                .iter()
                .map(|entry| {
                    pick(entry)
                        .as_ref()
                        .map_or(Value::Null, |s| status_json(&entry.scope, s))
                })
                .collect::<Vec<_>>()
        };
        let scopes = |list: &[Scope]| {
            list.iter()
                .map(|s| json!({"scope": s.kind(), "id": s.id()}))
                .collect::<Vec<_>>()
        };
        json!({
            "ok": self.ok(),
            "restored": self.restored(),
            "initial": states(|e| &e.initial),
            "final": states(|e| &e.final_status),
            "stages": self.stages.iter().map(StageReport::to_json).collect::<Vec<_>>(),
            "differences": self.differences.iter().map(Difference::to_json).collect::<Vec<_>>(),
            "error": self.error,
            "not_restored": self.not_restored.iter().map(NotRestored::to_json).collect::<Vec<_>>(),
            "kept_disabled": scopes(&self.kept_disabled),
            "secret_left": scopes(&self.secret_left),
            "notes": self.notes,
        })
    }

    /// A summary for a terminal: the verdict, each stage, each difference with its
    /// replacement, and where the scopes were left (NOT RESTORED with the command to run).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let zone = self.scopes.first().map_or_else(String::new, |s| s.scope.to_string());
        let verdict = if self.ok() {
            "every stage passed"
        } else if self.error.is_some() {
            "stopped by an error"
        } else {
            "a stage failed"
        };
        let _ = writeln!(out, "ESC assessment of {zone}: {verdict}");
        if let Some(e) = &self.error {
            let _ = writeln!(out, "  error: {e}");
        }
        for stage in &self.stages {
            let _ = write!(
                out,
                "  {} stage: {}",
                stage.name.as_str(),
                stage.outcome.as_str().replace('_', " ")
            );
            if let Some(p) = &stage.problem {
                let _ = write!(out, " ({p})");
            }
            out.push('\n');
            for u in stage.urls.iter().filter(|u| u.problem.is_some()) {
                let _ = writeln!(out, "    {}: {}", u.url, u.problem.as_deref().unwrap_or_default());
            }
        }
        if self.differences.is_empty() {
            if self.stages[0].urls.iter().any(|u| u.with_esc.is_some()) {
                let _ = writeln!(out, "no difference: ESC changes nothing in these responses");
            }
        } else {
            let n = self.differences.len();
            let _ = writeln!(out, "what ESC does ({n} difference{}):", if n == 1 { "" } else { "s" });
            for d in &self.differences {
                let name = d.name.as_deref().map(|n| format!(" {n}")).unwrap_or_default();
                let shown = |v: &Value| {
                    if v.is_null() {
                        "(none)".to_owned()
                    } else {
                        v.to_string()
                    }
                };
                let _ = writeln!(
                    out,
                    "  {} {}{name}: with ESC {}, without {} -> {}",
                    d.url,
                    d.what.as_str(),
                    shown(&d.with_esc),
                    shown(&d.without_esc),
                    d.replacement.replacement
                );
            }
        }
        for n in &self.not_restored {
            let _ = writeln!(
                out,
                "NOT RESTORED: {}: could not {}: {}; run: {}",
                n.scope, n.action, n.error, n.command
            );
        }
        if self.restored() {
            let _ = writeln!(
                out,
                "restored: every scope is as it was found{}",
                if self.kept_disabled.is_empty() {
                    ""
                } else {
                    ", except those kept disabled as asked"
                }
            );
        }
        for s in &self.kept_disabled {
            let _ = writeln!(
                out,
                "kept disabled as asked: {s} (re-enable: escpush esc enable --{} {})",
                s.kind(),
                s.id()
            );
        }
        for entry in &self.scopes {
            if let Some(f) = &entry.final_status {
                let _ = writeln!(out, "  {} now: {}", entry.scope, f.state().as_str());
            }
        }
        for s in &self.secret_left {
            let _ = writeln!(out, "the test secret set on {s} stays: no API call removes a secret");
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        out
    }
}
