"""The MOVER interval of the multiclass AUC (``multiclass_auc_ci(method="mover")``): a
direct numpy transcription of its formula on tiny data, perfectly separated classes (the
interval keeps a width below 1), the method checks, the estimate inside the interval, the
p-value inverting the interval, and DeLong's interval at large n."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import optimize, special

import rocsim
from rocsim.core.area import auc_ci
from rocsim.core.multiclass import (
    MULTICLASS_AUC_METHODS,
    multiclass_auc_ci,
    multiclass_auc_difference_ci,
)

SETTINGS = list(itertools.product(["ovo", "ovr"], ["macro", "weighted"]))


def scores(sizes, seed: int, decimals: int | None = 1, signal: float = 0.3):
    """Scores by class, ``(n_k, c)`` rows (rounded: ties within a column)."""
    rng = np.random.default_rng(seed)
    out = []
    for k, n in enumerate(sizes):
        s = rng.dirichlet(np.ones(len(sizes)), size=n)
        s[:, k] += signal
        out.append(np.round(s, decimals) if decimals is not None else s)
    return out


# --- a direct transcription of the formula (numpy and scipy only) ---------------------------


def psi(u, v):
    """``[u > v] + [u = v] / 2`` for every pair (rows ``u``, columns ``v``)."""
    u, v = np.asarray(u)[:, None], np.asarray(v)[None, :]
    return (u > v) + 0.5 * (u == v)


def components(by_class, multi_class):
    """Each component's AUC, its placements (one array per class: the derivative of the AUC
    in each instance's weight), its two groups' sizes and its raw weight."""
    sizes = [b.shape[0] for b in by_class]
    n, c = sum(sizes), len(sizes)
    out = []
    if multi_class == "ovo":
        for a, b in itertools.combinations(range(c), 2):
            ka = psi(by_class[a][:, a], by_class[b][:, a])  # class a positive on column a
            kb = psi(by_class[b][:, b], by_class[a][:, b])  # class b positive on column b
            scale = 1.0 / (2 * sizes[a] * sizes[b])
            place = [np.zeros(m) for m in sizes]
            place[a] = scale * (ka.sum(axis=1) + kb.sum(axis=0))
            place[b] = scale * (ka.sum(axis=0) + kb.sum(axis=1))
            auc = scale * (ka.sum() + kb.sum())
            out.append((auc, place, (sizes[a], sizes[b]), sizes[a] + sizes[b]))
        return out
    for k in range(c):
        rest = np.concatenate([by_class[j][:, k] for j in range(c) if j != k])
        kk = psi(by_class[k][:, k], rest)
        scale = 1.0 / (sizes[k] * (n - sizes[k]))
        place = [np.zeros(m) for m in sizes]
        place[k] = scale * kk.sum(axis=1)
        cols = scale * kk.sum(axis=0)
        start = 0
        for j in range(c):
            if j != k:
                place[j] = cols[start : start + sizes[j]]
                start += sizes[j]
        out.append((scale * kk.sum(), place, (sizes[k], n - sizes[k]), sizes[k]))
    return out


def delong(placements) -> float:
    """``sum_a n_a / (n_a - 1) SS_a``: DeLong's variance from the placements of each class."""
    return float(sum(p.size / (p.size - 1) * np.sum((p - p.mean()) ** 2) for p in placements))


def newcombe_shape(theta, n1, n2):
    """Newcombe's (2006) variance at ``theta`` (Hanley & McNeil's with both sizes their
    mean ``N``)."""
    big = (n1 + n2) / 2
    return (
        theta
        * (1 - theta)
        / (n1 * n2)
        * ((2 * big - 1) - (3 * big - 3) / ((2 - theta) * (1 + theta)))
    )


