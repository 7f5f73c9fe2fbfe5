"""Shared fixtures: small endgame tables built once per test session in a
temporary directory, and the `kalah` command line the answers are compared
with."""

import os
import pathlib
import shutil
import subprocess

import pytest

import kalah

REPO = pathlib.Path(__file__).resolve().parents[2]

#: Small tables: 6 houses a side, boards of up to 10 seeds (1.3 M boards a
#: rule set, well under a second each to build).
TABLE_SEEDS = 10

#: The command line's flags for each rule set's slug.
RULE_FLAGS = {
    "std": [],
    "ec": ["--empty-capture"],
    "std-delayed": ["--end", "delayed"],
    "std-nosweep": ["--end", "no-sweep"],
    "ec-delayed": ["--empty-capture", "--end", "delayed"],
    "ec-nosweep": ["--empty-capture", "--end", "no-sweep"],
}


@pytest.fixture(scope="session")
def table_dir(tmp_path_factory):
    """A directory with the 6-house tables of every rule set up to
    TABLE_SEEDS seeds, built by kalah.build_tables."""
    path = tmp_path_factory.mktemp("tables")
    for rules in kalah.RULES:
        report = kalah.build_tables(path, TABLE_SEEDS, 6, rules=rules)
        assert report["max_seeds"] == TABLE_SEEDS
    return path


@pytest.fixture(scope="session")
def kalah_bin():
    """The `kalah` command: $KALAH_BIN, else the workspace's release or
    debug build, else built now (debug)."""
    given = os.environ.get("KALAH_BIN")
    if given:
        return pathlib.Path(given)
    for profile in ("release", "debug"):
        path = REPO / "target" / profile / "kalah"
        if path.is_file():
            return path
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.fail("no `kalah` binary: set KALAH_BIN or build it with `cargo build`")
    subprocess.run([cargo, "build", "--quiet", "--bin", "kalah"], cwd=REPO, check=True)
    return REPO / "target" / "debug" / "kalah"
