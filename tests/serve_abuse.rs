//! `kalah serve` under one abusive client (issue 54, item 1): a fresh
//! client's in-table query is answered within 1 s at every probe while
//! the abuser holds 1,100 keep-alive connections that each send a request
//! every 5 s, or 1,100 silent sockets, reopening every one as soon as the
//! server closes it. Before the fix the server took its 1,024 connection
//! slots before accepting, so the abuser's sockets held every slot and the
//! probes waited for the whole attack (and 9 s past it).
//!
//! Everything runs on loopback: the server on 127.0.0.1, the abuser's
//! sockets bound to 127.0.0.2 (another client address: Linux routes all of
//! 127.0.0.0/8 to loopback), the probes from 127.0.0.1. The tests here run
//! for 10 s of attack each; the 35 s, and an abuser sharing the
//! probes' address, are the `#[ignore]`d ones (scripts/slow_tests.sh runs
//! them). In a file of its own: its timing must not share the cores with
//! other tests of the same binary, and the two attacks run one at a time.

mod serve_common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kalah::Rules;
use serve_common::{tables, Server};
use tokio::net::{TcpSocket, TcpStream as AsyncStream};

/// A position of Kalah(2,1) inside the 4-seed tables.
const QUERY: &str = "/api/v1/query?position=1+1+0+1+1+0+S";

/// One test at a time: two attacks at once would measure each other.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// What the abuser does with each of its sockets.
#[derive(Clone, Copy, Debug)]
enum Abuse {
    /// A keep-alive request every `every`, reading each answer.
    KeepAlive { every: Duration },
    /// Nothing at all: connected and silent.
    Silent,
}

/// What the abuser saw.
#[derive(Default)]
struct Seen {
    connects: AtomicU64,
    answers: AtomicU64,
}

/// Reads what is there (at least a byte, or 0 at the end).
async fn read_some(conn: &AsyncStream, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        conn.readable().await?;
        match conn.try_read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            read => return read,
        }
    }
}

/// Writes all of `bytes`.
async fn write_all(conn: &AsyncStream, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        conn.writable().await?;
        match conn.try_write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `sockets` connections from `from` to `addr`, each reopened as soon as
/// it is closed, doing `abuse`, until `stop`.
fn abuser(
    addr: SocketAddr,
    from: SocketAddr,
    sockets: usize,
    abuse: Abuse,
    stop: Arc<AtomicBool>,
    seen: Arc<Seen>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let mut tasks = Vec::with_capacity(sockets);
            for k in 0..sockets {
                let stop = Arc::clone(&stop);
                let seen = Arc::clone(&seen);
                tasks.push(tokio::spawn(async move {
                    // Spread the requests over the period, as 1,100
                    // independent clients would.
                    let offset = Duration::from_millis((k as u64 * 4999) / sockets as u64);
                    while !stop.load(Ordering::SeqCst) {
                        let Ok(socket) = TcpSocket::new_v4() else {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                            continue;
                        };
                        let _ = socket.bind(from);
                        let Ok(conn) = socket.connect(addr).await else {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                            continue;
                        };
                        seen.connects.fetch_add(1, Ordering::Relaxed);
                        let mut buf = vec![0u8; 4096];
                        match abuse {
                            Abuse::Silent => {
                                // Until the server closes it (or the end).
                                while !stop.load(Ordering::SeqCst) {
                                    let read = tokio::time::timeout(
                                        Duration::from_millis(200),
                                        read_some(&conn, &mut buf),
                                    )
                                    .await;
                                    if let Ok(Ok(0) | Err(_)) = read {
                                        break;
                                    }
                                }
                            }
                            Abuse::KeepAlive { every } => {
                                tokio::time::sleep(offset).await;
                                let request =
                                    format!("GET {QUERY} HTTP/1.1\r\nHost: abuser\r\n\r\n");
                                while !stop.load(Ordering::SeqCst) {
                                    if write_all(&conn, request.as_bytes()).await.is_err() {
                                        break;
                                    }
                                    // An answer is one small read; 0 is a close.
                                    match read_some(&conn, &mut buf).await {
                                        Ok(n) if n > 0 => {
                                            seen.answers.fetch_add(1, Ordering::Relaxed)
                                        }
                                        _ => break,
                                    };
                                    tokio::time::sleep(every).await;
                                }
                            }
                        }
                    }
                }));
            }
            for t in tasks {
                let _ = t.await;
            }
        });
    })
}

