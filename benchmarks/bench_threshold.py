"""Benchmark: exact threshold-averaging intervals vs a Monte Carlo bootstrap, and the
reproduction of figures 4.2, 4.3, 4.4, 4.10. Writes ``benchmarks/results_threshold.md``.

Ratios are measured in one run on one machine: exact time / Monte Carlo time (B = 2000, the
pROC default), exact time / one ``np.sort`` of the same scores.

Usage: ``python benchmarks/bench_threshold.py [--skip-reproduce]``
"""

from __future__ import annotations

import numpy as np
from _common import arguments, best_of, machine, reproduce_section, table, write

import rocsim
from rocsim.core.resampled_curves import resample_counts

FIGURES = ["fig4_2", "fig4_3", "fig4_4", "fig4_10"]


def monte_carlo_counts(
    scores: np.ndarray, thresholds: np.ndarray, b: int, rng, chunk: int = 500
) -> np.ndarray:
    """Bootstrap counts of scores >= t for ``b`` resamples (vectorised over each chunk)."""
    n = scores.size
    order = np.sort(scores)[::-1]
    reach = rocsim.core.count_at_or_above(order, thresholds)  # n_t: ranks below it reach t
    out = []
    for start in range(0, b, chunk):
        size = min(chunk, b - start)
        cum = np.cumsum(resample_counts(n, size, rng), axis=1)
        padded = np.concatenate([np.zeros((size, 1), dtype=cum.dtype), cum], axis=1)
        out.append(padded[:, reach])
    return np.vstack(out)


def mc_percentile(pos, neg, thresholds, b, level, rng):
    axis = np.sqrt(level)
    lo, hi = (1 - axis) / 2, 1 - (1 - axis) / 2
    tpr = monte_carlo_counts(pos, thresholds, b, rng) / pos.size
    fpr = monte_carlo_counts(neg, thresholds, b, rng) / neg.size
    return np.quantile(tpr, [lo, hi], axis=0), np.quantile(fpr, [lo, hi], axis=0)


def bench_intervals(n: int, b: int, rng) -> dict:
    pos, neg = rng.normal(3, 3.75, n), rng.normal(-3, 3, n)
    model = rocsim.sim.models.make_model("binormal", (3, 3.75), (-3, 3))
    thresholds = model.threshold_for_total_positive_ratio(np.linspace(0.01, 0.99, 99))
    both = np.concatenate([pos, neg])
    t_exact = best_of(lambda: rocsim.core.threshold_ci(pos, neg, thresholds, confidence_level=0.9))
    t_sort = best_of(lambda: np.sort(both))
    row = {
        "n per class": n,
        "exact (ms)": 1e3 * t_exact,
        "np.sort of 2n (ms)": 1e3 * t_sort,
        "exact / sort": t_exact / t_sort,
    }
    if b:
        t_mc = best_of(lambda: mc_percentile(pos, neg, thresholds, b, 0.9, rng), repeat=1)
        ci = rocsim.core.threshold_ci(pos, neg, thresholds, confidence_level=0.9)
        (tpr_q, fpr_q) = mc_percentile(pos, neg, thresholds, b, 0.9, rng)
        diff = max(
            np.max(np.abs(tpr_q[0] - ci.tpr_low)),
            np.max(np.abs(tpr_q[1] - ci.tpr_high)),
            np.max(np.abs(fpr_q[0] - ci.fpr_low)),
            np.max(np.abs(fpr_q[1] - ci.fpr_high)),
        )
        row |= {
            f"MC B={b} (ms)": 1e3 * t_mc,
            "MC / exact": t_mc / t_exact,
            "max abs diff, MC percentile vs exact score bounds": diff,
        }
    return row


def main() -> None:
    args = arguments()
    rng = np.random.default_rng(2009)
    rows = [bench_intervals(n, b, rng) for n, b in ((100, 2000), (10_000, 2000), (1_000_000, 0))]
    text = [
        "# Threshold averaging benchmark",
        "",
        f"Machine: {machine()}; 99 thresholds; best of 5 runs (Monte Carlo: one run).",
        "",
        table(rows),
        "",
    ]
    if not args.skip_reproduce:
        text += reproduce_section(FIGURES)
    write("results_threshold.md", text)


if __name__ == "__main__":
    main()
