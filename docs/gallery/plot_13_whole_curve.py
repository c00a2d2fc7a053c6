"""
Where could the true curve be? Pointwise and simultaneous bands
===============================================================

A pointwise 95% band answers "where could the true TPR be *at this FPR*?", one FPR at a time.
Read across the whole curve, it says much less: the bootstrap curve leaves it somewhere far
more often than 5% of the time. "Where could the true curve be?" needs a *simultaneous* band,
every point covered at once. :func:`rocsim.roc_ci` gives three:

- ``band="pointwise"`` (the default): each point's interval at the level;
- ``band="bonferroni"``: each point's interval at ``1 - alpha / k`` over the ``k`` points;
- ``band="simultaneous"``: each point's interval at the smallest common level at which the
  whole bootstrap curve lies inside the band with probability 95%, that probability computed
  *exactly* from the bootstrap law of the whole curve (:mod:`rocsim.core.curve_band`), with no
  resampling.

The literature's simultaneous bands are there for comparison (:mod:`rocsim.core.band_comparators`):
``band="working-hotelling"`` (Ma & Hall 1993, binormal), ``band="ks"`` (Campbell 1994,
distribution-free) and ``band="fixed-width"`` (Macskassy et al. 2005, its width calibrated on
the exact bootstrap law). How often each holds the *true* curve is measured by the band
coverage study (``rocsim study=bands_small_n``; :doc:`/bands_study`).
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
fprs = np.linspace(0.05, 0.95, 19)

# %%
# Three bands at 19 FPRs
# ----------------------
# The percentile method reads the bootstrap law's quantiles; the simultaneous band widens each
# point's interval just enough. The result says which band it is, the common pointwise level
# and the exact share of bootstrap curves inside.
bands = {
    kind: rocsim.roc_ci(
        y, score, averaging="vertical", at=fprs, method="percentile", band=kind
    )
    for kind in ("pointwise", "bonferroni", "simultaneous")
}
for band in bands.values():
    print(band)

# %%
# The simultaneous band's level and containment are in the frame's attributes too.
frame = bands["simultaneous"].to_frame()
{
    key: frame.attrs[key]
    for key in ("band", "confidence_level", "pointwise_level", "containment")
}

# %%
# How much of the curve each band holds
# -------------------------------------
# The pointwise band holds the whole bootstrap curve far less often than its level: compute
# its containment exactly with the same law (:func:`rocsim.core.curve_band.containment`).
from rocsim.core import vertical_distribution  # noqa: E402
from rocsim.core.curve_band import containment, count_bounds  # noqa: E402
from rocsim.core.vertical import threshold_ranks  # noqa: E402

pos, neg = score[y == 1], score[y == 0]
ranks = np.rint(bands["pointwise"].fpr * neg.size).astype(int)
law = vertical_distribution(pos, neg, ranks)
for kind, band in bands.items():
    low, high = count_bounds(band.tpr_low, band.tpr_high, pos.size)
    held = containment(
        law._rates,
        threshold_ranks(ranks, "lower"),
        low,
        high,
        neg.size,
        pos.size,
    )
    print(
        f"{kind:>12}: whole bootstrap curve inside with probability {held:.3f}"
    )

# %%
# The bands drawn
# ---------------
fig, ax = plt.subplots(figsize=(5.5, 5))
for kind in ("simultaneous", "bonferroni", "pointwise"):
    bands[kind].plot(ax=ax)
ax.set_title("95% bands at 19 FPRs, n = 200 per class", fontsize=10)
plt.show()

# %%
# The literature's bands beside rocsim's
# --------------------------------------
# Working-Hotelling fits a binormal curve; the Kolmogorov-Smirnov band widens the empirical
# curve by two distribution-free bounds; the fixed-width band shifts the curve by the width
# that holds 95% of the bootstrap curves. Each says its critical value, and the fixed-width
# band its exact containment.
for kind in ("working-hotelling", "ks", "fixed-width"):
    band = rocsim.roc_ci(y, score, averaging="vertical", at=fprs, band=kind)
    width = np.mean(band.tpr_high - band.tpr_low)
    print(f"{band}\n    mean width {width:.3f}")
