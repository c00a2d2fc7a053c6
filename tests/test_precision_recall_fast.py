"""The fast moments of precision under vertical averaging (rocsim.core.precision_recall) against
the dense pmf of FP they replace.

Oracle: ``_dense_moments``, the mean and variance summed over the dense pmf of FP
(``mixture_pmf``), and the quantiles of that pmf. The fast path must give the same mean and
variance (1e-12 relative, well above the bound it proves), the same score bounds (1e-12
relative) and the very same percentile bounds, on data sets with ties, tiny classes and
unequal class sizes; each of its branches (series, direct sums, second pass, dense fallback)
is forced once. Its pieces are checked on their own: the central moments against sums over the
binomial pmf, the moment bound against the absolute moments it bounds, each component's
``h`` and ``v`` against full sums within the error it reports.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rocsim.core import precision_recall as pr
from rocsim.core.formulas import score_on_moments
from rocsim.core.precision_recall import nearest_recall_ranks, pr_ci, pr_distribution

LEVEL = 0.9
#: Mean, variance and score bounds: this close to the dense pmf's, relatively.
RELATIVE = 1e-12


def binormal(n_pos, n_neg, seed, decimals=None, shift=1.0):
    rng = np.random.default_rng(seed)
    pos, neg = rng.normal(shift, 1, n_pos), rng.normal(0, 1, n_neg)
    if decimals is not None:  # ties, within and across the classes
        pos, neg = np.round(pos, decimals), np.round(neg, decimals)
    return pos, neg


def default_ranks(n_pos):
    return np.unique(nearest_recall_ranks(np.linspace(0.01, 0.99, 99), n_pos))


# (pos, neg, ranks): tiny, ties, unequal sizes, separable, inverted, heavy ties at the top
DATA = {
    "3x3": ([0.9, 0.6, 0.3], [0.8, 0.5, 0.1], [1, 2, 3]),
    "4x3-ties-across": ([0.5, 0.7, 0.2, 0.5], [0.5, 0.2, 0.9], [1, 2, 3, 4]),
    "3x3-all-tied-at-top": ([0.7, 0.7, 0.7], [0.7, 0.7, 0.1], [1, 2, 3]),
    "2x1": ([1.0, 0.0], [0.5], [1, 2]),
    "1x5": ([0.3], [0.1, 0.2, 0.4, 0.5, 0.6], [1]),
    "30x50": (*binormal(30, 50, 1), np.arange(1, 31)),
    "300x200-rounded": (*binormal(300, 200, 2, decimals=1), np.arange(1, 301, 7)),
    "1000x1000": (*binormal(1000, 1000, 3), default_ranks(1000)),
    "1000x1300-rounded": (*binormal(1000, 1300, 4, decimals=2), default_ranks(1000)),
    "2000x500": (*binormal(2000, 500, 5), default_ranks(2000)),
    "500x2000": (*binormal(500, 2000, 6), default_ranks(500)),
    "separable": (np.arange(40.0) + 100, np.arange(60.0), np.arange(1, 41, 3)),
    "inverted": (*binormal(400, 300, 7, shift=-1.5), default_ranks(400)),
    "half-tied": (np.r_[np.full(50, 2.0), np.arange(50.0)], np.arange(80.0) - 10, [1, 25, 50, 75]),
    "5000x5000": (*binormal(5000, 5000, 8), default_ranks(5000)[::6]),
}


def dense_law(law):
    """Mean and variance of precision from the dense pmf of FP."""
    return pr._dense_moments(law.r, law._q, law._w, law.m_neg)


@pytest.mark.parametrize("name", DATA)
def test_mean_variance_and_score_bounds_are_the_dense_pmfs(name):
    pos, neg, r = DATA[name]
    law = pr_distribution(pos, neg, r)
    mean, var = dense_law(law)
    np.testing.assert_allclose(law.mean, mean, rtol=RELATIVE, atol=0)
    np.testing.assert_allclose(law.var, var, rtol=RELATIVE, atol=1e-300)
    low, high = score_on_moments(mean, var, law.r / mean, LEVEL)
    ci = law.ci(LEVEL, "score")
    np.testing.assert_allclose(ci.low, np.clip(np.where(mean <= 0, 0, low), 0, 1), rtol=RELATIVE)
    np.testing.assert_allclose(ci.high, np.clip(np.where(mean >= 1, 1, high), 0, 1), rtol=RELATIVE)


@pytest.mark.parametrize("name", ["30x50", "300x200-rounded", "1000x1300-rounded", "inverted"])
def test_percentile_bounds_are_the_dense_pmfs_quantiles(name):
    pos, neg, r = DATA[name]
    ci = pr_ci(pos, neg, r, confidence_level=LEVEL, method="percentile")
    law = ci.law
    tail = (1 - LEVEL) / 2
    # precision ascending is FP descending: Pr{precision <= r/(r+j)} = Pr{FP >= j}
    cdf = np.cumsum(law.pmf[:, ::-1], axis=1)
    j_low = law.m_neg - np.argmax(cdf >= tail - 1e-12, axis=1)
    j_high = law.m_neg - np.argmax(cdf >= 1 - tail - 1e-12, axis=1)
    np.testing.assert_array_equal(ci.low, law.r / (law.r + j_low))
    np.testing.assert_array_equal(ci.high, law.r / (law.r + j_high))


def test_percentile_interval_does_not_compute_the_moments():
    pos, neg, r = DATA["1000x1000"]
    ci = pr_ci(pos, neg, r, method="percentile")
    assert "_moments" not in ci.law.__dict__
    mean, var = dense_law(ci.law)
    np.testing.assert_allclose(ci.mean, mean, rtol=RELATIVE)  # read from the law, on demand
    np.testing.assert_allclose(ci.var, var, rtol=RELATIVE)


@pytest.mark.parametrize("name", ["1000x1000", "5000x5000", "2000x500", "inverted"])
def test_the_moments_never_build_the_pmf(name, monkeypatch):
    """Where the bounds are met at the first pass (every data set here), neither the dense pmf
    nor the second pass is computed."""
    pos, neg, r = DATA[name]

    def refused(*args):
        raise AssertionError("the fast path built the dense pmf or took a second pass")

    monkeypatch.setattr(pr, "mixture_pmf", refused)
    monkeypatch.setattr(pr, "_dense_moments", refused)
    law = pr_distribution(pos, neg, r)
    real = pr._moments_to
    calls = []
    monkeypatch.setattr(pr, "_moments_to", lambda *a: calls.append(1) or real(*a))
    assert np.all(np.isfinite(law.mean)) and np.all(law.var >= 0) and calls == [1]


def test_repeated_ranks_take_the_rows_of_the_distinct_ones():
    pos, neg, _ = DATA["30x50"]
    law = pr_distribution(pos, neg, [5, 2, 5, 30, 2])
    once = pr_distribution(pos, neg, [2, 5, 30])
    np.testing.assert_array_equal(law.mean, once.mean[[1, 0, 1, 2, 0]])
    np.testing.assert_array_equal(law.var, once.var[[1, 0, 1, 2, 0]])


def law_inputs(name):
    pos, neg, r = DATA[name]
    law = pr_distribution(pos, neg, r)
    return law.r, law._q, law._w, law.m_neg, law.fp_mean, law.fp_var


@pytest.mark.parametrize(
    ("patch", "value"),
    [
        ("_ORDERS", (2,)),  # too few terms: nearly every component summed directly
        ("_ORDERS", (4, 60)),  # orders of the series far from the default ones
        ("_moment_guess", lambda r, fp_mean, fp_var: 1e6 * fp_var),  # guess too high: again
        ("_TARGET_FLOOR", 1e-3),  # targets never reached: the dense fallback
        ("_TABLE_LIMIT", 0),  # moments and bounds at the counts met, not from the m- tables
    ],
    ids=["direct-sums", "other-orders", "second-pass", "dense-fallback", "no-tables"],
)
def test_every_branch_gives_the_dense_pmfs_moments(patch, value, monkeypatch):
    inputs = law_inputs("300x200-rounded")
    mean, var = pr._dense_moments(*inputs[:4])
    monkeypatch.setattr(pr, patch, value)
    got_mean, got_var = pr._fast_moments(*inputs)
    np.testing.assert_allclose(got_mean, mean, rtol=RELATIVE)
    np.testing.assert_allclose(got_var, var, rtol=RELATIVE)


def test_the_bound_holds_on_the_dense_pmfs_moments():
    """The error bound the fast path proves (before its check) is met by the difference to
    the dense pmf's moments, up to rounding."""
    r, q, w, m, fp_mean, fp_var = law_inputs("1000x1300-rounded")
    k0 = np.clip(np.rint(fp_mean), 0, m)
    mean, var, bound = pr._moments_to(
        r.astype(float), q, w, m, k0, pr._moment_guess(r, fp_mean, fp_var)
    )
    dense_mean, dense_var = pr._dense_moments(r, q, w, m)
    assert np.all(bound <= pr._TARGET * var)
    assert np.all(np.abs(var - dense_var) <= bound + 1e-13 * dense_var)
    np.testing.assert_allclose(mean, dense_mean, rtol=RELATIVE)


