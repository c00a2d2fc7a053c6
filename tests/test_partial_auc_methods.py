"""The partial AUC's ``logit_t`` interval (:func:`rocsim.core.partial_area.partial_auc_ci`):
inside the range of the standardised area and around its estimate, the formula transcribed by
hand on small data (its centre, the bias-corrected area, from the binomial law of the
resampled negatives' order statistics), its p-value agreeing with its interval, perfect
separation, and bad method names."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

import rocsim
from rocsim.core.partial_area import (
    PARTIAL_AUC_METHODS,
    bias_corrected_area,
    bootstrap_mean_area,
    exact_partial_area_var,
    mcclish,
    partial_area,
    partial_auc_ci,
)

METHOD = "logit_t"


def random_data(rng, ties: bool = False):
    n_pos, n_neg = rng.integers(3, 30, 2)
    if ties:  # an ordinal score: ties within and across the classes
        return rng.integers(0, 6, n_pos).astype(float), rng.integers(0, 4, n_neg).astype(float)
    return rng.normal(1.2, 1.0, n_pos), rng.normal(0.0, 1.0, n_neg)


def test_is_a_partial_auc_method():
    assert METHOD in PARTIAL_AUC_METHODS
    # the default stays the placement-value Wald interval (someone else chooses defaults)
    assert PARTIAL_AUC_METHODS[0] == "delong"


@pytest.mark.parametrize("ties", [False, True])
def test_interval_holds_the_estimate_inside_the_range(ties):
    rng = np.random.default_rng(11 + ties)
    for _ in range(60):
        pos, neg = random_data(rng, ties)
        lo = float(rng.choice([0.0, 0.0, 0.05]))
        hi = float(rng.choice([0.1, 0.3, 0.5, 1.0]))
        focus = str(rng.choice(["fpr", "tpr"]))
        for alternative in ("two-sided", "greater", "less"):
            r = partial_auc_ci(
                pos, neg, (lo, hi), focus=focus, method=METHOD, alternative=alternative
            )
            # (McClish's arithmetic may leave a sure value of 1 an ulp or two above it)
            assert 0.0 <= r.low <= r.auc + 1e-12 and r.auc - 1e-12 <= r.high <= 1.0
            if alternative == "two-sided":
                # McClish's value of a raw area of 0 is the least the standardised area takes
                a, b = (lo, hi) if focus == "fpr" else (1 - hi, 1 - lo)
                assert r.low >= mcclish(0.0, a, b) - 1e-12
            assert 0.0 <= r.p_value <= 1.0
            assert r.method == METHOD


def _by_hand(pos, neg, f, level):
    """The interval over FPR [0, f] transcribed from the formula, for untied scores and
    ``s = f n-`` a whole number (the cut falls between two negatives)."""
    n1, n0 = pos.size, neg.size
    s = round(f * n0)
    top = np.sort(neg)[::-1]
    # a positive's share: the negatives among the top s below it, over n-
    share = np.array([np.sum(top[:s] < x) for x in pos]) / n0
    # a negative's influence: inside the range, its TPR (positives above it) less the TPR at f
    tpr_f = np.mean(pos > top[s]) if s < n0 else 1.0
    influence = np.array([np.mean(pos > y) - tpr_f if y >= top[s - 1] else 0.0 for y in neg])
    area = share.mean()
    # the bootstrap mean: the area is the mean TPR at the top s resampled negatives; the k-th
    # largest of them is the j-th largest negative with probability P(B_j >= k) - P(B_(j-1)
    # >= k), B_j ~ Bin(n-, j / n-) the resampled negatives at or above it
    tpr = np.array([np.mean(pos > y) for y in top])
    at_least = stats.binom.sf(np.arange(s)[:, None], n0, np.arange(n0 + 1)[None, :] / n0)
    boot_mean = float(np.sum(np.diff(at_least, axis=1) @ tpr)) / n0
    centre = 2 * area - boot_mean
    p = centre / f
    v10 = share.var(ddof=1) / n1
    v01 = influence.var(ddof=1) / n0
    # the exact bootstrap variance where larger (checked against enumeration elsewhere)
    scale = max(exact_partial_area_var(pos, neg, 0.0, f) / (v10 + v01), 1.0)
    v10, v01 = scale * v10, scale * v01
    df = (v10 + v01) ** 2 / (v10**2 / (n1 - 1) + v01**2 / max(f * n0 - 1, 1))
    se = np.sqrt(v10 + v01) / f / (p * (1 - p))
    crit = stats.t.ppf(0.5 + level / 2, df)
    low = special.expit(special.logit(p) - crit * se)
    high = special.expit(special.logit(p) + crit * se)
    return mcclish(area, 0.0, f), mcclish(low * f, 0.0, f), mcclish(high * f, 0.0, f), df


def test_hand_checked_values():
    pos = np.array([2.1, 1.7, 1.3, 0.9, 0.6, 0.35, 0.2, -0.4])
    neg = np.array([1.5, 1.1, 0.8, 0.5, 0.3, 0.1, -0.2, -0.6, -0.9, -1.3])
    for f, level in ((0.3, 0.95), (0.5, 0.9), (1.0, 0.95)):
        value, low, high, df = _by_hand(pos, neg, f, level)
        r = partial_auc_ci(pos, neg, (0.0, f), method=METHOD, confidence_level=level)
        assert r.auc == pytest.approx(value, abs=1e-14)
        assert r.partial_area == pytest.approx(partial_area(pos, neg, 0.0, f), abs=1e-14)
        assert (r.low, r.high) == pytest.approx((low, high), abs=1e-12)
        # the reported variance is the placement-value one (the delong method's)
        delong = partial_auc_ci(pos, neg, (0.0, f), method="delong")
        assert r.var == pytest.approx(delong.var, rel=1e-14)
        # few negatives in the range: the t quantile is wider than the normal one
        assert df < pos.size + neg.size
    # one value written out: f = 0.3, three of the ten negatives in the range
    r = partial_auc_ci(pos, neg, (0.0, 0.3), method=METHOD)
    # shares 0.3, 0.3, 0.2, 0.1 and four 0: area 0.1125, p = 0.375, McClish 0.632353; the
    # bootstrap's mean area 0.125297, so the interval is centred on 2 0.1125 - 0.125297
    assert round(r.auc, 6) == 0.632353
    assert round(bootstrap_mean_area(pos, neg, 0.0, 0.3), 6) == 0.125297
    assert (round(r.low, 4), round(r.high, 4)) == (0.4405, 0.899)


def test_the_corrections_stop_beyond_a_few_negatives_in_the_range():
    """With more than FEW_IN_RANGE negatives inside the range the interval is centred on the
    area itself (the test of the estimate gives p = 1) on the placement-value variance; with
    fewer, on the bias-corrected area."""
    from rocsim.core.partial_area import FEW_IN_RANGE

    rng = np.random.default_rng(9)
    pos, neg = rng.normal(1, 1, 300), rng.normal(0, 1, 300)
    inside = FEW_IN_RANGE / 300  # exactly FEW_IN_RANGE negatives in [0, f]
    over = partial_auc_ci(pos, neg, (0.0, inside + 0.01), method=METHOD)
    assert partial_auc_ci(
        pos, neg, (0.0, inside + 0.01), method=METHOD, null=over.auc
    ).p_value == pytest.approx(1.0)
    at = partial_auc_ci(pos, neg, (0.0, inside), method=METHOD)
    centre = bias_corrected_area(pos, neg, 0.0, inside, at.partial_area)
    assert centre != at.partial_area
    null = mcclish(centre, 0.0, inside)
    assert partial_auc_ci(
        pos, neg, (0.0, inside), method=METHOD, null=null
    ).p_value == pytest.approx(1.0)


def test_whole_auc_large_sample_nears_the_delong_interval():
    """At f = 1 and many instances the t quantile is the normal one and the logit scale
    near linear around a middling AUC: the interval nears DeLong's Wald interval."""
    rng = np.random.default_rng(5)
    pos, neg = rng.normal(0.5, 1, 4000), rng.normal(0, 1, 4000)
    r = partial_auc_ci(pos, neg, (0.0, 1.0), method=METHOD)
    d = partial_auc_ci(pos, neg, (0.0, 1.0), method="delong")
    assert (r.low, r.high) == pytest.approx((d.low, d.high), abs=2e-4)
    assert r.auc - r.low > r.high - r.auc  # the logit scale: longer towards 1/2


