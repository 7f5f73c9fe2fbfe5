//! Connections: the accept loop, the limits on each connection and on each
//! client, and the stop at Ctrl-C or SIGTERM: no new connection is taken,
//! each connection finishes the request it is answering and closes (a
//! search running sees the same signal and is answered 503 within a
//! watchdog tick), for at most [`DRAIN`].
//!
//! # One client must not take the server (issue 54)
//! The design is nginx's, for the same reason: a server whose connections
//! are a fixed table must decide who holds them, and waiting is not a
//! decision. Before it, the limit on connections was taken *before*
//! accepting: 1,100 keep-alive sockets of one client, each sending a
//! request every 5 s, held all 1,024 slots and no new client was accepted
//! for as long as they stayed (the 10 s head deadline restarted after
//! every answer, so they stayed for ever). Now:
//!
//! - **Accept first, then count** (nginx accepts and then finds a free
//!   connection). The accept loop never waits: every connection is taken
//!   off the listen queue at once and admitted or refused.
//! - **Idle connections are the reserve** (nginx's reusable connections,
//!   `ngx_drain_connections`): when [`Limits::max_connections`] are open,
//!   a new connection closes the connection idle the longest (no request
//!   in progress), so a client that holds sockets it does not use cannot
//!   keep a new client out; only when every connection is busy answering a
//!   request is the new one refused, with 503 and `Retry-After` (nginx
//!   refuses it too, when it has nothing to drain).
//! - **At most [`Limits::max_per_client`] connections a client address**
//!   (`limit_conn` keyed by `$binary_remote_addr`): past it, the client's
//!   own connection idle the longest is closed, else (all busy) the new
//!   one is refused with 503, so that one address never holds more than
//!   its share however it behaves.
//! - **Idle timeout** ([`Limits::idle_timeout`], `keepalive_timeout` and
//!   `client_header_timeout` in one: hyper's `header_read_timeout`): a
//!   connection that does not complete a request head within it, from its
//!   opening or from its last answer, is closed.
//! - **Requests and lifetime per connection** ([`Limits::max_requests`],
//!   `keepalive_requests`; [`Limits::max_lifetime`], `keepalive_time`): the
//!   answer to the last request allowed says `Connection: close`, and a
//!   connection older than its lifetime finishes the request it is
//!   answering and closes. A client that keeps its sockets busy therefore
//!   reconnects now and then, and each reconnection goes through the
//!   admission above.
//! - **Write timeout** ([`Limits::write_timeout`], nginx's `send_timeout`):
//!   a write that makes no progress for that long (a client that does not
//!   read its answers) closes the connection.
//! - **A listen queue of [`LISTEN_BACKLOG`]**, so that a client reopening
//!   every connection it loses cannot overflow the kernel's queue (a SYN
//!   dropped there is retried only a second later).
//! - A request head of at most [`MAX_HEAD`] bytes (hyper answers 431 past
//!   it) and no body at all (see [`super::api`]).
//!
//! A client that disconnects while its search runs has its future dropped
//! by hyper (it watches for the end of input while it answers); the
//! search pool stops the search then ([`super::searches`]), so that
//! clients that hang up do not hold the search workers.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::http::{header, HeaderValue, Request, Response};
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::time::Sleep;

use crate::interrupt;
use crate::service::Observer;

/// The largest request head read, in bytes (hyper's smallest buffer is
/// 8 KiB; a query is a few hundred bytes).
pub const MAX_HEAD: usize = 16 << 10;

/// How long the requests being answered at a stop get to finish.
pub const DRAIN: Duration = Duration::from_secs(5);

/// Connections the kernel holds for the accept loop (Linux caps it at
/// `net.core.somaxconn`, 4,096 by default). A connection that finds the
/// queue full has its SYN dropped and retries only after a second, so the
/// queue holds more than one client's connections at once: a client that
/// reopens every connection the server closes (up to
/// [`Limits::max_per_client`] and then some) cannot fill it alone.
pub const LISTEN_BACKLOG: u32 = 4096;

