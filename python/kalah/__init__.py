"""Exact values of Kalah(m,n) positions from Python.

The engine of this repository (endgame tables and perfect-play search),
as python-chess's ``chess.syzygy`` is for chess::

    import kalah

    tables = kalah.Tables.open("tables", pits=6, rules="std")
    pos = kalah.Position("4 4 0 5 5 5 1 4 4 4 4 4 4 0 S")
    tables.probe(pos)             # int for the side to move, or None
    kalah.query(pos, tables=tables)["best"]

Positions are written as the command line writes them (docs/RULES.md);
rules are named by their slugs (``kalah.RULES``: ``std``, ``ec``,
``std-delayed``, ...); answers are dicts with the fields of
``kalah query --json`` (docs/json.md). ``kalah.openspiel`` converts
OpenSpiel's ``mancala`` states.
"""

from ._kalah import (
    RULES,
    Position,
    Searcher,
    Tables,
    __version__,
    build_tables,
    query,
    solve,
)

__all__ = [
    "RULES",
    "Position",
    "Searcher",
    "Tables",
    "__version__",
    "build_tables",
    "query",
    "solve",
]
