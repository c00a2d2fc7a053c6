"""Displays as scikit-learn's (issues 35, 49): ``from_predictions`` and ``from_estimator`` draw a
curve with its band into the given axes, keep ``ax_``, ``figure_``, ``line_``, ``band_`` and the
numbers (``result``, those of the matching function), pick an estimator's scores by
scikit-learn's rules, put several models on one axes, read "name (AUC = ..., 95% CI ...)" in
the legend, forward matplotlib keywords and keep the labels of an axes scikit-learn drew on."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

import rocsim

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgb
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
    "roc threshold": (
        rocsim.ROCBandDisplay,
        rocsim.roc_ci,
        {"averaging": "threshold", "at": [0.2, 0.5, 0.8]},
    ),
    "pr": (rocsim.PrecisionRecallBandDisplay, rocsim.pr_ci, {"confidence_level": 0.9}),
    "cost": (rocsim.CostCurveDisplay, rocsim.cost_curve_ci, {"w": [0.2, 0.5, 0.8]}),
    "decision": (
        rocsim.DecisionCurveDisplay,
        rocsim.net_benefit_ci,
        {"thresholds": [0.1, 0.3, 0.5]},
    ),
}


@pytest.mark.parametrize("kind", sorted(DISPLAYS))
def test_from_estimator_draws_into_the_axes_with_the_functions_numbers(kind, ax):
    display_class, function, options = DISPLAYS[kind]
    display = display_class.from_estimator(LR, X[TEST], Y[TEST], ax=ax, **options)
    assert display.ax_ is ax and display.figure_ is ax.figure
    assert display.line_ in ax.lines and display.band_ is not None
    assert display.line_.get_label().startswith("LogisticRegression")
    scores = LR.predict_proba(X[TEST])[:, 1]  # predict_proba first, the class classes_[-1]
    expected = function(Y[TEST], scores, **options).to_frame()
    assert display.result.to_frame().equals(expected)


def test_from_predictions_names_the_curve_and_draws_the_chance_level(ax):
    scores = LR.decision_function(X[TEST])
    display = rocsim.ROCBandDisplay.from_predictions(
        Y[TEST], scores, ax=ax, name="logistic", plot_chance_level=True
    )
    auc = rocsim.auc_ci(Y[TEST], scores)
    expected = f"logistic (AUC = {auc.auc:.2f}, 95% CI {auc.low:.2f} to {auc.high:.2f})"
    assert display.line_.get_label() == expected
    assert display.chance_level_.get_xydata().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert display.chance_level_.get_label() == "Chance level (AUC = 0.5)"
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels == [expected, "Chance level (AUC = 0.5)"]  # the band shares its curve's entry
    assert ax.get_xlabel() == "False Positive Rate (Positive label: 1)"
    assert ax.get_ylabel() == "True Positive Rate (Positive label: 1)"


def test_the_band_is_shaded_around_the_curve_by_default(ax):
    display = rocsim.ROCBandDisplay.from_estimator(LR, X[TEST], Y[TEST], ax=ax)
    assert display.result.averaging == "vertical"
    assert isinstance(display.band_, PolyCollection) and display.band_ in ax.collections
    assert display.band_.get_facecolor()[0][:3] == pytest.approx(to_rgb(display.line_.get_color()))
    legend = ax.get_legend()
    assert len(legend.legend_handles) == 1  # curve and band, one entry


def test_matplotlib_keywords_are_forwarded(ax):
    display = rocsim.ROCBandDisplay.from_estimator(
        LR,
        X[TEST],
        Y[TEST],
        ax=ax,
        linestyle="--",
        curve_kwargs={"color": "tab:purple", "alpha": 0.7},
        band_kwargs={"alpha": 0.1, "hatch": "//"},
        plot_chance_level=True,
        chance_level_kw={"color": "0.5", "linestyle": ":"},
        despine=True,
    )
    assert display.line_.get_linestyle() == "--" and display.line_.get_alpha() == 0.7
    assert to_rgb(display.line_.get_color()) == to_rgb("tab:purple")
    assert display.band_.get_alpha() == 0.1 and display.band_.get_hatch() == "//"
    assert display.chance_level_.get_linestyle() == ":"
    assert not ax.spines["top"].get_visible() and not ax.spines["right"].get_visible()


def test_breast_cancer_beside_scikit_learn_on_one_axes(ax):
    """The issue's example: logistic regression on breast cancer, rocsim's display beside
    scikit-learn's RocCurveDisplay: AUC and interval in the legend, a shaded band, the labels
    scikit-learn wrote kept, one chance line."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.metrics import RocCurveDisplay

    X_all, y_all = load_breast_cancer(return_X_y=True)
    train = np.arange(y_all.size) % 2 == 0
    logistic = LogisticRegression(max_iter=5000).fit(X_all[train], y_all[train])
    bayes = GaussianNB().fit(X_all[train], y_all[train])
    RocCurveDisplay.from_estimator(
        bayes, X_all[~train], y_all[~train], ax=ax, plot_chance_level=True
    )
    xlabel, ylabel = ax.get_xlabel(), ax.get_ylabel()
    display = rocsim.ROCBandDisplay.from_estimator(
        logistic, X_all[~train], y_all[~train], ax=ax, name="logistic", plot_chance_level=True
    )
    assert (ax.get_xlabel(), ax.get_ylabel()) == (xlabel, ylabel)
    auc = rocsim.auc_ci(y_all[~train], logistic.predict_proba(X_all[~train])[:, 1])
    expected = f"logistic (AUC = {auc.auc:.2f}, 95% CI {auc.low:.2f} to {auc.high:.2f})"
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels[-1] == expected and labels.count("Chance level (AUC = 0.5)") == 1
    assert len(labels) == 3 and isinstance(display.band_, PolyCollection)


