"""Type stubs of the extension module ``kalah._kalah`` (re-exported by ``kalah``)."""

from os import PathLike
from typing import Any, Iterable, Optional, Union

RULES: list[str]
"""Every rule set's slug: ``std``, ``ec``, ``std-delayed``, ``std-nosweep``, ``ec-delayed``, ``ec-nosweep``."""

__version__: str

class Position:
    """A Kalah position under a rule set: 2m+2 counts in sowing order
    (S1..Sm, South's store, N1..Nm, North's store) and the side to move.
    Immutable and hashable; ``play`` returns a new position."""

    def __init__(self, text: str, *, rules: str = "std") -> None:
        """Reads the command line's notation, e.g.
        ``"4 4 4 4 4 4 0 4 4 4 4 4 4 0 S"``. Raises ValueError with the
        command line's message for text that is not a position, or for
        unknown rules."""
    @staticmethod
    def start(pits: int = 6, seeds: int = 4, *, rules: str = "std") -> "Position":
        """The start of Kalah(pits, seeds), South to move. Raises ValueError
        with the command line's message for a size out of range (1 to 8
        houses a side, at least one seed, at most 255 seeds in all), and
        TypeError for a count that is not an int."""
    @property
    def pits(self) -> int:
        """Houses a side."""
    @property
    def rules(self) -> str:
        """The rules' slug."""
    @property
    def to_move(self) -> str:
        """``"S"`` or ``"N"``."""
    @property
    def south(self) -> list[int]:
        """South's houses, S1..Sm."""
    @property
    def north(self) -> list[int]:
        """North's houses, N1..Nm."""
    @property
    def stores(self) -> tuple[int, int]:
        """(South's store, North's store)."""
    @property
    def seeds_on_board(self) -> int:
        """Seeds in houses."""
    def moves(self) -> list[int]:
        """The legal moves (houses 1..m of the side to move); empty once the game is over."""
    def play(self, house: int) -> "Position":
        """The position after sowing ``house``; the same side is to move
        again after an extra turn. Raises ValueError for a missing or empty
        house or a finished game."""
    def is_over(self) -> bool:
        """Whether the game is over under the position's rules."""
    def final_score(self) -> Optional[int]:
        """South's final store minus North's once the game is over, else None."""
    def diagram(self) -> str:
        """The board drawn as ``kalah show`` draws it."""

class Tables:
    """Endgame tables of one board size and rule set, probed without search."""

    @staticmethod
    def open(path: Union[str, "PathLike[str]"], pits: int = 6, *, rules: str = "std") -> "Tables":
        """Opens the tables in directory ``path``. Raises FileNotFoundError
        when it holds none of that size and rules."""
    @property
    def pits(self) -> int: ...
    @property
    def rules(self) -> str: ...
    @property
    def max_seeds(self) -> int:
        """Boards with up to this many seeds in houses are in the tables."""
    @property
    def path(self) -> str: ...
    def probe(self, position: Position) -> Optional[int]:
        """The position's exact value for the side to move, from the tables
        alone; None beyond them. Never searches."""
    def probe_many(self, positions: Iterable[Position]) -> list[Optional[int]]:
        """``probe`` of every position, in order, without the GIL."""

class Searcher:
    """A search engine kept between queries: its transposition table keeps
    what earlier searches found, so successive positions of a game are
    answered far faster than by ``kalah.query``. One search at a time."""

    def __init__(
        self,
        tables: Optional[Tables] = None,
        *,
        pits: Optional[int] = None,
        rules: Optional[str] = None,
        tt_mb: int = 256,
        threads: Optional[int] = None,
    ) -> None:
        """A searcher for ``pits`` houses a side under ``rules`` (by default
        the tables' game, else Kalah with 6 houses under ``std``)."""
    def query(
        self,
        position: Union[Position, str],
        *,
        value_only: bool = False,
        pv: bool = False,
        time_limit: Optional[float] = None,
    ) -> dict[str, Any]:
        """As ``kalah.query``, on this searcher's tables and transposition table."""

def query(
    position: Union[Position, str],
    *,
    tables: Optional[Tables] = None,
    rules: Optional[str] = None,
    value_only: bool = False,
    pv: bool = False,
    time_limit: Optional[float] = None,
    tt_mb: int = 256,
    threads: Optional[int] = None,
) -> dict[str, Any]:
    """The answer of ``kalah query --json`` as a dict (docs/json.md):
    ``position``, ``to_move``, ``rules``, ``value``, ``result``, ``moves``,
    ``best``, ``pv``, ``source``, ``nodes``, ``ms``. Searches (without the
    GIL) when neither the end of the game nor the tables answer; raises
    TimeoutError after ``time_limit`` seconds and KeyboardInterrupt at
    Ctrl-C."""

def solve(
    pits: int,
    seeds: int,
    *,
    rules: str = "std",
    tables: Optional[Tables] = None,
    tt_mb: int = 256,
    threads: Optional[int] = None,
) -> dict[str, Any]:
    """Kalah(pits, seeds) solved from the start: the fields of
    ``kalah solve --json``. Stops at Ctrl-C (KeyboardInterrupt). A size
    out of range raises ValueError with the command line's message."""

def build_tables(
    path: Union[str, "PathLike[str]"],
    max_seeds: int,
    pits: int = 6,
    *,
    rules: str = "std",
    threads: int = 0,
) -> dict[str, Any]:
    """Builds (or completes) the tables of every board with up to
    ``max_seeds`` seeds in directory ``path``, as ``kalah build``."""
