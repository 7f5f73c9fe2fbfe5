//! The MPI engine: rank 0 coordinates, ranks 1.. are workers. Launched by
//! `mpirun -n W+1` or by Slurm's `srun` (scripts/slurm/).
//!
//! Messages are arrays of `u64`, all between rank 0 and one worker (MPI
//! keeps their order per pair):
//!
//! ```text
//! tag 1 UNIT    0 -> w  [board low 64 bits, board high 64 bits, beta as i64, budget, seq, slot]
//!                       slot: which of the rank's workers searches it
//! tag 2 CANCEL  0 -> w  [seq]            stop unit seq if still running
//! tag 3 STOP    0 -> w  [0]              the run is over: leave
//! tag 4 REPLY   w -> 0  [seq, verdict, value, nodes, nanoseconds,
//!                        then for each known bound (worker::known):
//!                        board low 64 bits, board high 64 bits,
//!                        lower as i32 in bits 0..31 | upper as i32 in bits 32..63]
//!                       verdict: 0 cancelled, 1 at least, 2 below, 3 exact, 4 split
//!                       value: exact: the value as i64; split: the house
//!                       the search was in (worker::inside) plus one, 0 if
//!                       none; else 0
//!                       a bound of i32::MIN: that side unknown
//! tag 5 SHARE   w -> v  [two words an entry (Published::to_words)]
//!                       between worker ranks (solve --share-work): the
//!                       table entries of much work w's searches stored;
//!                       empty: w is leaving and sends no more
//! ```
//!
//! With `--share-work`, each worker rank sends the entries its searches
//! published ([`kalah_solver::search::share`]) to every other worker rank
//! at most every [`SHARE_EVERY`], and stores theirs in its table. A share
//! goes out as non-blocking sends, and a rank whose sends are not yet
//! taken keeps taking the shares sent to it meanwhile, so two ranks
//! sending to each other both go on. A rank leaving says so with an empty
//! share to every other, and leaves once each has said so to it: MPI keeps
//! the order of the messages of one pair, so by then every share sent to
//! it has been taken, and no send is left pending.
//!
//! A worker rank runs `rank_workers` workers (`solve --rank-workers`,
//! the same on every rank): coordinator worker `w` is slot `w %
//! rank_workers` of rank `1 + w / rank_workers`. The slots of a rank
//! search side by side, each unit on a thread of its own, on one shared
//! transposition table ([`UnitSolver::sharing`]). A reply names its unit
//! by `seq`, which the coordinator maps back to the worker.
//!
//! Every rank polls (`MPI_Iprobe`) with short sleeps instead of blocking
//! in a receive: Open MPI's blocking receive spins a core, which a worker
//! needs for its search. Only each rank's main thread calls MPI
//! (`MPI_THREAD_FUNNELED`); the searches run on other threads.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Threading;

use crate::coordinator::{Engine, Issue, Reply};
use crate::error::ClusterError;
use crate::unit::{Known, UnitKey, Verdict};
use crate::worker::{Answer, UnitRun, UnitSolver};
use kalah_solver::search::Published;
use kalah_solver::Board;

const UNIT: i32 = 1;
const CANCEL: i32 = 2;
const STOP: i32 = 3;
const REPLY: i32 = 4;
const SHARE: i32 = 5;

/// How often a worker rank sends the entries its searches published
/// (`--share-work`): one message a peer for all of them.
pub const SHARE_EVERY: Duration = Duration::from_millis(1);

/// What a worker rank's sharing of table entries came to.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shared {
    /// Entries sent (each to every other worker rank).
    pub sent: u64,
    /// Entries taken into this rank's table from the others.
    pub taken: u64,
}

/// Words of the longest message to a worker (UNIT).
const TO_WORKER: usize = 6;

/// An initialised MPI world.
pub struct World {
    _universe: mpi::environment::Universe,
    world: SimpleCommunicator,
}

impl World {
    /// Initialises MPI (funneled threads).
    ///
    /// # Errors
    /// MPI already initialised or without the thread support needed.
    pub fn init() -> Result<World, ClusterError> {
        let (universe, level) = mpi::initialize_with_threading(Threading::Funneled)
            .ok_or_else(|| ClusterError::engine("MPI is already initialised"))?;
        if level < Threading::Funneled {
            return Err(ClusterError::Engine(format!(
                "this MPI offers threads at level {level:?}; funneled is needed"
            )));
        }
        let world = universe.world();
        Ok(World {
            _universe: universe,
            world,
        })
    }

