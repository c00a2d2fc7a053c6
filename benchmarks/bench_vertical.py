"""Benchmark: exact vertical-averaging intervals vs a Monte Carlo bootstrap, and the
reproduction of figures 4.6, 4.7, 4.8. Writes ``benchmarks/results_vertical.md``.

Ratios are measured in one run on one machine: Monte Carlo time (B = 2000, the pROC default
for ``ci.se``) / exact time, and exact time / one ``np.sort`` of the 2n scores of the data set.
The exact rank weights depend only on (n-, m-, grid) and are cached across the data sets of a
simulation, so per-data-set times are measured warm; the first ("cold") call is reported too.

Usage: ``python benchmarks/bench_vertical.py [--skip-reproduce]``
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
from _common import arguments, best_of, machine, mc_vertical_tpr, reproduce_section, table, write

import rocsim
from rocsim.core.kernel import kernel_roc_ci
from rocsim.core.vertical import rank_weights

FIGURES = ["fig4_6", "fig4_7", "fig4_8"]
LEVEL = 0.95
GRID = np.linspace(0.01, 0.99, 99)


def mc_percentile(pos, neg, r, b, rng):
    tail = (1 - LEVEL) / 2
    (tpr,) = mc_vertical_tpr([(pos, neg)], r, b, rng)
    return np.quantile(tpr, [tail, 1 - tail], axis=0, method="inverted_cdf")


def data(n: int, rng):
    return rng.normal(1.0, 1.0, n), rng.normal(0.0, 1.0, n)


def bench_intervals(n: int, b: int, rng) -> dict:
    pos, neg = data(n, rng)
    r = rocsim.core.fpr_ranks(GRID, n)
    both = np.concatenate([pos, neg])
    rank_weights.cache_clear()
    t_cold = best_of(
        lambda: rocsim.core.vertical_ci(pos, neg, r, confidence_level=LEVEL), repeat=1
    )
    t_exact = best_of(lambda: rocsim.core.vertical_ci(pos, neg, r, confidence_level=LEVEL))
    t_sort = best_of(lambda: np.sort(both))
    row = {
        "n per class": n,
        "exact score, cold (ms)": 1e3 * t_cold,
        "exact score (ms)": 1e3 * t_exact,
        "np.sort of 2n (ms)": 1e3 * t_sort,
        "exact / sort": t_exact / t_sort,
    }
    if b:
        t_pct = best_of(
            lambda: rocsim.core.vertical_ci(
                pos, neg, r, confidence_level=LEVEL, method="percentile"
            ),
            repeat=1,
        )
        t_mc = best_of(lambda: mc_percentile(pos, neg, r, b, rng), repeat=1)
        score = rocsim.core.vertical_ci(pos, neg, r, confidence_level=LEVEL)
        pct = rocsim.core.vertical_ci(pos, neg, r, confidence_level=LEVEL, method="percentile")
        low, high = mc_percentile(pos, neg, r, b, rng)
        row |= {
            "exact percentile (ms)": 1e3 * t_pct,
            f"MC B={b} (ms)": 1e3 * t_mc,
            "MC / exact score": t_mc / t_exact,
            "MC / exact percentile": t_mc / t_pct,
            "max diff MC vs exact percentile": max(
                np.max(np.abs(low - pct.low)), np.max(np.abs(high - pct.high))
            ),
            "max diff MC percentile vs exact score": max(
                np.max(np.abs(low - score.low)), np.max(np.abs(high - score.high))
            ),
        }
    return row


def bench_memory(n: int, rng) -> dict:
    """Peak traced memory of one cold call (weights computed) at ``n`` per class."""
    pos, neg = data(n, rng)
    r = rocsim.core.fpr_ranks(GRID, n)
    rank_weights.cache_clear()
    tracemalloc.start()
    rocsim.core.vertical_ci(pos, neg, r, confidence_level=LEVEL)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    band = rank_weights(n, n, tuple(r.tolist())).weights.shape[1]
    return {
        "n per class": n,
        "peak memory of one call (MB)": peak / 2**20,
        "input scores (MB)": (pos.nbytes + neg.nbytes) / 2**20,
        "band width (ranks)": band,
    }


def bench_kernel(n: int, rng) -> dict:
    pos, neg = data(n, rng)
    fpr = rocsim.core.fpr_ranks(GRID, n) / n
    t = best_of(lambda: kernel_roc_ci(pos, neg, fpr, confidence_level=LEVEL))
    return {"n per class": n, "kernel interval (ms)": 1e3 * t, "x 1000 replications (s)": t * 1000}


def main() -> None:
    args = arguments()
    rng = np.random.default_rng(2009)
    start = time.perf_counter()
    rows = [bench_intervals(n, b, rng) for n, b in ((100, 2000), (10_000, 2000), (1_000_000, 0))]
    text = [
        "# Vertical averaging benchmark",
        "",
        f"Machine: {machine()}; binormal scores (mu+ = 1, mu- = 0, unit variances); 99 FPR "
        f"points r/n- nearest to 0.01..0.99; level {LEVEL}. Exact times are the best of 5 "
        "warm runs (rank weights cached, as in a simulation); cold = first call; Monte "
        "Carlo: one run of a vectorised stratified percentile bootstrap.",
        "",
        table(rows),
        "",
        "## Memory",
        "",
        table([bench_memory(1_000_000, rng)]),
        "",
        "## Kernel comparator (Hall, Hyndman & Fan 2004)",
        "",
        table([bench_kernel(n, rng) for n in (100, 10_000)]),
        "",
    ]
    if not args.skip_reproduce:
        text += reproduce_section(FIGURES)
    text += [f"Benchmark wall time: {time.perf_counter() - start:.0f} s", ""]
    write("results_vertical.md", text)


if __name__ == "__main__":
    main()
