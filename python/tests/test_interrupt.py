"""Ctrl-C during a long call: KeyboardInterrupt within a fraction of a
second, and the interpreter goes on (a subprocess, so that the signal
reaches a fresh interpreter's main thread as a user's Ctrl-C would)."""

import json
import subprocess
import sys

import pytest

#: Ctrl-C must stop a call within this many seconds.
PROMPT = 0.5

SCRIPT = r"""
import json, os, signal, threading, time
import kalah

# Python's own Ctrl-C handler, whatever SIGINT disposition this process
# inherited: a job started in the background by a non-interactive shell
# (a CI runner, `nohup ... &`) inherits SIGINT ignored, and Python then
# installs no handler.
signal.signal(signal.SIGINT, signal.default_int_handler)

sent = {}
def ctrl_c():
    sent["at"] = time.monotonic()
    os.kill(os.getpid(), signal.SIGINT)

threading.Timer(1.0, ctrl_c).start()
started = time.monotonic()
try:
    CALL
    print(json.dumps({"finished": time.monotonic() - started}))
except KeyboardInterrupt:
    latency = time.monotonic() - sent["at"]
    # The interpreter, the module and its engine go on working.
    after = kalah.query("0 0 0 0 1 0 0 0 0 0 0 0 0 0 S", rules="std")
    again = kalah.query("1 1 0 0 2 0 0 0 2 1 0 0 1 0 N", tt_mb=16)
    print(json.dumps({"latency": latency, "after": after["value"], "again": again["value"]}))
"""

CALLS = {
    # A board of Kalah(6,5) that no game reaches (60 seeds, off by one
    # from the start), so no opening book holds it: hours of search.
    "query": "kalah.query('6 5 5 5 5 5 0 5 5 5 5 5 4 0 S', tt_mb=64, threads=2)",
    "solve": "kalah.solve(6, 6, tt_mb=64, threads=1)",
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_ctrl_c_stops_a_search_promptly(call):
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT.replace("CALL", CALLS[call])],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert "finished" not in report, report
    assert report["latency"] < PROMPT, report
    assert report["after"] == 1
    assert isinstance(report["again"], int)
    print(f"{call}: KeyboardInterrupt {report['latency'] * 1000:.1f} ms after SIGINT")
