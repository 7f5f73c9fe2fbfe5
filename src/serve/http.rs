//! Connections: the accept loop, the limits on each connection, and the
//! stop at Ctrl-C or SIGTERM: no new connection is taken, each connection
//! finishes the request it is answering and closes (a search running sees
//! the same signal and is answered 503 within a watchdog tick), for at
//! most [`DRAIN`].
//!
//! Limits: a request head (request line and headers) of at most
//! [`MAX_HEAD`] bytes (hyper answers 431 past it), sent within
//! [`HEAD_DEADLINE`] (else the connection is closed), at most
//! [`MAX_CONNECTIONS`] connections at once (the next waits to be
//! accepted), and no body at all (see [`super::api`]).

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::interrupt;
use crate::service::Observer;

/// The largest request head read, in bytes (hyper's smallest buffer is
/// 8 KiB; a query is a few hundred bytes).
pub const MAX_HEAD: usize = 16 << 10;

/// How long a client has to send a request head once it starts one.
pub const HEAD_DEADLINE: Duration = Duration::from_secs(10);

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 1024;

/// How long the requests being answered at a stop get to finish.
pub const DRAIN: Duration = Duration::from_secs(5);

/// How often the accept loop looks at the signal flag.
const STOP_TICK: Duration = Duration::from_millis(100);

/// Serves `app` on every connection `listener` accepts until Ctrl-C or
/// SIGTERM, then lets the requests being answered finish (at most
/// [`DRAIN`]). A failed accept (out of file descriptors) is told to
/// `observer` and retried after a pause, never fatal.
pub async fn accept_until_stopped(listener: TcpListener, app: Router, observer: &dyn Observer) {
    let graceful = GracefulShutdown::new();
    accept(&listener, &app, &graceful, observer).await;
    drop(listener);
    observer.note("stopping: finishing the requests being answered");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN) => {}
    }
}

/// The accept loop, until the signal.
async fn accept(
    listener: &TcpListener,
    app: &Router,
    graceful: &GracefulShutdown,
    observer: &dyn Observer,
) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut tick = tokio::time::interval(STOP_TICK);
    loop {
        let slot = tokio::select! {
            slot = Arc::clone(&slots).acquire_owned() => slot,
            _ = tick.tick() => {
                if interrupt::requested() { return; }
                continue;
            }
        };
        let Ok(slot) = slot else { return };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = tick.tick() => {
                if interrupt::requested() { return; }
                continue;
            }
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                observer.note(&format!("cannot accept a connection: {e}"));
                tokio::time::sleep(STOP_TICK).await;
                continue;
            }
        };
        // Answers are small and each is a whole response: send at once.
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .max_buf_size(MAX_HEAD)
            .header_read_timeout(HEAD_DEADLINE)
            .keep_alive(true)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _slot = slot;
            // A connection that fails (a client gone, a malformed or
            // oversized request) concerns that client alone.
            let _ = connection.await;
        });
    }
}
