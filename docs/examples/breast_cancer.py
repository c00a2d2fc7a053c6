"""Is the logistic regression really better than naive Bayes, and where on the curve?

Two scikit-learn models are fitted on half of scikit-learn's breast cancer data (no download)
and scored on the other half; rocsim then gives, without any resampling, pointwise confidence
intervals of each ROC curve, of the difference of the two ROC curves at every FPR, of the
difference of their expected costs at every operating condition, and of the AUC difference.

Usage: ``python docs/examples/breast_cancer.py [--out docs/figures]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import rocsim

FIGURES = Path(__file__).resolve().parents[1] / "figures"


def scored_test_set(seed: int = 0):
    """Labels ("malignant" / "benign") and the two models' malignancy scores on the test half."""
    x, y = load_breast_cancer(return_X_y=True)  # y = 0: malignant
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.5, stratify=y, random_state=seed
    )
    logistic = make_pipeline(StandardScaler(), LogisticRegression()).fit(x_train, y_train)
    bayes = GaussianNB().fit(x_train, y_train)
    labels = np.where(y_test == 0, "malignant", "benign")
    # a logit for one model, a probability for the other: rocsim only needs the ranking
    return labels, -logistic.decision_function(x_test), bayes.predict_proba(x_test)[:, 0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=FIGURES)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    labels, logistic, bayes = scored_test_set()
    kw = {"pos_label": "malignant", "confidence_level": 0.95}

    fig, axes = plt.subplots(2, 2, figsize=(11, 10))
    rocsim.roc_ci(labels, logistic, averaging="vertical", **kw).plot(axes[0, 0])
    axes[0, 0].set_title("logistic regression: 95% band (vertical averaging)")
    rocsim.roc_ci(labels, bayes, **kw).plot(axes[0, 1])
    axes[0, 1].set_title("naive Bayes: 95% rectangles (threshold averaging)")
    roc = rocsim.compare_roc(labels, logistic, bayes, averaging="vertical", **kw)
    roc.plot(axes[1, 0])
    axes[1, 0].set_title("TPR(logistic) - TPR(naive Bayes)")
    cost = rocsim.compare_cost(labels, logistic, bayes, **kw)
    cost.plot(axes[1, 1])
    axes[1, 1].set_title("cost(naive Bayes) - cost(logistic)")
    fig.tight_layout()
    fig.savefig(args.out / "breast_cancer.png", dpi=90)
    plt.close(fig)

    for method in ("mover", "delong", "exact_bootstrap"):  # the default, then pROC's
        auc = rocsim.compare_auc(labels, logistic, bayes, method=method, **kw)
        print(
            f"AUC logistic {auc.auc1:.4f}, naive Bayes {auc.auc2:.4f}; difference "
            f"{auc.difference:+.4f} [{auc.low:+.4f}, {auc.high:+.4f}], "
            f"p = {auc.p_value:.3g} ({method})"
        )
    better = roc.fpr[roc.verdict == "first better"]
    print(
        f"logistic significantly better at {better.size} of {roc.fpr.size} FPRs"
        + (f" ({better.min():.2f}-{better.max():.2f})" if better.size else "")
    )
    cheaper = cost.w[cost.verdict == "first better"]
    print(
        f"logistic significantly cheaper at {cheaper.size} of {cost.w.size} operating "
        "conditions" + (f" (w {cheaper.min():.2f}-{cheaper.max():.2f})" if cheaper.size else "")
    )
    print(f"figure: {args.out / 'breast_cancer.png'}")


if __name__ == "__main__":
    main()
