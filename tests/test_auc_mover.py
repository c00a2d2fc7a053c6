"""The paired AUC difference's MOVER interval (Zou & Donner 2008) on score-type components,
and the defaults the AUC coverage studies chose: a direct transcription of the formulas on
small data, its limits, its p-value against its interval, and the top level's defaults."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, special, stats

import rocsim
from rocsim.core.area import auc_ci, auc_difference_ci
from rocsim.core.auc_methods import newcombe_var


def _paired(n: int, seed: int, shift: float = 0.5):
    rng = np.random.default_rng(seed)
    cov = [[1, 0.6], [0.6, 1]]
    pos = rng.multivariate_normal([1.0, 1.0 - shift], cov, n)
    neg = rng.multivariate_normal([0.0, 0.0], cov, n)
    return pos[:, 0], pos[:, 1], neg[:, 0], neg[:, 1]


def _delong(pos, neg):
    """Placement values: the structural components V10 (positives), V01 (negatives)."""
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return psi.mean(), psi.mean(axis=1), psi.mean(axis=0)


def _hybrid_bounds(auc, var, m, n, level):
    """Score interval with V(theta) = var * g(theta) / g(auc), g Newcombe's variance."""
    z = special.ndtri(0.5 + level / 2)

    def v(theta):
        return var * newcombe_var(theta, m, n) / newcombe_var(auc, m, n)

    low = optimize.brentq(lambda t: (auc - t) / np.sqrt(v(t)) - z, 1e-12, auc)
    high = optimize.brentq(lambda t: (auc - t) / np.sqrt(v(t)) + z, auc, 1 - 1e-12)
    return low, high


def _by_hand(pos1, pos2, neg1, neg2, level=0.95):
    a1, x1, y1 = _delong(pos1, neg1)
    a2, x2, y2 = _delong(pos2, neg2)
    m, n = pos1.size, neg1.size
    s10 = np.cov(np.vstack([x1, x2]))
    s01 = np.cov(np.vstack([y1, y2]))
    cov = s10 / m + s01 / n
    r = cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1])
    l1, u1 = _hybrid_bounds(a1, cov[0, 0], m, n, level)
    l2, u2 = _hybrid_bounds(a2, cov[1, 1], m, n, level)
    d = a1 - a2
    low = d - np.sqrt((a1 - l1) ** 2 + (u2 - a2) ** 2 - 2 * r * (a1 - l1) * (u2 - a2))
    high = d + np.sqrt((u1 - a1) ** 2 + (a2 - l2) ** 2 - 2 * r * (u1 - a1) * (a2 - l2))
    return d, low, high


def test_mover_is_its_formula_by_hand():
    data = _paired(30, 1)
    d, low, high = _by_hand(*data)
    got = auc_difference_ci(*data, method="mover")
    assert got.difference == pytest.approx(d, abs=1e-14)
    assert got.low == pytest.approx(low, abs=1e-9)
    assert got.high == pytest.approx(high, abs=1e-9)
    assert got.var == pytest.approx(auc_difference_ci(*data, method="delong").var)


@pytest.mark.parametrize("null_at", ["low", "high"])
def test_the_p_value_is_one_minus_the_level_at_a_bound(null_at):
    data = _paired(40, 2)
    ci = auc_difference_ci(*data, method="mover", confidence_level=0.9)
    null = getattr(ci, null_at)
    test = auc_difference_ci(*data, method="mover", confidence_level=0.9, null=null)
    assert test.p_value == pytest.approx(0.1, abs=1e-7)
    inside = auc_difference_ci(*data, method="mover", null=ci.difference)
    assert inside.p_value == pytest.approx(1.0)


def test_one_sided_interval_and_p_value_agree():
    data = _paired(40, 3)
    two = auc_difference_ci(*data, method="mover", confidence_level=0.9)
    one = auc_difference_ci(
        *data, method="mover", confidence_level=0.95, alternative="greater", null=two.low
    )
    assert one.low == pytest.approx(two.low, abs=1e-12) and one.high == 1.0
    assert one.p_value == pytest.approx(0.05, abs=1e-7)


def test_large_samples_come_close_to_delong():
    data = _paired(2000, 4)
    mover = auc_difference_ci(*data, method="mover")
    delong = auc_difference_ci(*data, method="delong")
    width = delong.high - delong.low
    assert abs(mover.low - delong.low) < 0.03 * width
    assert abs(mover.high - delong.high) < 0.03 * width


