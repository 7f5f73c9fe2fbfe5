//! The search workers: positions outside the tables are searched here, at
//! most `workers` at once, each on a blocking thread of its own with a
//! time budget. A request that finds every worker busy is refused at once
//! (503) rather than queued: a queue would make its wait unbounded, and a
//! client can retry. Look-ups in the tables never come here, so they never
//! wait behind a search. A search whose request is dropped (its client
//! disconnected: hyper drops the answer's future) is stopped within a
//! watchdog tick, so that clients that hang up do not hold the workers.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use kalah_solver::table::Tables;
use kalah_solver::{Game, Position};
use tokio::sync::Semaphore;

use crate::service::answer::Detail;
use crate::service::position::{over_limit, query_solver, search_until, Budget, Stopped};
use crate::service::{Answer, Silent};

/// Why a search gave no answer.
#[derive(Debug)]
pub enum Refusal {
    /// Every worker is busy; try again later.
    Busy { workers: usize },
    /// The budget ran out (the search was stopped unfinished).
    OverBudget(String),
    /// The server is stopping (Ctrl-C or SIGTERM).
    Stopping,
    /// The search could not run or refused its result (damaged tables, no
    /// memory for its transposition table).
    Failed(String),
}

impl Refusal {
    /// What the client is told.
    pub fn reason(&self) -> String {
        match self {
            Refusal::Busy { workers } => format!(
                "all {workers} search workers are busy with positions outside the endgame tables: try again later"
            ),
            Refusal::OverBudget(m) | Refusal::Failed(m) => m.clone(),
            Refusal::Stopping => "the server is stopping: no answer".to_string(),
        }
    }
}

/// A bounded pool of search workers.
pub struct SearchPool {
    permits: Arc<Semaphore>,
    workers: usize,
    budget: Budget,
}

impl SearchPool {
    /// A pool of `workers` (at least one), each search within `budget`.
    pub fn new(workers: usize, budget: Budget) -> SearchPool {
        let workers = workers.max(1);
        SearchPool {
            permits: Arc::new(Semaphore::new(workers)),
            workers,
            budget,
        }
    }

    /// The budget each search gets.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The answer of a search of `pos` in `game` over `tables`, on a free
    /// worker, by the service's [`search_until`]: a solver of its own (a
    /// fresh transposition table, so the answer is what `kalah query
    /// --threads 1` gives), stopped at the time limit, at a signal, or when
    /// this future is dropped (the client gone).
    ///
    /// # Errors
    /// Every worker busy, the budget spent, the server stopping, or a
    /// search that failed.
    pub async fn search(
        &self,
        game: Game,
        tables: Option<Arc<Tables>>,
        pos: Position,
    ) -> Result<Answer, Refusal> {
        let permit = Arc::clone(&self.permits)
            .try_acquire_owned()
            .map_err(|_| Refusal::Busy {
                workers: self.workers,
            })?;
        let budget = self.budget.clone();
        let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
        let cancelled = Arc::clone(&cancel.0);
        let work = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let solver = query_solver(game, budget.config.clone(), tables)
                .map_err(|e| Refusal::Failed(e.to_string()))?;
            search_until(
                &solver,
                &pos,
                Detail::FULL,
                budget.time_limit,
                &cancelled,
                "searching",
                &Silent,
            )
            .map_err(|stop| match stop {
                Stopped::TimeLimit => Refusal::OverBudget(over_limit(budget.time_limit)),
                Stopped::Interrupted => Refusal::Stopping,
                Stopped::Failed(m) => Refusal::Failed(m),
            })
        });
        let answer = work
            .await
            .unwrap_or_else(|e| Err(Refusal::Failed(format!("the search failed: {e}"))));
        drop(cancel);
        answer
    }
}

/// Raises its flag when dropped: held by the future that waits for a
/// search, so that the search stops when that future is dropped unfinished
/// (its client gone). Raised after an answer too, when nothing reads it.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}
