"""``method="delong_t"`` of the paired partial and multiclass AUC differences: DeLong's
variance with Student's t quantile on its Welch-Satterthwaite degrees of freedom, transcribed
by hand (numpy and scipy only), its p-value inverting its interval, and the top level passing
the method through."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from test_multiclass_mover import components, delong, welch_df

import rocsim
from rocsim.core.multiclass import (
    MULTICLASS_AUC_DIFFERENCE_METHODS,
    multiclass_auc_difference_ci,
)
from rocsim.core.partial_area import (
    PARTIAL_AUC_DIFFERENCE_METHODS,
    mcclish_scale,
    partial_auc_difference_ci,
    placement_values,
)


def paired_scores(rng, n_pos: int, n_neg: int):
    pos1, neg1 = rng.normal(1.0, 1.0, n_pos), rng.normal(0.0, 1.0, n_neg)
    return pos1, pos1 + rng.normal(0, 0.8, n_pos) - 0.3, neg1, neg1 + rng.normal(0, 0.8, n_neg)


def test_the_methods_are_listed():
    assert "delong_t" in PARTIAL_AUC_DIFFERENCE_METHODS
    assert "delong_t" in MULTICLASS_AUC_DIFFERENCE_METHODS
    assert PARTIAL_AUC_DIFFERENCE_METHODS[0] == MULTICLASS_AUC_DIFFERENCE_METHODS[0] == "delong"


@pytest.mark.parametrize("f", [0.1, 0.3, 1.0])
def test_partial_difference_by_hand(f):
    rng = np.random.default_rng(4)
    pos1, pos2, neg1, neg2 = paired_scores(rng, 25, 30)
    got = partial_auc_difference_ci(pos1, pos2, neg1, neg2, (0.0, f), method="delong_t")
    share1, influence1 = placement_values(pos1, neg1, 0.0, f)
    share2, influence2 = placement_values(pos2, neg2, 0.0, f)
    v10 = np.var(share1 - share2, ddof=1) / 25
    v01 = np.var(influence1 - influence2, ddof=1) / 30
    # the negatives' part on the 2 f n- negatives inside the range of either classifier,
    # less one (at least 1)
    df = (v10 + v01) ** 2 / (v10**2 / 24 + v01**2 / max(2 * f * 30 - 1, 1))
    sd = np.sqrt(v10 + v01) * mcclish_scale(0.0, f)
    half = stats.t.ppf(0.975, df) * sd
    assert (got.low, got.high) == pytest.approx(
        (got.difference - half, got.difference + half), abs=1e-12
    )
    assert got.p_value == pytest.approx(2 * stats.t.sf(abs(got.difference) / sd, df), rel=1e-9)
    wald = partial_auc_difference_ci(pos1, pos2, neg1, neg2, (0.0, f))
    assert got.var == wald.var and got.high - got.low > wald.high - wald.low


@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_multiclass_difference_by_hand(multi_class):
    """The difference's placements class by class (each model's components' placements,
    averaged with the macro weights, one model's less the other's), DeLong's variance from
    them and its Welch-Satterthwaite degrees of freedom (``test_multiclass_mover``'s
    transcriptions), then ``d -+ t sqrt(V)``."""
    rng = np.random.default_rng(6)
    sizes = (5, 8, 11)
    first = [rng.normal(size=(m, 3)) + 1.2 * np.eye(3)[k] for k, m in enumerate(sizes)]
    second = [x + rng.normal(0, 0.7, x.shape) for x in first]
    got = multiclass_auc_difference_ci(first, second, multi_class=multi_class, method="delong_t")
    parts1, parts2 = components(first, multi_class), components(second, multi_class)
    w = 1.0 / len(parts1)
    whole = [
        sum(w * (p[1][a] - q[1][a]) for p, q in zip(parts1, parts2)) for a in range(len(sizes))
    ]
    var, df = delong(whole), welch_df(whole)
    assert got.var == pytest.approx(var, rel=1e-10)
    half = stats.t.ppf(0.975, df) * np.sqrt(var)
    assert (got.low, got.high) == pytest.approx(
        (got.difference - half, got.difference + half), abs=1e-10
    )
    assert got.p_value == pytest.approx(
        2 * stats.t.sf(abs(got.difference) / np.sqrt(var), df), rel=1e-8
    )
    wald = multiclass_auc_difference_ci(first, second, multi_class=multi_class)
    assert got.var == wald.var and got.high - got.low > wald.high - wald.low


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_the_p_value_inverts_the_interval(alternative):
    rng = np.random.default_rng(7)
    pos1, pos2, neg1, neg2 = paired_scores(rng, 20, 25)
    got = partial_auc_difference_ci(
        pos1, pos2, neg1, neg2, (0.0, 0.2), method="delong_t", alternative=alternative
    )
    for bound in (got.low, got.high):
        if -1.0 < bound < 1.0:
            at = partial_auc_difference_ci(
                pos1,
                pos2,
                neg1,
                neg2,
                (0.0, 0.2),
                method="delong_t",
                alternative=alternative,
                null=bound,
            )
            assert at.p_value == pytest.approx(0.05, abs=1e-9)


def test_the_top_level_passes_the_method_through():
    rng = np.random.default_rng(8)
    pos1, pos2, neg1, neg2 = paired_scores(rng, 30, 30)
    y = np.r_[np.ones(30), np.zeros(30)]
    got = rocsim.compare_auc(
        y, np.r_[pos1, neg1], np.r_[pos2, neg2], max_fpr=0.2, method="delong_t"
    )
    core = partial_auc_difference_ci(pos1, pos2, neg1, neg2, (0.0, 0.2), method="delong_t")
    assert (got.low, got.high, got.p_value) == (core.low, core.high, core.p_value)
    labels = np.repeat([0, 1, 2], 20)
    s1 = rng.normal(size=(60, 3)) + np.eye(3)[labels]
    s2 = s1 + rng.normal(0, 0.5, s1.shape)
    top = rocsim.compare_auc(labels, s1, s2, multi_class="ovr", method="delong_t")
    assert top.method == "delong_t" and top.low < top.difference < top.high
