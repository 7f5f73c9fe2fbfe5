"""kalah.query, Tables.probe and kalah.solve against the command line."""

import json
import random
import subprocess

import pytest

import kalah
from conftest import RULE_FLAGS, TABLE_SEEDS

#: Random positions a rule set.
POSITIONS = 1000

#: A board of Kalah(6,5) that no game reaches (60 seeds, off by one from
#: the start), so no opening book holds it: hours of search.
LONG = "6 5 5 5 5 5 0 5 5 5 5 5 4 0 S"


def random_position(rng, rules, max_on_board):
    """A position of 6 houses a side with 0..max_on_board seeds in houses
    (spread at random), random stores and side to move."""
    houses = [0] * 12
    for _ in range(rng.randint(0, max_on_board)):
        houses[rng.randrange(12)] += 1
    stores = [rng.randint(0, 20), rng.randint(0, 20)]
    counts = houses[:6] + [stores[0]] + houses[6:] + [stores[1]]
    side = rng.choice("SN")
    return kalah.Position(" ".join(map(str, counts)) + " " + side, rules=rules)


def cli_answers(kalah_bin, table_dir, rules, positions, tmp_path):
    """`kalah query --batch --pv` of `positions`: one JSON object each, the
    object of `kalah query --json` (docs/json.md)."""
    batch = tmp_path / f"{rules}.txt"
    batch.write_text("".join(f"{p}\n" for p in positions))
    out = subprocess.run(
        [str(kalah_bin), "query", "--batch", str(batch), "--pv", "--tables", str(table_dir),
         "--threads", "1", "--tt-mb", "16", *RULE_FLAGS[rules]],
        capture_output=True, text=True, check=True,
    )
    return [json.loads(line) for line in out.stdout.splitlines()]


@pytest.mark.parametrize("rules", sorted(RULE_FLAGS))
def test_query_equals_the_command_line(rules, table_dir, kalah_bin, tmp_path):
    """1,000 random positions a rule set, inside the tables, finished, and
    up to 4 seeds beyond the tables (searched): Python's answer is the
    command line's, field for field (the time `ms` aside; for searched
    positions also the node count and which perfect game, which depend on
    the transposition table's history, while the values may not)."""
    rng = random.Random(f"query {rules}")
    tables = kalah.Tables.open(table_dir, 6, rules=rules)
    positions = [random_position(rng, rules, TABLE_SEEDS + 4) for _ in range(POSITIONS)]
    expected = cli_answers(kalah_bin, table_dir, rules, positions, tmp_path)
    assert len(expected) == POSITIONS
    sources = set()
    for p, want in zip(positions, expected):
        got = kalah.query(p, tables=tables, tt_mb=16, threads=1)
        assert list(got) == list(want), p
        sources.add(got["source"])
        for a in (got, want):
            del a["ms"]
            if a["source"] == "search":
                del a["nodes"], a["pv"]
        assert got == want, p
        # The tables alone: the same value inside them, None beyond.
        probed = tables.probe(p)
        if p.seeds_on_board <= TABLE_SEEDS or p.is_over():
            assert probed == want["value"], p
        else:
            assert probed is None, p
    assert sources == {"table", "search", "finished"}


def test_value_only_and_text_positions(table_dir):
    tables = kalah.Tables.open(table_dir, 6)
    text = "1 0 2 0 0 1 5 0 3 0 1 0 0 4 S"
    full = kalah.query(text, tables=tables)
    alone = kalah.query(text, tables=tables, value_only=True)
    assert full["source"] == "table" and full["value"] == alone["value"]
    assert "moves" in full and "moves" not in alone and "best" not in alone
    assert "pv" not in alone and "pv" in kalah.query(text, tables=tables, value_only=True, pv=True)
    assert max(m["value"] for m in full["moves"]) == full["value"]
    ec = kalah.query(text, rules="ec")
    assert ec["rules"] == "ec" and ec["source"] == "search"
    with pytest.raises(ValueError, match="rules='ec' given for a position under rules 'std'"):
        kalah.query(kalah.Position(text), rules="ec")
    with pytest.raises(ValueError, match="under rules 'std'"):
        kalah.query(kalah.Position(text, rules="ec"), tables=tables)
    with pytest.raises(ValueError, match='invalid position "1 2 3"'):
        kalah.query("1 2 3")


