"""The multiclass AUC (one-vs-one, one-vs-rest; macro, weighted): its value against
scikit-learn's, its exact variance under the bootstrap that resamples each class separately
against every such resample of tiny data (3 and 4 classes) and a seeded Monte Carlo at
n = 150 per class, and the DeLong-type variance beside it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from enumeration import assert_mc_agrees, multinomial_law
from sklearn.metrics import roc_auc_score

import rocsim
from rocsim.core.area import auc_ci
from rocsim.core.multiclass import multiclass_auc_ci, multiclass_auc_difference_ci

SETTINGS = list(itertools.product(["ovo", "ovr"], ["macro", "weighted"]))


def scores(sizes, seed: int, decimals: int | None = 1):
    """Labels and probability-like scores (rows sum to 1), rounded: ties within a column."""
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.full(n, k) for k, n in enumerate(sizes)])
    s = rng.dirichlet(np.ones(len(sizes)), size=y.size)
    s[np.arange(y.size), y] += 0.3  # some signal
    if decimals is not None:
        s = np.round(s, decimals)
    return y, s / s.sum(axis=1, keepdims=True)


def split(y, s):
    return [s[y == k] for k in range(s.shape[1])]


@pytest.mark.parametrize(("multi_class", "average"), SETTINGS)
@pytest.mark.parametrize("sizes", [(5, 7, 6), (4, 3, 6, 5), (8, 3, 5, 6, 4)])
def test_value_equals_scikit_learn(sizes, multi_class, average):
    for seed, decimals in ((1, 1), (2, None)):
        y, s = scores(sizes, seed, decimals)
        got = multiclass_auc_ci(split(y, s), multi_class=multi_class, average=average)
        expected = roc_auc_score(y, s, multi_class=multi_class, average=average)
        assert abs(got.auc - expected) <= 1e-12


def statistic(by_class, weights, multi_class: str, average: str) -> float:
    """The multiclass AUC of a resample: each instance repeated by its weight (the oracle is
    scikit-learn's own function)."""
    y = np.concatenate([np.full(int(w.sum()), k) for k, w in enumerate(weights)])
    s = np.concatenate([np.repeat(b, w, axis=0) for b, w in zip(by_class, weights)])
    return roc_auc_score(y, s, multi_class=multi_class, average=average)


def every_resample(by_class) -> tuple[list[np.ndarray], np.ndarray]:
    """Every resample that keeps each class's size: per class, a weight matrix (one row per
    resample), and the resamples' probabilities."""
    laws = [multinomial_law(b.shape[0]) for b in by_class]
    combinations = list(itertools.product(*laws))
    weights = [np.array([c[k][0] for c in combinations]) for k in range(len(by_class))]
    p = np.array([float(np.prod([float(q) for _, q in c])) for c in combinations])
    return weights, p


def enumerated_variance(values: np.ndarray, p: np.ndarray) -> float:
    mean = p @ values
    return float(p @ (values - mean) ** 2)


def test_resampled_statistic_is_scikit_learns_on_the_resampled_data():
    y, s = scores((3, 2, 3), 12)
    by_class = split(y, s)
    weights, _ = every_resample(by_class)
    for multi_class, average in SETTINGS:
        values = resampled_statistic(by_class, weights, multi_class, average)
        for row in (0, 17, 150, 299):
            w = [weights[k][row] for k in range(3)]
            expected = statistic(by_class, w, multi_class, average)
            assert values[row] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("multi_class", "average"), SETTINGS)
@pytest.mark.parametrize("sizes", [(3, 2, 3), (2, 2, 2, 2)])
def test_exact_variance_equals_enumeration(sizes, multi_class, average):
    y, s = scores(sizes, 3)
    by_class = split(y, s)
    got = multiclass_auc_ci(
        by_class, multi_class=multi_class, average=average, method="exact_bootstrap"
    )
    weights, p = every_resample(by_class)
    values = resampled_statistic(by_class, weights, multi_class, average)
    assert got.var == pytest.approx(enumerated_variance(values, p), abs=1e-12)
    assert got.var > 1e-4


