"""Shared fixtures: small study configs composed through Hydra."""

from __future__ import annotations

import pytest

from rocsim.cli import compose_study


@pytest.fixture
def small_study(tmp_path):
    """Factory: the config of a study with few replications, writing under ``tmp_path``."""

    def make(name: str, *overrides: str):
        return compose_study(
            name,
            [
                f"results_dir={tmp_path}",
                "replications=40",
                "n_jobs=1",
                "runner.progress=false",
                *overrides,
            ],
        )

    return make


#: Studies that are not thesis figures, cut to their smallest cell in the smoke tests (their
#: full designs run n = 1000 with bands calibrated per replication): one model, AUC and size.
SMALL_CELL = ("study.axes.model=[binormal]", "study.axes.auc=[0.75]", "study.axes.n=[25]")


#: Axes of single studies cut further (the multiclass study's numbers of classes).
SMALL_AXES = {"auc_multiclass": ("study.axes.classes=[3]",)}
#: Studies whose smallest cell is named by other axes (pairs of classifiers, no AUC axis).
OWN_SMALL_CELL = {
    "paired_bands": ("study.axes.model=[close]", "study.axes.rho=[0.3]", "study.axes.n=[50]"),
    "auc_paired": ("study.axes.model=[close]", "study.axes.rho=[0.3]", "study.axes.n=[25]"),
    "auc_paired_partial": (
        "study.axes.model=[close]",
        "study.axes.rho=[0.3]",
        "study.axes.n=[25]",
    ),
    "auc_multiclass_paired": (
        "study.axes.model=[close]",
        "study.axes.rho=[0.3]",
        "study.axes.classes=[3]",
        "study.axes.n=[10]",
    ),
}


def smallest_cell(name: str) -> tuple[str, ...]:
    """The overrides that cut study ``name`` to its smallest cell (none for the thesis's)."""
    if name.startswith("fig"):
        return ()
    return OWN_SMALL_CELL.get(name) or SMALL_CELL + SMALL_AXES.get(name, ())
