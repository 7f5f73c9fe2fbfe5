//! The coordinator's own work, timed: an engine whose calls are timed, so
//! that the coordinator's thread's time outside them (taking answers in,
//! plans, handing units out) can be passed on a simulated clock
//! ([`LabEngine::spend`]): a simulated clock counts what a real
//! coordinator would make its workers wait, not what simulating the
//! workers cost. Times are the coordinator thread's CPU time: a
//! simulation's searching threads share this machine's cores with it,
//! where a real coordinator has a core of its own.
//!
//! The product's coordinator marks where each stretch of its own work
//! ends ([`Watched::mark`]); [`Metered`] turns the marks into seconds.

use cpu_time::ThreadTime;

use kalah_cluster::coordinator::{
    coordinate_watched, Engine, Finished, Issue, OwnWork, Reply, Settings, Sink, Watched,
};
use kalah_cluster::plan::TopTree;
use kalah_cluster::unit::RunIdentity;
use kalah_cluster::ClusterError;

/// A simulated engine: it hears the coordinator's own work as seconds,
/// and which running units the search needs.
pub trait LabEngine: Engine {
    /// The coordinator spent `seconds` on its own work (not the time in
    /// this engine's calls). A real engine's clock ran on meanwhile by
    /// itself; a simulated one may pass them on its clock.
    fn spend(&mut self, _seconds: f64) {}
    /// Unit `seq` on `worker` is one the search needs now (`needed`), or
    /// speculation ([`Watched::needed`]).
    fn needed(&mut self, _worker: usize, _seq: u64, _needed: bool) {}
}

/// Seconds of the coordinator's own work, its thread's CPU time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OwnSeconds {
    /// All of it: taking answers in, plans, handing units out (not the
    /// engine's calls: a simulated worker's search, an MPI send).
    pub coordinator: f64,
    /// Of those, the plans of the top tree ([`OwnWork::Plan`]).
    pub plan: f64,
    /// Taking answers in ([`OwnWork::Intake`]).
    pub intake: f64,
    /// Handing units out ([`OwnWork::HandOut`]); the rest are plans and
    /// their set-up.
    pub handout: f64,
}

/// A [`LabEngine`] whose calls are timed; the coordinator's marks
/// ([`Watched::mark`]) charge it the time outside them.
pub struct Metered<'e> {
    inner: &'e mut dyn LabEngine,
    /// This thread's time inside the engine's calls since the last charge.
    inside: f64,
    /// The last charge.
    since: ThreadTime,
    /// Seconds charged so far.
    pub seconds: OwnSeconds,
}

impl<'e> Metered<'e> {
    pub fn new(inner: &'e mut dyn LabEngine) -> Metered<'e> {
        Metered {
            inner,
            inside: 0.0,
            since: ThreadTime::now(),
            seconds: OwnSeconds::default(),
        }
    }

    /// Passes the coordinator's own work since the last charge to the
    /// engine ([`LabEngine::spend`]); its seconds.
    fn charge(&mut self) -> f64 {
        let own = (self.since.elapsed().as_secs_f64() - self.inside).max(0.0);
        self.inner.spend(own);
        self.inside = 0.0;
        self.since = ThreadTime::now();
        self.seconds.coordinator += own;
        own
    }

    fn timed<T>(&mut self, call: impl FnOnce(&mut dyn LabEngine) -> T) -> T {
        let at = ThreadTime::now();
        let out = call(&mut *self.inner);
        self.inside += at.elapsed().as_secs_f64();
        out
    }
}

impl Engine for Metered<'_> {
    fn workers(&self) -> usize {
        self.inner.workers()
    }

    fn start(&mut self, worker: usize, issue: &Issue) -> Result<(), ClusterError> {
        self.timed(|e| e.start(worker, issue))
    }

    fn cancel(&mut self, worker: usize, seq: u64) -> Result<(), ClusterError> {
        self.timed(|e| e.cancel(worker, seq))
    }

    fn wait(&mut self, until: Option<f64>) -> Result<Option<Reply>, ClusterError> {
        self.timed(|e| e.wait(until))
    }

