//! Whole positions: houses, stores and the side to move.
//!
//! A [`Position`] is a validated game state (at most 8 houses a side, 255
//! seeds in all) that plays moves ([`Position::play`]); its text form
//! (docs/RULES.md) is read by the one scanner of `text` and written by
//! its [`Display`](fmt::Display):
//!
//! ```text
//! 4 4 4 4 4 4 0 4 4 4 4 4 4 0 S      S1..S6, South store, N1..N6, North store, side
//! ```

mod text;

use std::fmt;

use crate::board::{final_value, Board, Game};
use crate::rules::{EndRule, Rules, MAX_PITS};
use crate::size::GameSize;

pub use text::{PositionError, Setup};
/// A player. South moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    South,
    North,
}

impl Side {
    /// The other player.
    pub const fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// 0 for South, 1 for North.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `S` or `N`.
    pub const fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::South => "South",
            Side::North => "North",
        })
    }
}

/// A validated position: at most 8 houses a side and 255 seeds in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pits: u8,
    /// `houses[side][i]`: house i+1 of that side.
    houses: [[u8; MAX_PITS]; 2],
    stores: [u8; 2],
    to_move: Side,
}

/// What one sowing did, as reported by [`Position::play`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The mover moves again.
    pub extra_turn: bool,
    /// Seeds captured, the capturing seed included.
    pub captured: u8,
    /// The game is over after this move.
    pub game_over: bool,
}

/// Why a move cannot be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The house number is not 1..=m.
    NoSuchHouse { house: usize, pits: usize },
    /// The house holds no seeds.
    EmptyHouse { house: usize },
    /// The game has already ended.
    GameOver,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::NoSuchHouse { house, pits } => {
                write!(
                    f,
                    "there is no house {house}: houses are numbered 1..{pits}"
                )
            }
            MoveError::EmptyHouse { house } => write!(f, "house {house} is empty"),
            MoveError::GameOver => write!(f, "the game is over"),
        }
    }
}

impl std::error::Error for MoveError {}

impl Position {
    /// The start of Kalah(pits, seeds): `seeds` in every house, South to
    /// move; the size checked by [`GameSize::new`], the one check every
    /// front end shares.
    ///
    /// # Errors
    /// [`PositionError::BadStart`]: `pits` not in 1..=8, `seeds` 0, or more
    /// than 255 seeds in all (however large the counts: nothing wraps).
    pub fn start(pits: usize, seeds: usize) -> Result<Position, PositionError> {
        GameSize::new(pits as u64, seeds as u64)
            .map(GameSize::start)
            .map_err(PositionError::BadStart)
    }

    /// The start of a checked size.
    pub(crate) fn start_of(size: GameSize) -> Position {
        let mut houses = [[0u8; MAX_PITS]; 2];
        for row in &mut houses {
            row[..size.pits()].fill(size.seeds() as u8);
        }
        Position {
            pits: size.pits() as u8,
            houses,
            stores: [0, 0],
            to_move: Side::South,
        }
    }

    /// Houses a side.
    pub fn pits(&self) -> usize {
        self.pits as usize
    }

    /// Seeds in `side`'s house `house` (1-based).
    ///
    /// # Panics
    /// If `house` is not in 1..=m.
    pub fn house(&self, side: Side, house: usize) -> u8 {
        assert!((1..=self.pits()).contains(&house));
        self.houses[side.index()][house - 1]
    }

    /// `side`'s houses, from its house 1.
    pub fn houses(&self, side: Side) -> &[u8] {
        &self.houses[side.index()][..self.pits()]
    }

    /// Seeds in `side`'s store.
    pub fn store(&self, side: Side) -> u8 {
        self.stores[side.index()]
    }

    /// The player to move.
    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// Seeds in houses.
    pub fn seeds_on_board(&self) -> u32 {
        self.board().seeds()
    }

    /// Seeds in houses and stores.
    pub fn total_seeds(&self) -> u32 {
        self.seeds_on_board() + self.stores[0] as u32 + self.stores[1] as u32
    }

    /// The houses seen from the side to move.
    pub fn board(&self) -> Board {
        let me = self.to_move.index();
        Board::from_sides(
            &self.houses[me][..self.pits()],
            &self.houses[1 - me][..self.pits()],
        )
    }

    /// The mover's store minus the opponent's.
    pub fn store_difference(&self) -> i32 {
        let me = self.to_move.index();
        self.stores[me] as i32 - self.stores[1 - me] as i32
    }

    /// Rebuilds a position from a board seen by `to_move` and the stores.
    fn from_board(pits: usize, board: Board, stores: [u8; 2], to_move: Side) -> Position {
        let me = to_move.index();
        let mut houses = [[0u8; MAX_PITS]; 2];
        for (i, cell) in houses[me].iter_mut().enumerate().take(pits) {
            *cell = board.own_house(i);
        }
        for (i, cell) in houses[1 - me].iter_mut().enumerate().take(pits) {
            *cell = board.opp_house(i);
        }
        Position {
            pits: pits as u8,
            houses,
            stores,
            to_move,
        }
    }

