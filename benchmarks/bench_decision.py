"""Benchmark: the exact laws of issue 51 against a vectorised Monte Carlo bootstrap of B = 2000
resamples, in one run: decision curves (net benefit at 99 threshold probabilities, both
bootstraps), the metrics at an operating point (stratified, full, and the default ``auto``:
full for PPV, NPV and accuracy, stratified for the others; each against the Monte Carlo
bootstrap resampling as its law does, the full one for ``auto``), the metrics at a fixed FPR
(stratified, and the default: ``full_approx`` for PPV, NPV and accuracy, against the full
Monte Carlo bootstrap), and the joint covariance of five models' AUCs. Writes
``benchmarks/results_decision.md``.

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
from rocsim.core import (
    aucs_comparison,
    net_benefit_difference_distribution,
    net_benefit_distribution,
    operating_point_distribution,
)
from rocsim.core.operating_point import METRICS, metric_values

THRESHOLDS = np.arange(1, 100) / 100
B = 2000
BATCH = 100


def mc_counts(scores: np.ndarray, thresholds: np.ndarray, b: int, rng) -> np.ndarray:
    """``(b, T)`` counts of a class's resampled scores at or above each threshold."""
    return np.concatenate(
        [
            mc_treated(scores[rng.integers(0, scores.size, (size, scores.size))], thresholds)
            for size in batches(b)
        ]
    )


def mc_net_benefit(pos, neg, rng) -> np.ndarray:
    """Stratified Monte Carlo bootstrap of the net benefit: ``(B, T)``."""
    tp, fp = mc_counts(pos, THRESHOLDS, B, rng), mc_counts(neg, THRESHOLDS, B, rng)
    k = THRESHOLDS / (1 - THRESHOLDS)
    return (tp - k * fp) / (pos.size + neg.size)


def mc_net_benefit_difference(pos, neg, rng) -> np.ndarray:
    """Stratified Monte Carlo bootstrap of NB1 - NB2 (``pos``, ``neg``: (n, 2), both models'
    probabilities of each instance, resampled together): ``(B, T)``."""
    k = THRESHOLDS / (1 - THRESHOLDS)
    out = []
    for size in batches():
        i = rng.integers(0, pos.shape[0], (size, pos.shape[0]))
        j = rng.integers(0, neg.shape[0], (size, neg.shape[0]))
        tp = [mc_treated(pos[i, m]) for m in (0, 1)]
        fp = [mc_treated(neg[j, m]) for m in (0, 1)]
        out.append((tp[0] - tp[1] - k * (fp[0] - fp[1])) / (pos.shape[0] + neg.shape[0]))
    return np.concatenate(out)


def mc_net_benefit_difference_full(pos, neg, rng) -> np.ndarray:
    """Full Monte Carlo bootstrap of NB1 - NB2 (every instance resampled together, the class
    counts random): ``(B, T)``."""
    scores, positive = np.r_[pos, neg], np.r_[np.ones(len(pos)), np.zeros(len(neg))] == 1
    k = THRESHOLDS / (1 - THRESHOLDS)
    out = []
    for size in batches():
        i = rng.integers(0, scores.shape[0], (size, scores.shape[0]))
        label = positive[i]
        # a class's treated count: the other class's scores put below every threshold
        tp = [mc_treated(np.where(label, scores[i, m], -np.inf)) for m in (0, 1)]
        fp = [mc_treated(np.where(label, -np.inf, scores[i, m])) for m in (0, 1)]
        out.append((tp[0] - tp[1] - k * (fp[0] - fp[1])) / scores.shape[0])
    return np.concatenate(out)


def mc_treated(resamples: np.ndarray, thresholds: np.ndarray = THRESHOLDS) -> np.ndarray:
    """``(size, T)`` counts of each resample's scores at or above each threshold."""
    ordered = np.sort(resamples, axis=1)
    below = np.stack([np.searchsorted(row, thresholds, side="left") for row in ordered])
    return resamples.shape[1] - below


def batches(b: int = B) -> list[int]:
    """Sizes of the batches of ``b`` resamples drawn at once."""
    return [min(BATCH, b - start) for start in range(0, b, BATCH)]


def mc_count_at(scores: np.ndarray, threshold: float, size: int, rng) -> np.ndarray:
    """Counts of ``size`` resamples' scores at or above ``threshold``."""
    return (scores[rng.integers(0, scores.size, (size, scores.size))] >= threshold).sum(axis=1)


def quantile_bounds(tp, fp, n_pos, n_neg) -> np.ndarray:
    """The 2.5% and 97.5% quantiles of the 8 metrics over Monte Carlo resamples' counts:
    ``(2, 8)``."""
    bounds = []
    for metric in METRICS:
        values, defined = metric_values(metric, tp, fp, n_pos, n_neg)
        bounds.append(np.quantile(values[defined], [0.025, 0.975]))
    return np.array(bounds).T


