"""Benchmark: the exact laws of issue 51 against a vectorised Monte Carlo bootstrap of B = 2000
resamples, in one run: decision curves (net benefit at 99 threshold probabilities, both
bootstraps), the metrics at an operating point, and the joint covariance of five models'
AUCs. Writes ``benchmarks/results_decision.md``.

Ratios are Monte Carlo time / exact time on one machine in one run. The Monte Carlo bootstrap
resamples instance indices in batches and counts, for each resample, the treated positives and
negatives at every threshold (``np.searchsorted`` on the sorted resample): the way a user
without the exact law would compute it, vectorised.

Usage: ``python benchmarks/bench_decision.py``
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from _common import best_of, machine, table, write

import rocsim
from rocsim.core import aucs_comparison, net_benefit_distribution, operating_point_distribution

THRESHOLDS = np.arange(1, 100) / 100
B = 2000
BATCH = 100


def mc_counts(scores: np.ndarray, thresholds: np.ndarray, b: int, rng) -> np.ndarray:
    """``(b, T)`` counts of a class's resampled scores at or above each threshold."""
    out = []
    for start in range(0, b, BATCH):
        size = min(BATCH, b - start)
        resample = np.sort(scores[rng.integers(0, scores.size, (size, scores.size))], axis=1)
        below = np.stack([np.searchsorted(row, thresholds, side="left") for row in resample])
        out.append(scores.size - below)
    return np.concatenate(out)


def mc_net_benefit(pos, neg, rng) -> np.ndarray:
    """Stratified Monte Carlo bootstrap of the net benefit: ``(B, T)``."""
    tp, fp = mc_counts(pos, THRESHOLDS, B, rng), mc_counts(neg, THRESHOLDS, B, rng)
    k = THRESHOLDS / (1 - THRESHOLDS)
    return (tp - k * fp) / (pos.size + neg.size)


def mc_aucs(pos: list[np.ndarray], neg: list[np.ndarray], rng) -> np.ndarray:
    """``(B, K)`` AUCs of stratified resamples (every model's scores of an instance together)."""
    out = np.empty((B, len(pos)))
    for b in range(B):
        i, j = rng.integers(0, pos[0].size, pos[0].size), rng.integers(0, neg[0].size, neg[0].size)
        out[b] = [rocsim.core.auc(p[i], q[j]) for p, q in zip(pos, neg)]
    return out


def bench(n: int, rng) -> list[dict]:
    pos = 1 / (1 + np.exp(-rng.normal(1.0, 1.2, n)))
    neg = 1 / (1 + np.exp(-rng.normal(-1.0, 1.2, n)))
    models = (
        rng.normal(size=(5, 2 * n))
        + np.r_[np.ones(n), np.zeros(n)] * np.linspace(1, 0.5, 5)[:, None]
    )
    cases = {
        "net benefit, stratified (percentile)": (
            lambda: net_benefit_distribution(pos, neg, THRESHOLDS).ci(0.95, "percentile"),
            lambda: mc_net_benefit(pos, neg, rng),
        ),
        "net benefit, full (agresti)": (
            lambda: net_benefit_distribution(pos, neg, THRESHOLDS, bootstrap="full").ci(0.95),
            lambda: mc_net_benefit(pos, neg, rng),
        ),
        "net benefit, full (percentile)": (
            lambda: net_benefit_distribution(pos, neg, THRESHOLDS, bootstrap="full").ci(
                0.95, "percentile"
            ),
            lambda: mc_net_benefit(pos, neg, rng),
        ),
        "8 metrics at a threshold": (
            lambda: operating_point_distribution(pos, neg, threshold=0.5).ci(0.95),
            lambda: mc_counts(pos, np.array([0.5]), B, rng),
        ),
        "5 AUCs, exact covariance, max-t": (
            lambda: aucs_comparison(
                list(models[:, :n]), list(models[:, n:]), method="exact_bootstrap"
            ),
            lambda: mc_aucs(list(models[:, :n]), list(models[:, n:]), rng),
        ),
    }
    rows = []
    for name, (exact, monte_carlo) in cases.items():
        t_exact = best_of(exact, repeat=3)
        t_mc = best_of(monte_carlo, repeat=1) if n <= 1000 or "AUC" not in name else np.nan
        rows.append(
            {
                "design": name,
                "n per class": n,
                "exact (s)": t_exact,
                f"MC B={B} (s)": t_mc,
                "MC / exact": t_mc / t_exact,
            }
        )
    return rows


def first_call() -> list[dict]:
    """Seconds of the first call in a new process, and of the next one, of each function."""
    code = (
        "import time, numpy as np; import rocsim; rng = np.random.default_rng(0); "
        "y = np.r_[np.ones(1000), np.zeros(1000)]; p = 1 / (1 + np.exp(-rng.normal(y, 1.2))); "
        "t = time.perf_counter(); {call}; first = time.perf_counter() - t; "
        "t = time.perf_counter(); {call}; print(first, time.perf_counter() - t)"
    )
    rows = []
    for call in (
        "rocsim.net_benefit_ci(y, p)",
        "rocsim.operating_point_ci(y, p, threshold=0.5)",
        "rocsim.compare_aucs(y, np.c_[p, p ** 2, rng.random(2000)])",
    ):
        out = subprocess.run(
            [sys.executable, "-c", code.format(call=call)], capture_output=True, text=True
        )
        first, warm = (float(v) for v in out.stdout.split())
        rows.append(
            {"call": call, "first (s)": first, "warm (s)": warm, "first - warm": first - warm}
        )
    return rows


def main() -> None:
    rng = np.random.default_rng(51)
    rows = [row for n in (1000, 10_000) for row in bench(n, rng)]
    text = [
        "# Decision curves, operating points, many AUCs: benchmark",
        "",
        f"Machine: {machine()}; 99 threshold probabilities; exact: best of 3 runs; Monte "
        f"Carlo: one run of B = {B} (the AUCs' at n = 10^4 per class not run: minutes).",
        "",
        table(rows),
        "",
        "First call in a new Python process against the next one (2000 instances):",
        "",
        table(first_call()),
        "",
    ]
    write("results_decision.md", text)


if __name__ == "__main__":
    main()