@pytest.mark.parametrize(
    ("m", "k"), [(7, 3), (1000, 1), (1000, 37), (1000, 500), (1000, 999), (200_000, 61_000)]
)
def test_central_moments_are_the_sums_over_the_pmf(m, k):
    j = np.arange(m + 1.0)
    pmf = stats.binom.pmf(j, m, k / m)
    top = 20
    got = pr._central_moments(np.array([k]), m, np.array([top]))[0]
    for p in range(top + 1):
        want = np.sum(pmf * (j - k) ** p)
        scale = np.sum(pmf * np.abs(j - k) ** p)  # the sum's own rounding is relative to this
        assert abs(got[p] - want) <= 1e-12 * scale, (p, got[p], want)


@pytest.mark.parametrize(
    ("m", "k"), [(1000, 1), (1000, 50), (1000, 500), (1000, 990), (10**5, 3), (10**5, 5 * 10**4)]
)
def test_moment_bound_is_above_the_absolute_moments(m, k):
    j = np.arange(m + 1.0)
    pmf = stats.binom.pmf(j, m, k / m)
    n = np.array([1, 2, 3, 9, 17, 25, 33, 35])
    bound = pr._log_moment_bound(n, np.full(n.size, k * (m - k) / m))
    exact = np.log([np.sum(pmf * np.abs(j - k) ** p) for p in n])
    assert np.all(bound >= exact)
    assert np.all(bound <= exact + 0.4 * n + 3)  # and not far above: few wasted terms


