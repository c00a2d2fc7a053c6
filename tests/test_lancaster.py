"""The exact joint law of two vertical-averaging thresholds by the Lancaster expansion
(rocsim.core.joint_thresholds.lancaster_below) and the exact paired vertical moments built on it.

Oracles: (a) the eigenvectors of the binomial law's Jacobi matrix from LAPACK
(``scipy.linalg.eigh_tridiagonal``) for the whole Krawtchouk vectors, which in turn check the
prefixes that the compiled pass computes many at once; (b) the exact small-count tables
(``small_count_table`` of tests/small_count.py, matrix products over Fisher's noncentral weights,
an independent derivation) and the trinomial sum written out directly for
``Pr{N_A <= u, N_B <= u}``; (c) the block kernel of ``JointThresholdLaw.moments`` against the
same moments summed pair by pair from ``lancaster_below``; (d) ``scipy.special.bdtr`` on the
whole grid for the windowed binomial marginals at large n; (e) seeded Monte Carlo bootstraps of
``TPR1 - TPR2`` on paired binormal data (n = 200 per class; n = 200, 1000 and 20000, ``slow``).
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal

import numpy as np
import pytest
from enumeration import assert_mc_agrees
from scipy import linalg, special, stats
from small_count import small_count_table
from test_paired_oracle import monte_carlo_dtpr, paired_binormal

from rocsim.core import fpr_ranks, vertical_difference, vertical_distribution
from rocsim.core import joint_thresholds as jt
from rocsim.core.joint_thresholds import lancaster_below
from rocsim.core.paired_vertical import joint_threshold_law

#: A marginal ``Pr{Bin(n, a/n) <= u}`` is open (needs the joint law) strictly between these; a
#: little looser than the kernel's own test, so that no pair it treats as open is left out here.
OPEN_LOW, OPEN_HIGH = 1e-18, 1 - 1e-18


def open_grid(n: int) -> np.ndarray:
    """``is_open[a, u]`` for ``a = 0 .. n``, ``u = 0 .. n - 1``: the marginal is open."""
    below = special.bdtr(np.arange(n)[None, :], n, np.arange(n + 1)[:, None] / n)
    return (below > OPEN_LOW) & (below < OPEN_HIGH)


def lapack_columns(n: int, a: int, counts: np.ndarray) -> np.ndarray:
    """Rows ``x`` in ``counts`` of the eigenvectors of the Jacobi matrix of Bin(n - 1, a/n)."""
    p, k = a / n, np.arange(n)
    diagonal = k * (1 - 2 * p) + (n - 1) * p
    off = np.sqrt(k[1:] * (n - k[1:]) * p * (1 - p))
    values, vectors = linalg.eigh_tridiagonal(diagonal, off)
    np.testing.assert_allclose(values, np.arange(n), atol=1e-9)  # the support points
    return vectors[:, counts].T


def exact_first(n: int, a: int, x: int) -> float:
    """``sqrt(Bin(x; n - 1, a/n))`` from the pmf in exact integers, its root taken to 40
    digits: far in the tails the pmf itself is below the smallest double (and scipy's pmf
    inaccurate), its root is not."""
    big_n = n - 1
    with decimal.localcontext(prec=40):
        pmf = Decimal(math.comb(big_n, x) * a**x * (n - a) ** (big_n - x)) / Decimal(n**big_n)
        return float(pmf.sqrt())


def whole(n: int, p: float, x: int, first: float) -> np.ndarray:
    """All ``n`` values ``v_k(x; p)`` by :func:`rocsim.core.joint_thresholds._krawtchouk_whole`."""
    v, diag, off = np.empty(n), np.empty(n + 1), np.empty(n + 1)
    jt._krawtchouk_whole(n, p, x, first, v, diag, off)
    return v


@pytest.mark.parametrize("n", [2, 3, 7, 40, 100, 150])
def test_whole_krawtchouk_vectors_are_the_jacobi_eigenvectors(n):
    is_open = open_grid(n)
    for a in range(1, n):
        counts = np.flatnonzero(is_open[a])
        if counts.size == 0:
            continue
        p = a / n
        first = np.array([exact_first(n, a, int(x)) for x in counts])
        np.testing.assert_allclose(jt._first_value(n, counts, p), first, rtol=1e-12, atol=0)
        mine = np.array([whole(n, p, int(x), f) for x, f in zip(counts, first)])
        lapack = lapack_columns(n, a, counts)
        sign = np.sign(np.sum(mine * lapack, axis=1))[:, None]  # LAPACK's sign is arbitrary
        np.testing.assert_allclose(mine, sign * lapack, rtol=0, atol=5e-13, err_msg=f"a={a}")
        np.testing.assert_allclose(np.sum(mine**2, axis=1), 1.0, rtol=0, atol=1e-12)
        assert np.array_equal(mine[:, 0], first)  # the given v_0 is kept as is


def prefix_probabilities(n: int, rng) -> np.ndarray:
    """The grid values ``a/n`` next to both ends and some at random, and values of ``p`` off the
    grid that are closer still to 0 and 1 (where the spread ``sqrt(p q)`` is tiny)."""
    grid = np.unique(np.r_[1, 2, n - 2, n - 1, rng.integers(1, n, 12)].clip(1, n - 1)) / n
    return np.r_[grid, 1e-9, 1e-4, 0.5, 1 - 1e-4, 1 - 1e-9]


@pytest.mark.parametrize("n", [2, 3, 7, 40, 100, 1000, 10_000])
def test_krawtchouk_prefixes_are_the_whole_vectors_cut_short(n):
    # the compiled pass runs the forward recurrence across many p at once and hands a column
    # to the whole computation only where the forward one would reach a decaying range; each
    # column must be the first `length` values of the whole vector either way. The recurrence
    # coefficients k (1 - 2p) + (n - 1) p are of size n and rounded to n eps, which the two
    # (differently arranged) recurrences inherit: hence the tolerance grows with n beyond ~2000
    atol = max(1e-12, 2 * n * np.finfo(float).eps)
    rng = np.random.default_rng(n)
    p = prefix_probabilities(n, rng)
    root = jt._roots(n)
    # x at both ends (far in the tails of most p), in the middle and at random
    counts = np.unique(np.r_[0, 1, n // 2, n - 2, n - 1, rng.integers(0, n, 4)].clip(0, n - 1))
    for length in sorted({min(size, n) for size in (1, 2, 5, 60)}):
        scale = rng.uniform(0.5, 2.0, length)
        for x in counts:
            first = jt._first_value(n, np.full(p.size, x), p)
            out = np.empty((length, p.size))
            jt._krawtchouk_prefixes(n, int(x), p, first, length, scale, out, root)
            want = np.array([whole(n, pj, int(x), fj)[:length] for pj, fj in zip(p, first)]).T
            np.testing.assert_allclose(
                out, scale[:, None] * want, rtol=0, atol=atol, err_msg=f"x={x} length={length}"
            )


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
    is_open = open_grid(n)
    cases = []
    while len(cases) < count:
        a, b = rng.integers(1, n, 2)
        both = np.flatnonzero(is_open[a] & is_open[b])
        if both.size == 0:
            continue
        u = rng.choice(both)
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
        else:  # through the complements: Pr{N_A' <= n - 1 - u, N_B' <= n - 1 - u}
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


def test_auto_is_exact_beyond_the_former_limit():
    # the former hybrid took over from 501 negatives on
    rng = np.random.default_rng(4)
    for n in (501, 2000):
        pos, neg = rng.normal(1, 1, (2, 8)), rng.normal(0, 1, (2, n))
        assert vertical_difference(pos[0], pos[1], neg[0], neg[1], [n // 2]).algorithm == "exact"


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
    # B = 10^5, the exact algorithm at both sizes
    data = paired_binormal(n, rho, 0.3, seed=int(rho * 100) + n)
    ranks = list(np.unique(np.round(np.linspace(0.02, 0.98, 9) * n).astype(int)))
    law = vertical_difference(*data, ranks, algorithm="exact")
    assert law.algorithm == "exact"
    sample = monte_carlo_dtpr(*data, ranks, 100_000, seed=6)
    for i in range(len(ranks)):
        assert_mc_agrees(sample[i], law.mean[i], law.var[i])


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.3, 0.9, 0.99])
def test_exact_beyond_ten_thousand_agrees_with_monte_carlo(rho):
    # the practitioner API's former limit was 10^4 per class
    n = 20_000
    data = paired_binormal(n, rho, 0.3, seed=int(rho * 100) + 7)
    ranks = list(np.unique(np.round(np.linspace(0.02, 0.98, 7) * n).astype(int)))
    law = vertical_difference(*data, ranks)
    assert law.algorithm == "exact"
    sample = monte_carlo_dtpr(*data, ranks, 4000, seed=8, chunk=500)
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
        (600, 0.9, False),
        (600, 1.0, False),
        (2000, 0.99, False),
        (2000, 0.6, True),
    ],
)
def test_exact_moments_are_the_pairs_values_summed(n, rho, rounded):
    """The block kernel of ``moments`` and the elementwise ``lancaster_below`` (through
    ``law.values``) each sum the series to the degree their own bound needs, so they agree to
    rounding, not to the last bit: the moments are the per-pair values weighted and summed.

    The first moment is ``sum w_a w_b (L - F_A F_B)`` over the pairs with both marginals open
    (elsewhere ``L - F_A F_B`` is taken as 0). Here it is summed exactly rounded
    (``math.fsum``) from the values ``L``, each rounded to within ``u = 2^-53`` of itself
    (``L <= 1``): the two agree within ``u sum w_a w_b <= u`` and the two series' cuts, each
    within ``PAIR_SLACK * TOLERANCE`` a pair, hence ``1e-15``.
    """
    data = [3.0 * v for v in paired_binormal(n, rho, 0.5, seed=n + int(10 * rho))]
    if rounded:  # ties
        data = [np.round(v) for v in data]
    # every rank up to n = 150; beyond, a few (both ends and the middle) keep the pairwise
    # sums below quick
    ranks = np.arange(1, n) if n <= 150 else np.array([1, 2, n // 5, n // 2, n - 3, n - 1])
    law, (weight_a, weight_b), (pa, pb), _ = joint_threshold_law(*data, ranks, "lower")
    centred, means = law.moments(weight_a, weight_b, (pa, pb))
    want, want_means = np.empty(law.u.size), np.empty(law.u.size)
    diagonal = law._diagonal(slice(None), pa, pb)
    for k in range(law.u.size):
        ia, ib = np.nonzero(law.open_a[k][:, None] & law.open_b[k][None, :])
        values = law.values(np.full(ia.size, k), ia, ib)
        product = law.below_a[k, ia] * law.below_b[k, ib]
        want[k] = math.fsum(weight_a[ia] * weight_b[ib] * (values - product))
        # a sure: L = F_B; a open and b sure: L = F_A; both open: the series; else L = 0
        both = law.open_a[k, pa] & law.open_b[k, pb]
        diagonal[k, both] = law.values(np.full(both.sum(), k), pa[both], pb[both])
        want_means[k] = math.fsum(diagonal[k]) / pa.size
    np.testing.assert_allclose(centred, want, rtol=0, atol=1e-15)
    np.testing.assert_allclose(means, want_means, rtol=0, atol=1e-14)


@pytest.mark.parametrize("n", [100, 3000])
@pytest.mark.parametrize("side", ["lower", "upper"])
def test_a_classifier_against_itself_has_no_variance_at_any_rank(n, side):
    """``TPR1 - TPR2`` of a classifier against itself is 0 in every resample: the covariance
    must equal the single variance to its last digits, also at the highest FPRs, where that
    variance is tiny while ``E[q1 q2]`` and ``E[q1] E[q2]`` are both near 1. Summed apart and
    subtracted, those two carry rounding errors far larger than the variance at n = 3000;
    summed centred (``L - F_A F_B`` pair by pair) the error is the series' ``TOLERANCE``
    (absolute, twice: two covariance terms) and rounding relative to the variance itself."""
    pos, _, neg, _ = paired_binormal(n, 0.5, 0.5, seed=n)
    ranks = fpr_ranks(np.round(np.linspace(0.01, 0.99, 99), 12), n)
    same = vertical_difference(pos, pos, neg, neg, ranks, side=side)
    single = vertical_distribution(pos, neg, ranks, side=side)
    assert np.all(np.abs(same.var) <= 2 * 2 * jt.TOLERANCE + 1e-9 * single.var)


def test_moments_are_the_same_bits_on_any_number_of_threads():
    """The lanes take consecutive runs of ranks of about equal work; each rank's sums are the
    same whichever thread computes them, including a lane with no rank (one rank, every
    thread). OpenMP is told how many threads to start (threadpoolctl): two or three run side
    by side even on one core."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from rocsim.core import _lancaster

    if not any(pool["user_api"] == "openmp" for pool in threadpool_info()):
        pytest.skip("the kernels are built without OpenMP here: their lanes run in turn")
    data = paired_binormal(400, 0.9, 0.5, seed=4)
    for ranks in (np.arange(1, 400, 7), np.array([200])):
        law, weights, pairs, _ = joint_threshold_law(*data, ranks, "lower")
        results = {}
        for threads in (1, 2, 3):
            with threadpool_limits(limits=threads, user_api="openmp"):
                assert _lancaster.max_threads() == threads  # the limit reached the kernels
                results[threads] = law.moments(*weights, pairs)
        for threads in (2, 3):
            for one, many in zip(results[1], results[threads], strict=True):
                np.testing.assert_array_equal(one, many)


