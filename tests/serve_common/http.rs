//! A keep-alive HTTP/1.1 client for GET requests, blocking, over one
//! `TcpStream`: what the tests of `kalah serve` and its load generator
//! (examples/serve_load.rs) send. Hand-written rather than a client crate
//! so that the load generator spends next to nothing a request and what it
//! measures is the server: one write and the reads of one response.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One connection to the server, opened again after an answer that says
/// `Connection: close` (as any HTTP client does: the server closes a
/// connection after `--max-requests-per-connection` answers, or past its
/// lifetime).
pub struct Conn {
    stream: BufReader<TcpStream>,
    host: String,
    /// The last answer said `Connection: close`.
    closed: bool,
}

/// A response: status, headers (names lower-cased) and body.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn bad(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

impl Conn {
    /// Connects to `addr` (`host:port`), with a generous read timeout so
    /// that a hung server fails a test instead of hanging it.
    pub fn connect(addr: &str) -> io::Result<Conn> {
        Ok(Conn {
            stream: Self::open(addr)?,
            host: addr.to_string(),
            closed: false,
        })
    }

    fn open(addr: &str) -> io::Result<BufReader<TcpStream>> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        Ok(BufReader::with_capacity(16 << 10, stream))
    }

    /// `GET target` (a path with its query string, already encoded).
    pub fn get(&mut self, target: &str) -> io::Result<Response> {
        self.request("GET", target)
    }

    /// `method target` with no body; a HEAD response's body is not read.
    pub fn request(&mut self, method: &str, target: &str) -> io::Result<Response> {
        if self.closed {
            self.stream = Self::open(&self.host)?;
            self.closed = false;
        }
        let head = format!("{method} {target} HTTP/1.1\r\nHost: {}\r\n\r\n", self.host);
        self.stream.get_mut().write_all(head.as_bytes())?;
        let mut line = String::new();
        self.stream.read_line(&mut line)?;
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(format!("not an HTTP status line: {line:?}")))?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            if self.stream.read_line(&mut line)? == 0 {
                return Err(bad("connection closed inside a response head".into()));
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((n, v)) = l.split_once(':') {
                headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let len: usize = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; if method == "HEAD" { 0 } else { len }];
        self.stream.read_exact(&mut body)?;
        self.closed = headers
            .iter()
            .any(|(n, v)| n == "connection" && v.eq_ignore_ascii_case("close"));
        Ok(Response {
            status,
            headers,
            body,
        })
    }
}

/// `text` encoded for a query string: unreserved bytes as they are, a
/// space as `+`, every other byte `%XX`.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The `p`-th quantile (0..=1) of `sorted` (ascending, non-empty).
pub fn quantile<T: Copy>(sorted: &[T], p: f64) -> T {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}
