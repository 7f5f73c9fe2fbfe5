#!/usr/bin/env python3
"""Table look-ups a second from Python: `Tables.probe_many` over a list of
`kalah.Position` objects, and `Tables.probe` in a Python loop beside it.

Builds (or reuses) 6-house standard tables up to --max-seeds in --dir,
makes --count random positions inside them (uniform over the seeds on the
board, each seed in a random house, random stores and side), and times
each way --rounds times (the median is reported). Issue 55's target is at
least 1 M look-ups a second from a list.

    pip install ./python   # or: cd python && maturin develop --release
    python3 scripts/bench_python_probe.py --dir /tmp/kalah-bench-tables
"""

import argparse
import json
import random
import statistics
import time

import kalah


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="/tmp/kalah-bench-tables")
    ap.add_argument("--max-seeds", type=int, default=14)
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    build = kalah.build_tables(args.dir, args.max_seeds, 6)
    tables = kalah.Tables.open(args.dir, 6)
    rng = random.Random(55)
    positions = []
    for _ in range(args.count):
        houses = [0] * 12
        for _ in range(rng.randint(0, args.max_seeds)):
            houses[rng.randrange(12)] += 1
        counts = houses[:6] + [rng.randint(0, 20)] + houses[6:] + [rng.randint(0, 20)]
        positions.append(kalah.Position(" ".join(map(str, counts)) + " " + rng.choice("SN")))
    # Every tier mapped and its pages read once before the timed rounds.
    values = tables.probe_many(positions)
    assert None not in values

    def rate(run):
        times = []
        for _ in range(args.rounds):
            t = time.perf_counter()
            run()
            times.append(time.perf_counter() - t)
        return args.count / statistics.median(times)

    many = rate(lambda: tables.probe_many(positions))
    probe = tables.probe
    loop = rate(lambda: [probe(p) for p in positions])
    report = {
        "max_seeds": args.max_seeds,
        "positions": args.count,
        "rounds": args.rounds,
        "build_seconds": build["seconds"],
        "probe_many_per_second": round(many),
        "probe_loop_per_second": round(loop),
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(f"tables: 6 houses, std, up to {args.max_seeds} seeds ({build['seconds']} s to build or check)")
        print(f"probe_many over a list of {args.count:,} positions: {many / 1e6:.2f} M look-ups/s (median of {args.rounds})")
        print(f"probe in a Python loop:                     {loop / 1e6:.2f} M look-ups/s")


if __name__ == "__main__":
    main()