def _band(law, first_column, order, budget):
    """Every chunk of ``_band_rows`` over ``order`` (one lane): ``(ranks, r0, row_lo, row_hi,
    offsets, band)`` with the band's correlations from ``_band_correlations``."""
    rows = law.a.size
    row_lo, row_hi = np.empty(rows, dtype=np.int64), np.empty(rows, dtype=np.int64)
    slot, chunks = 0, []
    while slot < order.size:
        end, r0, r1 = jt._band_rows(law.runs, order, slot, order.size, budget, row_lo, row_hi)
        lo, hi = row_lo[: r1 - r0].copy(), row_hi[: r1 - r0].copy()
        offsets = np.concatenate([[0], np.cumsum(np.maximum(hi - lo, 0))])
        band = np.full(offsets[-1], np.nan)
        if r1 > r0:
            jt._band_correlations(law.n, law.a, law.b, first_column, r0, lo, hi, offsets, band)
        chunks.append((order[slot:end], r0, lo, hi, offsets, band))
        slot = end
    return chunks


@pytest.mark.parametrize("budget", [1, 5000, 1 << 21])
def test_band_correlations_are_the_formula_on_counted_overlaps(budget):
    """A lane's band covers every pair of each of its ranks' blocks, with the correlation
    ``(c/n - p_a p_b) / (s_a s_b)`` of the overlaps ``c`` counted apart, however many ranks
    share a band (``budget``: at most that many pairs, at least one rank)."""
    n = 300
    data = paired_binormal(n, 0.8, 0.5, seed=12)
    law, *_ = joint_threshold_law(*data, np.arange(1, n, 3), "lower")
    first_column = np.searchsorted(law.b, law.order1_rank2, side="right")
    order = np.argsort(law.u, kind="stable")
    c = jt.overlaps(law.order1_rank2, law.a, law.b)  # checked against brute force elsewhere
    pa, pb = law.a / n, law.b / n
    with np.errstate(divide="ignore", invalid="ignore"):
        want = (c / n - pa[:, None] * pb[None, :]) / np.sqrt(
            pa[:, None] * (1 - pa[:, None]) * pb[None, :] * (1 - pb[None, :])
        )
    chunks = _band(law, first_column, order, budget)
    assert sum(len(chunk[0]) for chunk in chunks) == order.size
    for ranks, r0, lo, hi, offsets, band in chunks:
        assert budget >= offsets[-1] or len(ranks) == 1
        for k in ranks:
            ia0, ia1, ib0, ib1 = law.runs[k]
            for ia in range(ia0, ia1):
                q = ia - r0
                assert lo[q] <= ib0 and ib1 <= hi[q]
                got = band[offsets[q] + ib0 - lo[q] : offsets[q] + ib1 - lo[q]]
                np.testing.assert_allclose(got, np.clip(want[ia, ib0:ib1], -1, 1), atol=1e-14)


