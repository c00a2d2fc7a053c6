"""Sample-size planning: the smallest test set whose expected interval width meets a target.

:func:`sample_size` answers "how many positives (and negatives) must a test set have so that
the confidence interval of the ROC curve at a chosen point is, on average, at most ``width``
wide?" for the two averagings of the thesis:

- threshold averaging (Algorithm 4.1): at a fixed threshold the count of positives reaching it
  is ``Bin(n+, S+(t))`` (negatives: ``Bin(n-, S-(t))``), so the expected width
  ``sum_x Pr{X = x} width(x)`` and the coverage are exact finite sums
  (:func:`rocsim.core.coverage.threshold_exact_coverage`): nothing is simulated;
- vertical averaging (Algorithm 4.3): the interval's width depends on the whole test set.
  For the ``score``, ``wald`` and ``agresti`` intervals (functions of the bootstrap mean ``e``
  and spread ``D`` of TPR) the mean and variance of ``e`` and the mean of ``D`` are computed
  exactly from the laws of the test set's order statistics, and the expected width and the
  coverage from them under a stated approximation (:mod:`rocsim.sim.vertical_law`):
  deterministic, no test set drawn (``computation="law"``). Otherwise (``percentile``, a
  method of your own, pilot data, or ``computation="simulate"``) they are estimated by
  simulating test sets from the model and computing :func:`rocsim.core.vertical_ci` on each.

The sim layer builds on :mod:`rocsim.core` and :mod:`rocsim.sim.models` only.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from scipy import special

from rocsim.core._validation import check_choice, check_confidence_level
from rocsim.core.intervals import check_proportion_method, check_pseudo_count
from rocsim.core.labels import split_scores
from rocsim.core.methods import check_method, method_name
from rocsim.core.results import Result
from rocsim.core.vertical import VERTICAL_METHODS, VERTICAL_PROTOCOL, nearest_ranks, vertical_ci
from rocsim.sim.models import PairedScoreModel, ScoreModel, make_model
from rocsim.sim.vertical_law import LAW_METHODS, law_moments, law_width_coverage

#: The averagings :func:`sample_size` plans for.
AVERAGINGS = ("vertical", "threshold")

#: The axis whose interval width is the criterion (threshold averaging; vertical: TPR only).
AXES = ("tpr", "fpr")

#: How vertical averaging's width and coverage are computed: from the laws of the test set
#: (:mod:`rocsim.sim.vertical_law`) or by simulating test sets.
COMPUTATIONS = ("law", "simulate")

#: Default number of simulated test sets per candidate ``n`` (vertical averaging).
DEFAULT_REPLICATIONS = 400

#: Law computation: with fewer positives than this expected on one side of the threshold
#: (``n+ tau`` or ``n+ (1 - tau)``), ``e`` has an atom at 1 or 0 and is far from normal;
#: :func:`sample_size` warns when its answer is such a size.
LAW_FEW_POSITIVES = 5.0

#: Downward scan after the bisection: it stops after this many consecutive ``n`` whose
#: expected width exceeds the target (exact and law widths, cheap; simulated widths, costly).
LOOKBACK_EXACT = 25
LOOKBACK_LAW = LOOKBACK_EXACT
LOOKBACK_SIMULATED = 5

#: Default largest ``n+`` searched.
MAX_N_EXACT = 10_000_000
MAX_N_SIMULATED = 100_000


# --- models ---------------------------------------------------------------------------------


def binormal(auc: float | None = None, *, a: float | None = None, b: float = 1.0) -> ScoreModel:
    """The binormal score model: negatives ``N(0, 1)``, positives ``N(a/b, 1/b^2)``.

    Its ROC curve is ``TPR = Phi(a + b Phi^-1(FPR))`` (Dorfman & Alf) and its AUC
    ``Phi(a / sqrt(1 + b^2))``; given the AUC, ``a = sqrt(1 + b^2) Phi^-1(AUC)``, so with
    ``b = 1`` the positives are ``N(sqrt(2) Phi^-1(AUC), 1)``. Give either ``auc`` or ``a``.

    Returns
    -------
    ScoreModel
        ``make_model("binormal", (a/b, 1/b), (0, 1))``.

    Examples
    --------
    >>> binormal(auc=0.8).label()
    'N(1.19023, 1)/N(0, 1)'
    >>> binormal(a=1.2, b=0.8).label()
    'N(1.5, 1.25)/N(0, 1)'
    """
    b = _positive_number(b, "b")
    if (auc is None) == (a is None):
        raise ValueError("binormal needs exactly one of auc or a")
    if auc is not None:
        value = _real(auc, "auc")
        if not 0.0 < value < 1.0:
            raise ValueError(f"auc must lie strictly between 0 and 1, got {auc!r}")
        a_value = math.sqrt(1.0 + b * b) * float(special.ndtri(value))
    else:
        a_value = _real(a, "a")
        if not math.isfinite(a_value):
            raise ValueError(f"a must be finite, got {a!r}")
    return make_model("binormal", (a_value / b, 1.0 / b), (0.0, 1.0))


@dataclass(frozen=True, eq=False)
class EmpiricalDistribution:
    """Scores of one class of a pilot study, as a distribution: test sets draw from the pilot
    scores with replacement (the bootstrap's empirical distribution).

    It has the interface of :class:`rocsim.sim.models.ClassDistribution` used here:
    ``sf(t) = Pr{score >= t}``, ``cdf(t) = Pr{score < t} = 1 - sf(t)``, ``isf(u)`` the largest
    pilot score ``v`` with ``sf(v) >= u`` (the limit of the ``r``-th largest of ``n`` draws,
    ``r/n -> u``) and ``sample(rng, size)``, which draws one uniform per score (so the first
    ``k`` of ``size`` draws are the draws of ``size=k``: test sets of a stream are nested).
    """

    scores: np.ndarray  # sorted ascending

    family: ClassVar[str] = "empirical"

    def sf(self, t):
        s = self.scores
        return (s.size - np.searchsorted(s, np.asarray(t, dtype=float), side="left")) / s.size

    def cdf(self, t):
        return 1.0 - self.sf(t)

    def isf(self, u):
        s = self.scores
        # sf(s[i]) = (n - first index of the value s[i]) / n >= u  <=>  first index <= n (1 - u)
        u = np.asarray(u, dtype=float)
        k = np.floor(s.size * (1.0 - u) + 1e-9).astype(np.int64)  # allowed first indices 0..k
        # the largest value whose first occurrence is at index <= k: s[k] itself (its first
        # occurrence is at or before k), clipped to the sample
        return s[np.clip(k, 0, s.size - 1)]

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        index = np.floor(rng.random(size) * self.scores.size).astype(np.int64)
        return self.scores[np.minimum(index, self.scores.size - 1)]

    def label(self) -> str:
        return f"empirical({self.scores.size})"


def pilot_model(y_true, y_score, *, pos_label=None) -> ScoreModel:
    """Score model of a pilot study: each class draws from its pilot scores with replacement.

    Examples
    --------
    >>> model = pilot_model([1, 1, 0, 0, 0], [0.9, 0.4, 0.5, 0.2, 0.1])
    >>> model.label(), float(model.tpr(0.45)), float(model.fpr(0.45))
    ('empirical(2)/empirical(3)', 0.5, 0.3333333333333333)
    """
    pos, neg = split_scores(y_true, y_score, pos_label=pos_label)
    return ScoreModel(EmpiricalDistribution(np.sort(pos)), EmpiricalDistribution(np.sort(neg)))


def _resolve_model(model, pos_label) -> ScoreModel:
    if isinstance(model, PairedScoreModel):
        raise ValueError("model: sample_size plans for one classifier, not a paired model")
    if isinstance(model, ScoreModel):
        return model
    if isinstance(model, numbers.Real) and not isinstance(model, bool):
        if not 0.0 < float(model) < 1.0:
            raise ValueError(f"model: an AUC must lie strictly between 0 and 1, got {model!r}")
        return binormal(auc=float(model))
    if isinstance(model, tuple | list) and len(model) == 2:
        try:
            return pilot_model(model[0], model[1], pos_label=pos_label)
        except ValueError as err:
            raise ValueError(f"model: pilot data (y_true, y_score): {err}") from None
    raise ValueError(
        "model must be an AUC in (0, 1) (binormal model), a rocsim ScoreModel, or pilot data "
        f"(y_true, y_score); got {type(model).__name__}"
    )


# --- result ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One ``n`` visited by the search and its operating characteristics there."""

    n_pos: int
    n_neg: int
    expected_width: float
    width_se: float
    coverage: float
    coverage_se: float
    axis_coverage: float
    fpr: float
    tpr: float
    exact: bool
    stage: str
    law: bool = False

    @property
    def computed(self) -> str:
        """``"exact"`` (finite sums), ``"law (approximate)"`` (from the laws of the test set,
        :mod:`rocsim.sim.vertical_law`) or ``"simulated"``."""
        if self.exact:
            return "exact"
        return "law (approximate)" if self.law else "simulated"


_CANDIDATE_COLUMNS = (
    "n_pos",
    "n_neg",
    "expected_width",
    "width_se",
    "coverage",
    "coverage_se",
    "axis_coverage",
    "fpr",
    "tpr",
    "exact",
    "computed",
    "meets",
    "stage",
)


@dataclass(frozen=True, repr=False)
class SampleSize(Result):
    """Result of :func:`sample_size`: the planned class sizes and the search that found them.

    ``n`` (= ``n_pos``) positives and ``n_neg = ceil(ratio * n)`` negatives; ``expected_width``,
    ``coverage`` (and their Monte Carlo standard errors, 0 when nothing was simulated) at that
    size; ``fpr``, ``tpr``: the true point the interval is about (vertical: the FPR ``r / n-``
    of the rank and the true TPR there; threshold: the true rates at the model's threshold
    ``threshold``); ``computed``: how (``"exact"``, ``"law (approximate)"`` or
    ``"simulated"``); ``replications``: simulated test sets per ``n`` (None unless simulated).
    ``to_frame()``: one row per candidate ``n`` visited, ascending (``meets``: expected width
    ``<= width``; ``computed`` as above); the design in ``.attrs``.
    """

    n_pos: int
    n_neg: int
    at: float
    averaging: str
    width: float
    confidence_level: float
    method: str
    axis: str
    ratio: float
    expected_width: float
    width_se: float
    coverage: float
    coverage_se: float
    exact: bool
    fpr: float
    tpr: float
    threshold: float | None
    model: str
    replications: int | None
    random_state: Any
    candidates: tuple[Candidate, ...] = field(default=())
    computed: str = "exact"

    _columns: ClassVar[tuple[str, ...]] = _CANDIDATE_COLUMNS
    _settings: ClassVar[tuple[str, ...]] = (
        "n_pos",
        "n_neg",
        "at",
        "averaging",
        "axis",
        "width",
        "confidence_level",
        "method",
        "ratio",
        "model",
        "computed",
        "replications",
        "random_state",
    )

    @property
    def seed(self) -> Any:
        """Former name of ``random_state`` (deprecated: removed in the next release)."""
        warnings.warn(
            "SampleSize.seed is deprecated and will be removed in the next release; use "
            "SampleSize.random_state",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.random_state

    @property
    def n(self) -> int:
        """Number of positives (``n_pos``)."""
        return self.n_pos

    def _column_values(self) -> dict[str, Any]:
        rows = sorted(self.candidates, key=lambda c: c.n_pos)
        values: dict[str, Any] = {}
        for name in self._columns:
            if name == "meets":
                values[name] = np.array([c.expected_width <= self.width for c in rows])
            else:
                values[name] = np.array([getattr(c, name) for c in rows])
        return values

    def _summary(self) -> str:
        return (
            f"SampleSize(n+={self.n_pos}, n-={self.n_neg}: expected {self.axis.upper()} width "
            f"{self.expected_width:.5g} <= {self.width:g} at FPR {self.at:g}, "
            f"{self.averaging}, {self._level_and_method()})"
        )

    def __repr__(self) -> str:
        return self._summary()


# --- input checks ---------------------------------------------------------------------------


def _real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    return float(value)


def _positive_number(value, name: str) -> float:
    x = _real(value, name)
    if not (math.isfinite(x) and x > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return x


def _count(value, name: str, smallest: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < smallest:
        raise ValueError(f"{name} must be an integer >= {smallest}, got {value!r}")
    return int(value)


def negatives_for(n: int, ratio: float) -> int:
    """``n- = ceil(ratio * n)``, with ``ratio * n`` rounded to 9 decimals first (so that
    ``ratio=0.1, n=30`` gives 3, not the 4 of ``ceil(3.0000000000000004)``)."""
    return max(1, math.ceil(round(ratio * n, 9)))


# --- operating characteristics at one n -----------------------------------------------------


@dataclass(frozen=True)
class _Design:
    model: ScoreModel
    at: float
    averaging: str
    axis: str
    level: float
    method: str | Callable
    pseudo_count: float | None
    ratio: float
    replications: int
    entropy: Any
    common_random_numbers: bool


def _threshold_point(design: _Design) -> tuple[float, float, float]:
    """The model's threshold at FPR ``at`` and its true ``(fpr, tpr)``."""
    t = float(np.asarray(design.model.neg.isf(design.at)).reshape(-1)[0])
    fpr = float(np.asarray(design.model.fpr(t)).reshape(-1)[0])
    tpr = float(np.asarray(design.model.tpr(t)).reshape(-1)[0])
    return t, fpr, tpr


def _threshold_candidate(design: _Design, n: int, stage: str) -> Candidate:
    """Exact expected width and coverage (binomial sums): no simulation."""
    n_neg = negatives_for(n, design.ratio)
    _, fpr, tpr = _threshold_point(design)
    # imported here: the exact coverage module (and the cost code it carries) is threshold
    # averaging's alone, and a first call of vertical planning would pay for loading it
    from rocsim.core.coverage import threshold_exact_coverage

    c = threshold_exact_coverage(
        [tpr],
        [fpr],
        n,
        n_neg,
        confidence_level=design.level,
        method=design.method,
        pseudo_count=design.pseudo_count,
    )
    axis = c.tpr if design.axis == "tpr" else c.fpr
    return Candidate(
        n_pos=n,
        n_neg=n_neg,
        expected_width=float(axis.width[0]),
        width_se=0.0,
        coverage=float(c.cover[0]),
        coverage_se=0.0,
        axis_coverage=float(axis.cover[0]),
        fpr=fpr,
        tpr=tpr,
        exact=True,
        stage=stage,
    )


def _streams(design: _Design, n: int) -> list[tuple[np.random.Generator, np.random.Generator]]:
    """Per replication, the generators of the positives' and the negatives' scores.

    Common random numbers: replication ``j`` reads child ``(0, j, 0)`` (positives) and
    ``(0, j, 1)`` (negatives) of ``SeedSequence(seed)`` at every ``n``, so the test set of size
    ``n`` is the first ``n+`` and ``n-`` draws of those streams. Otherwise every candidate
    ``n`` has its own child ``(1, n)``, both classes of every replication drawn from it in turn.
    """
    if design.common_random_numbers:
        return [
            tuple(
                np.random.default_rng(
                    np.random.SeedSequence(design.entropy, spawn_key=(0, j, cls))
                )
                for cls in (0, 1)
            )
            for j in range(design.replications)
        ]
    rng = np.random.default_rng(np.random.SeedSequence(design.entropy, spawn_key=(1, n)))
    return [(rng, rng)] * design.replications


def _vertical_candidate(design: _Design, n: int, stage: str) -> Candidate:
    """Simulated mean width and coverage of :func:`rocsim.core.vertical_ci` at the FPR rank."""
    model = design.model
    n_neg, rank, fpr, tpr = _vertical_point(design, n)
    r = np.array([rank])
    widths = np.empty(design.replications)
    covered = np.empty(design.replications)
    for j, (rng_pos, rng_neg) in enumerate(_streams(design, n)):
        pos = model.pos.sample(rng_pos, n)
        neg = model.neg.sample(rng_neg, n_neg)
        ci = vertical_ci(
            pos,
            neg,
            r,
            confidence_level=design.level,
            method=design.method,
            pseudo_count=design.pseudo_count,
        )
        low, high = float(ci.low[0]), float(ci.high[0])
        widths[j] = high - low
        covered[j] = low <= tpr <= high
    root = math.sqrt(design.replications)
    cover = float(covered.mean())
    return Candidate(
        n_pos=n,
        n_neg=n_neg,
        expected_width=float(widths.mean()),
        width_se=float(widths.std(ddof=1) / root),
        coverage=cover,
        coverage_se=float(covered.std(ddof=1) / root),
        axis_coverage=cover,
        fpr=fpr,
        tpr=tpr,
        exact=False,
        stage=stage,
    )


def _vertical_point(design: _Design, n: int) -> tuple[int, int, float, float]:
    """``n-``, the FPR rank ``r`` nearest ``at * n-``, its FPR ``r / n-`` and the true TPR
    there."""
    model = design.model
    n_neg = negatives_for(n, design.ratio)
    r = int(nearest_ranks([design.at], n_neg)[0])
    fpr = r / n_neg
    tpr = float(np.asarray(model.pos.sf(model.neg.isf(fpr))).reshape(-1)[0])
    return n_neg, r, fpr, tpr


def _vertical_law_candidate(design: _Design, n: int, stage: str) -> Candidate:
    """Expected width and coverage of :func:`rocsim.core.vertical_ci` at the FPR rank from the
    laws of the test set (:mod:`rocsim.sim.vertical_law`): no simulation."""
    model = design.model
    n_neg, r, fpr, tpr = _vertical_point(design, n)
    law = law_moments(lambda u: model.pos.sf(model.neg.isf(u)), n, n_neg, r)
    width, cover = law_width_coverage(law, tpr, design.level, design.method, design.pseudo_count)
    return Candidate(
        n_pos=n,
        n_neg=n_neg,
        expected_width=width,
        width_se=0.0,
        coverage=cover,
        coverage_se=0.0,
        axis_coverage=cover,
        fpr=fpr,
        tpr=tpr,
        exact=False,
        stage=stage,
        law=True,
    )


def _law_applies(model: ScoreModel, method) -> bool:
    """The law computation covers the moment methods on continuous score models; pilot data
    (step-function ROC curves with ties), ``percentile`` and a user's method are simulated."""
    continuous = not isinstance(model.pos, EmpiricalDistribution) and not isinstance(
        model.neg, EmpiricalDistribution
    )
    return continuous and isinstance(method, str) and method in LAW_METHODS


def _warn_if_few_positives(best: Candidate) -> None:
    """Warn when the law's answer expects fewer than :data:`LAW_FEW_POSITIVES` positives on
    one side of the threshold (its normal approximation of ``e`` is poor there)."""
    above, below = best.n_pos * best.tpr, best.n_pos * (1 - best.tpr)
    if min(above, below) < LAW_FEW_POSITIVES:
        side = "below" if below < above else "above"
        warnings.warn(
            f"at n = {best.n_pos} only {min(above, below):.2g} positives are expected {side} "
            f"the threshold (TPR {best.tpr:.4g}): the law computation's normal approximation "
            "is poor there (the width may be off by several percent); check with "
            "computation='simulate'",
            UserWarning,
            stacklevel=3,
        )


# --- the search -----------------------------------------------------------------------------


def _search(
    evaluate: Callable[[int, str], Candidate],
    target: float,
    n_start: int,
    n_max: int,
    lookback: int,
) -> tuple[int, dict[int, Candidate]]:
    """The search rule of :func:`sample_size` (see its Notes); returns ``n`` and the visits."""
    seen: dict[int, Candidate] = {}

    def meets(n: int, stage: str) -> bool:
        if n not in seen:
            seen[n] = evaluate(n, stage)
        return seen[n].expected_width <= target

    # 1. bracket by doubling: n_start, 2 n_start, 4 n_start, ... (capped at n_max)
    low, high = None, n_start
    while not meets(high, "bracket"):
        if high >= n_max:
            got = seen[high].expected_width
            raise ValueError(
                f"width={target:g} is not reached by n <= max_n={n_max} (expected width "
                f"{got:.4g} there); ask for a larger width or raise max_n"
            )
        low, high = high, min(2 * high, n_max)
    if low is None:
        return high, seen
    floor = low  # the last doubling point that failed: nothing at or below it is returned
    # 2. bisection keeping W(low) > target >= W(high)
    while high - low > 1:
        mid = (low + high) // 2
        if meets(mid, "bisect"):
            high = mid
        else:
            low = mid
    # 3. downward scan: the smallest n passing, stopping after `lookback` failures in a row
    best, n, misses = high, high - 1, 0
    while n > floor and misses < lookback:
        if meets(n, "scan"):
            best, misses = n, 0
        else:
            misses += 1
        n -= 1
    return best, seen


#: ``sample_size``'s ``seed`` when not given (a deprecated name of ``random_state``).
_NOT_GIVEN = object()


def sample_size(
    model,
    *,
    at: float,
    averaging: str = "vertical",
    width: float,
    confidence_level: float = 0.95,
    method: str | Callable = "score",
    ratio: float = 1.0,
    replications: int = DEFAULT_REPLICATIONS,
    random_state=0,
    axis: str = "tpr",
    pseudo_count: float | None = None,
    common_random_numbers: bool = True,
    min_n: int | None = None,
    max_n: int | None = None,
    pos_label=None,
    computation: str = "law",
    seed=_NOT_GIVEN,
) -> SampleSize:
    """Smallest test set whose expected confidence interval width at one ROC point is at most
    ``width``.

    With ``n`` positives and ``n- = ceil(ratio * n)`` negatives, the expected width ``W(n)``
    of the interval at the requested point is computed for the ``n`` a search visits, and the
    smallest ``n`` with ``W(n) <= width`` is returned (search rule in the Notes).

    Parameters
    ----------
    model : float, ScoreModel or (y_true, y_score)
        The score distributions test sets come from. A float is the AUC of the binormal model
        (negatives ``N(0, 1)``, positives ``N(a, 1)``, ``a = sqrt(2) Phi^-1(AUC)``;
        :func:`binormal` builds others); a :class:`rocsim.sim.models.ScoreModel` is used as
        is (``make_model``, ``ScoreModel.from_distributions``); a pair ``(y_true, y_score)``
        of a pilot study's labels and scores gives the model whose classes draw from the
        pilot's scores with replacement (its empirical distributions, ties and all; the
        "true" rates are then the pilot's, :class:`EmpiricalDistribution`).
    at : float
        The point, as an FPR in (0, 1). ``vertical``: the interval on TPR at the FPR
        ``r / n-`` with ``r`` the rank nearest ``at * n-``
        (:func:`rocsim.core.vertical.nearest_ranks`); ``threshold``: the rectangle at the
        model's true threshold ``t`` with ``S-(t) = at`` (pilot data: the largest pilot score
        with ``S-(t) >= at``).
    averaging : {"vertical", "threshold"}, default "vertical"
    width : float
        Target expected width (> 0) of the interval on ``axis``.
    confidence_level : float, default 0.95
        Level of the interval (vertical) or of the rectangle (threshold: each axis at
        ``sqrt(confidence_level)``, as :func:`rocsim.core.threshold_ci` does).
    method : str or callable, default "score"
        Interval method: a name of :data:`rocsim.core.intervals.PROPORTION_METHODS`
        (threshold) or of :data:`rocsim.core.vertical.VERTICAL_METHODS` (vertical), or a
        function of that protocol (:mod:`rocsim.core.methods`).
    ratio : float, default 1.0
        Negatives per positive: ``n- = ceil(ratio * n)``.
    replications : int, default 400
        Simulated test sets per candidate ``n`` (only when vertical averaging simulates: see
        ``computation``; threshold averaging is exact).
    random_state : int or sequence of int, default 0
        Entropy of ``numpy.random.SeedSequence(random_state)``, the only source of randomness
        of a simulation; the same value gives the same table (``None``: fresh entropy,
        recorded in ``.random_state``). Unused when nothing is simulated. (``seed=``, its
        former name, works for one release with a ``DeprecationWarning``.)
    axis : {"tpr", "fpr"}, default "tpr"
        Threshold averaging: the rectangle side whose width is the criterion (``fpr``:
        depends on ``n-`` only). Vertical averaging: ``tpr`` only.
    pseudo_count : float, optional
        For a method that takes one (``agresti``, default 2).
    common_random_numbers : bool, default True
        Simulated vertical averaging: replication ``j`` draws its scores from the same two
        streams at every ``n`` (child ``(0, j, class)`` of the seed), so the test sets of
        replication ``j`` are nested in ``n`` and the simulated ``W(n)`` is nearly as smooth
        in ``n`` as the true one (differences between ``n`` are estimated far more precisely
        than each ``W(n)``). ``False``: each candidate ``n`` has its own stream (child
        ``(1, n)``), independent between ``n``. Either way the results do not depend on the
        search path.
    min_n, max_n : int, optional
        Search range of ``n``. Default ``min_n``: 1 (threshold); vertical, the smallest ``n``
        with ``n- >= max(2, ceil(1 / min(at, 1 - at)))``, the first test set that places a
        rank at ``at``. Default ``max_n``: 10**7 (threshold), 10**5 (vertical); a target not
        reached by then raises ``ValueError``.
    pos_label : optional
        Label of the positives in pilot data (needed unless the labels are 0/1, -1/1 or
        booleans, as everywhere in rocsim).
    computation : {"law", "simulate"}, default "law"
        Vertical averaging only. ``law``: for the ``score``, ``wald`` and ``agresti`` intervals
        on a score model (a float or a ScoreModel), the expected width and the coverage are
        computed from the laws of the test set, deterministically (Notes; ``computed`` says
        ``"law (approximate)"``); for the other cases, where no such computation exists
        (``percentile``, a method of your own, pilot data, whose ROC curve is a step
        function), test sets are simulated instead, as with ``simulate``. ``simulate``: always
        simulate ``replications`` test sets per ``n``.

    Returns
    -------
    SampleSize
        ``.n`` (= ``.n_pos``), ``.n_neg``, the design, ``expected_width``, ``coverage`` (and
        Monte Carlo standard errors: 0 unless simulated) at ``n``, ``.computed``;
        ``.to_frame()``: every candidate visited, with columns ``n_pos, n_neg,
        expected_width, width_se, coverage, coverage_se, axis_coverage, fpr, tpr, exact,
        computed, meets, stage``.

    Warns
    -----
    UserWarning
        ``computation="law"``: when the answer expects fewer than :data:`LAW_FEW_POSITIVES`
        positives on one side of the threshold (``n+ tau`` or ``n+ (1 - tau)``), where the
        law's normal approximation is poor (Notes).

    See Also
    --------
    rocsim.auc_sample_size : the test set an AUC interval of a given width, or a test of the
        AUC with a given power, needs.

    Notes
    -----
    Definitions. ``W(n)`` is the expected width of the interval on ``axis`` at the point.
    Threshold averaging: ``X ~ Bin(n+, S+(t))`` (``axis="fpr"``: ``Bin(n-, S-(t))``),
    ``W(n) = sum_x Pr{X = x} (high(x) - low(x))`` with the bounds of
    :func:`rocsim.core.threshold_ci`, and ``coverage`` the exact probability that the rectangle
    holds ``(S-(t), S+(t))`` (``axis_coverage``: that the one side holds its rate), both from
    :func:`rocsim.core.coverage.threshold_exact_coverage` (``exact`` is True). Vertical
    averaging: ``W(n)`` is the expected ``high - low`` of :func:`rocsim.core.vertical_ci` at
    the rank ``r`` and ``coverage`` the probability that it holds the true TPR at FPR
    ``r / n-``, ``tau = R(r / n-)`` with ``R(u) = S+(S-^-1(u))`` (as in the vertical coverage
    studies); ``exact`` is False.

    Vertical averaging from the laws (``computation="law"``, :mod:`rocsim.sim.vertical_law`).
    With the negatives sorted decreasingly, the ``c``-th largest sits at ``S-^-1(V_c)``,
    ``V_c ~ Beta(c, n- - c + 1)`` the ``c``-th smallest of ``n-`` uniforms, and for ``c < d``
    ``V_d = V_c + (1 - V_c) B``, ``B ~ Beta(d - c, n- - d + 1)`` independent of ``V_c``
    (David & Nagaraja). Given them, ``K_c ~ Bin(n+, R(V_c))`` positives score at least the
    ``c``-th largest negative, the counts nested. The interval mixes ``q_c = K_c / n+`` with the
    weights ``w_c`` of the threshold rank (they depend on ``n-`` and ``r`` only): mean
    ``e = sum w_c q_c``, spread ``D = sum w_c (q_c - e)^2``, variance
    ``v = e (1 - e) / m + (1 - 1/m) D`` (``m = n+``); ``score`` is
    ``(e + z^2/2m -+ z sqrt(v + z^2/4m^2)) / (1 + z^2/m)``, ``wald`` ``e -+ z sqrt(v)``,
    ``agresti`` ``wald`` after ``q -> (m q + a) / (m + 2a)``, ``m -> m + 2a``. Exact (finite
    sums of 1-D and 2-D integrals against Beta laws, computed by quadrature): ``E[e] = sum w_c
    E R(V_c)``, ``Var(e)`` and ``E[D]``, from ``E[q_c q_d] = E R(V_min) / n+ + (1 - 1/n+)
    E[R(V_c) R(V_d)]``. Approximate (``computed`` says ``"law (approximate)"``): ``D`` as a
    Gamma variable with its exact mean and the variance it would have if the ``q_c`` were
    Gaussian with their exact means and covariances (Satterthwaite), and ``e`` given ``D`` as
    normal with ``e``'s exact mean and variance and the Gaussian ``Cov(e, D)``; then the
    expected width and the coverage are integrals over ``(e, D)``. ``width_se`` and
    ``coverage_se`` are 0 (nothing is simulated; the approximation's error is a bias, not a
    standard error). Checked against simulation by
    ``tests/test_vertical_sample_size_law.py``: the Gaussian fourth moments under-state
    ``Var(D)``, so the computed width and coverage err slightly high, most at small ``n`` and
    at FPRs near 0; to neglect ``D``'s fluctuation altogether would err several times more.
    The normal ``e`` fails when few positives are expected on one side of the threshold (``e``
    then has an atom at 1 or 0; the ``wald`` interval, of zero width there, suffers most):
    ``sample_size`` warns when its answer expects fewer than :data:`LAW_FEW_POSITIVES` there.

    Vertical averaging by simulation (``computation="simulate"``, or a case the law does not
    cover): ``W(n)`` is the mean of ``high - low`` over ``replications`` simulated test sets,
    ``width_se`` its standard error (standard deviation / sqrt(replications)); ``coverage`` the
    share of test sets whose interval holds ``tau``, ``coverage_se`` its standard error
    (``computed`` says "simulated").

    Search rule. Because ``W`` is nearly but not exactly decreasing (discreteness of the
    counts and of the rank ``r``):

    1. doubling: ``W`` at ``min_n, 2 min_n, 4 min_n, ...`` until the first ``n_k`` with
       ``W(n_k) <= width`` (``n_k = min_n``: returned at once);
    2. bisection of ``(n_{k-1}, n_k]`` keeping ``W(low) > width >= W(high)``, to a pair
       ``high = low + 1``;
    3. downward scan from ``high - 1``: every ``n`` is evaluated, down to ``n_{k-1} + 1`` or
       until 25 (exact or law ``W``) or 5 (simulated ``W``) consecutive ``n`` fail; the
       smallest ``n`` met with ``W(n) <= width`` (or ``high``) is returned.

    So the returned ``n`` has ``W(n) <= width``, ``W > width`` at every doubling point below
    it and at the (up to) 25 or 5 ``n`` just below it; when ``W`` is decreasing it is exactly
    the smallest ``n >= min_n`` with ``W(n) <= width``. The exact widths of the ``score`` and
    ``clopper_pearson`` intervals are decreasing in ``n``; ``wald`` is not at small ``n``
    (its interval has zero width at ``x = 0`` and ``x = n``, so a nearly sure rate has
    ``W(1)`` near 0: check ``coverage``). With common random numbers the simulated ``W`` is
    smooth up to wiggles of a few ``n``; its level has the Monte Carlo error ``width_se``,
    which moves ``n`` by about ``2 n width_se / W`` (``W`` falls as ``n^-1/2``). The law's
    ``W`` is deterministic; it steps a little with ``n`` as the rank ``r = round(at n-)`` does,
    and its approximation error moves ``n`` by about ``2 n`` times the relative error of ``W``.

    The criterion is the *expected* width: it is not a guarantee that the interval of one
    study will be that narrow (about half the studies get a wider one).

    References
    ----------
    Gadoury (2009), sections 4.3.1 (Algorithm 4.1) and 4.4.1 (Algorithm 4.3, eqs. 4.10-4.14).
    David & Nagaraja (2003), Order Statistics, 3rd ed., Wiley, sections 2.2-2.5 (the Beta laws
    of uniform order statistics and their joint law).
    Satterthwaite (1946), An approximate distribution of estimates of variance components,
    Biometrics Bulletin 2:110-114 (a quadratic form as a scaled chi-square).
    Dorfman & Alf (1969), Maximum-likelihood estimation of parameters of signal-detection
    theory and determination of confidence intervals -- rating-method data, Journal of
    Mathematical Psychology 6:487-496 (the binormal model).
    Brown, Cai & DasGupta (2001), Interval estimation for a binomial proportion, Statistical
    Science 16:101-133 (expected widths and coverage of proportion intervals).

    Examples
    --------
    >>> plan = sample_size(0.8, at=0.1, averaging="threshold", width=0.1)
    >>> plan.n, plan.n_neg
    (492, 492)
    >>> plan  # doctest: +NORMALIZE_WHITESPACE
    SampleSize(n+=492, n-=492: expected TPR width 0.099955 <= 0.1 at FPR 0.1, threshold,
               score, 95%)
    >>> plan.to_frame().columns[:6].tolist()
    ['n_pos', 'n_neg', 'expected_width', 'width_se', 'coverage', 'coverage_se']

    Vertical averaging, from the laws of the test set (no simulation, the same answer every
    time):

    >>> vertical = sample_size(0.8, at=0.1, width=0.2)
    >>> vertical.n, vertical.computed, vertical.replications
    (281, 'law (approximate)', None)
    >>> round(vertical.expected_width, 4), round(vertical.coverage, 3)
    (0.2, 0.957)
    """
    # -- validate once
    averaging = check_choice(averaging, AVERAGINGS, "averaging")
    computation = check_choice(computation, COMPUTATIONS, "computation")
    if isinstance(at, str) and at.lower() in ("auc", "area"):
        raise ValueError(
            "at must be an FPR; the test set an AUC interval or test needs is planned by "
            "rocsim.auc_sample_size(model, width=...) or (..., power=..., null=...)"
        )
    at_value = _real(at, "at")
    if not 0.0 < at_value < 1.0:
        raise ValueError(f"at must lie strictly between 0 and 1, got {at!r}")
    target = _positive_number(width, "width")
    level = check_confidence_level(confidence_level)
    ratio = _positive_number(ratio, "ratio")
    axis = check_choice(axis, AXES, "axis")
    if averaging == "vertical":
        if axis != "tpr":
            raise ValueError("axis must be 'tpr' for vertical averaging (an interval on TPR)")
        method = check_method(
            method, VERTICAL_METHODS, VERTICAL_PROTOCOL, "vertical interval method"
        )
    else:
        method = check_proportion_method(method)
    replications = _count(replications, "replications", 2)
    interval_kind = "vertical" if averaging == "vertical" else "proportion"
    pseudo_count = check_pseudo_count(method, pseudo_count, interval_kind)
    if not isinstance(common_random_numbers, bool | np.bool_):
        raise ValueError(
            f"common_random_numbers must be True or False, got {common_random_numbers!r}"
        )
    if seed is not _NOT_GIVEN:
        warnings.warn(
            "sample_size(seed=...) is deprecated and will be removed in the next release; "
            "use random_state=...",
            DeprecationWarning,
            stacklevel=2,
        )
        random_state = seed
    try:
        entropy = np.random.SeedSequence(random_state).entropy
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"random_state must be an int >= 0 or a sequence of them: {err}"
        ) from None
    resolved = _resolve_model(model, pos_label)
    exact = averaging == "threshold"
    if min_n is None:
        n_start = 1
        if not exact:
            need = max(2, math.ceil(1.0 / min(at_value, 1.0 - at_value) - 1e-9))
            while negatives_for(n_start, ratio) < need:
                n_start = max(n_start + 1, math.floor((need - 1) / ratio))
    else:
        n_start = _count(min_n, "min_n", 1)
        if not exact and negatives_for(n_start, ratio) < 2:
            raise ValueError("min_n must give at least 2 negatives for vertical averaging")
    n_max = (MAX_N_EXACT if exact else MAX_N_SIMULATED) if max_n is None else max_n
    n_max = _count(n_max, "max_n", n_start)
    # vertical averaging: from the laws where they apply, else simulated (see `computation`)
    law = not exact and computation == "law" and _law_applies(resolved, method)
    simulated = not (exact or law)

    design = _Design(
        resolved,
        at_value,
        averaging,
        axis,
        level,
        method,
        pseudo_count,
        ratio,
        replications if simulated else 0,
        entropy,
        bool(common_random_numbers),
    )
    if exact:
        evaluate, lookback = _threshold_candidate, LOOKBACK_EXACT
    elif law:
        evaluate, lookback = _vertical_law_candidate, LOOKBACK_LAW
    else:
        evaluate, lookback = _vertical_candidate, LOOKBACK_SIMULATED
    n, seen = _search(
        lambda k, stage: evaluate(design, k, stage), target, n_start, n_max, lookback
    )
    best = seen[n]
    if law:
        _warn_if_few_positives(best)
    threshold = _threshold_point(design)[0] if exact else None
    return SampleSize(
        n_pos=n,
        n_neg=best.n_neg,
        at=at_value,
        averaging=averaging,
        width=target,
        confidence_level=level,
        method=method_name(method),
        axis=axis,
        ratio=ratio,
        expected_width=best.expected_width,
        width_se=best.width_se,
        coverage=best.coverage,
        coverage_se=best.coverage_se,
        exact=exact,
        fpr=best.fpr,
        tpr=best.tpr,
        threshold=threshold,
        model=resolved.label(),
        replications=replications if simulated else None,
        random_state=random_state if random_state is not None else entropy,
        candidates=tuple(seen.values()),
        computed=best.computed,
    )