    /// Whether the game is over under `rules`.
    pub fn is_over(&self, rules: Rules) -> bool {
        final_value(rules.end, self.board()).is_some()
    }

    /// Final stores (South, North) of a finished game, the end rule's sweep
    /// applied; `None` while the game goes on.
    pub fn final_stores(&self, rules: Rules) -> Option<[u32; 2]> {
        if !self.is_over(rules) {
            return None;
        }
        let mut s = [self.stores[0] as u32, self.stores[1] as u32];
        if rules.end != EndRule::NoSweep {
            for side in [Side::South, Side::North] {
                s[side.index()] += self.houses(side).iter().map(|&x| x as u32).sum::<u32>();
            }
        }
        Some(s)
    }

    /// South's final store minus North's, for a finished game.
    pub fn final_score(&self, rules: Rules) -> Option<i32> {
        self.final_stores(rules).map(|[s, n]| s as i32 - n as i32)
    }

    /// Legal moves (1-based house numbers) under `rules`; none once the game
    /// is over.
    pub fn legal_moves(&self, rules: Rules) -> Vec<usize> {
        if self.is_over(rules) {
            return Vec::new();
        }
        (1..=self.pits())
            .filter(|&h| self.houses[self.to_move.index()][h - 1] > 0)
            .collect()
    }

    /// Plays the mover's house `house` (1-based) under `game`'s rules.
    ///
    /// # Errors
    /// No such house, an empty house, or a finished game.
    ///
    /// # Panics
    /// If `game` has a different number of pits.
    pub fn play(&mut self, game: &Game, house: usize) -> Result<Played, MoveError> {
        assert_eq!(game.pits(), self.pits(), "game and position differ in pits");
        if self.is_over(game.rules()) {
            return Err(MoveError::GameOver);
        }
        if !(1..=self.pits()).contains(&house) {
            return Err(MoveError::NoSuchHouse {
                house,
                pits: self.pits(),
            });
        }
        let board = self.board();
        if board.own_house(house - 1) == 0 {
            return Err(MoveError::EmptyHouse { house });
        }
        let sown = game.sow(board, house - 1);
        let mut stores = self.stores;
        stores[self.to_move.index()] += sown.gain;
        let next = if sown.extra_turn {
            self.to_move
        } else {
            self.to_move.other()
        };
        *self = Position::from_board(self.pits(), sown.board, stores, next);
        Ok(Played {
            extra_turn: sown.extra_turn,
            captured: sown.captured,
            game_over: self.is_over(game.rules()),
        })
    }

    /// A drawing of the board, North on top, every house and both stores
    /// labelled: seeds go round counterclockwise, South's houses left to
    /// right into South's store on the right, North's right to left into
    /// North's store on the left.
    pub fn diagram(&self) -> String {
        let m = self.pits();
        let mut out = String::new();
        let cell = |x: u8| format!("{x:>4}");
        let label = |s: Side, h: usize| format!("{:>4}", format!("{}{}", s.letter(), h));
        // "North store 255  " is 17 wide: the house rows start after it.
        let indent = " ".repeat(17);
        out.push_str(&indent);
        for h in (1..=m).rev() {
            out.push_str(&label(Side::North, h));
        }
        out.push('\n');
        out.push_str(&indent);
        for h in (1..=m).rev() {
            out.push_str(&cell(self.houses[1][h - 1]));
        }
        out.push('\n');
        out.push_str(&format!("North store {:>3}  ", self.stores[1]));
        out.push_str(&" ".repeat(4 * m));
        out.push_str(&format!("  {:<3} South store\n", self.stores[0]));
        out.push_str(&indent);
        for h in 1..=m {
            out.push_str(&cell(self.houses[0][h - 1]));
        }
        out.push('\n');
        out.push_str(&indent);
        for h in 1..=m {
            out.push_str(&label(Side::South, h));
        }
        out.push('\n');
        out.push_str(&format!("{} to move\n", self.to_move));
        out
    }
}

