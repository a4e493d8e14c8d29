//! HTTP/1.1 on one connection: requests read with `httparse` (a `Content-Length` or chunked
//! body, `Expect: 100-continue`), responses written whole, cut short or paced. Keep-alive
//! is supported; pipelined requests are read in order.

use std::io::{self, Read, Write};
use std::time::Duration;

/// The largest request head (request line and headers) accepted.
const MAX_HEAD: usize = 64 * 1024;
/// The most headers a request may have.
const MAX_HEADERS: usize = 100;
/// The largest request body accepted.
pub(crate) const MAX_BODY: usize = 1024 * 1024;

/// One parsed request.
#[derive(Debug)]
pub(crate) struct HttpRequest {
    pub method: String,
    /// The path without the query string.
    pub path: String,
    /// The query string after `?` (empty when there is none), as sent.
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The client asked to close the connection after this request.
    pub close: bool,
}

impl HttpRequest {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Why a request could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The peer closed the connection before a request began: not an error.
    Closed,
    Io,
    /// A malformed request: answer this status and close.
    Bad(u16, String),
}

impl From<io::Error> for ReadError {
    fn from(_: io::Error) -> Self {
        ReadError::Io
    }
}

fn bad(status: u16, message: &str) -> ReadError {
    ReadError::Bad(status, message.to_owned())
}

/// The reading side of a connection, with the bytes read past the last request.
#[derive(Debug)]
pub(crate) struct Reader<R> {
    inner: R,
    buf: Vec<u8>,
}

impl<R: Read> Reader<R> {
    pub fn new(inner: R) -> Self {
        Reader { inner, buf: Vec::new() }
    }

    /// The reader it reads from.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Reads more bytes into the buffer; `Ok(0)` at the end of the stream.
    fn fill(&mut self) -> io::Result<usize> {
        let mut chunk = [0u8; 8192];
        let n = self.inner.read(&mut chunk)?;
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(n)
    }

    /// Takes exactly `n` bytes.
    fn take(&mut self, n: usize) -> Result<Vec<u8>, ReadError> {
        while self.buf.len() < n {
            if self.fill()? == 0 {
                return Err(bad(400, "truncated request body"));
            }
        }
        Ok(self.buf.drain(..n).collect())
    }

