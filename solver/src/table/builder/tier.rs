//! The tier algorithm: every board of tier `k` solved from the tiers below
//! it, in parallel.
//!
//! Tier `k` lives in a buffer of `AtomicI8`, every entry starting at
//! [`UNKNOWN`]. A child in the same tier has a lower potential (see
//! [`Sides`]), so the tier is solved one potential class at a time, lowest
//! first, each class split into blocks that rayon threads take: every child
//! a board needs is then solved already, and every board is solved exactly
//! once. The output is the same for any thread count.
//!
//! Children are resolved a batch of boards at a time: first every child's
//! tier and rank is computed and its entry prefetched, then the values are
//! read, so the random reads of the lower tiers overlap.
//!
//! The rank of a child is mostly known before the opponent's side is: each
//! house of the mover's side is planned once ([`Plan`]) for all the
//! opponent's sides it meets, and most children then cost one or two
//! look-ups instead of a sowing and a full rank. (What each of these steps
//! gained: lab/journal/tables.md.)

use super::{Progress, TierValues, UNKNOWN};
use crate::board::{Board, Game};
use crate::index::Index;
use crate::platform::{prefetch, Locality};
use crate::rules::{CaptureRule, MAX_PITS};
use crate::table::compact::Compact;
use crate::table::Ranker;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicI8, Ordering::Relaxed};

/// Boards a rayon task takes at once.
const CHUNK: usize = 1 << 14;

/// Solves one tier of `M` pits a side.
struct TierSolver<'a, const M: usize> {
    game: &'a Game,
    ranker: &'a Ranker,
    tier: u32,
    /// `near[i]`: the values of tier `tier - 1 - i`, one byte each (none
    /// where memory is short): tier `tier - 1` holds most children below
    /// the tier, the next few tiers most captures'.
    near: &'a [&'a [AtomicI8]],
    /// `deep[t]`: the values of every tier `t < tier`, encoded, decoded on
    /// demand where `near` does not reach (captures of many seeds, laps
    /// round the board).
    deep: &'a [Compact<'a>],
    /// The values of this tier, [`UNKNOWN`] until solved.
    cur: &'a [AtomicI8],
}

/// The tiers below the one being solved.
pub(super) struct Below<'a> {
    /// `near[i]`: tier `k - 1 - i`, one byte a board.
    pub near: &'a [&'a [AtomicI8]],
    /// `deep[t]`: every tier `t < k`, encoded.
    pub deep: &'a [Compact<'a>],
}

/// All values of tier `k`, or `None` if stopped.
pub(super) fn solve_tier(
    game: &Game,
    ranker: &Ranker,
    index: &Index,
    k: u32,
    below: &Below,
    progress: &dyn Progress,
    stop: &AtomicBool,
) -> Option<std::io::Result<TierValues>> {
    let size = index.tier_size(k) as usize;
    // Filled in parallel: the first touch of fresh memory (page faults,
    // zeroing) is most of the cost.
    let buf = TierValues::with(size, |bytes| {
        bytes
            .par_chunks_mut(1 << 21)
            .for_each(|c| c.fill(UNKNOWN as u8))
    });
    let buf = match buf {
        Ok(b) => b,
        Err(e) => return Some(Err(e)),
    };
    let cur = buf.as_slice();
    macro_rules! run {
        ($m:literal) => {
            TierSolver::<$m> {
                game,
                ranker,
                tier: k,
                near: below.near,
                deep: below.deep,
                cur,
            }
            .solve_all(progress, stop)
        };
    }
    match game.pits() {
        1 => run!(1),
        2 => run!(2),
        3 => run!(3),
        4 => run!(4),
        5 => run!(5),
        6 => run!(6),
        7 => run!(7),
        _ => run!(8),
    }
    if stop.load(Relaxed) {
        return None;
    }
    Some(Ok(buf))
}

impl<'a, const M: usize> TierSolver<'a, M> {
    /// Solves the tier class by class of potential, lowest first; see
    /// [`Sides`].
    fn solve_all(&self, progress: &dyn Progress, stop: &AtomicBool) {
        let sides = Sides::new::<M>(self.ranker, self.tier);
        for potential in 0..=sides.max_potential() {
            if stop.load(Relaxed) {
                return;
            }
            let blocks = sides.class(potential);
            blocks.par_iter().for_each(|block| {
                if stop.load(Relaxed) {
                    return;
                }
                self.solve_block(&sides, block);
                progress.advanced(block.boards());
            });
        }
    }

