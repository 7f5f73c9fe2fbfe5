//! `ping`: round trips of empty units through MPI, the engine's own cost.

use kalah::service::Error;

use crate::args::PingArgs;
#[cfg(feature = "mpi")]
use crate::failure;
#[cfg(feature = "mpi")]
use crate::print_line;
#[cfg(feature = "mpi")]
use kalah_cluster::worker::UnitSolver;
#[cfg(feature = "mpi")]
use kalah_solver::Game;

#[cfg(not(feature = "mpi"))]
pub(crate) fn ping(_: &PingArgs) -> Result<(), Error> {
    Err(Error::Input(
        "this kalah-cluster was built without MPI (cargo build --release -p kalah-cluster --features mpi)"
            .into(),
    ))
}

#[cfg(feature = "mpi")]
pub(crate) fn ping(a: &PingArgs) -> Result<(), Error> {
    use kalah_cluster::coordinator::{Engine, Issue};
    use kalah_cluster::mpi_engine::{MpiEngine, World};
    use kalah_cluster::unit::UnitKey;
    let world = World::init().map_err(failure)?;
    let solver =
        UnitSolver::new(Game::new(6, kalah_solver::Rules::STANDARD), None, 1).map_err(failure)?;
    if world.rank() != 0 {
        world
            .serve(std::slice::from_ref(&solver))
            .map_err(failure)?;
        return Ok(());
    }
    let mut e = MpiEngine::new(&world, 1);
    let w = e.workers();
    if w == 0 {
        return Err(Error::Input("ping needs at least 2 ranks".into()));
    }
    // A finished board: each unit is answered without search.
    let key = UnitKey {
        board: kalah_solver::Board::EMPTY,
        beta: 0,
    };
    let issue = |seq| Issue {
        key,
        seq,
        budget: 0,
        expect: true,
    };
    let mut seq = 0;
    let t0 = std::time::Instant::now();
    for worker in 0..w {
        e.start(worker, &issue(seq)).map_err(failure)?;
        seq += 1;
    }
    let mut answered = 0;
    while answered < a.units {
        let r = e
            .wait(None)
            .map_err(failure)?
            .ok_or_else(|| failure("no reply".to_string()))?;
        answered += 1;
        if seq < a.units {
            e.start(r.worker, &issue(seq)).map_err(failure)?;
            seq += 1;
        }
    }
    let s = t0.elapsed().as_secs_f64();
    e.finish().map_err(failure)?;
    print_line(format_args!(
        "{} empty units over {} workers in {:.3} s: {:.0} units/s, {:.1} us a round trip per worker",
        a.units,
        w,
        s,
        a.units as f64 / s,
        s / (a.units as f64 / w as f64) * 1e6
    ))?;
    Ok(())
}
