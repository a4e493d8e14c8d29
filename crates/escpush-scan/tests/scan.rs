//! Scans of real files: several inputs, gzip, bad input, long lines, strict mode, select,
//! and results that do not depend on the number of threads or the chunk size.

mod common;
use common::{dir, gzip};

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use escpush_filter::Filter;
use escpush_filter::Malformation;
use escpush_scan::{Input, Malformed, MalformedReason, ScanError, ScanResult, Scanner};
use proptest::prelude::*;

fn filter() -> Filter {
    Filter::parse(r#"{"where":{"key":"Status","operator":"geq","value":"500"}}"#).unwrap()
}

fn write(path: &Path, bytes: &[u8]) -> PathBuf {
    fs::write(path, bytes).unwrap();
    path.to_owned()
}

/// `n` log lines; every third one has a 5xx status.
fn lines(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let status = if i % 3 == 0 { 500 + i % 100 } else { 200 };
        let _ = writeln!(out, "{{\"Id\":{i},\"Status\":{status},\"Path\":\"/p/{i}\"}}");
    }
    out
}

/// The lines of `text` that pass `pred`, each with its line break.
fn keep(text: &str, pred: impl Fn(&str) -> bool) -> String {
    text.lines().filter(|l| pred(l)).flat_map(|l| [l, "\n"]).collect()
}

/// Everything but the time.
fn counts(r: &ScanResult) -> (u64, u64, u64, Option<Malformed>, u64) {
    (r.total, r.matched, r.malformed, r.first_malformed.clone(), r.bytes)
}

fn scan(paths: &[&Path]) -> Result<ScanResult, ScanError> {
    Scanner::new(&filter()).scan(paths.iter().copied().map(Input::path))
}

#[test]
fn several_files_plain_and_gzip() {
    let d = dir("several");
    let a = write(&d.join("a.ndjson"), lines(1000).as_bytes());
    let b = write(&d.join("b.ndjson.gz"), &gzip(lines(300).as_bytes()));
    // gzip recognised by its bytes, not its name; concatenated members are one stream.
    let mut two_members = gzip(lines(10).as_bytes());
    two_members.extend(gzip(lines(20).as_bytes()));
    let c = write(&d.join("c.log"), &two_members);
    let r = scan(&[&a, &b, &c]).unwrap();
    assert_eq!(r.total, 1330);
    assert_eq!(r.matched, 334 + 100 + 4 + 7);
    assert_eq!(r.malformed, 0);
    assert_eq!(r.first_malformed, None);
    assert_eq!(
        r.bytes,
        (lines(1000).len() + lines(300).len() + lines(10).len() + lines(20).len()) as u64
    );
    assert!(r.seconds >= 0.0);
}

#[test]
fn blank_lines_crlf_and_no_final_line_break() {
    let d = dir("blank");
    let text = "\n{\"Status\":500}\r\n   \n\t\r\n{\"Status\":200}\n{\"Status\":501}";
    let p = write(&d.join("x.ndjson"), text.as_bytes());
    let r = scan(&[&p]).unwrap();
    assert_eq!((r.total, r.matched, r.malformed), (3, 2, 0));
    let empty = write(&d.join("empty.ndjson"), b"");
    assert_eq!(counts(&scan(&[&empty]).unwrap()), (0, 0, 0, None, 0));
}

#[test]
fn malformed_lines_are_counted_with_the_first_ones_place() {
    let d = dir("malformed");
    let a = write(&d.join("a.ndjson"), lines(50).as_bytes());
    let mut text = lines(20).into_bytes();
    text.extend_from_slice(b"\n{\"Status\":\xff500}\n{\"Status\":500,}\nnot json\n");
    text.extend_from_slice(lines(5).as_bytes());
    let b = write(&d.join("b.ndjson"), &text);
    for chunk in [0, 16, 100, 4096] {
        let r = Scanner::new(&filter())
            .chunk_size(chunk)
            .threads(3)
            .scan([Input::path(&a), Input::path(&b)])
            .unwrap();
        assert_eq!((r.total, r.malformed), (50 + 20 + 3 + 5, 3), "chunk {chunk}");
        assert_eq!(r.matched, 17 + 7 + 2);
        let first = r.first_malformed.unwrap();
        assert_eq!(first.source_name, b.display().to_string());
        assert_eq!(first.line, 22, "the blank line 21 counts for numbering");
        assert!(matches!(
            first.reason,
            MalformedReason::Json(e) if e.reason == Malformation::NotUtf8 && e.offset == 10
        ));
        assert!(first
            .to_string()
            .ends_with("b.ndjson` line 22: byte 10: the bytes are not UTF-8"));
    }
}