def test_a_display_from_arrays_and_from_results():
    display = rocsim.ROCBandDisplay(
        fpr=[0, 0.5, 1], tpr=[0, 0.8, 1], roc_auc=0.8, roc_auc_ci=(0.6, 0.9), name="m"
    ).plot()
    assert display.line_.get_label() == "m (AUC = 0.80, 95% CI 0.60 to 0.90)"
    assert display.band_ is None and display.result is None
    auc = rocsim.auc_ci(Y[TEST], LR.predict_proba(X[TEST])[:, 1])
    from_auc = rocsim.ROCBandDisplay.from_result(auc, name="LR").plot()
    assert from_auc.line_.get_label().startswith(f"LR (AUC = {auc.auc:.2f}")
    with pytest.raises(TypeError, match=r"from_result\(result\)"):
        rocsim.ROCBandDisplay(auc)
    with pytest.raises(TypeError, match="needs fpr, tpr"):
        rocsim.ROCBandDisplay(name="m")
    plt.close("all")


def test_average_precision_is_scikit_learns(ax):
    from sklearn.metrics import average_precision_score

    scores = LR.predict_proba(X[TEST])[:, 1]
    display = rocsim.PrecisionRecallBandDisplay.from_predictions(
        Y[TEST], scores, ax=ax, name="LR", plot_chance_level=True
    )
    assert display.average_precision == pytest.approx(average_precision_score(Y[TEST], scores))
    assert display.line_.get_label() == f"LR (AP = {display.average_precision:.2f})"
    share = np.mean(Y[TEST] == 1)
    assert display.chance_level_.get_label() == f"Chance level (AP = {share:.2f})"


def test_several_models_on_one_axes_take_their_own_colours(ax):
    first = rocsim.ROCBandDisplay.from_estimator(LR, X[TEST], Y[TEST], ax=ax)
    second = rocsim.ROCBandDisplay.from_estimator(NB, X[TEST], Y[TEST], ax=ax)
    assert first.ax_ is second.ax_ is ax
    assert first.line_.get_color() != second.line_.get_color()
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert [label.split(" (")[0] for label in labels] == ["LogisticRegression", "GaussianNB"]


def test_decision_function_when_there_is_no_predict_proba(ax):
    svc = LinearSVC().fit(X[TRAIN], Y[TRAIN])
    display = rocsim.ROCBandDisplay.from_estimator(svc, X[TEST], Y[TEST], ax=ax)
    scores = svc.decision_function(X[TEST])
    expected = rocsim.roc_ci(Y[TEST], scores, averaging="vertical").to_frame()
    assert display.result.to_frame().equals(expected)


def test_the_first_class_as_positive_reads_its_own_scores(ax):
    labels = np.where(Y == 1, "sick", "well")
    lr = LogisticRegression().fit(X[TRAIN], labels[TRAIN])  # classes_: ["sick", "well"]
    display = rocsim.ROCBandDisplay.from_estimator(
        lr, X[TEST], labels[TEST], pos_label="sick", ax=ax, response_method="decision_function"
    )
    scores = -lr.decision_function(X[TEST])  # the decision function points to "well"
    expected = rocsim.roc_ci(labels[TEST], scores, pos_label="sick", averaging="vertical")
    assert display.result.to_frame().equals(expected.to_frame())
    assert ax.get_xlabel() == "False Positive Rate (Positive label: sick)"
    proba = rocsim.ROCBandDisplay.from_estimator(lr, X[TEST], labels[TEST], ax=ax)
    assert proba.result.n_pos == int(np.sum(labels[TEST] == "well"))  # classes_[-1]


