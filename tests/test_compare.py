"""Method comparison: a -m sweep over interval methods yields one overlay figure and a table
of coverage error and width per method."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rocsim.compare import group_key, method_summary


def test_method_summary_by_hand():
    table = pd.DataFrame({
        "method": ["wald"] * 3 + ["agresti"] * 3,
        "level": 0.9,
        "coverage": [0.0, 0.9, 0.96, 0.92, 0.9, 0.85],
        "mcse": [0.0, 0.01, 0.01, 0.01, 0.01, 0.01],
        "mean_width": [0.0, 0.2, 0.4, 0.3, 0.3, 0.3],
    })
    got = method_summary(table).set_index("method")
    assert got.loc["wald", "mean_abs_coverage_error"] == pytest.approx((0.9 + 0 + 0.06) / 3)
    assert got.loc["wald", "max_abs_coverage_error"] == pytest.approx(0.9)
    assert got.loc["agresti", "mean_abs_coverage_error"] == pytest.approx((0.02 + 0 + 0.05) / 3)
    assert got.loc["agresti", "min_coverage"] == 0.85
    assert got.loc["wald", "mean_width"] == pytest.approx(0.2)
    assert list(got.index) == ["wald", "agresti"]  # order of appearance


@pytest.mark.parametrize(("folder", "key"), [
    ("interval=wald", ""),
    ("grid.num=9,interval=score,size=n250", "grid.num=9,size=n250"),
    ("interval.method=agresti,size=n25", "size=n25"),
])
def test_jobs_are_grouped_by_everything_but_the_method(folder, key):
    assert group_key(folder) == key


def test_sweep_over_methods_writes_one_comparison(tmp_path):
    subprocess.run([sys.executable, "-c", "from rocsim.cli import main; main()", "-m",
                    "study=fig5_1", "interval=wald,score,agresti", "replications=40",
                    "grid.num=9", "n_jobs=1", "runner.progress=false",
                    f"results_dir={tmp_path}"], check=True, capture_output=True, timeout=300)
    out = tmp_path / "fig5_1" / "grid.num=9,runner.progress=False"
    summary = pd.read_csv(out / "method_comparison.csv")
    assert set(summary["method"]) == {"wald", "score", "agresti"}
    assert (summary["grid_points"] == 4 * 9).all()
    assert (out / "method_comparison.png").stat().st_size > 10_000
    # the table summarises the jobs' own coverage tables
    wald = pd.read_csv(tmp_path / "fig5_1" / "grid.num=9,interval=wald,runner.progress=False"
                       / "coverage.csv")
    expected = np.mean(np.abs(wald["coverage"] - wald["level"]))
    got = summary.set_index("method").loc["wald", "mean_abs_coverage_error"]
    assert got == pytest.approx(expected)
