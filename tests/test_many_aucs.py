"""Many models' AUCs at once (compare_aucs): the joint covariance is the one compare_auc's
variances imply, equals the enumeration of every resample on tiny data and a seeded Monte
Carlo bootstrap on realistic data; the max-t critical value and adjusted p-values against
Genz's integration of the normal law; Holm and Bonferroni against statsmodels."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import optimize, special, stats

import rocsim
from rocsim.core.many_aucs import auc_covariance, aucs_comparison

RNG = np.random.default_rng(51)
N_POS, N_NEG, K = 60, 80, 4
LATENT = RNG.normal(size=(N_POS + N_NEG, K))
Y = np.r_[np.ones(N_POS, int), np.zeros(N_NEG, int)]
SCORES = 0.9 * Y[:, None] * np.array([1.0, 0.8, 0.6, 0.0]) + LATENT + 0.5 * LATENT[:, :1]
POS, NEG = [SCORES[:N_POS, k] for k in range(K)], [SCORES[N_POS:, k] for k in range(K)]


@pytest.mark.parametrize("method", ["delong", "exact_bootstrap"])
def test_the_covariance_holds_compare_auc_s_variances(method):
    aucs, cov = auc_covariance(POS, NEG, method)
    for i, j in itertools.combinations(range(K), 2):
        pair = rocsim.core.auc_difference_ci(POS[i], POS[j], NEG[i], NEG[j], method=method)
        assert cov[i, i] + cov[j, j] - 2 * cov[i, j] == pytest.approx(pair.var, rel=1e-12)
    for k in range(K):
        one = rocsim.core.auc_ci(POS[k], NEG[k], method=method)
        assert (aucs[k], cov[k, k]) == pytest.approx((one.auc, one.var), rel=1e-14)


def test_delong_s_covariance_is_the_placement_values():
    """DeLong et al. (1988): ``S10 / n+ + S01 / n-`` from the placement values' covariances."""
    _, cov = auc_covariance(POS, NEG, "delong")
    v10 = np.array(
        [[np.mean((p > NEG[k]) + 0.5 * (p == NEG[k])) for p in POS[k]] for k in range(K)]
    )
    v01 = np.array(
        [[np.mean((POS[k] > q) + 0.5 * (POS[k] == q)) for q in NEG[k]] for k in range(K)]
    )
    expected = np.cov(v10) / N_POS + np.cov(v01) / N_NEG
    np.testing.assert_allclose(cov, expected, rtol=1e-12, atol=1e-15)


def test_the_exact_covariance_is_the_enumeration_of_every_resample():
    pos = [np.array([0.9, 0.6, 0.3]), np.array([0.8, 0.4, 0.6]), np.array([0.2, 0.7, 0.5])]
    neg = [np.array([0.7, 0.2, 0.4]), np.array([0.3, 0.5, 0.1]), np.array([0.6, 0.1, 0.3])]
    _, cov = auc_covariance(pos, neg, "exact_bootstrap")
    draws = []
    for i in itertools.product(range(3), repeat=3):
        for j in itertools.product(range(3), repeat=3):
            draws.append([rocsim.core.auc(p[list(i)], q[list(j)]) for p, q in zip(pos, neg)])
    np.testing.assert_allclose(cov, np.cov(np.array(draws).T, bias=True), atol=1e-15)


def test_the_exact_covariance_agrees_with_a_seeded_monte_carlo_bootstrap():
    _, cov = auc_covariance(POS, NEG, "exact_bootstrap")
    rng, draws = np.random.default_rng(2026), 3000
    aucs = np.empty((draws, K))
    for b in range(draws):
        i, j = rng.integers(0, N_POS, N_POS), rng.integers(0, N_NEG, N_NEG)
        aucs[b] = [rocsim.core.auc(POS[k][i], NEG[k][j]) for k in range(K)]
    sample = np.cov(aucs.T)
    # a sample covariance's Monte Carlo SE: sqrt((s_ii s_jj + s_ij^2) / draws)
    se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / draws)
    assert np.all(np.abs(sample - cov) < 4 * se)


