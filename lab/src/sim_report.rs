//! The answer of `kalah-lab simulate`: the speedup curve, what bounds it,
//! the fill that grounded it, as text or one JSON object (docs/json.md).

use std::fmt::Write as _;

use serde::Serialize;

use crate::fill::FillReport;
use crate::sim::{Chain, Dispatch, SimResult};
use kalah_cluster::coordinator::{Policy, UnitCounts};
use kalah_cluster::unit::UnitRecord;

/// One simulated worker count.
#[derive(Serialize, Debug)]
pub struct SimRun {
    pub workers: usize,
    /// Simulated seconds from the first unit to the answer.
    pub seconds: f64,
    /// The one-worker simulation's seconds over these (`null` without a
    /// one-worker simulation).
    pub speedup: Option<f64>,
    /// Worker time spent on units over the workers' whole time, and the
    /// rest.
    pub efficiency: f64,
    pub idle_fraction: f64,
    pub units: u64,
    pub cancelled_units: u64,
    pub nodes: u64,
    pub longest_unit_seconds: f64,
    /// Units issued without a record (their cost and perhaps verdict
    /// guessed); 0 for a grounded figure.
    pub guessed_units: usize,
    /// Issues answered from filled records (solved by `--fill`).
    pub filled_issues: u64,
    pub critical_chain: Chain,
    /// Times the coordinator planned the top tree, and the seconds of its
    /// thread's CPU time that took in this process.
    pub plans: u64,
    pub plan_seconds: f64,
    /// Seconds of all of the coordinator's own work in this process (its
    /// thread's CPU time), plans included; a real coordinator spends
    /// them while workers wait (on the simulated clock with
    /// `--charge-plans`).
    pub coordinator_seconds: f64,
    /// Of those, taking answers in, and handing units out.
    pub intake_seconds: f64,
    pub handout_seconds: f64,
    /// Units and nodes by kind: split, stopped and why, speculative,
    /// issued again to the same worker.
    pub counts: UnitCounts,
    /// `[seconds, step]` when each step of the root search was decided.
    pub timeline: Vec<(f64, String)>,
}

/// The whole answer.
#[derive(Serialize, Debug)]
pub struct SimReport {
    pub work: String,
    /// Nodes a second of one simulated worker, and the dispatch.
    pub rate: f64,
    pub latency: f64,
    pub waves: Option<f64>,
    /// Nodes of a guessed unit (`null`: the unit budget, or the median
    /// recorded test without one).
    pub guess_nodes: Option<u64>,
    /// `--recorded-cost`: the factor on the recorded units' nodes.
    pub recorded_cost: f64,
    /// The coordinator's policy, its fields at this level: `presplit`
    /// (`--presplit`), `preempt` (`--no-preempt`: false), `affinity`
    /// (`--no-affinity`: false), `known` (`--no-known`: false), `resume`
    /// (`--no-resume`: false), `recent_first` (`--no-recent-first`:
    /// false), `lazy` (`--lazy-plans`).
    #[serde(flatten)]
    pub policy: Policy,
    /// Root tests planned ahead of the pending one (`--ahead`).
    pub ahead: usize,
    /// Sowings above the frontier at which a cut node is a unit
    /// (`--cut-early`).
    pub cut_early: u32,
    /// Whether top-tree nodes learn their children's bounds (false:
    /// `--fail-hard`).
    pub fail_soft: bool,
    /// Records used (the run's and filled ones) and their nodes.
    pub recorded_units: usize,
    pub recorded_nodes: u64,
    /// Of the records, those a fill solved (this one or an earlier one).
    pub filled_units: usize,
    /// What this command's `--fill` did (`null` without `--fill`).
    pub fill: Option<FillReport>,
    /// A game `growth` times the work: `[workers, predicted seconds]`.
    pub growth: Option<f64>,
    pub predicted_seconds: Vec<(usize, f64)>,
    pub runs: Vec<SimRun>,
    /// `--emulate`: every unit was solved here on its simulated worker's
    /// own table ([`crate::emulate`]); the records were not used (`null`:
    /// a replay of the records).
    pub emulation: Option<EmuReport>,
}

