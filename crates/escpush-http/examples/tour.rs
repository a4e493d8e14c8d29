//! The README's Rust tour, runnable: `cargo run -p escpush-http --example tour`.
//!
//! Builds and checks a log-push filter, decides log lines with it, then runs the spec's ESC
//! test order and creates a log-push job against the emulator on 127.0.0.1. Nothing leaves
//! the machine. `make test` runs it.
#![allow(clippy::print_stdout)]

use std::error::Error;

use escpush_core::{esc_cookie, EscSecret, JobSpec, Scope};
use escpush_emulator::Emulator;
use escpush_filter::Filter;
use escpush_filter::{field, Dataset, DatasetScope, Limits};
use escpush_http::Client;

fn main() -> Result<(), Box<dyn Error>> {
    // A filter, checked against the http_requests schema and the API's limits.
    let f = field("ClientRequestHost").ends_with(".example.com") & field("EdgeResponseStatus").ge(500);
    f.validate(Some(Dataset::get("http_requests", None)?), Limits::default())?;
    let text = f.to_json(); // the value of a job's `filter` field
    assert_eq!(Filter::parse(&text)?, f);
    println!(
        "filter: {text} ({} operators, {} bytes)",
        f.operator_count(),
        text.len()
    );

    // Every problem at once, each with its path, code and a fix.
    let err = Filter::parse(r#"{"where":{"key":"EdgeResponseStatus","operator":"gte","value":500}}"#).unwrap_err();
    println!("refused: {err}");

    // Log lines decided from their bytes (escpush-scan runs this over files on every core).
    let mut lines = f.compile();
    assert!(lines.matches_line(br#"{"ClientRequestHost":"a.example.com","EdgeResponseStatus":503}"#)?);
    assert!(!lines.matches_line(br#"{"ClientRequestHost":"a.example.com","EdgeResponseStatus":200}"#)?);
    println!(
        "malformed: {}",
        lines.matches_line(br#"{"EdgeResponseStatus":503"#).unwrap_err()
    );

    // ESC against the emulator: a per-request test with a secret, then the whole zone.
    let emu = Emulator::start()?;
    let client = Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .build()?;
    let zone = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353")?;
    let secret = EscSecret::new("a-test-secret-made-by-you-0123456789")?;
    client.esc_set_secret(&zone, &secret)?;
    assert!(emu.esc_disabled_for(&zone, Some(&esc_cookie(&secret))));
    println!("secret set: {secret:?}"); // Debug never shows it
    client.esc_disable(&zone)?;
    println!("zone: ESC {}", client.esc_status(&zone)?.state().as_str());
    client.esc_enable(&zone)?;
    println!("zone: ESC {}", client.esc_status(&zone)?.state().as_str());

    // A log-push job, checked before it is sent. An S3 bucket (without keys in the
    // destination) needs an ownership challenge: the API writes it into the bucket.
    let bucket = "s3://bucket/logs?region=us-east-1";
    client.ownership_challenge(&zone, &bucket.parse()?)?;
    let token = emu.written_challenge(&zone, bucket).expect("the emulator wrote one");
    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
        .destination_conf(bucket)
        .extra("ownership_challenge", token.into())
        .name("edge-errors")
        .filter(f)
        .build()?;
    let job = client.create_job(&zone, &spec)?;
    println!("created job {} with filter {}", job["id"], job["filter"]);
    Ok(())
}
