"""Failures are data (issue 50, item 3): with ``runner.on_error=record`` a data set whose
``analyse`` raises is counted (``failures``, ``failure_share``), kept with the replication
and attempt that replay it (``failures.csv``), and drawn again; ``rocsim replay`` reproduces
one with its traceback; past ``runner.max_failure_share`` a condition stops the run in one
line. The kind is a user's, in a folder outside the repository."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from user_kinds import FlakyMean

from rocsim.sim.conditions import expand_conditions
from rocsim.sim.runner import TooManyFailures, attempt_rng, run_conditions

ROCSIM = [sys.executable, "-c", "from rocsim.cli import main; main()"]
#: The user's kinds (tests/user_kinds.py), copied into the run's folder.
KINDS = Path(__file__).with_name("user_kinds.py")

CONFIG = """# @package _global_
study:
  name: flaky
  kind: {_target_: user_kinds.FlakyMean}
  axes:
    mu: [0.0, 1.0]
    n: [10]
  plot: {x: mu}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "configs" / "study").mkdir(parents=True)
    (tmp_path / "configs" / "study" / "flaky.yaml").write_text(CONFIG)
    shutil.copyfile(KINDS, tmp_path / "user_kinds.py")  # the user's module, outside the repo
    return tmp_path


def rocsim(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*ROCSIM, *args], cwd=folder, capture_output=True, text=True, timeout=300
    )


def conditions(cut: float = 1.5):
    return expand_conditions("flaky", {"mu": [0.0, 1.0], "n": [10], "cut": [cut]}, BASE)


BASE = {"model": {"family": "binormal"}, "confidence_level": 0.95}


def test_a_run_records_its_failures_and_replays_one(folder):
    args = ["study=flaky", "replications=200", "runner.on_error=record", "results_dir=r"]
    done = rocsim(folder, *args, "n_jobs=2")
    assert done.returncode == 0, done.stderr[-3000:]
    table = pd.read_csv(folder / "r" / "flaky" / "coverage.csv")
    assert (table["failures"] > 0).all() and (table["replications"] == 200).all()
    share = table["failures"] / (table["failures"] + 200)
    assert np.allclose(table["failure_share"], share) and (share < 0.2).all()
    failures = pd.read_csv(folder / "r" / "flaky" / "failures.csv")
    assert list(failures.columns) == ["condition", "replication", "attempt", "error", "replay"]
    assert len(failures) == table["failures"].sum()
    assert failures["error"].str.startswith("ValueError: first draw").all()
    lines = [line for line in done.stderr.splitlines() if "replay the first:" in line]
    assert len(lines) == 2, done.stderr  # one per condition with failures
    # the replay command of a failure draws the same data set and raises the same error
    first = failures.iloc[0]
    command = shlex.split(first["replay"])
    assert command[:2] == ["rocsim", "replay"] and "runner.on_error=record" in command
    replayed = rocsim(folder, *command[1:])
    assert replayed.returncode == 1
    assert "Traceback" in replayed.stderr and first["error"] in replayed.stderr
    assert replayed.stderr.strip().splitlines()[-1].startswith("rocsim replay: error: ")
    # the same bytes for one job
    assert rocsim(folder, *args[:-1], "results_dir=one", "n_jobs=1").returncode == 0
    for name in ("coverage.csv", "failures.csv"):
        ours = (folder / "one" / "flaky" / name).read_text()
        assert ours == (folder / "r" / "flaky" / name).read_text(), name


def test_past_the_share_a_condition_stops_the_run_in_one_line(folder):
    """Also when its outcomes are cached: a run that allowed more failures computed them."""
    # two jobs: a block that passes the share stops in a worker process
    args = ["study=flaky", "replications=200", "runner.on_error=record", "n_jobs=2"]
    assert rocsim(folder, *args, "results_dir=cached").returncode == 0
    earlier = (folder / "cached" / "flaky" / "coverage.csv").read_bytes()
    for results in ("cached", "new"):
        done = rocsim(folder, *args, "runner.max_failure_share=0.01", f"results_dir={results}")
        check_stopped(done)
    # nothing written: the earlier run's set stays as it was, the new folder has none
    assert (folder / "cached" / "flaky" / "coverage.csv").read_bytes() == earlier
    assert not (folder / "new" / "flaky" / "manifest.json").exists()


def check_stopped(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "runner.max_failure_share" in lines[0] and "replay it: rocsim replay" in lines[0]


def test_without_failures_a_recording_run_gives_the_raising_runs_outcomes():
    kind = FlakyMean()
    options = {"replications": 60, "seed": 3, "progress": False}
    raised = run_conditions(kind, conditions(cut=99.0), **options).table
    recorded = run_conditions(kind, conditions(cut=99.0), on_error="record", **options).table
    assert (recorded["failures"] == 0).all()
    pd.testing.assert_frame_equal(recorded.drop(columns=["failures", "failure_share"]), raised)


def test_a_failure_is_drawn_again_from_its_own_generator():
    """Replication r's k-th draw comes from attempt_rng(seed, condition, r, k): the recorded
    failure replays, and the draw that replaced it is the next attempt's."""
    kind = FlakyMean()
    run = run_conditions(
        kind, conditions(), replications=80, seed=3, progress=False, on_error="record"
    )
    condition = conditions()[0]
    failure = run.failures[condition.label][0]
    setup = kind.setup(condition)
    rng = attempt_rng(3, condition, failure.replication, failure.attempt, None)
    with pytest.raises(ValueError, match="too far out"):
        kind.analyse(condition, setup, kind.generate(condition, setup, rng))


def test_the_block_stops_once_the_share_is_passed():
    kind = FlakyMean()
    with pytest.raises(TooManyFailures, match=r"runner\.max_failure_share"):
        run_conditions(
            kind,
            conditions(cut=-99.0),  # every data set fails
            replications=20,
            seed=3,
            progress=False,
            on_error="record",
        )


@pytest.mark.parametrize(
    "options, message",
    [
        ({"on_error": "ignore"}, "runner.on_error must be one of raise, record"),
        ({"max_failure_share": 1.0}, r"runner.max_failure_share must be in \[0, 1\)"),
    ],
)
def test_bad_failure_settings_are_refused(options, message):
    kind = FlakyMean()
    with pytest.raises(ValueError, match=message):
        run_conditions(kind, conditions(), replications=5, seed=1, progress=False, **options)
