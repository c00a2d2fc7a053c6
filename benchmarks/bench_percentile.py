"""Benchmark: the exact percentile interval of vertical averaging against a vectorised Monte
Carlo percentile bootstrap, with a check that the exact bounds are the quantiles of the dense
exact pmf. Prints a markdown table; nothing is written.

Binormal scores (mu+ = 1, mu- = 0, unit variances), n per class, the 99 FPRs r/n- nearest to
0.01..0.99, level 0.95. All times come from this one run: the exact interval is the best of
5 warm calls of ``rocsim.core.vertical_ci(..., method="percentile")`` (rank weights cached, as in a
simulation), each Monte Carlo bootstrap (``bench_vertical.mc_percentile``) one run. "dense
check": the exact bounds equal, bit for bit, the equal-tailed quantiles of the dense pmf
``law.pmf`` (cumulated, with the same slack), where that pmf is affordable (n <= 10^4).

Usage: ``python benchmarks/bench_percentile.py [--skip-large]`` (``--skip-large``: no
n = 10^5 row; that row skips B = 20000 when B = 2000 took over 6 s).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import best_of, machine, table
from bench_vertical import GRID, LEVEL, data, mc_percentile

import rocsim
from rocsim.core.formulas import QUANTILE_SLACK

SIZES = (100, 1000, 10_000)
LARGE = 100_000
DENSE_LIMIT = 10_000
#: B = 20000 is skipped where B = 2000 took longer than this (seconds).
MC_BUDGET = 6.0


def dense_bounds(law) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed quantiles of the dense exact pmf (rows of ``law.pmf``), with the slack of
    :func:`rocsim.core.formulas.equal_tailed`."""
    tail = (1 - LEVEL) / 2
    cdf = np.cumsum(law.pmf, axis=1)
    low = np.argmax(cdf >= tail - QUANTILE_SLACK, axis=1)
    high = np.argmax(cdf >= 1 - tail - QUANTILE_SLACK, axis=1)
    return low / law.m_pos, high / law.m_pos


def bench(n: int, rng: np.random.Generator) -> dict:
    pos, neg = data(n, rng)
    r = rocsim.core.fpr_ranks(GRID, n)

    def exact():
        return rocsim.core.vertical_ci(pos, neg, r, confidence_level=LEVEL, method="percentile")

    ci = exact()  # warm: rank weights cached
    t_exact = best_of(exact)
    row = {"n per class": n, "exact percentile (ms)": 1e3 * t_exact}
    for b in (2000, 20_000):
        if b > 2000 and row["MC B=2000 (ms)"] > 1e3 * MC_BUDGET:
            continue
        start = time.perf_counter()
        low, high = mc_percentile(pos, neg, r, b, rng)
        t_mc = time.perf_counter() - start
        diff = max(np.abs(low - ci.low).max(), np.abs(high - ci.high).max())
        row |= {
            f"MC B={b} (ms)": 1e3 * t_mc,
            f"MC B={b} / exact": t_mc / t_exact,
            f"max diff MC B={b}": float(diff),
        }
    if n <= DENSE_LIMIT:
        low, high = dense_bounds(rocsim.core.vertical_distribution(pos, neg, r))
        same = np.array_equal(low, ci.low) and np.array_equal(high, ci.high)
        row["dense check"] = "identical" if same else "DIFFERENT"
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(2009)
    start = time.perf_counter()
    sizes = SIZES if args.skip_large else (*SIZES, LARGE)
    rows = [bench(n, rng) for n in sizes]
    print(
        "\n".join(
            [
                "# Exact percentile interval of vertical averaging vs Monte Carlo",
                "",
                f"Machine: {machine()}; 99 FPRs, level {LEVEL}; exact: best of 5 warm calls; "
                "Monte Carlo: one run each.",
                "",
                table(rows),
                "",
                f"Benchmark wall time: {time.perf_counter() - start:.0f} s",
            ]
        )
    )


if __name__ == "__main__":
    main()
