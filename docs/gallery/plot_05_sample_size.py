"""
Planning a sample size
======================

How many test instances does a study need for its ROC interval to be narrow enough?
:func:`rocsim.sample_size` answers from a score model (the scores you expect), the point of the
curve that matters (an FPR), the averaging, and the expected width wanted at a confidence
level. Threshold averaging is planned exactly (binomial sums, nothing simulated); vertical
averaging by simulating test sets from the model.
"""

# %%
# The scores we expect
# --------------------
# A float is the AUC of a binormal model (negatives N(0, 1), positives N(a, 1));
# :func:`rocsim.sim.models.make_model` builds any other.
import matplotlib.pyplot as plt

import rocsim

plan = rocsim.sample_size(0.8, at=0.1, averaging="threshold", width=0.1)
print(f"{plan.n} positives and {plan.n_neg} negatives:")
print(f"  expected width of the TPR interval {plan.expected_width:.4f}")
print(f"  exact coverage of the rectangle {plan.coverage:.4f}")

# %%
# The search doubles ``n`` until the width is met, bisects, then scans the sizes just below;
# ``to_frame()`` has every size it visited (here the doubling and bisection steps):
frame = plan.to_frame()
columns = ["n_pos", "n_neg", "expected_width", "coverage", "meets", "stage"]
frame.loc[frame["stage"] != "scan", columns]

# %%
# Vertical averaging: simulated
# -----------------------------
# The TPR interval at FPR 0.1 depends on the whole test set, so its expected width is a mean
# over simulated test sets (here 100 per candidate size; ``width_se`` is its Monte Carlo
# error). Scores N(1.2, 1) against N(0, 1):
model = rocsim.sim.models.make_model(
    "binormal", {"mu": 1.2, "sd": 1.0}, {"mu": 0.0, "sd": 1.0}
)
vertical = rocsim.sample_size(
    model,
    at=0.1,
    averaging="vertical",
    width=0.2,
    confidence_level=0.95,
    replications=100,
)
print(f"{vertical.n} positives and {vertical.n_neg} negatives:")
print(
    f"  expected width {vertical.expected_width:.4f} "
    f"(Monte Carlo error {vertical.width_se:.4f})"
)

# %%
# Narrower intervals cost more
# ----------------------------
widths = [0.2, 0.15, 0.1, 0.075, 0.05]
sizes = [
    rocsim.sample_size(0.8, at=0.1, averaging="threshold", width=w).n
    for w in widths
]
fig, ax = plt.subplots(figsize=(5.5, 4))
ax.plot(widths, sizes, "o-")
ax.set(
    xlabel="expected width of the TPR interval",
    ylabel="positives needed (as many negatives)",
    yscale="log",
    title="AUC 0.8, FPR 0.1, threshold averaging, 95%",
)
fig.tight_layout()