def extended_pmf(m: int, k: int) -> np.ndarray:
    """``Bin(m, k / m)`` in long double: the ratio recurrence out of the mode, normalised
    (1e-19 relative steps where long double is extended)."""
    q = np.longdouble(k) / m
    pmf = np.zeros(m + 1, dtype=np.longdouble)
    pmf[k] = 1
    for j in range(k, m):
        pmf[j + 1] = pmf[j] * (m - j) / (j + 1) * q / (1 - q)
    for j in range(k, 0, -1):
        pmf[j - 1] = pmf[j] * j / (m - j + 1) * (1 - q) / q
    return pmf / pmf.sum()


#: Rounding of the sums compared, relative to their sums of absolute terms: the windows' pmf
#: takes up to 31 ratio steps from Boost's values (and scipy's pmf, where long double is
#: double, about as much).
ROUNDING = 1e-14 if np.finfo(np.longdouble).eps < 1e-18 else 1e-13


@pytest.mark.parametrize("strict", [True, False], ids=["strict-targets", "loose-targets"])
def test_each_component_within_its_reported_error(strict):
    """``h`` and ``v`` of single components (series and direct sums) against sums over the
    whole pmf: within the error they report, plus rounding. With loose targets the reported
    errors are large and the check is one of the bounds themselves."""
    rng = np.random.default_rng(9)
    m, size = 2000, 120
    k = rng.integers(1, m, size)
    r = rng.integers(1, 3000, size).astype(float)
    k0 = np.clip(k + rng.integers(-30, 30, size), 0, m).astype(float)
    need_v, need_h = (1e-22, 1e-18) if strict else (1e-7, 1e-5)
    got = pr._component_moments(
        r, k.astype(float), k0, m, np.full(size, need_v), np.full(size, need_h)
    )
    h, v, eh, ev = got
    assert np.all(eh <= need_h) and np.all(ev <= need_v)
    j = np.arange(m + 1, dtype=np.longdouble)
    for i in range(size):
        pmf = extended_pmf(m, int(k[i]))
        gk = r[i] * (k[i] - j) / ((r[i] + j) * (r[i] + k[i]))  # g - g(k), no cancellation
        at_k = r[i] * (k0[i] - k[i]) / ((r[i] + k[i]) * (r[i] + k0[i]))  # g(k) - g0
        shift = np.sum(pmf * gk)
        want_v = np.sum(pmf * (gk - shift) ** 2)
        rounding = ROUNDING * float(np.sum(pmf * np.abs(gk)) + abs(at_k))
        assert abs(h[i] - float(at_k + shift)) <= eh[i] + rounding, (i, r[i], k[i])
        assert abs(v[i] - float(want_v)) <= ev[i] + 10 * ROUNDING * float(want_v), (
            i,
            r[i],
            k[i],
        )
