"""
A clinical operating point, reported with exact intervals
=========================================================

Once a threshold is chosen, a test is reported by its sensitivity and specificity, its
predictive values and likelihood ratios. :func:`rocsim.operating_point_ci` gives each with an
interval read from an exact law (no resampling): by default the law whose binomials draw after
two pseudo-counts in each class (``agresti_hull``, the method that held its level on the true
metrics in :doc:`/operating_point_study`; the plug-in bootstrap law collapses where a rate nears
0 or 1). At a fixed threshold, or at a fixed
specificity or sensitivity where the threshold moves with the resample. A metric undefined on
some resamples (PPV without a predicted positive) has its law conditional on being defined, and
the share where it is not is reported; PPV and NPV can be read at another prevalence.
"""

# %%
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import rocsim

X, y = load_breast_cancer(return_X_y=True)
y = 1 - y  # malignant = 1, the condition to detect
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.5, random_state=0, stratify=y
)
model = make_pipeline(StandardScaler(), LogisticRegression(C=0.05))
risk = model.fit(X_train, y_train).predict_proba(X_test)[:, 1]

# %%
# At a threshold of 0.3
# ---------------------
report = rocsim.operating_point_ci(y_test, risk, threshold=0.3)
print(report)
report.to_frame().round(3)

# %%
# At 95% specificity, and at a screening prevalence of 2%
# --------------------------------------------------------
# Holding specificity fixed, the threshold is the one each resample needs to keep it; PPV and
# NPV at the prevalence of the population screened (Bayes' rule).
screening = rocsim.operating_point_ci(
    y_test,
    risk,
    fpr=0.05,
    prevalence=0.02,
    metrics=["sensitivity", "ppv", "npv"],
)
screening.to_frame().round(4)

# %%
# A cohort: the prevalence is an estimate too
# -------------------------------------------
# In a cohort the prevalence is itself an estimate, and PPV, NPV and
# accuracy move with it: by default (``bootstrap="auto"``) their laws are the
# full bootstrap's, the instances resampled together and the class counts
# random; the other metrics' are the stratified bootstrap's, each class
# resampled on its own. Keeping the class sizes for PPV too
# (``"stratified"``, as in a case-control design) narrows its interval, and
# on cohort data it then misses the true PPV far more often than 5%
# (:doc:`/operating_point_full_study`).
print(report.law)
kept = rocsim.operating_point_ci(
    y_test,
    risk,
    threshold=0.3,
    bootstrap="stratified",
    metrics=["ppv", "npv", "accuracy"],
)
both = report.to_frame().set_index("metric").loc[["ppv", "npv", "accuracy"]]
both["stratified low"] = kept.to_frame().set_index("metric")["low"]
both["stratified high"] = kept.to_frame().set_index("metric")["high"]
both[["value", "low", "high", "stratified low", "stratified high"]].round(3)

# %%
# At a fixed FPR or TPR the threshold is a rank within a class, and the full
# bootstrap's exact law is not built there. The default reads PPV, NPV and
# accuracy on its approximation, ``full_approx``: the rates' stratified law at
# a prevalence drawn as the full bootstrap draws it
# (:doc:`/operating_point_fpr_full_study` measures both laws on cohorts).
at_fpr = rocsim.operating_point_ci(
    y_test, risk, fpr=0.05, metrics=["sensitivity", "ppv", "npv"]
)
print({metric: law.bootstrap for metric, law in at_fpr.law.laws.items()})
at_fpr.to_frame().round(3)

# %%
# The laws behind the intervals
# -----------------------------
# ``report.law`` is the law the intervals read (after the pseudo-counts);
# ``with_pseudo_count(0)`` gives the exact bootstrap law itself.
bootstrap = report.law.with_pseudo_count(0)["lr_pos"]
print(
    f"LR+ {bootstrap.value:.2f}: exact bootstrap mean {bootstrap.mean:.2f}, "
    f"sd {np.sqrt(bootstrap.var):.2f}"
)
print(
    f"undefined (no false positive) on {100 * bootstrap.undefined:.2f}% of resamples"
)
