//! What the tests that generate a page of `docs/` share: the page is the rendering of core's
//! tables, written anew with `ESCPUSH_BLESS=1`.

use std::path::PathBuf;

/// Fails unless `page` (a path from the repository's root, `docs/cost.md`) holds `rendered`;
/// with `ESCPUSH_BLESS` set, writes it first. `test` names the test target that renders it.
pub fn page_is_current(page: &str, rendered: &str, test: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(page);
    if std::env::var_os("ESCPUSH_BLESS").is_some() {
        std::fs::write(&path, rendered).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == rendered,
        "{page} differs from core's tables; run ESCPUSH_BLESS=1 cargo test -p escpush-core --test {test} and \
         review the diff"
    );
}
