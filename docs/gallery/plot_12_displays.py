"""
Displays, as in scikit-learn
============================

:class:`rocsim.ROCBandDisplay`, :class:`rocsim.PrecisionRecallBandDisplay`,
:class:`rocsim.CostCurveDisplay` and :class:`rocsim.ROCComparisonDisplay` are made and drawn as
scikit-learn's ``RocCurveDisplay`` is: ``from_estimator(estimator, X, y)`` or
``from_predictions(y_true, y_score)``, into the axes you give (``ax=``), keeping what they drew
(``ax_``, ``figure_``, ``line_``, ``band_``) and the numbers (``result``). Each curve comes
with its exact bootstrap band.
"""

# %%
# Two classifiers fitted on one half of a data set
# ------------------------------------------------
import matplotlib.pyplot as plt
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

import rocsim

X, y = make_classification(
    n_samples=800, n_informative=3, class_sep=0.8, random_state=0
)
X_train, X_test, y_train, y_test = X[:400], X[400:], y[:400], y[400:]
logistic = LogisticRegression().fit(X_train, y_train)
bayes = GaussianNB().fit(X_train, y_train)

# %%
# ROC curves with their bands, two models on one axes
# ---------------------------------------------------
# ``from_estimator`` takes ``predict_proba`` (else ``decision_function``) for the class
# ``estimator.classes_[-1]``; the options after ``y`` are those of :func:`rocsim.roc_ci`.
# Each model takes the axes' next colour.
fig, ax = plt.subplots(figsize=(5.5, 5))
for model in (logistic, bayes):
    rocsim.ROCBandDisplay.from_estimator(
        model,
        X_test,
        y_test,
        averaging="vertical",
        ax=ax,
        plot_chance_level=model is bayes,
    )
ax.set_title("95% bands, vertical averaging")

# %%
# Precision-recall and cost curves
# --------------------------------
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.4))
pr = rocsim.PrecisionRecallBandDisplay.from_estimator(
    logistic, X_test, y_test, ax=left, plot_chance_level=True
)
cost = rocsim.CostCurveDisplay.from_predictions(
    y_test,
    logistic.decision_function(X_test),
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
# :class:`rocsim.ROCComparisonDisplay` draws ``TPR1 - TPR2`` with its exact *paired*
# bootstrap band (both classifiers scored the same instances); points where the interval
# excludes 0 are marked.
comparison = rocsim.ROCComparisonDisplay.from_estimators(
    logistic, bayes, X_test, y_test, averaging="vertical"
)
comparison.ax_.set_title("logistic regression minus naive Bayes")
