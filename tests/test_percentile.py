"""The percentile interval of vertical averaging against a brute-force quantile of the exact
law (issue: a bracket at -1 made the lower bound -1/m+, reported as 0), and the fast quantile
(table lookups or Gauss-Legendre chain, then a walk with an error margin) bit for bit against
the dense pmf: random data with and without ties, both sides, levels 0.5 to 0.999, tiny and
degenerate laws, the bisection fallback, and the error bounds the walk relies on."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rocsim.core import mixture
from rocsim.core.formulas import QUANTILE_SLACK
from rocsim.core.vertical import vertical_ci, vertical_distribution

LEVEL = 0.95
TAIL = (1 - LEVEL) / 2


def dense_pmf(law) -> np.ndarray:
    """``pmf[i, l] = sum_c w[i, c] Bin(l; m+, q[i, c])`` from scipy.stats.binom, densely."""
    support = np.arange(law.m_pos + 1)
    pmf = stats.binom.pmf(support[None, None, :], law.m_pos, law._q[:, :, None])
    return np.einsum("ic,icl->il", law._w, pmf)


def brute_quantile(pmf: np.ndarray, p: float) -> np.ndarray:
    """Smallest ``l`` with ``sum_{k <= l} pmf[k] >= p``, per row."""
    return np.argmax(np.cumsum(pmf, axis=1) >= p, axis=1)


def test_reported_lower_bound_is_the_exact_quantile_not_minus_one_step():
    pos = [-0.6, 1.0, 0.2, 0.6, 3.1, 1.0, 0.7, 0.8, -0.5, 2.3, 1.8, 0.5, 1.2, 0.3]
    neg = [0.4, -1.3, 0.3, 1.5]
    law = vertical_distribution(pos, neg, [1])
    assert law.quantile(0.025)[0] == pytest.approx(1 / 14)
    ci = vertical_ci(pos, neg, [1], confidence_level=LEVEL, method="percentile")
    assert ci.low[0] == pytest.approx(1 / 14)


@pytest.mark.parametrize("ties", [False, True])
def test_percentile_bounds_equal_brute_force_quantiles(ties):
    rng = np.random.default_rng(16 + ties)
    for _ in range(100):
        # few negatives and more positives: where the normal guess undershoots at low FPR
        n_pos, n_neg = rng.integers(2, 30), rng.integers(2, 9)
        pos, neg = rng.normal(0.8, 1, n_pos), rng.normal(0, 1, n_neg)
        if ties:
            pos, neg = np.round(pos * 2) / 2, np.round(neg * 2) / 2
        r = np.arange(1, n_neg)
        law = vertical_distribution(pos, neg, r)
        pmf = dense_pmf(law)
        ci = vertical_ci(pos, neg, r, confidence_level=LEVEL, method="percentile")
        low = brute_quantile(pmf, TAIL - 1e-12) / n_pos
        high = brute_quantile(pmf, 1 - TAIL - 1e-12) / n_pos
        np.testing.assert_array_equal(ci.low, low)
        np.testing.assert_array_equal(ci.high, high)


# --- the fast quantile (table lookups or Gauss-Legendre chain, and a walk) ----------------------

LEVELS = (0.5, 0.9, 0.95, 0.999)


@pytest.fixture(params=["table", "chain"])
def path(request, monkeypatch):
    """Both ways of evaluating the CDF: lookups in the cached table of B(l; m, k/m) (small
    m), and the chain of Gauss-Legendre integrals from one bdtr a segment (large m)."""
    if request.param == "chain":
        monkeypatch.setattr(mixture, "_TABLE_LIMIT", 0)
    return request.param


def dense_bounds(pmf: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed quantiles of a dense pmf (rows), with the slack of ``equal_tailed``."""
    tail, m = (1 - level) / 2, pmf.shape[1] - 1
    low = brute_quantile(pmf, tail - QUANTILE_SLACK)
    return low / m, brute_quantile(pmf, 1 - tail - QUANTILE_SLACK) / m


def scores(rng, n_pos: int, n_neg: int, ties: bool):
    pos, neg = rng.normal(rng.uniform(0, 2), 1, n_pos), rng.normal(0, 1, n_neg)
    if ties:  # coarse scores: many ties within and between the classes
        pos, neg = np.round(pos * 2) / 2, np.round(neg * 2) / 2
    return pos, neg


def assert_bounds_equal_dense(pos, neg, r, side: str) -> None:
    pmf = dense_pmf(vertical_distribution(pos, neg, r, side=side))
    for level in LEVELS:
        ci = vertical_ci(pos, neg, r, confidence_level=level, method="percentile", side=side)
        low, high = dense_bounds(pmf, level)
        np.testing.assert_array_equal(ci.low, low, err_msg=f"{side} {level}")
        np.testing.assert_array_equal(ci.high, high, err_msg=f"{side} {level}")


