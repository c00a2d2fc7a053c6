"""The fast paths of the simulations give their straightforward versions' results bit for bit.

Every coverage table must stay byte-identical when the code only gets faster, so each shortcut
is checked here against the plain computation it replaces: the compiled monotone chain, the
one-sort ROC counts, the cumulative-histogram joint counts, the normal survival function
without scipy's checks, the pmf computed where it is used, the exact cost coverage that skips
cells of probability 0, the exact threshold coverage computed in parts, the kernel estimates
sharing one transform (and two samples' estimates sharing the calls), the vectorised
``math.isclose`` of the claims, the runner's outcomes shared between studies and replication
counts, Boost's binomial pmf without scipy.stats' checks, the vertical law's one count of
the data and its weights' layout computed once, the radix sort of large samples and the
merge of their counts, and the runner's malloc thresholds (where arrays are stored, not
what they hold).
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import signal, special, stats

from rocsim.core import cost, counting, coverage, kernel, mixture, threshold, vertical
from rocsim.core.cost import cost_interval_from_counts, cost_target
from rocsim.core.counting import count_above, count_at_or_above, decision_counts, roc_counts
from rocsim.sim import runner
from rocsim.sim.claims import _numeric_isin
from rocsim.sim.conditions import Condition
from rocsim.sim.models import ClassDistribution, make_model
from rocsim.sim.pipeline import run_study
from rocsim.studies import get_kind


def _chain(x, y):
    """Andrew's monotone chain in Python floats, as rocsim first wrote it."""
    hull: list[int] = []
    x, y = x.tolist(), y.tolist()
    for k in range(len(x)):
        while len(hull) >= 2:
            i, j = hull[-2], hull[-1]
            if (x[j] - x[i]) * (y[k] - y[i]) - (y[j] - y[i]) * (x[k] - x[i]) >= 0:
                hull.pop()
            else:
                break
        hull.append(k)
    return np.asarray(hull, dtype=np.int64)


def _scores(rng, case: int):
    n_pos, n_neg = (int(v) for v in rng.integers(1, 60, 2))
    if case == 0:
        return rng.normal(1, 1, n_pos), rng.normal(0, 1, n_neg)
    if case == 1:  # many ties, within and across classes
        return rng.integers(0, 6, n_pos).astype(float), rng.integers(-2, 4, n_neg).astype(float)
    if case == 2:  # equal class sizes: lattice points, many exactly collinear
        return rng.integers(0, 20, n_pos).astype(float), rng.integers(-5, 15, n_pos).astype(float)
    if case == 3:
        return np.round(rng.normal(2, 1, n_pos), 1), np.round(rng.normal(0, 2, n_neg), 1)
    return rng.normal(rng.uniform(0, 6), 1, 1000), rng.normal(0, 1, 1000)


def test_compiled_hull_is_the_python_chain():
    rng = np.random.default_rng(1)
    for trial in range(3000):
        pos, neg = _scores(rng, trial % 5)
        _, tp, fp = roc_counts(pos, neg)
        x = np.concatenate([[0.0], fp / neg.size])
        y = np.concatenate([[0.0], tp / pos.size])
        np.testing.assert_array_equal(cost._upper_hull(x, y), _chain(x, y))
    for trial in range(500):  # lattice paths with up, right and diagonal steps
        steps = rng.integers(0, 3, int(rng.integers(3, 300)))
        fx = np.concatenate([[0], np.cumsum(steps != 1)])
        fy = np.concatenate([[0], np.cumsum(steps != 0)])
        scale = max(fx[-1], fy[-1], 1) if trial % 2 else 1
        x, y = fx / max(fx[-1], scale, 1), fy / max(fy[-1], scale, 1)
        np.testing.assert_array_equal(cost._upper_hull(x, y), _chain(x, y))


