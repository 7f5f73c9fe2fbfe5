//! The work directory's own commands: `status` (where a run stands),
//! `pack` (its loose records into a sealed segment) and `certificate`
//! (the proof its records make), each over a replay of the top tree.

use std::path::PathBuf;
use std::sync::Arc;

use kalah::flags::TableArgs;
use kalah::service::Error;
use kalah_solver::table::Tables;
use kalah_solver::{Game, Position, Probe};

use kalah::certificate::Certificate;
use kalah_cluster::plan::TopTree;
use kalah_cluster::store::{Busy, RunConfig, WorkDir};
use kalah_cluster::turns::FirstTurn;

use crate::args::{CertificateArgs, PackArgs, StatusArgs};
use crate::{failure, print_json, print_line};

pub(crate) fn pack(a: &PackArgs) -> Result<(), Error> {
    let (config, _) = RunConfig::read(&a.work).map_err(|e| Error::Input(e.to_string()))?;
    let dir = WorkDir::open(&a.work, &config, Busy::Refuse).map_err(failure)?;
    match dir.pack().map_err(failure)? {
        Some((path, n)) => print_line(format_args!("packed {n} records into {}", path.display()))?,
        None => print_line(format_args!(
            "{}: no loose records to pack",
            a.work.display()
        ))?,
    }
    Ok(())
}

/// A work directory read without its lock and replayed: its run, its
/// records, the tables it probes (when here), and the top tree's plan.
pub(crate) struct Replayed {
    pub(crate) config: RunConfig,
    pub(crate) game: Game,
    pub(crate) start: Position,
    pub(crate) loaded: kalah_cluster::store::Loaded,
    pub(crate) tables: Option<Arc<Tables>>,
}

impl Replayed {
    pub(crate) fn open(work: &std::path::Path, tables: Option<PathBuf>) -> Result<Replayed, Error> {
        let (config, rules) = RunConfig::read(work).map_err(|e| Error::Input(e.to_string()))?;
        let id = &config.identity;
        let start = Position::start(id.pits, id.seeds).map_err(failure)?;
        let game = Game::new(id.pits, rules);
        let loaded = kalah_cluster::store::read_records(work, id).map_err(failure)?;
        let table_args = TableArgs {
            tables,
            table_seeds: Some(id.table_seeds),
            no_tables: id.table_seeds == 0,
        };
        let (tables, _) =
            kalah::service::setup::open_present(&table_args.policy(), id.pits, rules, false)
                .unwrap_or((None, None));
        Ok(Replayed {
            config,
            game,
            start,
            loaded,
            tables,
        })
    }

    pub(crate) fn probe(&self) -> Option<&dyn Probe> {
        self.tables.as_ref().map(|t| &**t as &dyn Probe)
    }

    /// The coordinator's plan over the records.
    pub(crate) fn plan(&self) -> Result<kalah_cluster::plan::Plan, Error> {
        self.plan_from(self.start, self.config.frontier)
    }

    /// The coordinator's plan over the records of the solve from `start`
    /// with `frontier` (a first turn's: see `kalah_cluster::turns`).
    pub(crate) fn plan_from(
        &self,
        start: Position,
        frontier: u32,
    ) -> Result<kalah_cluster::plan::Plan, Error> {
        use kalah_cluster::facts::Facts;
        let mut facts = Facts::default();
        for r in &self.loaded.records {
            facts.add(r.key().map_err(failure)?, r.verdict);
            r.known.iter().for_each(|k| facts.add_known(k));
        }
        let mut tree = TopTree::new(&self.game, self.probe(), frontier, start, 0);
        tree.cut_early = self.config.cut_early;
        tree.plan(&mut facts).map_err(failure)
    }
}

