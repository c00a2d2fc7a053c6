"""Mistakes and interruptions of a run (issue 16, defects 6-11): one line and the right exit
status, no orphan worker, a study folder always holds one run's outputs, memory that does not
grow with the replication count, and a rerun that gives the uninterrupted bytes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest
from joblib import Parallel, delayed

from rocsim.cli import compose_study
from rocsim.sim import cache as cache_files
from rocsim.sim import pipeline, runner, workers
from rocsim.sim.claims import load_study_data
from rocsim.sim.io import MANIFEST, check_set

ROCSIM = [sys.executable, "-c", "from rocsim.cli import main; main()"]
#: A study that keeps two loky workers busy for several seconds after its first condition is
#: cached: its simulation (the exact coverage it computes beside is quick).
BUSY = ["study=fig4_3", "replications=2000", "seed=5", "n_jobs=2", "runner.block_size=10"]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def descendants(pid: int) -> set[int]:
    """Every live process whose ancestry reaches ``pid`` (from /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":  # a zombie is dead, only not yet reaped by init
                parents[int(entry.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    live = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            live.add(pid)
    return live


def _as_from_a_terminal() -> None:
    """The child's Ctrl-C as a shell starts a command: handled by default, not blocked. A
    child inherits an ignored or blocked SIGINT from the process that starts it, and in the
    whole suite the busy run now and then finished untouched by the signal (exit status 0)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])


def start_busy(results_dir: Path) -> tuple[subprocess.Popen, set[int]]:
    """Start a busy run in its own session; return it once its workers compute."""
    proc = subprocess.Popen(
        [*ROCSIM, *BUSY, f"results_dir={results_dir}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_as_from_a_terminal,
    )
    cache = results_dir / "fig4_3" / ".cache"
    deadline = time.time() + 120
    while time.time() < deadline and not list(cache.glob("*.npz")):
        time.sleep(0.05)
    workers = descendants(proc.pid)
    assert len(workers) >= 2, "the run should have started its workers"
    return proc, workers


@pytest.mark.parametrize(
    ("send", "status", "line"),
    [
        (lambda p: os.killpg(p.pid, signal.SIGINT), 130, "rocsim: interrupted; rerun"),
        pytest.param(  # the same path as Ctrl-C but for the signal: 20 s, run with -m slow
            lambda p: os.kill(p.pid, signal.SIGTERM),
            143,
            "rocsim: terminated; rerun",
            marks=pytest.mark.slow,
        ),
    ],
    ids=["ctrl-c", "sigterm"],
)
def test_interruption_is_one_line_leaves_no_worker_and_resumes(tmp_path, send, status, line):
    proc, workers = start_busy(tmp_path / "cut")
    send(proc)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, (err, signal.getsignal(signal.SIGINT))
    assert err.startswith(line) and err.count("\n") == 1, err
    deadline = time.time() + 10
    while alive(workers) and time.time() < deadline:
        time.sleep(0.2)
    assert not alive(workers)
    out = tmp_path / "cut" / "fig4_3"
    assert not (out / MANIFEST).exists() and not (out / "coverage.csv").exists()
    rerun = subprocess.run(
        [*ROCSIM, *BUSY, f"results_dir={tmp_path / 'cut'}"], capture_output=True, text=True
    )
    assert rerun.returncode == 0, rerun.stderr
    check_set(out)


def test_workers_leave_ctrl_c_to_their_parent():
    # a terminal sends SIGINT to the whole process group: a worker interrupted in its loop
    # printed a traceback, or died and broke the pool while the parent was stopping it
    with workers._workers(None):
        handlers = Parallel(n_jobs=2)(delayed(signal.getsignal)(signal.SIGINT) for _ in range(4))
    assert handlers == [signal.SIG_IGN] * 4


def test_a_run_stopped_by_its_parent_stops_quietly_and_leaves_no_queue_thread(
    tmp_path, monkeypatch
):
    """Ctrl-C in the parent's own code (here: writing the first condition) stops the pool
    without joblib's warning about unused results, and returns only once the stopped pool's
    queue threads have released their semaphores (an exit meanwhile made loky's resource
    tracker warn of leaked ones)."""

    def interrupted(path, write):
        raise KeyboardInterrupt

    monkeypatch.setattr(cache_files, "atomic_write", interrupted)
    cfg = compose_study("fig4_3", [*BUSY[1:], f"results_dir={tmp_path}", "runner.progress=false"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(KeyboardInterrupt):
            pipeline.run_study(cfg)
    assert [str(w.message) for w in caught] == []
    assert [t for t in threading.enumerate() if t.name == "QueueFeederThread"] == []


def test_no_orphan_ten_seconds_after_the_parent_is_killed(tmp_path):
    # loky workers and resource trackers used to outlive a SIGKILLed parent for minutes
    proc, workers = start_busy(tmp_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    deadline = time.time() + 10
    while alive(workers) and time.time() < deadline:
        time.sleep(0.2)
    assert not alive(workers), f"orphans: {alive(workers)}"


def test_results_dir_that_cannot_hold_results_fails_before_any_work(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")

    def no_work(*args, **kwargs):
        raise AssertionError("computed before checking the results folder")

    monkeypatch.setattr(pipeline, "run_conditions", no_work)
    for results_dir, message in (
        (blocker, "is under .*a-file, which is a file"),
        ("/proc/rocsim-results", "is not writable"),
    ):
        cfg = compose_study("fig4_9", [f"results_dir={results_dir}", "replications=2"])
        with pytest.raises(ValueError, match=f"^results_dir .*{message}"):
            pipeline.run_study(cfg)
    done = subprocess.run(
        [*ROCSIM, "study=fig4_9", "replications=2", f"results_dir={blocker}"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("rocsim: error: results_dir ")


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("replicaitons=5", "unknown key 'replicaitons'; did you mean 'replications'?"),
        ("foo=1", "unknown key 'foo' (a new key is added with +foo=...)"),
        ("interval.methd=wald", "did you mean 'interval.method'?"),
        ("interval=wald,scroe", "unknown interval 'scroe'"),
        ("seed=[1", "rocsim: error: "),
    ],
)
def test_unknown_override_keys_are_one_line_with_the_nearest_key(tmp_path, override, message):
    done = subprocess.run(
        [*ROCSIM, "study=fig4_2", override, f"results_dir={tmp_path}"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert not any(tmp_path.iterdir())


def small_study(tmp_path, seed=3):
    return compose_study(
        "fig4_2", [f"results_dir={tmp_path}", "replications=20", f"seed={seed}", "n_jobs=1"]
    )


def outputs(folder: Path) -> dict[str, bytes]:
    """The files of a study folder, its hidden bookkeeping aside (the lock, the pending list)."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and p.name[0] != "."}


def test_a_run_killed_while_writing_leaves_one_runs_files_and_no_manifest(tmp_path, monkeypatch):
    out = tmp_path / "fig4_2"
    pipeline.run_study(small_study(tmp_path, seed=3))
    first = outputs(out)
    assert set(check_set(out)) == set(first) - {MANIFEST}

    written = []
    real = pipeline.atomic_write

    def dies_on_the_second_file(path, write):
        written.append(Path(path).name)
        if len(written) == 2:
            raise KeyboardInterrupt
        real(path, write)

    monkeypatch.setattr(pipeline, "atomic_write", dies_on_the_second_file)
    with pytest.raises(KeyboardInterrupt):
        pipeline.run_study(small_study(tmp_path, seed=4))
    monkeypatch.undo()
    # the new run's first file only: nothing of the first run beside it, and no manifest
    assert sorted(outputs(out)) == [written[0]]
    assert (out / written[0]).read_bytes() != first[written[0]]
    with pytest.raises(ValueError, match="no complete set of outputs"):
        check_set(out)
    assert load_study_data(out, "fig4_2", complete=True) is None
    pipeline.run_study(small_study(tmp_path, seed=3))
    again = outputs(out)
    assert again.keys() == first.keys()
    for name in ("coverage.csv", "coverage.parquet", "outcomes.npz", "claims.csv"):
        assert again[name] == first[name], name


def test_a_changed_output_file_is_detected(tmp_path):
    pipeline.run_study(small_study(tmp_path))
    out = tmp_path / "fig4_2"
    with open(out / "coverage.csv", "a") as fh:
        fh.write("\n")
    with pytest.raises(ValueError, match="is not the file its run wrote"):
        check_set(out)


class _Trivial(runner.StudyKind):
    """A study kind that costs nothing, to watch the runner itself."""

    grid = "q"

    def setup(self, condition):
        return runner.Setup(np.array([0.5]), np.array([0.5]))

    def generate(self, condition, setup, rng):
        return None

    def analyse(self, condition, setup, data):
        one = np.ones(1)
        return {"cover": one, "below": 0 * one, "above": 0 * one, "width": one}


class _Stop(Exception):
    pass


class _StopAfter:
    """A progress bar that stops the run after a few blocks."""

    def __init__(self, blocks: int) -> None:
        self.left = blocks

    def update(self, n=1):
        self.left -= 1
        if self.left <= 0:
            raise _Stop


def test_memory_does_not_grow_with_the_replication_count():
    # the task list used to be built whole: 2e6 blocks for 1e8 replications
    condition = compose_study("fig4_2", ["replications=1"])
    conditions = pipeline.study_conditions(condition)[:1]
    tracemalloc.start()
    try:
        with pytest.raises(_Stop):
            runner.run_conditions(
                _Trivial(),
                conditions,
                replications=10**8,
                seed=1,
                n_jobs=1,
                progress_bar=_StopAfter(5),
            )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_ctrl_c_after_the_work_is_done_is_quiet():
    """Once a command's work is done, the interpreter still closes joblib's worker pool (its
    exit hooks); a Ctrl-C then printed a KeyboardInterrupt traceback from
    threading's shutdown, with exit status 0. Nothing is left to stop: it is ignored."""
    script = (
        "import os, signal, threading, time\n"
        "from rocsim.cli._common import run_command\n"
        "def body():\n"
        "    # runs where the pool's exit hook runs: in threading's shutdown, after the body\n"
        "    threading._register_atexit(\n"
        "        lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(0.2))\n"
        "    )\n"
        "run_command(body, 'rocsim')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")


def test_a_command_called_from_python_keeps_its_callers_ctrl_c():
    from rocsim.cli._common import run_command

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    run_command(lambda: None, "rocsim")
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