def test_sorted_roc_counts_are_roc_counts():
    rng = np.random.default_rng(2)
    cases = [_scores(rng, trial % 5) for trial in range(2000)]
    cases.append((np.array([0.0, -0.0, 1.0]), np.array([-0.0, 0.0, 2.0])))  # signed zeros
    for pos, neg in cases:
        for got, want in zip(counting.sorted_roc_counts(pos, neg), roc_counts(pos, neg)):
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("chain", [True, False, "ascending", "descending"])
def test_decision_counts_are_brute_force(chain):
    rng = np.random.default_rng(3)
    for _ in range(2000):
        s1, s2 = (rng.integers(-5, 5, int(rng.integers(1, 40))).astype(float) for _ in range(2))
        s2 = s2[: s1.size] if s2.size >= s1.size else np.resize(s2, s1.size)
        h = int(rng.integers(0, 15))
        t1, t2 = (rng.choice([-np.inf, np.inf, *range(-6, 6)], h).astype(float) for _ in "12")
        if chain:  # thresholds ordered alike, as on a grid of conditions
            order = {"ascending": np.arange(h), "descending": np.arange(h)[::-1]}
            order = order.get(chain, rng.permutation(h))
            t1, t2 = np.sort(t1)[order], np.sort(t2)[order]
        first, second, both = decision_counts(s1, s2, t1, t2)
        np.testing.assert_array_equal(first, count_at_or_above(s1, t1))
        np.testing.assert_array_equal(second, count_at_or_above(s2, t2))
        brute = ((s1[:, None] >= t1) & (s2[:, None] >= t2)).sum(axis=0)
        np.testing.assert_array_equal(both, brute)
        assert both.dtype == np.int64 and both.shape == (h,)


def test_decision_counts_of_a_large_sample_are_brute_force():
    """Ranked by buckets (many instances, thresholds of a grid), as count_at_or_above does."""
    rng = np.random.default_rng(4)
    s1 = rng.normal(0, 3, 3 * counting._BUCKET_MIN)
    s2 = np.round(0.9 * s1 + rng.normal(0, 1, s1.size), 1)  # ties at the thresholds too
    t1, t2 = np.linspace(-8, 8, 99), np.round(np.linspace(-6, 9, 99), 1)
    first, second, both = decision_counts(s1, s2, t1, t2)
    np.testing.assert_array_equal(first, (s1[:, None] >= t1).sum(axis=0))
    np.testing.assert_array_equal(second, (s2[:, None] >= t2).sum(axis=0))
    np.testing.assert_array_equal(both, ((s1[:, None] >= t1) & (s2[:, None] >= t2)).sum(axis=0))