def genz_critical(correlation: np.ndarray, level: float) -> float:
    """The ``c`` with ``Pr{max |Z| <= c} = level`` by Genz's integration (scipy, tight)."""
    law = stats.multivariate_normal(
        np.zeros(len(correlation)), correlation, abseps=1e-8, releps=1e-8, maxpts=10**7, seed=1
    )

    def reach(c):
        box = np.full(len(correlation), c)
        return law.cdf(box, lower_limit=-box) - level

    return optimize.brentq(reach, 1.0, 6.0, xtol=1e-8)


def test_max_t_against_genz_s_integration():
    """Each model against a reference: the contrasts' correlation is full rank, so the
    simultaneous critical value is a box probability of the normal law. The Monte Carlo
    value is within 0.01 of Genz's; one contrast gives the normal quantile."""
    result = aucs_comparison(POS, NEG, reference=3, adjust="max-t", confidence_level=0.95)
    contrasts = np.zeros((K - 1, K))
    for row in range(K - 1):
        contrasts[row, row], contrasts[row, 3] = 1.0, -1.0
    spread = contrasts @ result.cov @ contrasts.T
    sd = np.sqrt(np.diag(spread))
    exact = genz_critical(spread / np.outer(sd, sd), 0.95)
    for seed in range(5):  # the Monte Carlo critical value, whatever the seed
        again = aucs_comparison(POS, NEG, reference=3, random_state=seed)
        assert abs(again.critical_value - exact) < 0.01, seed
    two = aucs_comparison(POS[:2], NEG[:2], adjust="max-t")
    assert two.critical_value == pytest.approx(special.ndtri(0.975), abs=0.005)
    assert two.p_adjusted[0] == pytest.approx(two.p_value[0], abs=0.005)
    assert np.all(result.p_adjusted >= result.p_value - 0.005)
    # the interval excludes 0 exactly when the adjusted p-value is below 0.05 (to QMC error)
    outside = (result.low > 0) | (result.high < 0)
    clear = np.abs(result.p_adjusted - 0.05) > 0.005
    assert clear.any()
    assert np.array_equal(outside[clear], (result.p_adjusted < 0.05)[clear])


@pytest.mark.parametrize("adjust", ["holm", "bonferroni"])
def test_holm_and_bonferroni_are_statsmodels(adjust):
    from statsmodels.stats.multitest import multipletests

    result = aucs_comparison(POS, NEG, adjust=adjust)
    expected = multipletests(result.p_value, method=adjust)[1]
    np.testing.assert_allclose(result.p_adjusted, expected, rtol=1e-12)
    m = result.p_value.size
    assert result.critical_value == pytest.approx(special.ndtri(1 - 0.05 / (2 * m)))


def test_compare_aucs_takes_a_dict_a_frame_or_an_array():
    import pandas as pd

    frame = pd.DataFrame(SCORES, columns=["a", "b", "c", "d"])
    from_frame = rocsim.compare_aucs(Y, frame, reference="d", method="exact_bootstrap")
    from_dict = rocsim.compare_aucs(
        Y, dict(frame.items()), reference="d", method="exact_bootstrap"
    )
    from_array = rocsim.compare_aucs(Y, SCORES, reference=3, method="exact_bootstrap")
    assert from_frame.to_frame().equals(from_dict.to_frame())
    np.testing.assert_array_equal(from_frame.cov, from_array.cov)
    assert list(from_array.model1) == ["model 1", "model 2", "model 3"]
    assert list(from_frame.to_frame().columns) == [
        "model1",
        "model2",
        "difference",
        "se",
        "low",
        "high",
        "p_value",
        "p_adjusted",
    ]
    assert rocsim.compare_aucs(Y, SCORES, random_state=1).to_frame().shape == (6, 8)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rocsim.compare_aucs(Y, SCORES[:, :1]), "K >= 2 models"),
        (lambda: rocsim.compare_aucs(Y, SCORES, adjust="tukey"), "unknown adjust 'tukey'"),
        (lambda: rocsim.compare_aucs(Y, SCORES, method="mover"), "unknown method 'mover'"),
        (
            lambda: rocsim.compare_aucs(Y, {"a": SCORES[:, 0], "b": SCORES[:, 1]}, reference="z"),
            "reference 'z' is not a model",
        ),
        (lambda: rocsim.compare_aucs(Y, SCORES, reference=7), "reference must be a model's"),
    ],
)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_family_kind_reports_coverage_and_rejection():
    """Every AUC equal: the family's coverage and its rejection rate (the smallest adjusted
    p-value below 0.05) add up to one for an adjustment whose intervals and p-values agree."""
    from rocsim.sim.conditions import expand_conditions
    from rocsim.sim.runner import run_conditions
    from rocsim.studies import get_kind

    axes = {"delta": [0.0], "models": [3], "auc": [0.75], "rho": [0.5], "adjust": ["bonferroni"]}
    base = {
        "confidence_level": 0.95,
        "method": "delong",
        "n": 60,
        "pi": 0.5,
        "model": {"family": "binormal", "pos": {"mu": 1, "sd": 1}, "neg": {"mu": 0, "sd": 1}},
    }
    table = run_conditions(
        get_kind("auc_family"),
        expand_conditions("auc_family", axes, base),
        replications=200,
        seed=4,
        progress=False,
    ).table
    (row,) = table.itertuples()
    assert row.coverage + row.rejection == pytest.approx(1.0)
    assert row.x == 3 and row.target == 0.0 and row.rejection_mcse > 0