def score_bounds(auc, var, n1, n2, z):
    """The component's score interval: the ``theta`` where ``|auc - theta| = z sqrt(var
    N(theta) / N(auc))``, ``N`` Newcombe's variance (``N`` itself where ``var`` or ``N(auc)``
    is 0)."""
    shape = newcombe_shape(auc, n1, n2)

    def excess(theta):  # z(theta) less the critical value, decreasing on both sides
        v = newcombe_shape(theta, n1, n2)
        if var > 0 and shape > 0:
            v = var * v / shape
        return abs(auc - theta) / np.sqrt(v) - z

    eps = 1e-12  # the ends, where the variance is 0 (and at an AUC of 0 or 1, auc itself)
    low = optimize.brentq(excess, eps, auc - eps, xtol=1e-15) if auc > 0 else 0.0
    high = optimize.brentq(excess, auc + eps, 1 - eps, xtol=1e-15) if auc < 1 else 1.0
    return low, high


def welch_df(placements) -> float:
    """``(sum_a V_a)^2 / sum_a V_a^2 / (n_a - 1)``, ``V_a = n_a / (n_a - 1) SS_a``."""
    pieces = [p.size / (p.size - 1) * np.sum((p - p.mean()) ** 2) for p in placements]
    return sum(pieces) ** 2 / sum(v * v / (p.size - 1) for v, p in zip(pieces, placements))


def transcribed(by_class, multi_class, average, level=0.95):
    """``L = t - sqrt(sum w^2 (t_k - l_k)^2 + rbar_L^2 z^2 (V - sum w^2 v_k))``, ``rbar_L^2 =
    sum w^2 (t_k - l_k)^2 / (z^2 sum w^2 v_k)``, and ``U`` alike, clipped to [0, 1]; ``z``
    Student's t quantile on the Welch-Satterthwaite degrees of freedom of ``V``, the
    components' ``[l_k, u_k]`` their score intervals at that ``z``. Also the components'
    score intervals at the normal quantile (the ones reported)."""
    parts = components(by_class, multi_class)
    raw = np.array([p[3] for p in parts], dtype=float)
    w = np.ones_like(raw) if average == "macro" else raw
    w = w / w.sum()
    aucs = np.array([p[0] for p in parts])
    v = np.array([delong(p[1]) for p in parts])
    whole = [sum(wk * p[1][a] for wk, p in zip(w, parts)) for a in range(len(by_class))]
    big_v = delong(whole)
    normal = special.ndtri(0.5 + level / 2)
    z = special.stdtrit(welch_df(whole), 0.5 + level / 2) if big_v > 0 else normal
    bounds = np.array([score_bounds(a, vk, *p[2], z) for a, vk, p in zip(aucs, v, parts)])
    reported = np.array([score_bounds(a, vk, *p[2], normal) for a, vk, p in zip(aucs, v, parts)])
    theta = float(w @ aucs)
    own = float(np.sum(w**2 * v))
    out = []
    for distance in (aucs - bounds[:, 0], bounds[:, 1] - aucs):
        squares = float(np.sum(w**2 * distance**2))
        if own > 0:
            rbar2 = squares / (z * z * own)
            squares = squares + rbar2 * z * z * (big_v - own)
        out.append(np.sqrt(squares))
    return theta, big_v, max(theta - out[0], 0.0), min(theta + out[1], 1.0), reported


@pytest.mark.parametrize(("multi_class", "average"), SETTINGS)
@pytest.mark.parametrize(("sizes", "seed"), [((3, 4, 5), 1), ((4, 2, 3, 5), 2), ((6, 5, 7), 3)])
def test_the_interval_is_its_formula(sizes, seed, multi_class, average):
    by_class = scores(sizes, seed)
    theta, big_v, low, high, bounds = transcribed(by_class, multi_class, average)
    got = multiclass_auc_ci(by_class, multi_class=multi_class, average=average, method="mover")
    assert got.method == "mover"
    assert got.auc == pytest.approx(theta, abs=1e-12)
    # the variance reported is DeLong's of the weighted average (the delong method's)
    assert got.var == pytest.approx(big_v, rel=1e-10, abs=1e-15)
    delong_ci = multiclass_auc_ci(by_class, multi_class=multi_class, average=average)
    assert got.var == pytest.approx(delong_ci.var, rel=1e-12, abs=1e-15)
    assert got.low == pytest.approx(low, abs=1e-9)
    assert got.high == pytest.approx(high, abs=1e-9)
    # each component's interval is its score interval, its variance DeLong's
    assert np.allclose(got.component_low, bounds[:, 0], atol=1e-9)
    assert np.allclose(got.component_high, bounds[:, 1], atol=1e-9)
    assert np.allclose(got.component_var, delong_ci.component_var, rtol=1e-12, atol=1e-15)


