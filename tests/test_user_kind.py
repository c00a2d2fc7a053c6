"""A study kind of the user's own (issue 50): a subclass of :class:`rocsim.sim.StudyKind` in a
folder outside the package, named by ``_target_`` in a study config there, runs as rocsim's own
kinds do: ``rocsim study=NAME``, the same bytes for one or two jobs, its source in the cache
key, and ``rocsim-reproduce --only NAME``'s report. The worked example is
``docs/examples/custom_study``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rocsim.sim import Setup, StudyKind
from rocsim.sim.conditions import Condition
from rocsim.studies import get_kind

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "custom_study"
ROCSIM = [sys.executable, "-c", "from rocsim.cli import main; main()"]
REPRODUCE = [sys.executable, "-c", "from rocsim.cli import reproduce; reproduce()"]
SMALL = ["study.axes.auc=[0.7,0.9]", "study.axes.n=[30]", "replications=20"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The worked example copied to a folder outside the repository."""
    target = tmp_path / "work"
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_a_user_kind_runs_with_the_same_bytes_for_one_or_two_jobs(folder):
    for jobs in (1, 2):
        run([*ROCSIM, "study=cutpoint", *SMALL, f"n_jobs={jobs}", f"results_dir=r{jobs}"], folder)
    one, two = folder / "r1" / "cutpoint", folder / "r2" / "cutpoint"
    for name in ("coverage.csv", "outcomes.npz"):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    table = pd.read_csv(one / "coverage.csv")
    assert {"coverage", "mcse", "mean_width", "condition", "x", "target"} <= set(table.columns)
    assert len(table) == 2 * 3 and (table["grid"] == "auc").all()
    # the AUC axis reaches the kind (condition.params): each method's intervals differ by AUC
    widths = table.pivot_table(index="method", columns="auc", values="mean_width")
    assert (widths[0.7] != widths[0.9]).all()


def test_the_kinds_source_keys_the_cache(folder):
    """A rerun reuses the finished conditions; an edit of the kind's module computes anew."""
    command = [*ROCSIM, "study=cutpoint", *SMALL, "n_jobs=1", "results_dir=r"]
    run(command, folder)
    first = (folder / "r" / "cutpoint" / "meta.json").read_text()
    source = folder / "cutpoint_study.py"
    source.write_text(source.read_text() + "\n# edited\n")
    run(command, folder)
    second = (folder / "r" / "cutpoint" / "meta.json").read_text()
    assert '"extension_hash"' in first
    tag = [line for line in first.splitlines() if "extension_hash" in line]
    assert tag and tag[0] not in second  # the kind's source is part of the key


COUNTING = """
import os
import time
from cutpoint_study import CutpointStudy

class CountingCutpoints(CutpointStudy):
    def generate(self, condition, setup, rng):
        with open(os.environ["DRAWS_LOG"], "a") as log:  # one line per data set drawn
            log.write(condition.label + "\\n")
        time.sleep(float(os.environ.get("DRAW_SECONDS", 0)))
        return super().generate(condition, setup, rng)
"""


def counting_study(folder: Path) -> tuple[Path, dict[str, str]]:
    """The example's kind, logging each data set it draws (``draws.log``), as study
    ``counting``; the log and the environment that makes the kind write it."""
    (folder / "counting.py").write_text(COUNTING)
    config = (folder / "configs" / "study" / "cutpoint.yaml").read_text()
    config = config.replace("cutpoint_study.CutpointStudy", "counting.CountingCutpoints")
    (folder / "configs" / "study" / "counting.yaml").write_text(
        config.replace("name: cutpoint", "name: counting")
    )
    log = folder / "draws.log"
    return log, {**os.environ, "DRAWS_LOG": str(log)}


def test_a_rerun_computes_only_what_is_missing(folder):
    """The finished conditions of a run are not drawn again; a new condition is."""
    log, env = counting_study(folder)
    base = [*ROCSIM, "study=counting", "replications=10", "n_jobs=1", "results_dir=r"]
    small = ["study.axes.auc=[0.7]", "study.axes.n=[30]", "study.axes.method=[wald]"]
    subprocess.run([*base, *small], cwd=folder, env=env, check=True, capture_output=True)
    assert len(log.read_text().splitlines()) == 10
    more = ["study.axes.auc=[0.7,0.9]", "study.axes.n=[30]", "study.axes.method=[wald]"]
    subprocess.run([*base, *more], cwd=folder, env=env, check=True, capture_output=True)
    drawn = log.read_text().splitlines()
    assert len(drawn) == 20 and all("auc=0.9" in line for line in drawn[10:])


