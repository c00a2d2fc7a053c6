"""The exact joint law of two vertical-averaging thresholds by the Lancaster expansion
(rocsim.core.joint_thresholds.lancaster_below) and the exact paired vertical moments built on it.

Oracles: (a) the eigenvectors of the binomial law's Jacobi matrix from LAPACK
(``scipy.linalg.eigh_tridiagonal``) for the Krawtchouk columns; (b) the exact small-count
tables (``small_count_table``, matrix products over Fisher's noncentral weights, an independent
derivation) and the trinomial sum written out directly for ``Pr{N_A <= u, N_B <= u}``;
(c) seeded Monte Carlo bootstraps of ``TPR1 - TPR2`` on paired binormal data (n = 200 per
class, the exact algorithm; n = 1000, the hybrid, ``slow``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from enumeration import assert_mc_agrees
from scipy import linalg, special
from test_paired_oracle import monte_carlo_dtpr, paired_binormal

from rocsim import vertical_difference
from rocsim.core.joint_thresholds import (
    _krawtchouk_block,
    _open_ranges,
    lancaster_below,
    small_count_table,
)
from rocsim.core.paired_vertical import EXACT_LIMIT, joint_threshold_law


def lapack_columns(n: int, a: int, counts: np.ndarray) -> np.ndarray:
    """Rows ``x`` in ``counts`` of the eigenvectors of the Jacobi matrix of Bin(n - 1, a/n)."""
    p, k = a / n, np.arange(n)
    diagonal = k * (1 - 2 * p) + (n - 1) * p
    off = np.sqrt(k[1:] * (n - k[1:]) * p * (1 - p))
    values, vectors = linalg.eigh_tridiagonal(diagonal, off)
    np.testing.assert_allclose(values, np.arange(n), atol=1e-9)  # the support points
    return vectors[:, counts].T


@pytest.mark.parametrize("n", [2, 3, 7, 40, 100, 150])
def test_krawtchouk_columns_are_the_jacobi_eigenvectors(n):
    lo, hi = _open_ranges(n)
    for a in range(1, n):
        counts = np.arange(lo[a], hi[a] + 1)
        if counts.size == 0:
            continue
        mine = _krawtchouk_block(n, a / n, counts)
        lapack = lapack_columns(n, a, counts)
        sign = np.sign(np.sum(mine * lapack, axis=1))[:, None]  # each column up to its sign
        np.testing.assert_allclose(mine, sign * lapack, rtol=0, atol=5e-13)
        np.testing.assert_allclose(np.sum(mine**2, axis=1), 1.0, rtol=0, atol=1e-12)
        # first row: sqrt(Bin(x; n - 1, p)), up to the column's sign
        weight = special.binom(n - 1, counts) * (a / n) ** counts * (1 - a / n) ** (n - 1 - counts)
        np.testing.assert_allclose(np.abs(mine[:, 0]), np.sqrt(weight), rtol=1e-10, atol=1e-15)


def trinomial_below(n: int, u: int, a: int, b: int, c: int) -> float:
    """``Pr{X1 + X3 <= u, X2 + X3 <= u}`` for the cell counts of n draws over A - B, B - A,
    A & B and the rest, summed term by term with exact integers."""
    total = 0
    for x3 in range(u + 1):
        for x1 in range(u - x3 + 1):
            for x2 in range(u - x3 + 1):
                rest = n - x1 - x2 - x3
                if rest < 0:
                    continue
                ways = math.factorial(n) // (
                    math.factorial(x1)
                    * math.factorial(x2)
                    * math.factorial(x3)
                    * math.factorial(rest)
                )
                total += ways * (a - c) ** x1 * (b - c) ** x2 * c**x3 * (n - a - b + c) ** rest
    return total / n**n


def open_cases(n: int, rng, count: int):
    """Random ``(u, a, b, c)`` with both marginals open, and every extreme overlap."""
    lo, hi = _open_ranges(n)
    cases = []
    while len(cases) < count:
        a, b = rng.integers(1, n, 2)
        u = (
            rng.integers(max(lo[a], lo[b]), min(hi[a], hi[b]) + 1)
            if max(lo[a], lo[b]) <= min(hi[a], hi[b])
            else None
        )
        if u is None:
            continue
        c_lo, c_hi = max(0, a + b - n), min(a, b)
        for c in {c_lo, c_hi, int(rng.integers(c_lo, c_hi + 1))}:
            cases.append((int(u), int(a), int(b), c))
    return np.array(cases).T


@pytest.mark.parametrize("n", [2, 3, 5, 6])
def test_lancaster_equals_the_trinomial_sum_on_tiny_n(n):
    cases = [
        (u, a, b, c)
        for a in range(1, n)
        for b in range(1, n)
        for c in range(max(0, a + b - n), min(a, b) + 1)
        for u in range(n - 1)
    ]
    u, a, b, c = np.array(cases).T
    want = [trinomial_below(n, *case) for case in cases]
    np.testing.assert_allclose(lancaster_below(n, u, a, b, c), want, rtol=0, atol=1e-14)


@pytest.mark.parametrize("n", [12, 40, 61, 100, 150])
def test_lancaster_equals_the_exact_small_count_tables(n):
    u, a, b, c = open_cases(n, np.random.default_rng(n), 60)
    size = -(-n // 2)
    want = np.empty(u.size)
    for i in range(u.size):
        if u[i] < size:
            want[i] = small_count_table(n, a[i], b[i], c[i], size)[u[i]]
        else:  # through the complements, as the tables do: Pr{N_A' <= n - 1 - u, ...}
            both_above = small_count_table(n, n - a[i], n - b[i], n - a[i] - b[i] + c[i], size)
            below_a, below_b = special.bdtr(u[i], n, a[i] / n), special.bdtr(u[i], n, b[i] / n)
            want[i] = below_a + below_b - 1 + both_above[n - 1 - u[i]]
    np.testing.assert_allclose(lancaster_below(n, u, a, b, c), want, rtol=0, atol=2e-13)


def test_lancaster_at_equal_and_complementary_sets():
    n, u = 50, np.arange(10, 40)
    a = np.full(u.size, 25)
    # A = B: the joint law is the marginal
    same = lancaster_below(n, u, a, a, a)
    np.testing.assert_allclose(same, special.bdtr(u, n, 0.5), rtol=0, atol=1e-13)
    # B the complement of A: N_B = n - N_A, so both <= u only when n - u <= N_A <= u
    apart = lancaster_below(n, u, a, a, np.zeros(u.size, dtype=int))
    want = np.clip(special.bdtr(u, n, 0.5) - special.bdtr(n - u - 1, n, 0.5), 0, 1)
    np.testing.assert_allclose(apart, want, rtol=0, atol=1e-13)


def test_each_value_depends_on_its_own_pair_only():
    n = 80
    u, a, b, c = open_cases(n, np.random.default_rng(3), 200)
    together = lancaster_below(n, u, a, b, c)
    alone = np.array([lancaster_below(n, *case)[0] for case in zip(u, a, b, c)])
    reversed_order = lancaster_below(n, u[::-1], a[::-1], b[::-1], c[::-1])[::-1]
    assert np.array_equal(together, alone)
    assert np.array_equal(together, reversed_order)


def test_auto_is_exact_up_to_the_limit():
    rng = np.random.default_rng(4)
    for n, want in [(EXACT_LIMIT, "exact"), (EXACT_LIMIT + 1, "hybrid")]:
        pos, neg = rng.normal(1, 1, (2, 8)), rng.normal(0, 1, (2, n))
        assert vertical_difference(pos[0], pos[1], neg[0], neg[1], [n // 2]).algorithm == want


MC_RANKS_200 = [4, 20, 60, 100, 140, 180, 196]


@pytest.mark.parametrize("rho", [0.3, 0.9, 0.99])
def test_exact_vertical_difference_agrees_with_monte_carlo_at_n_200(rho):
    data = paired_binormal(200, rho, 0.3, seed=int(rho * 100))
    law = vertical_difference(*data, MC_RANKS_200)
    assert law.algorithm == "exact"
    sample = monte_carlo_dtpr(*data, MC_RANKS_200, 20_000, seed=5)
    for i in range(len(MC_RANKS_200)):
        assert_mc_agrees(sample[i], law.mean[i], law.var[i])


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.3, 0.9, 0.99])
@pytest.mark.parametrize("n", [200, 1000])
def test_vertical_difference_agrees_with_a_large_monte_carlo(n, rho):
    # B = 10^5: the exact algorithm at n = 200, the hybrid (copula) at n = 1000
    data = paired_binormal(n, rho, 0.3, seed=int(rho * 100) + n)
    ranks = list(np.unique(np.round(np.linspace(0.02, 0.98, 9) * n).astype(int)))
    law = vertical_difference(*data, ranks, algorithm="exact" if n <= 200 else "hybrid")
    sample = monte_carlo_dtpr(*data, ranks, 100_000, seed=6)
    for i in range(len(ranks)):
        assert_mc_agrees(sample[i], law.mean[i], law.var[i])


@pytest.mark.parametrize(
    ("n", "rho", "rounded"),
    [
        (2, 0.5, False),
        (3, 0.9, False),
        (7, 0.6, True),
        (40, -0.5, False),
        (100, 0.9, False),
        (100, 0.99, False),
        (100, 1.0, False),
        (150, 0.3, True),
    ],
)
def test_exact_moments_are_the_pairs_values_summed_in_order(n, rho, rounded):
    """The exact moments sum four pairs of a row at a time (vectorized): every value is the
    per-pair one (lancaster_below's) and the sums are in row order, to the last bit."""
    data = [3.0 * v for v in paired_binormal(n, rho, 0.5, seed=n + int(10 * rho))]
    if rounded:  # ties
        data = [np.round(v) for v in data]
    law, (weight_a, weight_b), (pa, pb), _ = joint_threshold_law(
        *data, np.arange(1, n), "lower", exact=True
    )
    product, means = law.moments(weight_a, weight_b, (pa, pb))
    below_a, below_b, sure_a, sure_b = law.below_a, law.below_b, law.sure_a, law.sure_b
    want = (sure_a @ weight_a) * (below_b @ weight_b) + ((below_a * law.open_a) @ weight_a) * (
        sure_b @ weight_b
    )
    diagonal = np.array(law._diagonal(slice(None), pa, pb), order="C")  # as moments' rows
    for k in range(law.u.size):
        rows, cols = np.flatnonzero(law.open_a[k]), np.flatnonzero(law.open_b[k])
        total = 0.0
        for ia in rows:
            values = law.values(np.full(cols.size, k), np.full(cols.size, ia), cols)
            for ib, value in zip(cols, values):
                total += float(weight_a[ia]) * float(weight_b[ib]) * float(value)
        want[k] += total
        for i in range(pa.size):
            if law.open_a[k, pa[i]] and law.open_b[k, pb[i]]:
                diagonal[k, i] = law.values(np.array([k]), pa[i : i + 1], pb[i : i + 1])[0]
    assert np.array_equal(product, want)
    assert np.array_equal(means, diagonal.mean(axis=1))
