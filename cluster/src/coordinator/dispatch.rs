//! Handing units out: which idle worker takes which unit the plan needs
//! (near the units it had, the recent ones first), and which speculative
//! unit gives its worker up to a needed one.

use foldhash::{HashMap as Map, HashSet as Set};

use kalah_solver::Board;

use super::flight::Flight;
use super::wanted::Wanted;
use super::{Engine, Issue, Settings, UnitCounts};
use crate::error::ClusterError;
use crate::plan::Plan;
use crate::unit::{Stop, UnitKey};

/// What the coordinator keeps to hand units out.
pub(super) struct Hand {
    /// The next issue's number.
    pub(super) seq: u64,
    pub(super) settings: Settings,
    /// The worker last handed a unit at or just below each top-tree board
    /// (see [`assign`]).
    pub(super) owners: Map<Board, usize>,
    /// The boards each worker was made the owner of in [`Hand::owners`]
    /// (some since taken over by another worker; weeded out when the
    /// worker is next idle).
    pub(super) owned: Vec<Vec<Board>>,
    /// The part of [`Hand::owners`] whose workers are idle, for one
    /// hand-out: [`assign`] looks each ready unit's near boards up in it,
    /// a map of a few boards a worker instead of every board handed out.
    pub(super) idle_owners: Map<Board, usize>,
    /// The worker last handed a unit of each board.
    pub(super) last_worker: Map<Board, usize>,
    /// Children of split tests whose worker's search was in them
    /// ([`Reply::inside`]): that worker takes their unit first ([`assign`]).
    /// Kept only until the next hand-out: the worker is idle since its
    /// split, and takes other units after it.
    pub(super) resume: Map<Board, usize>,
}

impl Hand {
    /// Hands units of `plan`, none of those `busy` (by index into
    /// [`Plan::needed`]; the units handed out are marked), to the idle
    /// workers ([`assign`]); `wanted` says what each has waited on and
    /// since when each required one is required, `hot` which units the
    /// plan was made with as hot.
    pub(super) fn out(
        &mut self,
        plan: &Plan,
        busy: &mut [bool],
        flight: &mut [Option<Flight>],
        engine: &mut dyn Engine,
        (wanted, hot): (&Wanted, &Set<UnitKey>),
        counts: &mut UnitCounts,
    ) -> Result<(), ClusterError> {
        let idle: Vec<usize> = (0..flight.len()).filter(|&w| flight[w].is_none()).collect();
        let owners = if self.settings.policy.affinity {
            idle_owners(&self.owners, &mut self.owned, &idle, &mut self.idle_owners);
            Some(&self.idle_owners)
        } else {
            None
        };
        let resume = std::mem::take(&mut self.resume);
        let born = self
            .settings
            .policy
            .recent_first
            .then_some(&wanted.born[..]);
        for (w, i) in assign(plan, busy, &idle, owners, &resume, born) {
            busy[i] = true;
            let (key, expect) = (plan.needed[i], plan.expect[i]);
            let issue = Issue {
                key,
                seq: self.seq,
                budget: self.settings.budget,
                expect,
            };
            self.seq += 1;
            engine.start(w, &issue)?;
            flight[w] = Some(Flight {
                key,
                seq: issue.seq,
                issued_at: engine.now(),
                issued_after: counts.units,
                waited_on: wanted.units.get(&key).and_then(|w| w.since),
                stopped: None,
                speculative: i >= plan.required,
                below_hot: (plan.required..plan.required + plan.hot).contains(&i),
                required: i < plan.required,
                hot: hot.contains(&key),
            });
            if let Some(before) = self.last_worker.insert(key.board, w) {
                counts.repeat_issues += 1;
                counts.repeat_same_worker += u64::from(before == w);
            }
            if self.settings.policy.affinity {
                for &b in near(&key.board, plan.paths[i].as_slice()) {
                    if self.owners.insert(b, w) != Some(w) {
                        self.owned[w].push(b);
                    }
                }
            }
        }
        Ok(())
    }
}

