//! Any text: parsing never panics, and whatever parses prints to text that parses back
//! to the same filter, byte for byte, and validates or explains why not.
#![no_main]

use escpush_filter::Filter;
use escpush_filter::{Dataset, Limits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match Filter::parse(text) {
        Ok(filter) => {
            let printed = filter.to_json();
            let again = Filter::parse(&printed).expect("printed filters parse");
            assert_eq!(again, filter);
            assert_eq!(again.to_json(), printed);
            let http = Dataset::get("http_requests", None).expect("embedded");
            let _ = filter.problems(Some(http), Limits::default());
            let _ = filter.matches(&serde_json::Value::Null);
        }
        Err(err) => assert!(!err.problems().is_empty()),
    }
});
