"""Bootstrap oracles shared by the test modules: every resample with exact weights, and the
Monte Carlo agreement check."""

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


def assert_mc_agrees(sample, mean: float, var: float, rel_var: float = 0.0) -> None:
    """Monte Carlo mean within 4 standard errors of ``mean``; variance within 4 standard errors
    (plus ``rel_var * var`` for an approximate ``var``)."""
    b = sample.size
    m = sample.mean()
    s2 = sample.var(ddof=1)
    m4 = float(((sample - m) ** 4).mean())
    se_mean = math.sqrt(s2 / b)
    se_var = math.sqrt(max(m4 - s2**2, 0.0) / b)
    assert abs(m - mean) <= 4 * se_mean, (m, mean, se_mean)
    assert abs(s2 - var) <= 4 * se_var + rel_var * var, (s2, var, se_var)