/// What `--emulate` solved.
#[derive(Serialize, Debug)]
pub struct EmuReport {
    /// Each simulated worker's transposition table, MiB (its share of its
    /// machine's shared one when `rank_workers` is above 1).
    pub tt_mb: usize,
    /// Simulated workers a machine sharing one table (1: none shared).
    pub rank_workers: usize,
    /// The least work of a table entry the machines handed each other (0:
    /// none).
    pub share_work: u8,
    /// Threads of this process solving units.
    pub threads: usize,
    /// What-ifs (1 in a measurement): units the search needs searched at
    /// this many times the rate (`--needed-speed`), and the coordinator's
    /// own work on the clock at this many times its CPU time here
    /// (`--plan-cost`).
    pub needed_speed: f64,
    pub plan_cost: f64,
    pub runs: Vec<EmuRun>,
}

/// One emulated worker count.
#[derive(Serialize, Debug)]
pub struct EmuRun {
    pub workers: usize,
    /// The value the emulated solve found, and its perfect game.
    pub value: i32,
    pub pv: String,
    /// Nodes searched here (stopped units to their end).
    pub searched_nodes: u64,
    /// Simulated workers handed at least one unit.
    pub workers_used: usize,
    /// Wall-clock seconds of the emulation.
    pub wall_seconds: f64,
    /// Table entries the machines handed each other (each once).
    pub shared_entries: u64,
    /// Seconds this process took to store them into the other machines'
    /// tables, all machines together.
    pub share_seconds: f64,
}

impl SimReport {
    pub fn new(
        work: &str,
        records: &[UnitRecord],
        rows: &[SimResult],
        dispatch: Dispatch,
        growth: Option<f64>,
        fill: Option<FillReport>,
    ) -> SimReport {
        let t1 = rows.iter().find(|r| r.workers == 1).map(|r| r.seconds);
        let runs: Vec<SimRun> = rows
            .iter()
            .map(|r| SimRun {
                workers: r.workers,
                seconds: r.seconds,
                speedup: t1.map(|t| t / r.seconds),
                efficiency: 1.0 - r.idle(),
                idle_fraction: r.idle(),
                units: r.counts.units,
                cancelled_units: r.counts.cancelled_units,
                nodes: r.counts.total_nodes(),
                longest_unit_seconds: r.longest_unit,
                guessed_units: r.unrecorded.len(),
                filled_issues: r.filled_issues,
                critical_chain: r.chain.clone(),
                plans: r.plans,
                plan_seconds: r.plan_seconds,
                coordinator_seconds: r.coordinator_seconds,
                intake_seconds: r.intake_seconds,
                handout_seconds: r.handout_seconds,
                counts: r.counts,
                timeline: r.timeline.clone(),
            })
            .collect();
        let predicted_seconds = match (growth, t1) {
            (Some(g), Some(t1)) => predict(&runs, t1, g),
            _ => Vec::new(),
        };
        SimReport {
            work: work.to_string(),
            rate: dispatch.rate,
            latency: dispatch.latency,
            waves: dispatch.waves,
            guess_nodes: dispatch.guess_nodes,
            recorded_cost: dispatch.recorded_cost,
            policy: dispatch.policy,
            ahead: rows.first().map_or(0, |r| r.ahead),
            cut_early: rows.first().map_or(0, |r| r.cut_early),
            fail_soft: rows.first().is_none_or(|r| r.fail_soft),
            recorded_units: records.len(),
            recorded_nodes: records.iter().map(|r| r.nodes).sum(),
            filled_units: records.iter().filter(|r| r.filled).count(),
            fill,
            growth,
            predicted_seconds,
            runs,
            emulation: None,
        }
    }

    /// The report of an emulation (see [`SimReport::emulation`]).
    pub fn emulated(mut self, e: EmuReport) -> SimReport {
        self.emulation = Some(e);
        self
    }

