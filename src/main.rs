// Temporary dispatch on the `tables` branch, to try the table subcommands end
// to end; the real CLI lives on main (wire `cli_tables` into it).
use clap::{Parser, Subcommand};
use kalah::cli_tables::{build_command, verify_command, BuildArgs, VerifyArgs};

#[derive(Parser)]
#[command(name = "kalah")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build endgame tables.
    BuildTables(BuildArgs),
    /// Verify endgame tables.
    VerifyTables(VerifyArgs),
}

fn main() {
    let cli = Cli::parse();
    let r = match &cli.command {
        Command::BuildTables(a) => build_command(a),
        Command::VerifyTables(a) => verify_command(a),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
