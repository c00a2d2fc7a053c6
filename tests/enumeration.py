"""Brute-force bootstrap oracles shared by the test modules: every resample, exact weights."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import cache


def compositions(total: int, parts: int):
    """Every vector of ``parts`` non-negative integers summing to ``total``."""
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1, *bars, total + parts - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


@cache
def multinomial_law(n: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """All resamples of ``n`` items drawn uniformly with replacement: (counts, probability)."""
    out = []
    for counts in compositions(n, n):
        coef = math.factorial(n)
        for c in counts:
            coef //= math.factorial(c)
        out.append((counts, Fraction(coef, n**n)))
    assert sum(p for _, p in out) == 1
    return tuple(out)
