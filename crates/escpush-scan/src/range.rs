//! A byte range of a plain file as an input of its own ([`Input::line_range`]): the lines
//! that start in the range, whole, by the rule the scan's workers share a plain file by. The
//! ranges of a cut of a file hold each of its lines once, so that processes (a cluster's
//! executors) can each read a range of one large file.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::{Input, ScanError};

/// The lines of a file that start in `[start, end)`.
struct LineRange {
    file: BufReader<File>,
    /// The offset of the next byte `file` gives.
    pos: u64,
    end: u64,
    /// Whether the last byte given ended a line (or none was given and `pos` starts one).
    at_line_start: bool,
    done: bool,
}

impl Read for LineRange {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.done || out.is_empty() || (self.pos >= self.end && self.at_line_start) {
            return Ok(0);
        }
        let buf = self.file.fill_buf()?;
        if buf.is_empty() {
            self.done = true;
            return Ok(0);
        }
        let n = if self.pos < self.end {
            // Up to the end of the range; the line that crosses it is finished below.
            let left = usize::try_from(self.end - self.pos).unwrap_or(usize::MAX);
            buf.len().min(left).min(out.len())
        } else {
            // Past the end: the rest of the line that started before it.
            match memchr::memchr(b'\n', buf) {
                Some(at) => (at + 1).min(out.len()),
                None => buf.len().min(out.len()),
            }
        };
        out[..n].copy_from_slice(&buf[..n]);
        self.at_line_start = out[n - 1] == b'\n';
        self.file.consume(n);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Input {
    /// The lines of the plain file at `path` that start in the bytes `[start, end)`, whole:
    /// the ranges of a cut of a file (`[0, a)`, `[a, b)`, ..., `[z, len)`) hold every line
    /// once. Named as the file is in messages; a line's number there counts from the range's
    /// start, not the file's. For plain files only (a range of gzip data is not gzip).
    pub fn line_range(path: impl AsRef<Path>, start: u64, end: u64) -> Result<Input, ScanError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let open_error = |error: io::Error| ScanError::Open {
            source_name: name.clone(),
            error,
        };
        let mut file = File::open(path).map_err(open_error)?;
        let mut pos = start;
        if start > 0 {
            // The line that holds byte `start - 1` began before the range: skip it.
            file.seek(SeekFrom::Start(start - 1)).map_err(open_error)?;
            pos = start - 1;
        }
        let mut file = BufReader::with_capacity(1 << 20, file);
        if start > 0 {
            let mut skipped = Vec::new();
            let read_error = |error: io::Error| ScanError::Read {
                source_name: name.clone(),
                error,
            };
            pos += file.read_until(b'\n', &mut skipped).map_err(read_error)? as u64;
        }
        let range = LineRange {
            file,
            pos,
            end,
            at_line_start: true,
            done: false,
        };
        Ok(Input::reader(name, range))
    }
}

impl Input {
    /// How many lines of the plain file at `path` come before the first line of
    /// [`Input::line_range`]`(path, start, _)`: what turns a line's number in that range into
    /// its number in the file (line numbers count blank lines). Reads the file up to `start`.
    pub fn lines_before_range(path: impl AsRef<Path>, start: u64) -> Result<u64, ScanError> {
        let path = path.as_ref();
        if start == 0 {
            return Ok(0);
        }
        let name = path.display().to_string();
        let file = File::open(path).map_err(|error| ScanError::Open {
            source_name: name.clone(),
            error,
        })?;
        // The range begins after the line break at or after byte `start - 1`: the breaks
        // before that byte, and that one.
        let mut file = BufReader::with_capacity(1 << 20, file.take(start - 1));
        let mut breaks = 1;
        loop {
            let buf = file.fill_buf().map_err(|error| ScanError::Read {
                source_name: name.clone(),
                error,
            })?;
            if buf.is_empty() {
                return Ok(breaks);
            }
            breaks += memchr::memchr_iter(b'\n', buf).count() as u64;
            let n = buf.len();
            file.consume(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: Input) -> Vec<u8> {
        let Input::Reader { mut reader, .. } = input else {
            panic!("a reader")
        };
        let mut out = Vec::new();
        reader.read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn the_ranges_of_a_cut_hold_every_line_once() {
        let dir = std::env::temp_dir().join(format!("escpush-range-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.ndjson");
        let mut text = Vec::new();
        for i in 0..200 {
            text.extend_from_slice(format!("{{\"i\":{i},\"p\":\"{}\"}}\n", "x".repeat(i % 37)).as_bytes());
        }
        text.extend_from_slice(b"\n\n{\"last\":true}"); // blank lines, no final line break
        std::fs::write(&path, &text).unwrap();
        let len = text.len() as u64;
        for parts in [1u64, 2, 3, 7, 50, len] {
            let cuts: Vec<u64> = (0..=parts).map(|i| len * i / parts).collect();
            let mut joined = Vec::new();
            for pair in cuts.windows(2) {
                joined.extend(read(Input::line_range(&path, pair[0], pair[1]).unwrap()));
            }
            assert_eq!(joined, text, "{parts} parts");
        }
        // A cut exactly at a line's start gives that line to the range it starts.
        let second_at = text.iter().position(|&b| b == b'\n').unwrap() + 1;
        let second = second_at as u64;
        assert!(read(Input::line_range(&path, second, second + 1).unwrap()).starts_with(b"{\"i\":1,"));
        assert_eq!(read(Input::line_range(&path, 0, second).unwrap()), text[..second_at]);
        // A line's number in a range, plus the lines before the range: its number in the file
        // (blank lines count: the text ends with two).
        let len_lines = text.split(|&b| b == b'\n').count() as u64;
        for start in [
            0,
            1,
            second - 1,
            second,
            second + 1,
            len / 2,
            len - 20,
            len - 16,
            len - 3,
        ] {
            let before = Input::lines_before_range(&path, start).unwrap();
            let in_range = read(Input::line_range(&path, start, len).unwrap());
            if in_range.is_empty() {
                continue; // a start inside the last line: no line of its own
            }
            let after = in_range.split(|&b| b == b'\n').count() as u64;
            assert_eq!(before + after, len_lines, "from {start}");
        }
        let gone = Input::line_range(dir.join("gone.ndjson"), 0, 10);
        assert!(matches!(gone, Err(ScanError::Open { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
