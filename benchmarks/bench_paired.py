"""Benchmark: bootstrap moments of TPR1 - TPR2 at 99 FPRs (vertical averaging, Algorithm 4.4)
and the reproduction of figures 4.5 and 4.9. Writes ``benchmarks/results_paired.md``.

- time per data set of :func:`rocsim.vertical_difference` (``hybrid`` and ``exact``) at
  n = 50, 100, 200, 1000 per class and the fitted growth exponent (slope of log time against
  log n), beside the O(n^4) per FPR of the thesis's Algorithm 4.4;
- the error of the hybrid: against the exact algorithm (n <= 100) and against a seeded
  Monte Carlo bootstrap (B = 10^5) at n = 200 and 1000, on paired binormal data with
  correlation 0.9 (the hard case: nearly identical rankings) and 0.3.

Usage: ``python benchmarks/bench_paired.py [--skip-reproduce] [--skip-mc]``
"""

from __future__ import annotations

import numpy as np
from _common import arguments, best_of, machine, mc_vertical_tpr, reproduce_section, table, write

import rocsim

FIGURES = ["fig4_5", "fig4_9"]
SIZES = [50, 100, 200, 1000]


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
    row = {
        "n per class": n,
        "FPRs": ranks.size,
        "hybrid (s)": best_of(
            lambda: rocsim.vertical_difference(*data, ranks, algorithm="hybrid"), 3
        ),
    }
    if n <= 100:
        row["exact (s)"] = best_of(
            lambda: rocsim.vertical_difference(*data, ranks, algorithm="exact"), 3
        )
    row["np.sort of 2n scores (s)"] = best_of(lambda: np.sort(np.concatenate(data)), 20)
    return row


def timing_rows() -> list[dict]:
    return [_time_one(n) for n in SIZES]


def exponent(rows: list[dict], key: str) -> float:
    pts = [(r["n per class"], r[key]) for r in rows if key in r]
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def exact_error_rows() -> list[dict]:
    rows = []
    for n, rho in [(80, 0.9), (100, 0.9), (100, 0.95), (100, 0.3)]:
        data, ranks = paired_binormal(n, rho, seed=7 * n), np.arange(1, n)
        exact = rocsim.vertical_difference(*data, ranks, algorithm="exact")
        hybrid = rocsim.vertical_difference(*data, ranks, algorithm="hybrid")
        rel = hybrid.var / exact.var - 1
        rows.append(
            {
                "n": n,
                "rho": rho,
                "max |mean error|": float(np.abs(hybrid.mean - exact.mean).max()),
                "max |var rel. error|": float(np.abs(rel).max()),
                "at r": int(ranks[np.argmax(np.abs(rel))]),
            }
        )
    return rows


def mc_error_rows(b: int = 100_000) -> list[dict]:
    rows = []
    for n, rho in [(200, 0.9), (200, 0.3), (1000, 0.9)]:
        data = paired_binormal(n, rho, seed=11 * n)
        ranks = ranks_for(n)[::7]
        law = rocsim.vertical_difference(*data, ranks, algorithm="hybrid")
        mean, var, sample = mc_moments(data, ranks, b, seed=n)
        # MCSE of the sample variance: sqrt((m4 - var^2)/B)
        m4 = ((sample - mean) ** 4).mean(axis=0)
        se_var = np.sqrt((m4 - var**2) / b)
        # ranks where B = 10^5 can test a 2% error (relative MCSE of the variance below 0.5%);
        # at the extreme FPRs dTPR is almost always 0 and the Monte Carlo variance is noise
        ok = (var > 0) & (se_var < 0.005 * var)
        rows.append(
            {
                "n": n,
                "rho": rho,
                "B": b,
                "FPRs tested": f"{ok.sum()} of {ranks.size}",
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
        "for both classifiers, correlation 0.9 between the two scores of an instance.",
        "",
        "## Time per data set (99 FPRs, best of 3)",
        "",
        table(times),
        "",
        f"Fitted growth exponent of the hybrid over n = {SIZES}: "
        f"{exponent(times, 'hybrid (s)'):.2f}; of the exact algorithm over n = 50, 100: "
        f"{exponent(times, 'exact (s)'):.2f}. The thesis's Algorithm 4.4 is O(n^4) per FPR.",
        "",
        "## Error of the hybrid against the exact algorithm (every rank)",
        "",
        table(exact_error_rows()),
    ]
    if not args.skip_mc:
        lines += [
            "",
            "## Error of the hybrid against a Monte Carlo bootstrap",
            "",
            table(mc_error_rows()),
        ]
    if not args.skip_reproduce:
        lines += ["", *reproduce_section(FIGURES)]
    write("results_paired.md", [*lines, ""])


if __name__ == "__main__":
    main()
