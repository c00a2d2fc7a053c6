"""
Planning a sample size
======================

How many test instances does a study need for its ROC interval to be narrow enough?
:func:`rocsim.sample_size` answers from a score model (the scores you expect), the point of the
curve that matters (an FPR), the averaging, and the expected width wanted at a confidence
level. Threshold averaging is planned exactly (binomial sums, nothing simulated); vertical
averaging from the laws of the test set (exact moments, then a stated approximation; nothing
simulated either), or by simulating test sets where those laws do not apply.
"""

# %%
# The scores we expect
# --------------------
# A float is the AUC of a binormal model (negatives N(0, 1), positives N(a, 1));
# :func:`rocsim.sim.models.make_model` builds any other.
import matplotlib.pyplot as plt
import numpy as np

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
# Vertical averaging: from the laws of the test set
# -------------------------------------------------
# The TPR interval at FPR 0.1 depends on the whole test set. For the score, Wald and
# Agresti-Coull intervals, the mean and variance of the bootstrap mean of TPR (and the mean of
# its spread) follow exactly from the Beta laws of the negatives' order statistics; the expected
# width and the coverage then follow under a stated approximation, so ``computed`` says
# ``"law (approximate)"``. Nothing is drawn: the same answer every time. Scores N(1.2, 1)
# against N(0, 1):
model = rocsim.sim.models.make_model(
    "binormal", {"mu": 1.2, "sd": 1.0}, {"mu": 0.0, "sd": 1.0}
)
vertical = rocsim.sample_size(
    model, at=0.1, averaging="vertical", width=0.2, confidence_level=0.95
)
print(f"{vertical.n} positives and {vertical.n_neg} negatives:")
print(f"  expected width {vertical.expected_width:.4f} ({vertical.computed})")
print(f"  coverage {vertical.coverage:.3f}")

# %%
# A check by simulation: 400 test sets of that size drawn from the model, each with its
# interval from :func:`rocsim.core.vertical_ci` at the FPR rank (``computation="simulate"``
# does this at every size the search visits, and is what ``percentile``, a method of your own
# and pilot data get):
rng = np.random.default_rng(1)
rank = rocsim.core.vertical.nearest_ranks([0.1], vertical.n_neg)
widths, held = [], []
for _ in range(400):
    pos = model.pos.sample(rng, vertical.n)
    neg = model.neg.sample(rng, vertical.n_neg)
    ci = rocsim.core.vertical_ci(pos, neg, rank)
    widths.append(ci.high[0] - ci.low[0])
    held.append(ci.low[0] <= vertical.tpr <= ci.high[0])
se = np.std(widths, ddof=1) / np.sqrt(len(widths))
print(f"  simulated width {np.mean(widths):.4f} (Monte Carlo error {se:.4f})")
print(f"  simulated coverage {np.mean(held):.3f}")

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
