"""A study kind of the user's own: the sensitivity at a cutpoint chosen on the data.

A practitioner picks the threshold that maximises Youden's index ``TPR - FPR`` on a test set
and reports the sensitivity there with a proportion interval computed on the same test set.
Does that interval hold the true sensitivity at the chosen threshold? No built-in kind asks
this: the threshold, hence the target, is chosen by the data of each replication.

Run it from this folder (``./configs`` holds the study):
``rocsim study=cutpoint`` (or ``rocsim study=cutpoint study.axes.n=[50] replications=200``).
The kind uses only public names: :class:`rocsim.sim.StudyKind`, :class:`rocsim.sim.Setup`,
:func:`rocsim.sim.interval_outcome` and :func:`rocsim.core.proportion_ci`.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

import rocsim.core
from rocsim.sim import Setup, StudyKind, interval_outcome


class CutpointStudy(StudyKind):
    """Binormal test sets (positives ``N(mu, 1)``, negatives ``N(0, 1)``, ``n`` per class);
    the grid is the true AUC; the target reported is the sensitivity at the true Youden
    cutpoint ``mu / 2``, while each interval is judged on the true sensitivity at the
    threshold its own data chose."""

    grid = "auc"
    methods = ("wald", "score", "agresti", "clopper_pearson", "jeffreys")

    def setup(self, condition):
        auc = float(condition.params["auc"])
        mu = np.sqrt(2.0) * stats.norm.ppf(auc)
        target = stats.norm.sf(mu / 2.0 - mu)  # TPR at the true Youden cutpoint
        return Setup(x=np.array([auc]), target=np.array([target]), payload=mu)

    def generate(self, condition, setup, rng):
        n = int(condition.settings["n"])
        return rng.normal(setup.payload, 1.0, n), rng.normal(0.0, 1.0, n)

    def analyse(self, condition, setup, data):
        pos, neg = data
        cut = youden_cutpoint(pos, neg)
        hits = np.count_nonzero(pos >= cut)
        ci = rocsim.core.proportion_ci(
            np.array([hits]),
            np.array([pos.size]),
            confidence_level=condition.settings["confidence_level"],
            method=condition.settings["method"],
        )
        truth = stats.norm.sf(cut - setup.payload)  # the true TPR at the chosen threshold
        return interval_outcome(np.array([truth]), ci.low, ci.high)


def youden_cutpoint(pos: np.ndarray, neg: np.ndarray) -> float:
    """The score threshold (a data value; ``score >= t`` is positive) maximising ``TPR -
    FPR`` on the data, the lowest of ties."""
    candidates = np.unique(np.concatenate([pos, neg]))
    tpr = 1.0 - np.searchsorted(np.sort(pos), candidates, side="left") / pos.size
    fpr = 1.0 - np.searchsorted(np.sort(neg), candidates, side="left") / neg.size
    return float(candidates[np.argmax(tpr - fpr)])