    /// Solves the boards of one [`Block`], [`BLOCK`] at a time: every child
    /// of those boards is expanded and its entry prefetched before any value
    /// is read.
    fn solve_block(&self, sides: &Sides, block: &Block) {
        let mut kids = [Kid::default(); BLOCK * MAX_PITS];
        // Per board of the batch: its rank and the end of its kids.
        let mut owners = [(0usize, 0usize); BLOCK];
        let (mut nk, mut nb) = (0, 0);
        let mut plans = [Plan::default(); MAX_PITS];
        for own in &sides.list[block.own.clone()] {
            let n = self.plan(own.lanes, block.own_seeds as u32, &mut plans);
            let planned = &plans[..n];
            for opp in &sides.list[block.opp.clone()] {
                let (b, r) = sides.board(block.own_seeds, own, opp);
                if let Some(v) = self.game.terminal_value(b) {
                    self.cur[r].store(v as i8, Relaxed);
                    continue;
                }
                nk += self.expand_planned(b, block.own_seeds as u32, opp, planned, &mut kids[nk..]);
                owners[nb] = (r, nk);
                nb += 1;
                if nb == BLOCK {
                    self.resolve_all(&mut kids, &owners);
                    (nk, nb) = (0, 0);
                }
            }
        }
        self.resolve_all(&mut kids, &owners[..nb]);
    }