#[test]
fn strict_mode_stops_at_the_first_malformed_line() {
    let d = dir("strict");
    let mut text = lines(30).into_bytes();
    text.extend_from_slice(b"{\"Status\":500\n");
    text.extend_from_slice(lines(30).as_bytes());
    let p = write(&d.join("s.ndjson"), &text);
    let err = Scanner::new(&filter())
        .strict(true)
        .chunk_size(64)
        .scan([Input::path(&p)])
        .unwrap_err();
    match &err {
        ScanError::Malformed { line, source_name, .. } => {
            assert_eq!(*line, 31);
            assert_eq!(source_name, &p.display().to_string());
        }
        other => panic!("{other}"),
    }
    assert!(err
        .to_string()
        .contains("line 31 is malformed: byte 13: the line ends inside the object"));
    // select writes the matching lines before it, and nothing after.
    let mut out = Vec::new();
    let err = Scanner::new(&filter())
        .strict(true)
        .chunk_size(64)
        .select([Input::path(&p)], &mut out)
        .unwrap_err();
    assert!(matches!(err, ScanError::Malformed { line: 31, .. }));
    let expected = keep(&lines(30), |l| l.contains("\"Status\":5"));
    assert_eq!(String::from_utf8(out).unwrap(), expected);
}

#[test]
fn select_writes_matching_lines_in_input_order() {
    let d = dir("select");
    let text = lines(5000);
    let p = write(&d.join("in.ndjson.gz"), &gzip(text.as_bytes()));
    let expected = keep(&text, |l| !l.contains("\"Status\":200"));
    for (threads, chunk) in [(1, 0), (4, 0), (3, 128), (8, 1000)] {
        let mut out = Vec::new();
        let r = Scanner::new(&filter())
            .threads(threads)
            .chunk_size(chunk)
            .select([Input::path(&p)], &mut out)
            .unwrap();
        assert_eq!(r.matched, 1667);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            expected,
            "{threads} threads, chunks of {chunk}"
        );
    }
}

#[test]
fn a_ten_megabyte_line_is_read_whole() {
    let d = dir("long");
    let long = format!(
        "{{\"Pad\":\"{}\",\"Status\":503,\"More\":[{}]}}\n",
        "x".repeat(10 << 20),
        "1,".repeat(1000) + "1"
    );
    let text = lines(10) + &long + &lines(10);
    let p = write(&d.join("long.ndjson"), text.as_bytes());
    let r = scan(&[&p]).unwrap();
    assert_eq!((r.total, r.matched, r.malformed), (21, 4 + 4 + 1, 0));
    // Over the line limit: counted malformed, skipped unread, the scan goes on.
    let r = Scanner::new(&filter())
        .max_line(1 << 20)
        .chunk_size(4096)
        .scan([Input::path(&p)])
        .unwrap();
    assert_eq!((r.total, r.matched, r.malformed), (21, 8, 1));
    let first = r.first_malformed.unwrap();
    assert_eq!((first.line, first.reason), (11, MalformedReason::TooLong(1 << 20)));
    // A long last line without a line break.
    let p = write(&d.join("last.ndjson"), (lines(3) + long.trim_end()).as_bytes());
    let r = Scanner::new(&filter())
        .max_line(1 << 20)
        .scan([Input::path(&p)])
        .unwrap();
    assert_eq!((r.total, r.matched, r.malformed), (4, 1, 1));
}

#[test]
fn unreadable_inputs_are_errors_that_name_them() {
    let d = dir("unreadable");
    let missing = d.join("missing.ndjson");
    let err = scan(&[&missing]).unwrap_err();
    assert!(matches!(err, ScanError::Open { .. }));
    assert!(err
        .to_string()
        .starts_with(&format!("cannot open `{}`: ", missing.display())));
    let err = scan(&[&d]).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!("cannot read `{}`: ", d.display())),
        "{err}"
    );
    // The inputs before the bad one were read; the error still wins.
    let ok = write(&d.join("ok.ndjson"), lines(10).as_bytes());
    assert!(matches!(scan(&[&ok, &missing]).unwrap_err(), ScanError::Open { .. }));
}