@pytest.mark.parametrize("ties", [False, True])
def test_bounds_equal_the_dense_quantiles_on_random_data(path, ties):
    rng = np.random.default_rng(2024 + ties)
    for k in range(60):
        n_pos, n_neg = int(rng.integers(1, 400)), int(rng.integers(2, 400))
        pos, neg = scores(rng, n_pos, n_neg, ties)
        r = np.unique(rng.integers(1, n_neg, size=12))
        assert_bounds_equal_dense(pos, neg, r, ("lower", "upper")[k % 2])


@pytest.mark.parametrize(("n_pos", "n_neg", "ties"), [(600, 400, False), (1500, 2000, True)])
def test_bounds_equal_the_dense_quantiles_at_larger_n(path, n_pos, n_neg, ties):
    rng = np.random.default_rng(n_pos)
    pos, neg = scores(rng, n_pos, n_neg, ties)
    r = np.unique(np.rint(np.linspace(0.01, 0.99, 7) * n_neg).astype(int))
    assert_bounds_equal_dense(pos, neg, r, "lower")


def test_tiny_class_sizes(path):
    rng = np.random.default_rng(5)
    for n_pos in range(1, 6):
        for n_neg in range(2, 7):
            for ties in (False, True):
                pos, neg = scores(rng, n_pos, n_neg, ties)
                for side in ("lower", "upper"):
                    assert_bounds_equal_dense(pos, neg, np.arange(1, n_neg), side)


@pytest.mark.parametrize(
    ("pos", "neg", "expected"),
    [
        ([5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0], 1.0),  # every positive above every negative
        ([-5.0, -6.0, -7.0], [0.0, 1.0, 2.0, 3.0], 0.0),  # every positive below
    ],
)
def test_degenerate_rows_have_all_their_mass_at_one_end(path, pos, neg, expected):
    r = [1, 2, 3]
    law = vertical_distribution(pos, neg, r)
    for p in (1e-12, 0.025, 0.5, 0.975, 1 - 1e-9):
        np.testing.assert_array_equal(law.quantile(p), expected)


def test_rows_whose_shares_are_all_zero_or_one(path):
    # positives tied with the middle negative: a threshold admits all of them or none
    pos, neg = [1.0, 1.0, 1.0], [0.0, 1.0, 2.0, 3.0, 1.0]
    r = np.arange(1, 5)
    law = vertical_distribution(pos, neg, r)
    assert set(np.unique(law._q[law._w > 0])) <= {0.0, 1.0}
    for side in ("lower", "upper"):
        assert_bounds_equal_dense(pos, neg, r, side)


def test_probabilities_near_0_and_1(path):
    rng = np.random.default_rng(9)
    pos, neg = scores(rng, 150, 120, False)
    law = vertical_distribution(pos, neg, np.arange(1, 120, 7))
    pmf = dense_pmf(law)
    for p in (1e-12, 1e-6, 0.5, 1 - 1e-6, 1 - 1e-9):
        np.testing.assert_array_equal(law.quantile(p), brute_quantile(pmf, p) / law.m_pos)
    assert np.all(law.quantile(0.0) == 0) and np.all(law.quantile(1.0) == 1)
    with pytest.raises(ValueError, match="probability in \\[0, 1\\]"):  # was 1.0 (issue 35)
        law.quantile(1.5)


def test_the_bisection_fallback_gives_the_same_bounds(path, monkeypatch):
    # no window beyond F(l0): the walk decides nothing and every row goes to the bisection
    monkeypatch.setattr(mixture, "_AROUND", 0)
    monkeypatch.setattr(mixture, "_WINDOWS", ())
    rng = np.random.default_rng(11)
    for ties in (False, True):
        pos, neg = scores(rng, 90, 70, ties)
        assert_bounds_equal_dense(pos, neg, np.arange(1, 70, 5), "lower")


@pytest.mark.parametrize("n", [3, 40, 700, 2500])
def test_fast_cdf_is_within_its_error_bound_of_bdtr(n):
    """The margin the walk trusts: |F_fast - F_bdtr| <= error at many l, for both ways (the
    table is built for m up to its limit only)."""
    rng = np.random.default_rng(n)
    pos, neg = scores(rng, n, n, False)
    law = vertical_distribution(pos, neg, np.unique(rng.integers(1, n, size=15)))
    mix = law._mixture
    keys = mixture._shares(mix.q, mix.m)
    sources = [mixture._CdfChain(mix, keys), mixture._CdfChain(mix, None)]
    if (mix.m + 1) * (2 * mixture._table_half(mix.m) + 3) <= mixture._TABLE_LIMIT:
        sources.append(mixture._TableCdf(mix, keys))
    every = np.ones(mix.rows, dtype=bool)
    for at in rng.integers(0, mix.m, size=(6, mix.rows)):
        exact = mix.cdf(at, every)
        for source in sources:
            got = source.around(at)[:, mixture._AROUND]
            assert np.all(np.abs(got - exact) <= source.error), type(source).__name__