def test_band_rows_cover_ranks_whose_rows_go_back_down():
    """The ranks of a lane are visited in increasing order, so their open rows only move up;
    should they not, the band still covers every block (the rows kept move up)."""
    runs = np.array([[5, 9, 2, 6], [3, 6, 1, 4], [0, 0, 0, 0], [7, 12, 5, 9]], dtype=np.int64)
    order = np.arange(4)
    row_lo, row_hi = np.empty(20, dtype=np.int64), np.empty(20, dtype=np.int64)
    end, r0, r1 = jt._band_rows(runs, order, 0, 4, 1 << 20, row_lo, row_hi)
    assert (end, r0, r1) == (4, 3, 12)
    for ia0, ia1, ib0, ib1 in runs:
        for ia in range(ia0, ia1):
            assert row_lo[ia - r0] <= ib0 and ib1 <= row_hi[ia - r0]
    covered = [max(row_hi[q] - row_lo[q], 0) for q in range(r1 - r0)]
    # rows 3, 4: [1, 4); 5: [1, 6); 6: [2, 6); 7, 8: [2, 9); 9 .. 11: [5, 9)
    assert covered == [3, 3, 5, 4, 7, 7, 4, 4, 4]


def test_moments_do_not_depend_on_the_band_or_the_order_of_the_ranks(monkeypatch):
    """Bit for bit the same sums with one band per rank as with one band for all, and with
    the ranks given in any order, repeated or not."""
    data = paired_binormal(500, 0.9, 0.5, seed=5)
    ranks = np.arange(1, 500, 6)
    law, weights, pairs, _ = joint_threshold_law(*data, ranks, "lower")
    shared = law.moments(*weights, pairs)
    monkeypatch.setattr(jt, "_BAND_NUMBERS", 1)
    alone = law.moments(*weights, pairs)
    shuffled = np.random.default_rng(5).permutation(np.r_[ranks, ranks[::5]])
    mixed, mixed_weights, mixed_pairs, _ = joint_threshold_law(*data, shuffled, "lower")
    got = mixed.moments(*mixed_weights, mixed_pairs)
    where = np.searchsorted(ranks, shuffled)
    for want, one, any_order in zip(shared, alone, got, strict=True):
        np.testing.assert_array_equal(one, want)
        np.testing.assert_array_equal(any_order, want[where])