def test_component_variances_equal_enumeration():
    y, s = scores((3, 2, 3), 4)
    by_class = split(y, s)
    got = multiclass_auc_ci(by_class, multi_class="ovo", method="exact_bootstrap")
    # the pair (0, 2) alone: its two directions' mean, under the same per-class bootstrap
    weights, p = every_resample(by_class)
    values = (
        weighted_auc(by_class[0][:, 0], weights[0], by_class[2][:, 0], weights[2])
        + weighted_auc(by_class[2][:, 2], weights[2], by_class[0][:, 2], weights[0])
    ) / 2
    assert got.component.tolist()[1] == "0 vs 2"
    assert got.component_var[1] == pytest.approx(enumerated_variance(values, p), abs=1e-12)


def weighted_auc(pos, pos_weights, neg, neg_weights) -> np.ndarray:
    """The AUC of ``pos`` against ``neg`` with instance weights, one per row of the weight
    matrices (a resample each): ``sum w_i w_j psi_ij / (sum w_i sum w_j)``."""
    order = np.argsort(neg)
    cumulated = np.concatenate(
        [np.zeros((neg_weights.shape[0], 1)), np.cumsum(neg_weights[:, order], axis=1)], axis=1
    )
    below = cumulated[:, np.searchsorted(neg[order], pos, side="left")]
    at_or_below = cumulated[:, np.searchsorted(neg[order], pos, side="right")]
    numerator = (pos_weights * (below + at_or_below) / 2).sum(axis=1)
    return numerator / (pos_weights.sum(axis=1) * neg_weights.sum(axis=1))


def resampled_statistic(by_class, weights, multi_class: str, average: str) -> np.ndarray:
    """scikit-learn's multiclass AUC (its averaging written out) of each resample."""
    c = len(by_class)
    sizes = np.array([b.shape[0] for b in by_class])
    if multi_class == "ovo":
        pairs = list(itertools.combinations(range(c), 2))
        values = [
            (
                weighted_auc(by_class[a][:, a], weights[a], by_class[b][:, a], weights[b])
                + weighted_auc(by_class[b][:, b], weights[b], by_class[a][:, b], weights[a])
            )
            / 2
            for a, b in pairs
        ]
        prevalence = np.array([sizes[a] + sizes[b] for a, b in pairs], dtype=float)
    else:
        values = []
        for k in range(c):
            rest = [b for b in range(c) if b != k]
            others = np.concatenate([by_class[b][:, k] for b in rest])
            rest_weights = np.concatenate([weights[b] for b in rest], axis=1)
            values.append(weighted_auc(by_class[k][:, k], weights[k], others, rest_weights))
        prevalence = sizes.astype(float)
    w = np.ones_like(prevalence) if average == "macro" else prevalence
    return np.column_stack(values) @ (w / w.sum())


@pytest.mark.parametrize(("multi_class", "average"), SETTINGS)
def test_exact_variance_against_monte_carlo(multi_class, average):
    y, s = scores((150, 150, 150), 5, decimals=2)
    by_class = split(y, s)
    exact = multiclass_auc_ci(
        by_class, multi_class=multi_class, average=average, method="exact_bootstrap"
    )
    rng = np.random.default_rng(6)
    weights = [rng.multinomial(150, np.full(150, 1 / 150), size=20_000) for _ in by_class]
    sample = resampled_statistic(by_class, weights, multi_class, average)
    # the resampled statistic of the data itself (every weight 1) is the AUC
    ones = [np.ones((1, 150)) for _ in by_class]
    assert resampled_statistic(by_class, ones, multi_class, average)[0] == pytest.approx(
        exact.auc, abs=1e-12
    )
    assert_mc_agrees(sample, exact.auc, exact.var)
    delong = multiclass_auc_ci(by_class, multi_class=multi_class, average=average, method="delong")
    assert abs(delong.var / exact.var - 1) <= 0.15


@pytest.mark.parametrize("method", ["delong", "exact_bootstrap"])
def test_two_classes_reduce_to_the_binary_auc(method):
    rng = np.random.default_rng(7)
    p = np.round(rng.uniform(size=11), 1)  # ties
    s = np.column_stack([p, 1 - p])  # two-class probabilities: both directions agree
    for multi_class in ("ovo", "ovr"):
        got = multiclass_auc_ci([s[:6], s[6:]], multi_class=multi_class, method=method)
        binary = auc_ci(s[:6, 0], s[6:, 0], method=method)
        assert got.component_var[0] == pytest.approx(binary.var, rel=1e-12)
    ovr = multiclass_auc_ci([s[:6], s[6:]], multi_class="ovr", method=method)
    assert ovr.component_auc[0] == pytest.approx(binary.auc, abs=1e-15)