#[test]
fn truncated_or_corrupt_gzip_is_an_error() {
    let d = dir("gzip");
    let full = gzip(lines(20_000).as_bytes());
    for (name, bytes) in [
        ("truncated.gz", full[..full.len() / 2].to_vec()),
        ("no-trailer.gz", full[..full.len() - 4].to_vec()),
        ("header-only.gz", full[..5].to_vec()),
        ("corrupt.gz", {
            let mut b = full.clone();
            for x in &mut b[100..200] {
                *x ^= 0x5a;
            }
            b
        }),
    ] {
        let p = write(&d.join(name), &bytes);
        let err = scan(&[&p]).unwrap_err();
        assert!(matches!(err, ScanError::Gzip { .. }), "{name}: {err}");
        assert!(err.to_string().contains(name), "{err}");
    }
}

/// Each member's CRC-32 and size are checked (off the reading thread): a member whose
/// deflate data is sound but whose trailer disagrees stops the scan there, named, with the
/// members before it counted, whatever the chunk size and however long its lines are.
#[test]
fn a_member_that_fails_its_check_is_an_error() {
    let d = dir("gzip-check");
    let good = gzip(lines(3000).as_bytes());
    let n = good.len();
    for (what, byte, said) in [("crc", n - 8, "CRC-32"), ("size", n - 1, "the trailer says")] {
        let mut bad = good.clone();
        bad[byte] ^= 0x10;
        let mut data = good.clone();
        data.extend(&bad);
        data.extend(&good);
        let p = write(&d.join(format!("{what}.log.gz")), &data);
        for (chunk, max_line) in [(0, 0), (64, 0), (4096, 100)] {
            let mut scanner = Scanner::new(&filter()).chunk_size(chunk).threads(2);
            if max_line > 0 {
                scanner = scanner.max_line(max_line);
            }
            let err = scanner.scan([Input::path(&p)]).unwrap_err();
            assert!(matches!(err, ScanError::Gzip { .. }), "{what}: {err}");
            let text = err.to_string();
            assert!(
                text.contains(&format!("{what}.log.gz")) && text.contains(said),
                "{text}"
            );
            let partial = scanner.partial().expect("the counts so far");
            // Never the lines after the bad member; with small chunks, those before it.
            assert!(partial.total < 6000, "{what}: {}", partial.total);
            assert!(chunk != 64 || partial.total >= 2990, "{what}: {}", partial.total);
        }
    }
}

#[test]
fn readers_and_progress() {
    let text = lines(3000);
    let mut seen = Vec::new();
    let r = Scanner::new(&filter())
        .chunk_size(1024)
        .progress(Duration::ZERO, |p| {
            seen.push(p.bytes);
            true
        })
        .scan([Input::reader("memory", std::io::Cursor::new(text.clone().into_bytes()))])
        .unwrap();
    assert_eq!(r.matched, 1000);
    assert_eq!(seen.last(), Some(&(text.len() as u64)));
    assert!(seen.windows(2).all(|w| w[0] <= w[1]));
    let err = Scanner::new(&filter())
        .chunk_size(1024)
        .progress(Duration::ZERO, |_| false)
        .scan([Input::reader("memory", std::io::Cursor::new(text.into_bytes()))])
        .unwrap_err();
    assert!(matches!(err, ScanError::Cancelled));
}

/// A line whose content is exactly `len` bytes: `{"Status":500,"Pad":"xx..."}`.
fn line_of(len: usize) -> String {
    let head = r#"{"Status":500,"Pad":""#;
    format!("{head}{}\"}}", "x".repeat(len - head.len() - 2))
}

#[test]
fn the_line_limit_counts_the_content_not_the_line_break() {
    let d = dir("line-limit");
    let limit = 200;
    for ending in ["\n", "\r\n"] {
        for (len, too_long) in [(limit - 1, false), (limit, false), (limit + 1, true), (limit + 2, true)] {
            let text = format!("{}{ending}{}{ending}", line_of(len), line_of(40));
            let name = format!("l{len}-{}.ndjson", ending.len());
            let p = write(&d.join(&name), text.as_bytes());
            let scanner = || Scanner::new(&filter()).max_line(limit).chunk_size(16);
            let from_file = scanner().scan([Input::path(&p)]).unwrap();
            let from_stream = scanner()
                .scan([Input::reader(
                    name.clone(),
                    std::io::Cursor::new(text.clone().into_bytes()),
                )])
                .unwrap();
            for r in [from_file, from_stream] {
                let want = if too_long { (2, 1, 1) } else { (2, 2, 0) };
                assert_eq!((r.total, r.matched, r.malformed), want, "{len} bytes + {ending:?}");
                if too_long {
                    let first = r.first_malformed.unwrap();
                    assert_eq!((first.line, first.reason), (1, MalformedReason::TooLong(limit)));
                }
            }
            // The last line, without a line break.
            let last = line_of(len);
            let r = scanner()
                .scan([Input::reader("last", std::io::Cursor::new(last.into_bytes()))])
                .unwrap();
            assert_eq!(r.malformed, u64::from(too_long), "{len} bytes at the end");
        }
    }
}

