//! The bytes of a connection to the emulator, read by its own request reader over an
//! in-memory stream: reading never panics; it gives the same requests, and writes the same
//! `100 Continue`s, whether the bytes come at once or a few at a time; a request read has a
//! path without query and a body within the limit (of its `Content-Length` when not chunked);
//! a refusal has a status the server documents. Then the same bytes answered by the
//! emulator's routes and handlers on a fresh state: one answer per request read (plus the
//! refusal), each a v4 envelope the client reads as success exactly when it is a 2xx, and no
//! answer shows the credentials.
#![no_main]

use escpush_core::{read_answer, Error};
use escpush_emulator::fuzzing::{answer, read_requests, Outcome, API_KEY, API_TOKEN};
use libfuzzer_sys::fuzz_target;

const MAX_BODY: usize = 1024 * 1024;
const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack.windows(needle.len()).filter(|w| *w == needle).count()
}

fuzz_target!(|data: &[u8]| {
    let Some((&chunk, bytes)) = data.split_first() else {
        return;
    };
    let (reads, written) = read_requests(bytes, usize::MAX);
    let (trickled, trickle_written) = read_requests(bytes, usize::from(chunk % 16) + 1);
    assert_eq!(reads, trickled, "read at once and {} bytes at a time", chunk % 16 + 1);
    assert_eq!(written, trickle_written);
    assert!(written.chunks(CONTINUE.len()).all(|c| c == CONTINUE));
    let mut requests = 0;
    let mut refused = false;
    for read in &reads {
        match read {
            Outcome::Request(req) => {
                requests += 1;
                assert!(!req.method.is_empty());
                assert!(!req.path.contains(['?', '#']), "{req:?}");
                assert!(req.body.len() <= MAX_BODY);
                let header = |name: &str| req.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name));
                let chunked =
                    header("transfer-encoding").is_some_and(|(_, v)| v.to_ascii_lowercase().contains("chunked"));
                if let (false, Some((_, len))) = (chunked, header("content-length")) {
                    assert_eq!(len.parse::<usize>().ok(), Some(req.body.len()));
                }
            }
            Outcome::Bad(status, message) => {
                refused = true;
                assert!([400, 413, 431, 505].contains(status), "{status} {message}");
                assert!(!message.is_empty());
            }
            Outcome::Closed => {}
            Outcome::Io => panic!("an in-memory stream failed"),
        }
    }
    let answers = answer(bytes);
    let closing = reads
        .iter()
        .position(|r| matches!(r, Outcome::Request(req) if req.close));
    let expected = match closing {
        Some(i) => i + 1,
        None => requests + usize::from(refused),
    };
    assert_eq!(answers.len(), expected.min(64));
    // The credentials show only if the input holds them elsewhere than in their headers.
    let key_elsewhere =
        count(bytes, API_KEY.as_bytes()) > count(bytes, format!("X-Auth-Key: {API_KEY}\r\n").as_bytes());
    let token_elsewhere =
        count(bytes, API_TOKEN.as_bytes()) > count(bytes, format!("Authorization: Bearer {API_TOKEN}\r\n").as_bytes());
    for (status, body) in &answers {
        match read_answer(*status, body) {
            Ok(_) => assert!((200..300).contains(status), "{status}"),
            Err(Error::Api { status: s, .. }) => assert_eq!(s, *status),
            Err(other) => panic!(
                "the client cannot read the answer {status} {}: {other}",
                String::from_utf8_lossy(body)
            ),
        }
        assert!(key_elsewhere || count(body, API_KEY.as_bytes()) == 0);
        assert!(token_elsewhere || count(body, API_TOKEN.as_bytes()) == 0);
    }
});
