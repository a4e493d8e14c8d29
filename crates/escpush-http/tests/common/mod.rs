//! What the integration tests share: a client for the emulator, with short backoffs.

use std::time::Duration;

use escpush_emulator::Emulator;
use escpush_http::Client;

pub fn client(emu: &Emulator) -> Client {
    Client::builder()
        .base_url(emu.base_url())
        .api_key(emu.api_key(), emu.email())
        .backoff(Duration::from_millis(5))
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

/// A client for the emulator with this deadline and short backoffs (token auth).
#[allow(dead_code)] // not every test file uses it
pub fn with_timeout(emu: &Emulator, timeout: Duration) -> Client {
    Client::builder()
        .base_url(emu.base_url())
        .api_token(emu.api_token())
        .backoff(Duration::from_millis(5))
        .timeout(timeout)
        .build()
        .unwrap()
}
