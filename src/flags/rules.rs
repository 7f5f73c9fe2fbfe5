//! The rule-set flags (`--empty-capture`, `--end`) and the rule set they
//! name.

use clap::{Args, ValueEnum};
use kalah_solver::{CaptureRule, EndRule, Rules};

/// How the game ends (see docs/RULES.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum EndArg {
    /// Ends when a side is empty; each player sweeps their own houses.
    #[default]
    Sweep,
    /// Ends only when the player to move has no seeds; seeds go to their owner.
    Delayed,
    /// Ends when a side is empty; seeds left in houses count for nobody.
    NoSweep,
}

/// The rule-set flags every command takes.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct RulesArgs {
    /// Capture with a last seed in an empty own house even when the facing
    /// house is empty (the rule of Irving, Donkers & Uiterwijk 2000).
    #[arg(long)]
    pub empty_capture: bool,
    /// When the game ends and who gets the seeds left in houses.
    #[arg(long, value_enum, default_value_t = EndArg::Sweep)]
    pub end: EndArg,
}

impl RulesArgs {
    /// The rule set these flags name.
    pub fn rules(&self) -> Rules {
        Rules {
            capture: if self.empty_capture {
                CaptureRule::Empty
            } else {
                CaptureRule::Standard
            },
            end: match self.end {
                EndArg::Sweep => EndRule::Sweep,
                EndArg::Delayed => EndRule::Delayed,
                EndArg::NoSweep => EndRule::NoSweep,
            },
        }
    }
}
