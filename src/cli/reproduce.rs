//! `kalah reproduce`: solves the published instances and prints them beside
//! the published values, replays IDU's perfect games, and exits 1 on any
//! disagreement.

use std::fs;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use kalah_solver::{Game, Line, Numbering, Position, Rules};

use super::common::{count, start_position, CliError, PITS_RANGE, SEEDS_RANGE};
use super::output;
use super::solve::{solve_start, turn_text};
use crate::flags::values::usize_in;
use crate::flags::{EndArg, RulesArgs, SearchArgs, TableArgs};
use crate::outln;
use crate::output::json_line;
use crate::progress::note;
use crate::published::{claims, Claim, Outcome, IDU_GAMES};
use crate::report::{self, GameCheck, Row, Status};
use crate::service::answer::round3;
use serde::Serialize;

/// Where the `source` column's short names are cited in full.
pub const SOURCES_LINE: &str = "sources (the source column): full citations in docs/REFERENCES.md";

/// Which rule sets to solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RuleChoice {
    /// Empty capture only (the rule of IDU 2000's tables).
    EmptyCapture,
    /// The standard capture rule only.
    Standard,
    /// Both, empty capture first.
    Both,
}

/// Arguments of `kalah reproduce`.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Rule sets to solve.
    #[arg(long, value_enum, default_value_t = RuleChoice::Both)]
    pub rules: RuleChoice,
    /// Solve under empty capture only: the same as `--rules empty-capture`
    /// (the rule flag every command takes).
    #[arg(long, conflicts_with = "rules")]
    pub empty_capture: bool,
    /// The end rule: the published results are all for `sweep`, the only
    /// value taken here (the flag every command takes, so that a command
    /// line written for the others is understood).
    #[arg(long, value_enum, default_value_t = EndArg::Sweep)]
    pub end: EndArg,
    /// Largest number of houses a side (1..=8).
    #[arg(long, default_value_t = 6, value_parser = usize_in(PITS_RANGE))]
    pub max_pits: usize,
    /// Largest number of seeds a house at the start (1..=127; every
    /// instance must have 2mn <= 255).
    #[arg(long, default_value_t = 4, value_parser = usize_in(SEEDS_RANGE))]
    pub max_seeds: usize,
    /// Also solve Kalah(6,5) under both rules and the rest of m <= 5,
    /// n <= 6 (hours).
    #[arg(long)]
    pub full: bool,
    /// Skip the pie-rule column (it solves every first turn).
    #[arg(long)]
    pub no_pie: bool,
    /// Compare against claims in FILE too (lines "m n ec|std value", value a
    /// signed number or W, D, L; '#' starts a comment); they replace the
    /// built-in claim for the same instance.
    #[arg(long, value_name = "FILE")]
    pub published: Option<PathBuf>,
    /// Print JSON instead of the text table.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print Markdown instead of the text table.
    #[arg(long)]
    pub markdown: bool,
    /// Also write the SVG heat map of the values to FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Also write DIR/reproduce.md, DIR/reproduce.json and DIR/reproduce.svg.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub tables: TableArgs,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// Reads a claims file.
