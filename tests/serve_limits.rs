//! `kalah serve`'s limits on each connection and each client (issue 54,
//! items 1 and 4), each with its flag set small so that the test takes
//! seconds: a search whose client hangs up frees its worker; a client that
//! does not read its answers is cut at the write timeout; a connection
//! closes after its requests, its lifetime and its idle time; a client at
//! its connection limit loses its connection idle the longest, and no
//! other client's. Loopback only (a second client address is 127.0.0.2).

mod serve_common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use kalah::Rules;
use serve_common::http::encode;
use serve_common::{tables, Server};

/// A board of Kalah(6,4) that no game reaches (48 seeds on the board, off
/// the start), so no opening book holds it: with tables of 2 houses only,
/// a search of hours.
const FAR: &str = "5 4 4 4 4 4 0 4 4 4 4 4 3 0 S";

/// An in-table position of Kalah(2,1).
const NEAR: &str = "/api/v1/query?position=1+1+0+1+1+0+S";

fn request(target: &str) -> String {
    format!("GET {target} HTTP/1.1\r\nHost: test\r\n\r\n")
}

/// Whether the server closed `s` within `within` (a read gives the end of
/// the stream or a reset; anything read first is skipped).
fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut buf = [0u8; 65536];
    loop {
        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
            return false;
        };
        s.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .expect("timeout");
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return false
            }
            Err(_) => return true,
        }
    }
}

/// One response's head and body on `s` (its Content-Length), as text.
fn response(s: &mut TcpStream) -> String {
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while !got.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => got.push(byte[0]),
            _ => return String::from_utf8_lossy(&got).into_owned(),
        }
    }
    let head = String::from_utf8_lossy(&got).into_owned();
    let len: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().to_string())
        })
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    let _ = s.read_exact(&mut body);
    head + &String::from_utf8_lossy(&body)
}