def test_the_family_page_quotes_the_committed_results(page_script):
    writer, written = page_script("write_auc_family_page")
    assert written.strip() == "\n".join(writer.section(writer.TABLES)).strip()
    assert "**Family-wise error rate**" in written and " ± " in written


# partial and multiclass AUCs: the covariance holds compare_auc's variance of every pair and
# auc_ci's of every model (DeLong's placement values; multiclass also the exact bootstrap's)

PARTIAL = [{"max_fpr": 0.2}, {"fpr_range": (0.1, 0.4)}, {"tpr_range": (0.7, 1.0)}]
MULTICLASS = [
    {"multi_class": multi_class, "average": average, "method": method}
    for multi_class in ("ovr", "ovo")
    for average in ("macro", "weighted")
    for method in ("delong", "exact_bootstrap")
]


def binary_models(seed: int, n_pos: int, n_neg: int, k: int) -> tuple[np.ndarray, dict]:
    """``k`` correlated models of unequal skill on the same instances."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)])
    shared = rng.normal(size=y.size)
    skill = np.linspace(1.2, 0.3, k)
    return y, {f"m{m}": skill[m] * y + 0.6 * shared + rng.normal(size=y.size) for m in range(k)}


def multiclass_models(seed: int, n: int, k: int, classes: int = 3) -> tuple[np.ndarray, dict]:
    """``k`` correlated models' ``(n, classes)`` score matrices of ``classes`` classes of
    unequal prevalence (the weighted average differs from the macro one)."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % (classes + 2) % classes)
    shared = rng.normal(size=(n, classes))
    skill = np.linspace(1.5, 0.4, k)
    return y, {
        f"m{m}": skill[m] * np.eye(classes)[y] + 0.7 * shared + rng.normal(size=(n, classes))
        for m in range(k)
    }


def tie_heavy_binary() -> tuple[np.ndarray, dict]:
    """14 instances scored on three levels; models 'b' and 'c' tie on every instance."""
    y = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0])
    a = np.array([2, 2, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 2, 0]) / 2
    b = np.array([2, 1, 1, 2, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0]) / 2
    return y, {"a": a, "b": b, "c": b.copy(), "d": np.round(0.5 * a + 0.5 * b)}


def tie_heavy_multiclass() -> tuple[np.ndarray, dict]:
    """Three classes of 3, 3 and 4 instances, scores on two levels."""
    rng = np.random.default_rng(7)
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 2])
    return y, {name: np.round(rng.random((y.size, 3)) + 0.3 * np.eye(3)[y]) / 2 for name in "abc"}


