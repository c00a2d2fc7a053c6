"""Benchmark: bootstrap moments of TPR1 - TPR2 at 99 FPRs (vertical averaging, Algorithm 4.4)
and the reproduction of figures 4.5 and 4.9. Writes ``benchmarks/results_paired.md``.

- time per data set of :func:`rocsim.core.vertical_difference` (exact at every n) at n = 10^2 ..
  10^5 per class, against one vectorised Monte Carlo bootstrap (B = 2000) of the same data,
  and the fitted growth exponent (slope of log time against log n), beside the O(n^4) per FPR
  of the thesis's Algorithm 4.4;
- the exact moments against a seeded Monte Carlo bootstrap (B = 10^5) at n = 200 and 1000, on
  paired binormal data with correlation 0.3, 0.9 and 0.99 between the two scores of an
  instance (0.99: nearly identical rankings, the longest Lancaster sums).

Usage: ``python benchmarks/bench_paired.py [--skip-reproduce] [--skip-mc]``
"""

from __future__ import annotations

import time

import numpy as np
from _common import arguments, best_of, machine, mc_vertical_tpr, reproduce_section, table, write

import rocsim

FIGURES = ["fig4_5", "fig4_9"]
SIZES = [100, 200, 500, 1000, 10_000, 100_000]


def paired_binormal(n: int, rho: float, seed: int):
    rng = np.random.default_rng(seed)
    cov = [[1.0, rho], [rho, 1.0]]
    pos = rng.multivariate_normal([1.0, 1.0], cov, size=n)
    neg = rng.multivariate_normal([0.0, 0.0], cov, size=n)
    return pos[:, 0], pos[:, 1], neg[:, 0], neg[:, 1]


def ranks_for(n: int) -> np.ndarray:
    return np.unique(np.clip(np.round(np.linspace(0.01, 0.99, 99) * n).astype(int), 1, n - 1))


def mc_moments(data, ranks: np.ndarray, b: int, seed: int):
    """Mean and variance of dTPR over ``b`` stratified resamples (the same resampled
    negatives and positives for both classifiers)."""
    pos1, pos2, neg1, neg2 = data
    tpr1, tpr2 = mc_vertical_tpr(
        [(pos1, neg1), (pos2, neg2)], ranks, b, np.random.default_rng(seed)
    )
    sample = tpr1 - tpr2
    return sample.mean(axis=0), sample.var(axis=0, ddof=1), sample


def _time_one(n: int) -> dict:
    data, ranks = paired_binormal(n, 0.9, seed=n), ranks_for(n)
    row: dict = {"n per class": n, "FPRs": ranks.size}
    rocsim.core.vertical_difference(*data, ranks)  # warms the caches a simulation shares
    row["exact (s)"] = best_of(lambda: rocsim.core.vertical_difference(*data, ranks), 3)
    start = time.perf_counter()
    mc_moments(data, ranks, 2000, seed=1)
    row["MC B=2000 (s)"] = time.perf_counter() - start
    row["MC B=2000 / exact"] = row["MC B=2000 (s)"] / row["exact (s)"]
    row["np.sort of 2n scores (s)"] = best_of(lambda: np.sort(np.concatenate(data)), 20)
    return row


def timing_rows() -> list[dict]:
    return [_time_one(n) for n in SIZES]


def exponent(rows: list[dict], key: str) -> float:
    pts = [(r["n per class"], r[key]) for r in rows if key in r]
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def mc_error_rows(b: int = 100_000) -> list[dict]:
    rows = []
    for n in (200, 1000):
        for rho in (0.3, 0.9, 0.99):
            data = paired_binormal(n, rho, seed=11 * n)
            ranks = ranks_for(n)[::7]
            law = rocsim.core.vertical_difference(*data, ranks)
            mean, var, sample = mc_moments(data, ranks, b, seed=n)
            # MCSE of the sample variance: sqrt((m4 - var^2)/B)
            m4 = ((sample - mean) ** 4).mean(axis=0)
            se_var = np.sqrt((m4 - var**2) / b)
            ok = var > 0
            rows.append(
                {
                    "n": n,
                    "rho": rho,
                    "B": b,
                    "FPRs": f"{ok.sum()} of {ranks.size}",
                    "max |mean - MC| / MCSE": float(
                        np.max(np.abs(law.mean - mean)[ok] / np.sqrt(var[ok] / b))
                    ),
                    "max |var rel. error|": float(np.max(np.abs(law.var[ok] / var[ok] - 1))),
                    "max |var - MC| / MCSE": float(np.max(np.abs(law.var - var)[ok] / se_var[ok])),
                }
            )
    return rows


def main() -> None:
    args = arguments("--skip-mc")
    times = timing_rows()
    lines = [
        "# Paired vertical averaging: exact bootstrap moments of TPR1 - TPR2",
        "",
        f"Machine: {machine()}. Paired binormal data, positives N(1, 1), negatives N(0, 1)",
        "for both classifiers, correlation 0.9 between the two scores of an instance",
        "(timings); 0.3, 0.9 and 0.99 (accuracy).",
        "",
        "## Time per data set (99 FPRs, best of 3 warm runs; Monte Carlo: one run)",
        "",
        table(times),
        "",
        f"Fitted growth exponent over n = {SIZES}: {exponent(times, 'exact (s)'):.2f}. "
        "The thesis's Algorithm 4.4 is O(n^4) per FPR.",
    ]
    if not args.skip_mc:
        lines += [
            "",
            "## The exact moments against a Monte Carlo bootstrap",
            "",
            table(mc_error_rows()),
        ]
    if not args.skip_reproduce:
        lines += ["", *reproduce_section(FIGURES)]
    write("results_paired.md", [*lines, ""])


if __name__ == "__main__":
    main()
