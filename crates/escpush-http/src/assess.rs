//! The ESC assessment's driver: it runs core's [`Assessment`] machine, each step performed
//! with this client (the ESC switches, and fetches of the user's own URLs), waits taken in
//! short slices so that the caller can interrupt them, and the way back never interrupted.
//! (The transport's API calls are in `client.rs` and `send.rs`; this file is where an
//! assessment happens.)
//!
//! A fetch is a plain GET as a visitor's browser would send it: no credentials, redirects
//! not followed (a redirect is a response to compare), one deadline, the body reduced to its
//! length and SHA-256 by core, the secret's cookie only when core asks for it and never in
//! an error.

use std::time::{Duration, Instant};

use escpush_core::{
    esc_cookie, AssessPlan, AssessReport, Assessment, EscSecret, Event, Fetched, SiteResponse, SiteUrl, Step,
};
use ureq::http;

use crate::client::Client;
use crate::error::Error;

/// The largest body a fetched page may have (it is hashed, not kept).
pub const MAX_SITE_BODY: u64 = 64 * 1024 * 1024;

/// The longest a wait goes without asking the caller whether to stop.
const SLICE: Duration = Duration::from_millis(50);

/// A fresh ESC secret: [`escpush_core::SECRET_RANDOM_BYTES`] bytes from the operating
/// system's random source, in the shape core gives a secret escpush makes
/// ([`EscSecret::from_random`]: 43 URL-safe base64 characters).
pub fn random_secret() -> Result<EscSecret, Error> {
    let mut bytes = [0u8; escpush_core::SECRET_RANDOM_BYTES];
    getrandom::getrandom(&mut bytes).map_err(|e| Error::Transport {
        message: format!("the operating system's random source failed: {e}"),
    })?;
    Ok(EscSecret::from_random(&bytes))
}

impl Client {
    /// GETs `url` as a visitor would (with `Cookie: disable_esc=<secret>` when `cookie` is
    /// given), redirects not followed, within `timeout`. The secret is masked wherever the
    /// response carries it (a site may reflect the cookie: headers, location, body; see
    /// [`SiteResponse::masked`]), and a failure below HTTP is a [`Fetched::Failed`] whose
    /// text never holds it.
    pub fn fetch_site(&self, url: &SiteUrl, cookie: Option<&EscSecret>, timeout: Duration) -> Fetched {
        self.fetch_masked(url, cookie, cookie, timeout)
    }

    /// [`Client::fetch_site`], masking `mask` (a cookie sent is masked too).
    fn fetch_masked(
        &self,
        url: &SiteUrl,
        cookie: Option<&EscSecret>,
        mask: Option<&EscSecret>,
        timeout: Duration,
    ) -> Fetched {
        // A failure's text masked as core masks every text of the assessment (the cookie
        // sent, and the secret to mask), and any URL it quotes shown as the report shows the
        // site's URLs (no `user:password@`, no query value), the URL's credentials masked
        // wherever else they stand.
        let failed = |text: String| {
            let mut secrets = escpush_filter::Secrets::new();
            for credential in escpush_filter::url_credentials(url.as_str()) {
                secrets.add(&credential);
            }
            let text = secrets.scrub(&escpush_filter::mask_urls(&text));
            [cookie, mask]
                .into_iter()
                .flatten()
                .fold(Fetched::Failed(text), Fetched::masked)
        };
        let mut builder = http::Request::builder()
            .method(http::Method::GET)
            .uri(url.as_str())
            .header("Accept", "*/*");
        if let Some(secret) = cookie {
            builder = builder.header("Cookie", esc_cookie(secret));
        }
        let req = match builder.body(()) {
            Ok(req) => req,
            Err(e) => return failed(format!("the URL cannot be requested: {e}")),
        };
        let req = self.agent.configure_request(req).timeout_global(Some(timeout)).build();
        let mut resp = match self.agent.run(req) {
            Ok(resp) => resp,
            Err(e) => return failed(describe(&e, timeout)),
        };
        let status = resp.status().as_u16();
        let headers: Vec<(String, String)> = resp
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let fetched = match resp.body_mut().with_config().limit(MAX_SITE_BODY).read_to_vec() {
            Ok(body) => Fetched::Response(match mask {
                Some(secret) => SiteResponse::masked(status, headers, &body, secret),
                None => SiteResponse::new(status, headers, &body),
            }),
            Err(e) => failed(format!("reading the body: {}", describe(&e, timeout))),
        };
        match cookie {
            Some(secret) if mask != Some(secret) => fetched.masked(secret),
            _ => fetched,
        }
    }