/// The boards of `owners` whose worker is in `idle`, into `out` (cleared
/// first), from each idle worker's list of boards it was made the owner
/// of (`owned`), which loses the boards another worker took over since.
pub(super) fn idle_owners(
    owners: &Map<Board, usize>,
    owned: &mut [Vec<Board>],
    idle: &[usize],
    out: &mut Map<Board, usize>,
) {
    out.clear();
    for &w in idle {
        let owned = &mut owned[w];
        owned.retain(|b| owners.get(b) == Some(&w));
        out.extend(owned.iter().map(|&b| (b, w)));
    }
}

/// How many sowings above a unit its ancestors count as near it, for
/// `assign`: its own board (the same board at another bound), its
/// parent, grandparent and great-grandparent: boards a few sowings apart
/// meet the same positions below them. Three is the only depth measured
/// (lab/journal/search.md); near the root every unit would be near every
/// worker's, and the preference would mean nothing.
pub const NEAR_PLIES: usize = 3;

/// The boards near a unit of `board` reached through `path`
/// ([`Plan::paths`]), nearest first: the board, then its ancestors up to
/// [`NEAR_PLIES`] sowings above it.
pub(super) fn near<'a>(board: &'a Board, path: &'a [Board]) -> impl Iterator<Item = &'a Board> {
    std::iter::once(board).chain(path[path.len().saturating_sub(NEAR_PLIES)..].iter().rev())
}

/// Most required units an idle worker looks through for one near its
/// own work (the first ones are the most urgent).
pub(super) const AFFINITY_WINDOW: usize = 4096;

/// Which idle worker takes which unit of `plan` (indices into
/// [`Plan::needed`]): `min(idle, ready)` pairs, never a unit `busy` (by
/// index: running, or answered since the plan).
///
/// First, a unit whose board is in `resume` (the child a split test's
/// search was in) goes to the worker named there if it is idle: its table
/// holds that child's subtree. Then required units go first, then
/// speculative ones in order; with `born` (the plan since which each
/// required unit has been required, [`Want::born`], in plan order) and
/// more required units ready than
/// idle workers, the required ones needed most recently first, in plan
/// order among those needed since the same plan. Without `owners` (the
/// worker last handed a unit at or below each board; only the idle
/// workers' boards need be in it, see [`idle_owners`]), in order to the
/// idle workers in order.
/// With it, first each ready unit, in order, goes to the idle worker that
/// owns its nearest board ([`near`]: the board itself, then its
/// ancestors) among the idle ones, if any; the idle workers left then
/// take the units left, in order. A worker's transposition table then
/// holds much of the subtrees of the units it gets, as one machine's
/// table holds the whole tree. This reorders which needed unit starts
/// first, never whether one starts: as many units are handed out as
/// without it (of the speculative units only the first as many as the
/// idle workers are looked at, so speculation keeps its order).
pub(super) fn assign(
    plan: &Plan,
    busy: &[bool],
    idle: &[usize],
    owners: Option<&Map<Board, usize>>,
    resume: &Map<Board, usize>,
    born: Option<&[u64]>,
) -> Vec<(usize, usize)> {
    let mut pick = Pick::new(idle, owners);
    // Without owners or ages, only the units that can be handed out are
    // looked at.
    let required_window = if owners.is_some() || born.is_some() {
        AFFINITY_WINDOW.max(idle.len())
    } else {
        idle.len()
    };
    let mut groups: Vec<Vec<usize>> = [
        (0..plan.required, required_window),
        (plan.required..plan.needed.len(), idle.len()),
    ]
    .into_iter()
    .map(|(range, window)| range.filter(|&i| !busy[i]).take(window).collect())
    .collect();
    if let Some(born) = born.filter(|_| groups[0].len() > idle.len()) {
        // Stable: plan order among units needed since the same plan.
        groups[0].sort_by_key(|&i| std::cmp::Reverse(born[i]));
    }
    let mut taken: Vec<Vec<bool>> = groups.iter().map(|g| vec![false; g.len()]).collect();
    if !resume.is_empty() {
        for (group, taken) in groups.iter().zip(&mut taken) {
            for (t, &i) in group.iter().enumerate() {
                if let Some(&w) = resume.get(&plan.needed[i].board) {
                    if pick.is_free(w) {
                        pick.take(w, i);
                        taken[t] = true;
                    }
                }
            }
        }
    }
    for (group, taken) in groups.iter().zip(&mut taken) {
        if pick.left == 0 {
            break;
        }
        if let Some(owners) = owners {
            for (t, &i) in group.iter().enumerate() {
                // No idle worker left that owns a board.
                if pick.owning == 0 {
                    break;
                }
                if taken[t] {
                    continue;
                }
                let home = near(&plan.needed[i].board, plan.paths[i].as_slice())
                    .filter_map(|b| owners.get(b).copied())
                    .find(|&w| pick.is_free(w));
                if let Some(w) = home {
                    pick.take(w, i);
                    taken[t] = true;
                }
            }
        }
        for (t, &i) in group.iter().enumerate() {
            if pick.left == 0 {
                break;
            }
            if !taken[t] {
                let w = pick.next_free();
                pick.take(w, i);
            }
        }
    }
    pick.out
}