    /// Reads one request; answers `Expect: 100-continue` on `w` before reading the body.
    pub fn read_request(&mut self, w: &mut impl Write) -> Result<HttpRequest, ReadError> {
        let (head_len, method, target, minor_version, headers) = loop {
            let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut req = httparse::Request::new(&mut slots);
            match req.parse(&self.buf) {
                Ok(httparse::Status::Complete(len)) => {
                    let headers = req
                        .headers
                        .iter()
                        .map(|h| {
                            String::from_utf8(h.value.to_vec())
                                .map(|v| (h.name.to_owned(), v.trim().to_owned()))
                                .map_err(|_| bad(400, "a header value is not UTF-8"))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    break (
                        len,
                        req.method.unwrap_or_default().to_owned(),
                        req.path.unwrap_or_default().to_owned(),
                        req.version.unwrap_or(1),
                        headers,
                    );
                }
                Ok(httparse::Status::Partial) => {}
                Err(httparse::Error::TooManyHeaders) => return Err(bad(431, "too many request headers")),
                Err(httparse::Error::Version) => return Err(bad(505, "only HTTP/1.x is supported")),
                Err(e) => return Err(ReadError::Bad(400, format!("malformed request: {e}"))),
            }
            if self.buf.len() > MAX_HEAD {
                return Err(bad(431, "request head too large"));
            }
            if self.fill()? == 0 {
                return Err(if self.buf.iter().all(u8::is_ascii_whitespace) {
                    ReadError::Closed
                } else {
                    bad(400, "truncated request")
                });
            }
        };
        self.buf.drain(..head_len);
        let find = |name: &str| {
            headers
                .iter()
                .find(|(k, _): &&(String, String)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        if find("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
            w.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
            w.flush()?;
        }
        let chunked = find("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        let body = if chunked {
            self.read_chunked()?
        } else if let Some(len) = find("content-length") {
            let len: usize = len.parse().map_err(|_| bad(400, "bad Content-Length"))?;
            if len > MAX_BODY {
                return Err(ReadError::Bad(413, format!("request body over {MAX_BODY} bytes")));
            }
            self.take(len)?
        } else {
            Vec::new()
        };
        let close = find("connection").is_some_and(|v| v.eq_ignore_ascii_case("close")) || minor_version == 0;
        let path = target.split(['?', '#']).next().unwrap_or_default().to_owned();
        let query = target
            .split('#')
            .next()
            .and_then(|t| t.split_once('?'))
            .map(|(_, q)| q.to_owned())
            .unwrap_or_default();
        Ok(HttpRequest {
            method,
            path,
            query,
            headers,
            body,
            close,
        })
    }

    /// A chunked body: sizes read with `httparse::parse_chunk_size`, trailers skipped.
    fn read_chunked(&mut self) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            let (start, size) = loop {
                match httparse::parse_chunk_size(&self.buf) {
                    Ok(httparse::Status::Complete(found)) => break found,
                    Ok(httparse::Status::Partial) if self.buf.len() < MAX_HEAD => {
                        if self.fill()? == 0 {
                            return Err(bad(400, "truncated chunked body"));
                        }
                    }
                    _ => return Err(bad(400, "bad chunk size")),
                }
            };
            self.buf.drain(..start);
            let size = usize::try_from(size).unwrap_or(usize::MAX);
            if size == 0 {
                return self.skip_trailers().map(|()| body);
            }
            if body.len().saturating_add(size) > MAX_BODY {
                return Err(ReadError::Bad(413, format!("request body over {MAX_BODY} bytes")));
            }
            body.extend(self.take(size)?);
            if self.take(2)? != b"\r\n" {
                return Err(bad(400, "a chunk does not end with CRLF"));
            }
        }
    }

    /// Trailer lines up to the empty line that ends a chunked body.
    fn skip_trailers(&mut self) -> Result<(), ReadError> {
        loop {
            let Some(end) = self.buf.windows(2).position(|w| w == b"\r\n") else {
                if self.buf.len() > MAX_HEAD || self.fill()? == 0 {
                    return Err(bad(400, "truncated chunked body"));
                }
                continue;
            };
            self.buf.drain(..end + 2);
            if end == 0 {
                return Ok(());
            }
        }
    }
}

/// One response to write.
#[derive(Debug, Clone)]
pub(crate) struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    pub fn json(status: u16, body: Vec<u8>) -> Self {
        HttpResponse {
            status,
            headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
            body,
        }
    }

    #[must_use]
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }
}

pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "Status",
    }
}

/// How a response goes out.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Delivery {
    /// The `Content-Length` announced (the body may be shorter, to cut it short).
    pub content_length: Option<usize>,
    /// Close the connection after the response.
    pub close: bool,
    /// Wait this long before the head, and again spread over the body (a slow server).
    pub pace: Option<Duration>,
    /// Send the head at once, then wait this long before the body (a server that stalls).
    pub stall: Option<Duration>,
    /// Send the head at once, then the body one byte at a time, this long apart.
    pub drip: Option<Duration>,
}

/// How many pieces a paced body is written in.
const PACED_PIECES: u32 = 8;

/// Writes the head and then the body. A 204 carries neither body nor `Content-Length`.
#[cfg(test)]
pub(crate) fn write_response(w: &mut impl Write, resp: &HttpResponse, how: Delivery) -> io::Result<()> {
    write_response_with(w, resp, how, &|d| {
        std::thread::sleep(d);
        Ok(())
    })
}