@pytest.mark.parametrize("level", [0.9, 0.95])
@pytest.mark.parametrize("focus", ["fpr", "tpr"])
def test_p_value_agrees_with_the_interval(level, focus):
    rng = np.random.default_rng(3)
    for _ in range(20):
        pos, neg = random_data(rng)
        rates = (0.0, float(rng.choice([0.2, 0.5, 1.0])))

        def ci(pos=pos, neg=neg, rates=rates, **test):
            return partial_auc_ci(
                pos, neg, rates, focus=focus, method=METHOD, confidence_level=level, **test
            )

        r = ci()
        if r.var == 0.0:
            continue
        for bound in (r.low, r.high):
            # (a bound within rounding of 1 is left out: a null there loses its digits on the
            # way to the share of a narrow range of high FPRs)
            if 0.0 < bound < 1.0 - 1e-9:
                assert ci(null=bound).p_value == pytest.approx(1 - level, abs=1e-9)
        # the interval is centred on the bias-corrected area, not on the estimate
        assert (ci(null=r.auc).p_value >= 1 - level) == (r.low <= r.auc <= r.high)
        # one-sided: the bound at the level, the other end the end of [0, 1]
        for alternative in ("greater", "less"):
            one = ci(alternative=alternative)
            bound, end = (one.low, one.high) if alternative == "greater" else (one.high, one.low)
            assert end in (0.0, 1.0)
            p_value = ci(alternative=alternative, null=bound).p_value
            if bound == 0.0:  # clipped (McClish's scale of a TPR range reaches below 0)
                assert p_value > 1 - level
            elif bound < 1.0 - 1e-9:
                assert p_value == pytest.approx(1 - level, abs=1e-9)


