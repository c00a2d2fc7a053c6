"""Method comparison: a -m sweep over interval methods yields one overlay figure and a table
of coverage error and width per method."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rocsim.views.sweep import group_key, method_summary


def test_method_summary_by_hand():
    table = pd.DataFrame(
        {
            "method": ["wald"] * 3 + ["agresti"] * 3,
            "level": 0.9,
            "coverage": [0.0, 0.9, 0.96, 0.92, 0.9, 0.85],
            "mcse": [0.0, 0.01, 0.01, 0.01, 0.01, 0.01],
            "mean_width": [0.0, 0.2, 0.4, 0.3, 0.3, 0.3],
        }
    )
    got = method_summary(table).set_index("method")
    assert got.loc["wald", "mean_abs_coverage_error"] == pytest.approx((0.9 + 0 + 0.06) / 3)
    assert got.loc["wald", "max_abs_coverage_error"] == pytest.approx(0.9)
    assert got.loc["agresti", "mean_abs_coverage_error"] == pytest.approx((0.02 + 0 + 0.05) / 3)
    assert got.loc["agresti", "min_coverage"] == 0.85
    assert got.loc["wald", "mean_width"] == pytest.approx(0.2)
    assert list(got.index) == ["wald", "agresti"]  # order of appearance


@pytest.mark.parametrize(
    ("folder", "key"),
    [
        ("interval=wald", ""),
        ("grid.num=9,interval=score,size=n250", "grid.num=9,size=n250"),
        ("interval.method=agresti,size=n25", "size=n25"),
    ],
)
def test_jobs_are_grouped_by_everything_but_the_method(folder, key):
    assert group_key(folder) == key


def sweep(results_dir, overrides: str) -> None:
    """``rocsim`` with space-separated ``overrides``, writing to ``results_dir``."""
    command = [sys.executable, "-c", "from rocsim.cli import main; main()", *overrides.split()]
    extra = [f"results_dir={results_dir}", "n_jobs=1", "runner.progress=false"]
    subprocess.run([*command, *extra], check=True, capture_output=True, timeout=300)


def test_sweep_over_methods_writes_one_comparison(tmp_path):
    sweep(tmp_path, "-m study=fig5_1 interval=wald,score,agresti replications=40 grid.num=9")
    out = tmp_path / "fig5_1"  # overrides every job shares do not split the comparison
    summary = pd.read_csv(out / "method_comparison.csv")
    assert set(summary["method"]) == {"wald", "score", "agresti"}
    assert (summary["grid_points"] == 4 * 9).all()
    assert (out / "method_comparison.png").stat().st_size > 10_000
    # the table summarises the jobs' own coverage tables
    wald = pd.read_csv(
        tmp_path / "fig5_1" / "grid.num=9,interval=wald" / "coverage.csv"  # runner.* unnamed
    )
    expected = np.mean(np.abs(wald["coverage"] - wald["level"]))
    got = summary.set_index("method").loc["wald", "mean_abs_coverage_error"]
    assert got == pytest.approx(expected)


def test_methods_are_compared_on_paired_outcomes(tmp_path):
    """Every job sees the same data sets, so each method is compared with the first one by
    per-replication paired differences, whose standard error is far below the MCSE."""
    sweep(tmp_path, "-m study=fig4_3 interval=wald,score replications=60 grid.num=9")
    summary = pd.read_csv(tmp_path / "fig4_3" / "method_comparison.csv").set_index("method")
    assert (summary["reference"] == "wald").all()
    assert summary.loc["wald", "coverage_difference"] == 0
    assert summary.loc["wald", "coverage_difference_se"] == 0
    score = summary.loc["score"]
    expected = score["mean_coverage"] - summary.loc["wald", "mean_coverage"]
    assert score["coverage_difference"] == pytest.approx(expected, abs=1e-12)
    assert 0 < score["coverage_difference_se"] < score["mean_mcse"] / 3


def test_sweep_over_a_new_grid_writes_one_table_and_figure(tmp_path):
    """An unbalanced design the thesis did not run: pi = 0.1 against 0.5, n = 50 and 500."""
    sweep(
        tmp_path,
        "-m study=fig4_4 size.pi=0.1,0.5 study.axes.n=[50,500] replications=20 grid.num=5",
    )
    table = pd.read_csv(tmp_path / "fig4_4" / "sweep.csv")
    assert set(table["job"]) == {"size.pi=0.1", "size.pi=0.5"}
    assert len(table) == 2 * 2 * 5  # jobs x conditions x grid points
    assert (tmp_path / "fig4_4" / "sweep.png").exists()
    # no methods compared: every job used the same one
    assert not list(tmp_path.rglob("method_comparison.csv"))