def test_comparison_display_draws_the_difference(ax):
    display = rocsim.ROCComparisonDisplay.from_estimators(LR, NB, X[TEST], Y[TEST], ax=ax)
    s1, s2 = (e.predict_proba(X[TEST])[:, 1] for e in (LR, NB))
    expected = rocsim.compare_roc(Y[TEST], s1, s2, averaging="vertical").to_frame()
    assert display.result.to_frame().equals(expected)  # an FPR axis by default
    auc = rocsim.compare_auc(Y[TEST], s1, s2)
    assert display.line_.get_label() == (
        f"LogisticRegression - GaussianNB\n(\N{GREEK CAPITAL LETTER DELTA}AUC = "
        f"{auc.difference:+.3f}, 95% CI {auc.low:+.3f} to {auc.high:+.3f})"
    )
    assert ax.get_xlabel() == "False Positive Rate (Positive label: 1)"
    assert ax.get_ylabel() == "TPR(LogisticRegression) - TPR(GaussianNB)"
    with pytest.raises(TypeError, match="from_estimators"):
        rocsim.ROCComparisonDisplay.from_estimator(LR, X[TEST], Y[TEST])


def test_a_verdict_decided_by_tied_scores_is_warned(ax):
    """The second classifier gives 30 positives and 20 negatives one top score: its curve
    crosses FPR 0-0.2 on a straight segment, where the first is clearly better."""
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(100), np.zeros(100)]
    first = np.r_[rng.normal(3, 1, 100), rng.normal(0, 1, 100)]
    second = first.copy()
    second[np.r_[np.arange(30), 100 + np.arange(20)]] = 10.0
    with pytest.warns(rocsim.analysis.displays.TiedVerdictWarning, match="second gives 50"):
        rocsim.ROCComparisonDisplay.from_predictions(
            y, first, second, names=("first", "second"), ax=ax
        )


def test_a_tied_block_on_the_total_positive_ratio_is_warned(ax):
    """Threshold averaging: 20 positives share the second classifier's top score, so no
    threshold of it predicts between 0 and 10% positive; the verdicts there are the tie's."""
    rng = np.random.default_rng(1)
    y = np.r_[np.ones(100), np.zeros(100)]
    first = np.r_[rng.normal(3, 1, 100), rng.normal(0, 1, 100)]
    second = np.r_[rng.normal(1, 1, 100), rng.normal(0, 1, 100)]
    second[:20] = 10.0
    with pytest.warns(rocsim.analysis.displays.TiedVerdictWarning, match="total positive"):
        rocsim.ROCComparisonDisplay.from_predictions(
            y, first, second, names=("first", "second"), averaging="threshold", ax=ax
        )


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


def test_decision_curves_draw_their_references_and_share_the_axes(ax):
    """Treat-all and treat-none once per axes, treat-all's band under the full bootstrap only,
    and a second model keeps the room the first made."""
    first = rocsim.DecisionCurveDisplay.from_estimator(
        LR, X[TEST], Y[TEST], ax=ax, bootstrap="stratified"
    )
    labels = [line.get_label() for line in ax.lines]
    assert labels == ["LogisticRegression", "Treat all", "Treat none"]
    assert first.chance_level_.get_label() == "Treat all"
    assert not hasattr(first.chance_level_, "band")  # stratified: treat-all is fixed
    top = ax.get_ylim()[1]
    rocsim.DecisionCurveDisplay.from_estimator(NB, X[TEST], Y[TEST], ax=ax, bootstrap="full")
    labels = [line.get_label() for line in ax.lines]
    assert labels.count("Treat all") == 1 and labels.count("Treat none") == 1
    assert ax.get_ylim()[1] >= top and ax.get_xlabel().startswith("Threshold probability")
    assert ax.get_ylabel() == "Net benefit"


def test_decision_curves_need_probabilities(ax):
    svm = LinearSVC().fit(X[TRAIN], Y[TRAIN])
    with pytest.raises(ValueError, match="has no predict_proba"):
        rocsim.DecisionCurveDisplay.from_estimator(svm, X[TEST], Y[TEST], ax=ax)
    with pytest.raises(ValueError, match="y_proba must hold probabilities"):
        rocsim.DecisionCurveDisplay.from_predictions(Y[TEST], svm.decision_function(X[TEST]))
