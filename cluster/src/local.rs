//! The in-process engine: one worker in the coordinator's own process,
//! units answered one at a time as they are issued. For tests of the top
//! tree and for machines without MPI; never cancels (a unit is answered
//! before the next plan), except when the run is stopped (Ctrl-C,
//! SIGTERM), which stops the unit in flight.

use std::time::Instant;

use crate::coordinator::{Engine, Issue, Reply};
use crate::error::ClusterError;
use crate::worker::UnitSolver;

pub struct LocalEngine {
    solver: UnitSolver,
    issued: Option<Issue>,
    started: Instant,
}

impl LocalEngine {
    pub fn new(solver: UnitSolver) -> LocalEngine {
        LocalEngine {
            solver,
            issued: None,
            started: Instant::now(),
        }
    }
}

impl Engine for LocalEngine {
    fn workers(&self) -> usize {
        1
    }

    fn start(&mut self, _: usize, issue: &Issue) -> Result<(), ClusterError> {
        self.issued = Some(*issue);
        Ok(())
    }

    fn cancel(&mut self, _: usize, _: u64) -> Result<(), ClusterError> {
        Ok(())
    }

    /// Solves the unit issued here and now, whatever `until` says.
    fn wait(&mut self, _until: Option<f64>) -> Result<Option<Reply>, ClusterError> {
        let issue = self
            .issued
            .take()
            .ok_or_else(|| ClusterError::engine("no unit is running"))?;
        let a = self
            .solver
            .solve(issue.key, issue.budget, kalah::interrupt::requested);
        Ok(Some(Reply {
            worker: 0,
            seq: issue.seq,
            verdict: a.verdict,
            nodes: a.nodes,
            seconds: a.seconds,
            known: a.known,
            inside: a.inside,
        }))
    }

    fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn finish(&mut self) -> Result<(), ClusterError> {
        Ok(())
    }
}