pub(crate) fn write_certificate(a: &CertificateArgs) -> Result<(), Error> {
    if a.first_turns {
        return write_turn_certificates(a);
    }
    let r = Replayed::open(&a.work, a.tables.clone())?;
    let plan = r.plan()?;
    let t0 = std::time::Instant::now();
    let cert = kalah_cluster::certify::certificate(
        &r.game,
        r.start,
        r.config.identity.seeds,
        r.config.frontier,
        &r.loaded.records,
        r.probe(),
        (&plan.root, plan.solved.as_ref()),
    )
    .map_err(failure)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| a.work.join("certificate.jsonl.gz"));
    cert.write(&out).map_err(failure)?;
    let h = &cert.header;
    if a.json {
        print_line(format_args!(
            "{}",
            serde_json::json!({
                "certificate": out.display().to_string(),
                "lower": h.lower,
                "upper": h.upper,
                "facts": h.facts,
                "expanded": h.expanded,
                "perfect_game": !h.perfect_game.is_empty(),
                "records": r.loaded.records.len(),
                "seconds": t0.elapsed().as_secs_f64(),
            })
        ))?;
        return Ok(());
    }
    print_line(format_args!(
        "{}: {} <= value <= {} from {} facts of {} records over {} expanded boards{} ({:.1} s); check it with `kalah certify {}`",
        out.display(),
        h.lower,
        h.upper,
        h.facts,
        r.loaded.records.len(),
        h.expanded,
        if h.perfect_game.is_empty() { "" } else { ", with a perfect game" },
        t0.elapsed().as_secs_f64(),
        out.display()
    ))?;
    Ok(())
}

pub(crate) fn status(a: &StatusArgs) -> Result<(), Error> {
    let r = Replayed::open(&a.work, a.tables.clone())?;
    let plan = r.plan()?;
    let (config, loaded, tables) = (&r.config, &r.loaded, &r.tables);
    let id = &config.identity;
    let running = kalah_cluster::store::is_busy(&a.work).map_err(failure)?;
    let sum = |rs: &[kalah_cluster::unit::UnitRecord]| {
        rs.iter()
            .fold((0u64, 0.0f64), |(n, s), r| (n + r.nodes, s + r.seconds))
    };
    let (unit_nodes, unit_seconds) = sum(&loaded.records);
    let (cancelled_nodes, cancelled_seconds) = sum(&loaded.cancelled);
    let split = loaded
        .records
        .iter()
        .filter(|r| r.verdict == kalah_cluster::unit::Verdict::Split)
        .count();
    let mut j = serde_json::json!({
        "work": a.work.display().to_string(),
        "pits": id.pits,
        "seeds": id.seeds,
        "rules": id.rules,
        "table_seeds": id.table_seeds,
        "tables_open": tables.is_some(),
        "frontier": config.frontier,
        "cut_early": config.cut_early,
        "unit_budget": config.budget,
        "running": running,
        "segments": loaded.segments,
        "units": loaded.records.len(),
        "split_units": split,
        "cancelled_units": loaded.cancelled.len(),
        "refused": loaded.refused,
        "nodes": unit_nodes + cancelled_nodes,
        "cancelled_nodes": cancelled_nodes,
        "cpu_seconds": unit_seconds + cancelled_seconds,
        "guess": plan.root.guess,
        "tests": plan.root.tests.iter().map(|&(b, h)| serde_json::json!({"beta": b, "holds": h})).collect::<Vec<_>>(),
        "lower": plan.root.lower,
        "upper": plan.root.upper,
        "testing": plan.root.beta,
        "units_needed_next": plan.required,
        "solved": plan.solved.as_ref().map(|s| s.value),
    });
    let turns = if a.first_turns {
        turn_certificates(&r).collect::<Result<Vec<_>, Error>>()?
    } else {
        Vec::new()
    };
    if a.first_turns {
        j["first_turns"] = turns
            .iter()
            .map(|(t, c)| {
                serde_json::json!({
                    "turn": t.label(),
                    "lower": c.header.lower,
                    "upper": c.header.upper,
                    "facts": c.header.facts,
                })
            })
            .collect();
    }
    if a.json {
        print_json(&j)?;
        return Ok(());
    }
    let mut out = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(
        out,
        "{}: Kalah({},{}), rules {}, frontier {}, cut nodes {} above it, unit budget {}; latest tables {} seeds{}",
        a.work.display(),
        id.pits,
        id.seeds,
        id.rules,
        config.frontier,
        config.cut_early,
        config.budget,
        id.table_seeds,
        if tables.is_some() { "" } else { " (not here: replayed without them)" }
    );
    let _ = writeln!(
        out,
        "{}",
        if running {
            "running now (a process holds its lock)"
        } else {
            "not running"
        }
    );
    let _ = writeln!(
        out,
        "records: {} units ({split} split) in {} segments and loose files, {} cancelled, {} refused",
        loaded.records.len(),
        loaded.segments,
        loaded.cancelled.len(),
        loaded.refused.len()
    );
    for r in &loaded.refused {
        let _ = writeln!(out, "  refused: {r}");
    }
    let _ = writeln!(
        out,
        "work: {} nodes ({} in cancelled units), {:.2} hours of unit search (wall, per unit; stretches.tsv has the CPU time)",
        unit_nodes + cancelled_nodes,
        cancelled_nodes,
        (unit_seconds + cancelled_seconds) / 3600.0
    );
    let tests: Vec<String> = plan
        .root
        .tests
        .iter()
        .map(|&(b, h)| format!("{}{b}", if h { ">=" } else { "<" }))
        .collect();
    let _ = writeln!(
        out,
        "root: first guess {}, tests {}; value in [{}, {}]",
        plan.root.guess.map_or("-".into(), |g| format!("{g:+}")),
        if tests.is_empty() {
            "none yet".into()
        } else {
            tests.join(" ")
        },
        plan.root.lower,
        plan.root.upper
    );
    let _ = match (&plan.solved, plan.root.beta) {
        (Some(s), _) => writeln!(out, "solved: value {:+}", s.value),
        (None, Some(b)) => writeln!(
            out,
            "next: the test value >= {b} waits on {} units",
            plan.required
        ),
        (None, None) => writeln!(out, "next: {} units", plan.required),
    };
    for (t, c) in &turns {
        let h = &c.header;
        let _ = writeln!(
            out,
            "first turn {:>4}: {:+} <= value <= {:+} for the first player, from {} facts",
            t.label(),
            h.lower,
            h.upper,
            h.facts
        );
    }
    print_line(format_args!("{}", out.trim_end()))?;
    Ok(())
}

