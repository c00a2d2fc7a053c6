"""
Precision-recall bands
======================

On rare positives, precision (the share of predicted positives that are positive) says more
than the FPR. :func:`rocsim.pr_ci` gives pointwise intervals of a classifier's
precision-recall curve from the exact bootstrap law, at requested recalls
(``averaging="vertical"``: precision at fixed recall) or at fixed thresholds
(``averaging="threshold"``: a rectangle for (recall, precision)).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import rocsim

rng = np.random.default_rng(3)
y = (rng.random(600) < 0.15).astype(int)  # about 15% positives
score = rng.normal(1.8 * y, 1.0)

# %%
# Precision at fixed recalls
# --------------------------
# Each requested recall is moved to the nearest ``r / n+`` the test set reaches (column
# ``recall``; the request is in ``at``).
pr = rocsim.pr_ci(y, score, at=np.linspace(0.1, 0.9, 9), averaging="vertical")
print(pr)
pr.to_frame()

# %%
# Threshold averaging
# -------------------
# At fixed thresholds, placed by the total positive ratio ``q`` as in :func:`rocsim.roc_ci`:
# an interval for recall and one for precision, each at ``sqrt(confidence_level)``.
by_threshold = rocsim.pr_ci(
    y, score, averaging="threshold", at=[0.05, 0.1, 0.2, 0.3]
)
by_threshold.to_frame()[
    ["q", "threshold", "recall_low", "recall_high", "low", "high"]
]

# %%
# The curve with its band
# -----------------------
# By default at recalls 0.01, ..., 0.99.
fig, ax = plt.subplots(figsize=(5.5, 4.5))
rocsim.pr_ci(y, score).plot(ax=ax)
ax.set_title("precision-recall curve, 95% band")
fig.tight_layout()
