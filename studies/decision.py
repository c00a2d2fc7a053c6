"""Study kind of decision curves: do the net benefit's intervals hold the true net benefit?

Test sets of ``2n`` instances with a share ``pi`` of positives (``sampling=stratified``: exactly
``round(2 n pi)``; ``full``: ``Bin(2n, pi)``, a class never empty), scores binormal with equal
variances (positives ``N(mu, 1)``, negatives ``N(0, 1)``, ``mu = sqrt(2) Phi^-1(auc)``) and
the model's predicted probability the calibrated risk
``r(s) = expit(mu s - mu^2 / 2 + logit(pi))``. At the threshold probability ``t`` the model
treats ``s >= s_t``, ``s_t = (logit t - logit pi + mu^2 / 2) / mu``, so the true net benefit is

    NB(t) = pi Phi(mu - s_t) - (1 - pi) Phi(-s_t) t / (1 - t).

Each interval of :func:`rocsim.core.net_benefit_distribution` (its ``bootstrap`` and
``method``) is judged on it.

Two models (``net_benefit_difference``): each instance scored by both, the two scores of a
class bivariate normal with correlation ``rho``, the first model at ``auc``, the second at
``auc - delta``, each turned into its own calibrated risk; the true ``NB1 - NB2`` is the
difference of the two true net benefits, judged by the intervals of
:func:`rocsim.core.net_benefit_difference_distribution` (what
:func:`rocsim.compare_net_benefit` gives).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from rocsim.core import (
    NET_BENEFIT_DIFFERENCE_METHODS,
    NET_BENEFIT_DIFFERENCE_PROTOCOL,
    NET_BENEFIT_METHODS,
    NET_BENEFIT_PROTOCOL,
    OPERATING_POINT_BOOTSTRAPS,
    OPERATING_POINT_METHODS,
    OPERATING_POINT_PROTOCOL,
    net_benefit_difference_distribution,
    net_benefit_distribution,
    operating_point_distribution,
)
from rocsim.sim import Setup, interval_outcome
from rocsim.sim.conditions import Condition
from rocsim.studies._common import (
    BuiltinKind,
    class_sizes,
    grid_values,
    interval_method,
    outcome_settings,
)


def calibrated_risk(scores: np.ndarray, mu: float, pi: float) -> np.ndarray:
    """``Pr{positive | score}`` of the binormal model with prevalence ``pi``."""
    return special.expit(mu * scores - mu * mu / 2 + special.logit(pi))


def true_net_benefit(mu: float, pi: float, t: np.ndarray) -> np.ndarray:
    """The population's net benefit of treating ``r(s) >= t`` (module docstring)."""
    cut = (special.logit(t) - special.logit(pi) + mu * mu / 2) / mu
    return pi * special.ndtr(mu - cut) - (1 - pi) * special.ndtr(-cut) * t / (1 - t)


class _PseudoCountedKind(BuiltinKind):
    """A kind whose methods may take a pseudo-count: a config's ``pseudo_count`` reaches the
    core, and the runner's cache of outcomes is keyed on it as the core resolves it."""

    def outcome_settings(self, settings) -> dict:
        """The settings the outcomes depend on (the runner's cache key)."""
        return outcome_settings(settings, self.protocol.kind)

    def pseudo_count(self, settings) -> float | None:
        """The condition's method's pseudo-count (``None`` for a method that takes none)."""
        return self.outcome_settings(settings).get("pseudo_count")


def threshold_probabilities(settings) -> np.ndarray:
    """The grid of threshold probabilities of a decision-curve condition, all in (0, 1)."""
    t = grid_values(settings["grid"])
    if np.any(t <= 0) or np.any(t >= 1):
        raise ValueError(f"threshold probabilities must lie in (0, 1), got {t.tolist()}")
    return t