def mc_operating_point(pos, neg, threshold: float, rng) -> np.ndarray:
    """Stratified Monte Carlo bootstrap of the 8 metrics at ``threshold`` and their 2.5% and
    97.5% quantiles: ``(2, 8)``."""
    # one threshold: a comparison per resampled score beats sorting the resamples
    tp = np.concatenate([mc_count_at(pos, threshold, size, rng) for size in batches()])
    fp = np.concatenate([mc_count_at(neg, threshold, size, rng) for size in batches()])
    return quantile_bounds(tp, fp, pos.size, neg.size)


def mc_operating_point_full(pos, neg, threshold: float, rng) -> np.ndarray:
    """Full Monte Carlo bootstrap (the instances resampled together) of the 8 metrics at
    ``threshold`` and their 2.5% and 97.5% quantiles: ``(2, 8)``."""
    scores = np.r_[pos, neg]
    # an instance's code: 2 a positive, plus 1 where it reaches the threshold
    code = 2 * (np.arange(scores.size) < pos.size) + (scores >= threshold)
    counts = []
    for size in batches():
        drawn = code[rng.integers(0, scores.size, (size, scores.size))]
        counts.append([np.sum(drawn == c, axis=1) for c in (3, 2, 1)])
    tp, fn, fp = np.concatenate(counts, axis=1)
    n_pos = tp + fn
    return quantile_bounds(tp, fp, n_pos, scores.size - n_pos)


def mc_operating_point_fpr(pos, neg, fpr: float, rng) -> np.ndarray:
    """Stratified Monte Carlo bootstrap of the 8 metrics at a fixed FPR (the ``r``-th largest
    resampled negative the threshold, found by ``np.partition``): ``(2, 8)``."""
    r = int(np.clip(np.rint(fpr * neg.size), 1, neg.size - 1))
    tp = []
    for size in batches():
        resampled = neg[rng.integers(0, neg.size, (size, neg.size))]
        threshold = -np.partition(-resampled, r - 1, axis=1)[:, r - 1]
        drawn = pos[rng.integers(0, pos.size, (size, pos.size))]
        tp.append(np.sum(drawn >= threshold[:, None], axis=1))
    tp = np.concatenate(tp)
    return quantile_bounds(tp, np.full(tp.size, r), pos.size, neg.size)


def mc_operating_point_fpr_full(pos, neg, fpr: float, rng) -> np.ndarray:
    """Full Monte Carlo bootstrap of the 8 metrics at a fixed FPR: each resample's rank
    ``r = rint(fpr N-*)`` among its own negatives (sorted), ``(2, 8)``."""
    scores, positive = np.r_[pos, neg], np.arange(pos.size + neg.size) < pos.size
    counts = []
    for size in batches():
        i = rng.integers(0, scores.size, (size, scores.size))
        label, drawn = positive[i], scores[i]
        n_neg = np.sum(~label, axis=1)
        r = np.clip(np.rint(fpr * n_neg), 1, n_neg - 1).astype(int)
        ranked = -np.sort(-np.where(label, -np.inf, drawn), axis=1)
        threshold = ranked[np.arange(size), r - 1]
        counts.append([np.sum(label & (drawn >= threshold[:, None]), axis=1), r, n_neg])
    tp, fp, n_neg = np.concatenate(counts, axis=1)
    return quantile_bounds(tp, fp, scores.size - n_neg, n_neg)


def mc_aucs(pos: list[np.ndarray], neg: list[np.ndarray], rng) -> np.ndarray:
    """``(B, K)`` AUCs of stratified resamples (every model's scores of an instance together)."""
    out = np.empty((B, len(pos)))
    for b in range(B):
        i, j = rng.integers(0, pos[0].size, pos[0].size), rng.integers(0, neg[0].size, neg[0].size)
        out[b] = [rocsim.core.auc(p[i], q[j]) for p, q in zip(pos, neg)]
    return out


#: The operating point designs: where, the point, the bootstrap's name in the table and its
#: value, the method, and the Monte Carlo bootstrap resampling as the law does.
OPERATING_POINT_CASES = (
    ("a threshold", {"threshold": 0.5}, "stratified", "stratified", "agresti_hull", None),
    ("a threshold", {"threshold": 0.5}, "stratified", "stratified", "percentile", None),
    ("a threshold", {"threshold": 0.5}, "default: auto", "auto", "agresti_hull", "full"),
    ("a threshold", {"threshold": 0.5}, "full", "full", "agresti_hull", "full"),
    ("a fixed FPR", {"fpr": 0.2}, "stratified", "stratified", "agresti_hull", None),
    ("a fixed FPR", {"fpr": 0.2}, "default: auto", "auto", "agresti_hull", "full"),
)


