"""A game's size from Python is checked as every front end checks it
(issue 54, item 2): `Position.start` and `solve` refuse the counts the
command line refuses, extreme ones included (0, counts whose 2*m*n wraps
64 bits, 64-bit maxima, counts beyond 64 bits, negative ones), with a
ValueError carrying the command line's message; the counts it takes give
the game asked for. The expected outcome comes from arithmetic on Python's
unbounded integers, independent of the engine's check."""

import random
import subprocess

import pytest

import kalah

EXTREMES = [0, 1, 2, 16, 127, 128, 255, 3074457345618258603, 4611686018427387904,
            4611686018427387908, 2**63 - 1, 2**64 - 1, 2**64, 10**26, -1, -(2**64)]


def is_game(m, n):
    return 1 <= m <= 8 and n >= 1 and 2 * m * n <= 255


def cases():
    out = [(m, n) for m in EXTREMES + [6, 8, 9] for n in EXTREMES]
    rng = random.Random(54)
    for _ in range(60):
        m = rng.choice([rng.randrange(10), rng.getrandbits(64) >> rng.randrange(64)])
        n = rng.choice([rng.randrange(140), rng.getrandbits(64) >> rng.randrange(64), rng.getrandbits(64)])
        out.append((m, n))
    return out


def cli_message(kalah_bin, m, n):
    """The message `kalah perft` refuses Kalah(m,n) with (exit status 2)."""
    out = subprocess.run([str(kalah_bin), "perft", "--depth", "1", f"--pits={m}", f"--seeds={n}"],
                         capture_output=True, text=True)
    assert out.returncode == 2, (m, n, out.stderr)
    prefix = "kalah: error: "
    assert out.stderr.startswith(prefix), out.stderr
    return out.stderr[len(prefix):].strip()


def test_sizes_out_of_range_raise_the_command_lines_message(kalah_bin):
    refused = 0
    for m, n in cases():
        if is_game(m, n):
            start = kalah.Position.start(m, n)
            assert start.pits == m and start.seeds_on_board == 2 * m * n
            continue
        refused += 1
        want = cli_message(kalah_bin, m, n)
        with pytest.raises(ValueError) as e:
            kalah.Position.start(m, n)
        assert str(e.value) == want, (m, n)
        with pytest.raises(ValueError) as e:
            kalah.solve(m, n)
        assert str(e.value) == want, (m, n)
    assert refused > 200, refused


def test_a_count_that_is_not_an_int_is_a_type_error():
    for m, n in [(6.0, 4), (6, "4"), (True, 4), (6, 4.5)]:
        with pytest.raises(TypeError):
            kalah.Position.start(m, n)
