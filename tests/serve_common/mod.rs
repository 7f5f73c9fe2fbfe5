//! What the tests of `kalah serve` share: a server on a free loopback
//! port, small endgame tables, an HTTP client and random positions.
#![allow(dead_code)]

pub mod http;
pub mod positions;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::Duration;

use kalah::table::{build_tables, BuildConfig};
use kalah::Rules;

/// A `kalah serve` child process on 127.0.0.1 and a free port, killed when
/// dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// What it printed on its first lines (the address, the tables).
    pub banner: Vec<String>,
}

impl Server {
    /// Starts `kalah serve --bind 127.0.0.1:0 --tables DIR ARGS` and waits
    /// for its first line, which names the port.
    ///
    /// # Panics
    /// If it does not say where it listens within 60 s.
    pub fn start(tables: &Path, args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kalah"))
            .args(["serve", "--bind", "127.0.0.1:0", "--tables"])
            .arg(tables)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start kalah serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let first = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("kalah serve says where it listens");
        let addr = first
            .strip_prefix("listening on http://")
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("first line: {first}"))
            .to_string();
        let mut banner = vec![first];
        while let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
            banner.push(l);
        }
        Server {
            child,
            addr,
            banner,
        }
    }

    /// Sends it SIGTERM (as a service manager stops it) and waits at most
    /// `patience` for it to exit; `None` if it did not.
    pub fn terminate(&mut self, patience: Duration) -> Option<std::process::ExitStatus> {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -TERM failed");
        let deadline = std::time::Instant::now() + patience;
        while std::time::Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// A new connection to it.
    pub fn connect(&self) -> http::Conn {
        http::Conn::connect(&self.addr).expect("connect to kalah serve")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh directory holding tables of `pits` houses up to `max_seeds`
/// seeds for each of `rules`.
pub fn tables(name: &str, pits: usize, max_seeds: u32, rules: &[Rules]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kalah-serve-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("table dir");
    for &rules in rules {
        let config = BuildConfig {
            pits,
            rules,
            max_seeds,
            threads: 2,
        };
        build_tables(&dir, &config, &(), &AtomicBool::new(false)).expect("build tables");
    }
    dir
}
