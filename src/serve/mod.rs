//! `kalah serve`: the service over HTTP, and one web page to explore any
//! position with it.
//!
//! - [`catalog`]: the endgame tables of every board size and rule set,
//!   opened and checked once at start;
//! - [`kept`]: the values the searches found, kept (bounded), so that a
//!   position asked again is answered at once;
//! - [`searches`]: the bounded pool of search workers for positions outside
//!   the tables, each search with a time budget;
//! - [`api`]: the routes `/api/v1/query`, `/api/v1/solve` and
//!   `/api/v1/play` (JSON, docs/json.md);
//! - [`page`]: the page at `/` and its script and style, compiled into the
//!   binary (no file system path is ever served, nothing is fetched from
//!   elsewhere: the page works offline);
//! - [`http`]: connections, the limits on each connection and each
//!   client (so that one client cannot keep the others out), the accept
//!   loop and its stop.
//!
//! # The HTTP stack
//! axum's router over hyper's HTTP/1 connections on a tokio runtime, as
//! lichess's tablebase server (lila-tablebase) does. The load is many
//! keep-alive connections each asking for answers of a few microseconds
//! from the mapped tables: an event loop on one thread a core serves
//! thousands of them without a thread each, where a synchronous server
//! (tiny_http and the like) parks a thread per connection or serialises
//! them behind one. Searches, which take up to the budget, run on
//! blocking threads of their own ([`searches`]), so a look-up never waits
//! behind one: it never shares a thread or a queue with a search, only the
//! cores. hyper gives the limits the issue asks for (the size of a request
//! head, a deadline to send it) and a tested HTTP/1 parser; [`http`] the
//! limits it does not (per client, per connection, on writes); axum gives
//! routing, HEAD for every GET and 405 for every other method.
//!
//! The server prints nothing itself: what it has to say goes to the front
//! end's [`crate::service::Observer`].

pub mod api;
pub mod catalog;
pub mod http;
pub mod kept;
pub mod page;
pub mod searches;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use kalah_solver::search::SearchConfig;

use crate::service::position::Budget;
use crate::service::setup::TablePolicy;
use crate::service::{Error, Observer};
use catalog::Catalog;
use searches::SearchPool;

/// What `kalah serve` was asked for.
#[derive(Clone, Debug)]
pub struct Config {
    /// The address to listen on (127.0.0.1:8080 unless told otherwise).
    pub bind: SocketAddr,
    /// The endgame tables to answer from.
    pub tables: TablePolicy,
    /// At most this many searches run at once; a request that finds them
    /// all busy is refused at once (503), never queued.
    pub search_workers: usize,
    /// Each search's time budget.
    pub time_limit: Duration,
    /// Each search's transposition table, in MiB.
    pub tt_mb: usize,
    /// Threads that serve connections (and answer from the tables).
    pub http_threads: usize,
    /// The limits on connections and on each client ([`http::Limits`]).
    pub limits: http::Limits,
    /// Boards whose values the searches found kept at most ([`kept`]).
    pub keep_answers: usize,
}

impl Config {
    /// The budget of one search: one thread (the pool is the parallelism),
    /// the configured transposition table and time limit.
    pub fn budget(&self) -> Budget {
        Budget {
            config: SearchConfig {
                tt_mb: self.tt_mb.max(1),
                threads: 1,
                ..SearchConfig::default()
            },
            time_limit: Some(self.time_limit),
        }
    }
}

/// Everything a request needs, shared by all of them.
pub struct Server {
    pub catalog: Catalog,
    pub searches: SearchPool,
    pub kept: kept::Kept,
}

/// Opens the tables, binds `config.bind`, calls `ready` with the address
/// bound (port 0 picks a free one) and the tables, and serves until Ctrl-C
/// or SIGTERM ([`crate::interrupt`]); then it stops accepting, stops the
/// running searches and returns.
///
/// # Errors
/// A table directory that was named but does not exist, a damaged table
/// file (naming it), an address that cannot be bound, or an error from
/// `ready`.
pub fn serve(
    config: &Config,
    observer: &dyn Observer,
    ready: impl FnOnce(SocketAddr, &Catalog) -> Result<(), Error>,
) -> Result<(), Error> {
    let catalog = Catalog::open(&config.tables)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.http_threads.max(1))
        // The pool's permits bound the searches; one more thread for
        // anything else that blocks.
        .max_blocking_threads(config.search_workers.max(1) + 1)
        .enable_all()
        .build()
        .map_err(|e| Error::Failure(format!("cannot start the server's threads: {e}")))?;
    runtime.block_on(async {
        let listener = http::listen(config.bind)
            .map_err(|e| Error::Failure(format!("cannot listen on {}: {e}", config.bind)))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Error::Failure(format!("cannot listen on {}: {e}", config.bind)))?;
        let server = Arc::new(Server {
            catalog,
            searches: SearchPool::new(config.search_workers, config.budget()),
            kept: kept::Kept::new(config.keep_answers),
        });
        ready(addr, &server.catalog)?;
        http::accept_until_stopped(listener, api::router(server), config.limits, observer).await;
        Ok::<(), Error>(())
    })?;
    // Searches still running see the signal within a watchdog tick.
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}
