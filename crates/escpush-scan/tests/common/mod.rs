//! What the integration tests share (each file here is a crate of its own: `mod common;`).
#![allow(dead_code)] // each test file uses what it needs

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;

/// A new, empty folder `name` of this test file's (`escpush-<file>` in Cargo's temporary
/// folder for tests).
pub fn dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(concat!("escpush-", env!("CARGO_CRATE_NAME")))
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// `bytes` as one gzip member.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}
