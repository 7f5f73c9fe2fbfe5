"""A bridge to OpenSpiel's ``mancala`` game (``pyspiel.load_game("mancala")``).

OpenSpiel's mancala is Kalah(6,4) under this project's standard rules
(``rules="std"``): a last seed in an empty own house captures only when the
facing house holds seeds, and the game ends when either side is empty,
each player sweeping their own houses. ``python/tests/test_openspiel.py``
establishes this by playing thousands of random games move by move in
both and comparing every board, extra turn and end; the other rule sets
(``ec``, ``*-delayed``, ``*-nosweep``) each disagree there, so only
``std`` is bridged. OpenSpiel's returns are +1/0/-1 (the sign of the final
store difference), not the difference itself.

OpenSpiel's board is 14 pits: 0 is North's (player 1's) store, 1..6 South's
(player 0's) houses S1..S6, 7 South's store, 8..13 North's houses N1..N6,
sowing in increasing order. Player 0's action ``a`` sows house ``a``,
player 1's action ``a`` sows house ``a - 7``.
"""

from typing import Any, List

from ._kalah import Position

#: The rule set OpenSpiel's mancala plays.
RULES = "std"

#: OpenSpiel's mancala board: houses a side and seeds a house.
PITS = 6
SEEDS = 4


def board_from_state(state: Any) -> List[int]:
    """OpenSpiel's 14 pits of ``state`` (a ``mancala`` state), from its
    observation tensor (whose last two values are the player to move and
    the move number)."""
    tensor = state.observation_tensor(0)
    return [int(x) for x in tensor[: 2 * PITS + 2]]


def _player(state: Any) -> int:
    """The player to move in ``state`` (0 or 1), also for a finished game
    (whose ``current_player()`` is OpenSpiel's terminal id)."""
    return int(state.observation_tensor(0)[2 * PITS + 2])


def position_from_state(state: Any) -> Position:
    """The ``kalah.Position`` (rules ``std``) of an OpenSpiel ``mancala``
    state: the same houses, stores and side to move (player 0 is South,
    who moves first)."""
    b = board_from_state(state)
    counts = b[1 : 2 * PITS + 2] + [b[0]]
    side = "S" if _player(state) == 0 else "N"
    return Position(" ".join(map(str, counts)) + " " + side, rules=RULES)


def house_from_action(state: Any, action: int) -> int:
    """The house (1..6, numbered from the mover's left as in this project)
    that OpenSpiel's ``action`` sows in ``state``."""
    if _player(state) == 0:
        if not 1 <= action <= PITS:
            raise ValueError(f"action {action} is not one of player 0's pits (1..{PITS})")
        return action
    if not PITS + 2 <= action <= 2 * PITS + 1:
        raise ValueError(
            f"action {action} is not one of player 1's pits ({PITS + 2}..{2 * PITS + 1})"
        )
    return action - PITS - 1


def action_from_house(position: Position, house: int) -> int:
    """OpenSpiel's action for sowing ``house`` (1..6) of the side to move in
    ``position``."""
    if not 1 <= house <= PITS:
        raise ValueError(f"there is no house {house}: houses are numbered 1..{PITS}")
    return house if position.to_move == "S" else house + PITS + 1
