"""Benchmark: exact precision-recall bands by vertical averaging vs a Monte Carlo bootstrap.
Writes ``benchmarks/results_pr.md``.

Ratios are measured in one run on one machine: Monte Carlo time (B = 2000, vectorised, the
stratified bootstrap of :func:`_common.mc_vertical_tpr` with the classes exchanged: the
threshold of a resample is its ``r``-th largest positive, FP the resampled negatives reaching
it) / exact time, for the percentile and the score interval. The exact rank weights depend only
on ``n+`` and the recalls and are cached across the data sets of a simulation, so exact times
are measured warm (best of 5 runs, more while they took under ``BUDGET`` s); the first
("cold") call is reported too. The percentile interval does not need the law's mean and
variance, which are computed when first read: a column times the interval and that reading.
"dense pmf moments, before" is one run of the moments from the dense pmf of FP, the way they
were computed before (and the reference of the tests). The last table times
``rocsim.pr_ci`` on up to a million rows, its first call in the process (rank weights
computed) and a warm one.

Usage: ``python benchmarks/bench_pr.py``
"""

from __future__ import annotations

import time

import numpy as np
from _common import best_of, machine, mc_vertical_tpr, table, write

import rocsim
from rocsim.core.mixture import rank_weights
from rocsim.core.precision_recall import (
    _dense_moments,
    nearest_recall_ranks,
    pr_ci,
    pr_distribution,
)

LEVEL = 0.95
GRID = np.linspace(0.01, 0.99, 99)
#: Exact runs repeat while their times add up to less than this (seconds).
BUDGET = 0.25


def data(n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    return rng.normal(1.0, 1.0, n), rng.normal(0.0, 1.0, n)


def ranks(n_pos: int) -> np.ndarray:
    """The recall ranks of ``rocsim.pr_ci``'s default recalls, each once."""
    return np.unique(nearest_recall_ranks(GRID, n_pos))


def mc_precision(pos, neg, r, b: int, rng) -> np.ndarray:
    """``(b, len(r))`` stratified bootstrap precisions at the recalls ``r / n+``."""
    (share,) = mc_vertical_tpr([(neg, pos)], r, b, rng)  # classes exchanged: FP / n-
    return r / (r + np.rint(share * neg.size))


def mc_percentile(pos, neg, r, b: int, rng) -> tuple[np.ndarray, np.ndarray]:
    tail = (1 - LEVEL) / 2
    precision = mc_precision(pos, neg, r, b, rng)
    low, high = np.quantile(precision, [tail, 1 - tail], axis=0, method="inverted_cdf")
    return low, high


def exact(pos, neg, r, method: str):
    return pr_ci(pos, neg, r, confidence_level=LEVEL, method=method)


def bench_intervals(n: int, b: int, rng) -> dict:
    pos, neg = data(n, rng)
    r = ranks(n)
    rank_weights.cache_clear()
    row = {"n per class": n}
    row["exact score, cold (ms)"] = 1e3 * best_of(lambda: exact(pos, neg, r, "score"), repeat=1)
    for method in ("score", "percentile"):
        seconds = best_of(lambda m=method: exact(pos, neg, r, m), repeat=5, budget=BUDGET)
        row[f"exact {method} (ms)"] = 1e3 * seconds
    # the percentile interval leaves the moments to the first reading of mean or var
    seconds = best_of(lambda: exact(pos, neg, r, "percentile").var, repeat=5, budget=BUDGET)
    row["exact percentile, then mean and var (ms)"] = 1e3 * seconds
    t_mc = best_of(lambda: mc_percentile(pos, neg, r, b, rng), repeat=1)
    row[f"MC B={b} (ms)"] = 1e3 * t_mc
    for method in ("score", "percentile"):
        row[f"MC / exact {method}"] = t_mc / (row[f"exact {method} (ms)"] / 1e3)
    law = pr_distribution(pos, neg, r)
    row["dense pmf moments, before (ms)"] = 1e3 * best_of(
        lambda: _dense_moments(law.r, law._q, law._w, law.m_neg), repeat=1
    )
    low, high = mc_percentile(pos, neg, r, b, rng)
    for method in ("percentile", "score"):
        ci = exact(pos, neg, r, method)
        row[f"max diff MC percentile vs exact {method}"] = float(
            max(np.max(np.abs(low - ci.low)), np.max(np.abs(high - ci.high)))
        )
    return row


def bench_large(rows: int, rng) -> dict:
    """``rocsim.pr_ci`` on ``rows`` labelled scores, half positive: first call, then warm."""
    n = rows // 2
    pos, neg = data(n, rng)
    y = np.r_[np.ones(n), np.zeros(n)]
    s = np.r_[pos, neg]
    rank_weights.cache_clear()
    out = {"rows": rows}
    for method in ("score", "percentile"):
        start = time.perf_counter()
        rocsim.pr_ci(y, s, averaging="vertical", method=method)
        out[f"pr_ci {method}, first call (s)"] = time.perf_counter() - start
        out[f"pr_ci {method}, warm (s)"] = best_of(
            lambda m=method: rocsim.pr_ci(y, s, averaging="vertical", method=m), repeat=1
        )
        rank_weights.cache_clear()
    return out


def main() -> None:
    rng = np.random.default_rng(2009)
    start = time.perf_counter()
    rows = [bench_intervals(n, 2000, rng) for n in (1000, 10_000)]
    large = [bench_large(n, rng) for n in (10_000, 100_000, 1_000_000)]
    text = [
        "# Precision-recall benchmark (vertical averaging)",
        "",
        f"Machine: {machine()}; binormal scores (mu+ = 1, mu- = 0, unit variances); the 99 "
        f"recalls r/n+ nearest to 0.01..0.99 (each once, as `rocsim.pr_ci`); level {LEVEL}. "
        f"Exact: `pr_ci`, best of at least 5 warm runs (rank weights cached, as in a "
        f"simulation; more runs while they took under {BUDGET:g} s); cold = first call. Monte "
        "Carlo: one run of a vectorised stratified percentile bootstrap. The percentile "
        "interval leaves the law's mean and variance to their first reading (their own "
        "column); 'dense pmf moments, before': one run of the moments from the dense pmf of "
        "FP, as computed before.",
        "",
        table(rows),
        "",
        "## rocsim.pr_ci(y_true, y_score, averaging='vertical'), default recalls",
        "",
        "First call: rank weights computed; warm: cached (one run each).",
        "",
        table(large),
        "",
        f"Benchmark wall time: {time.perf_counter() - start:.0f} s",
        "",
    ]
    write("results_pr.md", text)


if __name__ == "__main__":
    main()