def check_against_compare_auc(y, scores: dict, method: str, **kind) -> None:
    """Each pair's variance of the difference is compare_auc's, each model's variance
    auc_ci's, to 1e-12."""
    names = list(scores)
    result = rocsim.compare_aucs(y, scores, method=method, **kind)
    cov = result.cov
    for i, j in itertools.combinations(range(len(names)), 2):
        pair = rocsim.compare_auc(y, scores[names[i]], scores[names[j]], method=method, **kind)
        assert cov[i, i] + cov[j, j] - 2 * cov[i, j] == pytest.approx(
            pair.var, rel=1e-12, abs=1e-15
        )
        row = list(zip(result.model1, result.model2)).index((names[i], names[j]))
        assert result.difference[row] == pytest.approx(pair.difference, rel=1e-12, abs=1e-15)
    for k, name in enumerate(names):
        one = rocsim.auc_ci(y, scores[name], method=method, **kind)
        assert (result.auc[k], cov[k, k]) == pytest.approx((one.auc, one.var), rel=1e-12)
    np.testing.assert_allclose(cov, cov.T, rtol=0, atol=0)


@pytest.mark.parametrize("rates", PARTIAL)
def test_partial_aucs_covariance_holds_compare_auc_s_variances(rates):
    y, scores = binary_models(2027, 130, 170, 4)
    check_against_compare_auc(y, scores, "delong", **rates)


@pytest.mark.parametrize("rates", PARTIAL)
def test_partial_aucs_covariance_on_tie_heavy_data(rates):
    y, scores = tie_heavy_binary()
    check_against_compare_auc(y, scores, "delong", **rates)
    result = rocsim.compare_aucs(y, scores, **rates)
    row = list(zip(result.model1, result.model2)).index(("b", "c"))
    assert result.se[row] == pytest.approx(0.0, abs=1e-9)
    assert result.difference[row] == 0.0 and result.p_value[row] == 1.0


def test_partial_delong_covariance_is_the_placement_values():
    """DeLong et al. (1988) on the partial area: ``S10 / n+ + S01 / n-`` from the placement
    values' covariances, times McClish's factor squared."""
    from rocsim.core.partial_area import mcclish_scale, placement_values

    y, scores = binary_models(2027, 130, 170, 4)
    result = rocsim.compare_aucs(y, scores, fpr_range=(0.1, 0.4))
    placed = [placement_values(s[y == 1], s[y == 0], 0.1, 0.4) for s in scores.values()]
    v10, v01 = np.array([p[0] for p in placed]), np.array([p[1] for p in placed])
    expected = (np.cov(v10) / v10.shape[1] + np.cov(v01) / v01.shape[1]) * mcclish_scale(
        0.1, 0.4
    ) ** 2
    np.testing.assert_allclose(result.cov, expected, rtol=1e-12, atol=1e-16)
    assert np.all(np.linalg.eigvalsh(result.cov) > 0)


@pytest.mark.parametrize("kind", MULTICLASS, ids=lambda kind: "-".join(kind.values()))
def test_multiclass_aucs_covariance_holds_compare_auc_s_variances(kind):
    y, scores = multiclass_models(2028, 300, 3)
    check_against_compare_auc(y, scores, **kind)


@pytest.mark.parametrize("kind", MULTICLASS, ids=lambda kind: "-".join(kind.values()))
def test_multiclass_aucs_covariance_on_tie_heavy_data(kind):
    y, scores = tie_heavy_multiclass()
    check_against_compare_auc(y, scores, **kind)


def test_multiclass_scores_as_an_array_or_a_dict():
    y, scores = multiclass_models(2028, 60, 3)
    from_dict = rocsim.compare_aucs(y, scores, multi_class="ovr", labels=[0, 1, 2])
    from_array = rocsim.compare_aucs(
        y, np.stack(list(scores.values()), axis=-1), multi_class="ovr"
    )
    np.testing.assert_array_equal(from_dict.cov, from_array.cov)
    assert list(from_array.model1) == ["model 1", "model 1", "model 2"]
    assert from_dict.kind == "multiclass AUCs (ovr, macro)" and from_dict.n_pos is None
    assert from_dict.class_sizes == (24, 24, 12) and "n = 24, 24, 12" in repr(from_dict)