    pub fn rank(&self) -> i32 {
        self.world.rank()
    }

    pub fn size(&self) -> i32 {
        self.world.size()
    }

    /// Ends the whole job (every rank) after a fatal error on one.
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// The next message to this rank from rank 0 if one is in, without
    /// waiting: its tag and payload (words past those given are 0).
    fn poll_from_coordinator(&self) -> Option<(i32, [u64; TO_WORKER])> {
        let (msg, status) = self.world.process_at_rank(0).immediate_matched_probe()?;
        let mut buf = [0u64; TO_WORKER];
        let n = status.count(u64::equivalent_datatype()) as usize;
        let mut tmp = vec![0u64; n];
        msg.matched_receive_into(&mut tmp[..]);
        buf[..n.min(TO_WORKER)].copy_from_slice(&tmp[..n.min(TO_WORKER)]);
        Some((status.tag(), buf))
    }

    /// A worker rank's life: answer units on `slots` (one worker each,
    /// see the module's notes) until told to stop. A STOP while units run
    /// (it comes only after their replies, or when the coordinator gives
    /// up) stops them, replies, and leaves. When the slots collect entries
    /// ([`UnitSolver::publish`], `--share-work`), they go to the other
    /// worker ranks, and theirs come into this rank's table (see the
    /// module's notes); then every worker rank's slots must collect them.
    ///
    /// # Errors
    /// No slots; a unit for a slot this rank lacks: the ranks were
    /// started with different `--rank-workers`; a share that is not one.
    pub fn serve(&self, slots: &[UnitSolver]) -> Result<Shared, ClusterError> {
        let Some(first) = slots.first() else {
            return Err(ClusterError::engine(
                "a worker rank needs at least one worker",
            ));
        };
        let sharing = slots.iter().any(UnitSolver::publishes);
        let peers: Vec<i32> = if sharing {
            (1..self.size()).filter(|&r| r != self.rank()).collect()
        } else {
            Vec::new()
        };
        let mut shares = Shares {
            peers: &peers,
            table: first,
            tally: Shared::default(),
            done: 0,
        };
        let mut shared_at = Instant::now();
        std::thread::scope(|s| {
            let mut runs: Vec<Option<(u64, UnitRun<'_, '_>)>> =
                slots.iter().map(|_| None).collect();
            let mut leaving = false;
            let mut nap = Duration::from_micros(20);
            loop {
                let mut busy = self.take_shares(&mut shares)?;
                while let Some((tag, m)) = self.poll_from_coordinator() {
                    busy = true;
                    match tag {
                        STOP => {
                            leaving = true;
                            runs.iter().flatten().for_each(|(_, r)| r.cancel());
                        }
                        UNIT => {
                            let key = UnitKey {
                                board: Board::from_packed(m[0] as u128 | (m[1] as u128) << 64),
                                beta: m[2] as i64 as i32,
                            };
                            let (budget, seq, slot) = (m[3], m[4], m[5] as usize);
                            let Some(unit) = slots.get(slot) else {
                                return Err(ClusterError::Engine(format!(
                                    "unit {seq} for worker {slot} of a rank of {} (every rank needs the same --rank-workers)",
                                    slots.len()
                                )));
                            };
                            if runs[slot].is_some() {
                                return Err(ClusterError::Engine(format!(
                                    "unit {seq} for busy worker {slot}"
                                )));
                            }
                            runs[slot] = Some((seq, UnitRun::start(s, unit, key, budget)));
                        }
                        CANCEL => {
                            // A cancel that crossed the unit's reply finds
                            // nothing to stop.
                            if let Some((_, r)) = runs.iter().flatten().find(|(q, _)| *q == m[0]) {
                                r.cancel();
                            }
                        }
                        _ => {}
                    }
                }
                for run in &mut runs {
                    if run.as_mut().is_some_and(|(_, r)| r.poll()) {
                        let (seq, r) = run.take().expect("polled above");
                        self.reply(seq, &r.answer());
                        busy = true;
                    }
                }
                if !leaving && sharing && shared_at.elapsed() >= SHARE_EVERY {
                    shared_at = Instant::now();
                    // Taken even with no peer to send them to: the lists
                    // would otherwise grow for the whole run.
                    let words: Vec<u64> = slots
                        .iter()
                        .flat_map(|slot| slot.published())
                        .flat_map(|e| e.to_words())
                        .collect();
                    if !words.is_empty() && !peers.is_empty() {
                        shares.tally.sent += words.len() as u64 / 2;
                        self.send_shares(&words, &mut shares)?;
                    }
                }
                if leaving && runs.iter().all(Option::is_none) {
                    if !peers.is_empty() {
                        // Done sharing: an empty share to each peer, then
                        // every share still coming, up to each peer's own.
                        self.send_shares(&[], &mut shares)?;
                        while shares.done < peers.len() {
                            if !self.take_shares(&mut shares)? {
                                std::thread::sleep(Duration::from_micros(20));
                            }
                        }
                    }
                    return Ok(shares.tally);
                }
                nap = if busy {
                    Duration::from_micros(20)
                } else {
                    (nap * 2).min(Duration::from_millis(2))
                };
                std::thread::sleep(nap);
            }
        })
    }