def test_a_null_the_area_cannot_take_is_rejected():
    # over FPR [0, 0.2] McClish's standardised area is at least 0.8 / 1.8 = 0.444...
    pos, neg = np.array([0.9, 0.4, 0.7, 0.2]), np.array([0.8, 0.3, 0.1, 0.5, 0.6])
    r = partial_auc_ci(pos, neg, (0.0, 0.2), method=METHOD, null=0.3)
    assert r.p_value == 0.0
    assert r.low > mcclish(0.0, 0.0, 0.2)
    less = partial_auc_ci(pos, neg, (0.0, 0.2), method=METHOD, null=0.3, alternative="less")
    assert less.p_value == 1.0 and less.low == 0.0


def test_perfect_separation_is_a_sure_value():
    """Documented: a standardised area of 1 (every positive above the range's negatives) has a
    placement-value variance of 0 and no logit: the interval is the point, as the whole AUC's
    logit interval has it; any other null is rejected."""
    pos, neg = np.array([3.0, 2.5, 2.2, 2.9]), np.array([0.1, 0.5, 1.0, -0.3, 0.7])
    r = partial_auc_ci(pos, neg, (0.0, 0.4), method=METHOD)
    assert r.auc == 1.0 and r.var == 0.0
    assert (r.low, r.high) == (1.0, 1.0)
    assert r.p_value == 0.0  # the default null 0.5
    assert partial_auc_ci(pos, neg, (0.0, 0.4), method=METHOD, null=1.0).p_value == 1.0
    # perfect on the range only: the top negatives below every positive, a negative above one
    pos2 = np.array([3.0, 2.5, 0.05, 2.9])
    r2 = partial_auc_ci(pos2, neg, (0.0, 0.2), method=METHOD)
    assert r2.var > 0.0 and r2.low < r2.auc < r2.high  # not sure: a positive below the cut
    # the Wald intervals give the same point at perfect separation
    assert partial_auc_ci(pos, neg, (0.0, 0.4), method="delong").high == 1.0


def test_needs_two_of_each_class():
    with pytest.raises(ValueError, match="at least 2 positives and 2 negatives"):
        partial_auc_ci([0.9], [0.1, 0.2], (0.0, 0.5), method=METHOD)


@pytest.mark.parametrize("bad", ["logit-t", "Logit_t", "wilson", ""])
def test_bad_method_names_raise(bad):
    with pytest.raises(ValueError, match="partial AUC method") as info:
        partial_auc_ci([0.9, 0.4], [0.6, 0.1], (0.0, 0.5), method=bad)
    assert repr(bad) in str(info.value) and METHOD in str(info.value)
    with pytest.raises(ValueError, match="partial AUC method"):
        rocsim.auc_ci([1, 1, 0, 0], [0.9, 0.4, 0.6, 0.1], max_fpr=0.5, method=bad)


def test_the_top_level_passes_the_method_through():
    rng = np.random.default_rng(2)
    pos, neg = rng.normal(1, 1, 30), rng.normal(0, 1, 40)
    y, s = np.r_[np.ones(pos.size), np.zeros(neg.size)], np.r_[pos, neg]
    core = partial_auc_ci(pos, neg, (0.0, 0.3), method=METHOD)
    top = rocsim.auc_ci(y, s, max_fpr=0.3, method=METHOD)
    assert top.method == METHOD
    assert (top.auc, top.low, top.high, top.p_value) == pytest.approx(
        (core.auc, core.low, core.high, core.p_value), abs=1e-15
    )
    tpr = rocsim.auc_ci(y, s, tpr_range=(0.8, 1.0), method=METHOD)
    assert tpr.focus == "tpr" and tpr.low <= tpr.auc <= tpr.high
