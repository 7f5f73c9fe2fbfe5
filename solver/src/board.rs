//! The hot engine: houses seen from the side to move, and sowing.
//!
//! A [`Board`] holds only houses; stores never influence what happens next,
//! so search and tables work on boards and carry the store difference
//! separately. The board is bitpacked one byte a house into a `u128`:
//!
//! ```text
//! lane  0 ..  7   the mover's houses 1..8     (lane i = house i+1)
//! lane  8 .. 15   the opponent's houses 1..8  (lane 8+i = house i+1)
//! ```
//!
//! Lanes of houses a board of `m` pits does not have are always zero. A byte
//! a house is exact because a whole game holds at most 255 seeds. Turning the
//! board over to the other player is a 64-bit rotation.
//!
//! Sowing is done with whole-board adds: `s` seeds from one house go round
//! the cycle of `2m+1` pits (own houses, own store, opponent's houses) `q`
//! full times and `r` more pits; every pit gets `q`, the next `r` pits one
//! more. The masks for every (house, r) are computed once per [`Game`].

use crate::rules::{CaptureRule, EndRule, Rules, MAX_PITS, MAX_SEEDS};

/// The houses of both sides from the point of view of the player to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Board(u128);

/// Lane index of the opponent's first house.
pub const OPP: usize = 8;

const LOW_BYTES: u64 = 0x0101_0101_0101_0101;

impl Board {
    /// The board with no seeds.
    pub const EMPTY: Board = Board(0);

    /// Builds a board from the mover's and the opponent's houses, each listed
    /// from its owner's house 1.
    ///
    /// # Panics
    /// If a side has more than [`MAX_PITS`] houses or the two sides differ in
    /// length, or the board holds more than 255 seeds.
    pub fn from_sides(own: &[u8], opp: &[u8]) -> Board {
        assert!(own.len() == opp.len() && own.len() <= MAX_PITS);
        let total: usize = own.iter().chain(opp).map(|&x| x as usize).sum();
        assert!(total <= MAX_SEEDS, "a board holds at most 255 seeds");
        let mut b = 0u128;
        for (i, (&a, &o)) in own.iter().zip(opp).enumerate() {
            b |= (a as u128) << (8 * i);
            b |= (o as u128) << (8 * (OPP + i));
        }
        Board(b)
    }

    /// The raw packed form (see the module documentation).
    #[inline]
    pub const fn packed(self) -> u128 {
        self.0
    }

    /// Rebuilds a board from [`Board::packed`].
    #[inline]
    pub const fn from_packed(bits: u128) -> Board {
        Board(bits)
    }

    /// Seeds in lane `lane` (0..8 own houses, 8..16 opponent's).
    #[inline]
    pub const fn lane(self, lane: usize) -> u8 {
        (self.0 >> (8 * lane)) as u8
    }

    /// Seeds in the mover's house `i` (0-based).
    #[inline]
    pub const fn own_house(self, i: usize) -> u8 {
        self.lane(i)
    }

    /// Seeds in the opponent's house `i` (0-based).
    #[inline]
    pub const fn opp_house(self, i: usize) -> u8 {
        self.lane(OPP + i)
    }

    #[inline]
    const fn own_bits(self) -> u64 {
        self.0 as u64
    }

    #[inline]
    const fn opp_bits(self) -> u64 {
        (self.0 >> 64) as u64
    }

    /// Seeds in the mover's houses.
    #[inline]
    pub const fn own_seeds(self) -> u32 {
        // Byte sum by multiplication: exact because the sum is <= 255.
        (self.own_bits().wrapping_mul(LOW_BYTES) >> 56) as u32
    }

    /// Seeds in the opponent's houses.
    #[inline]
    pub const fn opp_seeds(self) -> u32 {
        (self.opp_bits().wrapping_mul(LOW_BYTES) >> 56) as u32
    }

    /// Seeds on the board.
    #[inline]
    pub const fn seeds(self) -> u32 {
        self.own_seeds() + self.opp_seeds()
    }

    /// Whether the mover has no seeds.
    #[inline]
    pub const fn own_empty(self) -> bool {
        self.own_bits() == 0
    }

