"""Benchmark: the two ways of counting scores at or above thresholds, in one run.

``sort``: sort the scores (radix from 2048 scores on) and look each threshold up in them.
``place``: place every score among the sorted thresholds (one bisection per score) and
accumulate a histogram. :func:`rocsim.core.counting.count_at_or_above` places from
``_PLACE_MIN`` on and sorts below; both give the same integers (checked here too).
Writes ``benchmarks/results_counting.md``.

Usage: ``python benchmarks/bench_counting.py``
"""

from __future__ import annotations

import numpy as np
from _common import best_of, machine, table, write

from rocsim.core.counting import _count_below, _count_by_placing, sorted_scores

SIZES = (100, 1_000, 10_000, 100_000, 1_000_000)
THRESHOLDS = (10, 99, 999)


def by_sorting(scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """The scores sorted, each threshold looked up in them."""
    return scores.size - _count_below(sorted_scores(scores), thresholds)


def main() -> None:
    rng = np.random.default_rng(20091)
    rows = []
    for n in SIZES:
        scores = rng.normal(size=n)
        for h in THRESHOLDS:
            thresholds = rng.normal(size=h)
            counts = by_sorting(scores, thresholds), _count_by_placing(scores, thresholds)
            same = np.array_equal(*counts)
            budget = 0.2
            sort = best_of(lambda s=scores, t=thresholds: by_sorting(s, t), budget=budget)
            place = best_of(lambda s=scores, t=thresholds: _count_by_placing(s, t), budget=budget)
            rows.append(
                {
                    "scores": n,
                    "thresholds": h,
                    "sort (us)": 1e6 * sort,
                    "place (us)": 1e6 * place,
                    "place / sort": place / sort,
                    "same counts": same,
                }
            )
    write(
        "results_counting.md",
        [
            "# Counting scores at or above thresholds",
            "",
            f"Machine: {machine()}. Best of at least 5 calls (0.2 s per case).",
            "",
            table(rows),
            "",
        ],
    )


if __name__ == "__main__":
    main()
