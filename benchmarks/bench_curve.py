"""Benchmark: the whole ROC curve exactly. Writes ``benchmarks/results_curve.md``.

1. ``law.cov``, the exact bootstrap covariance of TPR across 99 FPRs (0.01..0.99), against a
   vectorised Monte Carlo bootstrap of the whole curve (B = 2000, :func:`_common.mc_vertical_tpr`)
   and its sample covariance: times measured in one run (best of repeated runs, more while they
   took under ``BUDGET`` s), their ratio, and the largest difference between the Monte Carlo
   covariance and the exact one (Monte Carlo error).
2. ``roc_ci(band="simultaneous", method="percentile")`` at 19 FPRs (0.05..0.95): the time of
   the calibration (every containment evaluated), the common pointwise level reached and the
   exact containment.

Usage: ``python benchmarks/bench_curve.py [--quick]`` (``--quick``: the smaller sizes only).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import best_of, machine, mc_vertical_tpr, table, write

import rocsim
from rocsim.core import vertical_distribution

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


def band_row(n: int, rng) -> dict:
    pos, neg = data(n, rng)
    y, s = np.r_[np.ones(n), np.zeros(n)], np.r_[pos, neg]
    start = time.perf_counter()
    band = rocsim.roc_ci(
        y,
        s,
        averaging="vertical",
        at=np.linspace(0.05, 0.95, 19),
        band="simultaneous",
        method="percentile",
    )
    return {
        "n per class": n,
        "FPRs": 19,
        "simultaneous band (s)": time.perf_counter() - start,
        "pointwise level": band.pointwise_level,
        "exact containment": band.containment,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(20261127)
    cov_sizes = [1000] if args.quick else [1000, 10000]
    band_sizes = [200] if args.quick else [200, 500, 1000]
    cov_rows = [covariance_row(n, rng) for n in cov_sizes]
    band_rows = [band_row(n, rng) for n in band_sizes]
    write(
        "results_curve.md",
        [
            "# The whole curve: covariance and simultaneous band",
            "",
            f"Machine: {machine()}. Binormal data, N(1, 1) positives, N(0, 1) negatives.",
            "",
            "## Exact covariance across 99 FPRs vs a Monte Carlo bootstrap",
            "",
            table(cov_rows),
            "",
            "## Simultaneous band at 19 FPRs (percentile method, level 0.95)",
            "",
            table(band_rows),
            "",
        ],
    )


if __name__ == "__main__":
    main()
