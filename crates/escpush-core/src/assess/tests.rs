//! The machine driven by a simulated API and site: every scenario of issue 14.

use std::time::Duration;

use super::*;
use crate::esc::{EscOp, EscSecret, EscStatus};
use crate::scope::Scope;

/// A zone in an account, and a site whose responses ESC alters unless it is off.
#[derive(Default)]
struct Sim {
    zone: EscStatus,
    account: EscStatus,
    /// ESC is still seen as on by the edge (a propagation delay longer than any settle).
    stale_edge: bool,
    /// The origin fails at this path (ESC hid it).
    broken_path: Option<&'static str>,
    /// Fail the n-th API call whose description contains this text.
    fail: Option<(&'static str, usize)>,
    /// The origin echoes the request's `Cookie` in a header, a `Set-Cookie` and a redirect,
    /// and the transport keeps what it got as it is (`SiteResponse::new`).
    reflect: bool,
    calls: Vec<String>,
}

impl Sim {
    fn esc_on(&self, cookie: Option<&EscSecret>) -> bool {
        if self.stale_edge {
            return true;
        }
        let by_cookie = cookie.is_some_and(|c| self.zone.secret.as_ref() == Some(c));
        !(self.zone.always || self.account.always || by_cookie)
    }

    fn site(&self, url: &str, esc_on: bool) -> Fetched {
        let path = url.trim_start_matches("http://site");
        if esc_on {
            return Fetched::Response(match path {
                "/old" => SiteResponse::new(301, [("Location", "/new")], b""),
                _ => SiteResponse::new(200, [("X-Esc", "on"), ("Date", "now")], b"page"),
            });
        }
        if Some(path) == self.broken_path {
            return Fetched::Response(SiteResponse::new(502, [("Date", "later")], b"bad gateway"));
        }
        Fetched::Response(SiteResponse::new(200, [("Date", "later")], b"page"))
    }

    fn scope_mut(&mut self, scope: &Scope) -> &mut EscStatus {
        match scope {
            Scope::Zone(_) => &mut self.zone,
            Scope::Account(_) => &mut self.account,
        }
    }

    fn perform(&mut self, step: &Step) -> Event {
        let text = step.describe();
        self.calls.push(text.clone());
        if let Some((pattern, n)) = &mut self.fail {
            if text.contains(*pattern) {
                if *n == 0 {
                    return Event::Failed("HTTP 500 from the API".to_owned());
                }
                *n -= 1;
            }
        }
        match step {
            Step::ReadStatus(s) => Event::Status(self.scope_mut(s).clone()),
            Step::SetSecret(s, secret) => {
                self.scope_mut(s).secret = Some(secret.clone());
                Event::Done
            }
            Step::Fetch { url, cookie, .. } => {
                let on = self.esc_on(cookie.as_ref());
                match (self.reflect, cookie) {
                    (true, Some(c)) => reflected(&self.site(url.as_str(), on), &crate::esc::esc_cookie(c)),
                    _ => self.site(url.as_str(), on),
                }
            }
            .into_event(),
            Step::Disable(s) => {
                self.scope_mut(s).always = true;
                Event::Done
            }
            Step::WaitUntilDisabled { scope, .. } => Event::Disabled {
                seen: self.scope_mut(scope).always,
            },
            Step::Settle(_) => Event::Done,
            Step::Restore { scope, op } => {
                match op {
                    EscOp::Enable => self.scope_mut(scope).always = false,
                    EscOp::Disable => self.scope_mut(scope).always = true,
                    EscOp::SetSecret(s) => self.scope_mut(scope).secret = Some(s.clone()),
                    _ => unreachable!(),
                }
                Event::Done
            }
            _ => unreachable!("{step:?}"),
        }
    }
}

/// `response`, carrying the request's cookie wherever a site may echo it.
fn reflected(response: &Fetched, cookie: &str) -> Fetched {
    let status = response.response().map_or(200, |r| r.status);
    let location = format!("/login?from={cookie}");
    let headers = [
        ("Location", location.as_str()),
        ("X-Seen-Cookie", cookie),
        ("Set-Cookie", &format!("seen={cookie}")),
    ];
    Fetched::Response(SiteResponse::new(
        status,
        headers,
        format!("you sent {cookie}").as_bytes(),
    ))
}

trait IntoEvent {
    fn into_event(self) -> Event;
}

impl IntoEvent for Fetched {
    fn into_event(self) -> Event {
        Event::Fetched(self)
    }
}

fn plan(account: bool, keep: bool) -> AssessPlan {
    let mut b = AssessPlan::builder(Scope::zone("z1").unwrap())
        .urls(["http://site/", "http://site/old"])
        .keep_disabled(keep)
        .settle_secs(0.0);
    if account {
        b = b.account(Scope::account("a1").unwrap());
    }
    b.build().unwrap()
}

fn secret() -> EscSecret {
    EscSecret::new("assess-secret-0123456789").unwrap()
}

fn run(sim: &mut Sim, plan: AssessPlan) -> AssessReport {
    Assessment::new(plan, secret()).run(|step| sim.perform(step))
}

fn outcomes(r: &AssessReport) -> Vec<&'static str> {
    r.stages.iter().map(|s| s.outcome.as_str()).collect()
}