def operating_point_case(pos, neg, point: dict, bootstrap: str, method: str, monte_carlo, rng):
    """``(exact, Monte Carlo)`` calls of the 8 metrics at ``point`` (``{"threshold": t}`` or
    ``{"fpr": f}``): the exact laws' intervals (after the method's pseudo-count, 2 for the
    ``agresti`` methods), and the Monte Carlo bootstrap at it (``monte_carlo``: ``None`` the
    stratified one, ``"full"`` the full one)."""
    a = 2.0 if method.startswith("agresti") else 0.0
    (value,) = point.values()
    at_rate = "fpr" in point
    monte_carlo = {
        (False, None): mc_operating_point,
        (False, "full"): mc_operating_point_full,
        (True, None): mc_operating_point_fpr,
        (True, "full"): mc_operating_point_fpr_full,
    }[at_rate, monte_carlo]
    return (
        lambda: operating_point_distribution(
            pos, neg, **point, pseudo_count=a, bootstrap=bootstrap
        ).ci(0.95, method),
        lambda: monte_carlo(pos, neg, value, rng),
    )


def bench(n: int, rng) -> list[dict]:
    pos = 1 / (1 + np.exp(-rng.normal(1.0, 1.2, n)))
    neg = 1 / (1 + np.exp(-rng.normal(-1.0, 1.2, n)))
    models = (
        rng.normal(size=(5, 2 * n))
        + np.r_[np.ones(n), np.zeros(n)] * np.linspace(1, 0.5, 5)[:, None]
    )
    pair_pos = np.c_[pos, 1 / (1 + np.exp(-rng.normal(0.8, 1.2, n)))]
    pair_neg = np.c_[neg, 1 / (1 + np.exp(-rng.normal(-0.8, 1.2, n)))]
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
        **{
            f"8 metrics at {where}, {name} ({method})": operating_point_case(
                pos, neg, point, bootstrap, method, monte_carlo, rng
            )
            for where, point, name, bootstrap, method, monte_carlo in OPERATING_POINT_CASES
        },
        "NB1 - NB2, stratified (percentile)": (
            lambda: net_benefit_difference_distribution(
                pair_pos[:, 0], pair_pos[:, 1], pair_neg[:, 0], pair_neg[:, 1], THRESHOLDS
            ).ci(0.95, "percentile"),
            lambda: mc_net_benefit_difference(pair_pos, pair_neg, rng),
        ),
        "NB1 - NB2, full (percentile)": (
            lambda: net_benefit_difference_distribution(
                pair_pos[:, 0],
                pair_pos[:, 1],
                pair_neg[:, 0],
                pair_neg[:, 1],
                THRESHOLDS,
                bootstrap="full",
            ).ci(0.95, "percentile"),
            lambda: mc_net_benefit_difference_full(pair_pos, pair_neg, rng),
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
        "rocsim.operating_point_ci(y, p, fpr=0.1)",
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


def million_rows() -> list[dict]:
    """Seconds of each public call, with its default method, on 10^6 rows (half positives)."""
    rng = np.random.default_rng(6)
    n = 500_000
    y = np.r_[np.ones(n), np.zeros(n)]
    p = 1 / (1 + np.exp(-rng.normal(2 * y - 1, 1.2)))
    calls = {
        "rocsim.net_benefit_ci(y, p)": lambda: rocsim.net_benefit_ci(y, p),
        'rocsim.net_benefit_ci(y, p, method="percentile")': lambda: rocsim.net_benefit_ci(
            y, p, method="percentile"
        ),
        "rocsim.operating_point_ci(y, p, threshold=0.5)": lambda: rocsim.operating_point_ci(
            y, p, threshold=0.5
        ),
        'rocsim.operating_point_ci(y, p, threshold=0.5, bootstrap="full")': lambda: (
            rocsim.operating_point_ci(y, p, threshold=0.5, bootstrap="full")
        ),
        "rocsim.operating_point_ci(y, p, fpr=0.1)": lambda: rocsim.operating_point_ci(
            y, p, fpr=0.1
        ),
        "rocsim.compare_net_benefit(y, p, p ** 2)": lambda: rocsim.compare_net_benefit(y, p, p**2),
        "rocsim.compare_aucs(y, np.c_[p, p ** 2, noise])": lambda: rocsim.compare_aucs(
            y, np.c_[p, p**2, rng.random(2 * n)]
        ),
    }
    return [{"call": name, "seconds": best_of(call, repeat=1)} for name, call in calls.items()]


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
        "10^6 rows (5 x 10^5 per class), one run of each call with its defaults:",
        "",
        table(million_rows()),
        "",
    ]
    write("results_decision.md", text)


if __name__ == "__main__":
    main()
