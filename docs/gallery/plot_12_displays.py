"""
Displays, as in scikit-learn
============================

:class:`rocsim.ROCBandDisplay`, :class:`rocsim.PrecisionRecallBandDisplay`,
:class:`rocsim.CostCurveDisplay` and :class:`rocsim.ROCComparisonDisplay` are made and drawn as
scikit-learn's ``RocCurveDisplay`` is: ``from_estimator(estimator, X, y)`` or
``from_predictions(y_true, y_score)``, into the axes you give (``ax=``), with scikit-learn's
drawing keywords (``name``, ``plot_chance_level``, ``chance_level_kw``, ``curve_kwargs`` or
matplotlib keywords, ``despine``), keeping what they drew (``ax_``, ``figure_``, ``line_``,
``band_``) and the numbers (``result``). Each curve comes with its exact bootstrap band, shaded
around it, and the legend gives the AUC with its interval.
"""

# %%
# A rocsim display beside scikit-learn's
# --------------------------------------
# Breast cancer data, logistic regression and naive Bayes fitted on three quarters. The
# naive Bayes curve is scikit-learn's ``RocCurveDisplay``; the logistic regression's is
# rocsim's, on the same axes: its legend reads "name (AUC = ..., 95% CI ...)" and its band
# (95% pointwise, vertical averaging) is shaded around it. The axes keep scikit-learn's
# labels. The right panel zooms on the top-left corner, where the curves differ.
import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import RocCurveDisplay
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import rocsim

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, random_state=0, stratify=y
)
logistic = make_pipeline(StandardScaler(), LogisticRegression()).fit(
    X_train, y_train
)
bayes = GaussianNB().fit(X_train, y_train)

fig, (whole, corner) = plt.subplots(1, 2, figsize=(11, 5))
for ax in (whole, corner):
    RocCurveDisplay.from_estimator(
        bayes,
        X_test,
        y_test,
        ax=ax,
        name="naive Bayes",
        plot_chance_level=True,
    )
    rocsim.ROCBandDisplay.from_estimator(
        logistic, X_test, y_test, ax=ax, name="logistic regression"
    )
corner.set(xlim=(-0.01, 0.3), ylim=(0.7, 1.01), title="top-left corner")
corner.legend(loc="lower right", fontsize="small")
fig.tight_layout()

# %%
# Precision-recall and cost curves
# --------------------------------
# The precision-recall display gives the average precision (scikit-learn's) in the legend
# and the share of positives as its chance level; the cost curve's chance level is the
# cost of the trivial classifiers (all positive, all negative).
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6))
pr = rocsim.PrecisionRecallBandDisplay.from_estimator(
    logistic,
    X_test,
    y_test,
    name="logistic regression",
    ax=left,
    plot_chance_level=True,
)
left.set_ylim(0.5, 1.01)
cost = rocsim.CostCurveDisplay.from_estimator(
    logistic,
    X_test,
    y_test,
    name="logistic regression",
    ax=right,
    plot_chance_level=True,
)
fig.tight_layout()

# %%
# The numbers behind a display are its ``result``:
pr.result.to_frame().head()

# %%
# Where does one classifier beat the other?
# -----------------------------------------
# :class:`rocsim.ROCComparisonDisplay` draws ``TPR(first) - TPR(second)`` at fixed FPRs with
# its exact *paired* bootstrap band (both classifiers scored the same instances), the AUC
# difference with its interval in the legend; points where the interval excludes 0 are
# marked. Should a block of tied scores decide such a point, it warns
# (``TiedVerdictWarning``).
comparison = rocsim.ROCComparisonDisplay.from_estimators(
    logistic,
    bayes,
    X_test,
    y_test,
    names=("logistic regression", "naive Bayes"),
)
