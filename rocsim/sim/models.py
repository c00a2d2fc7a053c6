"""Score models: the data-generating mechanisms of the studies, with exact truths
(:ref:`reading-score-models`).

A :class:`ScoreModel` holds one continuous score distribution per class. Because the true
survival functions, quantiles and densities are known, every coverage target (the true TPR
and FPR at a threshold, the true threshold of a total positive ratio) is exact.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy import special

from rocsim.core._validation import SCHEMES, check_choice, check_conditions

#: family -> (parameter names, scipy distribution from the parameters)
#: (``scipy.stats`` is imported when a distribution is first built: it takes longer to import
#: than a first call of rocsim may take, and binormal classes rarely need it)
FAMILIES = {
    "binormal": (("mu", "sd"), lambda mu, sd: _stats().norm(loc=mu, scale=sd)),
    "beta": (("a", "b"), lambda a, b: _stats().beta(a, b)),
    "exponential": (("mean",), lambda mean: _stats().expon(scale=mean)),
}


def _stats():
    from scipy import stats

    return stats


class _ScipyFunctions:
    """The functions of a class's score distribution, read off its frozen ``scipy.stats``
    distribution ``self.dist``."""

    def sf(self, t):
        """Survival function ``Pr{score >= t}``."""
        return self.dist.sf(t)

    def cdf(self, t):
        return self.dist.cdf(t)

    def ppf(self, u):
        """Quantile function."""
        return self.dist.ppf(u)

    def isf(self, u):
        """Inverse survival function: the ``t`` with ``Pr{score >= t} = u``."""
        return self.dist.isf(u)

    def pdf(self, t):
        return self.dist.pdf(t)


@dataclass(frozen=True)
class ClassDistribution(_ScipyFunctions):
    """Score distribution of one class: a family and its parameters in :data:`FAMILIES` order."""

    family: str
    params: tuple[float, ...]

    def __post_init__(self) -> None:
        check_choice(self.family, FAMILIES, "score model family")
        names, _ = FAMILIES[self.family]
        if len(self.params) != len(names):
            raise ValueError(f"{self.family} takes parameters {names}, got {self.params}")
        if any(not np.isfinite(p) for p in self.params):
            raise ValueError(f"{self.family} parameters must be finite, got {self.params}")
        positive = self.params[1:] if self.family == "binormal" else self.params
        if any(p <= 0 for p in positive):
            raise ValueError(f"{self.family} parameters {names} out of range: {self.params}")

    @cached_property
    def dist(self):
        """The frozen ``scipy.stats`` distribution (built once: freezing is slow)."""
        return FAMILIES[self.family][1](*self.params)

    def sf(self, t):
        """Survival function ``Pr{score >= t}``; of a normal class, ``scipy.stats.norm``'s own
        formula, ``ndtr(-(t - mu) / sd)``, without its argument checks (called once per
        replication by some studies: the same values, without the checks' cost)."""
        if self.family == "binormal":
            return special.ndtr(-_standardized(t, *self.params))
        return self.dist.sf(t)

    def cdf(self, t):
        """Distribution function; of a normal class ``ndtr((t - mu) / sd)``, as :meth:`sf`."""
        if self.family == "binormal":
            return special.ndtr(_standardized(t, *self.params))
        return self.dist.cdf(t)

    def isf(self, u):
        """Inverse survival function; of a normal class ``mu - sd ndtri(u)`` as
        ``scipy.stats.norm`` computes it (``inf`` at 0, ``-inf`` at 1, NaN outside), as
        :meth:`sf`."""
        if self.family != "binormal":
            return self.dist.isf(u)
        mu, sd = self.params
        u = np.asarray(u, dtype=float)
        inside = (u > 0) & (u < 1)
        out = np.where(u == 0, np.inf, np.where(u == 1, -np.inf, np.nan))
        out[inside] = -special.ndtri(u[inside]) * sd + mu
        return out[()] if out.ndim == 0 else out

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Draw ``size`` scores with ``rng`` (never the global random state)."""
        if self.family == "binormal":
            mu, sd = self.params
            return rng.normal(mu, sd, size)
        if self.family == "beta":
            return rng.beta(*self.params, size)
        return rng.exponential(self.params[0], size)

    def label(self) -> str:
        letter = {"binormal": "N", "beta": "B", "exponential": "exp"}[self.family]
        return f"{letter}({', '.join(f'{p:g}' for p in self.params)})"


def _standardized(t, mu: float, sd: float) -> np.ndarray:
    """``(t - mu) / sd`` as ``scipy.stats`` computes it for ``loc=mu, scale=sd``."""
    t = np.asarray(t)
    standardized = (t - np.asarray(mu)) / np.asarray(sd)
    return np.asarray(standardized, dtype=np.promote_types(t.dtype, float))


@dataclass(frozen=True)
class FrozenDistribution(_ScipyFunctions):
    """Score distribution of one class given as any frozen ``scipy.stats`` continuous
    distribution (``scipy.stats.gamma(2.0)``), with the interface of
    :class:`ClassDistribution`; draws use ``rvs(random_state=rng)``."""

    dist: Any

    def __post_init__(self) -> None:
        missing = [
            m
            for m in ("sf", "isf", "cdf", "ppf", "pdf", "rvs")
            if not callable(getattr(self.dist, m, None))
        ]
        if missing:
            raise ValueError(
                f"a class distribution needs the methods of a frozen scipy.stats "
                f"distribution; {type(self.dist).__name__} lacks {missing}"
            )

    @property
    def family(self) -> str:
        return getattr(getattr(self.dist, "dist", None), "name", type(self.dist).__name__)

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return np.asarray(self.dist.rvs(size=size, random_state=rng), dtype=float)

    def label(self) -> str:
        args = [f"{a:g}" for a in getattr(self.dist, "args", ())]
        args += [f"{k}={v:g}" for k, v in getattr(self.dist, "kwds", {}).items()]
        return f"{self.family}({', '.join(args)})"


@dataclass(frozen=True)
class ScoreModel:
    """Scores of positives and negatives, each from its own class distribution (a built-in
    :class:`ClassDistribution`, or any frozen ``scipy.stats`` distribution through
    :meth:`from_distributions`)."""

    pos: ClassDistribution | FrozenDistribution
    neg: ClassDistribution | FrozenDistribution

    @classmethod
    def from_distributions(cls, pos, neg) -> ScoreModel:
        """A score model of two frozen ``scipy.stats`` continuous distributions: positives'
        scores from ``pos``, negatives' from ``neg`` (higher scores mean positive). This is
        how a user's score model is built (``docs/extending.md``).

        Examples
        --------
        >>> from scipy import stats
        >>> model = ScoreModel.from_distributions(stats.gamma(3.0), stats.gamma(1.5))
        >>> model.label()
        'gamma(3)/gamma(1.5)'
        >>> round(float(model.tpr(2.0)), 4), round(float(model.fpr(2.0)), 4)
        (0.6767, 0.2615)
        """
        return cls(FrozenDistribution(pos), FrozenDistribution(neg))

    def tpr(self, t) -> np.ndarray:
        """True TPR at threshold ``t``: ``S+(t)``."""
        return self.pos.sf(t)

    def fpr(self, t) -> np.ndarray:
        """True FPR at threshold ``t``: ``S-(t)``."""
        return self.neg.sf(t)

    def threshold_for_total_positive_ratio(self, q, pi: float = 0.5) -> np.ndarray:
        """True threshold ``t_q`` solving ``pi S+(t) + (1 - pi) S-(t) = q``
        (:ref:`reading-total-positive-ratio`).

        The root is bracketed by the two classes' ``(1-q)`` quantiles: at the smaller one
        both survival functions are ``>= q``, at the larger both are ``<= q``.
        """
        q = np.atleast_1d(np.asarray(q, dtype=float))
        if np.any((q <= 0) | (q >= 1)):
            raise ValueError("total positive ratios must lie in (0, 1)")
        key = (self, tuple(q.tolist()), float(pi))
        try:
            return np.array(_ratio_thresholds(*key))
        except TypeError:  # a user's distribution that cannot be hashed: solved every time
            return np.array(_ratio_thresholds.__wrapped__(*key))

    def _solve_ratio(self, q: float, pi: float) -> float:
        a, b = sorted((float(self.pos.isf(q)), float(self.neg.isf(q))))
        if a == b:
            return a

        def excess(t: float) -> float:
            return pi * self.pos.sf(t) + (1 - pi) * self.neg.sf(t) - q

        with np.errstate(over="ignore", invalid="ignore"):
            ends = excess(a), excess(b)
        if not np.all(np.isfinite(ends)) or ends[0] * ends[1] > 0:  # brentq's own condition
            # the quantiles bracket the root in exact arithmetic; not where scores overflow
            raise ValueError(
                f"no threshold of the score model {self.label()} gives a total positive "
                f"ratio of {q:g} in double precision (its scores overflow: are its "
                "parameters too large?)"
            )
        from scipy import optimize

        return optimize.brentq(excess, a, b, xtol=1e-13, rtol=4 * np.finfo(float).eps)

    def cost(self, w, t) -> np.ndarray:
        """True normalized cost ``w (1 - S+(t)) + (1 - w) S-(t)`` at threshold ``t`` (eq. 3.12)."""
        w = np.asarray(w, dtype=float)
        return w * self.pos.cdf(t) + (1.0 - w) * self.neg.sf(t)

    def cost_threshold(self, w) -> np.ndarray:
        """Threshold minimizing the true normalized cost at each operating condition ``w``.

        For binormal classes with one standard deviation the likelihood ratio is monotone and
        the minimizer solves ``w f+(t) = (1 - w) f-(t)`` in closed form,
        ``t = (mu+ + mu-)/2 + sd^2 log((1 - w)/w) / (mu+ - mu-)``. Otherwise the cost is
        minimized numerically (:meth:`_minimize_cost`). ``w = 0`` gives ``inf`` (everything
        negative) and ``w = 1`` gives ``-inf``.
        """
        w = check_conditions(w)
        if self.pos.family == self.neg.family == "binormal":
            (mu_pos, sd_pos), (mu_neg, sd_neg) = self.pos.params, self.neg.params
            if sd_pos == sd_neg and mu_pos > mu_neg:
                with np.errstate(divide="ignore"):
                    log_odds = np.log1p(-w) - np.log(w)
                return (mu_pos + mu_neg) / 2.0 + sd_pos**2 * log_odds / (mu_pos - mu_neg)
        return self._minimize_cost(w)

    def cost_curve(self, w) -> np.ndarray:
        """True cost curve: the lowest normalized cost at each ``w`` (the envelope of the true
        cost lines, i.e. of the ROC curve's convex hull)."""
        w = np.atleast_1d(np.asarray(w, dtype=float))
        return self.cost(w, self.cost_threshold(w))

    def _minimize_cost(self, w: np.ndarray) -> np.ndarray:
        """Global minimizer of the cost for any model: the best of a grid of 4000 thresholds
        (quantiles of both classes, dense in the tails), refined by bounded Brent search
        between its grid neighbours, against the trivial thresholds ``+-inf``."""
        u = special.expit(np.linspace(-34.0, 34.0, 2000))
        grid = np.unique(np.concatenate([self.pos.ppf(u), self.neg.ppf(u)]))
        grid = grid[np.isfinite(grid)]
        best = np.argmin(self.cost(w[:, None], grid[None, :]), axis=1)
        out = np.empty(w.size)
        from scipy import optimize

        for k, (wk, j) in enumerate(zip(w, best)):
            lo, hi = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
            found = optimize.minimize_scalar(
                lambda t, wk=wk: float(self.cost(wk, t)),
                bounds=(lo, hi),
                method="bounded",
                options={"xatol": 1e-10 * max(1.0, abs(lo))},
            )
            candidates = [grid[j], float(found.x), np.inf, -np.inf]
            out[k] = min(candidates, key=lambda t, wk=wk: float(self.cost(wk, t)))
        return out

    def label(self) -> str:
        return f"{self.pos.label()}/{self.neg.label()}"


@functools.lru_cache(maxsize=256)
def _ratio_thresholds(model: ScoreModel, q: tuple[float, ...], pi: float) -> tuple[float, ...]:
    """:meth:`ScoreModel.threshold_for_total_positive_ratio`, solved once per model, grid and
    share: the conditions of a study (and the studies of a run) that share a score model share
    its thresholds (a model is a value: equal families and parameters are the same model)."""
    return tuple(model._solve_ratio(qq, pi) for qq in q)


def make_class_distribution(family: str, params) -> ClassDistribution:
    """Build a class distribution from named (mapping) or positional parameters."""
    check_choice(family, FAMILIES, "score model family")
    names, _ = FAMILIES[family]
    if isinstance(params, Mapping):
        if set(params) != set(names):
            raise ValueError(f"{family} takes parameters {names}, got {sorted(params)}")
        values = tuple(float(params[name]) for name in names)
    else:
        values = tuple(float(p) for p in params)
    return ClassDistribution(family, values)


def make_model(family: str, pos, neg) -> ScoreModel:
    """Build a :class:`ScoreModel`, e.g. ``make_model("binormal", {"mu": 1, "sd": 1}, (0, 1))``."""
    return ScoreModel(make_class_distribution(family, pos), make_class_distribution(family, neg))


def draw_test_set(
    model: ScoreModel, n_pos: int, n_neg: int, sampling: str, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, int]:
    """Simulate a test set; returns ``(pos_scores, neg_scores, redraws)``.

    ``stratified`` draws exactly ``n_pos`` and ``n_neg`` scores. ``full`` draws the class of
    each of the ``n = n_pos + n_neg`` instances, ``N+ ~ Bin(n, n_pos/n)``, and redraws the
    class counts while a class is empty; ``redraws`` counts those redraws.
    """
    n_pos, n_neg, redraws = draw_class_counts(n_pos, n_neg, sampling, rng)
    return model.pos.sample(rng, n_pos), model.neg.sample(rng, n_neg), redraws


def draw_class_counts(
    n_pos: int, n_neg: int, sampling: str, rng: np.random.Generator
) -> tuple[int, int, int]:
    """Class sizes of a simulated test set: ``(n_pos, n_neg, redraws)``.

    ``stratified`` keeps ``n_pos`` and ``n_neg`` (and draws nothing); ``full`` draws
    ``N+ ~ Bin(n, n_pos/n)`` again while a class is empty, counting the redraws.
    """
    check_choice(sampling, SCHEMES, "sampling scheme")
    for name, size in (("n_pos", n_pos), ("n_neg", n_neg)):
        if isinstance(size, bool) or int(size) != size or size < 1:
            raise ValueError(f"{name} must be a positive integer, got {size!r}")
    redraws = 0
    if sampling == "full":
        n = n_pos + n_neg
        count = int(rng.binomial(n, n_pos / n))
        while count in (0, n):
            redraws += 1
            count = int(rng.binomial(n, n_pos / n))
        n_pos, n_neg = count, n - count
    return n_pos, n_neg, redraws


@dataclass(frozen=True)
class PairedScoreModel:
    """Two classifiers scoring the same instances (thesis 4.5.2): within each class the two
    scores are bivariate normal with correlation ``rho``, each classifier with its own binormal
    :class:`ScoreModel` as marginals, so every truth is a marginal one.
    """

    first: ScoreModel
    second: ScoreModel
    rho: float

    def __post_init__(self) -> None:
        for model in (self.first, self.second):
            if model.pos.family != "binormal" or model.neg.family != "binormal":
                raise ValueError("paired score models are binormal (correlated normal scores)")
        if not -1.0 <= float(self.rho) <= 1.0:
            raise ValueError(f"rho must lie in [-1, 1], got {self.rho!r}")

    def sample(self, rng: np.random.Generator, n_pos: int, n_neg: int):
        """``(pos1, pos2, neg1, neg2)``: ``pos1[i]``, ``pos2[i]`` score positive ``i``."""
        pos1, pos2 = self.sample_class(rng, "pos", n_pos)
        neg1, neg2 = self.sample_class(rng, "neg", n_neg)
        return pos1, pos2, neg1, neg2

    def sample_class(
        self, rng: np.random.Generator, cls: str, size: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The two classifiers' scores of ``size`` instances of class ``cls`` (``"pos"`` or
        ``"neg"``): bivariate normal, each its classifier's marginal, correlation ``rho``."""
        z = rng.standard_normal((2, size))
        z2 = self.rho * z[0] + np.sqrt(1.0 - self.rho**2) * z[1]
        (mu1, sd1), (mu2, sd2) = (getattr(m, cls).params for m in (self.first, self.second))
        return mu1 + sd1 * z[0], mu2 + sd2 * z2

    def thresholds_for_total_positive_ratio(self, q, pi: float = 0.5, common: bool = False):
        """Threshold pairs ``(t1, t2)``: each classifier its own ``t_q``
        (:ref:`reading-total-positive-ratio`), or both at
        classifier 1's with ``common=True``."""
        t1 = self.first.threshold_for_total_positive_ratio(q, pi)
        t2 = t1 if common else self.second.threshold_for_total_positive_ratio(q, pi)
        return t1, t2

    def differences_at(self, t1, t2) -> tuple[np.ndarray, np.ndarray]:
        """True ``(dTPR, dFPR)`` = classifier 1 at ``t1`` minus classifier 2 at ``t2``."""
        return (self.first.tpr(t1) - self.second.tpr(t2), self.first.fpr(t1) - self.second.fpr(t2))

    def tpr_difference_at_fpr(self, fpr) -> np.ndarray:
        """True ``TPR1 - TPR2`` at FPR ``f``: ``S1+(S1-^{-1}(f)) - S2+(S2-^{-1}(f))``."""
        f = np.asarray(fpr, dtype=float)
        return self.first.pos.sf(self.first.neg.isf(f)) - self.second.pos.sf(
            self.second.neg.isf(f)
        )

    def fpr_difference_at_tpr(self, tpr) -> np.ndarray:
        """True ``FPR1 - FPR2`` at TPR ``s``: ``S1-(S1+^{-1}(s)) - S2-(S2+^{-1}(s))``."""
        s = np.asarray(tpr, dtype=float)
        return self.first.neg.sf(self.first.pos.isf(s)) - self.second.neg.sf(
            self.second.pos.isf(s)
        )

    def label(self) -> str:
        return f"{self.first.label()} vs {self.second.label()}, rho {self.rho:g}"


@dataclass(frozen=True)
class MulticlassScoreModel:
    """Scores of ``classes`` classes, one column per class: an instance's own class's column
    is drawn from ``model.pos``, every other column from ``model.neg``, all independent.

    Every pairwise AUC of Hand & Till (2001), ``A(a|b)`` on column ``a``, and every
    one-vs-rest AUC is then ``model``'s AUC, and so is every average of them: the target of
    a multiclass interval is known whatever the averaging.
    """

    model: ScoreModel
    classes: int

    def __post_init__(self) -> None:
        _check_classes(self.classes)

    def sample(self, rng: np.random.Generator, sizes) -> list[np.ndarray]:
        """The ``(sizes[k], classes)`` score rows of each class ``k``, class by class."""
        c = _check_sizes(self.classes, sizes)
        out = []
        for k, size in enumerate(sizes):
            rows = np.empty((int(size), c))
            for j in range(c):
                part = self.model.pos if j == k else self.model.neg
                rows[:, j] = part.sample(rng, int(size))
            out.append(rows)
        return out

    def label(self) -> str:
        return f"{self.model.label()}, {int(self.classes)} classes"


def _check_classes(classes) -> None:
    if isinstance(classes, bool) or not isinstance(classes, int | np.integer):
        raise ValueError(f"classes must be an integer, got {classes!r}")
    if classes < 3:
        raise ValueError(f"a multiclass model needs classes >= 3, got {classes}")


def _check_sizes(classes: int, sizes) -> int:
    c = int(classes)
    if len(sizes) != c:
        raise ValueError(f"sizes needs one size per class ({c}), got {len(sizes)}")
    return c


def _whole(classes):
    """``classes`` as an ``int`` when it is a whole float (``3.0`` from a model expression)."""
    whole = isinstance(classes, float) and classes.is_integer()
    return int(classes) if whole else classes


def make_multiclass_model(family: str, pos, neg, classes) -> MulticlassScoreModel:
    """:class:`MulticlassScoreModel` of a built-in family (``classes`` may come as a float
    from a model expression, ``3.0``)."""
    return MulticlassScoreModel(make_model(family, pos, neg), _whole(classes))


@dataclass(frozen=True)
class PairedMulticlassScoreModel:
    """Two models scoring the same instances of ``classes`` classes, one column per class
    each: as :class:`MulticlassScoreModel` for each model (an instance's own class's column
    from that model's positive distribution, the others from its negative one, columns
    independent), and within a column the two models' scores of an instance bivariate normal
    with correlation ``paired.rho`` (:meth:`PairedScoreModel.sample_class`).

    Each model's every pairwise and one-vs-rest AUC, hence every average of them, is its
    binary AUC: the target of an interval of the difference is ``AUC1 - AUC2``.
    """

    paired: PairedScoreModel
    classes: int

    def __post_init__(self) -> None:
        if not isinstance(self.paired, PairedScoreModel):
            raise ValueError(
                f"a paired multiclass model needs a PairedScoreModel, got "
                f"{type(self.paired).__name__}"
            )
        _check_classes(self.classes)

    @classmethod
    def of(cls, paired: PairedScoreModel, classes) -> PairedMulticlassScoreModel:
        """The model of ``paired`` over ``classes`` classes (``3.0`` from a model expression
        counts as 3)."""
        return cls(paired, _whole(classes))

    def sample(self, rng: np.random.Generator, sizes) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """``(by_class1, by_class2)``: each the ``(sizes[k], classes)`` score rows of each
        class ``k``, class by class; row ``i`` of ``by_class1[k]`` and ``by_class2[k]`` score
        the same instance."""
        c = _check_sizes(self.classes, sizes)
        first, second = [], []
        for k, size in enumerate(sizes):
            rows1, rows2 = np.empty((int(size), c)), np.empty((int(size), c))
            for j in range(c):
                rows1[:, j], rows2[:, j] = self.paired.sample_class(
                    rng, "pos" if j == k else "neg", int(size)
                )
            first.append(rows1)
            second.append(rows2)
        return first, second

    def label(self) -> str:
        return f"{self.paired.label()}, {int(self.classes)} classes"


def make_paired_model(pos1, neg1, pos2, neg2, rho: float) -> PairedScoreModel:
    """Binormal paired model from ``{"mu", "sd"}`` mappings (or ``(mu, sd)`` pairs)."""
    return PairedScoreModel(
        make_model("binormal", pos1, neg1), make_model("binormal", pos2, neg2), float(rho)
    )
