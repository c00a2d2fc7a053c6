"""
Is my classifier better than chance? Than 0.8? One-sided tests of the AUC
=========================================================================

"Is the AUC above 0.5?" and "does the new model reach the 0.8 we were promised?" are
one-sided questions. :func:`rocsim.auc_ci` answers them with ``alternative`` and ``null``
(scipy's names): ``alternative="greater", null=0.8`` gives the one-sided interval
``[low, 1]`` and the p-value of the test of ``AUC <= 0.8`` against ``AUC > 0.8``. The two
agree by construction: the p-value is below ``1 - confidence_level`` exactly when 0.8 lies
below ``low``. A one-sided bound is the two-sided bound at twice the alpha.

:func:`rocsim.compare_auc` does the same for the paired difference of two models:
``alternative="greater", null=-0.02`` is a non-inferiority test (is the new model at most
0.02 worse?).
"""

# %%
# A small validation set
# ----------------------
import matplotlib.pyplot as plt
import numpy as np

import rocsim

rng = np.random.default_rng(11)
y = np.repeat([0, 1], [30, 20])  # 30 negatives, 20 positives
score = rng.normal(1.3 * y, 1.0)

# %%
# Better than chance? Better than 0.8?
# ------------------------------------
for null in (0.5, 0.8):
    print(rocsim.auc_ci(y, score, alternative="greater", null=null))

# %%
# The one-sided bound against the two-sided one
# ----------------------------------------------
# At level 0.95 the one-sided lower bound is the lower bound of the two-sided 90% interval:
# the whole alpha sits on one side.
one_sided = rocsim.auc_ci(y, score, alternative="greater")
two_sided = rocsim.auc_ci(y, score, confidence_level=0.90)
print(f"one-sided 95%: [{one_sided.low:.4f}, {one_sided.high:.0f}]")
print(f"two-sided 90%: [{two_sided.low:.4f}, {two_sided.high:.4f}]")

# %%
# The p-value across nulls
# ------------------------
# Every null below ``low`` is rejected at the 5% level, every null above it is not.
nulls = np.linspace(0.5, 0.95, 91)
p_values = [
    rocsim.auc_ci(y, score, alternative="greater", null=v).p_value
    for v in nulls
]
fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(nulls, p_values)
ax.axhline(0.05, color="grey", lw=0.8, ls="--")
ax.axvline(one_sided.low, color="C1", lw=0.8)
ax.set_xlabel("null AUC")
ax.set_ylabel("p-value (H1: AUC > null)")
ax.set_yscale("log")
fig.tight_layout()

# %%
# Is the new model no worse than the old one?
# -------------------------------------------
# Both models score the same instances; a margin of 0.02 on the AUC.
old = 0.7 * score + rng.normal(0.0, 0.7, y.size)
print(rocsim.compare_auc(y, score, old, alternative="greater", null=-0.02))
