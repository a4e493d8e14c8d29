//! Just enough HTTP/1.1 for the emulator: read one request (Content-Length or chunked
//! body), write one response. Keep-alive is supported; pipelining is not needed.

use std::io::{self, BufRead, Read, Write};

/// The largest request head (request line and headers) accepted.
const MAX_HEAD: usize = 64 * 1024;
/// The largest request body accepted.
pub(crate) const MAX_BODY: usize = 1024 * 1024;

/// One parsed request.
#[derive(Debug)]
pub(crate) struct HttpRequest {
    pub method: String,
    /// The path without the query string.
    pub path: String,
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
    /// A malformed request: answer 400 (or 413) and close.
    Bad(u16, String),
}

impl From<io::Error> for ReadError {
    fn from(_: io::Error) -> Self {
        ReadError::Io
    }
}

fn read_line(r: &mut impl BufRead, budget: &mut usize) -> Result<String, ReadError> {
    let mut buf = Vec::new();
    let n = r.by_ref().take(*budget as u64 + 1).read_until(b'\n', &mut buf)?;
    if n > *budget {
        return Err(ReadError::Bad(431, "request head too large".to_owned()));
    }
    *budget -= n;
    if n == 0 {
        return Err(ReadError::Closed);
    }
    if !buf.ends_with(b"\n") {
        return Err(ReadError::Bad(400, "truncated request".to_owned()));
    }
    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        buf.pop();
    }
    String::from_utf8(buf).map_err(|_| ReadError::Bad(400, "request head is not UTF-8".to_owned()))
}

/// Reads one request; answers `Expect: 100-continue` on `w` before reading the body.
pub(crate) fn read_request(r: &mut impl BufRead, w: &mut impl Write) -> Result<HttpRequest, ReadError> {
    let mut budget = MAX_HEAD;
    let mut line = read_line(r, &mut budget)?;
    while line.is_empty() {
        // tolerate stray CRLF between requests (RFC 9112 §2.2)
        line = read_line(r, &mut budget)?;
    }
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Bad(400, "malformed request line".to_owned()));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(ReadError::Bad(505, "only HTTP/1.x is supported".to_owned()));
    }
    let mut headers = Vec::new();
    loop {
        let line = match read_line(r, &mut budget) {
            Err(ReadError::Closed) => return Err(ReadError::Bad(400, "truncated request".to_owned())),
            other => other?,
        };
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::Bad(400, "malformed header line".to_owned()));
        };
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(k, _): &&(String, String)| k.eq_ignore_ascii_case(name))
    };
    if find("expect").is_some_and(|(_, v)| v.eq_ignore_ascii_case("100-continue")) {
        w.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        w.flush()?;
    }
    let chunked = find("transfer-encoding").is_some_and(|(_, v)| v.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        read_chunked(r)?
    } else if let Some((_, len)) = find("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| ReadError::Bad(400, "bad Content-Length".to_owned()))?;
        if len > MAX_BODY {
            return Err(ReadError::Bad(413, format!("request body over {MAX_BODY} bytes")));
        }
        let mut body = vec![0; len];
        r.read_exact(&mut body)?;
        body
    } else {
        Vec::new()
    };
    let close = find("connection").is_some_and(|(_, v)| v.eq_ignore_ascii_case("close")) || version == "HTTP/1.0";
    let path = target.split(['?', '#']).next().unwrap_or_default().to_owned();
    Ok(HttpRequest {
        method: method.to_owned(),
        path,
        headers,
        body,
        close,
    })
}

fn read_chunked(r: &mut impl BufRead) -> Result<Vec<u8>, ReadError> {
    let mut body = Vec::new();
    let mut budget = MAX_HEAD;
    loop {
        let line = read_line(r, &mut budget)?;
        let size = usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| ReadError::Bad(400, "bad chunk size".to_owned()))?;
        if size == 0 {
            // trailers, up to the empty line
            while !read_line(r, &mut budget)?.is_empty() {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY {
            return Err(ReadError::Bad(413, format!("request body over {MAX_BODY} bytes")));
        }
        let start = body.len();
        body.resize(start + size, 0);
        r.read_exact(&mut body[start..])?;
        read_line(r, &mut budget)?;
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

/// Writes the head with `Content-Length: content_length` and then `body` (which may be
/// shorter, for the truncated-body fault).
pub(crate) fn write_response(
    w: &mut impl Write,
    resp: &HttpResponse,
    content_length: usize,
    close: bool,
) -> io::Result<()> {
    use std::fmt::Write as _;
    let mut head = format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status));
    for (k, v) in &resp.headers {
        let _ = write!(head, "{k}: {v}\r\n");
    }
    let _ = write!(head, "Content-Length: {content_length}\r\n");
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    w.write_all(head.as_bytes())?;
    w.write_all(&resp.body)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    #[test]
    fn reads_content_length_and_chunked() {
        let raw = b"POST /a/b?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcdGET / HTTP/1.1\r\nConnection: close\r\n\r\n";
        let mut r = BufReader::new(&raw[..]);
        let a = read_request(&mut r, &mut io::sink()).unwrap();
        assert_eq!(
            (a.method.as_str(), a.path.as_str(), &a.body[..], a.close),
            ("POST", "/a/b", &b"abcd"[..], false)
        );
        assert_eq!(a.header("HOST"), Some("x"));
        let b = read_request(&mut r, &mut io::sink()).unwrap();
        assert!(b.close && b.body.is_empty());
        assert!(matches!(read_request(&mut r, &mut io::sink()), Err(ReadError::Closed)));
        let raw = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        assert_eq!(
            read_request(&mut BufReader::new(&raw[..]), &mut io::sink())
                .unwrap()
                .body,
            b"abcde"
        );
        let raw = b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok";
        let mut interim = Vec::new();
        assert_eq!(
            read_request(&mut BufReader::new(&raw[..]), &mut interim).unwrap().body,
            b"ok"
        );
        assert_eq!(interim, b"HTTP/1.1 100 Continue\r\n\r\n");
        let raw = b"NONSENSE\r\n\r\n";
        assert!(matches!(
            read_request(&mut BufReader::new(&raw[..]), &mut io::sink()),
            Err(ReadError::Bad(400, _))
        ));
    }
}
