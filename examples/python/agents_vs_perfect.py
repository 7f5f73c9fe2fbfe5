#!/usr/bin/env python3
"""How much value do game-playing agents give away, move by move, against
perfect play? OpenSpiel's agents play Kalah(6,4) (OpenSpiel's ``mancala``:
this project's standard rules, see kalah.openspiel) and every move is
valued exactly with the `kalah` package.

Each agent plays ``--games`` games against itself. Before every move the
position's exact value V (final store difference for the side to move,
stores included) comes from the endgame tables or a search; the move gives
away V(before) - V'(after), V' the value after the move for the same
player (negated when the turn passes). A perfect move gives away 0, and
the values telescope: South's final result is the start's value, less what
South gave away, plus what North gave away.

Agents: uniform random moves, and OpenSpiel's MCTS bot (UCT, random
rollouts) at two simulation budgets.

Writes a PNG (the value given away per move by the seeds left on the board,
each agent a line) and a Markdown table to --out:

    pip install ./python open_spiel matplotlib
    python3 examples/python/agents_vs_perfect.py --tables ~/kalah-tables --out docs

The tables (6 houses, standard rules) are built in --tables when missing,
up to --table-seeds seeds (22: about a minute on a few cores, 250 MB);
the searches of the first moves of each game take the time, seconds to
minutes each on a small machine.
"""

import argparse
import collections
import os
import random
import statistics
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import kalah
from kalah import openspiel as bridge


def random_agent(rng):
    return lambda state: rng.choice(state.legal_actions())


def mcts_agent(game, simulations, rng):
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(rng.randrange(2**31)))
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator,
                       random_state=np.random.RandomState(rng.randrange(2**31)))
    return bot.step


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="kalah-tables", help="table directory (built when missing)")
    ap.add_argument("--table-seeds", type=int, default=22)
    ap.add_argument("--games", type=int, default=10, help="games per agent")
    ap.add_argument("--budgets", type=int, nargs=2, default=[25, 400], help="MCTS simulations a move")
    ap.add_argument("--threads", type=int, default=None, help="search threads (default: one a core)")
    ap.add_argument("--seed", type=int, default=55)
    ap.add_argument("--out", default=".", help="directory for agents_vs_perfect.png and .md (made when missing)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    kalah.build_tables(args.tables, args.table_seeds, 6)
    tables = kalah.Tables.open(args.tables, 6, rules=bridge.RULES)
    searcher = kalah.Searcher(tables, tt_mb=1024, threads=args.threads)
    values = {}

    def value(position):
        """The exact value for the side to move (value only: no moves)."""
        key = str(position)
        if key not in values:
            values[key] = searcher.query(position, value_only=True)["value"]
        return values[key]

    game = pyspiel.load_game("mancala")
    rng = random.Random(args.seed)
    small, large = args.budgets
    agents = {
        "random": random_agent(rng),
        f"MCTS {small} sims": mcts_agent(game, small, rng),
        f"MCTS {large} sims": mcts_agent(game, large, rng),
    }
    moves = collections.defaultdict(list)  # agent -> [(seeds on board, given away)]
    games = collections.defaultdict(list)  # agent -> [(South's score, South's loss, North's loss)]
    started = time.time()
    for name, agent in agents.items():
        for g in range(args.games):
            state = game.new_initial_state()
            lost = {"S": 0, "N": 0}
            while not state.is_terminal():
                before = bridge.position_from_state(state)
                action = agent(state)
                after = before.play(bridge.house_from_action(state, action))
                state.apply_action(action)
                same = after.to_move == before.to_move
                kept = value(after) if same else -value(after)
                given = value(before) - kept
                assert given >= 0, (before, after)
                lost[before.to_move] += given
                moves[name].append((before.seeds_on_board, given))
            end = bridge.position_from_state(state)
            # The values telescope (see above): a check of every value used.
            start = value(kalah.Position.start(6, 4, rules=bridge.RULES))
            assert end.final_score() == start - lost["S"] + lost["N"], (name, g)
            games[name].append((end.final_score(), lost["S"], lost["N"]))
            print(f"{name}: game {g + 1}/{args.games}, South {end.final_score():+d}, "
                  f"given away S {lost['S']} N {lost['N']} ({time.time() - started:.0f} s)", flush=True)

    start_value = value(kalah.Position.start(6, 4, rules=bridge.RULES))
    rows = []
    for name in agents:
        given = [g for _, g in moves[name]]
        per_game = [s + n for _, s, n in games[name]]
        rows.append((
            name,
            len(games[name]),
            len(given),
            statistics.mean(given),
            100 * sum(g == 0 for g in given) / len(given),
            max(given),
            statistics.mean(per_game),
            statistics.mean(score for score, _, _ in games[name]),
        ))
    table = [
        f"Kalah(6,4), standard rules (OpenSpiel's mancala); perfect play: South {start_value:+d}. "
        f"Self-play, {args.games} games an agent; every move valued exactly "
        f"(tables of up to {tables.max_seeds} seeds, search above).",
        "",
        "| agent | games | moves | seeds given away a move | perfect moves | worst move | given away a game (both sides) | South's mean result |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, n, m, mean, perfect, worst, per_game, score in rows:
        table.append(f"| {name} | {n} | {m} | {mean:.2f} | {perfect:.0f}% | {worst} | {per_game:.1f} | {score:+.1f} |")
    table += ["", f"Run with --games {args.games} --budgets {small} {large} --seed {args.seed}: "
              f"{time.time() - started:.0f} s."]
    text = "\n".join(table) + "\n"
    print(text)
    with open(f"{args.out}/agents_vs_perfect.md", "w") as f:
        f.write(text)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    width = 6
    for name in agents:
        buckets = collections.defaultdict(list)
        for seeds, given in moves[name]:
            buckets[seeds // width].append((seeds, given))
        points = [buckets[b] for b in sorted(buckets)]
        ax.plot([statistics.mean(s for s, _ in p) for p in points],
                [statistics.mean(g for _, g in p) for p in points], marker="o", label=name)
    ax.invert_xaxis()
    ax.set_xlabel("seeds left in the houses (game goes on to the right)")
    ax.set_ylabel("seeds given away a move (mean)")
    ax.set_title("Kalah(6,4): value given away against perfect play")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(f"{args.out}/agents_vs_perfect.png", dpi=120)
    print(f"wrote {args.out}/agents_vs_perfect.png and {args.out}/agents_vs_perfect.md")


if __name__ == "__main__":
    main()
