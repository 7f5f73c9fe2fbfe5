//! A run's certificate ([`kalah::certificate`]) from its records: the
//! facts its units established, the top of the tree above them, the
//! tightest bounds on the start they prove, and the perfect game when
//! they prove the value.
//!
//! The bounds come from the certificate's own prover (negamax over the
//! facts, no search), not from the coordinator's replay: the two are
//! written independently, and the coordinator's claim must be one the
//! prover also proves, or no certificate is written.

use std::collections::HashSet;

use kalah::certificate::{
    south_bounds, Certificate, Fact, FactTable, Header, Prover, FORMAT, FORMAT_FROM,
};
use kalah_solver::{Board, Game, Position, Probe};

use crate::error::ClusterError;
use crate::plan::{RootState, Solved};
use crate::unit::{UnitRecord, Verdict};

/// The certificate of the records of a run of `game` from `start`: units
/// at most `frontier` sowings below the start, or below a split unit.
/// `start` may be any position of the game of `seeds` a house (the
/// position after a first turn, say): the certificate then names it
/// ([`FORMAT_FROM`]), and its bounds are the first player's (South's),
/// stores counted, as they are from the game's start.
/// `claim` is the coordinator's replay of the same records (its bounds and
/// perfect game, when solved); `probe` the tables the run read small
/// boards from.
///
/// # Errors
/// Records that contradict each other (both units named), or a claim of
/// the coordinator the facts do not prove.
pub fn certificate(
    game: &Game,
    start: Position,
    seeds: usize,
    frontier: u32,
    records: &[UnitRecord],
    probe: Option<&dyn Probe>,
    claim: (&RootState, Option<&Solved>),
) -> Result<Certificate, ClusterError> {
    let mut facts = FactTable::default();
    let mut split = HashSet::new();
    for r in records {
        let key = r.key()?;
        let unit = key.stem();
        let (lower, upper) = match r.verdict {
            Verdict::AtLeast => (Some(key.beta), None),
            Verdict::Below => (None, Some(key.beta - 1)),
            Verdict::Exact(v) => (Some(v), Some(v)),
            Verdict::Split => {
                split.insert(key.board);
                (None, None)
            }
        };
        if lower.is_some() || upper.is_some() {
            facts
                .add(&Fact {
                    board: key.board,
                    lower,
                    upper,
                    unit: unit.clone(),
                })
                .map_err(ClusterError::Proof)?;
        }
        for k in &r.known {
            facts
                .add(&Fact {
                    board: k.board,
                    lower: k.lower,
                    upper: k.upper,
                    unit: format!("{unit} (known)"),
                })
                .map_err(ClusterError::Proof)?;
        }
    }
    let oracle = |b: Board| {
        probe
            .filter(|p| b.seeds() <= p.max_seeds())
            .and_then(|p| p.probe(b))
    };
    let mut prover = Prover::new(game, &facts, |b: Board, depth: u32| {
        depth < frontier || split.contains(&b)
    })
    .with_oracle(&oracle);
    let root = start.board();
    let (lower, upper) = prover.tightest(root);
    let (state, solved) = claim;
    if state.lower > lower || state.upper < upper {
        return Err(ClusterError::Proof(format!(
            "the coordinator's replay gives {} <= value <= {}, the records prove {lower} <= value <= {upper}: a fault in one of the two",
            state.lower, state.upper
        )));
    }
    // The solved value is the mover's, stores counted.
    let perfect_game = match solved {
        Some(s) if lower == upper && s.value == lower + start.store_difference() => {
            s.pv.iter().map(|m| m.house).collect()
        }
        _ => Vec::new(),
    };
    let proof = prover.extract(root, lower, upper);
    let from_start = Position::start(game.pits(), seeds).ok() == Some(start);
    let (south_lower, south_upper) = south_bounds(&start, lower, upper);
    Ok(Certificate {
        header: Header {
            kalah_certificate: if from_start { FORMAT } else { FORMAT_FROM },
            pits: game.pits(),
            seeds,
            rules: game.rules().slug(),
            start: (!from_start).then(|| start.to_string()),
            lower: south_lower,
            upper: south_upper,
            perfect_game,
            facts: proof.facts.len(),
            expanded: proof.expanded.len(),
        },
        facts: proof.facts,
        expanded: proof.expanded,
    })
}
