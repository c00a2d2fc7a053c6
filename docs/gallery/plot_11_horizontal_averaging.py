"""
Horizontal averaging: FPR at fixed TPRs
=======================================

Vertical averaging fixes the false positive rate and gives an interval for the true positive
rate; horizontal averaging does the converse, as pROC's ``ci.sp`` does: at a required
sensitivity, how many false alarms? ``rocsim.roc_ci(..., averaging="horizontal")`` takes the
TPRs in ``at=`` (each moved to the nearest ``k / n+`` the test set reaches, reported in
``tpr``) and gives intervals for the FPR there, from its exact bootstrap law.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import rocsim

rng = np.random.default_rng(2)
y = rng.integers(0, 2, 300)
score = rng.normal(1.2 * y, 1.0)

# %%
# The FPR at a required sensitivity
# ---------------------------------
rocsim.roc_ci(y, score, averaging="horizontal", at=[0.8, 0.9, 0.95]).to_frame()

# %%
# The whole band, beside the vertical one
# ---------------------------------------
# By default at TPRs 0.01, ..., 0.99.
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4.4), sharey=True)
rocsim.roc_ci(y, score, averaging="horizontal").plot(ax=left)
left.set_title("horizontal: FPR at fixed TPRs")
rocsim.roc_ci(y, score, averaging="vertical").plot(ax=right)
right.set_title("vertical: TPR at fixed FPRs")
fig.tight_layout()