@pytest.mark.parametrize("n", [3, 40, 700])
def test_table_lookups_on_some_rows_are_within_the_error_bound(n):
    """The table's compiled sums (:func:`mixture._table_sums`) for a subset of rows, at
    points in and beyond ``0..m`` (clipped), including ``l`` far from every component (the
    band's sentinels 1 and 0): within ``error`` of ``bdtr``."""
    rng = np.random.default_rng(n + 1)
    pos, neg = scores(rng, n, n, False)
    law = vertical_distribution(pos, neg, np.unique(rng.integers(1, n, size=15)))
    mix = law._mixture
    source = mixture._TableCdf(mix, mixture._shares(mix.q, mix.m))
    rows = np.flatnonzero(rng.random(mix.rows) < 0.6)
    points = np.sort(rng.integers(-3, mix.m + 4, size=(rows.size, 9)), axis=1)
    points[:, 0], points[:, -1] = -2, mix.m + 2
    got = source.values(points, rows)
    for j in range(points.shape[1]):
        active = np.zeros(mix.rows, dtype=bool)
        active[rows] = True
        at = np.zeros(mix.rows, dtype=np.int64)
        at[rows] = np.clip(points[:, j], 0, mix.m)
        exact = mix.cdf(at, active)[rows]
        assert np.all(np.abs(got[:, j] - exact) <= source.error[rows])


def test_mixture_merges_equal_neighbouring_shares_of_each_row():
    """:class:`mixture.BinomialMixture` keeps, row by row, the entries of positive weight,
    merging neighbours with equal ``q`` (their weights summed left to right, as
    ``np.bincount`` would): bit for bit against that numpy formulation, with ties, zero
    weights and an empty row."""
    rng = np.random.default_rng(5)
    q = np.sort(rng.integers(0, 6, size=(7, 12)) / 6, axis=1)
    w = rng.random((7, 12)) * (rng.random((7, 12)) < 0.7)
    w[3] = 0.0
    mix = mixture.BinomialMixture(q, w, 6)
    keep = w > 0
    kept = keep.sum(axis=1)
    qf, wf = q[keep], w[keep]
    new = np.r_[True, qf[1:] != qf[:-1]]
    new[(np.cumsum(kept) - kept)[kept > 0]] = True
    merged, row_of = np.cumsum(new) - 1, np.repeat(np.arange(7), kept)[new]
    np.testing.assert_array_equal(mix.q, qf[new])
    np.testing.assert_array_equal(mix.w, np.bincount(merged, wf, new.sum()))
    np.testing.assert_array_equal(mix.count, np.bincount(row_of, minlength=7)[kept > 0])
    np.testing.assert_array_equal(mix.row, row_of)
    np.testing.assert_array_equal(mix.first, np.cumsum(mix.count) - mix.count)
    assert not mix.full


@pytest.mark.parametrize("n", [3, 40, 700])
def test_segment_tails_are_each_rows_sums_from_its_end(n):
    """``S_c`` of the Gauss-Legendre chain: the weight from ``c`` to the end of its segment
    (the next anchor of the row, or the row's end), as the difference of two sums from the
    row's end taken one term at a time, last component first (what a cumulative sum of the
    reversed row gives), floored at 1e-300. Bit for bit, anchors drawn at random."""
    rng = np.random.default_rng(n + 7)
    pos, neg = scores(rng, n, n, True)
    law = vertical_distribution(pos, neg, np.unique(rng.integers(1, n, size=15)))
    mix = law._mixture
    anchor = rng.random(mix.q.size) < 0.2
    anchor[mix.first] = True
    want = np.empty(mix.q.size)
    for start, size in zip(mix.first, mix.count):
        suffix = np.zeros(size + 1)
        for p in range(size - 1, -1, -1):
            suffix[p] = suffix[p + 1] + mix.w[start + p]
        ends = np.r_[np.flatnonzero(anchor[start : start + size]), size]
        for p in range(size):
            end = ends[np.searchsorted(ends, p, side="right")]
            want[start + p] = max(suffix[p] - suffix[end], 1e-300)
    np.testing.assert_array_equal(mixture._segment_tails(mix, anchor), want)


def test_precision_recall_quantiles_agree_between_the_two_ways(monkeypatch):
    """The law of precision uses the same mixture quantile (FP counts): the chain gives the
    table's bounds (checked against the dense pmf in test_precision_recall.py)."""
    from rocsim.core.precision_recall import pr_ci

    rng = np.random.default_rng(13)
    pos, neg = scores(rng, 120, 160, True)
    r = np.arange(1, 120, 9)
    table = pr_ci(pos, neg, r, confidence_level=0.9, method="percentile")
    monkeypatch.setattr(mixture, "_TABLE_LIMIT", 0)
    chain = pr_ci(pos, neg, r, confidence_level=0.9, method="percentile")
    np.testing.assert_array_equal(table.low, chain.low)
    np.testing.assert_array_equal(table.high, chain.high)
