"""Which of this project's rule sets OpenSpiel's mancala plays, by random
games played move by move in both; and the bridge on real OpenSpiel games."""

import random

import pytest

import kalah
from kalah import openspiel as bridge

pyspiel = pytest.importorskip("pyspiel")

#: Random games a rule set.
GAMES = 2000


def disagreement(rules, games, seed):
    """The first difference between OpenSpiel's mancala and Kalah(6,4)
    under `rules` over `games` random games (each move chosen at random
    among the legal ones, played in both), or None when every board, side
    to move (extra turn), set of legal moves, end and winner agree."""
    game = pyspiel.load_game("mancala")
    rng = random.Random(seed)
    for g in range(games):
        state = game.new_initial_state()
        ours = kalah.Position.start(6, 4, rules=rules)
        while True:
            ended = state.is_terminal()
            if ended != ours.is_over():
                return f"game {g}: OpenSpiel ended={ended}, {rules} is_over={ours.is_over()} at {ours}"
            if ended:
                sign = (ours.final_score() > 0) - (ours.final_score() < 0)
                if state.returns()[0] != sign:
                    return f"game {g}: OpenSpiel returns {state.returns()} but {rules} scores {ours.final_score()} at {ours}"
                break
            houses = sorted(bridge.house_from_action(state, a) for a in state.legal_actions())
            if houses != ours.moves():
                return f"game {g}: legal moves {houses} against {ours.moves()} at {ours}"
            action = rng.choice(state.legal_actions())
            house = bridge.house_from_action(state, action)
            state.apply_action(action)
            ours = ours.play(house)
            seen = bridge.position_from_state(state)
            if str(seen) != str(ours):
                return f"game {g}: after house {house}, OpenSpiel has {seen} and {rules} {ours}"
    return None


def test_openspiel_mancala_is_kalah_standard():
    """2,000 random games agree with `std` move for move; every other rule
    set disagrees somewhere in them (so none of them is OpenSpiel's)."""
    assert disagreement("std", GAMES, "std") is None
    for rules in kalah.RULES:
        if rules != "std":
            assert disagreement(rules, GAMES, rules) is not None, rules


def test_position_from_real_openspiel_games_and_its_value():
    """Positions of OpenSpiel games (random and MCTS moves): the bridge gives
    the board OpenSpiel shows, and action_from_house inverts
    house_from_action; the value of a finished game's position has the sign
    of OpenSpiel's return."""
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("mancala")
    rng = random.Random(7)
    bot = mcts.MCTSBot(game, 2, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=None)
    for g in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            p = bridge.position_from_state(state)
            board = bridge.board_from_state(state)
            assert p.stores == (board[7], board[0])
            assert p.south == board[1:7] and p.north == board[8:14]
            assert p.to_move == ("S" if state.current_player() == 0 else "N")
            for a in state.legal_actions():
                assert bridge.action_from_house(p, bridge.house_from_action(state, a)) == a
            action = bot.step(state) if g % 2 else rng.choice(state.legal_actions())
            state.apply_action(action)
        end = bridge.position_from_state(state)
        value = kalah.query(end)["value"]
        south = value if end.to_move == "S" else -value
        assert (south > 0) - (south < 0) == state.returns()[0]
    with pytest.raises(ValueError):
        bridge.house_from_action(game.new_initial_state(), 9)
