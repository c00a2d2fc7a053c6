"""
More than two classes: the multiclass AUC with an interval
==========================================================

Most classifiers have more than two classes. scikit-learn's
``roc_auc_score(multi_class=..., average=...)`` gives the multiclass AUC without an
interval; :func:`rocsim.auc_ci` gives the same value with one, from the same arguments:

- ``multi_class="ovo"`` averages, over every pair of classes, the mean of the two directions'
  AUCs (Hand & Till 2001); ``"ovr"`` takes each class against the rest on its own column;
- ``average="macro"`` weighs the pairs (classes) equally, ``"weighted"`` by prevalence;
- the default interval, ``method="mover"``, is recovered from each pair's (class's) score
  interval (Zou & Donner 2008), the method closest to its level in the ``auc_multiclass``
  coverage study; ``method="exact_bootstrap"`` is the Wald interval on the exact variance
  under the bootstrap that resamples each class separately (what a Monte Carlo bootstrap
  would converge to), ``"delong"`` on the placement-value variance.

The result's frame has each pair's (or class's) AUC with its own interval, then the average.
"""

# %%
# A logistic regression on the iris flowers
# -----------------------------------------
# Fitted on half of the flowers, scored on the other half: the scores are the predicted
# probabilities, a column per species in the order of the sorted labels.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

import rocsim
from rocsim.core.results import format_p

iris = load_iris()
species = iris.target_names[iris.target]
X_train, X_test, y_train, y_test = train_test_split(
    iris.data, species, test_size=0.5, stratify=species, random_state=0
)
# two models: all four measurements, and the sepals only
full = LogisticRegression(max_iter=1000).fit(X_train, y_train)
sepals = LogisticRegression(max_iter=1000).fit(X_train[:, :2], y_train)
p_full = full.predict_proba(X_test)
p_sepals = sepals.predict_proba(X_test[:, :2])


def readable(frame):
    """The frame with its p-values as a statistician writes them (``p < 1e-16`` where a
    normal tail underflows, else three significant digits), as the results' summaries do."""
    return frame.assign(p_value=frame["p_value"].map(format_p))


# %%
# The same number as scikit-learn, with an interval
# -------------------------------------------------
result = rocsim.auc_ci(
    y_test, p_sepals, multi_class="ovo", method="exact_bootstrap"
)
print(result)
print(
    f"scikit-learn: {roc_auc_score(y_test, p_sepals, multi_class='ovo'):.6f}"
)
readable(result.to_frame())

# %%
# Why is setosa against virginica's interval [1, 1]?
# --------------------------------------------------
# On these test flowers the sepals alone separate setosa from virginica completely: every
# setosa flower gets a higher probability of setosa than every virginica flower, and every
# virginica flower a higher probability of virginica than every setosa flower. The pair's AUC
# is then 1 in *every* bootstrap resample of the flowers, so its exact bootstrap variance is 0
# and the Wald interval ``1 -+ z * 0`` shrinks to the point [1, 1] (with ``p < 1e-16``: the
# test of 1/2 on a variance of 0). That is all the bootstrap can see in 25 flowers per
# species, not a proof that the true AUC is 1. The default method, ``"mover"``, builds each
# pair's interval from a score interval, which stays open below 1 when the data are perfectly
# separated:
mover = rocsim.auc_ci(y_test, p_sepals, multi_class="ovo")
print(mover)
readable(mover.to_frame())

# %%
# One class against the rest, weighted by prevalence
# --------------------------------------------------
readable(
    rocsim.auc_ci(
        y_test, p_sepals, multi_class="ovr", average="weighted"
    ).to_frame()
)

# %%
# Is the full model better? The paired difference
# -----------------------------------------------
# Both models score the same flowers, so the difference is paired: each class's flowers are
# resampled with both models' scores. Setosa against virginica reads ``0 [0, 0]``, ``p = 1``:
# both models separate the two species completely, so both AUCs are 1 and their difference
# is 0 in every resample. The data cannot tell the models apart on that pair, which is all
# the degenerate interval says.
difference = rocsim.compare_auc(y_test, p_full, p_sepals, multi_class="ovo")
print(difference)
frame = difference.to_frame()
print(readable(frame).to_string())

# %%
fig, ax = plt.subplots(figsize=(6, 3))
rows = np.arange(len(frame))
ax.errorbar(
    frame["difference"],
    rows,
    xerr=[
        frame["difference"] - frame["low"],
        frame["high"] - frame["difference"],
    ],
    fmt="o",
)
ax.axvline(0.0, color="grey", lw=0.8)
# a point without a bar reads as a drawing error: say why it has none
tied = frame.index[frame["high"] == frame["low"]]
for row in tied:
    ax.annotate(
        "0 in every resample: both models\nseparate these species completely",
        (frame.loc[row, "difference"], row),
        xytext=(8, 0),
        textcoords="offset points",
        va="center",
        fontsize=8,
    )
ax.set_yticks(rows, frame["component"])
ax.set_xlabel("AUC (all measurements) - AUC (sepals only), 95% interval")
fig.tight_layout()
