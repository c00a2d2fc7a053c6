"""Benchmark: the whole ROC curve exactly. Writes ``benchmarks/results_curve.md``.

1. ``law.cov``, the exact bootstrap covariance of TPR across 99 FPRs (0.01..0.99), against a
   vectorised Monte Carlo bootstrap of the whole curve (B = 2000, :func:`_common.mc_vertical_tpr`)
   and its sample covariance: times measured in one run (best of repeated runs, more while they
   took under ``BUDGET`` s), their ratio, and the largest difference between the Monte Carlo
   covariance and the exact one (Monte Carlo error).
2. The exact stratified-bootstrap variance of the partial area over FPR 0..0.2
   (``auc_ci(max_fpr=0.2, method="exact_bootstrap")``'s) against a vectorised Monte Carlo
   bootstrap of the partial area (B = 2000, :func:`mc_partial_area`): times in one run, their
   ratio, and the Monte Carlo variance's relative difference from the exact one.

Usage: ``python benchmarks/bench_curve.py [--quick]`` (``--quick``: the smaller sizes only).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import best_of, machine, mc_vertical_tpr, table, write

from rocsim.core import vertical_distribution
from rocsim.core.partial_area import exact_partial_area_var
from rocsim.core.resampled_curves import resample_counts

#: Exact runs repeat while their times add up to less than this (seconds).
BUDGET = 0.25
B = 2000


def data(n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    return rng.normal(1.0, 1.0, n), rng.normal(0.0, 1.0, n)


def covariance_row(n: int, rng) -> dict:
    pos, neg = data(n, rng)
    r = np.unique(np.clip(np.rint(np.linspace(0.01, 0.99, 99) * n), 1, n - 1)).astype(np.int64)

    def exact():
        return vertical_distribution(pos, neg, r).cov

    cov = exact()
    exact_time = best_of(exact, repeat=1, budget=BUDGET)
    start = time.perf_counter()
    (tprs,) = mc_vertical_tpr([(pos, neg)], r, B, rng)
    mc_cov = np.cov(tprs, rowvar=False)
    mc_time = time.perf_counter() - start
    return {
        "n per class": n,
        "FPRs": r.size,
        "exact cov (s)": exact_time,
        f"MC B={B} (s)": mc_time,
        "MC / exact": mc_time / exact_time,
        "max |MC - exact| cov": float(np.abs(mc_cov - cov).max()),
        "largest exact cov": float(np.abs(cov).max()),
    }


def mc_partial_area(pos, neg, f: float, b: int, rng, chunk: int = 200) -> np.ndarray:
    """The area under ``b`` stratified bootstrap curves from FPR 0 to ``f``, vectorised over
    resamples; continuous scores (no ties). With the negatives sorted decreasingly and ``C_j``
    resampled among the first ``j``, the area is ``sum_j H*_j (min(C_j, s) - min(C_(j-1), s))
    / n-`` (``s = f n-``, ``H*_j`` the resampled positives' share above the ``j``-th)."""
    n_pos, n_neg = pos.size, neg.size
    neg_desc, pos_desc = np.sort(neg)[::-1], np.sort(pos)[::-1]
    above = np.searchsorted(-pos_desc, -neg_desc, "left")  # positives above each negative
    s = f * n_neg
    out = []
    for start in range(0, b, chunk):
        k = min(chunk, b - start)
        capped = np.minimum(np.cumsum(resample_counts(n_neg, k, rng), axis=1), s)
        steps = np.diff(capped, axis=1, prepend=0.0)
        pos_cum = np.cumsum(resample_counts(n_pos, k, rng), axis=1)
        pos_cum = np.concatenate([np.zeros((k, 1), dtype=pos_cum.dtype), pos_cum], axis=1)
        out.append((pos_cum[:, above] * steps).sum(axis=1) / (n_pos * n_neg))
    return np.concatenate(out)


def partial_area_row(n: int, rng) -> dict:
    pos, neg = data(n, rng)
    f = 0.2

    def exact():
        return exact_partial_area_var(pos, neg, 0.0, f)

    var = exact()
    exact_time = best_of(exact, repeat=1, budget=BUDGET)
    start = time.perf_counter()
    areas = mc_partial_area(pos, neg, f, B, rng)
    mc_time = time.perf_counter() - start
    return {
        "n per class": n,
        "max FPR": f,
        "exact var (s)": exact_time,
        f"MC B={B} (s)": mc_time,
        "MC / exact": mc_time / exact_time,
        "MC var / exact - 1": float(areas.var(ddof=1) / var - 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(20261127)
    cov_sizes = [1000] if args.quick else [1000, 10000]
    cov_rows = [covariance_row(n, rng) for n in cov_sizes]
    area_rows = [partial_area_row(n, rng) for n in cov_sizes]
    write(
        "results_curve.md",
        [
            "# The whole curve: covariance and partial area",
            "",
            f"Machine: {machine()}. Binormal data, N(1, 1) positives, N(0, 1) negatives.",
            "",
            "## Exact covariance across 99 FPRs vs a Monte Carlo bootstrap",
            "",
            table(cov_rows),
            "",
            "## Partial area over FPR 0..0.2: exact bootstrap variance vs a Monte Carlo bootstrap",
            "",
            table(area_rows),
            "",
        ],
    )


if __name__ == "__main__":
    main()
