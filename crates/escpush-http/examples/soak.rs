//! The full soak of the emulator (RELIABILITY.md): `cargo run --release -p escpush-http
//! --example soak -- [REQUESTS] [WORKERS]` (default 100000 requests, 16 workers, each its
//! own client). Panics unless the emulator's state and request count at the end are exactly
//! what the workers did; prints requests, wall time, requests per second, errors and the
//! process's RSS at the start, 10 %, 50 % and the end.
#![allow(clippy::print_stdout)]

#[path = "../tests/common/soak.rs"]
mod soak;

use escpush_emulator::Emulator;

fn main() {
    let mut args = std::env::args().skip(1);
    let requests: u64 = args
        .next()
        .map_or(100_000, |a| a.parse().expect("REQUESTS is a number"));
    let workers: u64 = args.next().map_or(16, |a| a.parse().expect("WORKERS is a number"));
    let emu = Emulator::start().expect("the emulator starts");
    let report = soak::run(&emu, "soak", workers, soak::rounds_for(requests, workers));
    let [start, tenth, half, end] = report.rss_kib;
    println!(
        "soak: {} requests from {workers} concurrent clients in {:.2} s ({:.0} req/s), {} errors; \
         state and request count exact; RSS {start} KiB at start, {tenth} at 10 %, {half} at 50 %, {end} at the end; \
         emulator: {:?}",
        report.requests,
        report.wall.as_secs_f64(),
        report.per_second(),
        report.errors,
        emu.stats()
    );
    assert_eq!(report.errors, 0);
}