    /// The answer for people.
    pub fn text(&self) -> String {
        let mut o = String::new();
        if let Some(e) = &self.emulation {
            let _ = writeln!(
                o,
                "emulation of {}'s game, rules, tables, frontier and budget: every unit solved here on its simulated worker's {} ({} threads), its time its nodes at {:.3e} nodes/s; presplit {}, preemption {}, affinity {}, {} root tests ahead, cut nodes up to {} sowings above the frontier as units, {}, {} s dispatch latency",
                self.work,
                if e.rank_workers > 1 {
                    format!(
                        "machine's {} MiB table, shared by {} workers",
                        e.tt_mb * e.rank_workers,
                        e.rank_workers
                    )
                } else {
                    format!("own {} MiB table", e.tt_mb)
                },
                e.threads,
                self.rate,
                self.policy.presplit,
                if self.policy.preempt { "on" } else { "off" },
                if self.policy.affinity { "on" } else { "off" },
                self.ahead,
                self.cut_early,
                if self.fail_soft { "fail-soft" } else { "fail-hard" },
                self.latency
            );
            let mut what_ifs = Vec::new();
            if e.needed_speed != 1.0 {
                what_ifs.push(format!(
                    "units the search needs search at {} times the rate",
                    e.needed_speed
                ));
            }
            if e.plan_cost != 1.0 {
                what_ifs.push(format!(
                    "the coordinator's own work costs {} times its CPU time here",
                    e.plan_cost
                ));
            }
            if !what_ifs.is_empty() {
                let _ = writeln!(o, "what-if, not a measurement: {}", what_ifs.join("; "));
            }
            if e.share_work > 0 {
                let _ = writeln!(
                    o,
                    "machines hand each other their table entries of work {} or more (subtrees of {} nodes or more)",
                    e.share_work,
                    1u64 << (e.share_work - 1).min(63)
                );
            }
            for r in &e.runs {
                let _ = writeln!(
                    o,
                    "{:>8} workers: value {:+}, perfect game {}, {} workers used, {:.3e} nodes searched here in {:.0} s",
                    r.workers,
                    r.value,
                    r.pv,
                    r.workers_used,
                    r.searched_nodes as f64,
                    r.wall_seconds
                );
                if e.share_work > 0 {
                    let _ = writeln!(
                        o,
                        "{:>8}   {:.3e} table entries handed on, stored into the other machines' tables in {:.2} s here",
                        "",
                        r.shared_entries as f64,
                        r.share_seconds
                    );
                }
            }
        } else {
            let _ = writeln!(
            o,
            "replay of {} ({} units recorded, {} of them filled), {:.3e} nodes/s a worker, recorded units x{}, presplit {}, preemption {}, affinity {}, {} root tests ahead, cut nodes up to {} sowings above the frontier as units, {}",
            self.work,
            self.recorded_units,
            self.filled_units,
            self.rate,
            self.recorded_cost,
            self.policy.presplit,
            if self.policy.preempt { "on" } else { "off" },
            if self.policy.affinity { "on" } else { "off" },
            self.ahead,
            self.cut_early,
            match self.waves {
                Some(s) => format!("in waves (job arrays) of {s} s overhead each"),
                None => format!("one by one, {} s dispatch latency", self.latency),
            }
        );
        }
        if let Some(f) = &self.fill {
            let _ = writeln!(
                o,
                "fill: {} units solved in {} rounds, {:.3e} nodes, {:.0} s{}",
                f.units,
                f.rounds.len(),
                f.nodes as f64,
                f.rounds.iter().map(|r| r.seconds).sum::<f64>(),
                if f.capped {
                    " (stopped at --fill-cap: units still missing)"
                } else {
                    ""
                }
            );
        }
        let _ = writeln!(
            o,
            "{:>8} {:>11} {:>8} {:>6} {:>7} {:>9} {:>7} {:>7} {:>9}",
            "workers",
            "seconds",
            "speedup",
            "idle",
            "units",
            "cancelled",
            "guessed",
            "filled",
            "longest s"
        );
        for r in &self.runs {
            let _ = writeln!(
                o,
                "{:>8} {:>11.2} {:>8} {:>5.0}% {:>7} {:>9} {:>7} {:>7} {:>9.3}",
                r.workers,
                r.seconds,
                r.speedup.map_or("-".into(), |s| format!("{s:.1}")),
                100.0 * r.idle_fraction,
                r.units,
                r.cancelled_units,
                r.guessed_units,
                r.filled_issues,
                r.longest_unit_seconds
            );
        }
        let _ = writeln!(
            o,
            "what bounds it: the critical chain, units that ran one after another (each needed only once the one before was answered), and their waits for a free worker:"
        );
        for r in &self.runs {
            let c = &r.critical_chain;
            let steps: Vec<String> = c
                .steps
                .iter()
                .filter(|s| s.units > 0)
                .map(|s| {
                    format!(
                        "{} {} ({:.2} s)",
                        s.step,
                        s.units,
                        s.unit_seconds + s.wait_seconds
                    )
                })
                .collect();
            let _ = writeln!(
                o,
                "{:>8} workers: {} units, {:.2} s running + {:.2} s waiting, longest {:.2} s, {} split at the budget ({:.2} s), {} guessed ({:.2} s); by step: {}",
                r.workers,
                c.units,
                c.unit_seconds,
                c.wait_seconds,
                c.longest_unit_seconds,
                c.split_units,
                c.split_seconds,
                c.guessed_units,
                c.guessed_seconds,
                steps.join(", ")
            );
        }
        for r in &self.runs {
            let _ = writeln!(
                o,
                "{:>8} workers: the coordinator planned {} times, {:.1} s here ({:.2} ms a plan), {:.1} s of its own work in all ({:.1} s taking answers in, {:.1} s handing units out; on the simulated clock only with --charge-plans)",
                r.workers,
                r.plans,
                r.plan_seconds,
                1e3 * r.plan_seconds / r.plans.max(1) as f64,
                r.coordinator_seconds,
                r.intake_seconds,
                r.handout_seconds
            );
        }
        if let Some(g) = self.growth {
            let _ = writeln!(
                o,
                "a game {g} times the work (same unit sizes, {g} times as many units):"
            );
            for (p, s) in &self.predicted_seconds {
                let _ = writeln!(o, "{p:>8} workers {s:>14.0} s = {:>10.2} days", s / 86400.0);
            }
        }
        for r in &self.runs {
            let steps: Vec<String> = r
                .timeline
                .iter()
                .map(|(t, s)| format!("{s} at {t:.2}"))
                .collect();
            let _ = writeln!(o, "{} workers: {}", r.workers, steps.join(", "));
        }
        let guessed: usize = self.runs.iter().map(|r| r.guessed_units).sum();
        if self.emulation.is_some() {
            let _ = writeln!(
                o,
                "costs: each unit's nodes as its simulated worker's own table made them, its search held at each step of the simulated clock (a unit stopped part way counts the time it ran, and its table holds what it searched by then); nothing guessed"
            );
            return o;
        }
        let _ = writeln!(
            o,
            "costs: recorded units {} the run's workers measured them (their tables warm from earlier units), filled ones as a solver with an empty table measured them here{}",
            if self.recorded_cost == 1.0 {
                "as".to_string()
            } else {
                format!("at {} times what", self.recorded_cost)
            },
            if guessed > 0 {
                "; units whose cost a schedule needs and nobody measured (\"guessed\"): the unit budget's nodes (or --guess-nodes) and the verdict the record implies or the top tree expects, so these times are not measured ones (--fill solves them)"
            } else {
                "; no unit was guessed"
            }
        );
        o
    }
}

/// Seconds on each simulated worker count for a game `g` times the work:
/// its units like the recorded ones, `g` times as many, so that on P
/// workers it keeps the efficiency the recorded run has on P / g
/// (interpolated in log P between the simulated counts, 1 below the
/// smallest).
fn predict(runs: &[SimRun], t1: f64, g: f64) -> Vec<(usize, f64)> {
    let efficiency = |r: &SimRun| t1 / (r.seconds * r.workers as f64);
    let mut points: Vec<(f64, f64)> = runs
        .iter()
        .map(|r| ((r.workers as f64).ln(), efficiency(r)))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |p: f64| -> f64 {
        let x = p.max(1.0).ln();
        match points.iter().position(|&(px, _)| px >= x) {
            Some(0) => points[0].1.min(1.0),
            Some(i) => {
                let (x0, y0) = points[i - 1];
                let (x1, y1) = points[i];
                y0 + (y1 - y0) * (x - x0) / (x1 - x0)
            }
            None => points.last().map_or(1.0, |p| p.1),
        }
    };
    runs.iter()
        .map(|r| {
            let p = r.workers as f64;
            (r.workers, g * t1 / (p * at(p / g)))
        })
        .collect()
}