impl fmt::Display for Position {
    /// The docs/RULES.md text form, which `Position::from_str` reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for x in self.houses(Side::South) {
            write!(f, "{x} ")?;
        }
        write!(f, "{} ", self.stores[0])?;
        for x in self.houses(Side::North) {
            write!(f, "{x} ")?;
        }
        write!(f, "{} {}", self.stores[1], self.to_move.letter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `parse_form` says a text is the display form exactly when it is
    /// (on random texts over the characters that matter), and reads the
    /// same position with or without the white space around it.
    #[test]
    fn parse_form_knows_the_display_form() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let alphabet: Vec<char> = "0123456789 ,,\t\r\u{b}SNsnx-+.".chars().collect();
        let (mut read, mut displayed) = (0, 0);
        for round in 0..200_000 {
            let text: String = if round % 2 == 0 {
                // Random counts and separators: mostly valid positions.
                let pits = 1 + next(9) as usize;
                let plain = next(3) == 0;
                let mut t = String::new();
                for _ in 0..2 * pits + 2 {
                    let bound = if next(4) == 0 { 300 } else { 12 };
                    if !plain && next(30) == 0 {
                        t.push('0');
                    }
                    t.push_str(&next(bound).to_string());
                    let sep = if plain { 0 } else { next(10) as usize };
                    t.push_str([" ", " ", " ", " ", " ", ",", ", ", "  ", "\t", " ,"][sep]);
                }
                t.push(['S', 'N', 'S', 'N', 's', 'n', 'X'][next(7) as usize]);
                let end = if plain { 0 } else { next(8) as usize };
                t.push_str(["", "", "", " ", ",", ",,", "\r", " S"][end]);
                t
            } else {
                let len = next(40) as usize;
                (0..len)
                    .map(|_| alphabet[next(alphabet.len() as u64) as usize])
                    .collect()
            };
            if let Ok((p, canonical)) = Position::parse_form(text.as_bytes()) {
                assert_eq!(canonical, p.to_string() == text, "{text:?}");
                read += 1;
                displayed += canonical as usize;
                assert_eq!(text.parse::<Position>(), Ok(p), "{text:?}");
                assert_eq!(text.trim().parse::<Position>(), Ok(p), "{text:?}");
            }
        }
        assert!(read > 10_000 && displayed > 1_000, "{read} {displayed}");
        for text in [
            "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S",
            "4,4,4,4,4,4,0,4,4,4,4,4,4,0,S",
            " 0 2 0 0 1 0 14 0 1 0 1 0 0 15 n\r",
            "255 0 0 0 N",
        ] {
            let p = Position::parse_common(text.as_bytes()).expect(text);
            assert_eq!(text.parse::<Position>(), Ok(p));
            assert_eq!(
                Position::parse_common_form(p.to_string().as_bytes()),
                Some((p, true))
            );
        }
        for (text, shown) in [
            ("0255 0 0 0 N", "255 0 0 0 N"),
            ("+4 0 0 0 n", "4 0 0 0 N"),
            ("-0 1 000 2 South", "0 1 0 2 S"),
            ("1 2,3\t4 north", "1 2 3 4 N"),
        ] {
            let (p, canonical) = Position::parse_form(text.as_bytes()).expect(text);
            assert_eq!((p.to_string().as_str(), canonical), (shown, false));
        }
    }

    /// Every error, and which one wins when several apply: two separators
    /// in a row, then the last token, then the first bad count, then the
    /// number of counts, then the sizes.
    #[test]
    fn errors_name_the_token_and_why() {
        let many = "1 ".repeat(20) + "S";
        for (text, message) in [
            (
                "",
                "empty position: expected 2m+2 counts and a side (S or N)",
            ),
            (
                " ,\t",
                "empty position: expected 2m+2 counts and a side (S or N)",
            ),
            ("x 4,,4 Q", "token 3 is empty: two separators in a row"),
            (
                "x 0 0 0 4",
                "the side to move is missing: end the position with S or N",
            ),
            (
                "x 0 0 0 -4",
                "the side to move is missing: end the position with S or N",
            ),
            (
                "x 0 0 0 Q",
                "token 5 'Q' is not a side: the last token must be S or N",
            ),
            (
                "0 0 0 99999999999999999999",
                "token 4 '99999999999999999999' is not a side: the last token must be S or N",
            ),
            (
                "0 x y 0 S",
                "token 2 'x' is not a seed count (a whole number 0..255)",
            ),
            (
                "0 + 0 0 S",
                "token 2 '+' is not a seed count (a whole number 0..255)",
            ),
            (
                "0 S 0 0 0 S",
                "token 2 'S' is a side, but the side to move must be the last token",
            ),
            (
                "- 0 0 0 S",
                "token 1 '-' is negative: seed counts are 0 or more",
            ),
            (
                "0 -3 0 0 S",
                "token 2 '-3' is negative: seed counts are 0 or more",
            ),
            (
                "0 0 -99999999999999999999 0 S",
                "token 3 '-99999999999999999999' is negative: seed counts are 0 or more",
            ),
            (
                "256 0 0 0 N",
                "token 1 '256' is too large: a game holds at most 255 seeds",
            ),
            (
                "0 99999999999999999999 0 0 S",
                "token 2 '99999999999999999999' is too large: a game holds at most 255 seeds",
            ),
            (
                "0 +99999999999999999999 0 0 S",
                "token 2 '+99999999999999999999' is not a seed count (a whole number 0..255)",
            ),
            (
                "0 0 0 S",
                "3 counts is odd: a position has 2m+2 counts (m houses and a store a side)",
            ),
            (
                "0 0 S",
                "2 counts is too few: a position has at least 4 (one house and a store a side)",
            ),
            (many.as_str(), "9 houses a side: at most 8 are supported"),
            (
                "200 0 0 0 100 0 0 0 S",
                "300 seeds in all: at most 255 are supported",
            ),
        ] {
            let error = text.parse::<Position>().expect_err(text);
            assert_eq!(error.to_string(), message, "{text:?}");
            let bytes = Position::parse_form(text.as_bytes()).expect_err(text);
            assert_eq!(bytes, error, "{text:?}");
        }
        assert_eq!(
            Position::parse_form(b"\xff 0 0 0 S"),
            Err(PositionError::NotANumber {
                token: 1,
                text: "\u{fffd}".into()
            })
        );
    }
}
