"""Benchmark: one band for the whole true curve, against rocci and a Monte Carlo bootstrap, in
one run. Writes ``benchmarks/results_bands.md``.

1. For ``n = 10^3, 10^4, 10^5`` per class (binormal, N(1, 1) positives, N(0, 1) negatives), 19
   FPRs (0.05..0.95), level 0.95, the time of one band (each the least of repeated warm runs,
   more while they took under ``BUDGET`` s):

   - rocsim's ``roc_ci(averaging="vertical", at=fprs, band="simultaneous")``;
   - rocsim's ``compare_roc(..., band="simultaneous")`` of two classifiers scored on the same
     instances (correlation 0.6 within each class);
   - rocci's ``roc_band(y, s, grid_size=21)`` (its envelope band on the grid 0, 0.05, ..., 1,
     the same 19 FPRs and the two pinned ends; its default 2000 resamples), on every core
     (its default) and on one thread;
   - a Monte Carlo sup-t band: ``B = 2000`` stratified resamples of the whole curve
     (vectorised numpy, :func:`rocsim.core.resampled_curves.paired_vertical_tprs`) and the
     quantile of their largest standardised deviation.

   and the ratios rocsim / rocci and Monte Carlo / rocsim.
2. ``10^6`` rows (``5 x 10^5`` per class): ``roc_ci(band="simultaneous")`` at 19 FPRs and at
   its default 99 FPRs, each in a new Python process: the call's wall time, the process's and
   its peak resident memory (``VmHWM`` of ``/proc/self/status``: ``getrusage`` would report
   the forking benchmark's own peak).

rocci is an optional dependency (``pip install rocci``); without it its columns are left out.

Usage: ``python benchmarks/bench_bands.py [--quick]`` (``--quick``: ``n = 10^3`` only and no
10^6-row run).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time

import numpy as np
from _common import best_of, machine, table, write

import rocsim
from rocsim.core.resampled_curves import paired_vertical_tprs, sup_t_critical_value
from rocsim.core.vertical import vertical_distribution

#: Warm runs repeat while their times add up to less than this (seconds).
BUDGET = 1.0
B = 2000
FPRS = np.linspace(0.05, 0.95, 19)
LEVEL = 0.95


def data(n: int, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels and two classifiers' scores of ``n`` positives and ``n`` negatives."""
    scores = rng.multivariate_normal([0.0, 0.0], [[1.0, 0.6], [0.6, 1.0]], size=2 * n)
    scores[:n] += 1.0
    return np.r_[np.ones(n), np.zeros(n)], scores[:, 0], scores[:, 1]


def monte_carlo_band(y, s, rng) -> float:
    """A sup-t band from ``B`` stratified resamples: resample, read the curves, calibrate."""
    pos, neg = s[y == 1], s[y == 0]
    ranks = np.rint(FPRS * neg.size).astype(np.int64)
    (curves,) = paired_vertical_tprs([(pos, neg)], ranks, "lower", B, rng)
    mean, sd = curves.mean(axis=0), curves.std(axis=0)
    return sup_t_critical_value(curves, mean, sd, LEVEL)


def timing_row(n: int, rng, with_rocci: bool) -> dict:
    y, s1, s2 = data(n, rng)
    roc = best_of(
        lambda: rocsim.roc_ci(y, s1, averaging="vertical", at=FPRS, band="simultaneous"),
        repeat=3,
        budget=BUDGET,
    )
    compare = best_of(
        lambda: rocsim.compare_roc(y, s1, s2, averaging="vertical", at=FPRS, band="simultaneous"),
        repeat=3,
        budget=BUDGET,
    )
    start = time.perf_counter()
    monte_carlo_band(y, s1, rng)
    mc = time.perf_counter() - start
    row = {
        "n per class": n,
        "roc_ci simultaneous (s)": roc,
        "compare_roc simultaneous (s)": compare,
    }
    if with_rocci:
        import rocci

        for label, threads in (("rocci (s)", None), ("rocci 1 thread (s)", 1)):
            row[label] = best_of(
                lambda t=threads: rocci.roc_band(y, s1, grid_size=21, random_state=0, n_threads=t),
                repeat=3,
                budget=BUDGET,
            )
        row["roc_ci / rocci"] = roc / row["rocci (s)"]
        row["compare_roc / rocci"] = compare / row["rocci (s)"]
    row[f"MC B={B} (s)"] = mc
    row["MC / roc_ci"] = mc / roc
    return row


#: The 10^6-row run, in a new process: data, one band, the call's time and peak memory.
LARGE = """
import json, sys, time
import numpy as np
import rocsim
n = 500_000
rng = np.random.default_rng(20261129)
y = np.r_[np.ones(n), np.zeros(n)]
s = np.r_[rng.normal(1.0, 1.0, n), rng.normal(0.0, 1.0, n)]
at = None if sys.argv[1] == "default" else np.linspace(0.05, 0.95, 19)
start = time.perf_counter()
band = rocsim.roc_ci(y, s, averaging="vertical", at=at, band="simultaneous")
call = time.perf_counter() - start
# this process's own high-water mark (getrusage's ru_maxrss would keep the forking parent's)
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024
print(json.dumps({"call": call, "peak": peak, "points": int(band.tpr.size),
                  "calibration": band.calibration}))
"""


def large_row(points: str) -> dict:
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", LARGE, points], check=True, capture_output=True, text=True
    )
    process = time.perf_counter() - start
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "rows": 10**6,
        "FPRs": got["points"],
        "calibration": got["calibration"],
        "roc_ci simultaneous (s)": got["call"],
        "whole process (s)": process,
        "peak memory (MiB)": got["peak"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with_rocci = importlib.util.find_spec("rocci") is not None
    rng = np.random.default_rng(20261129)
    # warm the caches every call shares (the copula's normal points, the rank weights)
    y, s1, _ = data(200, rng)
    rocsim.roc_ci(y, s1, averaging="vertical", at=FPRS, band="simultaneous")
    vertical_distribution(s1[y == 1], s1[y == 0], [10])
    sizes = [1000] if args.quick else [1000, 10_000, 100_000]
    rows = [timing_row(n, rng, with_rocci) for n in sizes]
    large = [] if args.quick else [large_row("19"), large_row("default")]
    peer = "rocci " + package_version("rocci") if with_rocci else "rocci not installed"
    lines = [
        "# One band for the whole true curve: rocsim, rocci and a Monte Carlo bootstrap",
        "",
        f"Machine: {machine()}; {peer}. Binormal data, N(1, 1) positives, N(0, 1) negatives;",
        f"19 FPRs 0.05..0.95; level {LEVEL}. Warm calls, the least of repeated runs.",
        "",
        table(rows),
        "",
    ]
    if large:
        lines += ["## 10^6 rows in a new process", "", table(large), ""]
    write("results_bands.md", lines)


def package_version(package: str) -> str:
    from importlib import metadata

    return metadata.version(package)


if __name__ == "__main__":
    main()
