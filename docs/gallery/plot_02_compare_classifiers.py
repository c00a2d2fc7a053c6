"""
Comparing two classifiers
=========================

Two classifiers scored on the same instances: is the new one better, and *where* on the ROC
curve? :func:`rocsim.compare_roc` gives pointwise intervals for ``TPR_new - TPR_old`` from
the exact *paired* bootstrap (instances are resampled with both of their scores), and
:func:`rocsim.compare_auc` the difference of the areas: by default the MOVER on score
intervals of each area (the method the ``auc_paired`` coverage study chose), or the Wald
interval on DeLong's variance (pROC's ``roc.test``) or on the exact bootstrap's.
"""

# %%
# Two classifiers on one test set
# -------------------------------
# The second is a noisier version of the first, so the two are correlated, as two models
# trained on the same features usually are.
import matplotlib.pyplot as plt
import numpy as np

import rocsim

rng = np.random.default_rng(7)
y = np.repeat([0, 1], 60)  # 60 negatives, 60 positives
score_new = rng.normal(1.4 * y, 1.0)
score_old = 0.6 * score_new + rng.normal(0.0, 1.0, y.size)

# %%
# The areas under the curves
# --------------------------
print(rocsim.auc_ci(y, score_new))  # Newcombe's score interval, the default
print(rocsim.auc_ci(y, score_old))
for method in ("mover", "delong", "exact_bootstrap"):
    print(rocsim.compare_auc(y, score_new, score_old, method=method))

# %%
# Where on the curve? Vertical averaging
# --------------------------------------
# At each FPR, an interval for ``TPR_new - TPR_old`` (Algorithm 4.4, on the exact bootstrap
# moments), and a verdict.
roc = rocsim.compare_roc(
    y,
    score_new,
    score_old,
    averaging="vertical",
    at=np.linspace(0.05, 0.95, 19),
)
frame = roc.to_frame()
frame[["fpr", "dtpr", "dtpr_low", "dtpr_high", "verdict"]].head(8)

# %%
print(frame["verdict"].value_counts().to_string())

# %%
# Better somewhere, or everywhere?
# --------------------------------
# Nineteen pointwise verdicts make nineteen chances to be wrong. A band holding the whole
# difference curve at once makes ``overall`` a family-wise statement. ``band="simultaneous"``
# is a band for the *true* difference: the Wald intervals on the exact paired moments at one
# critical value ``c`` for every point (sup-t, from the curve's Gaussian law), widened to
# Tango's interval at ``c`` where both classifiers reach TPR 1; its coverage of the true
# difference is measured by the paired band study (:doc:`/bands_study`).
whole = rocsim.compare_roc(
    y,
    score_new,
    score_old,
    averaging="vertical",
    at=np.linspace(0.05, 0.95, 19),
    band="simultaneous",
)
print(whole)
print(f"pointwise: {roc.overall}; simultaneous: {whole.overall}")

# %%
# Threshold averaging
# -------------------
# At each total positive ratio ``q`` each classifier uses its own threshold (the score that
# puts a share ``q`` of the instances above it), so a higher TPR there also means a lower
# FPR. The table adds the ``dfpr`` interval and the exact probabilities that each classifier
# dominates the other (eq. 4.5).
by_threshold = rocsim.compare_roc(
    y, score_new, score_old, at=np.linspace(0.1, 0.9, 17)
)
by_threshold.to_frame()[
    ["q", "dtpr", "dtpr_low", "dtpr_high", "p_first_dominates"]
].head()

# %%
# The differences with their bands
# --------------------------------
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4), sharey=True)
roc.plot(ax=left)
left.set_title("vertical averaging: TPR new - old")
by_threshold.plot(ax=right)
right.set_title("threshold averaging: TPR new - old")
fig.tight_layout()