#[test]
fn a_full_assessment_restores_every_scope() {
    let mut sim = Sim::default();
    let r = run(&mut sim, plan(false, false));
    assert!(r.ok() && r.restored(), "{}", r.to_text());
    assert_eq!(outcomes(&r), ["passed", "passed", "skipped"]);
    assert!(!sim.zone.always);
    let what: Vec<(&str, &str)> = r
        .differences
        .iter()
        .map(|d| (d.url.as_str(), d.what.as_str()))
        .collect();
    assert_eq!(
        what,
        [
            ("http://site/", "header"),
            ("http://site/old", "status"),
            ("http://site/old", "location"),
            ("http://site/old", "body"),
        ]
    );
    assert_eq!(r.secret_left, [Scope::zone("z1").unwrap()]);
    let json = r.to_json();
    assert_eq!(json["final"][0]["state"], "secret");
    assert_eq!(json["initial"][0]["state"], "enabled");
    let text = format!("{} {json}", r.to_text());
    assert!(!text.contains("assess-secret"), "{text}");
    assert!(text.contains("stays"), "{text}");
    assert!(text.contains("what ESC does (4 differences):"), "{text}");
    let mut one = r.clone();
    one.differences.truncate(1);
    assert!(
        one.to_text().contains("what ESC does (1 difference):"),
        "{}",
        one.to_text()
    );
}

#[test]
fn a_failing_url_in_the_request_stage_never_touches_the_zone() {
    let mut sim = Sim {
        broken_path: Some("/old"),
        ..Sim::default()
    };
    let r = run(&mut sim, plan(true, false));
    assert!(!r.ok() && r.restored() && r.error.is_none());
    assert_eq!(outcomes(&r), ["failed", "skipped", "skipped"]);
    assert!(!sim.calls.iter().any(|c| c.contains("disabling")), "{:?}", sim.calls);
    assert_eq!(r.stages[0].urls[1].problem.as_deref(), Some("status 502"));
}

#[test]
fn a_failure_in_the_zone_stage_is_rolled_back() {
    let mut sim = Sim::default();
    // the cookie says fine, but with the zone off the origin fails (a per-zone dependency)
    let plan = plan(true, false);
    let mut machine = Assessment::new(plan, secret());
    loop {
        let step = machine.step();
        if step == Step::Done {
            break;
        }
        if matches!(step, Step::Settle(_)) {
            sim.broken_path = Some("/");
        }
        let ev = sim.perform(&step);
        machine.feed(ev);
    }
    let r = machine.report();
    assert_eq!(outcomes(&r), ["passed", "rolled_back", "skipped"]);
    assert!(!r.ok() && r.restored() && r.check_failed());
    assert!(!sim.zone.always && !sim.account.always);
    assert!(sim.calls.iter().any(|c| c == "re-enabling ESC for zone z1"));
}

