"""Runs that meet real faults (issue 34): a full disk, a damaged or swapped cache file, an
edited output, two runs into one folder, an analysis killed while moving its files, Ctrl-C at
start-up, overrides Hydra would answer with a traceback, and memory that grows with the
replication count by one bit per replication and grid point only."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rocsim.cli import compose_study
from rocsim.sim import runner
from rocsim.sim.conditions import Condition
from rocsim.sim.io import MANIFEST, PENDING, check_set, folder_lock
from rocsim.sim.pipeline import run_study

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX only")

ROCSIM = [sys.executable, "-c", "from rocsim.cli import main; main()"]
SMALL = ["replications=20", "grid.num=9", "n_jobs=1", "runner.progress=false"]


def study(tmp_path: Path, name: str = "fig4_3", *overrides: str):
    return compose_study(name, [f"results_dir={tmp_path}", *SMALL, *overrides])


def rocsim(*args, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*ROCSIM, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def one_line(done: subprocess.CompletedProcess, status: int) -> str:
    assert done.returncode == status, (done.returncode, done.stderr[-3000:])
    assert done.stderr.count("\n") == 1, done.stderr[-3000:]
    return done.stderr


# --- a full disk -------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path):
    """Mount a tmpfs of a given size (KiB); unmounted at the end. Skips where mounting is not
    allowed (it needs root)."""
    mounted = []

    def mount(kib: int) -> Path:
        folder = tmp_path / f"disk{len(mounted)}"
        folder.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a small filesystem here: {done.stderr.strip()}")
        mounted.append(folder)
        return folder

    yield mount
    for folder in mounted:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    "kib",
    [
        4,
        pytest.param(100, marks=SLOW),
        pytest.param(200, marks=SLOW),
        pytest.param(400, marks=SLOW),
    ],
)
def test_a_full_disk_is_one_line_naming_the_folder(small_disk, tmp_path, kib):
    disk = small_disk(kib)
    done = rocsim("study=fig4_3", "replications=30", f"results_dir={disk}/r", cwd=tmp_path)
    line = one_line(done, 1)
    assert "No space left on device" in line and f"{disk}/r/fig4_3" in line, line
    # nothing half-written is trusted: the folder holds no complete set of outputs
    assert not (disk / "r" / "fig4_3" / MANIFEST).exists()
    assert not list((disk / "r").rglob("*.part"))


def test_analyze_on_a_full_disk_is_one_line_and_leaves_out_as_it_was(small_disk, tmp_path):
    data = scores_file(tmp_path)
    disk = small_disk(256)
    scores = ["--score", "old", "--score", "new"]
    done = rocsim(*ANALYZE_ARGS(data), *scores, "--out", disk / "a", cwd=tmp_path)
    line = one_line(done, 1)
    assert line.startswith("rocsim analyze: error: cannot write in") and str(disk / "a") in line
    assert sorted(p.name for p in (disk / "a").iterdir()) == [".lock"]


# --- the cache ---------------------------------------------------------------------------------


def cache_files(out: Path) -> list[Path]:
    return sorted((out / ".cache").glob("*-simulate-*.npz"))


def test_damaged_cache_files_are_said_and_computed_again(tmp_path, capsys):
    clean = run_study(study(tmp_path / "clean"))
    out = run_study(study(tmp_path / "run")).directory
    first, second, *_ = cache_files(out)
    data = bytearray(first.read_bytes())
    data[len(data) // 2] ^= 0x10  # one flipped bit in the middle of the outcomes
    first.write_bytes(bytes(data))
    second.write_bytes(b"")
    capsys.readouterr()
    rerun = run_study(study(tmp_path / "run"))
    err = capsys.readouterr().err
    assert f"{first} " in err and f"{second} is damaged" in err, err
    assert sorted(rerun.run.computed) == sorted(
        c for c in rerun.table["condition"].unique() if c in rerun.run.computed
    )
    assert len(rerun.run.computed) == 2
    assert (rerun.directory / "coverage.csv").read_bytes() == (
        clean.directory / "coverage.csv"
    ).read_bytes()


def test_swapped_cache_files_are_not_reused(tmp_path, capsys):
    clean = run_study(study(tmp_path / "clean"))
    out = run_study(study(tmp_path / "run")).directory
    first, second, *_ = cache_files(out)
    a, b = first.read_bytes(), second.read_bytes()
    first.write_bytes(b)
    second.write_bytes(a)
    capsys.readouterr()
    rerun = run_study(study(tmp_path / "run"))
    err = capsys.readouterr().err
    assert f"{first} holds the outcomes of {second.name}" in err, err
    assert len(rerun.run.computed) == 2
    assert (rerun.directory / "coverage.csv").read_bytes() == (
        clean.directory / "coverage.csv"
    ).read_bytes()


def test_a_run_stopped_mid_condition_keeps_its_replications(tmp_path):
    """A condition's finished blocks are cached when the run stops (here: an error in the
    third block), and the rerun computes only the replications after them."""
    cfg = study(tmp_path, "fig4_2", "runner.block_size=5", "replications=20")
    calls = []
    real = runner.run_block

    def failing(kind, condition, setup, seed, start, stop, *rest):
        calls.append(start)
        if len(calls) == 3:
            raise RuntimeError("stopped")
        return real(kind, condition, setup, seed, start, stop, *rest)

    runner.run_block = failing
    try:
        with pytest.raises(RuntimeError, match="stopped"):
            run_study(cfg)
    finally:
        runner.run_block = real
    cached = sorted(p.name.split("-")[2] for p in (tmp_path / "fig4_2" / ".cache").iterdir())
    assert cached == ["r10"]
    starts = []
    runner.run_block = lambda *a: starts.append(a[4]) or real(*a)
    try:
        again = run_study(cfg)
    finally:
        runner.run_block = real
    assert starts[0] == 10  # continued after the cached replications
    fresh = run_study(study(tmp_path / "fresh", "fig4_2", "replications=20"))
    assert (again.directory / "coverage.csv").read_bytes() == (
        fresh.directory / "coverage.csv"
    ).read_bytes()


# --- outputs -----------------------------------------------------------------------------------


def test_an_edited_coverage_csv_is_said_before_it_is_written_again(tmp_path, capsys):
    first = run_study(study(tmp_path, "fig4_2"))
    table = first.directory / "coverage.csv"
    original = table.read_bytes()
    table.write_text(table.read_text().replace("0.9", "0.8", 1))
    capsys.readouterr()
    run_study(study(tmp_path, "fig4_2"))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{table} was changed since its run wrote it" in err, err
    assert table.read_bytes() == original
    check_set(first.directory)


@SLOW  # the refusal is also met in test_two_runs_at_once_one_refused_the_other_whole
def test_a_second_run_into_a_folder_in_use_is_one_line(tmp_path):
    """The folder's lock is held by another process (this test's): the run is refused at once,
    naming it; once the lock is free, the same command runs."""
    out = tmp_path / "res" / "fig4_2"
    with folder_lock(out):
        done = rocsim("study=fig4_2", "replications=5", "results_dir=res", cwd=tmp_path)
        line = one_line(done, 1)
        assert f"in use by pid {os.getpid()}" in line and str(Path("res") / "fig4_2") in line
    assert not (out / "coverage.csv").exists()
    assert (
        rocsim("study=fig4_2", "replications=5", "results_dir=res", cwd=tmp_path).returncode == 0
    )
    check_set(out)


def test_two_runs_at_once_one_refused_the_other_whole(tmp_path):
    """Two real runs into one folder, with different seeds: one finishes with a complete set,
    the other is refused in one line (before, one crashed or one seed's outputs vanished)."""
    args = ["study=fig4_3", "replications=3000", "n_jobs=1", "results_dir=res"]
    first = subprocess.Popen(
        [*ROCSIM, *args, "seed=1"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lock = tmp_path / "res" / "fig4_3" / ".lock"
    deadline = time.time() + 120
    while not (lock.exists() and lock.read_text().strip()):
        assert time.time() < deadline, "the first run never started"
        time.sleep(0.05)
    second = rocsim(*args, "seed=2", cwd=tmp_path)
    assert "in use by pid" in one_line(second, 1)
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    check_set(tmp_path / "res" / "fig4_3")
    meta = json.loads((tmp_path / "res" / "fig4_3" / "meta.json").read_text())
    assert meta["seed"] == 1


def scores_file(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    path = tmp_path / "scores.csv"
    pd.DataFrame(
        {
            "outcome": np.where(y == 1, "sick", "well"),
            "old": rng.normal(0.5 * y, 1),
            "new": rng.normal(1.5 * y, 1),
        }
    ).to_csv(path, index=False)
    return path


def ANALYZE_ARGS(data: Path) -> list:
    return ["analyze", data, "--label", "outcome", "--pos-label", "sick"]


def test_two_analyses_into_one_out_leave_one_set(tmp_path):
    data = scores_file(tmp_path)
    out = tmp_path / "out"
    both = rocsim(
        *ANALYZE_ARGS(data), "--score", "old", "--score", "new", "--out", out, cwd=tmp_path
    )
    assert both.returncode == 0, both.stderr
    one = rocsim(*ANALYZE_ARGS(data), "--score", "new", "--out", out, cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    files = {p.name for p in out.iterdir() if p.name[0] != "."}
    assert files == set(check_set(out)) | {MANIFEST}
    assert "roc_old.csv" not in files and "roc_new.csv" in files


_KILLED_WHILE_MOVING = """
import os, signal, sys
import rocsim.cli.analyze as analyze
moved = []
real = os.replace
def replace(src, dst):
    real(src, dst)
    if ".staging-" in str(src) and ".staging-" not in str(dst):  # a move into --out
        moved.append(dst)
        if len(moved) == 3:
            os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
from rocsim.cli import main
main()
"""


def test_an_analysis_killed_while_moving_leaves_nothing_the_next_one_keeps(tmp_path):
    data = scores_file(tmp_path)
    out = tmp_path / "out"
    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            _KILLED_WHILE_MOVING,
            *map(str, ANALYZE_ARGS(data)),
            "--score",
            "old",
            "--score",
            "new",
            "--out",
            str(out),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert killed.returncode == -signal.SIGKILL
    names = sorted(p.name for p in out.iterdir())
    assert any(n.startswith(".staging-") for n in names) and MANIFEST not in names
    assert PENDING in names  # the files the cut set was writing, for the next one to remove
    with pytest.raises(ValueError, match="no complete set"):
        check_set(out)
    again = rocsim(*ANALYZE_ARGS(data), "--score", "new", "--out", out, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    names = {p.name for p in out.iterdir()}
    assert not any(n.startswith(".staging-") for n in names) and PENDING not in names
    assert names - {".lock"} == set(check_set(out)) | {MANIFEST}


# --- start-up and overrides ---------------------------------------------------------------------


def _terminal_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


@pytest.mark.parametrize(
    "args",
    [
        ["study=fig4_2", "replications=50"],
        ["analyze", "{data}", "--label", "outcome", "--pos-label", "sick", "--score", "new"],
        ["--reproduce", "--only", "fig4_2", "--replications", "50"],
    ],
    ids=["rocsim", "analyze", "reproduce"],
)
@pytest.mark.parametrize(
    "delay", [0.3, pytest.param(1.2, marks=SLOW), pytest.param(2.4, marks=SLOW)]
)
def test_ctrl_c_during_start_up_is_one_line(tmp_path, args, delay):
    """Ctrl-C from a terminal (SIGINT to the process group) while the command imports, composes
    its configs and starts its workers: one line, status 130 (before, a traceback of 20-54
    lines in 14 of 24 trials)."""
    data = scores_file(tmp_path)
    args = [a.replace("{data}", str(data)) for a in args]
    if args[0] == "--reproduce":
        command = [sys.executable, "-c", "from rocsim.cli import reproduce; reproduce()"]
        args = [*args[1:], "--results-dir", "rr"]
    else:
        command = ROCSIM
    proc = subprocess.Popen(
        [*command, *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_terminal_ctrl_c,
    )
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0:  # finished before the signal: nothing to see
        return
    assert proc.returncode == 130, err
    assert err.count("\n") == 1 and "interrupted; rerun the same command" in err, err


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        (["~replications"], "would delete a setting rocsim needs"),
        (["interval=wald", "interval=score"], "interval is given twice"),
        (["hydra.run.dir=/proc/x"], "hydra.run.dir /proc/x is not writable"),
        (["hydra.sweep.dir=/proc/x"], "hydra.sweep.dir /proc/x is not writable"),
    ],
)
def test_overrides_hydra_would_answer_with_a_traceback_are_one_line(overrides, words, capsys):
    from rocsim.cli.study import check_overrides

    with pytest.raises(SystemExit) as stop:
        check_overrides(["study=fig4_2", *overrides])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_a_home_folder_is_expanded():
    from rocsim.cli.study import expand_home

    home = os.path.expanduser("~")
    assert expand_home(["results_dir=~/x", "~replications", "a=b~c"]) == [
        f"results_dir={home}/x",
        "~replications",
        "a=b~c",
    ]


def test_parameters_that_overflow_are_named(tmp_path):
    with pytest.raises(ValueError, match=r"N\(1e\+308, 3\.75\).*overflow"):
        run_study(study(tmp_path, "fig4_3", "study.axes.theta=[1e308]"))
    assert not (tmp_path / "fig4_3").exists()


def test_reproduce_refuses_an_unknown_key_before_starting_workers(tmp_path, monkeypatch, capsys):
    module = importlib.import_module("rocsim.cli.reproduce")  # rocsim.cli.reproduce: a function

    def no_workers(n_jobs):
        raise AssertionError("workers started before the overrides were checked")

    monkeypatch.setattr(module, "start_workers", no_workers)
    with pytest.raises(SystemExit) as stop:
        module.reproduce(["--results-dir", str(tmp_path), "bogus=1"])
    assert stop.value.code == 2
    assert "unknown key 'bogus'" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["study=fig4_2", "~replications"],
        ["study=fig4_2", "hydra.run.dir=/proc/x"],
        ["-m", "study=fig4_2", "hydra.sweep.dir=/proc/x"],
        ["-m", "study=fig4_2", "interval=wald", "interval=score"],
    ],
)
def test_overrides_are_one_line_from_the_command(tmp_path, args):
    one_line(rocsim(*args, "replications=5", cwd=tmp_path), 2)


# --- memory ------------------------------------------------------------------------------------


class _Wide(runner.StudyKind):
    """A kind of 99 grid points whose replications cost nothing."""

    grid = "q"

    def setup(self, condition):
        x = np.linspace(0.01, 0.99, 99)
        return runner.Setup(x, x)

    def generate(self, condition, setup, rng):
        return rng.random(99)

    def analyse(self, condition, setup, data):
        cover = data < 0.9
        return {"cover": cover, "below": ~cover, "above": 0 * cover, "width": data}


@pytest.mark.parametrize("reps", [2000, pytest.param(20000, marks=SLOW)])
def test_what_grows_with_the_replication_count_is_one_bit_per_cell(reps):
    """A finished condition keeps R x 99 bits (the claims' per-replication outcomes), not
    the outcome matrices (a float and three booleans per cell: 11 bytes)."""
    conditions = [Condition("memory", {"k": k}, {"n": 1, "k": k}) for k in (1, 2)]
    tracemalloc.start()
    try:
        result = runner.run_conditions(
            _Wide(), conditions, replications=reps, seed=1, n_jobs=1, progress=False
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    bits = sum(c.bits.nbytes for c in result.cover.values())
    assert bits == 2 * reps * 13
    assert peak < bits + 3 * 2**20, f"peak {peak / 2**20:.1f} MiB for {bits / 2**20:.1f} MiB"
    table = result.table
    assert np.allclose(table["coverage"], table["miss_low"].rsub(1))


def test_the_quoted_size_of_the_kept_outcomes_is_the_packed_size():
    """README and :class:`rocsim.sim.io.PackedOutcomes` quote the size of 10^6 replications
    of 99 grid points, one bit each: computed here."""
    from rocsim.sim.io import PackedOutcomes

    size = f"{PackedOutcomes.pack(np.zeros((10**6, 99), bool)).bits.nbytes / 2**20:.1f} MiB"
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    assert f"That is {size} per" in readme
    assert f"e.g. {size} at R = 10^6" in PackedOutcomes.__doc__