    /// Runs an ESC assessment of `plan` with this client (see [`Assessment`]), with a fresh
    /// secret from the OS random source (or `secret`). `check` is called before each step
    /// with `Some(step)` and during waits with `None`, at least every 50 ms: an `Err(reason)`
    /// interrupts the assessment, which then puts back every scope it changed. The way back
    /// is never interrupted (an `Err` then is ignored). The report says where each scope was left.
    pub fn assess(
        &self,
        plan: AssessPlan,
        secret: Option<EscSecret>,
        check: &mut dyn FnMut(Option<&Step>) -> Result<(), String>,
    ) -> Result<AssessReport, Error> {
        let secret = match secret {
            Some(s) => s,
            None => random_secret()?,
        };
        let mut machine = Assessment::new(plan, secret);
        loop {
            let step = machine.step();
            if step == Step::Done {
                return Ok(machine.report());
            }
            if let Err(reason) = check(Some(&step)) {
                if machine.interrupt(reason) {
                    continue;
                }
            }
            match self.perform(&step, check) {
                // The machine masks its secret in every event it is fed (core's one rule).
                Ok(event) => machine.feed(event),
                Err(reason) => {
                    // A wait was interrupted: stop, or (once the way back has begun) go on.
                    if !machine.interrupt(reason) {
                        machine.feed(Event::Done);
                    }
                }
            }
        }
    }

    /// One step; `Err(reason)` when the caller interrupted a wait.
    fn perform(
        &self,
        step: &Step,
        check: &mut dyn FnMut(Option<&Step>) -> Result<(), String>,
    ) -> Result<Event, String> {
        let done = |r: Result<(), Error>| match r {
            Ok(()) => Event::Done,
            Err(e) => Event::Failed(e.to_string()),
        };
        Ok(match step {
            Step::ReadStatus(scope) => match self.esc_status(scope) {
                Ok(status) => Event::Status(status),
                Err(e) => Event::Failed(e.to_string()),
            },
            Step::SetSecret(scope, secret) => done(self.esc_set_secret(scope, secret)),
            Step::Fetch {
                url,
                cookie,
                mask,
                timeout,
            } => Event::Fetched(self.fetch_masked(url, cookie.as_ref(), Some(mask), *timeout)),
            Step::Disable(scope) => done(self.esc_disable(scope)),
            Step::WaitUntilDisabled { scope, limit, poll } => {
                let started = Instant::now();
                loop {
                    match self.esc_status(scope) {
                        Ok(status) if status.always => break Event::Disabled { seen: true },
                        Ok(_) => {}
                        Err(e) => break Event::Failed(e.to_string()),
                    }
                    if started.elapsed() >= *limit {
                        break Event::Disabled { seen: false };
                    }
                    pause(*poll, check)?;
                }
            }
            Step::Settle(d) => {
                pause(*d, check)?;
                Event::Done
            }
            Step::Restore { scope, op } => done(self.esc(scope, op).map(drop)),
            _ => Event::Done,
        })
    }
}

/// Sleeps `total` in slices, asking `check` after each whether to stop.
fn pause(total: Duration, check: &mut dyn FnMut(Option<&Step>) -> Result<(), String>) -> Result<(), String> {
    let until = Instant::now() + total;
    loop {
        check(None)?;
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(());
        }
        std::thread::sleep(left.min(SLICE));
    }
}

/// A fetch failure in words.
fn describe(e: &ureq::Error, timeout: Duration) -> String {
    match e {
        ureq::Error::Timeout(_) => format!("no answer within the timeout of {} s", timeout.as_secs_f64()),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            format!("no answer within the timeout of {} s", timeout.as_secs_f64())
        }
        ureq::Error::BodyExceedsLimit(limit) => format!("the body is larger than {limit} bytes"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_come_from_the_os_and_differ() {
        let a = random_secret().unwrap();
        let b = random_secret().unwrap();
        assert_eq!(a.len(), escpush_core::GENERATED_SECRET_LEN);
        assert_ne!(a, b);
    }
}
