"""Counting and the empirical ROC curve against brute force and scikit-learn."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from rocsim.core import auc, count_at_or_above, counts_at, roc_counts, roc_curve
from rocsim.core.counting import _PLACE_MIN


def brute_count(scores, thresholds):
    scores = np.asarray(scores, dtype=float)
    thresholds = np.asarray(thresholds, dtype=float)
    return (scores[None, :] >= thresholds[:, None]).sum(axis=1)


# Small integer grids make ties frequent, both among scores and between scores and thresholds.
tied_scores = hnp.arrays(
    np.float64,
    st.integers(0, 40),
    elements=st.integers(-5, 5).map(float),
)
tied_thresholds = hnp.arrays(
    np.float64,
    st.integers(0, 30),
    elements=st.one_of(
        st.integers(-6, 6).map(float),
        st.sampled_from([-np.inf, np.inf, -5.5, 0.5, 4.999]),
    ),
)


@settings(max_examples=300, deadline=None)
@given(scores=tied_scores, thresholds=tied_thresholds)
def test_count_at_or_above_matches_brute_force(scores, thresholds):
    got = count_at_or_above(scores, thresholds)
    assert got.shape == thresholds.shape
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, brute_count(scores, thresholds))


@pytest.mark.parametrize("seed", range(5))
def test_count_at_or_above_seeded_unsorted_with_infinities(seed):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=500), 1)  # about 60 distinct values: many ties
    thresholds = np.concatenate(
        [
            rng.permutation(np.unique(scores))[:30],  # exactly on scores, unsorted
            np.round(rng.normal(size=30), 2),
            [-np.inf, np.inf, np.inf, -np.inf],
            scores[:5],  # duplicated thresholds
        ]
    )
    thresholds = rng.permutation(thresholds)
    counts = count_at_or_above(scores, thresholds)
    np.testing.assert_array_equal(counts, brute_count(scores, thresholds))
    assert counts[thresholds == -np.inf].tolist() == [500, 500]
    assert counts[thresholds == np.inf].tolist() == [0, 0]


@pytest.mark.parametrize("size", [_PLACE_MIN[0] - 1, _PLACE_MIN[0]])
def test_count_at_or_above_both_ways_give_the_same_integers(size):
    """Below ``_PLACE_MIN`` scores the scores are sorted, from it on placed among the
    thresholds: the counts are those of a plain searchsorted either way (ties, infinities,
    unsorted and repeated thresholds)."""
    rng = np.random.default_rng(size)
    scores = np.round(rng.normal(size=size), 2)
    thresholds = np.concatenate([scores[:40], [-np.inf, np.inf, 0.0, 0.0], rng.normal(size=20)])
    thresholds = rng.permutation(thresholds)
    expected = size - np.searchsorted(np.sort(scores), thresholds, side="left")
    np.testing.assert_array_equal(count_at_or_above(scores, thresholds), expected)


def test_count_at_or_above_ties_go_to_positive_side():
    scores = np.array([0.5, 0.5, 0.5, 0.2])
    np.testing.assert_array_equal(
        count_at_or_above(scores, np.array([0.5, 0.50000001, 0.2, 0.49999999])),
        [3, 0, 4, 3],
    )


def test_counts_at_and_roc_counts_match_brute_force():
    rng = np.random.default_rng(7)
    pos = rng.integers(0, 10, size=37).astype(float)
    neg = rng.integers(-3, 7, size=23).astype(float)
    thresholds = rng.permutation(np.array([9.0, -np.inf, 3.0, 3.5, np.inf, -3.0, 0.0]))
    tp, fp = counts_at(pos, neg, thresholds)
    np.testing.assert_array_equal(tp, brute_count(pos, thresholds))
    np.testing.assert_array_equal(fp, brute_count(neg, thresholds))

    thr, tp, fp = roc_counts(pos, neg)
    expected_thr = np.array(sorted(set(pos.tolist()) | set(neg.tolist()), reverse=True))
    np.testing.assert_array_equal(thr, expected_thr)
    np.testing.assert_array_equal(tp, brute_count(pos, expected_thr))
    np.testing.assert_array_equal(fp, brute_count(neg, expected_thr))


def _labelled(pos, neg):
    y = np.concatenate([np.ones(len(pos), dtype=int), np.zeros(len(neg), dtype=int)])
    return y, np.concatenate([pos, neg])


@pytest.mark.parametrize("seed", range(10))
def test_roc_curve_and_auc_match_sklearn_with_ties(seed):
    rng = np.random.default_rng(seed)
    n_pos, n_neg = rng.integers(1, 60, size=2)
    pos = np.round(rng.normal(1.0, 2.0, size=n_pos))  # rounded: ties within and across classes
    neg = np.round(rng.normal(0.0, 2.0, size=n_neg))
    y, s = _labelled(pos, neg)
    fpr, tpr, thr = roc_curve(pos, neg)
    sk_fpr, sk_tpr, sk_thr = sk_roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(fpr, sk_fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(tpr, sk_tpr, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(thr, sk_thr)
    assert auc(pos, neg) == pytest.approx(roc_auc_score(y, s), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    pos=hnp.arrays(np.float64, st.integers(1, 25), elements=st.integers(0, 6).map(float)),
    neg=hnp.arrays(np.float64, st.integers(1, 25), elements=st.integers(0, 6).map(float)),
)
def test_auc_is_mann_whitney(pos, neg):
    # U / (n+ n-) with ties counting one half, as exact fractions
    u = sum(
        Fraction(1) if p > q else Fraction(1, 2) if p == q else Fraction(0)
        for p in pos
        for q in neg
    )
    assert auc(pos, neg) == pytest.approx(float(u / (len(pos) * len(neg))), abs=1e-12)
    y, s = _labelled(pos, neg)
    assert auc(pos, neg) == pytest.approx(roc_auc_score(y, s), abs=1e-12)


# roc-slides-fr.md, "Construction de la courbe ROC (2/2)": 20 instances scored 1, 0.95, ..., 0.05.
SLIDE_CLASSES = "+++-+--+---+--------"
# fmt: off
SLIDE_TFP = [0.000, 0.000, 0.000, 0.000, 0.071, 0.071, 0.143, 0.214, 0.214, 0.286, 0.357,
             0.429, 0.429, 0.500, 0.571, 0.643, 0.714, 0.786, 0.857, 0.929, 1.000]
SLIDE_TVP = [0.000, 0.167, 0.333, 0.500, 0.500, 0.667, 0.667, 0.667, 0.833, 0.833, 0.833,
             0.833, 1.000, 1.000, 1.000, 1.000, 1.000, 1.000, 1.000, 1.000, 1.000]
# fmt: on


def _slide_data():
    scores = [Fraction(20 - i, 20) for i in range(20)]  # 1, 0.95, ..., 0.05
    pos = [float(s) for s, c in zip(scores, SLIDE_CLASSES) if c == "+"]
    neg = [float(s) for s, c in zip(scores, SLIDE_CLASSES) if c == "-"]
    return pos, neg


def test_slide_hand_example_auc():
    pos, neg = _slide_data()
    assert (len(pos), len(neg)) == (6, 14)
    # negatives ranked below each positive: 14, 14, 14, 13, 11, 8 -> 74 of 6 * 14 = 84 pairs
    assert auc(pos, neg) == pytest.approx(74 / 84, abs=1e-12)
    assert round(auc(pos, neg), 3) == 0.881


def test_slide_hand_example_curve():
    pos, neg = _slide_data()
    fpr, tpr, thr = roc_curve(pos, neg)
    assert len(fpr) == 21
    # hand arithmetic: running counts of negatives / 14 and positives / 6 down the ranking
    n_neg_seen = np.cumsum([0] + [c == "-" for c in SLIDE_CLASSES])
    n_pos_seen = np.cumsum([0] + [c == "+" for c in SLIDE_CLASSES])
    np.testing.assert_allclose(fpr, n_neg_seen / 14, rtol=0, atol=1e-15)
    np.testing.assert_allclose(tpr, n_pos_seen / 6, rtol=0, atol=1e-15)
    # the slide's table, printed to 3 decimals
    np.testing.assert_allclose(fpr, SLIDE_TFP, rtol=0, atol=5e-4 + 1e-12)
    np.testing.assert_allclose(tpr, SLIDE_TVP, rtol=0, atol=5e-4 + 1e-12)
    assert thr[0] == np.inf
    np.testing.assert_allclose(thr[1:], [(20 - i) / 20 for i in range(20)], rtol=1e-15)


# labels -> scores ---------------------------------------------------------------------------


def test_split_scores_any_labels():
    from rocsim import split_scores

    pos, neg = split_scores(np.array(["yes", "no", "yes"]), [0.9, 0.1, 0.3], pos_label="yes")
    assert pos.tolist() == [0.9, 0.3] and neg.tolist() == [0.1]
    pos, neg = split_scores([1, 0, 0], [2.0, 1.0, 0.5])
    assert pos.tolist() == [2.0] and neg.tolist() == [1.0, 0.5]


@pytest.mark.parametrize(
    ("y", "s", "word"),
    [
        ([0, 1, 2], [0.1, 0.2, 0.3], "binary"),
        ([1, 1, 1], [0.1, 0.2, 0.3], "one class"),
        ([0, 1], [0.1, 0.2, 0.3], "length"),
        ([0, 1], [0.1, np.nan], "NaN"),
        ([], [], "empty"),
        ([0, 2], [0.1, 0.2], "pos_label"),
        ([[0, 1]], [[0.1, 0.2]], "1-D"),
    ],
)
def test_split_scores_bad_input(y, s, word):
    from rocsim import split_scores

    with pytest.raises(ValueError, match=word):
        split_scores(y, s)
