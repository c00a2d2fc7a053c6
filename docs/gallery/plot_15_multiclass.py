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
result.to_frame()

# %%
# One class against the rest, weighted by prevalence
# --------------------------------------------------
rocsim.auc_ci(
    y_test, p_sepals, multi_class="ovr", average="weighted"
).to_frame()

# %%
# Is the full model better? The paired difference
# -----------------------------------------------
# Both models score the same flowers, so the difference is paired: each class's flowers are
# resampled with both models' scores.
difference = rocsim.compare_auc(y_test, p_full, p_sepals, multi_class="ovo")
print(difference)
frame = difference.to_frame()
print(frame.to_string())

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
ax.set_yticks(rows, frame["component"])
ax.set_xlabel("AUC (all measurements) - AUC (sepals only), 95% interval")
fig.tight_layout()