    /// Stores the value of every board of `owners` (its rank, and the end of
    /// its children in `kids`).
    #[inline]
    fn resolve_all(&self, kids: &mut [Kid<'a>], owners: &[(usize, usize)]) {
        let end = owners.last().map_or(0, |o| o.1);
        self.decode_deep(&mut kids[..end]);
        let mut start = 0;
        for &(r, end) in owners {
            let v = resolve(&kids[start..end]);
            self.cur[r].store(v as i8, Relaxed);
            start = end;
        }
    }

    /// How each non-empty house of the mover's side `own` (of `seeds`
    /// seeds) sows, for every opponent's side at once; returns how many.
    /// The child of a house depends on the opponent's side only through the
    /// low part of its rank, and through the seeds a capture takes; a house
    /// whose seeds go round the board is left to [`Plan::Sow`].
    fn plan(&self, own: u64, seeds: u32, out: &mut [Plan; MAX_PITS]) -> usize {
        let opp_seeds = self.tier - seeds;
        let mut n = 0;
        for house in 0..M {
            let sown = (own >> (8 * house)) as u8 as u32;
            if sown == 0 {
                continue;
            }
            let to_store = (M - house) as u32;
            // The board with an empty opponent's side shows the mover's
            // side after the move and the seeds the move adds to the
            // opponent's side.
            let s = self.game.sow(Board::from_packed(own as u128), house);
            let bits = s.board.packed();
            let (low, high) = (bits as u64, (bits >> 64) as u64);
            let last = house + sown as usize;
            out[n] = if sown < to_store && (own >> (8 * last)) as u8 != 0 {
                // Ends in a non-empty house of the mover's: no capture.
                Plan::Stay {
                    part: self.ranker.opp_part::<M>(opp_seeds as u64, high),
                }
            } else if sown < to_store {
                // Ends in an empty house of the mover's. `high` is the
                // mover's side without a capture (the sowing above captured
                // only under the empty-capture rule, whose plan never uses
                // `part`).
                Plan::Capture {
                    facing_shift: (8 * (M - 1 - last)) as u8,
                    empty: self.game.rules().capture == CaptureRule::Empty,
                    part: self.ranker.opp_part::<M>(opp_seeds as u64, high),
                    rest: high & !(0xFF << (8 * last)),
                }
            } else if sown == to_store {
                Plan::Extra {
                    part: self.ranker.own_part::<M>(low),
                }
            } else if sown > to_store && sown <= to_store + M as u32 {
                // Ends in the opponent's houses, after one in the store.
                Plan::Pass {
                    adds: low,
                    part: self
                        .ranker
                        .opp_part::<M>((opp_seeds + sown - to_store) as u64, high),
                }
            } else {
                Plan::Sow { house: house as u8 }
            };
            n += 1;
        }
        n
    }

    /// The children of `b` (as [`Self::kid`] makes them, in the order of
    /// their houses): its mover's side, of `seeds` seeds, planned by
    /// [`Self::plan`] as `plans`; its opponent's side `opp`.
    #[inline]
    fn expand_planned(
        &self,
        b: Board,
        seeds: u32,
        opp: &Side,
        plans: &[Plan],
        out: &mut [Kid<'a>],
    ) -> usize {
        let down = self.tier - 1;
        for (n, plan) in plans.iter().enumerate() {
            let kid = match *plan {
                Plan::Stay { part } => Kid {
                    cell: &self.cur[(opp.own_part + part) as usize],
                    base: 0,
                    sign: -1,
                    deep: 0,
                    rank: 0,
                },
                // One tier down: from `prev` at one byte a board, or
                // decoded where no tier is kept so (a build short of
                // memory, see `builder::near_tiers`).
                Plan::Extra { part } => self.lower_kid(
                    down,
                    part + self.ranker.opp_part::<M>(seeds as u64 - 1, opp.lanes),
                    1,
                    1,
                ),
                Plan::Pass { adds, part } => self.lower_kid(
                    down,
                    self.ranker.own_part::<M>(opp.lanes + adds) + part,
                    1,
                    -1,
                ),
                Plan::Capture {
                    facing_shift,
                    empty,
                    part,
                    rest,
                } => {
                    let f = (opp.lanes >> facing_shift) as u8;
                    if f == 0 && !empty {
                        Kid {
                            cell: &self.cur[(opp.own_part + part) as usize],
                            base: 0,
                            sign: -1,
                            deep: 0,
                            rank: 0,
                        }
                    } else {
                        let left = opp.lanes & !(0xFF << facing_shift);
                        let left_seeds = (self.tier - seeds - f as u32) as u64;
                        let rank = self.ranker.own_part::<M>(left)
                            + self.ranker.opp_part::<M>(left_seeds, rest);
                        self.lower_kid(down - f as u32, rank, 1 + f as i32, -1)
                    }
                }
                Plan::Sow { house } => self.kid(b, house as usize),
            };
            debug_assert!(
                {
                    let want = self.kid(b, plans_house(b, n));
                    std::ptr::eq(want.cell, kid.cell)
                        && want.base == kid.base
                        && want.sign == kid.sign
                        && want.deep == kid.deep
                        && want.rank == kid.rank
                },
                "planned child {n} of {b:?}"
            );
            // Into L2, not L1: the lines of a block and the rank table
            // would evict each other from L1.
            prefetch(kid.cell, Locality::L2);
            out[n] = kid;
        }
        plans.len()
    }

    /// The child of `b` by sowing `house`, the general way.
    #[inline]
    fn kid(&self, b: Board, house: usize) -> Kid<'a> {
        let s = self.game.sow(b, house);
        let t = self.tier - s.gain as u32;
        let rank = self.ranker.rank_of::<M>(s.board);
        let sign = if s.extra_turn { 1 } else { -1 };
        if t == self.tier {
            Kid {
                cell: &self.cur[rank as usize],
                base: 0,
                sign,
                deep: 0,
                rank: 0,
            }
        } else {
            self.lower_kid(t, rank, s.gain as i32, sign as i32)
        }
    }

    /// The child of rank `rank` in tier `t < tier`, worth `base + sign *
    /// V(child)` to its parent: a cell of the tier below, or a value of a
    /// deeper tier to decode once the batch is expanded (its index entry
    /// prefetched now; see [`Self::decode_deep`]).
    #[inline]
    fn lower_kid(&self, t: u32, rank: u64, base: i32, sign: i32) -> Kid<'a> {
        if let Some(cells) = self.near.get((self.tier - 1 - t) as usize) {
            return Kid {
                cell: &cells[rank as usize],
                base: base as i16,
                sign: sign as i8,
                deep: 0,
                rank: 0,
            };
        }
        let tiers = &self.deep[t as usize];
        match u32::try_from(rank) {
            Ok(r) if t < u8::MAX as u32 => {
                if let Some(entry) = tiers.entry_of(rank) {
                    prefetch(entry, Locality::L2);
                }
                Kid {
                    cell: &ZERO,
                    base: base as i16,
                    sign: sign as i8,
                    deep: t as u8 + 1,
                    rank: r,
                }
            }
            // A rank too large to defer: decoded now.
            _ => Kid {
                cell: &ZERO,
                base: (base + sign * decoded(tiers, rank)) as i16,
                sign: 0,
                deep: 0,
                rank: 0,
            },
        }
    }

