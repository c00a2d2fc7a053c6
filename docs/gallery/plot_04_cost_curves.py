"""
Cost curves
===========

A ROC curve does not say which classifier is cheaper for a given mix of error costs and class
shares; a cost curve does (thesis, chapter 3). At the operating condition
``w = p(+) C(-|+) / (p(+) C(-|+) + p(-) C(+|-))`` the normalized expected cost of a ROC point
is ``w (1 - TPR) + (1 - w) FPR`` (eq. 3.12), and the cost curve is the lower envelope of these
lines. :func:`rocsim.cost_curve_ci` gives pointwise intervals from the exact bootstrap moments
(eqs. 5.3-5.5), and :func:`rocsim.compare_cost` intervals for the paired difference of two
classifiers' costs (eqs. 5.6-5.8).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import rocsim

rng = np.random.default_rng(11)
y = rng.integers(0, 2, 500)
score_a = rng.normal(1.5 * y, 1.0)
score_b = 0.8 * score_a + rng.normal(0.0, 0.9, y.size)

# %%
# One classifier
# --------------
# At each ``w`` the classifier uses the threshold that minimizes the test set's cost
# (``threshold="empirical"``); ``threshold=`` also takes one threshold per ``w``. The default
# method adds a pseudo-count of 2 to every cell of the confusion matrix (Agresti, Table 5.1).
w = np.linspace(0.05, 0.95, 19)
cost = rocsim.cost_curve_ci(y, score_a, w=w, confidence_level=0.9)
cost.to_frame().head()

# %%
# The whole cost curve at once
# ----------------------------
# The intervals above hold one operating condition at a time. ``band="simultaneous"`` widens
# them to the common level at which the whole bootstrap cost curve (at these thresholds) lies
# inside with probability 90%, that probability computed exactly; ``band="bonferroni"`` takes
# each at ``1 - 0.1 / 19``.
whole = rocsim.cost_curve_ci(
    y, score_a, w=w, confidence_level=0.9, band="simultaneous"
)
print(whole)

# %%
# Two classifiers: where is one cheaper?
# --------------------------------------
# ``cost_difference = cost(b) - cost(a)``, positive where the first classifier is cheaper,
# with Agresti-Min intervals (a pseudo-count of 1/2 per cell, Table 5.2).
diff = rocsim.compare_cost(y, score_a, score_b, w=w, confidence_level=0.9)
frame = diff.to_frame()
cheaper = frame.loc[frame["verdict"] == "first better", "w"]
print(
    f"a significantly cheaper at {cheaper.size} of {w.size} operating conditions"
)
if cheaper.size:
    print(f"  from w = {cheaper.min():.2f} to w = {cheaper.max():.2f}")

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4))
cost.plot(ax=left)
left.set_title("cost curve of a, 90% band")
diff.plot(ax=right)
right.set_title("cost(b) - cost(a)")
fig.tight_layout()
