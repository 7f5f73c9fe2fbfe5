//! `turns`: every first turn of the game solved exactly, each in turn,
//! over the root solve's work directory and records
//! ([`kalah_cluster::turns`]), each with its certificate.

use kalah::service::Error;
use kalah_solver::search::PvMove;
use kalah_solver::{Game, Position, Probe, Side};
use serde::Serialize;

use kalah_cluster::coordinator::{coordinate, Settings};
use kalah_cluster::plan::TopTree;
use kalah_cluster::store::WorkDir;
use kalah_cluster::turns::{
    certificate_path, first_turns, next_seq, read_ledger, reused, spent_since, write_ledger,
    FirstTurn, TurnLedger, TurnResult,
};
use kalah_cluster::worker::UnitSolver;
use kalah_cluster::{report, ClusterError};

use crate::args::SolveArgs;
use crate::solve::{open_run, start_of, tables_of, worker_tt_mb};
use crate::{failure, print_json, print_line};

/// One turn of the answer: its ledger's result with its name and place.
#[derive(Serialize)]
struct TurnJson<'a> {
    turn: &'a str,
    position: &'a str,
    frontier: u32,
    /// Solved by this run (false: read back from the ledger).
    solved_now: bool,
    #[serde(flatten)]
    result: &'a TurnResult,
}

pub(crate) fn turns(a: &SolveArgs) -> Result<(), Error> {
    if !a.local {
        return Err(Error::Input(
            "kalah-cluster turns answers the units in this process: add --local".into(),
        ));
    }
    let start = start_of(&a.game)?;
    let rules = a.game.rules.rules();
    let game = Game::new(a.game.pits, rules);
    let tables = tables_of(&a.game, false)?;
    let table_seeds = tables.as_ref().map(|t| t.max_seeds());
    // The root solve's own run: the same flags open the same directory.
    let (_, config, mut dir) = open_run(a, start, table_seeds)?;
    let (frontier, cut_early) = (config.frontier, config.cut_early);
    let probe = tables.as_ref().map(|t| &**t as &dyn Probe);
    let tt_mb = worker_tt_mb(a, start, tables.as_deref());
    let threads = if a.threads == 0 {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    } else {
        a.threads
    };
    let solver =
        UnitSolver::threaded(game.clone(), tables.clone(), tt_mb, threads).map_err(failure)?;
    let mut engine = kalah_cluster::local::LocalEngine::new(solver);
    let all = first_turns(&game, start, frontier);
    let mut answers = Vec::with_capacity(all.len());
    let mut result = Ok(());
    for (i, turn) in all.iter().enumerate() {
        let label = turn.label();
        match solve_turn(
            a,
            &game,
            start,
            turn,
            &mut dir,
            &mut engine,
            probe,
            cut_early,
        ) {
            Ok((ledger, now)) => {
                if let Some(r) = &ledger.result {
                    eprintln!(
                        "kalah-cluster: turn {label} ({} of {}): value {:+} for the first player; {} units new, {} reused of {} in its proof",
                        i + 1,
                        all.len(),
                        r.value,
                        r.units_new,
                        r.units_reused,
                        r.proof_units
                    );
                }
                answers.push((ledger, now));
            }
            Err(e) => {
                result = Err(failure(e));
                break;
            }
        }
    }
    if a.pack {
        match dir.pack() {
            Ok(Some((path, n))) => {
                eprintln!("kalah-cluster: packed {n} records into {}", path.display())
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("kalah-cluster: could not pack the records: {e} (they stay in units/)")
            }
        }
    }
    result?;
    print_turns(a, &game, &answers)
}