class NetBenefitStudy(_PseudoCountedKind):
    """generate / analyse for the net benefit's intervals at threshold probabilities."""

    grid = "threshold"
    methods = tuple(NET_BENEFIT_METHODS)
    protocol = NET_BENEFIT_PROTOCOL

    def setup(self, condition: Condition) -> Setup:
        s = condition.settings
        mu = float(np.sqrt(2.0) * special.ndtri(float(condition.params["auc"])))
        t = threshold_probabilities(s)
        pi = float(s["pi"])
        return Setup(x=t, target=true_net_benefit(mu, pi, t), payload=(mu, pi))

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        mu, pi = setup.payload
        n_pos, n_neg = drawn_class_sizes(condition.settings, pi, rng)
        pos, neg = rng.normal(mu, 1.0, n_pos), rng.normal(0.0, 1.0, n_neg)
        return calibrated_risk(pos, mu, pi), calibrated_risk(neg, mu, pi)

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        s = condition.settings
        law = net_benefit_distribution(*data, setup.x, bootstrap=s["bootstrap"])
        ci = law.ci(s["confidence_level"], interval_method(s), pseudo_count=self.pseudo_count(s))
        return interval_outcome(setup.target, ci.low, ci.high)


def drawn_class_sizes(settings, pi: float, rng: np.random.Generator) -> tuple[int, int]:
    """``(n+, n-)`` of one test set: fixed by ``pi`` (``sampling=stratified``), or the
    positives ``Bin(2n, pi)`` (``full``), drawn again while a class is empty."""
    n_pos, n_neg = class_sizes(settings["n"], pi)
    if settings.get("sampling", "stratified") != "full":
        return n_pos, n_neg
    total = n_pos + n_neg
    n_pos = int(rng.binomial(total, pi))
    while n_pos in (0, total):
        n_pos = int(rng.binomial(total, pi))
    return n_pos, total - n_pos


class NetBenefitDifferenceStudy(_PseudoCountedKind):
    """generate / analyse for the intervals of two models' ``NB1 - NB2`` (module
    docstring), at threshold probabilities."""

    grid = "threshold"
    methods = tuple(NET_BENEFIT_DIFFERENCE_METHODS)
    protocol = NET_BENEFIT_DIFFERENCE_PROTOCOL

    def setup(self, condition: Condition) -> Setup:
        p = condition.params
        auc = float(p["auc"])
        mu = np.sqrt(2.0) * special.ndtri([auc, auc - float(p["delta"])])
        t, pi = threshold_probabilities(condition.settings), float(condition.settings["pi"])
        target = true_net_benefit(mu[0], pi, t) - true_net_benefit(mu[1], pi, t)
        return Setup(x=t, target=target, payload=(mu, pi, float(p["rho"])))

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        mu, pi, rho = setup.payload
        n_pos, n_neg = drawn_class_sizes(condition.settings, pi, rng)
        cov = [[1.0, rho], [rho, 1.0]]
        pos = rng.multivariate_normal(mu, cov, n_pos)
        neg = rng.multivariate_normal([0.0, 0.0], cov, n_neg)
        risk = [calibrated_risk(scores, m, pi) for scores, m in ((pos, mu), (neg, mu))]
        return tuple(risk[c][:, m] for m in (0, 1) for c in (0, 1))

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        s = condition.settings
        pos1, neg1, pos2, neg2 = data
        law = net_benefit_difference_distribution(
            pos1, pos2, neg1, neg2, setup.x, bootstrap=s["bootstrap"]
        )
        ci = law.ci(s["confidence_level"], interval_method(s), pseudo_count=self.pseudo_count(s))
        return interval_outcome(setup.target, ci.low, ci.high)


