//! Entry points for the fuzz targets of `fuzz/` (not part of the API, may change at any
//! time): the bytes of a connection read by the server's own [`Reader`] over an in-memory
//! stream, and answered by its own routes and handlers.

use std::io::{self, Read};
use std::sync::Mutex;

use crate::handlers::respond;
use crate::server::bad_request;
use crate::state::State;
use crate::wire::{ReadError, Reader};
use crate::Credentials;

/// The `X-Auth-Key` [`answer`] accepts (with [`EMAIL`]).
pub const API_KEY: &str = "fuzz-key";
/// The `X-Auth-Email` [`answer`] accepts.
pub const EMAIL: &str = "fuzz@example.com";
/// The bearer token [`answer`] accepts.
pub const API_TOKEN: &str = "fuzz-token";

/// The most requests read from one input.
const MAX_REQUESTS: usize = 64;

/// One request as the server read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The path without the query string.
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub close: bool,
}

/// What one read of the connection gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Request(Request),
    /// The peer closed before a request began.
    Closed,
    /// The stream failed (never, in memory).
    Io,
    /// A malformed request: the server answers this status and closes.
    Bad(u16, String),
}

/// A stream that gives at most `chunk` bytes per read: a slow client.
struct Trickle<'a> {
    bytes: &'a [u8],
    chunk: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.bytes.len().min(self.chunk).min(buf.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Reads the requests of a connection that sends `bytes`, at most `chunk` bytes (at least
/// one) per read, as the server does, up to the first read that is not a request (at most
/// 64). Gives the reads and what the server wrote back meanwhile (`100 Continue`).
pub fn read_requests(bytes: &[u8], chunk: usize) -> (Vec<Outcome>, Vec<u8>) {
    let mut reader = Reader::new(Trickle {
        bytes,
        chunk: chunk.max(1),
    });
    let mut written = Vec::new();
    let mut reads = Vec::new();
    while reads.len() < MAX_REQUESTS {
        match reader.read_request(&mut written) {
            Ok(req) => reads.push(Outcome::Request(Request {
                method: req.method,
                path: req.path,
                headers: req.headers,
                body: req.body,
                close: req.close,
            })),
            Err(ReadError::Closed) => {
                reads.push(Outcome::Closed);
                break;
            }
            Err(ReadError::Io) => {
                reads.push(Outcome::Io);
                break;
            }
            Err(ReadError::Bad(status, message)) => {
                reads.push(Outcome::Bad(status, message));
                break;
            }
        }
    }
    (reads, written)
}

/// Answers the requests of a connection that sends `bytes` as the server does without
/// faults, on a fresh state, with the credentials [`API_KEY`] / [`EMAIL`] and [`API_TOKEN`]:
/// `(status, body)` per request read, then the answer to a malformed one.
pub fn answer(bytes: &[u8]) -> Vec<(u16, Vec<u8>)> {
    let creds = Credentials {
        api_key: API_KEY.to_owned(),
        email: EMAIL.to_owned(),
        api_token: API_TOKEN.to_owned(),
    };
    let state = Mutex::new(State::default());
    let mut reader = Reader::new(bytes);
    let mut answers = Vec::new();
    while answers.len() < MAX_REQUESTS {
        match reader.read_request(&mut io::sink()) {
            Ok(req) => {
                let resp = respond(&req, &creds, &state);
                answers.push((resp.status, resp.body));
                if req.close {
                    break;
                }
            }
            Err(ReadError::Bad(status, message)) => {
                let resp = bad_request(status, message);
                answers.push((resp.status, resp.body));
                break;
            }
            Err(ReadError::Closed | ReadError::Io) => break,
        }
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_same_at_once_and_byte_by_byte_and_answers_each_request() {
        let raw = b"POST /client/v4/zones/z/disable_esc HTTP/1.1\r\nAuthorization: Bearer fuzz-token\r\n\
            Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 15\r\n\r\n{\"always\":true}\
            GET /client/v4/zones/z/disable_esc HTTP/1.1\r\nConnection: close\r\n\r\n";
        let (reads, written) = read_requests(raw, usize::MAX);
        assert_eq!(read_requests(raw, 1), (reads.clone(), written.clone()));
        assert_eq!(written, b"HTTP/1.1 100 Continue\r\n\r\n");
        assert!(
            matches!(&reads[..], [Outcome::Request(a), Outcome::Request(b), Outcome::Closed]
            if a.body == b"{\"always\":true}" && b.close)
        );
        let answers = answer(raw);
        assert_eq!(answers.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [200, 401]);
        assert_eq!(answer(b"NONSENSE\r\n\r\n")[0].0, 400);
    }
}
