"""Failures as data (``runner.on_error=record``): the table of a run's failed data sets, the
command that replays one, and the replay itself.

A failed data set is recorded by the runner (:class:`rocsim.sim.runner.Failure`) with its
replication and attempt; with the study's seed and its condition, they give the generator it
was drawn from (:func:`rocsim.sim.runner.attempt_rng`). ``rocsim replay`` draws it again and
runs the kind's ``analyse`` on it, outside the runner, so that the exception shows with its
traceback.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from rocsim.sim.conditions import Condition
from rocsim.sim.runner import Failure, attempt_rng

#: The columns of ``failures.csv``.
FAILURE_COLUMNS = ("condition", "replication", "attempt", "error", "replay")


#: Overrides that say where and how a run ran, not what it drew: left out of the replay
#: command, which is then the same for any ``n_jobs`` or results folder.
WHERE_IT_RAN = (
    "n_jobs",
    "results_dir",
    "runner.backend",
    "runner.scheduler",
    "runner.block_size",
    "runner.progress",
    "runner.connect_timeout",
    "runner.worker_timeout",
)


def run_overrides(cfg: Mapping[str, Any]) -> list[str]:
    """The command-line overrides of the running Hydra job that determine its data sets and
    their analysis (not :data:`WHERE_IT_RAN`), else ``study=<name>`` alone (a run from the
    Python API: its own settings are not known here)."""
    try:
        from hydra.core.hydra_config import HydraConfig

        task = list(HydraConfig.get().overrides.task)
    except (ImportError, ValueError):  # no Hydra job: a run from the Python API
        task = []
    task = [
        o
        for o in task
        if o.split("=", 1)[0].lstrip("+~") not in WHERE_IT_RAN and not o.startswith("hydra.")
    ]
    if not any(o.startswith("study=") for o in task):
        task.insert(0, f"study={cfg['study']['name']}")
    return task


def replay_command(overrides: Sequence[str], condition: Condition, failure: Failure) -> str:
    """The ``rocsim replay`` command of one failed data set."""
    words = [
        "rocsim",
        "replay",
        *overrides,
        "--condition",
        condition.label,
        "--replication",
        str(failure.replication),
        "--attempt",
        str(failure.attempt),
    ]
    return " ".join(shlex.quote(word) for word in words)


def failure_table(
    conditions: Sequence[Condition],
    failures: Mapping[str, list[Failure]],
    overrides: Sequence[str],
) -> pd.DataFrame:
    """A row per failed data set, in condition order, with the command that replays it."""
    rows = [
        {
            "condition": c.label,
            "replication": f.replication,
            "attempt": f.attempt,
            "error": f.error,
            "replay": replay_command(overrides, c, f),
        }
        for c in conditions
        for f in failures.get(c.label, ())
    ]
    return pd.DataFrame(rows, columns=list(FAILURE_COLUMNS))


def replay(kind, condition: Condition, seed: int, replication: int, attempt: int) -> Any:
    """Draw the data set of ``replication`` (``attempt``) of ``condition`` again and analyse
    it as the runner did: its outcomes, or the exception it raises."""
    setup = kind.setup(condition)
    rng = attempt_rng(seed, condition, replication, attempt, kind.data_settings)
    data = kind.generate(condition, setup, rng)
    return kind.analyse(condition, setup, data)


def find_condition(conditions: Sequence[Condition], label: str) -> Condition:
    """The condition labelled ``label``; a ``ValueError`` listing the labels otherwise."""
    for condition in conditions:
        if condition.label == label:
            return condition
    labels = ", ".join(c.label for c in conditions[:5])
    more = f" (and {len(conditions) - 5} more)" if len(conditions) > 5 else ""
    raise ValueError(f"no condition {label!r} in this study; its conditions: {labels}{more}")


def write_failures(path: Path, table: pd.DataFrame, write) -> None:
    """``failures.csv`` through ``write(path, save)`` (:func:`rocsim.sim.io.atomic_write`)."""
    write(path, lambda p: table.to_csv(p, index=False))