/// Each first turn of the run's game with its certificate from the
/// records as they are: the bounds they prove on the turn's value, for
/// the first player (the turn's own root tests, where `turns` has run
/// them; otherwise what the root solve's facts give below it). One turn
/// at a time, as the caller takes them.
fn turn_certificates(
    r: &Replayed,
) -> impl Iterator<Item = Result<(FirstTurn, Certificate), Error>> + '_ {
    kalah_cluster::turns::first_turns(&r.game, r.start, r.config.frontier)
        .into_iter()
        .map(move |turn| {
            let plan = r.plan_from(turn.position, turn.frontier)?;
            let cert = kalah_cluster::certify::certificate(
                &r.game,
                turn.position,
                r.config.identity.seeds,
                turn.frontier,
                &r.loaded.records,
                r.probe(),
                (&plan.root, plan.solved.as_ref()),
            )
            .map_err(failure)?;
            Ok((turn, cert))
        })
}

/// `certificate --first-turns`: one certificate a first turn, from the
/// records as they are (bounds where a turn is not solved yet).
fn write_turn_certificates(a: &CertificateArgs) -> Result<(), Error> {
    let r = Replayed::open(&a.work, a.tables.clone())?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| kalah_cluster::turns::turns_dir(&a.work));
    std::fs::create_dir_all(&out).map_err(|e| failure(format!("{}: {e}", out.display())))?;
    let mut written = Vec::new();
    for turn_cert in turn_certificates(&r) {
        let (turn, cert) = turn_cert?;
        let path = out.join(format!("{}.certificate.jsonl.gz", turn.label()));
        cert.write(&path).map_err(failure)?;
        let h = &cert.header;
        if !a.json {
            print_line(format_args!(
                "turn {}: {}: {} <= value <= {} for the first player, from {} facts{}",
                turn.label(),
                path.display(),
                h.lower,
                h.upper,
                h.facts,
                if h.perfect_game.is_empty() {
                    ""
                } else {
                    ", with a perfect game"
                }
            ))?;
        }
        written.push(serde_json::json!({
            "turn": turn.label(),
            "certificate": path.display().to_string(),
            "lower": h.lower,
            "upper": h.upper,
            "facts": h.facts,
            "expanded": h.expanded,
            "perfect_game": !h.perfect_game.is_empty(),
        }));
    }
    if a.json {
        print_json(&serde_json::json!({ "turns": written }))?;
    }
    Ok(())
}