    /// Takes every share in from the other worker ranks into this rank's
    /// table; whether there was one.
    fn take_shares(&self, shares: &mut Shares<'_>) -> Result<bool, ClusterError> {
        // Without peers no share comes: no probe.
        if shares.peers.is_empty() {
            return Ok(false);
        }
        let mut any = false;
        while let Some((msg, status)) = self
            .world
            .any_process()
            .immediate_matched_probe_with_tag(SHARE)
        {
            any = true;
            let mut m = vec![0u64; status.count(u64::equivalent_datatype()).max(0) as usize];
            msg.matched_receive_into(&mut m[..]);
            if m.is_empty() {
                shares.done += 1;
                continue;
            }
            let entries = m
                .chunks(2)
                .map(|w| <[u64; 2]>::try_from(w).ok().and_then(Published::from_words))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    ClusterError::Engine(format!(
                        "rank {}: a share of {} words that are not table entries",
                        status.source_rank(),
                        m.len()
                    ))
                })?;
            shares.table.learn(&entries);
            shares.tally.taken += entries.len() as u64;
        }
        Ok(any)
    }

    /// Sends `words` (entries, or none to say this rank is leaving) to
    /// every peer, taking the peers' shares in until every send is done.
    fn send_shares(&self, words: &[u64], shares: &mut Shares<'_>) -> Result<(), ClusterError> {
        mpi::request::scope(|scope| {
            let mut pending: Vec<_> = shares
                .peers
                .iter()
                .map(|&r| {
                    self.world
                        .process_at_rank(r)
                        .immediate_send_with_tag(scope, words, SHARE)
                })
                .collect();
            let mut result = Ok(());
            while !pending.is_empty() {
                pending = pending.into_iter().filter_map(|r| r.test().err()).collect();
                if !pending.is_empty() {
                    // Taken in even after a bad share: a peer waits on it.
                    let taken = self.take_shares(shares).map(|_| ());
                    result = result.and(taken);
                    std::thread::sleep(Duration::from_micros(20));
                }
            }
            result
        })
    }

    /// Sends unit `seq`'s answer to the coordinator.
    fn reply(&self, seq: u64, a: &Answer) {
        let (code, value) = match a.verdict {
            None => (0, 0),
            Some(Verdict::AtLeast) => (1, 0),
            Some(Verdict::Below) => (2, 0),
            Some(Verdict::Exact(v)) => (3, v as i64 as u64),
            Some(Verdict::Split) => (4, a.inside.map_or(0, |h| u64::from(h) + 1)),
        };
        let mut reply = vec![seq, code, value, a.nodes, (a.seconds * 1e9) as u64];
        for k in &a.known {
            let b = k.board.packed();
            let side = |v: Option<i32>| v.unwrap_or(i32::MIN) as u32 as u64;
            reply.extend([
                b as u64,
                (b >> 64) as u64,
                side(k.lower) | side(k.upper) << 32,
            ]);
        }
        self.world
            .process_at_rank(0)
            .send_with_tag(&reply[..], REPLY);
    }
}

use mpi::datatype::Equivalence;

/// A worker rank's sharing state ([`World::serve`]).
struct Shares<'a> {
    /// The other worker ranks (none: no sharing).
    peers: &'a [i32],
    /// A worker of this rank: the rank's table.
    table: &'a UnitSolver,
    tally: Shared,
    /// Peers that said they are leaving.
    done: usize,
}