    /// Decodes the children of `kids` in deeper tiers, into their `base`
    /// (`sign` 0): first every one's bytes are prefetched (their index
    /// entries were, when they were expanded), then read.
    #[inline]
    fn decode_deep(&self, kids: &mut [Kid]) {
        for k in kids.iter().filter(|k| k.deep != 0) {
            if let Some(bytes) = self.deep[k.deep as usize - 1].data_of(k.rank as u64) {
                for b in bytes {
                    prefetch(b, Locality::L2);
                }
            }
        }
        for k in kids.iter_mut().filter(|k| k.deep != 0) {
            let v = decoded(&self.deep[k.deep as usize - 1], k.rank as u64);
            k.base += k.sign as i16 * v as i16;
            k.sign = 0;
            k.deep = 0;
        }
    }
}

/// The value of rank `rank` of an encoded tier.
#[inline]
fn decoded(tier: &Compact, rank: u64) -> i32 {
    tier.get(rank)
        .expect("the builder validates every encoded tier it reads") as i32
}

/// The best of the children `kids` of one board. Every child is solved: it
/// is in a lower tier or, in this tier, of a lower potential class.
#[inline]
fn resolve(kids: &[Kid]) -> i32 {
    let mut best = i32::MIN;
    for k in kids {
        let cv = k.cell.load(Relaxed);
        debug_assert_ne!(cv, UNKNOWN, "a child solved after its parent");
        best = best.max(k.base as i32 + k.sign as i32 * cv as i32);
    }
    best
}

/// The sides of the boards of one tier, and the order the builder solves
/// them in.
///
/// A board is a pair of sides: `own` (the mover's houses) with `s` seeds
/// and `opp` with `k - s`; its rank is `own_part(own) + opp_part(s, opp)`
/// ([`Ranker::own_part`]). A child in the same tier comes from a move
/// whose seeds all stay in the mover's houses: it moves seeds towards the
/// store, so the side's potential `sum(seeds x distance to the store)`
/// drops, and the child is the other side to move. The board's potential,
/// the sum of both sides', thus drops too. Solving the tier in classes of
/// equal potential, lowest first, every same-tier child is solved before
/// its parent: no board waits on another, and no board is solved twice.
///
/// Within a class, the boards are walked as blocks of one `own` group
/// (same seeds, same potential) against one `opp` group, `own` outside:
/// the children of one `own` side reached by one house differ only in the
/// opponent's side, which makes up the low part of their rank (the sides
/// change places), so their entries lie close together.
struct Sides {
    /// The tier.
    k: usize,
    /// Every side of at most `k` seeds, ordered by seeds, then potential.
    list: Vec<Side>,
    /// `groups[s][p]`: the range of `list` of the sides with `s` seeds and
    /// potential `p`.
    groups: Vec<Vec<Range<usize>>>,
    /// `opp_part[s][i]`: [`Ranker::opp_part`] of the side of `k - s` seeds
    /// with [`Side::pos`] `i`, under a mover's side of `s` seeds.
    opp_part: Vec<Vec<u64>>,
}

/// One side of a board.
#[derive(Clone, Copy)]
struct Side {
    /// The houses, one byte each.
    lanes: u64,
    /// [`Ranker::own_part`] of the side.
    own_part: u64,
    /// Position among the sides of its seed count.
    pos: u32,
}

/// Boards of one potential class: every `own` side of one group against
/// every `opp` side of another.
struct Block {
    /// Seeds of the `own` sides.
    own_seeds: usize,
    own: Range<usize>,
    opp: Range<usize>,
}

impl Block {
    fn boards(&self) -> u64 {
        (self.own.len() * self.opp.len()) as u64
    }
}