def test_lane_bounds_split_the_work_into_consecutive_runs():
    work = np.array([5.0, 1, 1, 1, 1, 1, 0, 5])
    for lanes in (1, 2, 3, 8, 12):
        bounds = jt._lane_bounds(work, lanes)
        assert bounds.size == lanes + 1 and bounds[0] == 0 and bounds[-1] == work.size
        assert np.all(np.diff(bounds) >= 0)
    np.testing.assert_array_equal(jt._lane_bounds(work, 2), [0, 3, 8])  # 7 and 8 of 15
    np.testing.assert_array_equal(jt._lane_bounds(np.empty(0), 2), [0, 0, 0])


@pytest.mark.parametrize("n", [60, 1000, 5001, pytest.param(40_000, marks=pytest.mark.slow)])
def test_windowed_marginals_equal_the_whole_rows(n):
    # each row is computed in a window around u only, 0 or 1 outside it
    rng = np.random.default_rng(n)
    u = np.unique(np.r_[0, 1, 29, 30, rng.integers(0, n, 40), n - 31, n - 2])
    a = np.unique(np.r_[0, n, rng.integers(0, n + 1, 4000)])
    below = jt._binomial_below(n, u, a)
    want = special.bdtr(u[:, None], n, a[None, :] / n)
    np.testing.assert_allclose(below, want, rtol=0, atol=2e-16)
    for limit in (jt._NEGLIGIBLE, 1 - jt._NEGLIGIBLE):  # the same open and sure marginals
        assert np.array_equal(below > limit, want > limit)
    # the runs of sure and open values: a prefix of every grid, then the next values
    windows = jt._rank_rows(n, tuple(u.tolist()))
    sure, is_open = jt._sure(want), jt._open(want)
    assert np.array_equal(sure, a[None, :] < windows.sure_end[:, None])
    assert np.array_equal(sure | is_open, a[None, :] < windows.open_end[:, None])
    # the first Krawtchouk values of the same window: sqrt(Bin(u; n - 1, a/n)), where open
    k, j = np.nonzero(is_open)
    pick = rng.choice(k.size, 40, replace=False)  # exact integers: a few, as n is large
    got = windows.first[k[pick], a[j[pick]] - windows.start[k[pick]]]
    exact = [exact_first(n, int(a[j[t]]), int(u[k[t]])) for t in pick]
    np.testing.assert_allclose(got, exact, rtol=1e-12, atol=0)


