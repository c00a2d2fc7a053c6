"""
Where could the true curve be? A band for the whole ROC curve
=============================================================

A pointwise 95% band answers "where could the true TPR be *at this FPR*?", one FPR at a time;
read across the whole curve it says much less. "Where could the true curve be?" needs a
*simultaneous* band: one meant to hold the true curve at every point at once, with
probability 95%. ``rocsim.roc_ci(..., band="simultaneous")`` is that band:

- the sup-t band ``mean -+ c sd`` on the exact bootstrap law of TPR at each FPR, its critical
  value ``c`` calibrated on the law of the whole bootstrap curve (exactly up to about 100
  instances per class, by a Gaussian copula on the exact marginal laws beyond);
- widened where the bootstrap cannot see: Wilson's interval at ``c`` where the data's TPR is
  near 0 or 1, and distribution-free order-statistic bounds at the lowest FPRs
  (:mod:`rocsim.core.confidence_band`).

How often it holds the true curve is measured by the band studies, against the literature's
bands and rocci's (:doc:`/bands_study`); the measured coverage of every band, written from
the studies' tables by a script, is quoted in :func:`rocsim.roc_ci`'s Notes and in
:doc:`/interval_methods`. The simultaneous band holds the true curve at its level, and it is
the only band this page draws; a pointwise band read as a band for the whole curve does not.
"""

# %%
# A classifier on a test set of 200 instances per class
# -----------------------------------------------------
import matplotlib.pyplot as plt
import numpy as np

import rocsim

rng = np.random.default_rng(7)
y = np.r_[np.ones(200), np.zeros(200)]
score = y + rng.normal(size=400)

# %%
# The band at 19 FPRs
# -------------------
# The result says what the band is: its critical value, the pointwise level it amounts to,
# and the share of bootstrap curves it holds (more than 95%: it is wider where the bootstrap
# cannot see).
fprs = np.linspace(0.05, 0.95, 19)
band = rocsim.roc_ci(
    y, score, averaging="vertical", at=fprs, band="simultaneous"
)
print(band)
frame = band.to_frame()
{
    key: frame.attrs[key]
    for key in (
        "band",
        "confidence_level",
        "critical_value",
        "containment",
        "calibration",
    )
}

# %%
# The whole curve
# ---------------
# Without ``at`` the band holds the curve at every FPR 0.01, ..., 0.99 (each distinct
# ``r / n-`` once); horizontal averaging bands the FPR at fixed TPRs the same way.
#
# The two panels draw the same three things, so one legend below them names each once (a
# legend inside each panel would also hide the band at the lowest FPRs, where it is widest).
whole = rocsim.roc_ci(y, score, averaging="vertical", band="simultaneous")
across = rocsim.roc_ci(y, score, averaging="horizontal", band="simultaneous")
fig, axes = plt.subplots(1, 2, figsize=(9, 5.2), sharey=True)
whole.plot(ax=axes[0])
axes[0].set_title("TPR at each FPR (vertical averaging)", fontsize=10)
across.plot(ax=axes[1])
axes[1].set_title("FPR at each TPR (horizontal averaging)", fontsize=10)
axes[1].set_ylabel("")  # shared with the left panel
for ax in axes:
    ax.get_legend().remove()
handles, _ = axes[0].get_legend_handles_labels()
fig.legend(
    handles,
    [
        "Chance level (AUC = 0.5)",
        "empirical ROC curve",
        "95% simultaneous band for the true curve",
    ],
    loc="lower center",
    ncols=3,
    fontsize=9,
)
fig.suptitle(
    "95% simultaneous bands for the true curve, n = 200 per class", fontsize=11
)
fig.subplots_adjust(left=0.08, right=0.98, top=0.86, bottom=0.18, wspace=0.08)
plt.show()

# %%
# Two classifiers, every point at once
# ------------------------------------
# ``compare_roc(..., band="simultaneous")`` bands the true difference of two classifiers'
# curves scored on the same instances, so ``overall`` is a family-wise statement.
better = 1.8 * y + rng.normal(size=400)
difference = rocsim.compare_roc(
    y, better, score, averaging="vertical", at=fprs, band="simultaneous"
)
print(difference.overall)