#[test]
fn an_api_failure_in_the_middle_restores() {
    let mut sim = Sim {
        fail: Some(("the change to reach", 0)),
        ..Sim::default()
    };
    let r = run(&mut sim, plan(false, false));
    assert_eq!(outcomes(&r), ["passed", "rolled_back", "skipped"]);
    assert!(r.error.is_some() && r.restored() && !r.ok());
    assert!(!sim.zone.always);
}

#[test]
fn a_failed_restore_says_not_restored_with_the_command() {
    let mut sim = Sim {
        fail: Some(("re-enabling", 0)),
        broken_path: None,
        ..Sim::default()
    };
    let mut machine = Assessment::new(plan(false, false), secret());
    // interrupted once the zone is disabled: the way back fails too
    loop {
        let step = machine.step();
        if step == Step::Done {
            break;
        }
        if matches!(step, Step::Settle(_)) {
            machine.interrupt("KeyboardInterrupt");
            continue;
        }
        let ev = sim.perform(&step);
        machine.feed(ev);
    }
    let r = machine.report();
    assert!(!r.restored() && !r.ok());
    assert_eq!(outcomes(&r), ["passed", "failed", "skipped"]);
    assert_eq!(r.not_restored[0].command, "escpush esc enable --zone z1");
    assert!(r.to_text().contains("NOT RESTORED: zone z1"), "{}", r.to_text());
    assert_eq!(r.error.as_deref(), Some("interrupted: KeyboardInterrupt"));
    assert!(sim.zone.always);
}

#[test]
fn a_propagation_delay_longer_than_the_settle_time_fails_the_stage() {
    let mut sim = Sim::default();
    let mut machine = Assessment::new(plan(false, false), secret());
    loop {
        let step = machine.step();
        if step == Step::Done {
            break;
        }
        sim.stale_edge = matches!(step, Step::Fetch { cookie: None, .. }) && sim.zone.always;
        let ev = sim.perform(&step);
        machine.feed(ev);
    }
    let r = machine.report();
    assert_eq!(outcomes(&r), ["passed", "rolled_back", "skipped"]);
    assert!(
        r.stages[1].urls[0].problem.as_deref().unwrap().contains("settle"),
        "{:?}",
        r.stages[1]
    );
    assert!(!sim.zone.always);
}

#[test]
fn the_account_stage_tests_the_account_switch() {
    let mut sim = Sim::default();
    let r = run(&mut sim, plan(true, false));
    assert!(r.ok(), "{}", r.to_text());
    assert_eq!(outcomes(&r), ["passed", "passed", "passed"]);
    let i = sim
        .calls
        .iter()
        .position(|c| c == "re-enabling ESC for zone z1")
        .unwrap();
    let j = sim
        .calls
        .iter()
        .position(|c| c == "disabling ESC for account a1")
        .unwrap();
    assert!(i < j, "{:?}", sim.calls);
    assert!(!sim.zone.always && !sim.account.always);
    assert_eq!(r.to_json()["final"][1]["scope"], "account");
}

#[test]
fn keep_disabled_keeps_every_tested_scope_disabled() {
    let mut sim = Sim::default();
    let r = run(&mut sim, plan(true, true));
    assert!(r.ok() && r.restored(), "{}", r.to_text());
    assert!(sim.zone.always && sim.account.always);
    assert_eq!(r.kept_disabled.len(), 2);
    // not when a stage failed
    let mut sim = Sim {
        broken_path: Some("/"),
        ..Sim::default()
    };
    let r = run(&mut sim, plan(true, true));
    assert!(!r.ok() && r.kept_disabled.is_empty() && !sim.zone.always);
}

#[test]
fn a_previous_secret_is_set_again() {
    let old = EscSecret::new("previous").unwrap();
    let mut sim = Sim {
        zone: EscStatus::new(false, Some(old.clone())),
        ..Sim::default()
    };
    let r = run(&mut sim, plan(false, false));
    assert!(r.ok() && r.secret_left.is_empty());
    assert_eq!(sim.zone.secret, Some(old));
}

