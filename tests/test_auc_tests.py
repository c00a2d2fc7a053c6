"""One-sided AUC intervals and tests (``alternative``, ``null``) on every AUC result: the
one-sided bound is the two-sided bound at twice the alpha, and the p-value is dual to the
interval (``p < alpha`` exactly when the null lies outside the interval at level
``1 - alpha``), for every method; binary, partial, multiclass, and the paired differences."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import rocsim
from rocsim.core.results import format_p

RNG = np.random.default_rng(2026)
N = 40
Y = np.r_[np.ones(N), np.zeros(N)]
S1 = np.round(np.r_[RNG.normal(1.0, 1, N), RNG.normal(0, 1, N)], 1)  # ties
S2 = np.round(S1 + RNG.normal(0, 0.8, 2 * N), 1)
Y3 = np.repeat([0, 1, 2], 30)
P1 = RNG.dirichlet(np.ones(3), 90) + np.eye(3)[Y3] * 0.4
P2 = RNG.dirichlet(np.ones(3), 90) + np.eye(3)[Y3] * 0.2

#: name -> (call taking the test's keywords, the null's range, the default null)
KINDS = {
    "auc delong": (lambda **k: rocsim.auc_ci(Y, S1, **k), (0.0, 1.0)),
    "auc exact": (lambda **k: rocsim.auc_ci(Y, S1, method="exact_bootstrap", **k), (0, 1)),
    "auc hanley_mcneil": (lambda **k: rocsim.auc_ci(Y, S1, method="hanley_mcneil", **k), (0, 1)),
    "auc logit": (lambda **k: rocsim.auc_ci(Y, S1, method="logit", **k), (0, 1)),
    "auc newcombe": (lambda **k: rocsim.auc_ci(Y, S1, method="newcombe", **k), (0, 1)),
    "auc newcombe small": (
        lambda **k: rocsim.auc_ci(
            [1, 1, 1, 1, 0, 0, 0], [5, 6, 7, 3, 1, 2, 4], method="newcombe", **k
        ),
        (0, 1),
    ),
    "partial delong": (lambda **k: rocsim.auc_ci(Y, S1, max_fpr=0.3, **k), (0, 1)),
    "partial exact": (
        lambda **k: rocsim.auc_ci(Y, S1, fpr_range=(0.1, 0.4), method="exact_bootstrap", **k),
        (0, 1),
    ),
    "multiclass ovo": (lambda **k: rocsim.auc_ci(Y3, P1, multi_class="ovo", **k), (0, 1)),
    "multiclass ovr exact": (
        lambda **k: rocsim.auc_ci(
            Y3, P1, multi_class="ovr", average="weighted", method="exact_bootstrap", **k
        ),
        (0, 1),
    ),
    "difference delong": (lambda **k: rocsim.compare_auc(Y, S1, S2, **k), (-1, 1)),
    "difference exact": (
        lambda **k: rocsim.compare_auc(Y, S1, S2, method="exact_bootstrap", **k),
        (-1, 1),
    ),
    "partial difference": (lambda **k: rocsim.compare_auc(Y, S1, S2, max_fpr=0.3, **k), (-1, 1)),
    "multiclass difference": (
        lambda **k: rocsim.compare_auc(
            Y3, P1, P2, multi_class="ovo", method="exact_bootstrap", **k
        ),
        (-1, 1),
    ),
}


def estimate(result) -> float:
    return result.difference if hasattr(result, "difference") else result.auc


@pytest.mark.parametrize("kind", KINDS)
def test_one_sided_bounds_are_two_sided_bounds_at_twice_the_alpha(kind):
    call, (lower, upper) = KINDS[kind]
    for level in (0.8, 0.9, 0.95):
        two = call(confidence_level=2 * level - 1)
        greater = call(confidence_level=level, alternative="greater")
        less = call(confidence_level=level, alternative="less")
        assert greater.low == pytest.approx(two.low, abs=1e-12) and greater.high == upper
        assert less.high == pytest.approx(two.high, abs=1e-12) and less.low == lower
        assert isinstance(greater.p_value, float) and isinstance(greater.high, float)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("kind", KINDS)
def test_p_value_is_dual_to_the_interval(kind, alternative):
    call, (lower, upper) = KINDS[kind]
    value = estimate(call())
    nulls = np.r_[np.linspace(lower + 0.01, upper - 0.01, 11), value - 0.03, value + 0.03]
    checked = 0
    for alpha in (0.05, 0.2):
        for null in np.clip(nulls, lower, upper):
            got = call(confidence_level=1 - alpha, alternative=alternative, null=float(null))
            outside = not got.low <= null <= got.high
            assert (got.p_value < alpha) == outside, (alpha, null, got.p_value, got.low, got.high)
            checked += outside
    assert checked > 0  # some nulls are rejected, so both sides of the duality are seen


def test_p_values_are_the_normal_tails():
    got = rocsim.auc_ci(Y, S1, method="delong")
    z = (got.auc - 0.5) / np.sqrt(got.var)
    assert got.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)
    greater = rocsim.auc_ci(Y, S1, method="delong", alternative="greater", null=0.7)
    assert greater.p_value == pytest.approx(
        stats.norm.sf((got.auc - 0.7) / np.sqrt(got.var)), rel=1e-12
    )
    less = rocsim.auc_ci(Y, S1, method="delong", alternative="less", null=0.7)
    assert less.p_value == pytest.approx(1 - greater.p_value, rel=1e-12)
    assert greater.to_frame().attrs["alternative"] == "greater"
    assert "p = " in repr(greater) and "H1: > 0.7" in repr(greater)


def test_a_sure_auc_is_tested_as_sure():
    # every positive above every negative: the AUC is 1 in every resample, variance 0
    y, s = np.r_[np.ones(5), np.zeros(5)], np.r_[np.arange(5) + 10.0, np.arange(5)]
    got = rocsim.auc_ci(y, s, method="exact_bootstrap", alternative="greater")
    assert (got.auc, got.var, got.low, got.high, got.p_value) == (1.0, 0.0, 1.0, 1.0, 0.0)
    at_one = rocsim.auc_ci(y, s, method="exact_bootstrap", alternative="greater", null=1.0)
    assert at_one.p_value == 1.0
    # the summary writes a p-value of 0 as a bound, never "p = 0" or "0.000000e+00"
    assert "p < 1e-16 (H1: > 0.5)" in repr(got) and "p = 1 (H1: > 1)" in repr(at_one)


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.0, "p < 1e-16"),  # underflowed
        (1.9e-79, "p < 1e-16"),  # a normal tail far beyond what the approximation can say
        (9.99e-17, "p < 1e-16"),
        (1e-16, "p = 1e-16"),
        (4.7400301e-05, "p = 4.74e-05"),
        (0.0071234, "p = 0.00712"),
        (0.26003, "p = 0.26"),
        (1.0, "p = 1"),
        (np.float64(0.5), "p = 0.5"),
        (float("nan"), "p = nan"),
    ],
)
def test_p_values_are_written_as_a_statistician_reads_them(p, text):
    assert format_p(p) == text


def test_every_summary_writes_p_values_one_way():
    # binary, partial, multiclass and paired results all go through format_p
    y3 = np.repeat([0, 1, 2], 10)
    separated = np.eye(3)[y3] * 0.8 + 0.1  # each class's own column highest: AUCs of 1
    results = [
        rocsim.auc_ci(Y, S1),
        rocsim.auc_ci(Y, S1, max_fpr=0.5),
        rocsim.compare_auc(Y, S1, S2),
        rocsim.compare_auc(Y, S1, S2, max_fpr=0.5),
        rocsim.auc_ci(y3, separated, multi_class="ovo", method="exact_bootstrap"),
    ]
    for result in results:
        assert f", {format_p(result.p_value)} (H1: " in repr(result)
    assert "p < 1e-16" in repr(results[-1])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"alternative": "bigger"}, "alternative"),
        ({"null": 1.5}, r"null must be in \[0, 1\]"),
        ({"null": "0.5"}, "null must be a number"),
        ({"null": True}, "null must be a number"),
    ],
)
def test_bad_tests(options, message):
    with pytest.raises(ValueError, match=message):
        rocsim.auc_ci(Y, S1, **options)
    # a difference's null lies in [-1, 1]: the same words, its own range
    with pytest.raises(ValueError, match=message.replace(r"\[0, 1\]", r"\[-1, 1\]")):
        rocsim.compare_auc(Y, S1, S2, **options)


def test_new_methods_by_their_formulas():
    from rocsim.core.auc_methods import hanley_mcneil_var, newcombe_var

    got = {m: rocsim.auc_ci(Y, S1, method=m) for m in ("hanley_mcneil", "logit", "newcombe")}
    a, m, n = got["logit"].auc, N, N
    # Hanley & McNeil (1982), their exponential model's Q1, Q2
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    assert got["hanley_mcneil"].var == pytest.approx(
        (a * (1 - a) + (m - 1) * (q1 - a * a) + (n - 1) * (q2 - a * a)) / (m * n), rel=1e-12
    )
    assert hanley_mcneil_var(a, m, n) == got["hanley_mcneil"].var
    # logit: DeLong's variance by the delta method, the bounds back-transformed
    delong = rocsim.auc_ci(Y, S1, method="delong")
    half = stats.norm.ppf(0.975) * np.sqrt(delong.var) / (a * (1 - a))
    logit = np.log(a / (1 - a))
    expected = 1 / (1 + np.exp(-(logit + np.array([-half, half]))))
    assert [got["logit"].low, got["logit"].high] == pytest.approx(expected.tolist(), abs=1e-10)
    # Newcombe: HM's variance with both sizes their mean N*, written as he writes it
    big = (m + n) / 2
    for theta in (0.3, 0.7, 0.95):
        spread = 1 + (big - 1) * ((1 - theta) / (2 - theta) + theta / (1 + theta))
        assert newcombe_var(theta, m, n) == pytest.approx(theta * (1 - theta) / (m * n) * spread)
    # the score interval: each bound solves (auc - bound)^2 = z^2 V(bound)
    z = stats.norm.ppf(0.975)
    for bound in (got["newcombe"].low, got["newcombe"].high):
        assert (a - bound) ** 2 == pytest.approx(z * z * newcombe_var(bound, m, n), rel=1e-9)


def test_newcombe_stays_informative_where_wald_collapses():
    # every positive above every negative, five of each: the Wald intervals are [1, 1]
    y, s = np.r_[np.ones(5), np.zeros(5)], np.r_[np.arange(5) + 10.0, np.arange(5)]
    for method in ("delong", "exact_bootstrap", "hanley_mcneil", "logit"):
        got = rocsim.auc_ci(y, s, method=method)
        assert (got.low, got.high) == (1.0, 1.0)
    newcombe = rocsim.auc_ci(y, s, method="newcombe")
    assert 0.5 < newcombe.low < 0.9 and newcombe.high == 1.0


@pytest.mark.parametrize("method", ["delong", "exact_bootstrap", "mover"])
def test_identical_classifiers_one_sided_p_is_one_half(method):
    """The same scores twice: the difference is 0 with no variance. Two-sided p = 1; a
    one-sided test has its statistic on the boundary, p = 1/2 (pROC's roc.test gives 0.5)."""
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(20), np.zeros(20)]
    s = rng.normal(size=40) + y
    assert rocsim.compare_auc(y, s, s, method=method).p_value == 1.0
    for alternative in ("greater", "less"):
        got = rocsim.compare_auc(y, s, s, method=method, alternative=alternative)
        assert got.p_value == 0.5