@pytest.mark.parametrize(
    "kind", [{"tpr_range": (0.5, 1.0)}, {"multi_class": "ovo", "average": "weighted"}]
)
def test_a_reference_with_partial_and_multiclass_aucs(kind):
    """Each model against 'm1': the rows are compare_auc's differences and variances."""
    if "multi_class" in kind:
        y, scores = multiclass_models(2029, 150, 4)
    else:
        y, scores = binary_models(2029, 90, 110, 4)
    result = rocsim.compare_aucs(y, scores, reference="m1", adjust="holm", **kind)
    assert list(result.model2) == ["m1"] * 3
    assert list(result.model1) == ["m0", "m2", "m3"]
    for row, name in enumerate(result.model1):
        pair = rocsim.compare_auc(y, scores[name], scores["m1"], method="delong", **kind)
        assert result.difference[row] == pytest.approx(pair.difference, rel=1e-12)
        assert result.se[row] ** 2 == pytest.approx(pair.var, rel=1e-12)
    by_index = rocsim.compare_aucs(y, scores, reference=1, adjust="holm", **kind)
    assert by_index.to_frame().equals(result.to_frame())


Y3, SCORES3 = multiclass_models(2028, 30, 3)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: rocsim.compare_aucs(Y, SCORES, max_fpr=0.2, method="exact_bootstrap"),
            "method='exact_bootstrap' is not available for partial AUCs: the paired exact "
            "bootstrap law of two partial areas is not built",
        ),
        (
            lambda: rocsim.compare_aucs(Y, SCORES, tpr_range=(0.5, 1), method="exact_bootstrap"),
            "method='exact_bootstrap' is not available for partial AUCs",
        ),
        (lambda: rocsim.compare_aucs(Y, SCORES, max_fpr=0.2, method="delong_t"), "unknown method"),
        (
            lambda: rocsim.compare_aucs(Y3, SCORES3, multi_class="ovr", max_fpr=0.2),
            r"a partial AUC \(max_fpr, fpr_range, tpr_range\) is binary only",
        ),
        (
            lambda: rocsim.compare_aucs(Y, SCORES, max_fpr=0.2, fpr_range=(0, 0.2)),
            "give at most one of max_fpr, fpr_range, tpr_range; got max_fpr, fpr_range",
        ),
        (lambda: rocsim.compare_aucs(Y, SCORES, max_fpr=0.0), r"max_fpr must be in \(0, 1\]"),
        (
            lambda: rocsim.compare_aucs(Y, SCORES, fpr_range=(0.4, 0.1)),
            "a partial AUC's range must satisfy 0 <= lo < hi <= 1",
        ),
        (lambda: rocsim.compare_aucs(Y, SCORES, tpr_range=0.3), "tpr_range must be a pair"),
        (lambda: rocsim.compare_aucs(Y3, SCORES3), "give multi_class='ovo' or 'ovr'"),
        (
            lambda: rocsim.compare_aucs(Y, SCORES, multi_class="ovr"),
            r"multi_class='ovr' needs y_score of shape \(n_samples, n_classes\)",
        ),
        (
            lambda: rocsim.compare_aucs(Y3, SCORES3, multi_class="ovr", average="micro"),
            "unknown average 'micro'",
        ),
        (
            lambda: rocsim.compare_aucs(Y3, SCORES3, multi_class="ovr", pos_label=1),
            "pos_label is for binary labels",
        ),
        (
            lambda: rocsim.compare_aucs(Y3, SCORES3, multi_class="ovr", method="mover"),
            "unknown method 'mover'",
        ),
        (
            lambda: rocsim.compare_aucs(
                Y3, {**SCORES3, "m1": SCORES3["m1"][:, :2]}, multi_class="ovr"
            ),
            r"scores\['m1'\] must have shape \(n_samples, n_classes\)",
        ),
    ],
)
def test_bad_partial_and_multiclass_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_compare_auc_refuses_what_compare_aucs_refuses():
    """The same combinations compare_auc refuses (its messages)."""
    s1, s2 = SCORES[:, 0], SCORES[:, 1]
    with pytest.raises(ValueError, match="paired partial AUC method 'exact_bootstrap'"):
        rocsim.compare_auc(Y, s1, s2, max_fpr=0.2, method="exact_bootstrap")
    with pytest.raises(ValueError, match="is binary only"):
        rocsim.compare_auc(Y3, SCORES3["m0"], SCORES3["m1"], multi_class="ovr", max_fpr=0.2)
