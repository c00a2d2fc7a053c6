"""Every benchmark behind the README's performance section, in one command. Writes
``benchmarks/results.md``:

1. exact bootstrap intervals against a vectorised Monte Carlo percentile bootstrap
   (B = 2000 and 20000, one run each) for threshold averaging, vertical averaging (one
   classifier, and the paired difference of two), precision at fixed recalls (vertical
   averaging) and cost curves (one classifier, and the difference of two), at n = 10^2, 10^3,
   10^4, 10^5 per class: times, time ratio, and the largest difference between the Monte Carlo
   bounds and the exact ones;
2. the growth exponent in n of each exact algorithm (slope of log time against log n);
3. accuracy: the exact paired vertical moments (the exact law with the longest sums) against
   a B = 10^5 Monte Carlo bootstrap (``bench_paired.mc_error_rows``);
4. the first calls of each public function in new processes on a fresh install, next to the
   warm calls (``bench_cold_start``);
5. the full reproduction's wall time, split by study.

It also rewrites the tables of README.md's performance section (between their markers) from
these rows, so the README quotes this run.

Like is compared with like where the exact law allows it: the exact percentile interval
(quantiles of the exact bootstrap law) for threshold and vertical averaging; for the paired
vertical difference and for costs, whose exact output is the pair of bootstrap moments, the
Gaussian interval on them (``wald``), so the difference there also contains the skewness the
Monte Carlo percentiles see. Every time is the least of repeated runs on the same data, both
sides alike: at least 3 warm runs of the exact algorithm (what a simulation pays per data set:
weights that depend only on the sizes are cached) and 1 of each Monte Carlo bootstrap, and more
of either while its runs so far took under ``TIME_BUDGET`` seconds in all (a machine's noise
only adds time).

Usage: ``python benchmarks/run_all.py [--skip-reproduce | --reproduction DIR]``; ``DIR`` reuses
the ``meta.json`` files of an earlier ``rocsim-reproduce --results-dir DIR``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import bench_cold_start
import numpy as np
from _common import (
    bench_reproduce,
    best_of,
    machine,
    mc_vertical_tpr,
    replace_in_readme,
    run_timings,
    table,
    write,
)
from bench_cost import mc_statistic
from bench_paired import mc_error_rows
from bench_pr import mc_precision
from bench_threshold import monte_carlo_counts
from scipy import stats

import rocsim
from rocsim.analysis import PAIRED_VERTICAL_LIMIT
from rocsim.cli import available_studies
from rocsim.core.joint_thresholds import TOLERANCE
from rocsim.core.precision_recall import nearest_recall_ranks
from rocsim.sim.io import check_set
from rocsim.sim.models import make_paired_model

SIZES = (100, 1000, 10_000, 100_000)
REPLICATES = (2000, 20_000)
LEVEL = 0.9
TAILS = ((1 - LEVEL) / 2, (1 + LEVEL) / 2)
GRID = np.round(np.linspace(0.01, 0.99, 99), 12)
MODEL = make_paired_model((1.0, 1.0), (0.0, 1.0), (1.5, 1.0), (0.0, 1.0), 0.6)
Bounds = tuple[np.ndarray, np.ndarray]
#: Each timing repeats its runs while they took under this many seconds in all (see above).
TIME_BUDGET = 0.25


@dataclass(frozen=True)
class Case:
    """One curve: its exact interval and the Monte Carlo percentile interval it is set against."""

    curve: str
    compared: str
    exact: Callable[[tuple], Bounds]
    monte_carlo: Callable[[tuple, int, np.random.Generator], Bounds]
    largest_n: int = SIZES[-1]  # beyond it the exact algorithm is not run (see its row)


def percentiles(sample: np.ndarray) -> Bounds:
    low, high = np.quantile(sample, TAILS, axis=0, method="inverted_cdf")
    return low, high


@cache
def thresholds() -> np.ndarray:
    """True thresholds at the total positive ratios of the grid (root finding: done once)."""
    return MODEL.first.threshold_for_total_positive_ratio(GRID)


def threshold_exact(data) -> Bounds:
    pos, neg, _, _ = data
    law = rocsim.core.threshold_distribution(pos, neg, thresholds())
    # the stratified law of TPR (FPR) is Bin(n, p)/n: its quantiles are binomial quantiles
    bounds = [
        np.concatenate(
            [
                stats.binom.ppf(tail, law.n_pos, law.tpr) / law.n_pos,
                stats.binom.ppf(tail, law.n_neg, law.fpr) / law.n_neg,
            ]
        )
        for tail in TAILS
    ]
    return bounds[0], bounds[1]


def threshold_mc(data, b, rng) -> Bounds:
    pos, neg, _, _ = data
    tpr = monte_carlo_counts(pos, thresholds(), b, rng) / pos.size
    fpr = monte_carlo_counts(neg, thresholds(), b, rng) / neg.size
    return percentiles(np.concatenate([tpr, fpr], axis=1))


def ranks(data) -> np.ndarray:
    return rocsim.core.fpr_ranks(GRID, data[2].size)


def vertical_exact(data) -> Bounds:
    ci = rocsim.core.vertical_ci(
        data[0], data[2], ranks(data), confidence_level=LEVEL, method="percentile"
    )
    return ci.low, ci.high


def vertical_mc(data, b, rng) -> Bounds:
    (tpr,) = mc_vertical_tpr([(data[0], data[2])], ranks(data), b, rng)
    return percentiles(tpr)


def paired_vertical_exact(data) -> Bounds:
    pos1, neg1, pos2, neg2 = data
    ci = rocsim.core.vertical_difference_ci(
        pos1, pos2, neg1, neg2, ranks(data), confidence_level=LEVEL, method="wald"
    )
    return ci.low, ci.high


def paired_vertical_mc(data, b, rng) -> Bounds:
    pos1, neg1, pos2, neg2 = data
    tpr1, tpr2 = mc_vertical_tpr([(pos1, neg1), (pos2, neg2)], ranks(data), b, rng)
    return percentiles(tpr1 - tpr2)


def recall_ranks(data) -> np.ndarray:
    """The ranks of the recalls of the grid, each once (as ``rocsim.pr_ci``)."""
    return np.unique(nearest_recall_ranks(GRID, data[0].size))


def pr_exact(data) -> Bounds:
    ci = rocsim.core.pr_ci(
        data[0], data[1], recall_ranks(data), confidence_level=LEVEL, method="percentile"
    )
    return ci.low, ci.high


def pr_mc(data, b, rng) -> Bounds:
    return percentiles(mc_precision(data[0], data[1], recall_ranks(data), b, rng))


@cache
def cost_thresholds() -> tuple[np.ndarray, np.ndarray]:
    return MODEL.first.cost_threshold(GRID), MODEL.second.cost_threshold(GRID)


def above(scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    return (scores[:, None] >= thresholds[None, :]).astype(float)


def cost_exact(data) -> Bounds:
    ci = rocsim.core.cost_ci(
        data[0], data[1], GRID, cost_thresholds()[0], confidence_level=LEVEL, method="wald"
    )
    return ci.low, ci.high


def cost_mc(data, b, rng) -> Bounds:
    pos, neg, _, _ = data
    t1 = cost_thresholds()[0]
    return percentiles(mc_statistic(1 - above(pos, t1), above(neg, t1), b, rng, GRID))


def paired_cost_exact(data) -> Bounds:
    pos1, neg1, pos2, neg2 = data
    t1, t2 = cost_thresholds()
    ci = rocsim.core.cost_difference_ci(
        pos1, pos2, neg1, neg2, GRID, t1, t2, confidence_level=LEVEL, method="wald"
    )
    return ci.low, ci.high


def paired_cost_mc(data, b, rng) -> Bounds:
    pos1, neg1, pos2, neg2 = data
    t1, t2 = cost_thresholds()
    cells = (above(pos1, t1) - above(pos2, t2), above(neg2, t2) - above(neg1, t1))
    return percentiles(mc_statistic(*cells, b, rng, GRID))


CASES = [
    Case("threshold averaging", "exact percentile", threshold_exact, threshold_mc),
    Case("vertical averaging", "exact percentile", vertical_exact, vertical_mc),
    Case(
        "vertical, paired difference",
        "wald on exact moments",
        paired_vertical_exact,
        paired_vertical_mc,
        largest_n=PAIRED_VERTICAL_LIMIT,
    ),
    Case("precision-recall, vertical", "exact percentile", pr_exact, pr_mc),
    Case("cost curve", "wald on exact moments", cost_exact, cost_mc),
    Case(
        "cost curve, paired difference", "wald on exact moments", paired_cost_exact, paired_cost_mc
    ),
]


def draw(n: int, rng) -> tuple:
    """``(pos1, neg1, pos2, neg2)``: the first classifier alone serves the single curves."""
    pos1, pos2, neg1, neg2 = MODEL.sample(rng, n, n)
    return pos1, neg1, pos2, neg2


def bench_case(case: Case, n: int, data: tuple, rng, replicates=REPLICATES) -> dict:
    low, high = case.exact(data)  # warms the caches a simulation shares across data sets
    t_exact = best_of(lambda: case.exact(data), repeat=3, budget=TIME_BUDGET)
    row = {"curve": case.curve, "n per class": n, "exact (ms)": 1e3 * t_exact}
    for b in replicates:
        bounds: list[Bounds] = []
        t_mc = best_of(
            lambda b=b, out=bounds: out.append(case.monte_carlo(data, b, rng)),
            repeat=1,
            budget=TIME_BUDGET,
        )
        mc_low, mc_high = bounds[-1]
        row |= {
            f"MC B={b} (s)": t_mc,
            f"MC B={b} / exact": t_mc / t_exact,
            f"max bound diff B={b}": float(
                max(np.max(np.abs(mc_low - low)), np.max(np.abs(mc_high - high)))
            ),
        }
    return row


def growth_exponents(rows: list[dict]) -> list[dict]:
    out = []
    for case in CASES:
        pts = [(r["n per class"], r["exact (ms)"]) for r in rows if r["curve"] == case.curve]
        slope = np.polyfit(np.log([p[0] for p in pts]), np.log([p[1] for p in pts]), 1)[0]
        out.append(
            {
                "curve": case.curve,
                "exact interval compared": case.compared,
                "n per class": f"{pts[0][0]} .. {pts[-1][0]}",
                "growth exponent": float(slope),
                "exact at largest n / 10x smaller": pts[-1][1] / pts[-2][1],
            }
        )
    return out


def _power(n: int) -> str:
    return f"10^{round(np.log10(n))}"


def readme_table(rows: list[dict], exponents: list[dict]) -> list[str]:
    """The README's table: every curve at n = 10^3 and above."""
    slope = {e["curve"]: e["growth exponent"] for e in exponents}
    b_small, b_large = REPLICATES
    lines = [
        "| curve (exact interval compared) | n per class | exact | "
        f"MC B={b_small} / exact | MC B={b_large} / exact | "
        f"largest bound difference, B={b_small} / {b_large} | growth exponent |",
        "|---|---|---|---|---|---|---|",
    ]
    compared = {c.curve: c.compared for c in CASES}
    for r in rows:
        if r["n per class"] < 1000:
            continue
        exact = r["exact (ms)"]
        shown = f"{exact:.3g} ms" if exact < 1000 else f"{exact / 1000:.3g} s"
        lines.append(
            f"| {r['curve']} ({compared[r['curve']]}) | {_power(r['n per class'])} | {shown} | "
            f"{r[f'MC B={b_small} / exact']:.3g} | {r[f'MC B={b_large} / exact']:.3g} | "
            f"{r[f'max bound diff B={b_small}']:.2g} / {r[f'max bound diff B={b_large}']:.2g} | "
            f"{slope[r['curve']]:.2f} |"
        )
    return lines


