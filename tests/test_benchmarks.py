"""Smoke runs of the benchmark code (benchmarks/run_all.py) on small data, so that the numbers
the README quotes come from code that still runs and still compares like with like."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import run_all
from _common import mc_vertical_tpr

import rocsim


def test_monte_carlo_vertical_tpr_agrees_with_the_exact_law():
    # the benchmark's Monte Carlo bootstrap, checked against the exact moments (eq. 4.13-4.14)
    rng = np.random.default_rng(5)
    pos1, neg1, pos2, neg2 = run_all.draw(80, rng)
    r = rocsim.core.fpr_ranks(run_all.GRID, 80)[::8]
    b = 4000
    tpr1, tpr2 = mc_vertical_tpr([(pos1, neg1), (pos2, neg2)], r, b, rng)
    for tpr, pos, neg in ((tpr1, pos1, neg1), (tpr2, pos2, neg2)):
        law = rocsim.core.vertical_distribution(pos, neg, r)
        z_mean = np.abs(tpr.mean(axis=0) - law.mean) / np.sqrt(law.var / b)
        # standard error of a sample variance, sqrt((m4 - s^4) / B), where TPR is not
        # nearly sure (at the top ranks the second classifier's TPR is 1 in almost every draw)
        spread = law.var > 1e-4
        assert spread.sum() >= 6
        m4, s2 = ((tpr - tpr.mean(axis=0)) ** 4).mean(axis=0), tpr.var(axis=0)
        z_var = np.abs(s2 - law.var)[spread] / np.sqrt((m4 - s2**2)[spread] / b)
        assert np.all(z_mean < 4.5) and np.all(z_var < 4.5), (z_mean.max(), z_var.max())
    paired = rocsim.core.vertical_difference(pos1, pos2, neg1, neg2, r)
    diff = tpr1 - tpr2
    assert np.all(np.abs(diff.mean(axis=0) - paired.mean) <= 4.5 * np.sqrt(paired.var / b))


def test_monte_carlo_precision_agrees_with_the_exact_law():
    # the precision-recall benchmark's bootstrap (classes exchanged), against the exact moments
    from bench_pr import mc_precision

    rng = np.random.default_rng(6)
    pos, neg = rng.normal(1, 1, 80), rng.normal(0, 1, 60)
    r = np.arange(4, 81, 8)
    b = 4000
    precision = mc_precision(pos, neg, r, b, rng)
    law = rocsim.core.pr_distribution(pos, neg, r)
    z_mean = np.abs(precision.mean(axis=0) - law.mean) / np.sqrt(law.var / b)
    spread = law.var > 1e-4  # at the top ranks precision is 1 in nearly every draw
    assert spread.sum() >= 6
    m4, s2 = ((precision - precision.mean(axis=0)) ** 4).mean(axis=0), precision.var(axis=0)
    z_var = np.abs(s2 - law.var)[spread] / np.sqrt((m4 - s2**2)[spread] / b)
    assert np.all(z_mean < 4.5) and np.all(z_var < 4.5), (z_mean.max(), z_var.max())


@pytest.mark.parametrize("case", run_all.CASES, ids=lambda c: c.curve)
def test_every_benchmark_case_runs_and_its_bounds_are_close(case):
    rng = np.random.default_rng(11)
    row = run_all.bench_case(case, 100, run_all.draw(100, rng), rng, replicates=(500,))
    assert row["exact (ms)"] > 0 and row["MC B=500 (s)"] > 0
    # at n = 100 the Monte Carlo percentiles sit within a few hundredths of the exact bounds
    assert row["max bound diff B=500"] < 0.1


def test_best_of_repeats_at_least_its_count_and_then_until_the_budget():
    import time

    from _common import best_of

    calls = []
    assert best_of(lambda: calls.append(1), repeat=3) >= 0 and len(calls) == 3
    # one call of >= 10 ms would satisfy repeat=1: the 50 ms budget asks for more
    start = time.perf_counter()
    best = best_of(lambda: time.sleep(0.01), 1, budget=0.05)
    assert best >= 0.01 and time.perf_counter() - start >= 0.05


def test_the_cold_start_benchmark_measures_a_new_process():
    import bench_cold_start

    assert set(bench_cold_start.calls_names(1000, [1000, 10000])) == set(
        bench_cold_start.calls(10)
    ) - set(bench_cold_start.NOT_TIMED)
    assert not any(
        c.startswith("sample_size") for c in bench_cold_start.calls_names(10000, [1000, 10000])
    )
    row = bench_cold_start.measure(sys.executable, "auc_ci delong", 50)
    assert 0 < row["import"] < row["first"] + 10 and 0 < row["warm"]
    assert row["file"].endswith("__init__.py")
