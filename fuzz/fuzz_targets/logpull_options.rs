//! Any text read as `logpull_options`: parsing never panics; an error is `Invalid` with at
//! least one problem, each at a path under `logpull_options`; options that parse print
//! (`to_query`, `Display`) to text that parses back to the same options and prints the same,
//! and their checks against a dataset and their warnings never panic.
#![no_main]

use escpush_core::{Error, LogpullOptions};
use escpush_filter::Dataset;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match LogpullOptions::parse(text) {
        Ok(options) => {
            let printed = options.to_query();
            assert_eq!(options.to_string(), printed);
            let again = LogpullOptions::parse(&printed)
                .unwrap_or_else(|e| panic!("printed options {printed:?} do not parse: {e}"));
            assert_eq!(again, options, "{text:?} printed as {printed:?}");
            assert_eq!(again.to_query(), printed);
            assert_eq!(options.warnings().len(), options.unknown_options().len());
            let http = Dataset::get("http_requests", None).expect("embedded");
            for problem in options.problems(http) {
                assert!(problem.path.starts_with("logpull_options.fields"), "{problem:?}");
            }
        }
        Err(Error::Invalid { problems }) => {
            assert!(!problems.is_empty());
            for problem in &problems {
                assert!(problem.path.starts_with("logpull_options."), "{problem:?}");
                assert!(!problem.message.is_empty());
            }
        }
        Err(other) => panic!("not an Invalid error: {other:?}"),
    }
});