def reproduction_split(directory: Path | None) -> tuple[str, list[dict]]:
    """Per-study wall time: from ``directory``'s ``meta.json`` files, or a fresh full run."""
    studies = available_studies()
    if directory is None:
        timings = bench_reproduce(studies)
        source = "a fresh `rocsim-reproduce` (all studies, 1000 replications, both cores)"
    else:
        for s in studies:
            check_set(directory / s)  # one run's complete outputs, or a one-line error
        timings = run_timings(directory, studies)
        timings["total (s)"] = sum(timings.values())
        source = f"the meta.json files of `rocsim-reproduce --results-dir {directory}`"
    total = timings.pop("total (s)")
    rows = [
        {"study": k.removesuffix(" (s)"), "wall (s)": v, "share": f"{v / total:.1%}"}
        for k, v in timings.items()
    ]
    label = "total (sum of runs)" if directory else "total (wall, with start-up and report)"
    return source, [*rows, {"study": label, "wall (s)": total, "share": "100%"}]


def main() -> None:
    parser = argparse.ArgumentParser()
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--skip-reproduce", action="store_true")
    group.add_argument("--reproduction", type=Path, metavar="DIR")
    args = parser.parse_args()
    started = time.perf_counter()
    rng = np.random.default_rng(2009)
    rows = []
    for n in SIZES:
        data = draw(n, rng)
        rows += [bench_case(case, n, data, rng) for case in CASES if n <= case.largest_n]
    exponents = growth_exponents(rows)
    skipped = [f"{c.curve} (n > {c.largest_n})" for c in CASES if c.largest_n < SIZES[-1]]
    lines = [
        "# Benchmarks: exact bootstrap vs Monte Carlo bootstrap",
        "",
        f"Machine: {machine()}. Data: positives N(1, 1), negatives N(0, 1); the second "
        "classifier's positives N(1.5, 1), correlation 0.6 between the two scores of an "
        f"instance. 99 points (thresholds at total positive ratio 0.01..0.99, FPRs "
        f"r/n- and recalls r/n+ nearest to 0.01..0.99, operating conditions w = 0.01..0.99); "
        f"level {LEVEL}; "
        "stratified bootstrap. Monte Carlo: a vectorised percentile bootstrap. Each time is "
        f"the least of repeated runs on the same data: at least 3 warm runs of the exact "
        f"algorithm and 1 of each bootstrap, more while they took under {TIME_BUDGET:g} s "
        "in all.",
        "",
        "## Exact vs Monte Carlo",
        "",
        table(rows),
        "",
        "Not run: " + ", ".join(skipped) + "." if skipped else "",
        "",
        "## Growth of the exact algorithms",
        "",
        table(exponents),
        "",
        "## Accuracy",
        "",
        "Nothing above is approximate: the paired vertical difference is exact at every n (a "
        "bound on the Lancaster terms left out: they change each FPR's weighted sum of the two "
        "thresholds' joint probabilities less their product under independence by at most "
        f"{TOLERANCE:g}). "
        "Its moments against a seeded Monte Carlo bootstrap (B = 10^5) at n = 200 and 1000:",
        "",
        table(mc_error_rows()),
        "",
    ]
    cold_start = bench_cold_start.report(*bench_cold_start.measured_rows(False, [1000, 10000]))
    lines += ["## First calls in new processes", "", *cold_start, ""]
    if not args.skip_reproduce:
        source, split = reproduction_split(args.reproduction)
        lines += [
            "## Full reproduction, split by study",
            "",
            f"From {source}.",
            "",
            table(split),
            "",
        ]
    lines += [f"Benchmark wall time: {time.perf_counter() - started:.0f} s", ""]
    write("results.md", lines)
    replace_in_readme("performance table", "run_all.py", readme_table(rows, exponents))
    replace_in_readme("cold-start table", "bench_cold_start.py", cold_start)


if __name__ == "__main__":
    main()