/// A listener on `addr` with a queue of [`LISTEN_BACKLOG`] (tokio's
/// `TcpListener::bind` takes 1,024).
///
/// # Errors
/// The address cannot be bound (in use, not this machine's).
pub fn listen(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As std's and tokio's bind do: a restarted server gets its port back
    // while the last one's connections are in TIME_WAIT.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// How often the accept loop looks at the signal flag.
const STOP_TICK: Duration = Duration::from_millis(100);

/// The limits on connections, each a flag of `kalah serve` (the defaults
/// are [`Limits::DEFAULT`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Connections open at once (the idle ones are closed to make room).
    pub max_connections: usize,
    /// Connections open at once from one client address.
    pub max_per_client: usize,
    /// Time to send a complete request head, from the opening of the
    /// connection or from the last answer.
    pub idle_timeout: Duration,
    /// Requests answered on one connection; the last is answered with
    /// `Connection: close`.
    pub max_requests: u64,
    /// Age past which a connection closes after the request it answers.
    pub max_lifetime: Duration,
    /// Time a write may make no progress before the connection is closed.
    pub write_timeout: Duration,
}

impl Limits {
    /// The defaults: 1,024 connections (as before), 128 a client address
    /// (twice the 64 connections of the load figure, scripts/bench_serve.sh),
    /// 10 s to send a head (as before), 1,000 requests (nginx's
    /// `keepalive_requests`) and 300 s a connection, 10 s for a write to
    /// make progress.
    pub const DEFAULT: Limits = Limits {
        max_connections: 1024,
        max_per_client: 128,
        idle_timeout: Duration::from_secs(10),
        max_requests: 1000,
        max_lifetime: Duration::from_secs(300),
        write_timeout: Duration::from_secs(10),
    };
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::DEFAULT
    }
}

/// Serves `app` on every connection `listener` accepts until Ctrl-C or
/// SIGTERM, within `limits`, then lets the requests being answered finish
/// (at most [`DRAIN`]). A failed accept (out of file descriptors) is told
/// to `observer` and retried after a pause, never fatal.
pub async fn accept_until_stopped(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    observer: &dyn Observer,
) {
    let table = Arc::new(Table::new(limits));
    accept(&listener, &app, &table, observer).await;
    drop(listener);
    observer.note("stopping: finishing the requests being answered");
    table.close_all();
    let deadline = Instant::now() + DRAIN;
    while table.open() > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The accept loop, until the signal.
async fn accept(listener: &TcpListener, app: &Router, table: &Arc<Table>, observer: &dyn Observer) {
    let mut tick = tokio::time::interval(STOP_TICK);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = tick.tick() => {
                if interrupt::requested() { return; }
                continue;
            }
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                observer.note(&format!("cannot accept a connection: {e}"));
                tokio::time::sleep(STOP_TICK).await;
                continue;
            }
        };
        let Some(slot) = Table::admit(table, peer) else {
            refuse(&stream);
            continue;
        };
        tokio::spawn(serve_connection(stream, app.clone(), slot));
    }
}

/// What a refused connection is told, if its socket takes it at once (it
/// is closed either way): 503, as nginx's `limit_conn` answers.
fn refuse(stream: &TcpStream) {
    const BODY: &str = "{\"error\":\"too many connections busy at once: try again in a moment\"}";
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let _ = stream.try_write(response.as_bytes());
}

/// One connection, served until it closes: by the client, by an error, by
/// its limits, or when told to (eviction or the stop, both through its
/// `evict`).
async fn serve_connection(stream: TcpStream, app: Router, slot: Slot) {
    let limits = slot.table.limits;
    // Answers are small and each is a whole response: send at once.
    let _ = stream.set_nodelay(true);
    let io = WriteDeadline::new(stream, limits.write_timeout);
    let service = Tracked {
        inner: TowerToHyperService::new(app),
        state: Arc::clone(&slot.state),
        max_requests: limits.max_requests,
        epoch: slot.table.epoch,
    };
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .max_buf_size(MAX_HEAD)
        .header_read_timeout(limits.idle_timeout)
        .keep_alive(true)
        .serve_connection(TokioIo::new(io), service);
    tokio::pin!(connection);
    let lifetime = tokio::time::sleep(limits.max_lifetime);
    tokio::pin!(lifetime);
    let mut closing = false;
    loop {
        tokio::select! {
            // A connection that fails (a client gone, a malformed or
            // oversized request, a write timeout) concerns that client
            // alone.
            _ = connection.as_mut() => break,
            () = slot.state.evict.notified(), if !closing => closing = true,
            () = &mut lifetime, if !closing => closing = true,
        }
        if closing {
            // The request being answered (if any) is finished, then the
            // connection closes; an idle one closes at once.
            connection.as_mut().graceful_shutdown();
        }
    }
    drop(slot);
}

/// Milliseconds since `epoch`, for the idle-since stamps.
fn millis_since(epoch: Instant) -> u64 {
    epoch.elapsed().as_millis() as u64
}