def test_a_hand_checked_case():
    """Three classes of two. Pairs 0-1 and 0-2 are perfectly separated (AUC 1, DeLong
    variance 0, placements constant); pair 1-2 ranks 3 of its 4 pairs right on both columns
    (AUC 3/4), its placements 1/2 and 1/4 in each class, so ``v = 2 (2 (1/8)^2) 2 = 1/8``.
    The average's placements vary only through pair 1-2's: ``V = v / 9 = sum w^2 v_k``, no
    covariance; classes 1 and 2 carry equal halves of it on one degree of freedom each, so
    the critical value is Student's t on 2 degrees of freedom, and ``L = theta - sqrt((1 -
    l)^2 + (1 - l)^2 + (3/4 - l_12)^2) / 3`` with ``l`` Newcombe's lower bound of an AUC of 1
    on 2 + 2 instances and ``l_12`` the score bound of pair 1-2, both at that t."""
    by_class = [
        np.array([[0.9, 0.1, 0.0], [0.8, 0.1, 0.1]]),
        np.array([[0.1, 0.7, 0.2], [0.2, 0.5, 0.6]]),
        np.array([[0.1, 0.2, 0.7], [0.0, 0.6, 0.5]]),
    ]
    got = multiclass_auc_ci(by_class, method="mover")
    assert got.component_auc.tolist() == pytest.approx([1.0, 1.0, 0.75], abs=1e-15)
    assert got.auc == pytest.approx(2.75 / 3, abs=1e-15)
    assert got.component_var.tolist() == pytest.approx([0.0, 0.0, 0.125], abs=1e-15)
    assert got.var == pytest.approx(0.125 / 9, abs=1e-15)
    t = special.stdtrit(2, 0.975)
    sure = auc_ci([1.0, 1.0], [0.0, 0.0], method="newcombe", confidence_level=0.95)
    assert got.component_low[:2] == pytest.approx([sure.low] * 2, abs=1e-12)
    sure_low = score_bounds(1.0, 0.0, 2, 2, t)[0]
    low12, high12 = score_bounds(0.75, 0.125, 2, 2, t)
    expected_low = got.auc - np.sqrt(2 * (1 - sure_low) ** 2 + (0.75 - low12) ** 2) / 3
    expected_high = got.auc + np.sqrt(0 + 0 + (high12 - 0.75) ** 2) / 3
    assert (got.low, got.high) == pytest.approx((expected_low, expected_high), abs=1e-9)
    # and the transcription agrees, component intervals included
    _, _, low, high, bounds = transcribed(by_class, "ovo", "macro")
    assert (got.low, got.high) == pytest.approx((low, high), abs=1e-9)
    assert tuple(bounds[2]) == pytest.approx(
        (got.component_low[2], got.component_high[2]), abs=1e-9
    )


def test_two_classes_give_the_components_score_interval():
    """One component: ``V = v``, the MOVER is that component's own score interval, at
    Student's t critical value on DeLong's Welch-Satterthwaite degrees of freedom."""
    by_class = [b[:, :2] for b in scores((6, 8), 4)]
    got = multiclass_auc_ci(by_class, method="mover")
    placements = components(by_class, "ovo")[0][1]
    t = special.stdtrit(welch_df(placements), 0.975)
    expected = score_bounds(got.component_auc[0], got.component_var[0], 6, 8, t)
    assert (got.low, got.high) == pytest.approx(expected, abs=1e-9)
    assert got.low < got.component_low[0] and got.high > got.component_high[0]


