"""
Decision curves with exact intervals
====================================

A decision curve (Vickers & Elkin 2006) asks whether acting on a model's predicted risk does
more good than harm: at a threshold probability ``t`` (treat when the risk is at least ``t``)
the net benefit is ``TP/n - FP/n * t/(1 - t)``, the true positives' gain less the false
positives' harm weighted by the odds at which a clinician is indifferent. A model is useful
at ``t`` where it beats both treating everyone and treating no one.

:func:`rocsim.net_benefit_ci` gives the net benefit at each threshold with intervals on its
exact bootstrap law (no resampling): under the stratified bootstrap the class sizes are kept;
under the full bootstrap the instances are resampled together, so that the prevalence varies
as between samples, and treat-all has an interval of its own. :func:`rocsim.compare_net_benefit`
compares two models scored on the same patients.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

import rocsim

X, y = make_classification(
    n_samples=1600,
    n_features=8,
    n_informative=4,
    weights=[0.8],
    random_state=1,
)
train, test = slice(0, 800), slice(800, None)
full = LogisticRegression().fit(X[train], y[train])
small = LogisticRegression().fit(X[train, :2], y[train])
risk_full = full.predict_proba(X[test])[:, 1]
risk_small = small.predict_proba(X[test, :2])[:, 1]
thresholds = np.arange(0, 60) / 100

# %%
# One model
# ---------
# The defaults are the ones the net benefit study found to hold the true net benefit: the
# full bootstrap (the prevalence varies between samples, as in a cohort) and Wald on the
# moments after two pseudo-counts per cell (``agresti``); the table has the curve,
# treat-all, and their bounds.
curve = rocsim.net_benefit_ci(y[test], risk_full, thresholds=thresholds)
curve.to_frame().iloc[[5, 10, 20, 40]].round(4)

# %%
# Two models on one axes
# ----------------------
# :class:`rocsim.DecisionCurveDisplay` draws as scikit-learn's displays do; treat-all and
# treat-none are drawn once per axes.
fig, ax = plt.subplots(figsize=(6.5, 4.5))
for model, features, name in (
    (full, slice(None), "8 features"),
    (small, slice(0, 2), "2 features"),
):
    rocsim.DecisionCurveDisplay.from_estimator(
        model,
        X[test, features],
        y[test],
        name=name,
        thresholds=thresholds,
        ax=ax,
    )
ax.set_title("Net benefit with 95% intervals (full bootstrap, agresti)")
fig.tight_layout()

# %%
# Which model, at which threshold?
# --------------------------------
# ``difference = NB1 - NB2`` on the same patients, with an interval on the moments of its
# exact paired law after two pseudo-counts per cell (``agresti``, the method that held the
# true difference in :doc:`/net_benefit_difference_study`), and each model over treat-all
# (``vs_all1``, ``vs_all2``).
cmp = rocsim.compare_net_benefit(
    y[test], risk_full, risk_small, thresholds=thresholds
)
frame = cmp.to_frame()
better = frame.loc[frame["low"] > 0, "threshold"]
print(cmp)
print(
    f"8 features better than 2 at {better.size} of {thresholds.size} thresholds"
)
frame.iloc[[5, 10, 20, 40], :6].round(4)