/// The idle workers [`assign`] hands units to, and the pairs so far.
pub(super) struct Pick<'a> {
    pub(super) idle: &'a [usize],
    /// By worker: idle and not handed a unit yet.
    pub(super) free: Vec<bool>,
    /// By worker: owns a board (see [`assign`]'s `owners`).
    pub(super) owns: Vec<bool>,
    /// Free workers, and of those, the ones that own a board.
    pub(super) left: usize,
    pub(super) owning: usize,
    /// Where the next free worker in order is looked for.
    pub(super) cursor: usize,
    pub(super) out: Vec<(usize, usize)>,
}

impl<'a> Pick<'a> {
    pub(super) fn new(idle: &'a [usize], owners: Option<&Map<Board, usize>>) -> Pick<'a> {
        let n = idle.iter().max().map_or(0, |&w| w + 1);
        let mut free = vec![false; n];
        for &w in idle {
            free[w] = true;
        }
        let mut owns = vec![false; n];
        for &w in owners.into_iter().flat_map(Map::values) {
            if free.get(w) == Some(&true) {
                owns[w] = true;
            }
        }
        let owning = owns.iter().filter(|&&o| o).count();
        Pick {
            idle,
            free,
            owns,
            left: idle.len(),
            owning,
            cursor: 0,
            out: Vec::new(),
        }
    }

    pub(super) fn is_free(&self, w: usize) -> bool {
        self.free.get(w) == Some(&true)
    }

    /// The next free worker in order (one is left).
    pub(super) fn next_free(&mut self) -> usize {
        while !self.free[self.idle[self.cursor]] {
            self.cursor += 1;
        }
        self.idle[self.cursor]
    }

    /// Hands unit `i` to the free worker `w`.
    pub(super) fn take(&mut self, w: usize, i: usize) {
        self.out.push((w, i));
        self.free[w] = false;
        self.left -= 1;
        if self.owns[w] {
            self.owning -= 1;
        }
    }
}

/// Stops speculative units, the ones issued last first, while units the
/// search needs wait for a worker: one stop for each such unit that no
/// stop already under way will serve. A flight's [`Flight::required`]
/// says whether `plan`'s search needs it.
pub(super) fn preempt(
    plan: &Plan,
    flight: &mut [Option<Flight>],
    engine: &mut dyn Engine,
) -> Result<(), ClusterError> {
    // The required units no live unit runs: a unit is never issued twice
    // while a worker holds it, so each live required unit is one of them.
    let (mut live_required, mut stopping) = (0, 0);
    for f in flight.iter().flatten() {
        match f.stopped {
            None => live_required += usize::from(f.required),
            Some(_) => stopping += 1,
        }
    }
    let waiting = plan.required.saturating_sub(live_required);
    let stops = waiting.saturating_sub(stopping);
    if stops == 0 {
        return Ok(());
    }
    let mut speculative: Vec<(f64, usize)> = flight
        .iter()
        .enumerate()
        .filter_map(|(w, f)| {
            f.as_ref()
                .filter(|f| f.stopped.is_none() && !f.required)
                .map(|f| (f.issued_at, w))
        })
        .collect();
    speculative.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
    for (_, w) in speculative.into_iter().take(stops) {
        if let Some(f) = flight[w].as_mut() {
            engine.cancel(w, f.seq)?;
            f.stopped = Some(Stop::Preempted);
        }
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::plan::Above;
    use crate::plan::RootState;
    use std::hash::Hash;

    fn set<T: Hash + Eq, const N: usize>(items: [T; N]) -> Set<T> {
        items.into_iter().collect()
    }

    fn map<K: Hash + Eq, V, const N: usize>(items: [(K, V); N]) -> Map<K, V> {
        items.into_iter().collect()
    }

    pub(crate) fn board(n: u128) -> Board {
        Board::from_packed(n)
    }

    /// Units 0..5 of boards 10..15, all required; units 0..2 below
    /// ancestor 1, units 3..5 below ancestor 2 (both below the root 0).
    pub(crate) fn plan() -> Plan {
        let needed: Vec<UnitKey> = (0..6)
            .map(|i| UnitKey {
                board: board(10 + i),
                beta: 0,
            })
            .collect();
        let paths = (0..6)
            .map(|i| Above::of(&[board(0), board(if i < 3 { 1 } else { 2 })]))
            .collect();
        Plan {
            expect: vec![true; needed.len()],
            paths,
            required: 4,
            hot: 0,
            ahead: 0,
            needed,
            root: RootState::default(),
            solved: None,
        }
    }

    /// [`assign`]'s `busy` for the units `running`.
    fn busy(plan: &Plan, running: &Set<UnitKey>) -> Vec<bool> {
        plan.needed.iter().map(|k| running.contains(k)).collect()
    }

    fn check(plan: &Plan, running: &Set<UnitKey>, idle: &[usize], got: &[(usize, usize)]) {
        let ready = plan.needed.iter().filter(|k| !running.contains(k)).count();
        assert_eq!(got.len(), idle.len().min(ready));
        let workers: Set<usize> = got.iter().map(|g| g.0).collect();
        let units: Set<usize> = got.iter().map(|g| g.1).collect();
        assert_eq!(workers.len(), got.len(), "a worker takes one unit");
        assert_eq!(units.len(), got.len(), "a unit goes to one worker");
        assert!(workers.iter().all(|w| idle.contains(w)));
        assert!(units.iter().all(|&i| !running.contains(&plan.needed[i])));
    }

    #[test]
    fn idle_owners_are_the_owners_among_the_idle_workers() {
        // Worker 0 was made the owner of boards 1, 2 and 3, and worker 1
        // took board 2 over; worker 2 owns board 4.
        let owners = map([(board(1), 0), (board(2), 1), (board(3), 0), (board(4), 2)]);
        let mut owned = vec![
            vec![board(1), board(2), board(3)],
            vec![board(2)],
            vec![board(4)],
        ];
        let mut out = map([(board(9), 9)]);
        idle_owners(&owners, &mut owned, &[0, 2], &mut out);
        assert_eq!(out, map([(board(1), 0), (board(3), 0), (board(4), 2)]));
        assert_eq!(owned[0], vec![board(1), board(3)], "board 2 weeded out");
        idle_owners(&owners, &mut owned, &[1], &mut out);
        assert_eq!(out, map([(board(2), 1)]));
    }

    #[test]
    fn without_owners_units_go_in_order() {
        let p = plan();
        let running = set([p.needed[0]]);
        let got = assign(
            &p,
            &busy(&p, &running),
            &[3, 1],
            None,
            &Map::default(),
            None,
        );
        check(&p, &running, &[3, 1], &got);
        assert_eq!(got, vec![(3, 1), (1, 2)]);
    }

    #[test]
    fn an_idle_worker_takes_a_unit_near_its_own() {
        let p = plan();
        // Worker 1 had a unit below ancestor 2, worker 0 one of board 11.
        let owners = map([(board(2), 1), (board(11), 0)]);
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[1],
            Some(&owners),
            &Map::default(),
            None,
        );
        assert_eq!(got, vec![(1, 3)], "the first required unit below 2");
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[0, 1],
            Some(&owners),
            &Map::default(),
            None,
        );
        check(&p, &Set::default(), &[0, 1], &got);
        assert_eq!(got, vec![(0, 1), (1, 3)], "the same board before a sibling");
        // An owner that is busy: the idle worker takes the first unit.
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[2],
            Some(&owners),
            &Map::default(),
            None,
        );
        assert_eq!(got, vec![(2, 0)]);
    }

    #[test]
    fn required_units_go_before_speculative_ones() {
        let p = plan();
        // Worker 1 owns ancestor 2 (units 3..5; 4 and 5 speculative); with
        // units 0..3 running it takes speculation near it, and with only
        // unit 3 running, the required units 0..3 (near no one) in order
        // before speculative unit 4.
        let owners = map([(board(2), 1)]);
        let running: Set<UnitKey> = p.needed[..4].iter().copied().collect();
        let got = assign(
            &p,
            &busy(&p, &running),
            &[1],
            Some(&owners),
            &Map::default(),
            None,
        );
        assert_eq!(got, vec![(1, 4)]);
        let running = set([p.needed[3]]);
        let got = assign(
            &p,
            &busy(&p, &running),
            &[1, 5, 6, 7],
            Some(&owners),
            &Map::default(),
            None,
        );
        check(&p, &running, &[1, 5, 6, 7], &got);
        assert_eq!(got, vec![(1, 0), (5, 1), (6, 2), (7, 4)]);
    }

    #[test]
    fn a_split_worker_takes_back_the_child_it_was_in() {
        let p = plan();
        // Worker 1 owns ancestor 2 and was searching unit 5's board (a
        // speculative unit) when its test was split: it takes unit 5 before
        // the required units near its own; the others go in order.
        let owners = map([(board(2), 1)]);
        let resume = map([(p.needed[5].board, 1)]);
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[0, 1],
            Some(&owners),
            &resume,
            None,
        );
        check(&p, &Set::default(), &[0, 1], &got);
        assert_eq!(got, vec![(1, 5), (0, 0)]);
        // A child already running elsewhere, or a worker not idle, changes
        // nothing.
        let running = set([p.needed[5]]);
        let got = assign(&p, &busy(&p, &running), &[1], Some(&owners), &resume, None);
        assert_eq!(got, vec![(1, 3)]);
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[0],
            Some(&owners),
            &resume,
            None,
        );
        assert_eq!(got, vec![(0, 0)]);
    }

    #[test]
    fn units_needed_last_go_first_when_workers_are_short() {
        let p = plan();
        // Units 0..4 required since plan 1, unit 2 since plan 5.
        let born = [1, 1, 5, 1];
        let none = Map::default();
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &[0, 1],
            None,
            &none,
            Some(&born[..]),
        );
        assert_eq!(got, vec![(0, 2), (1, 0)]);
        // Workers for every required unit: the plan's order.
        let idle = [0, 1, 2, 3, 4];
        let got = assign(
            &p,
            &busy(&p, &Set::default()),
            &idle,
            None,
            &none,
            Some(&born[..]),
        );
        check(&p, &Set::default(), &idle, &got);
        assert_eq!(got[..4], [(0, 0), (1, 1), (2, 2), (3, 3)]);
    }
}