def test_the_t_critical_value_survives_scipys_far_tail():
    """scipy's ``stdtrit`` returns inf of the wrong sign at a fractional df far in the tail;
    the critical value stays positive and large there, so the p-value's search works."""
    from rocsim.core.multiclass import HUGE_CRITICAL, _t_critical

    critical = _t_critical(5.5)
    assert critical(37.0) == HUGE_CRITICAL
    assert critical(1.959963984540054) == pytest.approx(special.stdtrit(5.5, 0.975), rel=1e-12)
    assert _t_critical(np.inf)(1.5) == 1.5


@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_perfect_separation_keeps_a_width_below_one(multi_class):
    """Every component AUC 1 (every DeLong variance 0): the interval is ``[1 - sqrt(sum w^2
    (1 - l_k)^2), 1]``, ``l_k`` Newcombe's lower bound of the component (as a binary AUC of
    its two groups' sizes), where the Wald intervals collapse to ``[1, 1]``."""
    sizes = (3, 4, 5)
    rng = np.random.default_rng(5)
    by_class = []
    for k, n in enumerate(sizes):
        rows = rng.uniform(0.0, 0.4, size=(n, 3))
        rows[:, k] = rng.uniform(0.6, 1.0, size=n)
        by_class.append(rows)
    got = multiclass_auc_ci(by_class, multi_class=multi_class, method="mover")
    assert got.auc == 1.0 and got.var == 0.0
    assert np.all(got.component_auc == 1.0)
    assert got.high == 1.0 and 0.5 < got.low < 1.0
    groups = (
        [(sizes[a], sizes[b]) for a, b in itertools.combinations(range(3), 2)]
        if multi_class == "ovo"
        else [(m, sum(sizes) - m) for m in sizes]
    )
    lows = [auc_ci(np.ones(p), np.zeros(q), method="newcombe").low for p, q in groups]
    w = got.component_weight
    expected = 1.0 - np.sqrt(np.sum(w**2 * (1.0 - np.array(lows)) ** 2))
    assert got.low == pytest.approx(expected, abs=1e-12)
    assert np.allclose(got.component_low, lows, atol=1e-12)
    delong_ci = multiclass_auc_ci(by_class, multi_class=multi_class)
    assert delong_ci.low == delong_ci.high == 1.0


# --- the method's name ----------------------------------------------------------------------


def test_mover_is_a_multiclass_method_only():
    from rocsim.core.area import AUC_INTERVAL_METHODS

    assert "mover" in MULTICLASS_AUC_METHODS
    assert "mover" not in AUC_INTERVAL_METHODS  # the binary table is not this one's


def test_a_bad_method_name_is_named():
    by_class = scores((4, 5, 6), 6)
    with pytest.raises(ValueError, match=r"method 'moover'; valid: .*mover"):
        multiclass_auc_ci(by_class, method="moover")
    y = np.repeat([0, 1, 2], [4, 5, 6])
    with pytest.raises(ValueError, match=r"method 'moover'; valid: .*mover"):
        rocsim.auc_ci(y, np.vstack(by_class), multi_class="ovr", method="moover")


def test_the_difference_refuses_the_mover_by_its_argument():
    first, second = scores((4, 5, 6), 7), scores((4, 5, 6), 8)
    with pytest.raises(ValueError, match=r"method='mover'.*multiclass_auc_ci"):
        multiclass_auc_difference_ci(first, second, method="mover")
    y = np.repeat([0, 1, 2], [4, 5, 6])
    with pytest.raises(ValueError, match=r"method='mover'"):
        rocsim.compare_auc(
            y, np.vstack(first), np.vstack(second), multi_class="ovo", method="mover"
        )


def test_the_mover_needs_two_instances_a_class():
    by_class = [np.array([[0.9, 0.1, 0.0]]), *scores((4, 5), 9)]
    by_class[1:] = [np.column_stack([b, np.zeros(len(b))]) for b in by_class[1:]]
    with pytest.raises(ValueError, match="at least 2 instances of every class"):
        multiclass_auc_ci(by_class, method="mover")


# --- the interval itself --------------------------------------------------------------------


