"""
Your classifier's ROC band
==========================

Pointwise confidence intervals of one classifier's ROC curve, from labels and scores
(scikit-learn style), with :func:`rocsim.roc_ci`. The intervals come from the *exact*
bootstrap law: the limit of a Monte Carlo bootstrap with infinitely many resamples, computed in
closed form, so there is no resampling noise and no number of resamples to choose.

Two ways of averaging a ROC curve (thesis, section 4.1):

- **vertical averaging**: at fixed false positive rates, an interval for the true positive
  rate (Algorithm 4.3);
- **threshold averaging**: at fixed thresholds, a rectangle for (FPR, TPR), each axis at
  level ``sqrt(confidence_level)`` (Algorithm 4.1).
"""

# %%
# A classifier's scores on a test set
# -----------------------------------
# Labels may be any two values (``pos_label`` names the positive one unless they are 0/1,
# -1/1 or booleans); scores are on any scale, higher meaning positive. Here: probabilities.
import matplotlib.pyplot as plt
import numpy as np

import rocsim

rng = np.random.default_rng(1)
y = rng.integers(0, 2, 400)
score = 1 / (1 + np.exp(-rng.normal(1.5 * y, 1.0)))

# %%
# Vertical averaging: a band for TPR at fixed FPRs
# ------------------------------------------------
# By default at FPRs 0.01, ..., 0.99 (each moved to the nearest ``r / n-``, the FPRs the test
# set can reach); ``at=`` chooses others.
band = rocsim.roc_ci(y, score, averaging="vertical", confidence_level=0.95)
band.to_frame().head()

# %%
# One row per requested FPR; the ``fpr`` column holds the one used.
rocsim.roc_ci(y, score, averaging="vertical", at=[0.05, 0.1, 0.2]).to_frame()

# %%
# Threshold averaging: rectangles at fixed thresholds
# ---------------------------------------------------
# ``at=`` is then a *total positive ratio*, the share of instances predicted positive;
# ``thresholds=`` gives score thresholds themselves.
rectangles = rocsim.roc_ci(
    y, score, at=np.linspace(0.1, 0.9, 9), confidence_level=0.95
)
rectangles.to_frame()[
    ["q", "threshold", "fpr_low", "fpr_high", "tpr_low", "tpr_high"]
]

# %%
rocsim.roc_ci(y, score, thresholds=[0.3, 0.5, 0.7]).to_frame()

# %%
# Both on one figure
# ------------------
# ``.plot(ax=None)`` draws the empirical ROC curve with the band or the rectangles.
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4.4), sharey=True)
band.plot(ax=left)
left.set_title("vertical averaging (band)")
rectangles.plot(ax=right)
right.set_title("threshold averaging (rectangles)")
fig.tight_layout()

# %%
# Which method?
# -------------
# ``method=`` chooses the interval: ``score`` (the default, Algorithm 4.3 lines 20-21 and
# eq. 4.2), ``wald`` (eq. 4.1), ``agresti`` and, for vertical averaging, ``percentile``
# (quantiles of the exact law). The widths differ most near the ends of the curve:
for method in ("score", "wald", "agresti", "percentile"):
    b = rocsim.roc_ci(
        y, score, averaging="vertical", at=[0.02, 0.5], method=method
    )
    print(
        f"{method:>10}: width at FPR 0.02, 0.5 = {np.round(b.tpr_high - b.tpr_low, 3)}"
    )
