"""Benchmark and brute-force checks of ``rocsim.sim.planning.sample_size``; prints markdown.

1. Time of one call (wall and CPU seconds, one run each) for threshold averaging (exact) and
   vertical averaging (from the laws, the default, and simulated with the default
   replications), and the number of ``n`` visited.
2. Threshold averaging, brute force: every ``n`` from 1 up to the answer by exact expected
   width, and ``n`` around the answer by the mean width over simulated test sets.
3. Vertical averaging, brute force: ``n`` around the answer (from the laws) by independent
   simulation, the crossing of a straight line through the simulated widths against the
   function's ``n``.
4. Stability of the simulated vertical answer over seeds, with and without common random
   numbers (the answer from the laws has no seed).

Usage: ``python benchmarks/bench_sample_size.py [--quick]``
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from _common import machine, table

from rocsim.core.coverage import threshold_exact_coverage
from rocsim.core.intervals import proportion_ci
from rocsim.core.vertical import nearest_ranks, vertical_ci
from rocsim.sim.planning import binormal, sample_size


def timed(**kwargs) -> dict:
    wall, cpu = time.perf_counter(), time.process_time()
    plan = sample_size(0.8, **kwargs)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "averaging": plan.averaging,
        "computed": plan.computed,
        "at": plan.at,
        "width": plan.width,
        "n": plan.n,
        "expected width": plan.expected_width,
        "width se": plan.width_se,
        "coverage": plan.coverage,
        "n visited": len(plan.candidates),
        "wall (s)": wall,
        "cpu (s)": cpu,
    }


def threshold_brute_force(reps: int) -> list[str]:
    level, target, model = 0.95, 0.2, binormal(auc=0.8)
    plan = sample_size(0.8, at=0.2, averaging="threshold", width=target)
    t = plan.threshold

    def exact(n: int) -> float:
        c = threshold_exact_coverage(
            [plan.tpr], [plan.fpr], n, n, confidence_level=level, method="score"
        )
        return float(c.tpr.width[0])

    first = next(n for n in range(1, plan.n + 1) if exact(n) <= target)
    rng = np.random.default_rng(2024)
    rows = []
    for n in range(plan.n - 4, plan.n + 3):
        tp = (model.pos.sample(rng, (reps, n)) >= t).sum(axis=1)
        low, high = proportion_ci(tp, n, confidence_level=math.sqrt(level))
        w = high - low
        se = w.std(ddof=1) / math.sqrt(reps)
        rows.append(
            {
                "n": n,
                "exact W(n)": exact(n),
                "simulated mean": w.mean(),
                "MC se": se,
                "z": (w.mean() - exact(n)) / se,
                "<= width": bool(exact(n) <= target),
            }
        )
    return [
        f"## Threshold averaging: AUC 0.8, FPR 0.2, TPR width {target}, 95%",
        "",
        f"sample_size: n = {plan.n}; first n in 1..{plan.n} with exact W(n) <= width: {first}; "
        f"{reps} simulated test sets per n.",
        "",
        table(rows),
        "",
    ]


def vertical_brute_force(reps: int, step: int) -> list[str]:
    level, target, at, model = 0.95, 0.2, 0.2, binormal(auc=0.8)
    plan = sample_size(0.8, at=at, width=target)
    rng = np.random.default_rng(1000)
    ns, means, ses = [], [], []
    for n in range(plan.n - 24, plan.n + 25, step):
        r = nearest_ranks([at], n)
        w = np.empty(reps)
        for j in range(reps):
            ci = vertical_ci(
                model.pos.sample(rng, n), model.neg.sample(rng, n), r, confidence_level=level
            )
            w[j] = ci.high[0] - ci.low[0]
        ns.append(n)
        means.append(w.mean())
        ses.append(w.std(ddof=1) / math.sqrt(reps))
    slope, intercept = np.polyfit(ns, means, 1)
    crossing = (target - intercept) / slope
    sigma = 2 * plan.n * math.hypot(plan.width_se, float(np.mean(ses))) / target
    rows = [
        {"n": n, "simulated mean": m, "MC se": s, "<= width": bool(m <= target)}
        for n, m, s in zip(ns, means, ses)
    ]
    return [
        f"## Vertical averaging: AUC 0.8, FPR {at}, TPR width {target}, 95%",
        "",
        f"sample_size ({plan.computed}): n = {plan.n}, expected width {plan.expected_width:.5f} "
        f"(se {plan.width_se:.5f}), coverage {plan.coverage:.3f} (se {plan.coverage_se:.3f}); "
        f"brute force ({reps} independent test sets per n): straight-line crossing "
        f"n = {crossing:.1f}, one standard error of n about {sigma:.1f}.",
        "",
        table(rows),
        "",
    ]


def stability(seeds: int) -> list[str]:
    rows = []
    for crn in (True, False):
        ns = [
            sample_size(
                0.8,
                at=0.1,
                width=0.2,
                random_state=s,
                common_random_numbers=crn,
                computation="simulate",
            ).n
            for s in range(seeds)
        ]
        rows.append(
            {
                "common random numbers": crn,
                "n over seeds": " ".join(map(str, ns)),
                "mean": float(np.mean(ns)),
                "sd": float(np.std(ns, ddof=1)),
            }
        )
    law = sample_size(0.8, at=0.1, width=0.2).n
    return [
        "## Simulated vertical answer over seeds (AUC 0.8, FPR 0.1, width 0.2)",
        "",
        f"From the laws (no seed): n = {law}.",
        "",
        table(rows),
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer designs and replications")
    quick = parser.parse_args().quick
    widths = (0.1, 0.05) if quick else (0.1, 0.05, 0.02)
    rows = [timed(at=0.1, averaging="threshold", width=w) for w in widths]
    vertical_widths = (0.2, 0.1) if quick else (0.2, 0.1, 0.05)
    rows += [timed(at=0.1, width=w) for w in vertical_widths]
    rows += [timed(at=0.1, width=w, computation="simulate") for w in vertical_widths]
    lines = [f"# sample_size ({machine()})", "", table(rows), ""]
    lines += threshold_brute_force(5000 if quick else 50_000)
    lines += vertical_brute_force(300 if quick else 2000, 8 if quick else 2)
    lines += stability(4 if quick else 10)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