#[test]
fn zero_padding_after_the_last_gzip_member_is_ignored() {
    let d = dir("gzip-padding");
    let mut bytes = gzip(lines(300).as_bytes());
    bytes.extend(gzip(lines(30).as_bytes()));
    bytes.extend([0u8; 4096]);
    let p = write(&d.join("padded.gz"), &bytes);
    let r = scan(&[&p]).unwrap();
    assert_eq!((r.total, r.matched), (330, 110));
    bytes.extend(b"trailing junk");
    let p = write(&d.join("junk.gz"), &bytes);
    assert!(matches!(scan(&[&p]).unwrap_err(), ScanError::Gzip { .. }));
}

#[cfg(target_os = "linux")]
#[test]
fn files_that_report_no_size_are_read_to_their_end() {
    // /proc files report a size of 0; each of these lines is malformed, but they are read.
    let r = scan(&[Path::new("/proc/self/status")]).unwrap();
    assert!(r.total > 5 && r.malformed == r.total && r.bytes > 0, "{r:?}");
}

#[test]
fn a_file_truncated_during_the_scan_is_an_error_naming_it() {
    let d = dir("truncated");
    let p = write(&d.join("shrinks.ndjson"), lines(50_000).as_bytes());
    let mut cut = false;
    let err = Scanner::new(&filter())
        .threads(1)
        .chunk_size(4096)
        .progress(Duration::ZERO, |now| {
            // Once the file is open and being read by position.
            if !cut && now.bytes > 0 {
                fs::OpenOptions::new()
                    .write(true)
                    .open(&p)
                    .unwrap()
                    .set_len(1000)
                    .unwrap();
                cut = true;
            }
            true
        })
        .scan([Input::path(&p)])
        .unwrap_err();
    assert!(matches!(err, ScanError::Read { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("shrinks.ndjson") && message.contains("shrank"),
        "{message}"
    );
}

#[test]
fn select_to_file_refuses_an_input_and_keeps_the_output_on_failure() {
    let d = dir("select-to-file");
    let text = lines(3000);
    let input = write(&d.join("in.ndjson"), text.as_bytes());
    let select = |inputs: Vec<Input>, out: &Path| Scanner::new(&filter()).chunk_size(1024).select_to_file(inputs, out);
    // A hard link to the input, the input itself, a symbolic link to it.
    let hard = d.join("hard.ndjson");
    fs::hard_link(&input, &hard).unwrap();
    let mut outputs = vec![hard.clone(), input.clone()];
    #[cfg(unix)]
    {
        let soft = d.join("soft.ndjson");
        std::os::unix::fs::symlink(&input, &soft).unwrap();
        outputs.push(soft);
    }
    for out in &outputs {
        let err = select(vec![Input::path(&input)], out).unwrap_err();
        assert!(matches!(err, ScanError::OutputIsInput { .. }), "{err}");
        assert!(err.to_string().contains("is also an input"), "{err}");
    }
    assert_eq!(fs::read_to_string(&input).unwrap(), text, "the input is untouched");
    // An input that cannot be opened, a strict failure: the old output stays as it was.
    let out = write(&d.join("out.ndjson"), b"old\n");
    let err = select(vec![Input::path(&input), Input::path(d.join("missing"))], &out).unwrap_err();
    assert!(matches!(err, ScanError::Open { .. }), "{err}");
    assert_eq!(fs::read_to_string(&out).unwrap(), "old\n");
    let bad = write(&d.join("bad.ndjson"), format!("{text}{{\n").as_bytes());
    let err = Scanner::new(&filter())
        .strict(true)
        .select_to_file([Input::path(&bad)], &out)
        .unwrap_err();
    assert!(matches!(err, ScanError::Malformed { .. }), "{err}");
    assert_eq!(fs::read_to_string(&out).unwrap(), "old\n");
    // Success replaces it, keeping its permissions; no temporary file is left behind.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&out, fs::Permissions::from_mode(0o640)).unwrap();
    }
    let r = select(vec![Input::path(&input)], &out).unwrap();
    assert_eq!(r.matched, 1000);
    assert_eq!(fs::read_to_string(&out).unwrap(), keep(&text, |l| !l.contains(":200,")));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o640);
    }
    let names: Vec<_> = fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(
        names.iter().all(|n| !n.to_string_lossy().contains("escpush-tmp")),
        "{names:?}"
    );
    // A symbolic link as the output: the file it points at is written, the link stays.
    #[cfg(unix)]
    {
        let target = write(&d.join("target.ndjson"), b"old\n");
        let link = d.join("link.ndjson");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        select(vec![Input::path(&input)], &link).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&target).unwrap().lines().count(), 1000);
        // Not a regular file: written directly.
        select(vec![Input::path(&input)], Path::new("/dev/null")).unwrap();
    }
}

