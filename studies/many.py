"""Study kind of many models' AUCs compared at once: does ``compare_aucs`` hold its family's
level, and how often does it find a real difference?

Test sets of ``n`` positives and ``n`` negatives scored by ``K`` models (``models`` axis) with
correlated errors: model ``k`` scores an instance ``mu_k y + e_k``, ``e`` normal with unit
variances and correlation ``rho`` between models, so that its AUC is ``Phi(mu_k / sqrt(2))``.
The first model's AUC is ``auc + delta``, the others' ``auc``: with ``delta = 0`` every
difference is 0 (the family-wise error rate), otherwise the first model is better (power).

Per replication the kind reports, at one grid point (the number of models): ``cover``,
whether every pair's simultaneous interval holds its true difference (the family's coverage;
a miss counts on the side of the farthest one, in standard errors), and the estimate of the
first pair's difference with the family's smallest adjusted p-value, so that the table's
``rejection`` is the share of test sets in which the family rejects anything (the family-wise
error rate where ``delta = 0``, the power otherwise).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from rocsim.core import aucs_comparison
from rocsim.sim import Setup
from rocsim.sim.conditions import Condition
from rocsim.studies._common import BuiltinKind


class AUCFamilyStudy(BuiltinKind):
    """generate / analyse for ``compare_aucs`` on every pair of ``K`` models."""

    grid = "models"
    methods = ("delong", "exact_bootstrap")

    def setup(self, condition: Condition) -> Setup:
        s, p = condition.settings, condition.params
        count = int(p["models"])
        aucs = np.full(count, float(p["auc"]))
        aucs[0] += float(p["delta"])
        if not np.all((aucs > 0.5) & (aucs < 1)):
            raise ValueError(f"the models' AUCs must lie in (0.5, 1), got {aucs.tolist()}")
        pairs = [(i, j) for i in range(count) for j in range(i + 1, count)]
        truth = np.array([aucs[i] - aucs[j] for i, j in pairs])
        mu = np.sqrt(2.0) * special.ndtri(aucs)
        rho = float(p["rho"])
        cov = np.full((count, count), rho) + (1 - rho) * np.eye(count)
        payload = {"mu": mu, "root": np.linalg.cholesky(cov), "truth": truth, "n": int(s["n"])}
        return Setup(x=np.array([float(count)]), target=truth[:1], payload=payload)

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        n, mu, root = setup.payload["n"], setup.payload["mu"], setup.payload["root"]
        noise = rng.standard_normal((2 * n, mu.size)) @ root.T
        return noise[:n] + mu, noise[n:]

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        s = condition.settings
        pos, neg = data
        result = aucs_comparison(
            list(pos.T),
            list(neg.T),
            method=s["method"],
            adjust=condition.params["adjust"],
            confidence_level=s["confidence_level"],
        )
        truth = setup.payload["truth"]
        # the family misses on the side of its farthest miss (in standard errors)
        with np.errstate(divide="ignore", invalid="ignore"):  # a sure difference: se 0
            below = np.nan_to_num((result.low - truth) / result.se, posinf=np.inf)
            above = np.nan_to_num((truth - result.high) / result.se, posinf=np.inf)
        worst = max(below.max(), above.max())
        return {
            "cover": np.array([worst <= 0]),
            "below": np.array([worst > 0 and below.max() >= above.max()]),
            "above": np.array([worst > 0 and above.max() > below.max()]),
            "width": np.array([np.mean(result.high - result.low)]),
            "estimate": result.difference[:1],
            "se": result.se[:1],
            "p_value": np.array([result.p_adjusted.min()]),
        }
