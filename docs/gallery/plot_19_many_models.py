"""
Five models compared at once
============================

Comparing more than two classifiers' AUCs pair by pair inflates the chance of a false
"difference". :func:`rocsim.compare_aucs` takes their joint covariance on the same instances
(DeLong's, or the exact stratified bootstrap's) and gives simultaneous intervals and adjusted
p-values for every pair, or for each model against a reference: ``max-t`` on the joint normal
law of the differences (Hothorn, Bretz & Westfall 2008), Holm's, Bonferroni's.
"""

# %%
import matplotlib.pyplot as plt
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

import rocsim

X, y = make_classification(
    n_samples=1000, n_features=10, n_informative=4, random_state=5
)
train, test = slice(0, 500), slice(500, None)
models = {
    "logistic": LogisticRegression(),
    "forest": RandomForestClassifier(n_estimators=200, random_state=0),
    "naive Bayes": GaussianNB(),
    "5-NN": KNeighborsClassifier(),
    "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
}
scores = {
    name: m.fit(X[train], y[train]).predict_proba(X[test])[:, 1]
    for name, m in models.items()
}

# %%
# Every pair, max-t adjusted
# --------------------------
result = rocsim.compare_aucs(y[test], scores, method="exact_bootstrap")
print(result)
result.to_frame().round(4)

# %%
# Each model against the logistic regression, Holm adjusted
# ---------------------------------------------------------
against = rocsim.compare_aucs(
    y[test], scores, reference="logistic", adjust="holm"
)
frame = against.to_frame()
fig, ax = plt.subplots(figsize=(6, 3))
ax.errorbar(
    frame["difference"],
    range(len(frame)),
    xerr=[
        frame["difference"] - frame["low"],
        frame["high"] - frame["difference"],
    ],
    fmt="o",
)
ax.axvline(0, color="k", ls="--", lw=1)
ax.set_yticks(range(len(frame)), frame["model1"])
ax.set_xlabel("AUC - AUC(logistic), 95% simultaneous (Bonferroni) intervals")
fig.tight_layout()