@pytest.mark.parametrize(("multi_class", "average"), SETTINGS)
def test_paired_difference_equals_enumeration(multi_class, average):
    y, s1 = scores((3, 2, 3), 8)
    _, s2 = scores((3, 2, 3), 9)
    first, second = split(y, s1), split(y, s2)
    got = multiclass_auc_difference_ci(
        first, second, multi_class=multi_class, average=average, method="exact_bootstrap"
    )
    assert got.auc1 == pytest.approx(
        roc_auc_score(y, s1, multi_class=multi_class, average=average), abs=1e-12
    )
    assert got.auc2 == pytest.approx(
        roc_auc_score(y, s2, multi_class=multi_class, average=average), abs=1e-12
    )
    weights, p = every_resample(first)
    values = resampled_statistic(first, weights, multi_class, average) - resampled_statistic(
        second, weights, multi_class, average
    )
    assert got.var == pytest.approx(enumerated_variance(values, p), abs=1e-12)
    # each component's difference too: the last component alone, by the resampled oracle
    assert got.component_var[-1] > 0 and 0 <= got.p_value <= 1


def test_paired_difference_against_monte_carlo():
    y, s1 = scores((150, 150, 150), 10, decimals=2)
    # the second model: the first with noise, so the two are correlated
    rng = np.random.default_rng(11)
    s2 = np.abs(s1 + rng.normal(0, 0.1, s1.shape))
    s2 /= s2.sum(axis=1, keepdims=True)
    first, second = split(y, s1), split(y, s2)
    for multi_class in ("ovo", "ovr"):
        exact = multiclass_auc_difference_ci(
            first, second, multi_class=multi_class, method="exact_bootstrap"
        )
        weights = [rng.multinomial(150, np.full(150, 1 / 150), size=20_000) for _ in first]
        sample = resampled_statistic(first, weights, multi_class, "macro") - resampled_statistic(
            second, weights, multi_class, "macro"
        )
        assert_mc_agrees(sample, exact.difference, exact.var)
        # the pairing matters: the difference's variance is well below the sum of the two
        single = [
            multiclass_auc_ci(b, multi_class=multi_class, method="exact_bootstrap").var
            for b in (first, second)
        ]
        assert exact.var < 0.8 * sum(single)


# --- the practitioner's entry points --------------------------------------------------------


def named(y):
    return np.array(["cat", "dog", "emu", "fox", "gnu"])[y]


@pytest.mark.parametrize(("multi_class", "average"), SETTINGS)
def test_auc_ci_takes_scikit_learns_arguments(multi_class, average):
    y, s = scores((12, 9, 15, 10), 13)
    labels = named(y)  # strings, sorted as scikit-learn sorts them
    got = rocsim.auc_ci(labels, s, multi_class=multi_class, average=average)
    expected = roc_auc_score(labels, s, multi_class=multi_class, average=average)
    assert abs(got.auc - expected) <= 1e-12
    assert all(isinstance(v, float) for v in (got.auc, got.var, got.low, got.high))
    assert got.low <= got.auc <= got.high
    frame = got.to_frame()
    assert frame["component"].iloc[-1] == f"{average} ({multi_class})"
    assert frame.attrs["classes"] == ("cat", "dog", "emu", "fox")
    # the same with the labels given, and with a list of lists
    again = rocsim.auc_ci(
        labels,
        s.tolist(),
        multi_class=multi_class,
        average=average,
        labels=["cat", "dog", "emu", "fox"],
    )
    assert again.auc == got.auc and again.var == got.var