/// One line of a generated input.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u32..700).prop_map(|s| format!("{{\"Status\":{s}}}")),
        1 => (0usize..300).prop_map(|n| format!("{{\"Status\":500,\"Pad\":\"{}\"}}", "x".repeat(n))),
        1 => Just(String::new()),
        1 => Just("  \r".to_owned()),
        1 => Just("{\"Status\":".to_owned()),
        1 => Just("[500]".to_owned()),
        1 => "[a-z{}\":0-9 ]{0,12}",
    ]
}

static CASE: AtomicUsize = AtomicUsize::new(0);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The counts, the first malformed line and the selected lines are those of reading the
    /// lines one by one, whatever the threads, the chunk size and the way the input is read
    /// (a file by position, or a stream).
    #[test]
    fn results_do_not_depend_on_threads_chunks_or_reading(
        files in prop::collection::vec((prop::collection::vec(line(), 0..60), any::<bool>()), 1..4),
        threads in 1usize..6,
        chunk in prop_oneof![Just(0usize), 16usize..400],
        max_line in prop_oneof![Just(0usize), 2usize..300],
        members in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        // The limits as the scanner applies them: chunks of at least 16 bytes, and lines that
        // fit in a chunk are never too long.
        let limit = match (chunk, max_line) {
            (0, _) | (_, 0) => usize::MAX, // the default chunk size or line limit: no line here is that long
            _ => max_line.max(chunk.max(16) + 2),
        };
        let mut compiled = filter().compile();
        let mut expected = (0, 0, 0, None, 0);
        let mut selected = String::new();
        let mut inputs = Vec::new();
        let d = dir(&format!("prop-{}", CASE.fetch_add(1, Ordering::Relaxed)));
        for (f, (file_lines, final_break)) in files.iter().enumerate() {
            let mut text = file_lines.join("\n");
            if *final_break && !text.is_empty() {
                text.push('\n');
            }
            expected.4 += text.len() as u64;
            let name = d.join(format!("f{f}.ndjson"));
            for (i, l) in text.split('\n').enumerate() {
                if i == text.split('\n').count() - 1 && l.is_empty() {
                    break; // after the final line break
                }
                let place = |reason| Some((name.display().to_string(), i as u64 + 1, reason));
                // The limit applies to the content, without the line break (LF or CRLF).
                let terminated = i + 1 < text.split('\n').count();
                let content = if terminated { l.strip_suffix('\r').unwrap_or(l) } else { l };
                if content.len() > limit {
                    expected.0 += 1;
                    expected.2 += 1;
                    if expected.3.is_none() {
                        expected.3 = place(MalformedReason::TooLong(limit));
                    }
                    continue;
                }
                if escpush_filter::is_blank(l.as_bytes()) {
                    continue;
                }
                expected.0 += 1;
                match compiled.matches_line(l.as_bytes()) {
                    Ok(true) => {
                        expected.1 += 1;
                        selected.push_str(l);
                        selected.push('\n');
                    }
                    Ok(false) => {}
                    Err(e) => {
                        expected.2 += 1;
                        if expected.3.is_none() {
                            expected.3 = place(MalformedReason::Json(e));
                        }
                    }
                }
            }
            fs::write(&name, &text).unwrap();
            inputs.push((name, text));
        }
        let scanner = || {
            let s = Scanner::new(&filter()).threads(threads).chunk_size(chunk);
            if max_line == 0 { s } else { s.max_line(max_line) }
        };
        let as_files = || inputs.iter().map(|(name, _)| Input::path(name));
        let as_streams = || {
            inputs.iter().map(|(name, text)| {
                Input::reader(name.display().to_string(), std::io::Cursor::new(text.clone().into_bytes()))
            })
        };
        // Gzip in several members cut anywhere (lines, and lines too long to hold, span
        // members), so that every member's check is cut across chunks.
        let as_members = || {
            inputs.iter().map(|(name, text)| {
                let mut cuts: Vec<usize> = members.iter().map(|i| i.index(text.len() + 1)).collect();
                cuts.sort_unstable();
                let mut data = Vec::new();
                let mut from = 0;
                for to in cuts.into_iter().chain([text.len()]) {
                    data.extend(gzip(&text.as_bytes()[from..to]));
                    from = to;
                }
                Input::reader(name.display().to_string(), std::io::Cursor::new(data))
            })
        };
        for (how, mut out) in [("files", Vec::new()), ("streams", Vec::new()), ("gzip members", Vec::new())] {
            let r = match how {
                "files" => scanner().select(as_files(), &mut out).unwrap(),
                "streams" => scanner().select(as_streams(), &mut out).unwrap(),
                _ => scanner().select(as_members(), &mut out).unwrap(),
            };
            let got = counts(&r);
            let first = got.3.map(|m| (m.source_name, m.line, m.reason));
            prop_assert_eq!((got.0, got.1, got.2, first, got.4), expected.clone(), "{}", how);
            prop_assert_eq!(String::from_utf8(out).unwrap(), selected.clone(), "{}", how);
        }
        let counted = scanner().scan(as_files()).unwrap();
        prop_assert_eq!((counted.total, counted.matched, counted.malformed), (expected.0, expected.1, expected.2));
    }
}