def true_metric(metric: str, mu: float, pi: float, t: np.ndarray) -> np.ndarray:
    """The metric's true value for the binormal model at score thresholds ``t`` (``mu`` the
    positives' mean, ``pi`` the prevalence), as
    :func:`rocsim.core.operating_point.metric_values` computes it from counts."""
    sens, spec = special.ndtr(mu - t), special.ndtr(t)
    values = {
        "sensitivity": sens,
        "specificity": spec,
        "ppv": pi * sens / (pi * sens + (1 - pi) * (1 - spec)),
        "npv": (1 - pi) * spec / ((1 - pi) * spec + pi * (1 - sens)),
        "accuracy": pi * sens + (1 - pi) * spec,
        "lr_pos": sens / (1 - spec),
        "lr_neg": (1 - sens) / spec,
        "youden": sens + spec - 1,
    }
    return values[metric]


class OperatingPointStudy(_PseudoCountedKind):
    """generate / analyse for the intervals of one metric (axis ``metric``) at fixed score
    thresholds (the grid), binormal test sets with class sizes fixed by the prevalence or
    drawn (``sampling``), under either ``bootstrap`` (default: stratified)."""

    grid = "threshold"
    methods = tuple(OPERATING_POINT_METHODS)
    protocol = OPERATING_POINT_PROTOCOL
    bootstraps = OPERATING_POINT_BOOTSTRAPS

    def setup(self, condition: Condition) -> Setup:
        s, p = condition.settings, condition.params
        mu = float(np.sqrt(2.0) * special.ndtri(float(p["auc"])))
        x = grid_values(s["grid"])
        target = true_metric(p["metric"], mu, float(s["pi"]), self.thresholds(x, mu))
        return Setup(x=x, target=target, payload=mu)

    def thresholds(self, x: np.ndarray, mu: float) -> np.ndarray:
        """The population's score thresholds at the grid's points (positives ``N(mu, 1)``)."""
        return x

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        s = condition.settings
        n_pos, n_neg = drawn_class_sizes(s, float(s["pi"]), rng)
        return rng.normal(setup.payload, 1.0, n_pos), rng.normal(0.0, 1.0, n_neg)

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        s, metric = condition.settings, condition.params["metric"]
        a = self.pseudo_count(s)
        low, high = np.empty(setup.x.size), np.empty(setup.x.size)
        for k, x in enumerate(setup.x):
            # built once, with the method's pseudo-count (its interval then reads it as is)
            law = operating_point_distribution(
                *data,
                **{self.grid: float(x)},
                metrics=[metric],
                bootstrap=s.get("bootstrap", "stratified"),
                pseudo_count=a or 0.0,
            )
            ci = law.ci(s["confidence_level"], interval_method(s), pseudo_count=a)
            low[k], high[k] = ci.bounds[metric]
        # a metric undefined on every resample (LR+ of a plug-in law without a false
        # positive) has no interval: a miss, of width 0, counted apart
        missing = np.isnan(low) | np.isnan(high)
        outcome = interval_outcome(setup.target, low, high)
        outcome["width"] = np.where(missing, 0.0, outcome["width"])
        return outcome | {"no_interval": missing}


class OperatingPointAtFprStudy(OperatingPointStudy):
    """The operating point kind at fixed FPRs (the grid): the threshold moves with the
    resample (vertical averaging); each metric's true value is the population's at the
    threshold of that FPR (negatives ``N(0, 1)``: ``t = Phi^-1(1 - fpr)``)."""

    grid = "fpr"

    def thresholds(self, x: np.ndarray, mu: float) -> np.ndarray:
        return special.ndtri(1.0 - x)


class OperatingPointAtTprStudy(OperatingPointStudy):
    """The operating point kind at fixed TPRs (the grid): the threshold moves with the
    resample (the ``k``-th largest resampled positive, horizontal averaging); each metric's
    true value is the population's at the threshold of that TPR (positives ``N(mu, 1)``:
    ``t = mu - Phi^-1(tpr)``)."""

    grid = "tpr"

    def thresholds(self, x: np.ndarray, mu: float) -> np.ndarray:
        return mu - special.ndtri(x)