@pytest.mark.parametrize(("multi_class", "average"), SETTINGS)
def test_the_interval_holds_the_estimate(multi_class, average):
    for seed, sizes in enumerate([(3, 4, 5), (5, 10, 15, 20), (2, 3, 2, 4, 3), (30, 20, 25)]):
        for signal in (0.0, 0.3, 1.0):
            by_class = scores(sizes, 20 + seed, decimals=2, signal=signal)
            got = multiclass_auc_ci(
                by_class, multi_class=multi_class, average=average, method="mover"
            )
            assert 0.0 <= got.low <= got.auc <= got.high <= 1.0
            assert got.high > got.low
            assert np.all(got.component_low <= got.component_auc)
            assert np.all(got.component_auc <= got.component_high)


def test_one_sided_intervals_and_the_level():
    by_class = scores((5, 7, 9), 10, decimals=2)
    two = multiclass_auc_ci(by_class, method="mover", confidence_level=0.9)
    greater = multiclass_auc_ci(
        by_class, method="mover", confidence_level=0.95, alternative="greater"
    )
    less = multiclass_auc_ci(by_class, method="mover", confidence_level=0.95, alternative="less")
    # one-sided at 0.95: the bound of the two-sided interval at 0.90, the other end 0 or 1
    assert greater.low == pytest.approx(two.low, abs=1e-12) and greater.high == 1.0
    assert less.high == pytest.approx(two.high, abs=1e-12) and less.low == 0.0
    wider = multiclass_auc_ci(by_class, method="mover", confidence_level=0.99)
    assert wider.low < two.low and wider.high > two.high


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_the_p_value_inverts_the_interval(alternative):
    by_class = scores((6, 8, 7), 11, decimals=2)
    for level in (0.8, 0.95):
        got = multiclass_auc_ci(
            by_class, method="mover", confidence_level=level, alternative=alternative
        )
        for bound in (got.low, got.high):
            if bound in (0.0, 1.0):
                continue
            at = multiclass_auc_ci(
                by_class,
                method="mover",
                confidence_level=level,
                alternative=alternative,
                null=bound,
            )
            assert at.p_value == pytest.approx(1 - level, abs=1e-8)
        for null in (0.3, 0.5, 0.7, got.auc - 0.01, got.auc + 0.01):
            p = multiclass_auc_ci(
                by_class,
                method="mover",
                alternative=alternative,
                null=null,
                confidence_level=level,
            ).p_value
            assert 0.0 <= p <= 1.0
            outside = not got.low <= null <= got.high
            assert (p < 1 - level) == outside
    at_estimate = multiclass_auc_ci(by_class, method="mover", null=got.auc)
    assert at_estimate.p_value == 1.0


def test_auc_ci_passes_the_method_through():
    by_class = scores((8, 6, 10, 7), 12, decimals=2)
    y = np.repeat(np.arange(4), [b.shape[0] for b in by_class])
    for multi_class in ("ovo", "ovr"):
        got = rocsim.auc_ci(y, np.vstack(by_class), multi_class=multi_class, method="mover")
        core = multiclass_auc_ci(by_class, multi_class=multi_class, method="mover")
        assert got.method == "mover"
        assert (got.low, got.high, got.p_value) == (core.low, core.high, core.p_value)
        assert got.to_frame().shape[0] == len(core.component) + 1


@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_at_large_n_the_interval_is_delongs(multi_class):
    """The score intervals' skew fades with n: at 1000 instances a class the MOVER's bounds
    are within 3% of the width of DeLong's Wald interval, and as wide within 2%."""
    rng = np.random.default_rng(13)
    sizes = (800, 1000, 1200, 900)
    by_class = []
    for k, n in enumerate(sizes):
        rows = rng.normal(size=(n, 4))
        rows[:, k] += 1.2
        by_class.append(rows)
    mover = multiclass_auc_ci(by_class, multi_class=multi_class, method="mover")
    wald = multiclass_auc_ci(by_class, multi_class=multi_class, method="delong")
    width = wald.high - wald.low
    assert abs(mover.low - wald.low) < 0.03 * width
    assert abs(mover.high - wald.high) < 0.03 * width
    assert mover.high - mover.low == pytest.approx(width, rel=0.02)