    /// Whether the opponent has no seeds.
    #[inline]
    pub const fn opp_empty(self) -> bool {
        self.opp_bits() == 0
    }

    /// The same houses seen by the other player.
    #[inline]
    pub const fn flipped(self) -> Board {
        Board(self.0.rotate_left(64))
    }

    /// Bit set of the mover's non-empty houses (bit i = house i, 0-based).
    #[inline]
    pub const fn own_nonempty(self) -> u32 {
        nonzero_bytes(self.own_bits())
    }
}

/// Bit i set iff byte i of `x` is non-zero.
#[inline]
const fn nonzero_bytes(x: u64) -> u32 {
    // Set the high bit of every non-zero byte, then gather the 8 high bits.
    let hi = 0x8080_8080_8080_8080u64;
    let t = ((x & !hi) + !hi) | x;
    let t = t & hi;
    // Gather bits 7, 15, ..., 63 into the top byte with a multiply.
    ((t >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// The value of a finished board for the player to move under the end rule
/// `end`, or `None` if the game goes on: the mover's net share of the seeds
/// left in houses.
#[inline]
pub fn final_value(end: EndRule, board: Board) -> Option<i32> {
    match end {
        EndRule::Sweep => (board.own_empty() || board.opp_empty())
            .then(|| board.own_seeds() as i32 - board.opp_seeds() as i32),
        EndRule::NoSweep => (board.own_empty() || board.opp_empty()).then_some(0),
        EndRule::Delayed => board.own_empty().then(|| -(board.opp_seeds() as i32)),
    }
}

/// The result of sowing one house.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sown {
    /// The board afterwards, seen by whoever moves next: the same player on
    /// an extra turn, the opponent otherwise.
    pub board: Board,
    /// Seeds the mover put into their own store (sown and captured).
    pub gain: u8,
    /// The last seed fell in the mover's store: the mover moves again.
    pub extra_turn: bool,
    /// Seeds captured (the capturing seed included); zero without a capture.
    pub captured: u8,
}

#[derive(Clone, Copy, Default)]
struct SowStep {
    /// One seed for each of the `r` pits after the origin (houses only).
    add: u128,
    /// Whether those `r` pits include the mover's store.
    store: u8,
    /// Where the last seed lands: a lane, or `STORE`.
    last: u8,
}

const STORE: u8 = u8::MAX;
const CYCLE_MAX: usize = 2 * MAX_PITS + 1;

/// A board size and rule set, with the sowing masks precomputed.
#[derive(Clone)]
pub struct Game {
    pits: usize,
    rules: Rules,
    ones: u128,
    steps: [[SowStep; CYCLE_MAX]; MAX_PITS],
    divmod: [(u8, u8); MAX_SEEDS + 1],
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Game")
            .field("pits", &self.pits)
            .field("rules", &self.rules)
            .finish()
    }
}

impl Game {
    /// A game with `pits` houses a side.
    ///
    /// # Panics
    /// If `pits` is 0 or more than [`MAX_PITS`].
    pub fn new(pits: usize, rules: Rules) -> Game {
        assert!((1..=MAX_PITS).contains(&pits), "pits must be 1..=8");
        let cycle = 2 * pits + 1;
        // Cycle position c: 0..m own houses, m store, m+1..2m opponent's houses.
        let lane_of = |c: usize| -> u8 {
            if c < pits {
                c as u8
            } else if c == pits {
                STORE
            } else {
                (OPP + c - pits - 1) as u8
            }
        };
        let mut steps = [[SowStep::default(); CYCLE_MAX]; MAX_PITS];
        for (house, row) in steps.iter_mut().enumerate().take(pits) {
            for (r, step) in row.iter_mut().enumerate().take(cycle) {
                let mut add = 0u128;
                let mut store = 0u8;
                for k in 1..=r {
                    match lane_of((house + k) % cycle) {
                        STORE => store = 1,
                        lane => add += 1u128 << (8 * lane as usize),
                    }
                }
                *step = SowStep {
                    add,
                    store,
                    last: lane_of((house + r) % cycle),
                };
            }
        }
        let mut ones = 0u128;
        for i in 0..pits {
            ones |= 1u128 << (8 * i);
            ones |= 1u128 << (8 * (OPP + i));
        }
        let mut divmod = [(0u8, 0u8); MAX_SEEDS + 1];
        for (s, dm) in divmod.iter_mut().enumerate() {
            *dm = ((s / cycle) as u8, (s % cycle) as u8);
        }
        Game {
            pits,
            rules,
            ones,
            steps,
            divmod,
        }
    }

    /// Houses a side.
    #[inline]
    pub fn pits(&self) -> usize {
        self.pits
    }

    /// The rule set.
    #[inline]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Sows the mover's house `house` (0-based), which must be non-empty.
    ///
    /// Handles laps (the emptied origin house receives seeds like any other),
    /// the extra turn, and captures under the game's capture rule. It does
    /// not end the game: whether the returned board is finished is
    /// [`Game::terminal_value`]'s business.
    #[inline]
    pub fn sow(&self, board: Board, house: usize) -> Sown {
        debug_assert!(house < self.pits);
        let seeds = board.own_house(house) as usize;
        debug_assert!(seeds > 0, "sowing an empty house");
        let (q, r) = self.divmod[seeds];
        let step = &self.steps[house][r as usize];
        let mut cells = board.0 & !(0xFFu128 << (8 * house));
        cells += self.ones * q as u128 + step.add;
        let mut gain = q + step.store;
        if step.last == STORE {
            return Sown {
                board: Board(cells),
                gain,
                extra_turn: true,
                captured: 0,
            };
        }
        let mut captured = 0;
        let last = step.last as usize;
        if last < OPP && (cells >> (8 * last)) as u8 == 1 {
            let facing = OPP + self.pits - 1 - last;
            let opposite = (cells >> (8 * facing)) as u8;
            if opposite > 0 || self.rules.capture == CaptureRule::Empty {
                cells &= !((0xFFu128 << (8 * last)) | (0xFFu128 << (8 * facing)));
                captured = 1 + opposite;
                gain += captured;
            }
        }
        Sown {
            board: Board(cells).flipped(),
            gain,
            extra_turn: false,
            captured,
        }
    }

    /// The value of a finished board for the player to move, or `None` if
    /// the game goes on. The value is the net number of house seeds that go
    /// to the mover's store minus the opponent's at the end.
    #[inline]
    pub fn terminal_value(&self, board: Board) -> Option<i32> {
        final_value(self.rules.end, board)
    }

    /// Legal moves of an unfinished board: bit i set = house i (0-based).
    #[inline]
    pub fn moves(&self, board: Board) -> u32 {
        board.own_nonempty()
    }

    /// The value of `board` by plain exhaustive negamax, with no pruning and
    /// no memory: the reference every faster method is tested against.
    /// Exponential; use on small boards only.
    pub fn reference_value(&self, board: Board) -> i32 {
        if let Some(v) = self.terminal_value(board) {
            return v;
        }
        let mut best = i32::MIN;
        let mut moves = self.moves(board);
        while moves != 0 {
            let house = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let s = self.sow(board, house);
            let child = self.reference_value(s.board);
            let v = s.gain as i32 + if s.extra_turn { child } else { -child };
            best = best.max(v);
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzero_bytes_matches_scalar() {
        let xs = [
            0u64,
            1,
            0xFF,
            0x0100,
            0x8000_0000_0000_0000,
            0x0080_0000_0000_0001,
            0x7F7F_7F7F_7F7F_7F7F,
            0x0102_0304_0500_0700,
        ];
        for x in xs {
            let want: u32 = (0..8)
                .filter(|i| (x >> (8 * i)) & 0xFF != 0)
                .map(|i| 1 << i)
                .sum();
            assert_eq!(nonzero_bytes(x), want, "{x:#x}");
        }
    }

    #[test]
    fn seed_counts_and_flip() {
        let b = Board::from_sides(&[1, 2, 3], &[4, 0, 6]);
        assert_eq!(b.own_seeds(), 6);
        assert_eq!(b.opp_seeds(), 10);
        assert_eq!(b.flipped(), Board::from_sides(&[4, 0, 6], &[1, 2, 3]));
        assert_eq!(b.own_nonempty(), 0b111);
        assert_eq!(b.flipped().own_nonempty(), 0b101);
    }
}