/// Many gzip and plain inputs, read by several readers at once: the lines come back in input
/// order whatever the threads and chunk size, per-input counts sum to the whole, and a limit
/// writes the first lines.
#[test]
fn many_inputs_in_order_with_per_input_counts_and_a_limit() {
    let d = dir("many-inputs");
    let mut paths = Vec::new();
    let mut expected = String::new();
    for i in 0..12 {
        let text = lines(300 + 97 * i);
        expected.push_str(&keep(&text, |l| !l.contains("\"Status\":200")));
        let path = if i % 3 == 0 {
            write(&d.join(format!("{i:02}.ndjson")), text.as_bytes())
        } else {
            write(&d.join(format!("{i:02}.ndjson.gz")), &gzip(text.as_bytes()))
        };
        paths.push(path);
    }
    for (threads, chunk) in [(1, 0), (2, 0), (4, 4096), (3, 100)] {
        let mut out = Vec::new();
        let r = Scanner::new(&filter())
            .threads(threads)
            .chunk_size(chunk)
            .select(paths.iter().map(Input::path), &mut out)
            .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            expected,
            "threads {threads}, chunk {chunk}"
        );
        assert_eq!(r.matched_bytes, expected.len() as u64);
        assert_eq!(r.inputs.len(), paths.len());
        assert!(r.inputs.iter().all(|i| i.complete));
        assert_eq!(r.inputs.iter().map(|i| i.total).sum::<u64>(), r.total);
        assert_eq!(r.inputs.iter().map(|i| i.matched).sum::<u64>(), r.matched);
        assert_eq!(r.inputs.iter().map(|i| i.bytes).sum::<u64>(), r.bytes);
        assert_eq!(r.inputs.iter().map(|i| i.matched_bytes).sum::<u64>(), r.matched_bytes);
        assert_eq!(r.inputs[5].name, paths[5].display().to_string());
        let mut first = Vec::new();
        let limited = Scanner::new(&filter())
            .threads(threads)
            .chunk_size(chunk)
            .limit(Some(250))
            .select(paths.iter().map(Input::path), &mut first)
            .unwrap();
        let want: String = expected.lines().take(250).flat_map(|l| [l, "\n"]).collect();
        assert_eq!(String::from_utf8(first).unwrap(), want);
        assert_eq!(limited.matched, r.matched, "the counts cover every line");
    }
}

