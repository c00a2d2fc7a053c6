"""
Several interval methods on one data set
========================================

rocsim computes the exact bootstrap law of TPR at each FPR once
(:func:`rocsim.core.vertical_distribution`, eqs. 4.10-4.14); every interval method is then a
reading of that one law, ``law.ci(confidence_level, method)``:

- ``score``: the Gaussian score-type interval of Algorithm 4.3 (lines 20-21), with the exact
  bootstrap mean and variance (eqs. 4.13-4.14);
- ``wald``: mean +- z standard deviations;
- ``agresti``: the moments after adding a pseudo-count of positives above and below every
  threshold;
- ``percentile``: the quantiles of the exact law itself, what a Monte Carlo percentile
  bootstrap converges to as the number of resamples grows.

We also run a Monte Carlo percentile bootstrap with B = 2000 resamples (pROC's default) to see
its resampling noise around the exact percentiles.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import rocsim

rng = np.random.default_rng(5)
pos, neg = rng.normal(1.0, 1.0, 80), rng.normal(0.0, 1.0, 80)
r = rocsim.core.fpr_ranks(
    np.linspace(0.05, 0.95, 19), neg.size
)  # FPR grid r / n-
law = rocsim.core.vertical_distribution(pos, neg, r)

methods = ("score", "wald", "agresti", "percentile")
intervals = {method: law.ci(0.90, method) for method in methods}

# %%
# The widths side by side
# -----------------------
pd.DataFrame(
    {
        "fpr": law.fpr,
        **{m: intervals[m].high - intervals[m].low for m in methods},
    }
).round(3)

# %%
# A Monte Carlo percentile bootstrap on the same data
# ---------------------------------------------------
# Resample each class, take the r-th largest resampled negative as the threshold (the
# thesis's definition of TPR at FPR r / n-) and the share of resampled positives at or above
# it.
B = 2000
pos_b = np.sort(rng.choice(pos, (B, pos.size)), axis=1)
neg_b = -np.sort(-rng.choice(neg, (B, neg.size)), axis=1)  # decreasing
thresholds = neg_b[:, r - 1]  # (B, len(r))
tpr_b = (
    np.stack(
        [
            pos.size - np.searchsorted(pos_b[b], thresholds[b], side="left")
            for b in range(B)
        ]
    )
    / pos.size
)
mc_low, mc_high = np.quantile(tpr_b, [0.05, 0.95], axis=0)
exact = intervals["percentile"]
print(f"largest |MC - exact| bound difference, B = {B}:")
print(f"  low  {np.max(np.abs(mc_low - exact.low)):.3f}")
print(
    f"  high {np.max(np.abs(mc_high - exact.high)):.3f}  (one lattice step is {1 / pos.size})"
)

# %%
# The bands
# ---------
fig, ax = plt.subplots(figsize=(6.5, 4.5))
curve_fpr, curve_tpr = rocsim.core.roc_curve(pos, neg)[:2]
ax.plot(curve_fpr, curve_tpr, color="black", linewidth=1, label="ROC curve")
for offset, (method, ci) in zip(
    np.linspace(-0.012, 0.012, len(methods)), intervals.items()
):
    ax.errorbar(
        ci.fpr + offset,
        (ci.low + ci.high) / 2,
        yerr=(ci.high - ci.low) / 2,
        fmt="none",
        capsize=2,
        label=method,
    )
ax.plot(law.fpr, mc_low, "k_", markersize=8, label=f"Monte Carlo, B = {B}")
ax.plot(law.fpr, mc_high, "k_", markersize=8)
ax.set(
    xlabel="false positive rate",
    ylabel="true positive rate",
    title="90% intervals",
)
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()