def test_radix_sorted_scores_are_numpys():
    """Bit for bit np.sort, but for the order of -0.0 and 0.0 (equal to every threshold:
    the counts are the same); many ascending thresholds merged with the sorted scores count
    as bisection does."""
    rng = np.random.default_rng(12)
    size = counting._RADIX_MIN
    cases = [
        rng.normal(-5, 3, size),
        rng.normal(0, 1e-300, size + 1),
        rng.integers(-3, 4, 3 * size).astype(float),  # ties, and 0.0 only
        np.round(rng.normal(0, 0.01, 2 * size), 2),  # -0.0 and 0.0 mixed
        np.concatenate([rng.exponential(1, size), [np.inf, -np.inf, 5e-324, -5e-324, 1e308]]),
        np.full(size, 2.5),
        rng.normal(0, 1, 20000)[::2],  # not contiguous
    ]
    for scores in cases:
        got, want = counting.sorted_scores(scores), np.sort(scores)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        zero = want == 0
        assert got[~zero].tobytes() == want[~zero].tobytes()
        assert np.all(np.diff(np.signbit(got[zero]).astype(int)) <= 0)  # -0.0 first
        # as many thresholds as count_at_or_above needs to sort the scores
        extra = [0.0, -0.0, np.inf, -np.inf]
        thresholds = np.concatenate([rng.choice(scores, scores.size // 4), extra])
        for ordered in (thresholds, np.sort(thresholds)):  # bisected, merged
            brute = (scores[:, None] >= ordered).sum(axis=0)
            np.testing.assert_array_equal(count_at_or_above(scores, ordered), brute)


@pytest.mark.parametrize("size", [5, counting._RADIX_MIN - 1, counting._RADIX_MIN])
def test_sorted_scores_put_negative_zero_first_at_every_size(size):
    """Below the radix sort's size too: ``np.sort`` leaves -0.0 and 0.0 in an order that
    changed between numpy releases (SIMD sorts), which changed which zero a curve reports as
    its threshold; sorted_scores fixes it, so outputs are the same bits on every numpy."""
    rng = np.random.default_rng(size)
    scores = np.where(rng.random(size) < 0.5, 0.0, -0.0)
    scores[: size // 5] = rng.normal(size=size // 5)
    got = counting.sorted_scores(scores)
    zero = got == 0
    np.testing.assert_array_equal(got, np.sort(scores))
    signs = np.signbit(got[zero])
    assert signs.sum() == np.signbit(scores[scores == 0]).sum()
    assert np.all(np.diff(signs.astype(int)) <= 0)  # -0.0 first


@pytest.mark.parametrize("size", [5, counting._RADIX_MIN])  # np.sort, radix sort
def test_a_zero_threshold_is_positive_zero_whatever_the_signs_of_the_zeros(size):
    """A tied zero threshold is named 0.0 by every counting path: which zero a curve reported
    followed the signs of the zero scores, which the same computation upstream (rounding,
    sorting) need not give alike on every CPU; the counts are those of the zeros either way."""
    rng = np.random.default_rng(size)
    pos = np.concatenate([[0.0, -0.0, 1.0], rng.choice([0.0, -0.0, 1.0], size)])
    neg = np.concatenate([[-0.0, 0.0, -1.0], rng.choice([0.0, -0.0, -1.0], size)])
    want_tp = [np.sum(pos >= t) for t in (1.0, 0.0, -1.0)]
    want_fp = [np.sum(neg >= t) for t in (1.0, 0.0, -1.0)]
    all_negative = [np.where(scores == 0, -0.0, scores) for scores in (pos, neg)]
    for data in [(pos, neg), (pos + 0.0, neg + 0.0), all_negative]:  # mixed, 0.0, -0.0
        for count in (counting.roc_counts, counting.sorted_roc_counts):
            thresholds, tp, fp = count(*data)
            assert thresholds.tolist() == [1.0, 0.0, -1.0]
            assert not np.signbit(thresholds[1]), count.__name__
            np.testing.assert_array_equal(tp, want_tp)
            np.testing.assert_array_equal(fp, want_fp)


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_public_thresholds_have_no_negative_zero(direction):
    """The top level's curves and intervals report the zero threshold as 0.0 too, on either
    orientation of the scores."""
    import rocsim
    from rocsim.core import roc_curve

    y = np.array([1, 1, 1, 0, 0, 0] * 20)
    score = np.array([0.0, -0.0, 2.0, -0.0, 0.0, -1.0] * 20)
    score = score if direction == "higher" else -score
    _, _, thresholds = roc_curve(score[y == 1], score[y == 0])
    frames = [
        rocsim.roc_ci(y, score, direction=direction).to_frame()["threshold"],
        rocsim.roc_ci(y, score, at=[0.4, 0.6], direction=direction).to_frame()["threshold"],
        rocsim.cost_curve_ci(y, score, direction=direction).to_frame()["threshold"],
    ]
    for reported in [thresholds, *map(np.asarray, frames)]:
        assert (reported == 0).any()
        assert not np.any(np.signbit(reported[reported == 0]))


def test_bucket_ranks_are_searchsorted():
    """Large samples are placed among the thresholds by buckets; where two values would share
    a bucket, or the range overflows, by bisection. Either way numpy's ranks."""
    rng = np.random.default_rng(8)
    grid = np.log(1 / np.linspace(0.01, 0.99, 99) - 1)
    cases = [
        np.sort(rng.normal(size=99)),
        np.sort(grid / 1.5 + 0.3),
        np.sort(np.concatenate([grid, grid[::7], [-np.inf, np.inf, np.inf]])),
        np.sort(rng.integers(-5, 5, 40).astype(float)),
        np.array([0.0, 1e-300, 2e-300]),
        np.array([-1e308, 0.0, 1e308]),
        np.array([2.5]),
    ]
    for ascending in cases:
        finite = ascending[np.isfinite(ascending)]
        keys = np.concatenate(
            [
                rng.normal(0, 3, 5000),
                rng.integers(-6, 6, 500).astype(float),
                ascending,
                np.nextafter(finite, np.inf),
                np.nextafter(finite, -np.inf),
                [np.inf, -np.inf, 1e308, -1e308],
            ]
        )
        np.testing.assert_array_equal(
            counting._ranks(ascending, keys), np.searchsorted(ascending, keys, side="right")
        )


@pytest.mark.parametrize("params", [(0.0, 1.0), (3.0, 3.75), (-1.0, 3.0), (7.0, 1.0)])
def test_normal_class_functions_are_scipys(params):
    rng = np.random.default_rng(4)
    dist, frozen = ClassDistribution("binormal", params), stats.norm(*params)
    edge = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 5e-324, 40.0, -40.0])
    for t in (rng.normal(params[0], 10, 500), edge, rng.integers(-9, 9, 20), 0.5, 3, [0.1]):
        for name in ("sf", "cdf"):
            got, want = getattr(dist, name)(t), getattr(frozen, name)(t)
            assert type(got) is type(want)
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


def test_binomial_support_pmf_is_scipys_where_used():
    rng = np.random.default_rng(5)
    for trials in (1, 7, 100, 1000):
        p = np.concatenate([[0.0, 1.0, 1e-9, 0.5], rng.random(20)])
        x, pmf = coverage.binomial_support(trials, p)
        lo = np.nan_to_num(stats.binom.ppf(coverage.TAIL_MASS, trials, p), nan=0.0)
        hi = trials - stats.binom.ppf(coverage.TAIL_MASS, trials, 1 - p)
        inside = lo.astype(np.int64)[:, None] + np.arange(x.shape[1]) <= hi[:, None]
        want = np.where(inside, stats.binom.pmf(x, trials, p[:, None]), 0.0)
        assert pmf.tobytes() == want.tobytes()


def _cost_exact_reference(tpr, fpr, w, n_pos, n_neg, level, method, a, bootstrap):
    """cost_exact_coverage as first written: the interval on every cell of the table."""
    target = cost_target(w, tpr, fpr, n_pos / (n_pos + n_neg), bootstrap)
    x, px = coverage.binomial_support(n_pos, tpr)
    y, py = coverage.binomial_support(n_neg, fpr)
    out = {name: np.empty(w.size) for name in ("cover", "below", "above", "width")}
    for g in range(w.size):
        _, _, low, high = cost_interval_from_counts(
            x[g][:, None], y[g][None, :], n_pos, n_neg, w[g], level, method, a, bootstrap
        )
        low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
        prob = px[g][:, None] * py[g][None, :]
        c = target[g]
        out["cover"][g] = np.sum(prob * ((low <= c) & (c <= high)))
        out["below"][g] = np.sum(prob * (c < low))
        out["above"][g] = np.sum(prob * (c > high))
        out["width"][g] = np.sum(prob * (high - low))
    for name in ("cover", "below", "above"):
        np.clip(out[name], 0.0, 1.0, out=out[name])
    return out


@pytest.mark.parametrize(
    ("method", "a", "bootstrap", "n"),
    [("agresti", 2.0, "stratified", 60), ("score", None, "full", 45), ("wald", None, "full", 80)],
)
def test_cost_exact_coverage_skips_only_cells_of_probability_zero(method, a, bootstrap, n):
    model = make_model("binormal", (1.5, 1.0), (0.0, 1.0))
    w = np.round(np.linspace(0.01, 0.99, 15), 12)
    t = model.cost_threshold(w)
    tpr, fpr = model.tpr(t), model.fpr(t)
    got = coverage.cost_exact_coverage(
        tpr,
        fpr,
        w,
        n,
        n + 7,
        confidence_level=0.9,
        method=method,
        pseudo_count=a,
        bootstrap=bootstrap,
    )
    want = _cost_exact_reference(tpr, fpr, w, n, n + 7, 0.9, method, a, bootstrap)
    for name, values in want.items():
        assert getattr(got, name).tobytes() == values.tobytes()


def test_exact_threshold_coverage_in_parts_is_the_whole():
    kind = get_kind("threshold")
    normal = {"family": "binormal", "pos": {"mu": 1.0, "sd": 1.0}, "neg": {"mu": 0.0, "sd": 1.0}}
    grid = {"start": 0.01, "stop": 0.99, "num": 9}
    settings = {
        "model": normal,
        "n": 60,
        "pi": 0.5,
        "method": "score",
        "pseudo_count": None,
        "confidence_level": 0.9,
        "grid": grid,
        "bootstrap": "stratified",
        "sampling": "full",
        "threshold": "oracle",
        "cost_prior": "sample",
    }
    condition = Condition("s", {}, settings)
    setup = kind.setup(condition)
    parts = kind.exact_split(condition, setup)
    assert len(parts) > 1
    joined = kind.exact_join(
        condition, setup, [kind.exact_part(condition, setup, p) for p in parts]
    )
    whole = coverage.threshold_exact_coverage(
        setup.target,
        setup.extra["target_fpr"],
        60,
        60,
        confidence_level=0.9,
        method="score",
        sampling="full",
    )
    assert joined["cover"].tobytes() == whole.cover.tobytes()
    assert joined["mean_width_fpr"].tobytes() == whole.fpr.width.tobytes()


def _binned_reference(x, h, grid):
    """kernel._binned_cdf_pdf as first written, with scipy.signal.fftconvolve."""
    m = grid.size
    counts, lags = kernel._linear_bins(x, h, grid)
    cdf = signal.fftconvolve(counts, special.ndtr(lags))[m - 1 : 2 * m - 1] / x.size
    pdf = signal.fftconvolve(counts, np.exp(-0.5 * lags * lags))[m - 1 : 2 * m - 1]
    pdf /= x.size * h * np.sqrt(2 * np.pi)
    return np.clip(cdf, 0.0, 1.0), np.maximum(pdf, 0.0)


def test_kernel_estimates_share_one_transform():
    rng = np.random.default_rng(6)
    for _ in range(30):
        x = rng.normal(rng.uniform(-2, 2), rng.uniform(0.2, 3), int(rng.integers(5, 3000)))
        grid = np.linspace(x.min() - 3, x.max() + 3, kernel.GRID_SIZE)
        h = float(rng.uniform(0.05, 1.0))
        for got, want in zip(kernel._binned_cdf_pdf(x, h, grid), _binned_reference(x, h, grid)):
            assert got.tobytes() == want.tobytes()


def test_kernel_estimates_of_two_samples_are_each_alone():
    """Both classes' estimates in one batch of transforms: each is its own convolutions."""
    rng = np.random.default_rng(9)
    for _ in range(30):
        samples = [rng.normal(rng.uniform(-2, 2), rng.uniform(0.2, 3), 50 + k) for k in (0, 900)]
        low = min(x.min() for x in samples)
        grid = np.linspace(low - 3, max(x.max() for x in samples) + 3, kernel.GRID_SIZE)
        hs = [float(h) for h in rng.uniform(0.05, 1.0, 2)]
        for x, h, pair in zip(samples, hs, kernel._binned_estimates(samples, hs, grid)):
            for got, want in zip(pair, _binned_reference(x, h, grid)):
                assert got.tobytes() == want.tobytes()


def test_binomial_pmf_is_scipys():
    rng = np.random.default_rng(10)
    for trials in (1, 2, 9, 250, 5000):
        x = np.concatenate([[0, trials], rng.integers(0, trials + 1, 300)])
        p = np.concatenate([[0.0, 1.0], rng.random(298), [1e-12, 1 - 1e-12]])
        for probability in (p, 0.3, 1.0):
            want = stats.binom.pmf(x, trials, probability)
            assert threshold.binomial_pmf(x, trials, probability).tobytes() == want.tobytes()
        n_pos, n_neg = trials, int(rng.integers(1, 50))
        k, prob = threshold.class_count_law(n_pos, n_neg)
        want = stats.binom.pmf(k, n_pos + n_neg, n_pos / (n_pos + n_neg))
        assert prob.tobytes() == (want / want.sum()).tobytes()


def _vertical_moments_reference(pos, neg_desc, r, m_neg, m_pos, a, side):
    """vertical._moments as first written: counts at the band's thresholds, the weights
    normalised and the rows' least and largest q (where w > 0) found for every data set."""
    ranks = vertical.threshold_ranks(np.asarray(r), side)
    weights = mixture.rank_weights(neg_desc.size, m_neg, tuple(ranks.tolist()))
    count = count_at_or_above if side == "lower" else count_above
    q = (count(pos, neg_desc[::-1])[::-1] / pos.size)[weights.index]
    w = weights.weights / weights.weights.sum(axis=1, keepdims=True)
    if a:
        q, m_pos = (q * m_pos + a) / (m_pos + 2 * a), m_pos + 2 * a
    ref = np.take_along_axis(q, np.argmax(w, axis=1)[:, None], axis=1)
    deviation = q - ref
    shift = np.einsum("ij,ij->i", w, deviation)
    between = np.einsum("ij,ij->i", w, np.square(deviation - shift[:, None]))
    within = np.einsum("ij,ij->i", w, q * (1 - q)) / m_pos
    lowest = np.min(q, axis=1, where=w > 0, initial=np.inf)
    highest = np.max(q, axis=1, where=w > 0, initial=-np.inf)
    return np.clip(ref[:, 0] + shift, lowest, highest), within + between


@pytest.mark.parametrize("side", vertical.SIDES)
def test_vertical_law_counts_the_data_once(side, monkeypatch):
    """The data's TPR looked up in the one count of the positives at every negative, the
    weights normalised (and their rows' layout found) once per band: the same law, and under
    the full bootstrap the same moments for every class count (one count shared by all)."""
    rng = np.random.default_rng(11)
    moments = vertical._moments
    data = {}

    def checked(rates, r, m_neg, m_pos, pseudo_count=0.0, side="lower"):
        got = moments(rates, r, m_neg, m_pos, pseudo_count, side)
        want = _vertical_moments_reference(*data["scores"], r, m_neg, m_pos, pseudo_count, side)
        assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()
        data["calls"] += 1
        return got

    monkeypatch.setattr(vertical, "_moments", checked)
    for trial in range(240):
        pos, neg = _scores(rng, trial % 5)
        if neg.size < 2:
            continue
        r = np.unique(rng.integers(1, neg.size, 12))
        neg_desc = np.sort(neg)[::-1]
        data.update(scores=(pos, neg_desc), calls=0)
        law = vertical.vertical_distribution(pos, neg, r, side=side)
        tpr = vertical.empirical_tpr(pos, neg_desc, r, side)
        mean, var = _vertical_moments_reference(pos, neg_desc, r, neg.size, pos.size, 0, side)
        for got, want in ((law.tpr, tpr), (law.mean, mean), (law.var, var)):
            assert got.tobytes() == want.tobytes()
        agresti = law.ci(0.9, "agresti", pseudo_count=2.0)
        mean, var = _vertical_moments_reference(pos, neg_desc, r, neg.size, pos.size, 2.0, side)
        assert agresti.mean.tobytes() == mean.tobytes()
        assert agresti.var.tobytes() == var.tobytes()
        if pos.size + neg.size <= 80:
            data["calls"] = 0
            vertical.vertical_distribution(pos, neg, r, bootstrap="full", side=side)
            assert data["calls"] > 1


def test_numeric_isin_is_math_isclose():
    rng = np.random.default_rng(7)
    column = pd.Series(
        np.concatenate(
            [rng.normal(size=100), [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 1 + 1e-9, 1 + 3e-9]]
        )
    )
    for numbers in ([0.0], [1.0], [np.inf], [np.nan], [1e-300], list(column[:4])):
        want = column.apply(lambda v, numbers=numbers: any(math.isclose(v, n) for n in numbers))
        assert np.array_equal(_numeric_isin(column, numbers), want.to_numpy(bool))


def _bytes(output):
    return (output.directory / "coverage.csv").read_bytes()


def test_studies_share_outcomes_and_replications(small_study, tmp_path, monkeypatch):
    """With ``reuse_from``, a condition another study already ran on the same data, the same
    way (fig5_7 repeats fig5_1: the default pseudo-count spelled out), is taken from its cache,
    and a run with more replications computes only the missing ones: the same bytes as alone."""
    alone = run_study(small_study("fig5_7", "results_dir=" + str(tmp_path / "a")), tmp_path / "a")
    root = tmp_path / "b"
    run_study(small_study("fig5_1", f"results_dir={root}"), root / "fig5_1", reuse_from=root)
    shared = run_study(
        small_study("fig5_7", f"results_dir={root}"), root / "fig5_7", reuse_from=root
    )
    assert shared.run.computed == [] and len(shared.run.reused) == 4
    assert _bytes(shared) == _bytes(alone)
    more = ("replications=70", "exact_beside_limit=0")
    fresh = run_study(
        small_study("fig5_1", *more, f"results_dir={tmp_path / 'c'}"), tmp_path / "c"
    )
    blocks = []
    run_block = runner.run_block
    monkeypatch.setattr(runner, "run_block", lambda *a: blocks.append(a[4:6]) or run_block(*a))
    longer = run_study(
        small_study("fig5_1", *more, f"results_dir={root}"), root / "longer", reuse_from=root
    )
    assert _bytes(longer) == _bytes(fresh)
    assert blocks and min(start for start, _ in blocks) == 40  # only replications 40..69 ran


_KEPT_MEMORY_SCRIPT = """
import hashlib, sys
import numpy as np
from rocsim.core.kernel import kernel_roc_ci
from rocsim.core.coverage import threshold_exact_coverage
from rocsim.sim.workers import keep_freed_memory
if sys.argv[1] == "keep":
    keep_freed_memory()
rng = np.random.default_rng(13)
digest = hashlib.sha256()
for n in (100, 3000):
    pos, neg = rng.normal(1, 2, n), rng.normal(0, 1, n)
    for _ in range(3):
        digest.update(np.concatenate(list(kernel_roc_ci(pos, neg, [0.1, 0.5, 0.9]))).tobytes())
c = threshold_exact_coverage([0.3, 0.8], [0.1, 0.4], 300, 300, confidence_level=0.9,
                             method="score", sampling="full")
digest.update(c.cover.tobytes() + c.tpr.width.tobytes())
print(digest.hexdigest())
"""


def test_kept_freed_memory_changes_no_number():
    """The runner's malloc thresholds (:func:`rocsim.sim.workers.keep_freed_memory`) move
    arrays in memory, never their values: the same bytes in a process without them."""
    runs = [
        subprocess.run(
            [sys.executable, "-c", _KEPT_MEMORY_SCRIPT, mode],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for mode in ("keep", "default")
    ]
    assert runs[0] == runs[1] and len(runs[0].strip()) == 64


def test_single_threaded_limits_every_pool():
    from threadpoolctl import threadpool_info

    from rocsim.sim.workers import single_threaded

    with single_threaded():
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())


def test_single_threaded_limits_the_compiled_lanes_and_restores_them():
    """The paired vertical law's OpenMP lanes run on one thread in a replication block."""
    from rocsim.core import _lancaster
    from rocsim.sim.workers import single_threaded

    before = _lancaster.max_threads()
    with single_threaded():
        assert _lancaster.max_threads() == 1
    assert _lancaster.max_threads() == before


def _overlaps_brute(order1_rank2, a_values, b_values):
    """|top-a of classifier 1 & top-b of classifier 2|, counted negative by negative."""
    rank1 = np.arange(order1_rank2.size)
    return np.array(
        [[np.sum((rank1 < a) & (order1_rank2 < b)) for b in b_values] for a in a_values],
        dtype=float,
    )


@pytest.mark.parametrize("seed", range(4))
def test_overlaps_of_the_histogram_equal_the_counts_negative_by_negative(seed):
    from rocsim.core.joint_thresholds import overlaps

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    order1_rank2 = rng.permutation(n)
    a_values = np.flatnonzero(rng.random(n + 1) < 0.5)
    b_values = np.flatnonzero(rng.random(n + 1) < 0.5)
    got = overlaps(order1_rank2, a_values, b_values)
    assert np.array_equal(got, _overlaps_brute(order1_rank2, a_values, b_values))


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_paired_ranking_counts_each_positives_negatives_above_it(side):
    """The paired law's one ranking per classifier: ``a_i`` counted brute force (``>`` on the
    lower side, ``>=`` on the upper), with ties and signed zeros, and the shares it gives the
    single laws equal to rates_at_ranks bit for bit."""
    from rocsim.core.paired_vertical import _ranking
    from rocsim.core.vertical import rates_at_ranks

    rng = np.random.default_rng(5)
    for n_pos, n_neg in [(1, 1), (7, 3), (200, 150), (40, 1000)]:
        pos = np.round(rng.normal(1, 1, n_pos), 1)
        neg = np.round(rng.normal(0, 1, n_neg), 1)
        neg[: n_neg // 3] = rng.choice([0.0, -0.0], n_neg // 3)
        pos[: n_pos // 3] = rng.choice([0.0, -0.0], n_pos // 3)
        ranking = _ranking(pos, neg, side)
        beats = neg[None, :] > pos[:, None] if side == "lower" else neg[None, :] >= pos[:, None]
        above = beats.sum(axis=1)
        assert np.array_equal(ranking.above, above)
        assert np.array_equal(ranking.histogram, np.bincount(above, minlength=n_neg + 1))
        assert np.all(np.diff(neg[ranking.order]) <= 0)
        want = rates_at_ranks(pos, np.sort(neg)[::-1], side)
        assert np.array_equal(ranking.rates(), want)


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_paired_law_carries_each_classifiers_single_law_bit_for_bit(side):
    """vertical_difference builds each classifier's law from its own ranking's counts: the
    data's difference and the mean are those of the two vertical_distribution laws, exactly
    (ties included)."""
    from rocsim.core import vertical_difference, vertical_distribution

    rng = np.random.default_rng(6)
    pos1, pos2, neg1, neg2 = (np.round(rng.normal(m, 1, 120), 1) for m in (1, 1.5, 0, 0.2))
    r = np.arange(1, 120, 7)
    law = vertical_difference(pos1, pos2, neg1, neg2, r, side=side)
    one = vertical_distribution(pos1, neg1, r, side=side)
    two = vertical_distribution(pos2, neg2, r, side=side)
    assert np.array_equal(law.dtpr, one.tpr - two.tpr)
    assert np.array_equal(law.mean, one.mean - two.mean)


def test_paired_moments_do_not_depend_on_the_order_of_the_data():
    """Shuffling the instances (so tied negatives come out of the sort in another order)
    leaves every moment bit for bit: the counts are taken at the edges of ties."""
    from rocsim.core import vertical_difference

    rng = np.random.default_rng(11)
    pos1, pos2, neg1, neg2 = (np.round(rng.normal(m, 1, 150), 1) for m in (1, 1.5, 0, 0.2))
    r = np.arange(1, 150, 5)
    law = vertical_difference(pos1, pos2, neg1, neg2, r)
    p, q = rng.permutation(150), rng.permutation(150)
    shuffled = vertical_difference(pos1[p], pos2[p], neg1[q], neg2[q], r)
    for field in ("dtpr", "mean", "var", "discordance"):
        assert np.array_equal(getattr(law, field), getattr(shuffled, field)), field


def test_positions_by_table_are_numpys_searchsorted():
    from rocsim.core.paired_vertical import _positions

    rng = np.random.default_rng(7)
    for most in (0, 5, 300):
        distinct = np.flatnonzero(rng.random(most + 1) < 0.4)
        if distinct.size == 0:
            continue
        values = rng.choice(distinct, 50)
        got = _positions(distinct, most)[values]
        assert np.array_equal(got, np.searchsorted(distinct, values))


def test_first_columns_by_counting_are_numpys_searchsorted(monkeypatch):
    """The kernel's first_column (each negative's count of b values at most its classifier-2
    rank) by cumulative counts is searchsorted(b_values, rank2, side='right')."""
    from rocsim.core import joint_thresholds as jt

    seen = {}
    kernel = jt._lancaster_moments

    def spy(*args):
        seen["first_column"], seen["b"] = args[6], args[5]
        return kernel(*args)

    monkeypatch.setattr(jt, "_lancaster_moments", spy)
    rng = np.random.default_rng(8)
    pos1, pos2, neg1, neg2 = (np.round(rng.normal(m, 1, 90), 1) for m in (1, 1.5, 0, 0))
    from rocsim.core.paired_vertical import joint_threshold_law

    law, weights, pairs, _ = joint_threshold_law(pos1, pos2, neg1, neg2, np.arange(1, 90), "lower")
    law.moments(*weights, pairs)
    want = np.searchsorted(seen["b"], law.order1_rank2, side="right")
    assert np.array_equal(seen["first_column"], want)


def test_kept_krawtchouk_values_give_the_computed_ones(monkeypatch):
    """At small n the whole Krawtchouk vectors are kept across calls; without them the kernel
    computes the prefixes it needs (a recurrence across the columns, not the whole vector's
    forward and backward passes): the same moments to rounding."""
    from rocsim.core import joint_thresholds as jt
    from rocsim.core.paired_vertical import vertical_difference

    rng = np.random.default_rng(9)
    for rho, n in [(0.6, 80), (0.99, 120)]:
        cov = [[1, rho], [rho, 1]]
        pos, neg = (
            rng.multivariate_normal([1, 1.5], cov, n),
            rng.multivariate_normal([0, 0], cov, n),
        )
        data = (pos[:, 0], pos[:, 1], neg[:, 0], neg[:, 1])
        ranks = np.arange(1, n)
        assert jt._kept_values(n, ranks - 1).size  # small enough to keep
        kept = vertical_difference(*data, ranks)
        monkeypatch.setattr(jt, "_KEPT_NUMBERS", 0)
        computed = vertical_difference(*data, ranks)
        monkeypatch.undo()
        np.testing.assert_allclose(computed.var, kept.var, rtol=0, atol=1e-14)
        np.testing.assert_array_equal(computed.mean, kept.mean)


def test_the_paired_law_validates_once_and_gets_each_classifiers_law_unchanged():
    """vertical_difference asks for each classifier's law without validating again: the same
    numbers as the public vertical_distribution."""
    from rocsim.core.paired_vertical import vertical_difference

    rng = np.random.default_rng(6)
    pos1, pos2, neg1, neg2 = (np.round(rng.normal(m, 1, 80), 1) for m in (1, 1.5, 0, 0))
    r = np.arange(1, 80, 7)
    for side in vertical.SIDES:
        law = vertical_difference(pos1, pos2, neg1, neg2, r, side=side)
        one = vertical.vertical_distribution(pos1, neg1, r, side=side)
        two = vertical.vertical_distribution(pos2, neg2, r, side=side)
        assert np.array_equal(law.mean, one.mean - two.mean)
        assert np.array_equal(law.dtpr, one.tpr - two.tpr)
