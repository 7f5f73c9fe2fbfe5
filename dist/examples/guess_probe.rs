use kalah_solver::search::ordering::Children;
use kalah_solver::{Board, Game, Position, Probe};
use std::path::Path;
use std::time::Instant;
mod common;
const MAX: i32 = 1 << 10;
fn exact(game: &Game, probe: Option<&dyn Probe>, board: Board) -> Option<i32> {
    if let Some(v) = game.terminal_value(board) {
        return Some(v);
    }
    let p = probe?;
    if board.seeds() <= p.max_seeds() {
        p.probe(board)
    } else {
        None
    }
}
fn shallow(
    game: &Game,
    probe: Option<&dyn Probe>,
    board: Board,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    nodes: &mut u64,
) -> i32 {
    *nodes += 1;
    if let Some(v) = exact(game, probe, board) {
        return v;
    }
    if depth == 0 {
        return 0;
    }
    let mut kids = Children::generate(game, board, None, true);
    kids.sort();
    for c in kids.as_slice() {
        let g = c.sown.gain as i32;
        let v = if c.sown.extra_turn {
            g + shallow(
                game,
                probe,
                c.sown.board,
                depth - 1,
                alpha - g,
                beta - g,
                nodes,
            )
        } else {
            g - shallow(
                game,
                probe,
                c.sown.board,
                depth - 1,
                g - beta,
                g - alpha,
                nodes,
            )
        };
        if v > alpha {
            alpha = v;
            if alpha >= beta {
                break;
            }
        }
    }
    alpha
}
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (config, game, tables) = common::open_run(Path::new(&args[0]), &args[1]).unwrap();
    let start = Position::start(config.identity.pits, config.seeds).unwrap();
    let probe: Option<&dyn Probe> = Some(&tables);
    for d in 1..=16u32 {
        let t = Instant::now();
        let mut n = 0;
        let v = shallow(&game, probe, start.board(), d, -MAX, MAX, &mut n);
        println!(
            "depth {d}: {v}  nodes {n} {:.3}s",
            t.elapsed().as_secs_f64()
        );
    }
}