/// What the table and the connection's task share about one connection.
struct ConnState {
    /// Requests being answered (0 or 1 without pipelining).
    busy: AtomicUsize,
    /// When it last finished an answer (or opened), in ms since the
    /// table's epoch: the idle connection with the smallest is closed
    /// first.
    idle_since: AtomicU64,
    /// Told when the connection is chosen to close.
    evict: Notify,
    /// Requests taken so far.
    requests: AtomicU64,
}

/// Every open connection, by id, and the count of each client address.
struct Table {
    limits: Limits,
    epoch: Instant,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    next: u64,
    open: HashMap<u64, (IpAddr, Arc<ConnState>)>,
    per_client: HashMap<IpAddr, usize>,
}

/// An admitted connection's place in the table, given back when dropped.
struct Slot {
    table: Arc<Table>,
    id: u64,
    state: Arc<ConnState>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.table.lock().remove(self.id);
    }
}

impl Inner {
    /// Takes connection `id` out of the count (it may be out already:
    /// evicted).
    fn remove(&mut self, id: u64) {
        if let Some((ip, _)) = self.open.remove(&id) {
            if let Some(n) = self.per_client.get_mut(&ip) {
                *n -= 1;
                if *n == 0 {
                    self.per_client.remove(&ip);
                }
            }
        }
    }

    /// The connection idle the longest (of `ip` alone, if given).
    fn longest_idle(&self, ip: Option<IpAddr>) -> Option<u64> {
        self.open
            .iter()
            .filter(|(_, (a, s))| {
                ip.is_none_or(|ip| ip == *a) && s.busy.load(Ordering::SeqCst) == 0
            })
            .min_by_key(|(_, (_, s))| s.idle_since.load(Ordering::SeqCst))
            .map(|(id, _)| *id)
    }

    /// Closes connection `id` to make room: out of the count at once, its
    /// task told to close.
    fn evict(&mut self, id: u64) {
        if let Some((_, state)) = self.open.get(&id) {
            state.evict.notify_one();
        }
        self.remove(id);
    }
}

