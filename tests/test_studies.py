"""Smoke run of every shipped study (CI), and the full-size reproduction (slow)."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import smallest_cell

from rocsim.cli.study import run_and_draw
from rocsim.sim.configs import available_studies
from rocsim.sim.io import read_outcomes


@pytest.mark.parametrize("name", available_studies())
def test_every_study_runs_small(small_study, tmp_path, name):
    overrides = ("replications=5", "grid.num=9", *smallest_cell(name))
    output = run_and_draw(small_study(name, *overrides), tmp_path / name)
    table = output.table
    # a band is judged at all its FPRs at once (one row per condition, its target the
    # curve), an AUC interval once (one row per condition, x the true AUC), a family of AUC
    # differences once (x the number of models)
    band = table["grid"] == "band"
    single = band | table["grid"].isin(["auc", "models"])
    assert (table.groupby("condition")["x"].size() == (1 if single.all() else 9)).all()
    assert np.isfinite(table.loc[~band, "target"]).all() and (table["mean_width"] >= 0).all()
    # the table is the mean of the per-replication outcomes it was written with
    outcomes = read_outcomes(output.directory / "outcomes.npz")
    for label, part in table.groupby("condition", sort=False):
        assert outcomes[label].shape == (5, len(part))
        np.testing.assert_array_equal(part["coverage"], outcomes[label].mean(axis=0))
    # a replication covers, or misses below, or above (a rectangle may miss on both sides),
    # or gives no interval (a metric undefined on every resample)
    total = table["coverage"] + table["miss_low"] + table["miss_high"]
    total += table["no_interval"] if "no_interval" in table else 0.0
    rectangle = table["grid"] == "q"
    assert np.allclose(total[~rectangle], 1.0) and (total[rectangle] >= 1 - 1e-12).all()
    assert (output.directory / "coverage.png").exists()
    # panel titles name the model (both classifiers' in paired designs), short enough to fit
    assert table["model_label"].str.len().max() <= 44
    if name.startswith("paired") or name.startswith("auc_paired"):
        assert table["model_label"].str.contains(" vs ").all()


@pytest.mark.slow
def test_full_size_reproduction_under_a_minute(tmp_path):
    """Done-when: `rocsim-reproduce --only fig4_2 fig4_3 fig4_4 fig4_10` at R = 1000 < 60 s."""
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from rocsim.cli import reproduce; reproduce()",
            "--only",
            "fig4_2",
            "fig4_3",
            "fig4_4",
            "fig4_10",
            "--results-dir",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    assert time.perf_counter() - start < 60
    assert (tmp_path / "index.md").exists()
