//! Runs the emulator standalone until interrupted, for curl or other SDKs:
//! `cargo run -p escpush-emulator --example serve -- 8787`.
//! Credentials: `X-Auth-Key: emulator-api-key` with `X-Auth-Email: user@example.com`, or
//! `Authorization: Bearer emulator-api-token` (emulator-only values). From Python, the same is
//! `escpush emulator --port 8787`.
#![allow(clippy::print_stdout)]

use escpush_emulator::Emulator;

fn main() -> std::io::Result<()> {
    let port = match std::env::args().nth(1) {
        Some(p) => p
            .parse()
            .map_err(|_| std::io::Error::other(format!("not a port: {p}")))?,
        None => 8787,
    };
    let emu = Emulator::builder()
        .port(port)
        .api_key("emulator-api-key")
        .email("user@example.com")
        .api_token("emulator-api-token")
        .start()?;
    println!("escpush emulator on {} (Ctrl-C stops)", emu.base_url());
    emu.wait();
    Ok(())
}
