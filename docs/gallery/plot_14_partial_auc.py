"""
How good is the classifier where I will operate it? The partial AUC
===================================================================

When a classifier will only be used at low false positive rates (a screening test, a fraud
filter), the area under the whole ROC curve mixes in regions that never matter. The partial
AUC over ``FPR <= 0.2`` reads the curve only there. :func:`rocsim.auc_ci` gives it with a
confidence interval:

- ``max_fpr=f`` returns scikit-learn's ``roc_auc_score(max_fpr=f)`` exactly: the area under
  the curve (ties as diagonal segments, the curve read linearly at ``f``) standardised as
  McClish (1989) does, 0.5 for a useless classifier and 1 for a perfect one;
- ``fpr_range=(lo, hi)`` and ``tpr_range=(lo, hi)`` are pROC's ``partial.auc`` with
  ``partial.auc.focus="specificity"`` and ``"sensitivity"`` (``partial.auc.correct=TRUE``);
- ``method="delong"`` (the default) gives a placement-value (DeLong-type) variance;
  ``method="exact_bootstrap"`` the exact variance of the partial area under the stratified
  bootstrap, what a Monte Carlo bootstrap with infinitely many resamples would give, without
  resampling. The raw area is ``.partial_area``.
"""

# %%
# Two classifiers scored on the same instances
# --------------------------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.metrics import roc_auc_score

import rocsim

rng = np.random.default_rng(3)
y = np.r_[np.ones(300), np.zeros(300)]
shared = rng.normal(size=600)
first = y + 0.8 * shared + 0.6 * rng.normal(size=600)
second = 0.8 * y + 0.8 * shared + 0.6 * rng.normal(size=600)

# %%
# The partial AUC at FPR <= 0.2, and scikit-learn's value
# -------------------------------------------------------
low_fpr = rocsim.auc_ci(y, first, max_fpr=0.2)
print(low_fpr)
print("scikit-learn:", roc_auc_score(y, first, max_fpr=0.2))
low_fpr.to_frame()

# %%
# The exact bootstrap variance beside the placement-value one
# -----------------------------------------------------------
exact = rocsim.auc_ci(y, first, max_fpr=0.2, method="exact_bootstrap")
print(exact)
print(
    f"standard error: DeLong-type {low_fpr.var**0.5:.4f}, exact bootstrap {exact.var**0.5:.4f}"
)

# %%
# A range of FPRs, or of TPRs
# ---------------------------
print(rocsim.auc_ci(y, first, fpr_range=(0.05, 0.2)))
print(rocsim.auc_ci(y, first, tpr_range=(0.8, 1.0)))

# %%
# Is the first classifier better where it will be used?
# -----------------------------------------------------
# The paired difference of the two partial AUCs, with its interval and p-value (the
# placement values paired instance by instance, as DeLong et al. pair them).
comparison = rocsim.compare_auc(y, first, second, max_fpr=0.2)
print(comparison)

# %%
# The figure's legend gives each classifier's *standardised* partial AUC over FPR 0-0.2, the
# shaded range (McClish's scale: 0.5 for chance, 1 for a perfect classifier over that
# range). It is not the area under the whole curve, which ranks the two the same way here
# with other numbers:
print(
    "whole AUCs (scikit-learn):",
    f"{roc_auc_score(y, first):.3f},",
    f"{roc_auc_score(y, second):.3f}",
)
fig, ax = plt.subplots(figsize=(5, 5))
comparison.plot(ax=ax)
plt.show()
