//! The ESC assessment driven by the transport against the emulator's edge mode.

mod common;

use std::time::Duration;

use escpush_core::{AssessPlan, Fetched, Scope, SiteUrl};
use escpush_emulator::{EdgeSite, Emulator, Fault};
use serde_json::json;

fn plan(site: &str, account: bool) -> AssessPlan {
    let mut b = AssessPlan::builder(Scope::zone("z1").unwrap())
        .urls([format!("{site}/"), format!("{site}/old")])
        .settle_secs(0.05)
        .timeout_secs(2.0);
    if account {
        b = b.account(Scope::account("a1").unwrap());
    }
    b.build().unwrap()
}

fn site(emu: &Emulator, config: &serde_json::Value) -> String {
    emu.serve_site(EdgeSite::from_json(config).unwrap()).unwrap()
}

#[test]
fn fetches_do_not_follow_redirects_and_carry_the_cookie_only_when_asked() {
    let emu = Emulator::start().unwrap();
    let url = site(&emu, &json!({"zone": "z1"}));
    let client = common::client(&emu);
    let old = SiteUrl::new(format!("{url}/old")).unwrap();
    let Fetched::Response(r) = client.fetch_site(&old, None, Duration::from_secs(2)) else {
        panic!("no response")
    };
    assert_eq!((r.status, r.location().as_deref()), (301, Some("/new")));
    let secret = escpush_http::random_secret().unwrap();
    client.esc_set_secret(&Scope::zone("z1").unwrap(), &secret).unwrap();
    let Fetched::Response(r) = client.fetch_site(&old, Some(&secret), Duration::from_secs(2)) else {
        panic!("no response")
    };
    assert_eq!(r.status, 404);
    // nothing listens: a failed fetch, without the secret
    let closed = SiteUrl::new("http://127.0.0.1:9/").unwrap();
    match client.fetch_site(&closed, Some(&secret), Duration::from_secs(2)) {
        Fetched::Failed(e) => assert!(!e.contains(secret.expose()), "{e}"),
        Fetched::Response(r) => panic!("{r:?}"),
    }
}

#[test]
fn a_full_assessment_with_the_account_stage_restores_everything() {
    let emu = Emulator::start().unwrap();
    let url = site(&emu, &json!({"zone": "z1", "account": "a1"}));
    let client = common::client(&emu);
    let mut steps = Vec::new();
    let report = client
        .assess(plan(&url, true), None, &mut |s| {
            if let Some(s) = s {
                steps.push(s.describe());
            }
            Ok(())
        })
        .unwrap();
    assert!(report.ok(), "{}", report.to_text());
    let json = report.to_json();
    assert_eq!(json["stages"][2]["outcome"], "passed");
    assert_eq!(json["final"][0]["state"], "secret");
    assert_eq!(json["final"][1]["state"], "enabled");
    assert!(json["differences"].as_array().unwrap().len() >= 3, "{json}");
    assert!(steps.iter().any(|s| s == "disabling ESC for account a1"), "{steps:?}");
    assert_eq!(emu.state()["zones"]["z1"]["esc"]["always"], false);
}

#[test]
fn a_propagation_delay_longer_than_the_settle_time_is_rolled_back() {
    let emu = Emulator::start().unwrap();
    let url = site(&emu, &json!({"zone": "z1", "delay": 5.0}));
    let report = common::client(&emu)
        .assess(plan(&url, false), None, &mut |_| Ok(()))
        .unwrap();
    assert_eq!(
        report.to_json()["stages"][1]["outcome"],
        "rolled_back",
        "{}",
        report.to_text()
    );
    assert!(report.restored());
    assert_eq!(emu.state()["zones"]["z1"]["esc"]["always"], false);
}

#[test]
fn an_interruption_during_the_settle_time_restores_and_a_failed_restore_gives_the_command() {
    let emu = Emulator::start().unwrap();
    let url = site(&emu, &json!({"zone": "z1"}));
    let client = common::client(&emu);
    let long = AssessPlan::builder(Scope::zone("z1").unwrap())
        .url(format!("{url}/"))
        .settle_secs(30.0)
        .build()
        .unwrap();
    let mut ticks = 0;
    let report = client
        .assess(long.clone(), None, &mut |s| {
            if s.is_none() {
                ticks += 1;
                if ticks == 3 {
                    return Err("KeyboardInterrupt".to_owned());
                }
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(report.error.as_deref(), Some("interrupted: KeyboardInterrupt"));
    assert!(report.restored());
    assert_eq!(emu.state()["zones"]["z1"]["esc"]["always"], false);
    // the way back fails: NOT RESTORED, with the command
    let mut ticks = 0;
    let report = client
        .assess(long, None, &mut |s| {
            if s.is_none() {
                ticks += 1;
                if ticks == 3 {
                    emu.fail_next(
                        Fault::Status {
                            status: 403,
                            retry_after: None,
                        },
                        1,
                    );
                    return Err("stop".to_owned());
                }
            }
            Ok(())
        })
        .unwrap();
    assert!(!report.restored());
    assert_eq!(report.not_restored[0].command, "escpush esc enable --zone z1");
    assert_eq!(emu.state()["zones"]["z1"]["esc"]["always"], true);
}
