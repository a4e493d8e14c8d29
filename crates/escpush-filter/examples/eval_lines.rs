//! `eval_lines FILTER LOGS [REPS]`: times [`CompiledFilter::matches_line`] alone, on one
//! thread, over the lines of an NDJSON file held in memory (no IO in the timed part). For
//! profiling the evaluator (`perf record`, `valgrind --tool=callgrind`); the scan benchmark
//! is `benches/scan_bench.py`. Prints `matched lines malformed bytes ns/line GB/s`.
#![allow(clippy::print_stdout, clippy::print_stderr)] // a command-line tool
#![allow(clippy::cast_precision_loss)] // rates for people to read

use std::process::ExitCode;
use std::time::Instant;

use escpush_filter::{is_blank, Filter};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: eval_lines FILTER LOGS [REPS]");
        return ExitCode::from(2);
    }
    let text = std::fs::read_to_string(&args[0]).unwrap_or_else(|_| args[0].clone());
    let filter = match Filter::parse(&text) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("eval_lines: {e}");
            return ExitCode::from(2);
        }
    };
    let data = match std::fs::read(&args[1]) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("eval_lines: {}: {e}", args[1]);
            return ExitCode::from(2);
        }
    };
    let reps: u32 = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(1).max(1);
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').filter(|l| !is_blank(l)).collect();
    let mut compiled = filter.compile();
    let (mut matched, mut malformed) = (0u64, 0u64);
    let started = Instant::now();
    for _ in 0..reps {
        for line in &lines {
            match compiled.matches_line(line) {
                Ok(true) => matched += 1,
                Ok(false) => {}
                Err(_) => malformed += 1,
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let n = lines.len() as f64 * f64::from(reps);
    let bytes = data.len() as f64 * f64::from(reps);
    println!(
        "{} {} {} {} {:.1} {:.2}",
        matched / u64::from(reps),
        lines.len(),
        malformed / u64::from(reps),
        data.len(),
        seconds * 1e9 / n,
        bytes / seconds / 1e9
    );
    ExitCode::SUCCESS
}