impl Sides {
    fn new<const M: usize>(ranker: &Ranker, k: u32) -> Sides {
        let k = k as usize;
        let mut list = Vec::new();
        let mut groups = Vec::with_capacity(k + 1);
        for s in 0..=k {
            let mut sides = Vec::new();
            compositions(s as u64, M, 0, 0, &mut sides);
            // Positions in enumeration order, then sorted by potential.
            let mut sides: Vec<(u32, Side)> = sides
                .into_iter()
                .enumerate()
                .map(|(i, lanes)| {
                    let side = Side {
                        lanes,
                        own_part: ranker.own_part::<M>(lanes),
                        pos: i as u32,
                    };
                    (potential::<M>(lanes), side)
                })
                .collect();
            sides.sort_by_key(|&(p, side)| (p, side.pos));
            let mut row = vec![0..0; M * s + 1];
            let base = list.len();
            for (i, &(p, _)) in sides.iter().enumerate() {
                let r = &mut row[p as usize];
                if r.start == r.end {
                    *r = base + i..base + i;
                }
                r.end = base + i + 1;
            }
            list.extend(sides.into_iter().map(|(_, side)| side));
            groups.push(row);
        }
        let opp_part = (0..=k)
            .map(|s| {
                let opp_seeds = k - s;
                let range = seeds_range(&groups[opp_seeds]);
                let mut parts = vec![0u64; range.len()];
                for side in &list[range] {
                    parts[side.pos as usize] = ranker.opp_part::<M>(s as u64, side.lanes);
                }
                parts
            })
            .collect();
        Sides {
            k,
            list,
            groups,
            opp_part,
        }
    }

    /// The board of the tier with the mover's side `own` (of `own_seeds`
    /// seeds) and the opponent's side `opp`, and its rank.
    #[inline]
    fn board(&self, own_seeds: usize, own: &Side, opp: &Side) -> (Board, usize) {
        let b = Board::from_packed(own.lanes as u128 | (opp.lanes as u128) << 64);
        let rank = own.own_part + self.opp_part[own_seeds][opp.pos as usize];
        (b, rank as usize)
    }

    /// The largest potential of a board of the tier.
    fn max_potential(&self) -> u32 {
        (self.groups[self.k].len() - 1) as u32
    }

    /// The blocks of the boards of the tier with potential `p`, cut to at
    /// most about [`CHUNK`] boards each.
    fn class(&self, p: u32) -> Vec<Block> {
        let k = self.k;
        let p = p as usize;
        let mut blocks = Vec::new();
        for s in 0..=k {
            for (po, own) in self.groups[s].iter().enumerate().take(p + 1) {
                let Some(opp) = self.groups[k - s].get(p - po) else {
                    continue;
                };
                if own.is_empty() || opp.is_empty() {
                    continue;
                }
                let per = (CHUNK / opp.len()).max(1);
                let mut lo = own.start;
                while lo < own.end {
                    let hi = (lo + per).min(own.end);
                    if opp.len() <= CHUNK {
                        blocks.push(Block {
                            own_seeds: s,
                            own: lo..hi,
                            opp: opp.clone(),
                        });
                    } else {
                        let mut o = opp.start;
                        while o < opp.end {
                            let oe = (o + CHUNK).min(opp.end);
                            blocks.push(Block {
                                own_seeds: s,
                                own: lo..hi,
                                opp: o..oe,
                            });
                            o = oe;
                        }
                    }
                    lo = hi;
                }
            }
        }
        blocks
    }
}

/// The range of `list` covered by one seed count's groups.
fn seeds_range(groups: &[Range<usize>]) -> Range<usize> {
    let start = groups.iter().find(|r| !r.is_empty()).map_or(0, |r| r.start);
    let end = groups
        .iter()
        .rev()
        .find(|r| !r.is_empty())
        .map_or(0, |r| r.end);
    start..end
}

/// `sum(seeds x distance to the store)` of one side of `M` houses.
#[inline]
fn potential<const M: usize>(lanes: u64) -> u32 {
    (0..M)
        .map(|i| ((lanes >> (8 * i)) & 0xFF) as u32 * (M - i) as u32)
        .sum()
}

/// Appends every way of putting `seeds` seeds into the houses `house..m`
/// of a side whose lower houses are `prefix`.
fn compositions(seeds: u64, m: usize, house: usize, prefix: u64, out: &mut Vec<u64>) {
    if house == m - 1 {
        out.push(prefix | seeds << (8 * house));
        return;
    }
    for x in 0..=seeds {
        compositions(seeds - x, m, house + 1, prefix | x << (8 * house), out);
    }
}

/// Boards whose children are expanded together.
const BLOCK: usize = 64;

static ZERO: AtomicI8 = AtomicI8::new(0);

