"""Sample size for the AUC: the smallest test set whose AUC interval is narrow enough on
average, or whose test of the AUC against a null value has the power asked for.

The empirical AUC of ``n+`` positives and ``n-`` negatives from continuous score
distributions has the exact variance (Hanley & McNeil 1982, eq. 2, with the model's own
``Q1``, ``Q2`` instead of their exponential approximations)

    V(n+, n-) = (A (1 - A) + (n+ - 1)(Q1 - A^2) + (n- - 1)(Q2 - A^2)) / (n+ n-),

``A = Pr{X > Y}``, ``Q1 = Pr{X1 > Y, X2 > Y}`` (two positives above one negative) and ``Q2 =
Pr{X > Y1, X > Y2}``, computed from the model by quadrature. The plan is a closed-form
criterion on ``V``:

- ``width``: the normal interval's width ``2 z_(1 - alpha/2) sqrt(V)`` at most ``width``
  (the expected width of DeLong's interval, whose variance estimates ``V``, up to the mean of
  a square root);
- ``power``: the Wald test of ``AUC = null`` on the estimated variance (the test of
  :func:`rocsim.auc_ci`) rejects with probability ``Phi(|A - null| / sqrt(V) - z)`` at
  least ``power``, ``z`` its critical value (one-sided ``z_(1 - alpha)``, two-sided
  ``z_(1 - alpha/2)``, the far tail neglected).

Both are approximations of what a study will see; ``tests/test_auc_planning.py`` checks them
by simulating test sets at the planned sizes.

References
----------
Hanley, J. A. & McNeil, B. J. (1982). The meaning and use of the area under a receiver
operating characteristic (ROC) curve. Radiology 143, 29-36.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import integrate, special

from rocsim.core._validation import check_choice, check_confidence_level
from rocsim.core.area import ALTERNATIVES
from rocsim.core.results import Result
from rocsim.sim.models import ScoreModel
from rocsim.sim.planning import (
    EmpiricalDistribution,
    _count,
    _positive_number,
    _real,
    _resolve_model,
    negatives_for,
)

#: What an AUC plan asks for.
GOALS = ("width", "power")


@dataclass(frozen=True, repr=False)
class AUCSampleSize(Result):
    """Result of :func:`auc_sample_size`: the plan's sizes and what it achieves there.

    Attributes
    ----------
    n, n_neg : int
        Positives (``n``, also ``n_pos``) and negatives of the planned test set.
    auc : float
        The model's AUC.
    sd : float
        The AUC's standard deviation at those sizes (module docstring).
    goal : {"width", "power"}
    target : float
        The width or the power asked for.
    achieved : float
        The normal interval's width, or the test's power, at the planned sizes.
    confidence_level : float
    null : float or None
    alternative : str or None
    ratio : float
    """

    n: int
    n_neg: int
    auc: float
    sd: float
    goal: str
    target: float
    achieved: float
    confidence_level: float
    ratio: float
    null: float | None = None
    alternative: str | None = None

    _columns = ("n_pos", "n_neg", "auc", "sd", "achieved")
    _settings = ("goal", "target", "confidence_level", "ratio", "null", "alternative")

    @property
    def n_pos(self) -> int:
        return self.n

    def _summary(self) -> str:
        what = (
            f"AUC interval width {self.achieved:.4g} <= {self.target:g}"
            if self.goal == "width"
            else f"power {self.achieved:.3f} >= {self.target:g} against AUC = {self.null:g} "
            f"({self.alternative})"
        )
        return (
            f"AUCSampleSize(n+={self.n}, n-={self.n_neg}: {what} at AUC {self.auc:.3f}, "
            f"{100 * self.confidence_level:g}%)"
        )


@dataclass(frozen=True)
class _Moments:
    """``A``, ``Q1``, ``Q2`` of a score model."""

    auc: float
    q1: float
    q2: float

    def sd(self, n_pos: int, n_neg: int) -> float:
        a = self.auc
        var = (a * (1 - a) + (n_pos - 1) * (self.q1 - a * a) + (n_neg - 1) * (self.q2 - a * a)) / (
            n_pos * n_neg
        )
        return math.sqrt(max(var, 0.0))


def auc_moments(model: ScoreModel) -> _Moments:
    """``A``, ``Q1``, ``Q2`` of a continuous score model, over the quantiles of one class:
    ``A = E S+(Y)``, ``Q1 = E S+(Y)^2`` (``Y`` a negative), ``Q2 = E F-(X)^2`` (``X`` a
    positive)."""

    def mean_over(quantile, f) -> float:
        value, _ = integrate.quad(lambda u: f(quantile(u)), 0.0, 1.0, limit=200, epsabs=1e-13)
        return float(value)

    def below_neg(x):
        return float(np.asarray(model.neg.cdf(x)))

    def above_pos(y):
        return float(np.asarray(model.pos.sf(y)))

    return _Moments(
        mean_over(model.neg.ppf, above_pos),
        mean_over(model.neg.ppf, lambda y: above_pos(y) ** 2),
        mean_over(model.pos.ppf, lambda x: below_neg(x) ** 2),
    )


def auc_sample_size(
    model,
    *,
    width: float | None = None,
    power: float | None = None,
    null: float = 0.5,
    alternative: str = "greater",
    confidence_level: float = 0.95,
    ratio: float = 1.0,
    max_n: int = 10**7,
) -> AUCSampleSize:
    """Smallest test set (``n`` positives, ``ceil(ratio n)`` negatives) whose AUC interval
    is at most ``width`` wide, or whose test of ``AUC = null`` has at least ``power``.

    Parameters
    ----------
    model : float or ScoreModel
        The AUC of the binormal model (:func:`rocsim.binormal`), or a continuous score model.
    width : float, optional
        The normal interval's width to reach (module docstring).
    power : float, optional
        The power to reach, in (0, 1); give exactly one of ``width`` and ``power``.
    null : float, default 0.5
        The AUC of the null hypothesis (``power``).
    alternative : {"greater", "less", "two-sided"}, default "greater"
        The test's alternative (``power``; :func:`rocsim.auc_ci`'s).
    confidence_level : float, default 0.95
        The interval's level, or one minus the test's size.
    ratio : float, default 1.0
        Negatives per positive.
    max_n : int, default 10**7

    Returns
    -------
    AUCSampleSize

    Examples
    --------
    >>> plan = auc_sample_size(0.8, width=0.1)
    >>> plan.n, plan.n_neg, round(plan.achieved, 4)
    (146, 146, 0.0999)
    >>> auc_sample_size(0.8, power=0.8, null=0.7).n
    59
    """
    if (width is None) == (power is None):
        raise ValueError("give exactly one of width and power")
    level = check_confidence_level(confidence_level)
    model = _resolve(model)
    ratio = _positive_number(ratio, "ratio")
    max_n = _count(max_n, "max_n", 2)
    moments = auc_moments(model)
    if width is not None:
        target, goal = _positive_number(width, "width"), "width"
        z = float(special.ndtri(0.5 + level / 2))

        def achieved(n: int) -> float:
            return 2 * z * moments.sd(n, negatives_for(n, ratio))

        def meets(n: int) -> bool:
            return achieved(n) <= target
    else:
        target, goal = _probability(power, "power"), "power"
        check_choice(alternative, ALTERNATIVES, "alternative")
        null = _probability(null, "null")
        _check_direction(moments.auc, null, alternative)
        two_sided = alternative == "two-sided"
        z = float(special.ndtri(0.5 + level / 2 if two_sided else level))

        def achieved(n: int) -> float:
            sd = moments.sd(n, negatives_for(n, ratio))
            return float(special.ndtr(abs(moments.auc - null) / sd - z))

        def meets(n: int) -> bool:
            return achieved(n) >= target

    n = _smallest(meets, max_n)
    n_neg = negatives_for(n, ratio)
    testing = goal == "power"
    return AUCSampleSize(
        n,
        n_neg,
        moments.auc,
        moments.sd(n, n_neg),
        goal,
        float(target),
        achieved(n),
        level,
        ratio,
        float(null) if testing else None,
        alternative if testing else None,
    )


def _smallest(meets, max_n: int) -> int:
    """The smallest ``n >= 2`` that ``meets`` (a criterion monotone in ``n``): doubling, then
    bisection between the last failure and the first success."""
    if meets(2):
        return 2
    low, high = 2, 4
    while not meets(min(high, max_n)):
        if high >= max_n:
            raise ValueError(f"the target is not reached by n = {max_n} (max_n)")
        low, high = high, 2 * high
    high = min(high, max_n)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if meets(middle) else (middle, high)
    return high


def _resolve(model) -> ScoreModel:
    """:func:`rocsim.sim.planning.sample_size`'s models, but pilot data: the formula is for
    continuous scores (an empirical distribution has ties)."""
    resolved = _resolve_model(model, None)
    if isinstance(resolved.pos, EmpiricalDistribution):
        raise ValueError(
            "model: auc_sample_size plans from a continuous score model, not pilot data"
        )
    return resolved


def _check_direction(auc: float, null: float, alternative: str) -> None:
    """The model's AUC lies in the alternative (else no test has power)."""
    wrong = {"greater": auc <= null, "less": auc >= null, "two-sided": auc == null}
    if wrong[alternative]:
        raise ValueError(
            f"the model's AUC {auc:.4g} is not in the alternative {alternative!r} of "
            f"null={null:g}: no sample size gives power"
        )


def _probability(value, name: str) -> float:
    x = _real(value, name)
    if not 0 < x < 1:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return x