/// A bad input among many: the error names it, and the counts so far cover the inputs before.
#[test]
fn an_error_in_one_of_many_inputs_keeps_the_counts_so_far() {
    let d = dir("many-bad");
    // Large enough that a second reader fails in the bad input while the first is still here.
    let good = write(&d.join("a.ndjson.gz"), &gzip(lines(200_000).as_bytes()));
    let mut bad = gzip(lines(5000).as_bytes());
    bad.truncate(bad.len() / 2);
    let bad = write(&d.join("b.ndjson.gz"), &bad);
    let after = write(&d.join("c.ndjson"), lines(10).as_bytes());
    // With several readers too: the inputs before the bad one are read to their end.
    for threads in [1, 2, 4] {
        let mut scanner = Scanner::new(&filter()).threads(threads);
        let err = scanner
            .scan([&good, &bad, &after].map(|p| Input::path(p.clone())))
            .unwrap_err();
        assert!(
            matches!(&err, ScanError::Gzip { source_name, .. } if source_name.ends_with("b.ndjson.gz")),
            "{err}"
        );
        let partial = scanner.partial().expect("counts so far");
        assert!(
            partial.inputs[0].complete && partial.inputs[0].total == 200_000,
            "threads {threads}: {:?}",
            partial.inputs
        );
        assert!(!partial.inputs[1].complete && !partial.inputs[2].complete);
        assert_eq!(partial.inputs[2].total, 0, "nothing after the bad input is counted");
    }
}

/// Folders, globs and time ranges (see `escpush_scan::Selection`).
#[test]
fn selection_of_folders_globs_and_time_ranges() {
    use escpush_scan::{parse_time, Selection};
    let d = dir("selection");
    for (day, start, end) in [
        ("20261122", "000000", "000030"),
        ("20261122", "000030", "000100"),
        ("20261123", "000000", "000030"),
    ] {
        fs::create_dir_all(d.join(day)).unwrap();
        write(
            &d.join(day).join(format!("{day}T{start}Z_{day}T{end}Z_abc.log.gz")),
            &gzip(lines(9).as_bytes()),
        );
    }
    write(&d.join("ownership-challenge-1.txt"), b"x");
    write(&d.join("20261122").join(".part.log"), b"x");
    let names = |inputs: &[Input]| -> Vec<String> {
        inputs
            .iter()
            .map(|i| i.name().rsplit('/').next().unwrap()[..16].to_owned())
            .collect()
    };
    let all = Selection::new().expand([d.to_str().unwrap()]).unwrap();
    assert_eq!(
        names(&all),
        ["20261122T000000Z", "20261122T000030Z", "20261123T000000Z"]
    );
    let glob = format!("{}/2026112?/*T0000[0-2]*Z_*.gz", d.display());
    assert_eq!(
        names(&Selection::new().expand([glob.as_str()]).unwrap()),
        ["20261122T000000Z", "20261123T000000Z"]
    );
    let since = Selection::new().since(Some(parse_time("2026-11-22T00:00:30Z").unwrap()));
    assert_eq!(
        names(&since.expand([d.to_str().unwrap()]).unwrap()),
        ["20261122T000030Z", "20261123T000000Z"]
    );
    let until = Selection::new().until(Some(parse_time("2026-11-22T00:00:30Z").unwrap()));
    assert_eq!(
        names(&until.expand([d.to_str().unwrap()]).unwrap()),
        ["20261122T000000Z"]
    );
    let missing = format!("{}/2027*/*.gz", d.display());
    assert!(matches!(
        Selection::new().expand([missing.as_str()]),
        Err(ScanError::Select { .. })
    ));
    write(&d.join("20261122").join("other.ndjson"), b"{}\n");
    assert!(
        matches!(since.expand([d.to_str().unwrap()]), Err(ScanError::Select { what, .. }) if what.ends_with("other.ndjson"))
    );
    let r = Scanner::new(&filter())
        .scan(Selection::new().expand([d.to_str().unwrap()]).unwrap())
        .unwrap();
    assert_eq!((r.total, r.inputs.len()), (28, 4));
}

/// Lines of every kind a breakdown meets: strings, integers, floats, booleans, null, missing,
/// arrays, escapes, and the time in each log-push format (or none, or unreadable).
fn breakdown_lines() -> String {
    let mut out = String::new();
    let countries = [
        r#""cn""#,
        r#""c\u006e""#,
        r#""us""#,
        "null",
        "200",
        "200.0",
        "2e2",
        "true",
        r#"["a", "b"]"#,
        r#"["a","b"]"#,
    ];
    let times = [
        "1795305630",
        "1795305630123456789",
        r#""2026-11-22T00:00:30Z""#,
        r#""2026-11-22T01:00:30.123Z""#,
        r#""2026-11-22T02:00:30.123456789Z""#,
        "null",
        r#""yesterday""#,
        "1.5",
    ];
    for i in 0..3000 {
        let status = if i % 3 == 0 { 500 } else { 200 };
        let _ = write!(out, "{{\"Status\":{status}");
        if i % 11 != 0 {
            let _ = write!(out, ",\"Country\":{}", countries[i % countries.len()]);
        }
        if i % 13 != 0 {
            let _ = write!(out, ",\"T\":{}", times[i % times.len()]);
        }
        out.push_str("}\n");
        if i % 500 == 0 {
            out.push_str("{\"Status\":\n\n");
        }
    }
    out
}