fn read_claims(path: &PathBuf) -> Result<Vec<Claim>, CliError> {
    let text = fs::read_to_string(path)
        .map_err(|e| CliError::Input(format!("cannot read {}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| {
            CliError::Input(format!(
                "{} line {}: {why}: '{line}'",
                path.display(),
                i + 1
            ))
        };
        let f: Vec<&str> = line.split_whitespace().collect();
        let [m, n, rule, value] = f[..] else {
            return Err(bad("expected 4 fields: m n ec|std value"));
        };
        let pits = m.parse().map_err(|_| bad("m is not a number"))?;
        let seeds = n.parse().map_err(|_| bad("n is not a number"))?;
        let empty_capture = match rule.to_ascii_lowercase().as_str() {
            "ec" => true,
            "std" => false,
            _ => return Err(bad("the rule must be ec or std")),
        };
        let (value, outcome) = match value.to_ascii_uppercase().as_str() {
            "W" => (None, Some(Outcome::Win)),
            "D" => (None, Some(Outcome::Draw)),
            "L" => (None, Some(Outcome::Loss)),
            v => (
                Some(
                    v.trim_start_matches('+')
                        .parse::<i32>()
                        .map_err(|_| bad("the value must be a number or W, D, L"))?,
                ),
                None,
            ),
        };
        out.push(Claim {
            pits,
            seeds,
            empty_capture,
            value,
            outcome,
            source: "claims file",
        });
    }
    Ok(out)
}

/// The instances to solve, in the order that lets each rule set's tables
/// grow once: by rule, then houses, then seeds.
fn instances(args: &ReproduceArgs) -> Vec<(bool, usize, usize)> {
    let choice = if args.empty_capture {
        RuleChoice::EmptyCapture
    } else {
        args.rules
    };
    let rules: &[bool] = match choice {
        RuleChoice::EmptyCapture => &[true],
        RuleChoice::Standard => &[false],
        RuleChoice::Both => &[true, false],
    };
    let mut out = Vec::new();
    for &ec in rules {
        for m in 1..=args.max_pits {
            for n in 1..=args.max_seeds.max(if args.full { 6 } else { 0 }) {
                let default = m <= args.max_pits && n <= args.max_seeds;
                let full = args.full && ((m <= 5 && n <= 6) || (m == 6 && n == 5));
                if default || full {
                    out.push((ec, m, n));
                }
            }
        }
    }
    out
}

/// Replays every IDU perfect game under empty capture.
pub fn replay_games() -> Vec<GameCheck> {
    IDU_GAMES
        .iter()
        .map(|g| {
            let game = Game::new(g.pits, Rules::EMPTY_CAPTURE);
            let reached = Line::parse(g.line, Numbering::FromZero)
                .map_err(|e| e.to_string())
                .and_then(|line| {
                    let start = Position::start(g.pits, g.seeds).map_err(|e| e.to_string())?;
                    line.replay(&game, start).map_err(|e| e.to_string())
                })
                .and_then(|end| {
                    end.final_score(game.rules())
                        .ok_or_else(|| "the line stops before the end of the game".to_string())
                });
            GameCheck {
                pits: g.pits,
                seeds: g.seeds,
                line: g.line.to_string(),
                published: g.value,
                reached,
            }
        })
        .collect()
}

/// `kalah reproduce`.
pub fn reproduce(args: &ReproduceArgs) -> Result<(), CliError> {
    if args.end != EndArg::Sweep {
        return Err(CliError::Input(format!(
            "reproduce compares with published results, which are all for the sweep end rule: \
             --end {} is not taken here (solve one game under it with `kalah solve --end {0}`)",
            args.end
                .to_possible_value()
                .map_or_else(|| "?".to_string(), |v| v.get_name().to_string())
        )));
    }
    let todo = instances(args);
    // Every instance must be a valid game before hours go into the first.
    for &(_, m, n) in &todo {
        // Kalah(m,n) is named by the error itself.
        start_position(m, n).map_err(|e| {
            CliError::Input(format!(
                "--max-pits {} --max-seeds {}: {e}",
                args.max_pits, args.max_seeds
            ))
        })?;
    }
    let mut known = claims();
    if let Some(path) = &args.published {
        for c in read_claims(path)? {
            known.retain(|k| {
                (k.pits, k.seeds, k.empty_capture) != (c.pits, c.seeds, c.empty_capture)
            });
            known.push(c);
        }
    }
    let started = Instant::now();
    let plain = !args.json && !args.markdown;
    let pie = !args.no_pie;
    if plain {
        outln!("Kalah(m,n) solved from the start: the first player's final store difference under perfect play")?;
        outln!("{}", report::text_header(pie))?;
        output::flush()?;
    }
    let mut rows = Vec::new();
    for (ec, m, n) in todo {
        let rules = RulesArgs {
            empty_capture: ec,
            end: EndArg::Sweep,
        };
        let t = Instant::now();
        let r = solve_start(m, n, &rules, &args.tables, &args.search, pie, |_, _| Ok(()))?;
        let claim = known
            .iter()
            .find(|c| c.pits == m && c.seeds == n && c.empty_capture == ec)
            .cloned();
        let best_turn = r
            .solution
            .pv_line()
            .turns
            .first()
            .map(|t| turn_text(t))
            .unwrap_or_default();
        let row = Row {
            pits: m,
            seeds: n,
            empty_capture: ec,
            value: r.solution.value,
            claim,
            seconds: t.elapsed().as_secs_f64(),
            nodes: r.solution.stats.nodes,
            pie: r.turns.as_ref().map(|t| {
                (
                    t.pie.value,
                    t.pie.fairest.iter().map(|h| turn_text(h)).collect(),
                )
            }),
            best_turn,
        };
        if plain {
            outln!("{}", report::text_row(&row))?;
            output::flush()?;
        } else {
            note(&report::text_row(&row));
        }
        rows.push(row);
    }
    let games = replay_games();
    let mismatches = rows
        .iter()
        .filter(|r| r.status() == Status::Mismatch)
        .count()
        + games.iter().filter(|g| !g.ok()).count();
    let seconds = started.elapsed().as_secs_f64();
    let write = |path: &PathBuf, text: &str| {
        fs::write(path, text)
            .map_err(|e| CliError::Failure(format!("cannot write {}: {e}", path.display())))
    };
    #[derive(Serialize)]
    struct Reproduced<'a> {
        rows: Vec<report::RowJson<'a>>,
        games: Vec<report::GameCheckJson<'a>>,
        mismatches: usize,
        seconds: f64,
    }
    let json = json_line(&Reproduced {
        rows: rows.iter().map(Row::json).collect(),
        games: games.iter().map(GameCheck::json).collect(),
        mismatches,
        seconds: round3(seconds),
    });
    if let Some(path) = &args.svg {
        write(path, &report::svg(&rows))?;
    }
    if let Some(dir) = &args.out {
        fs::create_dir_all(dir)
            .map_err(|e| CliError::Failure(format!("cannot create {}: {e}", dir.display())))?;
        write(&dir.join("reproduce.md"), &report::markdown(&rows, &games))?;
        write(&dir.join("reproduce.json"), &format!("{json}\n"))?;
        write(&dir.join("reproduce.svg"), &report::svg(&rows))?;
    }
    if args.json {
        outln!("{json}")?;
    } else if args.markdown {
        let md = report::markdown(&rows, &games);
        outln!("{}", md.strip_suffix('\n').unwrap_or(&md))?;
    } else {
        outln!("\nIDU perfect games replayed under empty capture:")?;
        for g in &games {
            outln!(
                "  {}({})  published {:>3}  reached {:<8} {}",
                g.pits,
                g.seeds,
                report::signed(g.published),
                match &g.reached {
                    Ok(v) => report::signed(*v),
                    Err(e) => format!("error: {e}"),
                },
                if g.ok() { "ok" } else { "MISMATCH" }
            )?;
        }
        let matched = rows.iter().filter(|r| r.status() == Status::Match).count();
        outln!(
            "\n{} solved, {matched} match the literature, {}; {} of {} check; {seconds:.1} s",
            count(rows.len(), "instance"),
            count(mismatches, "disagreement"),
            games.iter().filter(|g| g.ok()).count(),
            count(games.len(), "game"),
        )?;
        outln!("{SOURCES_LINE}")?;
    }
    if mismatches > 0 {
        let what = if mismatches == 1 {
            "1 result disagrees".to_string()
        } else {
            format!("{mismatches} results disagree")
        };
        return Err(CliError::Failure(format!(
            "{what} with the published values"
        )));
    }
    Ok(())
}
