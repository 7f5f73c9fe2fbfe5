"""README's Python section runs as written: its Python example prints a
table value and the best moves, and its example command line (the agents
measured against perfect play) writes its table and plot."""

import re
import subprocess
import sys

import pytest

from conftest import REPO


def readme_section():
    text = (REPO / "README.md").read_text()
    start = text.index("\n## Python\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def fenced(section, language):
    blocks = re.findall(r"```" + language + r"\n(.*?)```", section, re.S)
    assert blocks, f"README's Python section has no {language} block"
    return blocks[0]


def test_the_python_example_prints_a_value_and_the_best_moves(tmp_path):
    code = fenced(readme_section(), "python")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    # `tables.probe(pos)` (an int: the position is inside 16-seed tables)
    # and the query's best houses.
    assert re.fullmatch(r"-?\d+ \[\d(, \d)*\]\n", out.stdout), out.stdout


def test_the_install_lines_and_the_agents_example_run(tmp_path):
    lines = [l.split("#")[0].strip() for l in fenced(readme_section(), "bash").splitlines()]
    assert "pip install ./python" in lines
    assert "pip install open_spiel matplotlib" in lines
    pytest.importorskip("pyspiel")
    pytest.importorskip("matplotlib")
    [example] = [l for l in lines if l.startswith("python3 examples/python/")]
    argv = example.split()
    argv[0:2] = [sys.executable, str(REPO / argv[1])]
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    outdir = tmp_path / argv[argv.index("--out") + 1]
    table = (outdir / "agents_vs_perfect.md").read_text()
    assert "random" in table and "MCTS" in table, table
    assert (outdir / "agents_vs_perfect.png").stat().st_size > 10_000
