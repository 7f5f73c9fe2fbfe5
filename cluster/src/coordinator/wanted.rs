//! The units the last plan needs, and since when each has been needed.

use foldhash::HashMap as Map;

use crate::plan::Plan;
use crate::unit::UnitKey;

/// A unit a plan needs: the answer it has waited on since it became
/// needed (the last answer before the first plan that has needed it
/// without a break; of the answers one plan took together, the last one
/// taken), and, if the search needs it (not speculation), the plan since
/// which it has without a break ([`Policy::recent_first`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Want {
    pub(super) since: Option<u64>,
    pub(super) born: Option<u64>,
    /// The last plan that needed it.
    pub(super) plan: u64,
    /// Its index in that plan's [`Plan::needed`].
    pub(super) index: usize,
}

impl Want {
    /// Whether the search needs it (not as speculation).
    pub(super) fn required(&self) -> bool {
        self.born.is_some()
    }
}

/// The units the last plan needs.
#[derive(Default)]
pub(super) struct Wanted {
    /// Each one's [`Want`].
    pub(super) units: Map<UnitKey, Want>,
    /// [`Want::born`] of each required unit, in plan order.
    pub(super) born: Vec<u64>,
}

impl Wanted {
    /// Takes in the units of `plan` (no unit twice), the coordinator's
    /// plan number `plans`, made after the answer `last_answer`: one
    /// look-up a unit, each unit the plan before needed updated in place,
    /// then the units it no longer needs dropped.
    pub(super) fn refill(&mut self, plan: &Plan, last_answer: Option<u64>, plans: u64) {
        self.born.clear();
        for (i, k) in plan.needed.iter().enumerate() {
            let required = i < plan.required;
            let want = self
                .units
                .entry(*k)
                .and_modify(|w| {
                    w.born = required.then(|| w.born.unwrap_or(plans));
                    w.plan = plans;
                    w.index = i;
                })
                .or_insert(Want {
                    since: last_answer,
                    born: required.then_some(plans),
                    plan: plans,
                    index: i,
                });
            self.born.extend(want.born);
        }
        self.units.retain(|_, w| w.plan == plans);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coordinator::dispatch::tests::{board, plan};

    /// A unit keeps the answer it waited on and the plan since which it is
    /// required while plans go on needing it; one a plan drops starts
    /// afresh when a later plan needs it again.
    #[test]
    fn wanted_units_keep_their_wait_and_age_while_plans_need_them() {
        let key = |n| UnitKey {
            board: board(n),
            beta: 2,
        };
        let (a, b, c, d) = (key(1), key(2), key(3), key(4));
        let mut p = plan();
        let mut wanted = Wanted::default();
        let want = |w: &Wanted, k| w.units.get(&k).map(|w| (w.since, w.born));
        p.needed = vec![a, b, c];
        p.required = 2;
        wanted.refill(&p, Some(5), 1);
        assert_eq!(want(&wanted, a), Some((Some(5), Some(1))));
        assert_eq!(want(&wanted, c), Some((Some(5), None)));
        assert_eq!(wanted.born, [1, 1]);
        p.needed = vec![c, a, d];
        wanted.refill(&p, Some(9), 2);
        assert_eq!(want(&wanted, c), Some((Some(5), Some(2))));
        assert_eq!(want(&wanted, a), Some((Some(5), Some(1))));
        assert_eq!(want(&wanted, d), Some((Some(9), None)));
        assert_eq!(want(&wanted, b), None);
        assert_eq!(wanted.born, [2, 1]);
        p.needed = vec![b, a];
        p.required = 1;
        wanted.refill(&p, Some(11), 3);
        assert_eq!(want(&wanted, b), Some((Some(11), Some(3))));
        assert_eq!(want(&wanted, a), Some((Some(5), None)));
        assert_eq!(wanted.units.len(), 2);
        assert_eq!(wanted.born, [3]);
    }
}