def test_a_killed_run_resumes_without_drawing_its_finished_conditions(folder):
    """SIGKILL once the first condition is cached: the rerun draws none of its data sets
    again, and writes the bytes of a run never killed."""
    log, env = counting_study(folder)
    env["DRAW_SECONDS"] = "0.02"
    axes = ["study.axes.auc=[0.6,0.7,0.8]", "study.axes.n=[30]", "study.axes.method=[wald]"]
    base = [*ROCSIM, "study=counting", "replications=40", "n_jobs=1", *axes]
    killed = subprocess.Popen([*base, "results_dir=r"], cwd=folder, env=env)
    cache = folder / "r" / "counting" / ".cache"
    deadline = time.time() + 120
    while not list(cache.glob("*r40*.npz")):
        assert killed.poll() is None and time.time() < deadline, "no condition finished"
        time.sleep(0.02)
    killed.kill()
    killed.wait()
    first = log.read_text().splitlines()
    assert len(first) < 120, "the run finished before it was killed"
    subprocess.run([*base, "results_dir=r"], cwd=folder, env=env, check=True)
    again = log.read_text().splitlines()[len(first) :]
    # the first condition finished before the kill: none of its data sets is drawn again
    assert any("auc=0.6" in line for line in first)
    assert not any("auc=0.6" in line for line in again)
    assert 0 < len(again) < 120
    subprocess.run([*base, "results_dir=whole"], cwd=folder, env=env, check=True)
    for name in ("coverage.csv", "outcomes.npz"):
        resumed = (folder / "r" / "counting" / name).read_bytes()
        assert resumed == (folder / "whole" / "counting" / name).read_bytes(), name


def test_a_user_kind_is_in_the_reproduction_report(folder):
    run([*REPRODUCE, "--only", "cutpoint", "--replications", "10", "--results-dir", "rep"], folder)
    page = (folder / "rep" / "index.html").read_text()
    assert "Sensitivity at a data-chosen cutpoint" in page and "cutpoint/coverage.png" in page


class Halves(StudyKind):
    """A kind written with the three required hooks only."""

    def setup(self, condition):
        return Setup(x=np.array([0.5]), target=np.array([0.5]))

    def generate(self, condition, setup, rng):
        return rng.random(10)

    def analyse(self, condition, setup, data):
        low, high = np.array([data.min()]), np.array([data.max()])
        return {
            "cover": (low <= 0.5) & (0.5 <= high),
            "below": 0.5 < low,
            "above": 0.5 > high,
            "width": high - low,
        }


def test_the_base_gives_every_other_hook_its_default():
    kind = Halves()
    condition = Condition("s", {}, {"x": 1})
    setup = kind.setup(condition)
    block = [kind.generate(condition, setup, np.random.default_rng(r)) for r in range(3)]
    stacked = kind.analyse_block(condition, setup, block)
    assert stacked["cover"].shape == (3, 1)
    assert kind.exact_split(condition, setup) == [None]
    assert kind.outcome_settings({"a": 1}) is None and kind.unavailable(condition) is None
    assert kind.exact_beside(condition, 10) is False and kind.data_settings is None
    with pytest.raises(ValueError, match="has no exact coverage; use coverage=simulate"):
        kind.exact(condition, setup)
    with pytest.raises(NotImplementedError, match="must define setup"):
        StudyKind().setup(condition)


def test_a_kind_target_that_is_no_study_kind_is_refused_in_one_line():
    with pytest.raises(ValueError, match=r"not a rocsim\.sim\.StudyKind: subclass it"):
        get_kind({"_target_": "collections.OrderedDict"})
    with pytest.raises(ValueError, match="cannot be imported"):
        get_kind({"_target_": "no_such_module_here.Kind"})
    assert isinstance(get_kind({"_target_": f"{__name__}.Halves"}), Halves)


def test_the_built_in_kinds_use_the_public_api_only():
    """rocsim's own kinds, the model a user copies, are written on the public base
    (:class:`rocsim.sim.StudyKind`) and import from the exact core only names of
    ``rocsim.core.__all__``, through ``rocsim.core`` itself, function-level imports too."""
    import ast

    import rocsim.core
    import rocsim.studies

    reached = []
    for path in sorted(Path(rocsim.studies.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rocsim.core"):
                reached += [
                    f"{path.name}: {node.module}.{alias.name}"
                    for alias in node.names
                    if node.module != "rocsim.core" or alias.name not in rocsim.core.__all__
                ]
            elif isinstance(node, ast.Import):
                reached += [
                    f"{path.name}: {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("rocsim.core.")
                ]
    assert reached == []
    kinds = {name: get_kind(name) for name in rocsim.studies.KINDS}
    assert all(isinstance(kind, StudyKind) for kind in kinds.values())
