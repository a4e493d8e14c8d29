//! A short soak in `make test` (a few seconds): concurrent clients, the emulator's state and
//! request count checked exactly at the end, its memory flat. The full 100,000-request run
//! is `cargo run --release -p escpush-http --example soak` (RELIABILITY.md has its figures).

#[path = "common/soak.rs"]
mod soak;

use escpush_emulator::Emulator;

#[test]
fn concurrent_clients_lose_or_corrupt_nothing_and_memory_stays_flat() {
    let emu = Emulator::start().unwrap();
    // Warm up (thread stacks, the allocator), then fill the request log's ring once, so
    // that what follows measures the steady state.
    soak::run(&emu, "warm", 8, soak::rounds_for(12_000, 8));
    let report = soak::run(&emu, "soak", 8, soak::rounds_for(8_000, 8));
    assert_eq!(report.errors, 0, "{report:?}");
    assert!(report.requests >= 8_000 && report.per_second() > 0.0, "{report:?}");
    let [_, tenth, _, end] = report.rss_kib;
    // Flat: the last 90 % of the run adds less than 8 MiB.
    assert!(end <= tenth + 8 * 1024, "{report:?}");
}
