//! `scan_count [--threads N] FILTER LOGS...`: the Rust scan path without Python, for the
//! benchmark (`benches/scan_bench.py`). FILTER is a file or JSON text; LOGS files or `-`.
//! Prints `matched total malformed bytes seconds` on one line.
#![allow(clippy::print_stdout, clippy::print_stderr)] // a command-line tool

use std::process::ExitCode;

use escpush_core::Filter;
use escpush_scan::{Input, Scanner};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = 0;
    if args.first().map(String::as_str) == Some("--threads") && args.len() > 1 {
        threads = args[1].parse().unwrap_or(0);
        args.drain(..2);
    }
    if args.len() < 2 {
        eprintln!("usage: scan_count [--threads N] FILTER LOGS...");
        return ExitCode::from(2);
    }
    let text = std::fs::read_to_string(&args[0]).unwrap_or_else(|_| args[0].clone());
    let filter = match Filter::parse(&text) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("scan_count: {e}");
            return ExitCode::from(2);
        }
    };
    let inputs = args[1..].iter().map(|a| Input::from_arg(a));
    match Scanner::new(&filter).threads(threads).scan(inputs) {
        Ok(r) => {
            println!("{} {} {} {} {:.4}", r.matched, r.total, r.malformed, r.bytes, r.seconds);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("scan_count: {e}");
            ExitCode::from(2)
        }
    }
}