def _degrees_by_scan(base, log_rho, log_head_b, log_count, n):
    m = 0
    while m < n and base + log_count[m] - (m + 1) * log_rho <= log_head_b:
        m += 1
    return m


def test_degrees_start_anywhere_and_end_where_the_scan_does():
    # _degrees starts its search near the answer; the left side of its test increases with m
    # even as rounded, so it ends where a scan from 0 does, for every kind of row
    rng = np.random.default_rng(5)
    n = 3000
    log_count = np.log(np.arange(1, n + 1))
    rows = [jt._row_base(rng.normal(0, 5), r, rng.uniform(0, 5)) for r in rng.uniform(0, 1, 300)]
    rows += [jt._row_base(1.0, rho, 0.0) for rho in (0.0, -0.2, 1.0, 1 - 1e-12, 1e-300)]
    for base, log_rho in rows:
        for log_head_b in (-np.inf, -800.0, -40.0, -1.0, 0.0, 3.0, 50.0):
            got = jt._degrees(base, log_rho, log_head_b, log_count, n)
            assert got == _degrees_by_scan(base, log_rho, log_head_b, log_count, n)


def test_first_values_where_the_pmf_is_below_the_doubles():
    # v_0 = sqrt(Bin(u; n - 1, p)) stays representable after the pmf itself underflows: there
    # it comes from the log-gammas (the pmf from Boost elsewhere)
    n, u = 700, np.array([3, 0, 5, 690, 1])
    a = np.array([600, 500, 550, 150, 450])
    got = jt._first_value(n, u, a / n)
    assert np.all(stats.binom.pmf(u, n - 1, a / n) < np.finfo(float).tiny)
    want = [exact_first(n, int(aa), int(uu)) for aa, uu in zip(a, u)]
    assert min(want) > 0
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("target", [1e-6, 1e-10, 1e-14])
def test_terms_left_out_are_within_the_bound(target):
    # the degrees of _row_base/_degrees leave out terms adding up to at most the tolerance
    # (times the slack): the tail of each series summed from the whole Krawtchouk vectors, for
    # pairs of every correlation up to nested sets (the tail bound is Cauchy-Schwarz on unit
    # vectors, with no factor 1 / (1 - |rho|))
    n = 120
    log_count = np.log(np.arange(1, n + 1))
    u, a, b, c = open_cases(n, np.random.default_rng(7), 120)
    log_slack = math.log(target / jt.TOLERANCE)
    cut_short = 0
    for uu, aa, bb, cc in zip(u, a, b, c):
        pa, pb = aa / n, bb / n
        sa, sb = math.sqrt(pa * (1 - pa)), math.sqrt(pb * (1 - pb))
        rho = (cc / n - pa * pb) / (sa * sb)
        va = whole(n, pa, uu, exact_first(n, int(aa), int(uu)))
        vb = whole(n, pb, uu, exact_first(n, int(bb), int(uu)))
        head_a, head_b = n * sa * va[0], sb * vb[0]
        base, log_rho = jt._row_base(math.log(head_a), abs(rho), log_slack)
        m = jt._degrees(base, log_rho, math.log(head_b), log_count, n)
        k = np.arange(m, n)
        tail = head_a * head_b * abs(np.sum(rho ** (k + 1) / (k + 1) * va[k] * vb[k]))
        assert tail <= target
        cut_short += m < n
    assert cut_short > 100  # most series are cut short, so the tails are not empty