#[test]
fn breakdowns_cover_every_line_once_whatever_the_threads_and_chunks() {
    use escpush_filter::GroupValue;
    use escpush_scan::{Breakdown, Counts};

    let d = dir("breakdown");
    let text = breakdown_lines();
    let plain = write(&d.join("a.ndjson"), text.as_bytes());
    let gz = write(&d.join("b.ndjson.gz"), &gzip(text.as_bytes()));
    let breakdown = Breakdown::new().group_by(["Country", "Status"]).every(3600, "T");
    let run = |threads, chunk| {
        Scanner::new(&filter())
            .breakdown(breakdown.clone())
            .threads(threads)
            .chunk_size(chunk)
            .scan([Input::path(&plain), Input::path(&gz)])
            .unwrap()
    };
    let first = run(1, 0);
    for (threads, chunk) in [(4, 0), (3, 4096), (2, 100)] {
        let mut other = run(threads, chunk);
        other.seconds = first.seconds;
        assert_eq!(other, first, "{threads} threads, chunks of {chunk}");
    }
    let b = first.breakdown.as_ref().unwrap();
    assert!(b.exact);
    let sum = |counts: &mut dyn Iterator<Item = Counts>| {
        counts.fold((0, 0, 0), |(l, m, by), c| (l + c.lines, m + c.matched, by + c.bytes))
    };
    let read = first.total - first.malformed;
    assert_eq!(first.malformed, 12);
    // Every line is in one group and one bucket (or a named row): none is dropped.
    let groups = sum(&mut b.groups.iter().map(|g| g.counts).chain([b.other]));
    assert_eq!((groups.0, groups.1), (read, first.matched));
    let buckets = sum(&mut b
        .buckets
        .iter()
        .map(|x| x.counts)
        .chain([b.no_time, b.unreadable_time, b.other_buckets]));
    assert_eq!((buckets.0, buckets.1), (read, first.matched));
    assert_eq!(groups.2, buckets.2);
    // Malformed and blank lines are in no group; the other lines' bytes are all there.
    assert_eq!(groups.2 + 2 * 6 * "{\"Status\":\n".len() as u64 + 2 * 6, first.bytes);
    // One bucket per hour of the five formats, the two unix forms in the first.
    let starts: Vec<i64> = b.buckets.iter().map(|x| x.start).collect();
    assert_eq!(starts, [1_795_305_600, 1_795_309_200, 1_795_312_800]);
    assert!(b.no_time.lines > 0 && b.unreadable_time.lines > 0);
    // `"cn"` and `"c\u006e"` are one group; 200.0 and 2e2 one, apart from 200; the arrays one.
    let key = |country: GroupValue, status: &str| vec![country, GroupValue::Int(status.into())];
    let lines_of = |k: Vec<GroupValue>| b.groups.iter().find(|g| g.key == k).map(|g| g.counts.lines);
    let cn = lines_of(key(GroupValue::Str(b"cn".to_vec()), "500")).unwrap();
    let us = lines_of(key(GroupValue::Str(b"us".to_vec()), "500")).unwrap();
    assert!(cn > us, "{cn} {us}");
    assert!(
        lines_of(key(GroupValue::Float(200.0), "200")).unwrap()
            > lines_of(key(GroupValue::Int("200".into()), "200")).unwrap()
    );
    assert!(lines_of(key(GroupValue::Array(r#"["a","b"]"#.into()), "200")).is_some());
    assert!(lines_of(key(GroupValue::Null, "200")).is_some());
    assert!(lines_of(key(GroupValue::Missing, "500")).is_some());
    // top = 3: three listed, the rest in `other`, the same totals.
    let top = Scanner::new(&filter())
        .breakdown(breakdown.clone().top(Some(3)))
        .scan([Input::path(&plain), Input::path(&gz)])
        .unwrap();
    let tb = top.breakdown.unwrap();
    assert_eq!(tb.groups[..], b.groups[..3]);
    assert_eq!(tb.other_groups, b.groups.len() as u64 - 3);
    assert_eq!(sum(&mut tb.groups.iter().map(|g| g.counts).chain([tb.other])), groups);
}