def test_perfectly_separated_classifiers_keep_an_informative_interval():
    """Both AUCs 1: DeLong's variance is 0 and its interval [0, 0]; the score components
    (Newcombe's where the variance vanishes) keep width on both sides of 0."""
    pos1, pos2 = np.arange(10.0) + 20, np.arange(10.0) + 20
    neg1, neg2 = np.arange(10.0), np.arange(10.0)[::-1]
    ci = auc_difference_ci(pos1, pos2, neg1, neg2, method="mover")
    assert ci.difference == 0.0
    assert ci.low < 0.0 < ci.high
    assert auc_difference_ci(pos1, pos2, neg1, neg2, method="delong").high == 0.0


def test_defaults_are_the_studies_choices():
    """auc_ci: Newcombe's score interval (auc_methods), logit_t for a partial AUC
    (partial_auc); compare_auc: MOVER (auc_paired), delong_t for partial AUCs
    (auc_paired_partial); pROC's DeLong stays one keyword away."""
    pos1, pos2, neg1, neg2 = _paired(25, 5)
    y = np.r_[np.ones(25), np.zeros(25)]
    s1, s2 = np.r_[pos1, neg1], np.r_[pos2, neg2]
    assert rocsim.auc_ci(y, s1).method == "newcombe"
    assert rocsim.auc_ci(y, s1, method="delong").method == "delong"
    default = rocsim.auc_ci(y, s1)
    newcombe = auc_ci(pos1, neg1, method="newcombe")
    assert (default.low, default.high) == (newcombe.low, newcombe.high)
    assert rocsim.compare_auc(y, s1, s2).method == "mover"
    assert rocsim.compare_auc(y, s1, s2, method="delong").method == "delong"
    assert rocsim.auc_ci(y, s1, max_fpr=0.3).method == "logit_t"
    assert rocsim.compare_auc(y, s1, s2, max_fpr=0.3).method == "delong_t"
    assert rocsim.compare_auc(y, s1, s2, max_fpr=0.3, method="delong").method == "delong"
    labels = np.arange(60) % 3
    scores = np.random.default_rng(5).random((60, 3)) + np.eye(3)[labels]
    assert rocsim.auc_ci(labels, scores, multi_class="ovo").method == "mover"
    other = scores + np.random.default_rng(6).random((60, 3))
    assert rocsim.compare_auc(labels, scores, other, multi_class="ovo").method == "delong_t"


def test_mover_needs_two_instances_a_class():
    with pytest.raises(ValueError, match="method='mover' needs at least 2"):
        auc_difference_ci([1.0], [1.0], [0.0, 0.5], [0.0, 0.5], method="mover")


def test_by_hand_helper_matches_a_seeded_monte_carlo_of_the_statistic():
    """The transcription's ingredients are right: DeLong's correlation of the two AUCs against
    a seeded Monte Carlo bootstrap (large n, where the two agree)."""
    pos1, pos2, neg1, neg2 = _paired(300, 6)
    _, x1, y1 = _delong(pos1, neg1)
    _, x2, y2 = _delong(pos2, neg2)
    cov = np.cov(np.vstack([x1, x2])) / 300 + np.cov(np.vstack([y1, y2])) / 300
    r = cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1])
    rng = np.random.default_rng(np.random.SeedSequence(7))
    boot = []
    for _ in range(400):
        i, j = rng.integers(0, 300, 300), rng.integers(0, 300, 300)
        boot.append([_delong(pos1[i], neg1[j])[0], _delong(pos2[i], neg2[j])[0]])
    mc = stats.pearsonr(*np.array(boot).T).statistic
    assert abs(mc - r) < 0.1


def test_the_default_intervals_import_no_scipy_optimize():
    """scipy.optimize takes 0.4 s to import: the first call of the default AUC intervals
    (score bounds and the MOVER's p-value, found by bisection) leaves it out, in a new
    process as a user's first call."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np, rocsim\n"
        "y = np.repeat([0, 1], 30); rng = np.random.default_rng(1)\n"
        "s1, s2 = rng.normal(y, 1), rng.normal(y, 1)\n"
        "rocsim.auc_ci(y, s1); rocsim.compare_auc(y, s1, s2)\n"
        "rocsim.auc_ci(np.arange(60) % 3, rng.random((60, 3)), multi_class='ovr')\n"
        "print('scipy.optimize' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
