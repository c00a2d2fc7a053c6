"""Shared fixtures: small study configs composed through Hydra."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from rocsim.cli import compose_study

#: The scripts that wrote stored reference values run with their peer installed (dcurves),
#: not in the test suite: --doctest-modules would import them.
collect_ignore_glob = ["data/*"]

#: The suite's longest files (most of their time in new processes), longest first, as
#: ``pytest --durations=0`` summed them by file: they start first, so that the two workers end
#: together instead of one running the last long file alone.
RUN_FIRST = (
    "test_wheel.py",
    "test_cli.py",
    "test_cluster.py",
    "test_docs_build.py",
    "test_faults.py",
    "test_runner.py",
    "test_cli_analyze.py",
    "test_interruptions.py",
    "test_extensions.py",
    "test_user_kind.py",
    "test_studies.py",
    "test_ctrl_c.py",
    "test_compare.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files in :data:`RUN_FIRST`'s order, then the others by their number of tests, largest
    first (xdist's own order, which ``--no-loadscope-reorder`` leaves to this hook); the
    tests of a file stay in their order."""
    files = Counter(item.nodeid.split("::")[0] for item in items)

    def rank(item: pytest.Item) -> tuple[int, int, str]:
        file = item.nodeid.split("::")[0]
        name = Path(file).name
        if name in RUN_FIRST:
            return (0, RUN_FIRST.index(name), file)
        return (1, -files[file], file)

    items.sort(key=rank)


@pytest.fixture
def page_script(monkeypatch):
    """Factory: a page script of ``docs/examples`` (``write_auc_page``, ...) loaded as a
    module, with the section of its page (``PAGE``) between its ``START`` and ``END`` marks,
    for the tests that check a page holds what its script writes (computed, never typed)."""
    folder = Path(__file__).resolve().parents[1] / "docs" / "examples"
    monkeypatch.syspath_prepend(str(folder))  # the page scripts' shared helpers

    def load(name: str) -> tuple[ModuleType, str]:
        spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        page = Path(module.PAGE).read_text()
        return module, page.split(module.START)[1].split(module.END)[0]

    return load


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