/// The coordinator's side: rank 0 handing units to ranks 1..size.
pub struct MpiEngine<'w> {
    world: &'w World,
    /// Workers a worker rank runs.
    rank_workers: usize,
    /// The worker of each unit handed out and not yet answered.
    worker_of: HashMap<u64, usize>,
    started: Instant,
}

impl<'w> MpiEngine<'w> {
    /// The coordinator of `world`, whose worker ranks each run
    /// `rank_workers` workers.
    pub fn new(world: &'w World, rank_workers: usize) -> MpiEngine<'w> {
        MpiEngine {
            world,
            rank_workers: rank_workers.max(1),
            worker_of: HashMap::new(),
            started: Instant::now(),
        }
    }

    /// The rank of `worker`.
    fn rank_of(&self, worker: usize) -> i32 {
        (1 + worker / self.rank_workers) as i32
    }
}

impl Engine for MpiEngine<'_> {
    fn workers(&self) -> usize {
        (self.world.size() - 1).max(0) as usize * self.rank_workers
    }

    fn start(&mut self, worker: usize, issue: &Issue) -> Result<(), ClusterError> {
        let b = issue.key.board.packed();
        let m = [
            b as u64,
            (b >> 64) as u64,
            issue.key.beta as i64 as u64,
            issue.budget,
            issue.seq,
            (worker % self.rank_workers) as u64,
        ];
        self.worker_of.insert(issue.seq, worker);
        self.world
            .world
            .process_at_rank(self.rank_of(worker))
            .send_with_tag(&m[..], UNIT);
        Ok(())
    }

    fn cancel(&mut self, worker: usize, seq: u64) -> Result<(), ClusterError> {
        self.world
            .world
            .process_at_rank(self.rank_of(worker))
            .send_with_tag(&[seq][..], CANCEL);
        Ok(())
    }

    fn wait(&mut self, until: Option<f64>) -> Result<Option<Reply>, ClusterError> {
        let mut nap = Duration::from_micros(20);
        loop {
            if let Some(reply) = self.ready()? {
                return Ok(Some(reply));
            }
            if until.is_some_and(|t| self.now() >= t) {
                return Ok(None);
            }
            std::thread::sleep(nap);
            nap = (nap * 2).min(Duration::from_millis(2));
        }
    }

    fn ready(&mut self) -> Result<Option<Reply>, ClusterError> {
        let Some((msg, status)) = self
            .world
            .world
            .any_process()
            .immediate_matched_probe_with_tag(REPLY)
        else {
            return Ok(None);
        };
        let mut m = vec![0u64; status.count(u64::equivalent_datatype()).max(0) as usize];
        msg.matched_receive_into(&mut m[..]);
        if m.len() < 5 || !(m.len() - 5).is_multiple_of(3) {
            return Err(ClusterError::Engine(format!(
                "rank {}: a reply of {} words (5, then 3 a known bound)",
                status.source_rank(),
                m.len()
            )));
        }
        let side = |w: u64| Some(w as u32 as i32).filter(|&v| v != i32::MIN);
        let known = m[5..]
            .chunks_exact(3)
            .map(|k| Known {
                board: Board::from_packed(k[0] as u128 | (k[1] as u128) << 64),
                lower: side(k[2]),
                upper: side(k[2] >> 32),
            })
            .collect();
        let verdict = match m[1] {
            0 => None,
            1 => Some(Verdict::AtLeast),
            2 => Some(Verdict::Below),
            3 => Some(Verdict::Exact(m[2] as i64 as i32)),
            4 => Some(Verdict::Split),
            c => {
                return Err(ClusterError::Engine(format!(
                    "rank {}: unknown verdict {c}",
                    status.source_rank()
                )))
            }
        };
        let worker = self.worker_of.remove(&m[0]).ok_or_else(|| {
            ClusterError::Engine(format!(
                "rank {}: a reply to unit {}, which no worker has",
                status.source_rank(),
                m[0]
            ))
        })?;
        Ok(Some(Reply {
            worker,
            seq: m[0],
            verdict,
            nodes: m[3],
            seconds: m[4] as f64 / 1e9,
            known,
            inside: (m[1] == 4 && m[2] > 0).then(|| (m[2] - 1) as u8),
        }))
    }

    fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn finish(&mut self) -> Result<(), ClusterError> {
        for r in 1..self.world.size() {
            self.world
                .world
                .process_at_rank(r)
                .send_with_tag(&[0u64][..], STOP);
        }
        Ok(())
    }
}