def test_compare_auc_multiclass_is_paired():
    y, s1 = scores((40, 30, 35), 14, decimals=2)
    rng = np.random.default_rng(15)
    s2 = np.abs(s1 + rng.normal(0, 0.2, s1.shape))
    s2 /= s2.sum(axis=1, keepdims=True)  # scikit-learn asks for probabilities
    got = rocsim.compare_auc(named(y), s1, s2, multi_class="ovo", method="exact_bootstrap")
    assert isinstance(got.difference, float) and isinstance(got.p_value, float)
    assert got.difference == pytest.approx(
        roc_auc_score(y, s1, multi_class="ovo") - roc_auc_score(y, s2, multi_class="ovo"),
        abs=1e-12,
    )
    assert got.to_frame().shape == (4, 6)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda y, s: rocsim.auc_ci(y, s), "give multi_class='ovo' or 'ovr'"),
        (lambda y, s: rocsim.auc_ci(y, s, multi_class="ovx"), "multi_class"),
        (lambda y, s: rocsim.auc_ci(y, s, multi_class="ovr", average="micro"), "average"),
        (lambda y, s: rocsim.auc_ci(y, s[:, 0], multi_class="ovr"), "n_samples, n_classes"),
        (lambda y, s: rocsim.auc_ci(y, s[:, :2], multi_class="ovr"), "one column per class"),
        (lambda y, s: rocsim.auc_ci(y, s, multi_class="ovo", max_fpr=0.5), "binary only"),
        (lambda y, s: rocsim.auc_ci(y, s, multi_class="ovo", pos_label="cat"), "pos_label"),
        (lambda y, s: rocsim.auc_ci(y, s, multi_class="ovo", direction="lower"), "direction"),
        (
            lambda y, s: rocsim.auc_ci(y, s, multi_class="ovo", labels=["dog", "cat", "emu"]),
            "sorted",
        ),
        (
            lambda y, s: rocsim.auc_ci(y, s, multi_class="ovo", labels=["cat", "dog", "cat"]),
            "unique",
        ),
        (
            lambda y, s: rocsim.auc_ci(y, s, multi_class="ovo", labels=["cat", "dog", "gnu"]),
            "not in labels",
        ),
        (lambda y, s: rocsim.auc_ci(y, np.where(s > 0.5, np.nan, s), multi_class="ovo"), "NaN"),
        (lambda y, s: rocsim.compare_auc(y, s, s[:, :2], multi_class="ovo"), "y_score2"),
    ],
)
def test_multiclass_bad_input(call, message):
    y, s = scores((5, 4, 6), 16)
    with pytest.raises(ValueError, match=message):
        call(named(y), s)


def test_a_class_without_instances_is_named():
    y, s = scores((5, 4, 6), 17)
    s4 = np.column_stack([s, np.zeros(len(y))])
    with pytest.raises(ValueError, match=r"labels \['fox'\] have no instance"):
        rocsim.auc_ci(named(y), s4, multi_class="ovr", labels=["cat", "dog", "emu", "fox"])
    with pytest.raises(ValueError, match="at least 2 instances of every class"):
        rocsim.auc_ci(named(np.r_[y, 3]), np.vstack([s4, s4[:1]]), multi_class="ovr")


@pytest.mark.parametrize(
    ("by_class", "message"),
    [
        ([[[0.5, 0.5]], [[0.4, 0.6]], [[0.1, 0.9]]], "a column per class"),
        ([[[0.5, 0.5, np.nan]], [[0.4, 0.6, 0.0]], [[0.1, 0.9, 0.0]]], "NaN or infinite"),
        ([[["a", 0.5, 0.0]], [[0.4, 0.6, 0.0]], [[0.1, 0.9, 0.0]]], "must hold numbers"),
    ],
)
def test_core_multiclass_checks_its_scores(by_class, message):
    with pytest.raises(ValueError, match=message):
        multiclass_auc_ci(by_class, method="exact_bootstrap")


@pytest.mark.parametrize("method", ["delong", "exact_bootstrap", "mover"])
@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_all_tied_scores_are_a_sure_half(method, multi_class):
    """Every score tied: every component AUC is 1/2 with no variance, so the average is
    exactly 1/2 (not an ulp below it, which a zero variance would read as a sure difference
    from the null, p = 0) and the test of 1/2 gives p = 1."""
    y = np.arange(301) % 4
    r = rocsim.auc_ci(y, np.ones((301, 4)), multi_class=multi_class, method=method)
    assert r.auc == 0.5 and r.p_value == 1.0
    if method != "mover":
        assert r.var == 0.0
