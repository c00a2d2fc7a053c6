"""Benchmark: exact cost-curve intervals vs a Monte Carlo bootstrap, one and two classifiers,
and the reproduction of figures 5.1-5.12. Writes ``benchmarks/results_cost.md``.

Ratios are measured in one run on one machine: Monte Carlo time / exact time (percentile
bootstrap, B = 2000 and 20000, resampling instance indices in batches), exact time / one
``np.sort`` of the same scores. The interval difference compares like with like: the Monte
Carlo percentile interval against the Gaussian interval with the exact moments (``wald``).

Usage: ``python benchmarks/bench_cost.py [--skip-reproduce]``
"""

from __future__ import annotations

import numpy as np
from _common import arguments, best_of, machine, reproduce_section, table, write

import rocsim
from rocsim.core.resampled_curves import resample_counts
from rocsim.sim.models import make_paired_model

FIGURES = [f"fig5_{k}" for k in range(1, 13)]
LEVEL = 0.9
W = np.round(np.linspace(0.01, 0.99, 99), 12)
BATCH = 500


def mc_statistic(
    x_cells: np.ndarray, y_cells: np.ndarray, b: int, rng, w: np.ndarray = W
) -> np.ndarray:
    """Bootstrap values (b, k) of ``w X + (1 - w) Y`` with ``X``, ``Y`` class means of per-instance
    cells (n+, k) and (n-, k), each class resampled on its own (stratified bootstrap)."""
    out = []
    for start in range(0, b, BATCH):
        size = min(BATCH, b - start)
        x = resample_counts(x_cells.shape[0], size, rng) @ x_cells / x_cells.shape[0]
        y = resample_counts(y_cells.shape[0], size, rng) @ y_cells / y_cells.shape[0]
        out.append(w * x + (1 - w) * y)
    return np.concatenate(out)


def percentile_interval(values: np.ndarray) -> np.ndarray:
    return np.quantile(values, [(1 - LEVEL) / 2, (1 + LEVEL) / 2], axis=0)


def above(scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    return (scores[:, None] >= thresholds[None, :]).astype(float)


def bench(n: int, rng) -> list[dict]:
    paired = make_paired_model((1, 3), (-1, 3), (3, 3), (-1, 3), 0.6)
    pos1, pos2, neg1, neg2 = paired.sample(rng, n, n)
    t1, t2 = paired.first.cost_threshold(W), paired.second.cost_threshold(W)
    both = np.concatenate([pos1, neg1])
    t_sort = best_of(lambda: np.sort(both))
    cases = {
        "one classifier": (
            lambda: rocsim.core.cost_ci(pos1, neg1, W, t1, confidence_level=LEVEL, method="wald"),
            lambda: (1 - above(pos1, t1), above(neg1, t1)),
        ),
        "two classifiers": (
            lambda: rocsim.core.cost_difference_ci(
                pos1, pos2, neg1, neg2, W, t1, t2, confidence_level=LEVEL, method="wald"
            ),
            lambda: (above(pos1, t1) - above(pos2, t2), above(neg2, t2) - above(neg1, t1)),
        ),
    }
    rows = []
    for name, (exact, cells) in cases.items():
        t_exact = best_of(exact)
        ci = exact()
        row = {
            "design": name,
            "n per class": n,
            "exact (ms)": 1e3 * t_exact,
            "exact / np.sort of 2n": t_exact / t_sort,
        }
        x_cells, y_cells = cells()
        for b in (2000, 20000):
            t_mc = best_of(lambda b=b, x=x_cells, y=y_cells: mc_statistic(x, y, b, rng), repeat=1)
            low, high = percentile_interval(mc_statistic(x_cells, y_cells, b, rng))
            row |= {
                f"MC B={b} (s)": t_mc,
                f"MC B={b} / exact": t_mc / t_exact,
                f"max |MC - exact| bound, B={b}": float(
                    max(np.max(np.abs(low - ci.low)), np.max(np.abs(high - ci.high)))
                ),
            }
        rows.append(row)
    return rows


def main() -> None:
    args = arguments()
    rng = np.random.default_rng(2009)
    rows = [row for n in (100, 1000, 10_000) for row in bench(n, rng)]
    text = [
        "# Cost curve benchmark",
        "",
        f"Machine: {machine()}; 99 operating conditions, oracle thresholds, level {LEVEL}, "
        "stratified bootstrap; exact: best of 5 runs; Monte Carlo: one run.",
        "",
        table(rows),
        "",
    ]
    if not args.skip_reproduce:
        text += reproduce_section(FIGURES)
    write("results_cost.md", text)


if __name__ == "__main__":
    main()
