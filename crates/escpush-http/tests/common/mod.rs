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