/// [`write_response`] with the waits of a slow delivery taken by `sleep` (which may end
/// them early with an error: the emulator stops).
pub(crate) fn write_response_with(
    w: &mut impl Write,
    resp: &HttpResponse,
    how: Delivery,
    sleep: &dyn Fn(Duration) -> io::Result<()>,
) -> io::Result<()> {
    use std::fmt::Write as _;
    let mut head = format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status));
    for (k, v) in &resp.headers {
        let _ = write!(head, "{k}: {v}\r\n");
    }
    if resp.status != 204 {
        let _ = write!(
            head,
            "Content-Length: {}\r\n",
            how.content_length.unwrap_or(resp.body.len())
        );
    }
    if how.close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    let body: &[u8] = if resp.status == 204 { &[] } else { &resp.body };
    if let Some(pace) = how.pace {
        sleep(pace)?;
    }
    w.write_all(head.as_bytes())?;
    w.flush()?;
    if let Some(stall) = how.stall {
        sleep(stall)?;
    }
    let (piece, gap) = match (how.pace, how.drip) {
        (_, Some(drip)) => (1, Some(drip)),
        (Some(pace), None) => (
            body.len().div_ceil(PACED_PIECES as usize).max(1),
            Some(pace / PACED_PIECES),
        ),
        (None, None) => (body.len().max(1), None),
    };
    for part in body.chunks(piece) {
        if let Some(gap) = gap {
            sleep(gap)?;
        }
        w.write_all(part)?;
        w.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(raw: &[u8]) -> Result<HttpRequest, ReadError> {
        Reader::new(raw).read_request(&mut io::sink())
    }

    #[test]
    fn reads_content_length_and_chunked() {
        let raw = b"\r\nPOST /a/b?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcdGET / HTTP/1.1\r\nConnection: close\r\n\r\n";
        let mut r = Reader::new(&raw[..]);
        let a = r.read_request(&mut io::sink()).unwrap();
        assert_eq!(
            (a.method.as_str(), a.path.as_str(), &a.body[..], a.close),
            ("POST", "/a/b", &b"abcd"[..], false)
        );
        assert_eq!(a.header("HOST"), Some("x"));
        let b = r.read_request(&mut io::sink()).unwrap();
        assert!(b.close && b.body.is_empty());
        assert!(matches!(r.read_request(&mut io::sink()), Err(ReadError::Closed)));
        let raw =
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nX-T: 1\r\n\r\n";
        assert_eq!(read(raw).unwrap().body, b"abcde");
        let raw = b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok";
        let mut interim = Vec::new();
        assert_eq!(Reader::new(&raw[..]).read_request(&mut interim).unwrap().body, b"ok");
        assert_eq!(interim, b"HTTP/1.1 100 Continue\r\n\r\n");
        assert!(read(b"GET / HTTP/1.0\r\n\r\n").unwrap().close);
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for (raw, status) in [
            (&b"NONSENSE\r\n\r\n"[..], 400),
            (b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab", 400),
            (b"GET / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", 413),
            (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            (b"GET / HTTP/1.1\r\nHost: x", 400),
        ] {
            assert!(
                matches!(read(raw), Err(ReadError::Bad(s, _)) if s == status),
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
        let many = "H: v\r\n".repeat(200);
        let raw = format!("GET / HTTP/1.1\r\n{many}\r\n");
        assert!(matches!(read(raw.as_bytes()), Err(ReadError::Bad(431, _))));
    }

    #[test]
    fn writes_whole_cut_and_empty_answers() {
        let mut out = Vec::new();
        let resp = HttpResponse::json(200, b"{}".to_vec());
        write_response(&mut out, &resp, Delivery::default()).unwrap();
        assert!(String::from_utf8(out).unwrap().ends_with("Content-Length: 2\r\n\r\n{}"));
        let mut out = Vec::new();
        write_response(&mut out, &HttpResponse::json(204, b"x".to_vec()), Delivery::default()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("HTTP/1.1 204 No Content")
                && !text.contains("Content-Length")
                && text.ends_with("\r\n\r\n")
        );
    }
}