#[test]
fn an_interruption_between_stages_stops_before_the_account() {
    let mut sim = Sim::default();
    let mut machine = Assessment::new(plan(true, false), secret());
    loop {
        let step = machine.step();
        if step == Step::Done {
            break;
        }
        if step.is_restore() && !sim.account.always && sim.zone.always {
            machine.interrupt("stop");
        }
        let step = machine.step();
        let ev = sim.perform(&step);
        machine.feed(ev);
    }
    let r = machine.report();
    assert_eq!(outcomes(&r), ["passed", "passed", "skipped"]);
    assert!(r.restored() && !sim.zone.always && !sim.account.always);
    assert!(!sim
        .calls
        .iter()
        .any(|c| c.contains("account a1") && c.contains("disabling")));
}

#[test]
fn steps_never_show_the_secret_and_the_plan_is_kept() {
    let m = Assessment::new(plan(false, false), secret());
    assert_eq!(m.plan().timeout(), Duration::from_secs(10));
    assert!(!format!("{:?}", m.step()).contains("assess-secret"));
}

#[test]
fn the_way_back_is_never_interrupted() {
    let mut sim = Sim::default();
    let mut machine = Assessment::new(plan(false, false), secret());
    let mut refused = 0;
    loop {
        let step = machine.step();
        if step == Step::Done {
            break;
        }
        if step.is_restore() || matches!(step, Step::ReadStatus(_)) && sim.zone.secret.is_some() {
            // once the way back has begun, an interruption is refused and the step runs
            if !machine.interrupt("again") {
                refused += 1;
            }
        }
        let ev = sim.perform(&step);
        machine.feed(ev);
    }
    assert!(refused >= 2, "{refused}");
    let r = machine.report();
    assert!(r.ok() && r.restored(), "{}", r.to_text());
    // an unexpected event is an internal error that still restores
    let mut machine = Assessment::new(plan(false, false), secret());
    machine.feed(Event::Status(EscStatus::default()));
    machine.feed(Event::Done);
    machine.feed(Event::Disabled { seen: true });
    assert!(matches!(machine.step(), Step::ReadStatus(_)), "{:?}", machine.step());
    assert!(machine.report().error.unwrap().starts_with("internal error"));
}

#[test]
fn a_secret_the_site_reflects_is_never_shown() {
    // A transport that keeps responses as they came: the machine masks what it records.
    let mut sim = Sim {
        reflect: true,
        ..Sim::default()
    };
    let r = run(&mut sim, plan(true, false));
    let text = format!("{}\n{}", r.to_text(), r.to_json());
    assert!(!text.contains("assess-secret"), "{text}");
    // What reflects the cookie is no difference ESC makes: left out, with a note.
    let named: Vec<&str> = r.differences.iter().filter_map(|d| d.name.as_deref()).collect();
    assert!(!named.iter().any(|n| n.contains("cookie")), "{named:?}");
    assert!(!r.differences.iter().any(|d| d.what.as_str() == "location"));
    assert!(
        r.notes.contains(
            &"http://site/ reflects the test cookie (location, x-seen-cookie, set-cookie): left out of the \
              comparison, the secret masked"
                .to_owned()
        ),
        "{:?}",
        r.notes
    );
    // The stages pass: the reflection is not taken for ESC still running.
    assert!(r.ok(), "{}", r.to_text());
    let without = r.stages[0].urls[0].without_esc.to_json();
    assert_eq!(without["location"], "/login?from=disable_esc=***");
    // Every fetch tells the transport which secret to mask (`SiteResponse::masked`).
    let m = Assessment::new(plan(false, false), secret());
    let mut m = m;
    m.feed(Event::Status(EscStatus::default()));
    m.feed(Event::Done);
    match m.step() {
        Step::Fetch { cookie: None, mask, .. } => assert_eq!(mask, secret()),
        other => panic!("{other:?}"),
    }
}
