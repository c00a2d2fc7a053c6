"""Ctrl-C at any moment of a console command prints at most one line.

A command stopped while it works says ``interrupted`` in one line and exits 130
(``tests/test_interruptions.py`` checks what it leaves behind); once its work is done, the
interpreter still runs Python code to exit (threading's and ``atexit``'s hooks, joblib's pool),
and a Ctrl-C there printed ``Exception ignored in: <module 'threading'>`` and a traceback, or,
just before, a ``KeyboardInterrupt`` traceback. Two ways to hit those moments: signals at
delays spread over a real ``rocsim analyze`` run, and, deterministically, a signal at every
step of Python code the process runs once the command's work is done (``sys.settrace``).

The children import the console script's function, say they are up and wait for a byte on
stdin before calling it, so that the delays count from its first line: before it, a Ctrl-C
while the interpreter starts (in ``site``) is CPython's to report, and one while the console
script imports ``rocsim.cli`` (two small modules, ~2 ms) is Python's default traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

#: A console script that says ``up`` once it has imported its function, and calls it when the
#: test writes a byte to its stdin.
AFTER_A_BYTE = "import os\nfrom rocsim.cli import main\nos.write(1, b'up'), os.read(0, 1)\nmain()"

#: A console script that sends itself SIGINT at the K-th step (line, call or return traced
#: by ``sys.settrace``) of the Python code run after the command's work, exit included,
#: and prints how many steps there were.
AT_STEP_K = """
import atexit, os, signal, sys, threading
K, steps = int(sys.argv.pop(1)), 0
def trace(frame, event, arg):
    global steps
    steps += 1
    if steps == K:
        os.kill(os.getpid(), signal.SIGINT)
    return trace
atexit.register(lambda: os.write(2, b"steps=%d\\n" % steps))  # the last exit hook
import rocsim.cli
work = rocsim.cli._rocsim
def work_then_trace(args):
    work(args)
    sys.settrace(trace)
    threading.settrace(trace)
    frame = sys._getframe(1)
    while frame is not None:  # the frames already running: run_command's, main's
        frame.f_trace, frame = trace, frame.f_back
rocsim.cli._rocsim = work_then_trace
rocsim.cli.main()
"""


def _as_from_a_terminal() -> None:
    """SIGINT handled by default in the child, as a shell starts a command (pytest's
    workers may pass it on ignored or blocked)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])


@pytest.fixture(scope="module")
def scores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    path = tmp_path_factory.mktemp("data") / "scores.csv"
    pd.DataFrame({"y": y, "a": rng.normal(y, 1.0)}).to_csv(path, index=False)
    return path


def analyze_at(scores: Path, out: Path, delay: float | None) -> tuple[float, int, str]:
    """``rocsim analyze`` on ``scores``, Ctrl-C'd (SIGINT to its process group, as a
    terminal sends it) ``delay`` seconds after its start: (run time, exit status, stderr)."""
    command = [sys.executable, "-c", AFTER_A_BYTE, "analyze", str(scores), "--label", "y"]
    proc = subprocess.Popen(
        [*command, "--score", "a", "--out", str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_as_from_a_terminal,
    )
    assert proc.stdout.read(2) == b"up"
    start = time.perf_counter()
    proc.stdin.write(b"\n")
    proc.stdin.flush()
    if delay is not None:
        time.sleep(delay)
        try:
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:  # already gone
            pass
    _, err = proc.communicate(timeout=120)
    return time.perf_counter() - start, proc.returncode, err.decode()


def misbehaved(status: int, err: str) -> bool:
    """More than one line, a traceback, or an exit status other than done (0) or
    interrupted (130)."""
    noisy = err.count("\n") > 1 or "Traceback" in err or "Exception ignored" in err
    return noisy or status not in (0, 130)


def ctrl_c_over_a_run(scores: Path, tmp_path: Path, fractions: list[float]) -> list[str]:
    """The misbehaviours of ``rocsim analyze`` Ctrl-C'd at each fraction of its run time."""
    run_time, status, err = analyze_at(scores, tmp_path / "whole", None)
    assert (status, err) == (0, ""), err
    bad = []
    for index, fraction in enumerate(fractions):
        delay = fraction * run_time
        _, status, err = analyze_at(scores, tmp_path / f"cut{index}", delay)
        if misbehaved(status, err):
            bad.append(f"at {delay:.2f} s of {run_time:.2f} s: exit {status}\n{err}")
    return bad


def test_ctrl_c_at_a_few_moments_of_analyze_is_one_line(scores, tmp_path):
    """Just after the start, the middle and the end of a run (the fast sibling of the next
    test). Not at 0: a signal in the microseconds between the console script's call of its
    function and the function's first call, which blocks Ctrl-C, is Python's own traceback,
    as one while the script imports ``rocsim.cli``."""
    bad = ctrl_c_over_a_run(scores, tmp_path, [0.02, 0.5, 0.97, 1.0])
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_ctrl_c_at_twenty_moments_of_analyze_is_one_line(scores, tmp_path):
    bad = ctrl_c_over_a_run(scores, tmp_path, list(np.linspace(0.02, 1.05, 20)))
    assert not bad, "\n".join(bad)


def version_at_step(k: int) -> tuple[int, str]:
    """``rocsim --version`` Ctrl-C'd at step ``k`` after its work: (exit status, stderr)."""
    done = subprocess.run(
        [sys.executable, "-c", AT_STEP_K, str(k), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_as_from_a_terminal,
    )
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    "stride",
    [20, pytest.param(5, marks=pytest.mark.slow), pytest.param(1, marks=pytest.mark.slow)],
    ids=["every-20th", "every-5th", "every"],
)
def test_ctrl_c_at_every_step_of_the_exit_is_quiet(stride):
    """Steps of Python code between the command's work and the process's end (every 20th
    in CI, 0.2 s a run; every 5th and every one with -m slow): the signal is ignored there
    (the work is done), or stops the command in one line."""
    status, err = version_at_step(0)
    assert status == 0 and err.startswith("steps="), err
    steps = int(err.split("steps=")[1])
    bad = []
    for k in range(1, steps + 2, stride):
        status, err = version_at_step(k)
        err = err.split("steps=")[0]  # the count printed by the last exit hook
        if misbehaved(status, err):
            bad.append(f"step {k} of {steps}: exit {status}\n{err}")
    tried = len(range(1, steps + 2, stride))
    assert not bad, f"{len(bad)} of {tried} steps:\n" + "\n".join(bad[:3])


#: A command whose Ctrl-C lands in a destructor, where Python cannot raise it: it was printed
#: as ``Exception ignored in: <function Collected.__del__ ...>`` and the command ran on.
IN_A_DESTRUCTOR = """
import os, signal, time
from rocsim.cli._common import allow_interruptions, run_command
class Collected:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):  # the handler runs here
            pass
def body():
    allow_interruptions()
    Collected()
    time.sleep(10)  # cut short by the Ctrl-C
run_command(body, "rocsim", ends_process=True)
"""


def test_a_ctrl_c_in_a_destructor_still_stops_the_command_in_one_line():
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", IN_A_DESTRUCTOR],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_as_from_a_terminal,
    )
    assert done.stderr == "rocsim: interrupted; rerun the same command to resume\n"
    assert done.returncode == 130
    assert time.perf_counter() - start < 5, "stopped only once its sleep of 10 s ended"