/// Solves one turn (or reads it back when its ledger has a result): the
/// ledger and whether this run solved it.
#[allow(clippy::too_many_arguments)]
fn solve_turn(
    a: &SolveArgs,
    game: &Game,
    start: Position,
    turn: &FirstTurn,
    dir: &mut WorkDir,
    engine: &mut kalah_cluster::local::LocalEngine,
    probe: Option<&dyn Probe>,
    cut_early: u32,
) -> Result<(TurnLedger, bool), ClusterError> {
    let label = turn.label();
    let loaded = dir.load()?;
    let ledger = match read_ledger(&a.work, &label)? {
        Some(l) if l.result.is_some() => return Ok((l, false)),
        Some(l) => l,
        None => {
            let l = TurnLedger {
                turn: label.clone(),
                houses: turn.houses.clone(),
                position: turn.position.to_string(),
                frontier: turn.frontier,
                first_seq: next_seq(&loaded.records),
                result: None,
            };
            write_ledger(&a.work, &l)?;
            l
        }
    };
    for r in &loaded.refused {
        eprintln!("kalah-cluster: refused (recomputed): {r}");
    }
    eprintln!(
        "kalah-cluster: turn {label}: {}, {} to move, frontier {} ({} units in the work directory)",
        turn.position,
        turn.position.to_move().letter(),
        turn.frontier,
        loaded.records.len()
    );
    let mut tree = TopTree::new(game, probe, turn.frontier, turn.position, 0);
    tree.ahead = a.ahead;
    tree.cut_early = cut_early;
    let settings = Settings {
        budget: a.unit_budget,
        policy: a.policy.policy(),
        progress_every: a.progress,
        progress_json: a.json,
        model_nodes: None,
    };
    let identity = dir.config().identity.clone();
    let done = coordinate(&tree, &identity, &loaded.records, engine, dir, settings)?;
    // The perfect game from the game's start: the turn, then the solve's.
    let mut line: Vec<PvMove> = Vec::new();
    let mut pos = start;
    for &h in &turn.houses {
        let side = pos.to_move();
        let played = pos
            .play(game, h)
            .map_err(|e| ClusterError::Proof(format!("turn {label}: {e}")))?;
        line.push(PvMove {
            side,
            house: h,
            extra_turn: played.extra_turn,
            position: pos,
        });
    }
    line.extend(done.solved.pv.iter().cloned());
    let value = match turn.position.to_move() {
        Side::South => done.solved.value,
        Side::North => -done.solved.value,
    };
    let houses: Vec<usize> = line.iter().map(|m| m.house).collect();
    let replayed = report::replay(game, start, &houses).map_err(|e| ClusterError::Proof(e.0))?;
    if replayed != value {
        return Err(ClusterError::Proof(format!(
            "turn {label}: the perfect game found ends {replayed:+}, not the value {value:+}: refused"
        )));
    }
    let loaded = dir.load()?;
    let cert = kalah_cluster::certify::certificate(
        game,
        turn.position,
        a.game.seeds,
        turn.frontier,
        &loaded.records,
        probe,
        (&done.root, Some(&done.solved)),
    )?;
    if cert.header.lower != value || cert.header.upper != value {
        return Err(ClusterError::Proof(format!(
            "turn {label}: the certificate proves {} <= value <= {}, the solve found {value:+}",
            cert.header.lower, cert.header.upper
        )));
    }
    let cert_path = certificate_path(&a.work, &label);
    cert.write(&cert_path)
        .map_err(|e| ClusterError::Proof(e.to_string()))?;
    let (units_new, nodes_new, seconds_new, cancelled_new) =
        spent_since(&loaded.records, &loaded.cancelled, ledger.first_seq);
    let (proof_units, units_reused, nodes_reused) =
        reused(&cert, &loaded.records, ledger.first_seq);
    let ledger = TurnLedger {
        result: Some(TurnResult {
            value,
            line: kalah_solver::query::pv_line(&line).to_string(),
            units_new,
            nodes_new,
            seconds_new,
            cancelled_new,
            proof_units,
            units_reused,
            nodes_reused,
            certificate: cert_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }),
        ..ledger
    };
    write_ledger(&a.work, &ledger)?;
    Ok((ledger, true))
}

fn print_turns(a: &SolveArgs, game: &Game, answers: &[(TurnLedger, bool)]) -> Result<(), Error> {
    let rows: Vec<TurnJson<'_>> = answers
        .iter()
        .filter_map(|(l, now)| {
            l.result.as_ref().map(|r| TurnJson {
                turn: &l.turn,
                position: &l.position,
                frontier: l.frontier,
                solved_now: *now,
                result: r,
            })
        })
        .collect();
    if a.json {
        let j = serde_json::json!({
            "pits": game.pits(),
            "seeds": a.game.seeds,
            "rules": game.rules().slug(),
            "work": a.work.display().to_string(),
            "best": rows.iter().map(|r| r.result.value).max(),
            "turns": rows,
        });
        print_json(&j)?;
        return Ok(());
    }
    print_line(format_args!(
        "Kalah({},{}), {}: the first turns (values for the first player)",
        game.pits(),
        a.game.seeds,
        game.rules()
    ))?;
    print_line(format_args!(
        "{:<8} {:>6} {:>10} {:>14} {:>12} {:>14} {:>10}",
        "turn", "value", "units new", "nodes new", "units reused", "nodes reused", "seconds"
    ))?;
    for r in &rows {
        print_line(format_args!(
            "{:<8} {:>+6} {:>10} {:>14} {:>12} {:>14} {:>10.1}",
            r.turn,
            r.result.value,
            r.result.units_new,
            r.result.nodes_new,
            r.result.units_reused,
            r.result.nodes_reused,
            r.result.seconds_new
        ))?;
    }
    for r in &rows {
        print_line(format_args!("{}: {}", r.turn, r.result.line))?;
    }
    print_line(format_args!(
        "certificates: {} (check each with `kalah certify FILE`)",
        kalah_cluster::turns::turns_dir(&a.work).display()
    ))?;
    Ok(())
}