/// A child: its value for the parent is `base + sign * V(child)`, with
/// `V(child)` in `cell`.
#[derive(Clone, Copy)]
struct Kid<'a> {
    cell: &'a AtomicI8,
    base: i16,
    sign: i8,
    /// `t + 1` for a child in a deeper tier `t` (encoded; `cell` unused)
    /// until [`TierSolver::decode_deep`] decodes it; else 0.
    deep: u8,
    /// The child's rank, for a deeper tier. (16 bytes in all: a batch's
    /// children stay within L1.)
    rank: u32,
}

impl Default for Kid<'_> {
    fn default() -> Self {
        Kid {
            cell: &ZERO,
            base: 0,
            sign: 0,
            deep: 0,
            rank: 0,
        }
    }
}

/// How one house of a fixed mover's side sows, for any opponent's side
/// `opp` (with [`Side::own_part`] `o`); see [`TierSolver::plan`].
#[derive(Clone, Copy)]
enum Plan {
    /// No seed leaves the mover's houses: the child, in this tier, has rank
    /// `o + part`.
    Stay { part: u64 },
    /// The last seed falls in the store: the child (the mover again), one
    /// tier down, has rank `part + opp_part(s - 1, opp)`, `s` the seeds of
    /// the mover's side.
    Extra { part: u64 },
    /// One seed in the store, the rest in the opponent's houses (`adds`
    /// there): the child, one tier down, has rank
    /// `own_part(opp + adds) + part`.
    Pass { adds: u64, part: u64 },
    /// The last seed falls in an empty house of the mover's, facing the
    /// opponent's house at bit `facing_shift`. With `f` seeds there,
    /// captured when `f > 0` or `empty`: the child, `f + 1` tiers down, has
    /// the mover's side `rest`; otherwise it is [`Plan::Stay`] with `part`.
    Capture {
        facing_shift: u8,
        empty: bool,
        part: u64,
        rest: u64,
    },
    /// A lap around the board: sown the general way.
    Sow { house: u8 },
}

impl Default for Plan {
    fn default() -> Self {
        Plan::Sow { house: 0 }
    }
}

/// The house of the `n`-th move of `b` (houses in increasing order).
fn plans_house(b: Board, n: usize) -> usize {
    let mut moves = b.own_nonempty();
    for _ in 0..n {
        moves &= moves - 1;
    }
    moves.trailing_zeros() as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    /// The classes of [`Sides`] hold every board of the tier once, with its
    /// rank, and every same-tier child lies in a lower class.
    fn check_order<const M: usize>(k: u32) {
        let index = Index::new(M);
        let ranker = Ranker::new(M);
        let game = Game::new(M, Rules::STANDARD);
        let sides = Sides::new::<M>(&ranker, k);
        let size = index.tier_size(k) as usize;
        let mut class_of = vec![u32::MAX; size];
        for p in 0..=sides.max_potential() {
            for block in sides.class(p) {
                assert!(block.boards() as usize <= CHUNK.max(block.opp.len()));
                for own in &sides.list[block.own.clone()] {
                    for opp in &sides.list[block.opp.clone()] {
                        let (b, r) = sides.board(block.own_seeds, own, opp);
                        assert_eq!(r as u64, index.rank(b), "m={M} k={k} {b:?}");
                        assert_eq!(class_of[r], u32::MAX, "m={M} k={k}: {b:?} twice");
                        class_of[r] = p;
                    }
                }
            }
        }
        for (r, &p) in class_of.iter().enumerate() {
            assert_ne!(p, u32::MAX, "m={M} k={k}: rank {r} in no class");
            let b = index.unrank(k, r as u64);
            let mut moves = game.moves(b);
            while moves != 0 {
                let house = moves.trailing_zeros() as usize;
                moves &= moves - 1;
                let s = game.sow(b, house);
                if s.gain == 0 {
                    let child = class_of[index.rank(s.board) as usize];
                    assert!(child < p, "m={M} k={k}: {b:?} -> {:?}", s.board);
                }
            }
        }
    }

    #[test]
    fn classes_cover_the_tier_in_dependency_order() {
        for k in [0, 1, 2, 5, 8] {
            check_order::<1>(k);
            check_order::<2>(k);
            check_order::<3>(k);
            check_order::<4>(k);
            check_order::<5>(k);
            check_order::<6>(k);
        }
        check_order::<7>(6);
        check_order::<8>(5);
    }
}
