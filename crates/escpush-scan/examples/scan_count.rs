//! `scan_count [--threads N] [--chunk-size BYTES] FILTER LOGS...`: the Rust scan path without
//! Python, for the benchmark (`benches/scan_bench.py`). FILTER is a file or JSON text; LOGS
//! files, folders, globs or `-` (as `escpush filter scan` takes them). Prints `matched total
//! malformed bytes seconds` on one line.
//!
//! `--group-by A,B`, `--every SECONDS` (of EdgeStartTimestamp) and `--top N` (before FILTER) add a
//! breakdown: then one line per group (`G <tab> value <tab> value ... <tab> lines <tab> kept`,
//! `(missing)` for a missing field) and per bucket (`B <tab> start <tab> lines <tab> kept`,
//! and `B <tab> no time` / `unreadable time` rows) follow.
//!
//! `scan_count --inflate-only [--threads N] LOGS...` decompresses the gzip inputs with the
//! inflater the scan uses (flate2's zlib-rs backend, with each member's CRC-32 checked on
//! the same thread), N at once, and evaluates nothing: the limit the
//! scan of gzip inputs can reach. Prints `0 0 0 bytes seconds`.
#![allow(clippy::print_stdout, clippy::print_stderr)] // a command-line tool

use std::process::ExitCode;

use std::io::Read;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use escpush_filter::Filter;
use escpush_scan::{Breakdown, Input, Scanner, Selection};

/// Decompresses every gzip file of `inputs`, `threads` at once.
fn inflate_only(inputs: Vec<Input>, threads: usize) -> Result<u64, String> {
    let paths: Vec<std::path::PathBuf> = inputs
        .into_iter()
        .filter_map(|i| match i {
            Input::Path(p) => Some(p),
            _ => None,
        })
        .collect();
    let next = AtomicUsize::new(0);
    let total = AtomicU64::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                s.spawn(|| -> Result<(), String> {
                    let mut buf = vec![0u8; 1 << 20];
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = paths.get(i) else { return Ok(()) };
                        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
                        let mut gz = escpush_scan::Gunzip::checked(std::io::BufReader::with_capacity(256 << 10, file));
                        loop {
                            let n = gz.read(&mut buf).map_err(|e| format!("{}: {e}", path.display()))?;
                            if n == 0 {
                                break;
                            }
                            total.fetch_add(n as u64, Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();
        workers.into_iter().try_for_each(|w| w.join().expect("no panic"))
    })?;
    Ok(total.into_inner())
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let inflate = args.first().map(String::as_str) == Some("--inflate-only");
    if inflate {
        args.remove(0);
    }
    let mut threads = 0;
    if args.first().map(String::as_str) == Some("--threads") && args.len() > 1 {
        threads = args[1].parse().unwrap_or(0);
        args.drain(..2);
    }
    let mut chunk_size = 0;
    if args.first().map(String::as_str) == Some("--chunk-size") && args.len() > 1 {
        chunk_size = args[1].parse().unwrap_or(0);
        args.drain(..2);
    }
    if inflate {
        let started = Instant::now();
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        } else {
            threads
        };
        let inputs = match Selection::new().expand(&args) {
            Ok(inputs) => inputs,
            Err(e) => {
                eprintln!("scan_count: {e}");
                return ExitCode::from(2);
            }
        };
        return match inflate_only(inputs, threads) {
            Ok(bytes) => {
                println!("0 0 0 {bytes} {:.4}", started.elapsed().as_secs_f64());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("scan_count: {e}");
                ExitCode::from(2)
            }
        };
    }
    let mut breakdown = Breakdown::new();
    loop {
        match (args.first().map(String::as_str), args.get(1)) {
            (Some("--group-by"), Some(fields)) => breakdown = breakdown.group_by(fields.split(',')),
            (Some("--every"), Some(seconds)) => {
                breakdown = breakdown.every(seconds.parse().unwrap_or(3600), "EdgeStartTimestamp");
            }
            (Some("--top"), Some(n)) => breakdown = breakdown.top(n.parse().ok()),
            _ => break,
        }
        args.drain(..2);
    }
    if args.len() < 2 {
        eprintln!("usage: scan_count [--threads N] [--chunk-size BYTES] FILTER LOGS... | scan_count --inflate-only [--threads N] LOGS...");
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
    let inputs = match Selection::new().expand(&args[1..]) {
        Ok(inputs) => inputs,
        Err(e) => {
            eprintln!("scan_count: {e}");
            return ExitCode::from(2);
        }
    };
    match Scanner::new(&filter)
        .threads(threads)
        .chunk_size(chunk_size)
        .breakdown(breakdown)
        .scan(inputs)
    {
        Ok(r) => {
            println!("{} {} {} {} {:.4}", r.matched, r.total, r.malformed, r.bytes, r.seconds);
            if let Some(b) = &r.breakdown {
                for g in &b.groups {
                    let values: Vec<String> = g.key.iter().map(ToString::to_string).collect();
                    println!("G\t{}\t{}\t{}", values.join("\t"), g.counts.lines, g.counts.matched);
                }
                for x in &b.buckets {
                    println!("B\t{}\t{}\t{}", x.start, x.counts.lines, x.counts.matched);
                }
                for (name, c) in [("no time", b.no_time), ("unreadable time", b.unreadable_time)] {
                    if c.lines > 0 {
                        println!("B\t{name}\t{}\t{}", c.lines, c.matched);
                    }
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("scan_count: {e}");
            ExitCode::from(2)
        }
    }
}
