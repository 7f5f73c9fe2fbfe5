"""kalah.Position: the command line's notation, moves, and its errors."""

import pytest

import kalah

START = "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S"


def test_parses_and_formats_the_notation():
    p = kalah.Position("4,4,4,4,4,4,0,4,4,4,4,4,4,0,s")
    assert str(p) == START
    assert p == kalah.Position.start(6, 4)
    assert hash(p) == hash(kalah.Position(START))
    assert p.pits == 6 and p.to_move == "S" and p.rules == "std"
    assert p.south == [4] * 6 and p.north == [4] * 6 and p.stores == (0, 0)
    assert p.seeds_on_board == 48
    assert repr(p) == f"Position('{START}', rules='std')"


def test_worked_examples_of_the_rule_book():
    # docs/RULES.md: South sows house 3 from the start and moves again.
    p = kalah.Position(START).play(3)
    assert str(p) == "4 4 0 5 5 5 1 4 4 4 4 4 4 0 S"
    # North is empty: the game is over, South sweeps one seed.
    over = kalah.Position("0 0 0 0 1 0 0 0 0 0 0 0 0 0 S")
    assert over.is_over() and over.moves() == [] and over.final_score() == 1
    # An empty facing house: no capture under std, a capture under ec.
    p = kalah.Position("1 0 0 0 0 0 0 0 0 0 0 0 3 0 S")
    assert str(p.play(1)) == "0 1 0 0 0 0 0 0 0 0 0 0 3 0 N"
    ec = kalah.Position("1 0 0 0 0 0 0 0 0 0 0 0 3 0 S", rules="ec").play(1)
    assert ec.is_over() and ec.final_score() == -2


def test_moves_and_play():
    p = kalah.Position("0 2 0 1 0 0 5 1 0 0 0 0 3 7 S")
    assert p.moves() == [2, 4]
    assert not p.is_over() and p.final_score() is None
    q = p.play(2)
    assert q.to_move == "N" and q != p


@pytest.mark.parametrize(
    "text, phrase",
    [
        ("", "empty position"),
        ("4 4 4 4 4 4 0 4 4 4 4 4 4 0", "side to move is missing"),
        ("4 4 4 -1 4 4 0 4 4 4 4 4 4 0 S", "token 4 '-1' is negative"),
        ("4 4 4 4 4 4 0 4 4 4 4 4 4 256 S", "token 14 '256' is too large"),
        ("1 1 1 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 1 0 S", "9 houses a side"),
    ],
)
def test_bad_text_is_a_value_error_with_the_cli_message(text, phrase):
    with pytest.raises(ValueError) as e:
        kalah.Position(text)
    assert phrase in str(e.value)
    assert str(e.value).startswith(f'invalid position "{text}"')


def test_bad_moves_rules_and_sizes_are_value_errors():
    p = kalah.Position("0 2 0 1 0 0 5 1 0 0 0 0 3 7 S")
    with pytest.raises(ValueError, match="house 1 is empty"):
        p.play(1)
    with pytest.raises(ValueError, match="there is no house 7"):
        p.play(7)
    with pytest.raises(ValueError, match="the game is over"):
        kalah.Position("0 0 0 0 1 0 0 0 0 0 0 0 0 0 S").play(5)
    with pytest.raises(ValueError, match="unknown rules 'kalah': one of std, "):
        kalah.Position(START, rules="kalah")
    with pytest.raises(ValueError):
        kalah.Position.start(9, 4)
    with pytest.raises(ValueError):
        kalah.Position.start(6, 0)
    assert sorted(kalah.RULES) == sorted(
        ["std", "ec", "std-delayed", "ec-delayed", "std-nosweep", "ec-nosweep"]
    )