/// A fresh client's in-table query on a new connection from 127.0.0.1:
/// its status and the time from connect to the whole answer.
fn probe(addr: SocketAddr) -> (Option<u16>, Duration) {
    let t = Instant::now();
    let status = (|| -> std::io::Result<u16> {
        let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
        s.set_read_timeout(Some(Duration::from_secs(5)))?;
        write!(
            s,
            "GET {QUERY} HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n"
        )?;
        let mut answer = String::new();
        s.read_to_string(&mut answer)?;
        answer
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("no status: {answer:?}")))
    })();
    (status.ok(), t.elapsed())
}

/// The sockets this process may open besides its other files: the soft
/// limit on open files (from /proc/self/limits, Linux) less a margin; an
/// attack is scaled down to it (a machine at the common 1,024 default
/// runs 768 sockets, and says so) rather than failing on its own probes.
fn socket_budget() -> usize {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let soft = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1024);
    soft.saturating_sub(256).max(64)
}

/// Runs `abuse` with `sockets` sockets from `from` for `attack`, probing
/// every 250 ms from 127.0.0.1 once the abuser's sockets are open; every
/// probe must be answered 200 within 1 s.
fn attack(name: &str, sockets: usize, from: &str, abuse: Abuse, attack: Duration) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let budget = socket_budget();
    if sockets > budget {
        eprintln!("{name}: {sockets} sockets scaled to {budget} (the limit on open files)");
    }
    let sockets = sockets.min(budget);
    let dir = tables(name, 2, 4, &[Rules::STANDARD]);
    let server = Server::start(&dir, &[]);
    let addr: SocketAddr = server.addr.parse().expect("server address");
    let from: SocketAddr = format!("{from}:0").parse().expect("abuser address");
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Seen::default());
    let abuser = abuser(
        addr,
        from,
        sockets,
        abuse,
        Arc::clone(&stop),
        Arc::clone(&seen),
    );
    // The probes start as the abuser's sockets open: on the code before
    // the fix they took every slot within the first few hundred ms.
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    let mut probes = Vec::new();
    while start.elapsed() < attack {
        probes.push(probe(addr));
        std::thread::sleep(Duration::from_millis(250));
    }
    stop.store(true, Ordering::SeqCst);
    abuser.join().expect("abuser");
    let worst = probes.iter().map(|p| p.1).max().unwrap_or_default();
    eprintln!(
        "{name}: {} probes, worst {:.3} s; abuser: {} connects, {} answers",
        probes.len(),
        worst.as_secs_f64(),
        seen.connects.load(Ordering::Relaxed),
        seen.answers.load(Ordering::Relaxed)
    );
    for (k, (status, took)) in probes.iter().enumerate() {
        assert_eq!(*status, Some(200), "{name}: probe {k} after {took:?}");
        assert!(
            *took < Duration::from_secs(1),
            "{name}: probe {k} took {took:?}"
        );
    }
    assert!(probes.len() >= 10, "{name}: {} probes", probes.len());
    assert!(
        seen.connects.load(Ordering::Relaxed) >= sockets as u64,
        "{name}: the abuser opened {} sockets",
        seen.connects.load(Ordering::Relaxed)
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

const EVERY_5_S: Abuse = Abuse::KeepAlive {
    every: Duration::from_secs(5),
};

#[test]
fn keep_alive_sockets_of_one_client_leave_room_for_another() {
    attack(
        "keepalive",
        1100,
        "127.0.0.2",
        EVERY_5_S,
        Duration::from_secs(10),
    );
}

#[test]
fn silent_sockets_reopened_on_close_leave_room_for_another() {
    attack(
        "silent",
        1100,
        "127.0.0.2",
        Abuse::Silent,
        Duration::from_secs(10),
    );
}

#[test]
#[ignore = "35 s of attack: scripts/slow_tests.sh"]
fn keep_alive_attack_full_length() {
    attack(
        "keepalive-35",
        1100,
        "127.0.0.2",
        EVERY_5_S,
        Duration::from_secs(35),
    );
}

#[test]
#[ignore = "35 s of attack: scripts/slow_tests.sh"]
fn silent_attack_full_length() {
    attack(
        "silent-35",
        1100,
        "127.0.0.2",
        Abuse::Silent,
        Duration::from_secs(35),
    );
}

/// The abuser on the probes' own address: the probes' connections get in
/// by closing the abuser's connections idle the longest.
#[test]
#[ignore = "20 s of attack: scripts/slow_tests.sh"]
fn keep_alive_attack_from_the_same_address() {
    attack(
        "keepalive-same",
        1100,
        "127.0.0.1",
        EVERY_5_S,
        Duration::from_secs(20),
    );
}