    fn now(&self) -> f64 {
        self.inner.now()
    }

    fn finish(&mut self) -> Result<(), ClusterError> {
        self.timed(|e| e.finish())
    }

    fn ready(&mut self) -> Result<Option<Reply>, ClusterError> {
        self.timed(|e| e.ready())
    }
}

impl Watched for Metered<'_> {
    fn mark(&mut self, work: OwnWork) {
        let own = self.charge();
        match work {
            OwnWork::Setup => {}
            OwnWork::Plan => self.seconds.plan += own,
            OwnWork::HandOut => self.seconds.handout += own,
            OwnWork::Intake => self.seconds.intake += own,
        }
    }

    fn needed(&mut self, worker: usize, seq: u64, needed: bool) {
        self.timed(|e| e.needed(worker, seq, needed));
    }
}

/// Runs the product's coordinator from the start over `tree` on `engine`
/// ([`coordinate_watched`]), its own work timed ([`Metered`]).
///
/// # Errors
/// As [`kalah_cluster::coordinator::coordinate`].
pub fn coordinate_metered(
    tree: &TopTree<'_>,
    identity: &RunIdentity,
    engine: &mut dyn LabEngine,
    sink: &mut dyn Sink,
    settings: Settings,
) -> Result<(Finished, OwnSeconds), ClusterError> {
    let mut metered = Metered::new(engine);
    let done = coordinate_watched(tree, identity, &[], &mut metered, sink, settings)?;
    Ok((done, metered.seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_cluster::unit::UnitKey;
    use kalah_solver::Board;

    /// An engine whose calls each burn `busy` of this thread's CPU time,
    /// adding up what the coordinator spends.
    struct Burning {
        busy: std::time::Duration,
        spent: f64,
    }

    fn burn(d: std::time::Duration) {
        let at = ThreadTime::now();
        while at.elapsed() < d {
            std::hint::black_box(0);
        }
    }

    impl Engine for Burning {
        fn workers(&self) -> usize {
            1
        }
        fn start(&mut self, _: usize, _: &Issue) -> Result<(), ClusterError> {
            burn(self.busy);
            Ok(())
        }
        fn cancel(&mut self, _: usize, _: u64) -> Result<(), ClusterError> {
            Ok(())
        }
        fn wait(&mut self, _: Option<f64>) -> Result<Option<Reply>, ClusterError> {
            burn(self.busy);
            Ok(None)
        }
        fn now(&self) -> f64 {
            0.0
        }
        fn finish(&mut self) -> Result<(), ClusterError> {
            Ok(())
        }
    }

    impl LabEngine for Burning {
        fn spend(&mut self, seconds: f64) {
            self.spent += seconds;
        }
    }

    /// The coordinator is charged its own thread's work between the
    /// engine's calls, never the work inside them; each mark books it
    /// under its kind.
    #[test]
    fn the_coordinator_is_charged_its_own_work_not_the_engines() {
        let ms = std::time::Duration::from_millis;
        let mut engine = Burning {
            busy: ms(40),
            spent: 0.0,
        };
        let mut metered = Metered::new(&mut engine);
        let issue = Issue {
            key: UnitKey {
                board: Board::from_packed(1),
                beta: 0,
            },
            seq: 0,
            budget: 0,
            expect: true,
        };
        metered.start(0, &issue).unwrap();
        metered.wait(None).unwrap();
        metered.mark(OwnWork::Intake);
        let engine_only = metered.seconds.intake;
        burn(ms(30));
        metered.wait(None).unwrap();
        metered.mark(OwnWork::Plan);
        let own = metered.seconds.plan;
        let seconds = metered.seconds;
        assert!(
            engine_only < 0.010,
            "{engine_only} s charged for 80 ms in the engine"
        );
        assert!(
            (0.030..0.040).contains(&own),
            "{own} s charged for 30 ms of own work"
        );
        assert_eq!(seconds.coordinator, engine_only + own);
        assert_eq!(seconds.handout, 0.0);
        assert_eq!(engine.spent, engine_only + own);
    }
}
