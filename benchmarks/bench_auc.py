"""Benchmark: the AUC's exact bootstrap variance, binary and multiclass. Writes
``benchmarks/results_auc.md``.

1. Two classes: ``auc_ci(method="exact_bootstrap")`` (the AUC, its exact
   stratified-bootstrap variance and the interval) against a vectorised Monte Carlo bootstrap
   of the AUC (B = 2000 stratified resamples, :func:`resampled_aucs`): times measured in one
   run (best of repeated runs, more while they took under ``BUDGET`` s), their ratio, and the
   Monte Carlo variance's relative difference from the exact one.
2. Several classes: ``multiclass_auc_ci(multi_class="ovo", method="exact_bootstrap")``
   (Hand & Till's AUC, its exact variance under the bootstrap that resamples each class)
   against the same Monte Carlo bootstrap of every pairwise AUC, resampling each class once
   per resample for all the pairs it is in.

Usage: ``python benchmarks/bench_auc.py [--quick]`` (``--quick``: the smaller sizes only).
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from _common import best_of, machine, table, write

from rocsim.core.area import auc_ci
from rocsim.core.multiclass import multiclass_auc_ci

#: Exact runs repeat while their times add up to less than this (seconds).
BUDGET = 0.25
B = 2000
#: Resamples per vectorised block (bounds the Monte Carlo bootstrap's memory).
BLOCK = 250


def resampled_aucs(pos, neg, w_pos: np.ndarray, w_neg: np.ndarray) -> np.ndarray:
    """The AUC of each resample, given as multiplicities (rows of ``w_pos``, ``w_neg``), for
    scores without ties: each negative adds the resampled positives above it."""
    order = np.argsort(-np.r_[pos, neg], kind="stable")
    is_pos = order < pos.size
    out = []
    for start in range(0, w_pos.shape[0], BLOCK):
        weights = np.concatenate([w_pos[start : start + BLOCK], w_neg[start : start + BLOCK]], 1)
        weights = weights[:, order]
        above = np.cumsum(weights * is_pos, axis=1)
        out.append((weights * ~is_pos * above).sum(axis=1))
    return np.concatenate(out) / (pos.size * neg.size)


def multiplicities(n: int, rng) -> np.ndarray:
    """``B`` bootstrap resamples of ``n`` instances, as multiplicities."""
    return rng.multinomial(n, np.full(n, 1.0 / n), size=B).astype(float)


def binary_row(n: int, rng) -> dict:
    pos, neg = rng.normal(1.0, 1.0, n), rng.normal(0.0, 1.0, n)
    exact = auc_ci(pos, neg, method="exact_bootstrap")
    exact_time = best_of(
        lambda: auc_ci(pos, neg, method="exact_bootstrap"), repeat=3, budget=BUDGET
    )
    start = time.perf_counter()
    aucs = resampled_aucs(pos, neg, multiplicities(n, rng), multiplicities(n, rng))
    mc_time = time.perf_counter() - start
    return {
        "n per class": n,
        "exact (s)": exact_time,
        f"MC B={B} (s)": mc_time,
        "MC / exact": mc_time / exact_time,
        "MC var / exact - 1": float(aucs.var(ddof=1) / exact.var - 1),
    }


def multiclass_row(classes: int, n: int, rng) -> dict:
    by_class = [rng.normal(0.0, 1.0, (n, classes)) + np.eye(classes)[k] for k in range(classes)]

    def exact():
        return multiclass_auc_ci(by_class, multi_class="ovo", method="exact_bootstrap")

    result = exact()
    exact_time = best_of(exact, repeat=3, budget=BUDGET)
    start = time.perf_counter()
    weights = [multiplicities(n, rng) for _ in range(classes)]
    total = np.zeros(B)
    for a, b in itertools.permutations(range(classes), 2):  # A(a|b) on column a
        column = [by_class[a][:, a], by_class[b][:, a]]
        total += resampled_aucs(*column, weights[a], weights[b])
    aucs = total / (classes * (classes - 1))
    mc_time = time.perf_counter() - start
    return {
        "classes": classes,
        "n per class": n,
        "exact (s)": exact_time,
        f"MC B={B} (s)": mc_time,
        "MC / exact": mc_time / exact_time,
        "MC var / exact - 1": float(aucs.var(ddof=1) / result.var - 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smaller sizes only")
    quick = parser.parse_args().quick
    rng = np.random.default_rng(20090914)
    sizes = (100, 1000) if quick else (100, 1000, 10000)
    binary = [binary_row(n, rng) for n in sizes]
    grid = [(c, n) for c in (3, 5) for n in ((50, 200) if quick else (50, 200, 1000))]
    multiclass = [multiclass_row(c, n, rng) for c, n in grid]
    write(
        "results_auc.md",
        [
            "# The AUC's exact bootstrap variance",
            "",
            f"Machine: {machine()}. Binormal data: two classes N(1, 1) and N(0, 1); "
            "several classes, each class's own score column N(1, 1), the others N(0, 1).",
            "",
            f"## Two classes: exact variance and interval vs a B = {B} Monte Carlo bootstrap",
            "",
            table(binary),
            "",
            f"## Several classes (ovo, macro): exact variance vs a B = {B} Monte Carlo bootstrap",
            "",
            table(multiclass),
            "",
        ],
    )


if __name__ == "__main__":
    main()
