//! `kalah-cluster`: one exact solve spread over MPI ranks (rank 0
//! coordinates, the others answer units), its table preparation, status,
//! records and certificate, and the engine's dispatch measurement. The
//! replays of recorded runs are the laboratory's (`kalah-lab simulate`).
//!
//! This file parses and dispatches; each command's flags are in
//! [`args`], its work in [`solve`], [`records`] and [`ping`].

mod args;
mod ping;
mod records;
mod solve;
mod turns;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use kalah::output::write_line;
use kalah::service::Error;

use args::{CertificateArgs, GameSpec, PackArgs, PingArgs, SolveArgs, StatusArgs};

/// One exact Kalah solve spread over many processes: run `solve` under
/// `mpirun -n W+1` (or Slurm's `srun`); rank 0 holds the top of the tree
/// and its state in the work directory, ranks 1..W answer units.
/// scripts/cluster-local.sh does all of it on one machine.
#[derive(Parser, Debug)]
#[command(name = "kalah-cluster", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open (and build when missing) the endgame tables a solve will use,
    /// before the ranks start: run once, on one machine of the cluster.
    Prepare(GameSpec),
    /// Solve Kalah(M,N) from the start: every rank runs this command.
    /// Killed, the same command resumes from the work directory.
    Solve(SolveArgs),
    /// Solve every first turn of Kalah(M,N) exactly, each certified, over
    /// the work directory of the solve from the start, its units reused
    /// (the same flags as `solve`, with --local).
    ///
    /// The turns are solved one after another: each a complete turn of
    /// the first player, its extra turns included (1.2 ... 1.6, 2, ... in
    /// Kalah(6,6)). A turn of k sowings is solved with the frontier less
    /// k (at least 1), so that its units are the root solve's: each one
    /// that solve answered is reused, not searched again. Each turn's
    /// value (for the first player), perfect game from the start, units
    /// and nodes new and reused go to WORK/turns/TURN.json, its
    /// certificate to WORK/turns/TURN.certificate.jsonl.gz (`kalah
    /// certify` checks it). Killed, the same command resumes: finished
    /// turns are read back, the one under way goes on from its records.
    Turns(SolveArgs),
    /// Where the run in a work directory stands, without running it: the
    /// game, the root's bounds so far, units and nodes recorded, CPU
    /// time, whether a process runs on it now.
    Status(StatusArgs),
    /// Pack the loose records of a work directory (units/,
    /// cancelled.jsonl) into its next sealed segment (segments/NNNNNN.jsonl.gz):
    /// one small file to commit at the end of a stretch of a long run.
    Pack(PackArgs),
    /// Write the certificate of the run in a work directory: the facts its
    /// records establish, the top of the tree above them, and the bounds
    /// on the value they prove (the value and a perfect game once solved).
    /// `kalah certify FILE` checks it.
    Certificate(CertificateArgs),
    /// Measure the engine: round trips of empty units through MPI.
    Ping(PingArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    kalah::interrupt::install();
    let result = match cli.command {
        Command::Prepare(g) => solve::prepare(&g),
        Command::Solve(a) => solve::solve(&a),
        Command::Turns(a) => turns::turns(&a),
        Command::Status(a) => records::status(&a),
        Command::Pack(a) => records::pack(&a),
        Command::Certificate(a) => records::write_certificate(&a),
        Command::Ping(a) => ping::ping(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader closed the pipe (`| head`): it stopped reading on
        // purpose, as with kalah, quietly and with status 0.
        Err(Error::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kalah-cluster: {e}");
            ExitCode::from(if matches!(e, Error::Input(_)) { 2 } else { 1 })
        }
    }
}

/// A failure that is not the user's input (exit code 1).
pub(crate) fn failure(e: impl std::fmt::Display) -> Error {
    Error::Failure(e.to_string())
}

/// Writes one line to standard output ([`write_line`]), as `kalah` does: a
/// closed pipe is an output error that ends the command quietly with
/// status 0 (see [`main`]), any other failed write a failure that says so.
pub(crate) fn print_line(args: std::fmt::Arguments<'_>) -> Result<(), Error> {
    write_line(args).map_err(|e| {
        if e.is_closed_pipe() {
            Error::Output(e.0)
        } else {
            failure(e)
        }
    })
}

/// Writes `value` as one line of compact JSON ([`print_line`]): what
/// `--json` prints.
pub(crate) fn print_json(value: &impl serde::Serialize) -> Result<(), Error> {
    print_line(format_args!(
        "{}",
        serde_json::to_string(value).expect("plain struct")
    ))
}
