//! Any text read as the text form: parsing never panics, every error has a position inside
//! the text, and whatever parses prints to text that parses back to the same filter (and
//! prints the same), and to JSON that parses back too.
#![no_main]

use escpush_filter::Filter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match Filter::from_text(text) {
        Ok(filter) => {
            let printed = filter.to_text();
            let again = Filter::from_text(&printed).expect("printed text parses");
            assert_eq!(again, filter);
            assert_eq!(again.to_text(), printed);
            assert_eq!(Filter::parse(&filter.to_json()).expect("printed JSON parses"), filter);
        }
        Err(err) => {
            assert!(err.line >= 1 && err.column >= 1 && err.width >= 1);
            assert!(err.line <= text.split('\n').count());
            assert!(!err.message.is_empty());
        }
    }
});