/// Issue 54, item 4: a search whose HTTP client has gone is stopped, so
/// that clients that send far positions and hang up cannot keep other
/// searches at 503 (before, the search kept its worker to its time limit).
#[test]
fn a_search_whose_client_hangs_up_frees_its_worker() {
    let dir = tables("hangup", 2, 4, &[Rules::STANDARD]);
    let server = Server::start(&dir, &["--search-workers", "1", "--time-limit", "120"]);
    let target = format!("/api/v1/query?position={}", encode(FAR));
    for round in 0..3 {
        // A client sends a far position and hangs up.
        let mut gone = TcpStream::connect(&server.addr).expect("connect");
        gone.write_all(request(&target).as_bytes()).expect("send");
        thread::sleep(Duration::from_millis(300));
        drop(gone);
        // The next search gets the worker: its answer does not come (it
        // searches), where a held worker answers 503 at once.
        let t = Instant::now();
        let mut next = TcpStream::connect(&server.addr).expect("connect");
        let freed = loop {
            next.write_all(request(&target).as_bytes()).expect("send");
            next.set_read_timeout(Some(Duration::from_millis(1500)))
                .expect("timeout");
            let mut buf = [0u8; 512];
            match next.read(&mut buf) {
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    break true
                }
                Ok(n) if n > 0 && t.elapsed() < Duration::from_secs(3) => {
                    let text = String::from_utf8_lossy(&buf[..n]);
                    assert!(text.contains(" 503 "), "{text}");
                    // Busy still: the stop takes a watchdog tick.
                    let _ = response_rest(&mut next);
                    thread::sleep(Duration::from_millis(100));
                }
                _ => break false,
            }
        };
        assert!(
            freed,
            "round {round}: the worker stayed busy after its client left"
        );
        // This client hangs up too, for the next round.
        drop(next);
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whatever is left of a response already begun (it is small).
fn response_rest(s: &mut TcpStream) -> usize {
    s.set_read_timeout(Some(Duration::from_millis(100)))
        .expect("timeout");
    let mut buf = [0u8; 4096];
    s.read(&mut buf).unwrap_or(0)
}

/// A client that pipelines requests and never reads is cut at the write
/// timeout: the answers it gets when it reads at last stop short of its
/// requests and end in a close (before, the connection stayed open, every
/// answer waiting for it).
#[test]
fn a_client_that_does_not_read_is_cut_at_the_write_timeout() {
    cut_at_the_write_timeout("write", &["--write-timeout", "1"], Duration::from_secs(3));
}

/// The same with the default write timeout (10 s), which the server
/// before issue 54 fails for want of any.
#[test]
#[ignore = "13 s: scripts/slow_tests.sh"]
fn a_client_that_does_not_read_is_cut_at_the_default_write_timeout() {
    cut_at_the_write_timeout("write-default", &[], Duration::from_secs(13));
}

fn cut_at_the_write_timeout(name: &str, args: &[&str], silent: Duration) {
    let dir = tables(name, 2, 4, &[Rules::STANDARD]);
    let server = Server::start(&dir, args);
    let mut s = TcpStream::connect(&server.addr).expect("connect");
    let mut writer = s.try_clone().expect("clone");
    let requests = 4000;
    // 4,000 requests for the script (13 KB each): 50 MB of answers, far
    // more than the sockets' buffers hold.
    let sender = thread::spawn(move || {
        let r = request("/app.js").repeat(requests);
        let _ = writer.write_all(r.as_bytes());
    });
    thread::sleep(silent);
    let mut got = Vec::new();
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    // The end of the stream or a reset; a read timeout is no close.
    let ended = match s.read_to_end(&mut got) {
        Ok(_) => true,
        Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
    };
    let answers = String::from_utf8_lossy(&got)
        .matches("HTTP/1.1 200")
        .count();
    eprintln!("{answers} answers of {requests} before the close");
    assert!(ended, "the connection was not closed");
    assert!(answers < requests, "{answers} answers: nothing was cut");
    let _ = sender.join();
    // The server serves others as before.
    let mut other = server.connect();
    assert_eq!(other.get(NEAR).expect("query").status, 200);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--max-requests-per-connection`: the last answer says close, and the
/// connection closes; `--max-connection-lifetime`: a connection past it
/// closes after its answer; `--idle-timeout`: a silent one closes.
#[test]
fn a_connection_closes_after_its_requests_its_lifetime_and_its_idle_time() {
    let dir = tables("perconn", 2, 4, &[Rules::STANDARD]);
    let server = Server::start(
        &dir,
        &[
            "--max-requests-per-connection",
            "3",
            "--max-connection-lifetime",
            "1.5",
            "--idle-timeout",
            "1",
        ],
    );
    // Three requests, the third answered with Connection: close.
    let mut s = TcpStream::connect(&server.addr).expect("connect");
    for k in 1..=3 {
        s.write_all(request(NEAR).as_bytes()).expect("send");
        let r = response(&mut s);
        assert!(r.starts_with("HTTP/1.1 200"), "request {k}: {r}");
        assert_eq!(
            r.to_ascii_lowercase().contains("connection: close"),
            k == 3,
            "request {k}: {r}"
        );
    }
    assert!(closed_within(&mut s, Duration::from_secs(1)));

    // Requests every 0.6 s (inside the idle timeout): the connection
    // closes once it is older than 1.5 s, after at most 3 answers.
    let mut s = TcpStream::connect(&server.addr).expect("connect");
    let t = Instant::now();
    let mut answered = 0;
    while t.elapsed() < Duration::from_secs(4) {
        if s.write_all(request(NEAR).as_bytes()).is_err() {
            break;
        }
        let r = response(&mut s);
        if !r.starts_with("HTTP/1.1 200") {
            break;
        }
        answered += 1;
        thread::sleep(Duration::from_millis(600));
    }
    let lived = t.elapsed();
    assert!(answered <= 3, "{answered} answers in {lived:?}");
    assert!(lived < Duration::from_secs(3), "lived {lived:?}");

    // Silent: closed after the idle timeout, well before the old 10 s.
    let mut s = TcpStream::connect(&server.addr).expect("connect");
    let t = Instant::now();
    assert!(closed_within(&mut s, Duration::from_secs(3)));
    assert!(
        t.elapsed() >= Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--max-connections-per-client`: a client's connection past the limit
/// closes that client's connection idle the longest, and leaves another
/// client's alone.
#[test]
fn a_client_at_its_limit_loses_its_longest_idle_connection() {
    let dir = tables("perclient", 2, 4, &[Rules::STANDARD]);
    let server = Server::start(&dir, &["--max-connections-per-client", "4"]);
    let addr: SocketAddr = server.addr.parse().expect("address");
    // std cannot bind a socket before connecting it: tokio's can.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let connect = |ip: &str| -> TcpStream {
        runtime.block_on(async {
            let socket = tokio::net::TcpSocket::new_v4().expect("socket");
            socket
                .bind(format!("{ip}:0").parse().expect("ip"))
                .expect("bind");
            let s = socket.connect(addr).await.expect("connect");
            let s = s.into_std().expect("std");
            s.set_nonblocking(false).expect("blocking");
            s
        })
    };
    let mut other = connect("127.0.0.3");
    let mut mine: Vec<TcpStream> = Vec::new();
    for _ in 0..4 {
        mine.push(connect("127.0.0.2"));
        thread::sleep(Duration::from_millis(50));
    }
    // Each has answered once; the first is idle the longest.
    for s in &mut mine {
        s.write_all(request(NEAR).as_bytes()).expect("send");
        assert!(response(s).starts_with("HTTP/1.1 200"));
        thread::sleep(Duration::from_millis(50));
    }
    let mut fifth = connect("127.0.0.2");
    fifth.write_all(request(NEAR).as_bytes()).expect("send");
    assert!(response(&mut fifth).starts_with("HTTP/1.1 200"));
    assert!(
        closed_within(&mut mine[0], Duration::from_secs(2)),
        "the longest idle was not closed"
    );
    for s in mine.iter_mut().skip(1) {
        s.write_all(request(NEAR).as_bytes()).expect("send");
        assert!(response(s).starts_with("HTTP/1.1 200"));
    }
    other.write_all(request(NEAR).as_bytes()).expect("send");
    assert!(response(&mut other).starts_with("HTTP/1.1 200"));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
