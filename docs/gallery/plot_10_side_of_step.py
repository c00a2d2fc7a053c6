"""
The side of the step: ``side="lower"`` and ``side="upper"``
===========================================================

An empirical ROC curve is a staircase: at the false positive rate ``r / n-`` it has a vertical
step, and "the TPR at that FPR" can mean its bottom or its top.

- ``side="lower"`` (rocsim's default, the thesis's definition, eq. 4.12): the threshold is the
  ``r``-th largest negative score, and TPR is the share of positives scoring *at least* that
  much: the bottom of the step, the first point of the curve that reaches FPR ``r / n-``.
- ``side="upper"``: the share of positives scoring *above* the ``(r + 1)``-th largest negative:
  the top of the step, the last point at that FPR. This is what pROC's ``coords`` and
  ``ci.se`` report at a specificity (see :doc:`/coming_from_pROC`).

Both laws are exact bootstrap laws; on a large test set the step is small and the two nearly
agree, on a small one they can differ by a lot. Here are 8 positives and 8 negatives.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import rocsim

y = np.array([1, 1, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0])
score = np.linspace(
    1.0, 0.0, y.size
)  # instances listed from the highest score down
at = np.arange(1, 8) / 8  # FPRs 1/8, ..., 7/8: every FPR this test set reaches

bands = {
    side: rocsim.roc_ci(
        y, score, averaging="vertical", side=side, at=at, confidence_level=0.9
    )
    for side in ("lower", "upper")
}
for side, band in bands.items():
    print(f"{side:>5}: TPR at FPR 1/8..7/8 = {band.tpr.round(3)}")

# %%
# Drawn over the empirical ROC curve
# ----------------------------------
fpr, tpr, _ = rocsim.core.roc_curve(score[y == 1], score[y == 0])
fig, ax = plt.subplots(figsize=(5.5, 5.5))
ax.plot(fpr, tpr, color="black", linewidth=1.2, label="empirical ROC curve")
for (side, band), offset, color in zip(
    bands.items(), (-0.012, 0.012), ("tab:blue", "tab:red")
):
    ax.errorbar(
        band.fpr + offset,
        band.tpr,
        yerr=(band.tpr - band.tpr_low, band.tpr_high - band.tpr),
        fmt="o",
        markersize=4,
        capsize=3,
        color=color,
        label=f'side="{side}"',
    )
ax.set(
    xlabel="false positive rate",
    ylabel="true positive rate",
    xlim=(-0.02, 1.02),
    ylim=(-0.02, 1.02),
    aspect="equal",
    title="90% intervals at each FPR r / 8",
)
ax.legend(loc="lower right", fontsize=8)
fig.tight_layout()