impl Table {
    fn new(limits: Limits) -> Table {
        Table {
            limits,
            epoch: Instant::now(),
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves counts that are still
        // counts: go on with them.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Tells every open connection to close (the stop): each finishes the
    /// request it is answering. Through each connection's own `evict`, so
    /// that a connection's task polls nothing shared with the others at
    /// each wake-up (a stop channel shared by all would take one lock for
    /// every connection at every request).
    fn close_all(&self) {
        for (_, state) in self.lock().open.values() {
            state.evict.notify_one();
        }
    }

    /// Connections open.
    fn open(&self) -> usize {
        self.lock().open.len()
    }

    /// Admits a connection from `peer`, closing an idle one if a limit is
    /// reached; `None` when it must be refused (every connection in its way
    /// busy).
    fn admit(table: &Arc<Table>, peer: SocketAddr) -> Option<Slot> {
        let ip = peer.ip();
        let limits = table.limits;
        let mut inner = table.lock();
        if inner.per_client.get(&ip).copied().unwrap_or(0) >= limits.max_per_client.max(1) {
            let victim = inner.longest_idle(Some(ip))?;
            inner.evict(victim);
        }
        if inner.open.len() >= limits.max_connections.max(1) {
            let victim = inner.longest_idle(None)?;
            inner.evict(victim);
        }
        let state = Arc::new(ConnState {
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(millis_since(table.epoch)),
            evict: Notify::new(),
            requests: AtomicU64::new(0),
        });
        let id = inner.next;
        inner.next += 1;
        inner.open.insert(id, (ip, Arc::clone(&state)));
        *inner.per_client.entry(ip).or_insert(0) += 1;
        Some(Slot {
            table: Arc::clone(table),
            id,
            state,
        })
    }
}

/// The router, with the connection marked busy while it answers and the
/// last request allowed answered with `Connection: close`.
struct Tracked<S> {
    inner: S,
    state: Arc<ConnState>,
    max_requests: u64,
    epoch: Instant,
}

/// Marks a connection idle again when its answer is ready (or dropped: a
/// client gone).
struct Busy {
    state: Arc<ConnState>,
    epoch: Instant,
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.state
            .idle_since
            .store(millis_since(self.epoch), Ordering::SeqCst);
        self.state.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

impl<S, B> hyper::service::Service<Request<Incoming>> for Tracked<S>
where
    S: hyper::service::Service<Request<Incoming>, Response = Response<B>>,
    S::Future: Send + 'static,
    S::Error: 'static,
    B: 'static,
{
    type Response = Response<B>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<B>, S::Error>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        self.state.busy.fetch_add(1, Ordering::SeqCst);
        let busy = Busy {
            state: Arc::clone(&self.state),
            epoch: self.epoch,
        };
        let taken = self.state.requests.fetch_add(1, Ordering::SeqCst) + 1;
        let last = taken >= self.max_requests;
        let answer = self.inner.call(request);
        Box::pin(async move {
            let mut response = answer.await?;
            if last {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            drop(busy);
            Ok(response)
        })
    }
}

/// A stream whose writes fail with `TimedOut` when one makes no progress
/// for `limit` (nginx's `send_timeout`: between two successive writes, not
/// for the whole answer).
struct WriteDeadline {
    stream: TcpStream,
    limit: Duration,
    /// Armed when a write (or flush) first waits; cleared by progress.
    timer: Option<Pin<Box<Sleep>>>,
}

impl WriteDeadline {
    fn new(stream: TcpStream, limit: Duration) -> WriteDeadline {
        WriteDeadline {
            stream,
            limit,
            timer: None,
        }
    }

    /// `poll` of a write, with the deadline: progress clears the timer, a
    /// wait arms it, a wait past it fails.
    fn deadline<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(Pin<&mut TcpStream>, &mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match poll(Pin::new(&mut self.stream), cx) {
            Poll::Ready(r) => {
                self.timer = None;
                Poll::Ready(r)
            }
            Poll::Pending => {
                let limit = self.limit;
                let timer = self
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client read nothing for the write timeout",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl AsyncRead for WriteDeadline {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteDeadline {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.deadline(cx, |s, cx| s.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.deadline(cx, |s, cx| s.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.deadline(cx, |s, cx| s.poll_flush(cx))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.deadline(cx, |s, cx| s.poll_shutdown(cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(ip: &str) -> SocketAddr {
        SocketAddr::new(ip.parse().expect("ip"), 40000)
    }

    fn table(max_connections: usize, max_per_client: usize) -> Arc<Table> {
        Arc::new(Table::new(Limits {
            max_connections,
            max_per_client,
            ..Limits::DEFAULT
        }))
    }

    fn busy(slot: &Slot) {
        slot.state.busy.store(1, Ordering::SeqCst);
    }

    #[test]
    fn a_client_at_its_limit_loses_its_longest_idle_connection_not_others() {
        let t = table(100, 3);
        let a: Vec<Slot> = (0..3)
            .map(|_| Table::admit(&t, peer("127.0.0.2")).expect("admitted"))
            .collect();
        let b = Table::admit(&t, peer("127.0.0.3")).expect("another client");
        // a's fourth: its oldest idle (the first) makes room.
        a[0].state.idle_since.store(0, Ordering::SeqCst);
        for s in &a[1..] {
            s.state.idle_since.store(10, Ordering::SeqCst);
        }
        let a4 = Table::admit(&t, peer("127.0.0.2")).expect("admitted by eviction");
        assert_eq!(t.open(), 4);
        assert!(
            !t.lock().open.contains_key(&a[0].id),
            "a's longest idle out"
        );
        assert!(t.lock().open.contains_key(&b.id), "b untouched");
        // Every one of a's busy: a's next is refused, b's is not.
        for s in a[1..].iter().chain([&a4]) {
            busy(s);
        }
        assert!(Table::admit(&t, peer("127.0.0.2")).is_none());
        assert!(Table::admit(&t, peer("127.0.0.3")).is_some());
        drop(a);
        assert_eq!(t.lock().per_client.get(&peer("127.0.0.2").ip()), Some(&1));
    }

    #[test]
    fn a_full_table_closes_the_longest_idle_and_refuses_only_when_all_are_busy() {
        let t = table(2, 10);
        let first = Table::admit(&t, peer("127.0.0.2")).expect("first");
        let second = Table::admit(&t, peer("127.0.0.3")).expect("second");
        second.state.idle_since.store(u64::MAX, Ordering::SeqCst);
        let third = Table::admit(&t, peer("127.0.0.4")).expect("room made");
        assert!(!t.lock().open.contains_key(&first.id));
        assert_eq!(t.open(), 2);
        busy(&second);
        busy(&third);
        assert!(Table::admit(&t, peer("127.0.0.5")).is_none());
        drop(third);
        assert!(Table::admit(&t, peer("127.0.0.5")).is_some());
    }
}
