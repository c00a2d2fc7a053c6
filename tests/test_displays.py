"""Displays as scikit-learn's (issue 35): ``from_predictions`` and ``from_estimator`` draw a
curve with its band into the given axes, keep ``ax_``, ``figure_``, ``line_``, ``band_`` and the
numbers (``result``, those of the matching function), pick an estimator's scores by
scikit-learn's rules, and put several models on one axes."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

import rocsim

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import LinearSVC

X, Y = make_classification(n_samples=500, n_informative=4, random_state=3)
TRAIN, TEST = slice(0, 250), slice(250, None)
LR = LogisticRegression().fit(X[TRAIN], Y[TRAIN])
NB = GaussianNB().fit(X[TRAIN], Y[TRAIN])


@pytest.fixture
def ax():
    fig, axes = plt.subplots()
    yield axes
    plt.close(fig)


DISPLAYS = {
    "roc": (rocsim.ROCBandDisplay, rocsim.roc_ci, {"averaging": "vertical"}),
    "roc threshold": (rocsim.ROCBandDisplay, rocsim.roc_ci, {"at": [0.2, 0.5, 0.8]}),
    "pr": (rocsim.PrecisionRecallBandDisplay, rocsim.pr_ci, {"confidence_level": 0.9}),
    "cost": (rocsim.CostCurveDisplay, rocsim.cost_curve_ci, {"w": [0.2, 0.5, 0.8]}),
}


@pytest.mark.parametrize("kind", sorted(DISPLAYS))
def test_from_estimator_draws_into_the_axes_with_the_functions_numbers(kind, ax):
    display_class, function, options = DISPLAYS[kind]
    display = display_class.from_estimator(LR, X[TEST], Y[TEST], ax=ax, **options)
    assert display.ax_ is ax and display.figure_ is ax.figure
    assert display.line_ in ax.lines and display.band_ is not None
    assert display.line_.get_label() == "LogisticRegression"
    scores = LR.predict_proba(X[TEST])[:, 1]  # predict_proba first, the class classes_[-1]
    expected = function(Y[TEST], scores, **options).to_frame()
    assert display.result.to_frame().equals(expected)


def test_from_predictions_names_the_curve_and_draws_the_chance_level(ax):
    scores = LR.decision_function(X[TEST])
    display = rocsim.ROCBandDisplay.from_predictions(
        Y[TEST], scores, ax=ax, name="logistic", plot_chance_level=True, averaging="vertical"
    )
    assert display.line_.get_label() == "logistic"
    assert display.chance_level_.get_xydata().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert "logistic" in labels and any("95% band" in label for label in labels)


def test_several_models_on_one_axes_take_their_own_colours(ax):
    first = rocsim.ROCBandDisplay.from_estimator(LR, X[TEST], Y[TEST], ax=ax)
    second = rocsim.ROCBandDisplay.from_estimator(NB, X[TEST], Y[TEST], ax=ax)
    assert first.ax_ is second.ax_ is ax
    assert first.line_.get_color() != second.line_.get_color()
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert "LogisticRegression" in labels and "GaussianNB" in labels


def test_decision_function_when_there_is_no_predict_proba(ax):
    svc = LinearSVC().fit(X[TRAIN], Y[TRAIN])
    display = rocsim.ROCBandDisplay.from_estimator(svc, X[TEST], Y[TEST], ax=ax)
    expected = rocsim.roc_ci(Y[TEST], svc.decision_function(X[TEST])).to_frame()
    assert display.result.to_frame().equals(expected)


def test_the_first_class_as_positive_reads_its_own_scores(ax):
    labels = np.where(Y == 1, "sick", "well")
    lr = LogisticRegression().fit(X[TRAIN], labels[TRAIN])  # classes_: ["sick", "well"]
    display = rocsim.ROCBandDisplay.from_estimator(
        lr, X[TEST], labels[TEST], pos_label="sick", ax=ax, response_method="decision_function"
    )
    scores = -lr.decision_function(X[TEST])  # the decision function points to "well"
    expected = rocsim.roc_ci(labels[TEST], scores, pos_label="sick").to_frame()
    assert display.result.to_frame().equals(expected)
    proba = rocsim.ROCBandDisplay.from_estimator(lr, X[TEST], labels[TEST], ax=ax)
    assert proba.result.n_pos == int(np.sum(labels[TEST] == "well"))  # classes_[-1]


def test_comparison_display_draws_the_difference(ax):
    display = rocsim.ROCComparisonDisplay.from_estimators(
        LR, NB, X[TEST], Y[TEST], averaging="vertical", ax=ax
    )
    s1, s2 = (e.predict_proba(X[TEST])[:, 1] for e in (LR, NB))
    expected = rocsim.compare_roc(Y[TEST], s1, s2, averaging="vertical").to_frame()
    assert display.result.to_frame().equals(expected)
    assert display.line_.get_label() == "LogisticRegression - GaussianNB"
    assert ax.get_ylabel().startswith("TPR1 - TPR2")
    with pytest.raises(TypeError, match="from_estimators"):
        rocsim.ROCComparisonDisplay.from_estimator(LR, X[TEST], Y[TEST])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: rocsim.ROCBandDisplay.from_estimator(LR, X, Y, response_method="predict"),
            "unknown response_method",
        ),
        (
            lambda: rocsim.ROCBandDisplay.from_estimator(LogisticRegression(), X, Y),
            "fit it first",
        ),
        (lambda: rocsim.ROCBandDisplay.from_estimator(LR, X, Y, pos_label=7), "pos_label 7"),
        (
            lambda: rocsim.ROCBandDisplay.from_predictions(np.where(Y, "a", "b"), X[:, 0]),
            "pos_label",
        ),
    ],
)
def test_bad_input_is_one_line(call, message):
    with pytest.raises(ValueError, match=message) as raised:
        call()
    assert "\n" not in str(raised.value)
    plt.close("all")


def test_a_new_figure_without_axes():
    display = rocsim.PrecisionRecallBandDisplay.from_predictions(
        Y[TEST], LR.predict_proba(X[TEST])[:, 1], plot_chance_level=True
    )
    assert display.ax_.has_data() and display.chance_level_ is not None
    plt.close(display.figure_)