def test_probe_never_searches(table_dir):
    """A position one seed beyond the tables gives None at once, however
    long its search would be; every board inside gives a value."""
    tables = kalah.Tables.open(table_dir, 6)
    assert tables.max_seeds == TABLE_SEEDS and tables.pits == 6 and tables.rules == "std"
    beyond = kalah.Position("2 2 2 1 0 0 0 0 0 1 1 1 1 0 S")
    assert beyond.seeds_on_board == TABLE_SEEDS + 1 and not beyond.is_over()
    assert tables.probe(beyond) is None
    assert tables.probe(kalah.Position.start(6, 4)) is None
    inside = kalah.Position("2 2 2 0 0 0 0 0 0 1 1 1 1 0 S")
    assert tables.probe(inside) == kalah.query(inside, tables=tables)["value"]
    rng = random.Random("probe_many")
    batch = [random_position(rng, "std", TABLE_SEEDS + 2) for _ in range(5000)]
    assert tables.probe_many(batch) == [tables.probe(p) for p in batch]
    assert tables.probe_many(iter(batch[:10])) == [tables.probe(p) for p in batch[:10]]
    assert tables.probe_many([]) == []
    with pytest.raises(TypeError, match="kalah.Position"):
        tables.probe_many(["4 4 4 4 4 4 0 4 4 4 4 4 4 0 S"])
    with pytest.raises(ValueError, match="4 houses"):
        tables.probe(kalah.Position.start(4, 1))


def test_tables_that_are_not_there(tmp_path):
    with pytest.raises(FileNotFoundError, match="kalah-m6-std-k0"):
        kalah.Tables.open(tmp_path, 6)
    with pytest.raises(ValueError, match="unknown rules"):
        kalah.Tables.open(tmp_path, 6, rules="nope")


def test_solve_matches_the_command_line(kalah_bin, table_dir):
    """Kalah(4,3) from the start, without and with tables: the fields of
    `kalah solve --json`, the same value."""
    out = subprocess.run(
        [str(kalah_bin), "solve", "--pits", "4", "--seeds", "3", "--json", "--no-tables"],
        capture_output=True, text=True, check=True,
    )
    want = json.loads(out.stdout)
    got = kalah.solve(4, 3, threads=1)
    assert list(got) == list(want)
    for field in ("pits", "seeds", "rules", "to_move", "value", "result", "table_seeds"):
        assert got[field] == want[field], field
    with pytest.raises(ValueError, match="are for 6 houses a side"):
        kalah.solve(4, 3, tables=kalah.Tables.open(table_dir, 6))
    small = kalah.solve(6, 1, tables=kalah.Tables.open(table_dir, 6))
    assert small["table_seeds"] == TABLE_SEEDS
    assert small["value"] == kalah.solve(6, 1)["value"]
    with pytest.raises(ValueError, match="seeds"):
        kalah.solve(6, 0)


def test_searcher_keeps_its_table_and_gives_the_same_answers(table_dir):
    """A Searcher answering the positions of a random game in turn (each a
    child of the one before, so its table is reused) gives kalah.query's
    answers; it refuses a position of another game."""
    tables = kalah.Tables.open(table_dir, 6)
    searcher = kalah.Searcher(tables, tt_mb=16, threads=1)
    rng = random.Random("searcher")
    p = kalah.Position("3 0 2 1 2 1 10 2 0 3 1 1 2 12 S")
    searched = 0
    while not p.is_over():
        got = searcher.query(p)
        want = kalah.query(p, tables=tables, tt_mb=16, threads=1)
        assert (got["value"], got["moves"], got["best"], got["source"]) == (
            want["value"], want["moves"], want["best"], want["source"]), p
        assert searcher.query(str(p), value_only=True)["value"] == want["value"]
        searched += got["source"] == "search"
        p = p.play(rng.choice(p.moves()))
    assert searched > 0
    with pytest.raises(ValueError, match="this searcher is for 6 houses a side under rules 'std'"):
        searcher.query(kalah.Position(str(p), rules="ec"))
    assert kalah.Searcher(rules="ec").query("1 0 0 0 0 0 0 0 0 0 0 0 3 0 S")["value"] == -2


def test_time_limit_and_the_gil():
    """A search over its time limit raises TimeoutError with the command
    line's message, soon after the limit; while it runs (in a thread), the
    interpreter runs other Python code: the GIL is released."""
    import threading
    import time

    outcome = {}

    def search():
        started = time.monotonic()
        try:
            kalah.query(LONG, time_limit=1.0, tt_mb=64, threads=1)
        except TimeoutError as e:
            outcome["error"] = str(e)
        outcome["seconds"] = time.monotonic() - started

    worker = threading.Thread(target=search)
    worker.start()
    spins = 0
    while worker.is_alive():
        spins += 1
        time.sleep(0.001)
    assert "no answer within the time limit (--time-limit 1 s)" in outcome["error"]
    assert 1.0 <= outcome["seconds"] < 2.0, outcome
    # Sleeping 1 ms at a time for a second: hundreds of turns, where a
    # search holding the GIL would have allowed none until it ended.
    assert spins > 200, spins
    with pytest.raises(ValueError, match="time_limit=0"):
        kalah.query("4 4 4 4 4 4 0 4 4 4 4 4 4 0 S", time_limit=0)
