"""Many classifiers' AUCs on the same instances: their joint covariance, and simultaneous
inference on their differences.

The covariance of ``K`` AUCs is DeLong et al.'s (1988) placement-value covariance, or the
exact covariance over stratified bootstrap resamples of the instances (every model's score of
an instance travels with it): both are bilinear forms in the kernels of :mod:`rocsim.core.area`,
so that ``cov[i, j] = (var_i + var_j - var(AUC_i - AUC_j)) / 2`` with the variances of
:func:`rocsim.core.auc_difference_ci`, and the variance of every difference read from the
matrix is that function's.

Contrasts (all pairs, or each model against a reference) are tested together: ``max-t``
(Hothorn, Bretz & Westfall 2008) takes the critical value ``c`` with ``Pr{max_l |Z_l| <= c} =
level`` for ``Z`` normal with the contrasts' correlation, and adjusted p-values
``Pr{max_l |Z_l| >= |z_l|}``; that law has no closed form and is computed by Monte Carlo
(:data:`MAX_T_POINTS` normal draws from ``random_state``): **approximate**, its critical value
checked against Genz's integration of the normal law in ``tests/test_many_aucs.py`` (plain
normal draws rather than scrambled Sobol points, whose import would slow a first call; the
benchmark ``benchmarks/bench_decision.py`` measures it). ``holm`` and ``bonferroni``
adjust the p-values (Holm 1979); their intervals are Bonferroni's (Holm's procedure has no
simultaneous intervals of its own); ``none`` leaves both marginal.

References
----------
DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two
or more correlated receiver operating characteristic curves: a nonparametric approach.
Biometrics 44, 837-845.
Hothorn, T., Bretz, F. & Westfall, P. (2008). Simultaneous inference in general parametric
models. Biometrical Journal 50, 346-363.
Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
Journal of Statistics 6, 65-70.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import special

from rocsim.core._validation import check_choice, check_confidence_level, check_paired
from rocsim.core.area import AUC_METHODS, _difference_kernel, _kernel
from rocsim.core.results import Result

#: Ways :func:`aucs_comparison` adjusts for testing several contrasts.
ADJUSTMENTS = ("max-t", "holm", "bonferroni", "none")

#: Normal draws of the max-t law.
MAX_T_POINTS = 2**18


def auc_covariance(
    pos_scores: list[np.ndarray], neg_scores: list[np.ndarray], method: str = "delong"
) -> tuple[np.ndarray, np.ndarray]:
    """The ``K`` AUCs and their ``K x K`` covariance (``method``: ``delong`` or
    ``exact_bootstrap``), ``pos_scores[k]``, ``neg_scores[k]`` the ``k``-th model's scores of
    the same positives and negatives.

    Examples
    --------
    >>> pos = [np.array([0.9, 0.8, 0.4]), np.array([0.6, 0.8, 0.5])]
    >>> neg = [np.array([0.7, 0.4, 0.1]), np.array([0.7, 0.2, 0.1])]
    >>> aucs, cov = auc_covariance(pos, neg, "exact_bootstrap")
    >>> round(float(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]), 6)  # auc_difference_ci's
    0.034294
    """
    check_choice(method, AUC_METHODS, "method")
    kernels = [_kernel(p, q) for p, q in zip(pos_scores, neg_scores)]
    variances = np.array([k.var(method) for k in kernels])
    cov = np.diag(variances)
    for i, j in combinations(range(len(kernels)), 2):
        _, _, diff = _difference_kernel(
            pos_scores[i], pos_scores[j], neg_scores[i], neg_scores[j], method
        )
        cov[i, j] = cov[j, i] = (variances[i] + variances[j] - diff.var(method)) / 2
    return np.array([k.estimate() for k in kernels]), cov


def contrast_pairs(count: int, reference: int | None = None) -> list[tuple[int, int]]:
    """``(i, j)`` of each difference ``AUC_i - AUC_j``: every pair ``i < j``, or each model
    against ``reference`` (``j = reference``)."""
    if reference is None:
        return list(combinations(range(count), 2))
    return [(i, reference) for i in range(count) if i != reference]


@dataclass(frozen=True, repr=False)
class AUCsComparison(Result):
    """Differences of ``K`` AUCs on the same instances, tested together.

    Attributes
    ----------
    names : tuple of str
        The models, in the order of :attr:`auc` and :attr:`cov`.
    auc : ndarray of shape (K,)
    cov : ndarray of shape (K, K)
        Their joint covariance (``method``'s).
    model1, model2 : ndarray of str
        Each contrast ``AUC(model1) - AUC(model2)``.
    difference, se, low, high, p_value, p_adjusted : ndarray
        Per contrast: the difference, its standard error, the simultaneous interval
        (``adjust``'s), the marginal two-sided p-value and the adjusted one.
    critical_value : float
        The interval's normal critical value (``max-t``'s, Bonferroni's, or the marginal one).
    """

    names: tuple[str, ...]
    auc: np.ndarray
    cov: np.ndarray
    model1: np.ndarray
    model2: np.ndarray
    difference: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    critical_value: float
    confidence_level: float
    method: str
    adjust: str
    n_pos: int
    n_neg: int

    _columns = ("model1", "model2", "difference", "se", "low", "high", "p_value", "p_adjusted")
    _settings = ("confidence_level", "method", "adjust", "critical_value")

    def _summary(self) -> str:
        return (
            f"{self.difference.size} differences of {len(self.names)} AUCs "
            f"({self._level_and_method()}, {self.adjust} adjusted, n+={self.n_pos}, "
            f"n-={self.n_neg})"
        )


def aucs_comparison(
    pos_scores,
    neg_scores,
    *,
    names=None,
    method: str = "delong",
    reference: int | None = None,
    adjust: str = "max-t",
    confidence_level: float = 0.95,
    random_state=0,
) -> AUCsComparison:
    """Differences of ``K`` models' AUCs on the same instances with simultaneous intervals
    and adjusted p-values (module docstring).

    Parameters
    ----------
    pos_scores, neg_scores : sequence of K array-likes
        ``pos_scores[k][i]``: model ``k``'s score of positive ``i`` (likewise the negatives).
    names : sequence of K str, optional
    method : {"delong", "exact_bootstrap"}, default "delong"
    reference : int, optional
        Compare each model with this one; default: every pair.
    adjust : {"max-t", "holm", "bonferroni", "none"}, default "max-t"
    confidence_level : float, default 0.95
        The family's level (``none``: each contrast's).
    random_state : int or numpy.random.Generator, default 0
        Seeds the Monte Carlo draws of ``max-t``.

    Returns
    -------
    AUCsComparison

    Examples
    --------
    >>> pos = [[0.9, 0.8, 0.4, 0.7], [0.6, 0.8, 0.5, 0.3], [0.5, 0.9, 0.6, 0.4]]
    >>> neg = [[0.7, 0.4, 0.1, 0.2], [0.7, 0.2, 0.1, 0.6], [0.3, 0.5, 0.2, 0.1]]
    >>> r = aucs_comparison(pos, neg, adjust="bonferroni")
    >>> r.to_frame()[["model1", "model2", "difference"]].round(4).values.tolist()[0]
    ['model 1', 'model 2', 0.2188]
    """
    level = check_confidence_level(confidence_level)
    check_choice(method, AUC_METHODS, "method")
    check_choice(adjust, ADJUSTMENTS, "adjust")
    pos, neg, names = _check_models(pos_scores, neg_scores, names)
    if reference is not None and reference not in range(len(names)):
        raise ValueError(
            f"reference must be a model's index in 0..{len(names) - 1}, got {reference!r}"
        )
    aucs, cov = auc_covariance(pos, neg, method)
    pairs = contrast_pairs(len(names), reference)
    contrasts = np.zeros((len(pairs), len(names)))
    for row, (i, j) in enumerate(pairs):
        contrasts[row, i], contrasts[row, j] = 1.0, -1.0
    difference = contrasts @ aucs
    se = np.sqrt(np.maximum(np.einsum("lk,km,lm->l", contrasts, cov, contrasts), 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, difference / se, np.where(difference == 0, 0.0, np.inf))
    p_value = 2 * special.ndtr(-np.abs(z))
    critical, p_adjusted = _adjusted(adjust, z, p_value, contrasts, cov, level, random_state)
    return AUCsComparison(
        tuple(names),
        aucs,
        cov,
        np.array([names[i] for i, _ in pairs]),
        np.array([names[j] for _, j in pairs]),
        difference,
        se,
        np.maximum(difference - critical * se, -1.0),
        np.minimum(difference + critical * se, 1.0),
        p_value,
        p_adjusted,
        critical,
        level,
        method,
        adjust,
        pos[0].size,
        neg[0].size,
    )


def _check_models(pos_scores, neg_scores, names):
    """Each model's scores of the same instances as float arrays, and the models' names."""
    if len(pos_scores) != len(neg_scores) or len(pos_scores) < 2:
        raise ValueError(
            "pos_scores and neg_scores must hold the same number of models, at least 2; got "
            f"{len(pos_scores)} and {len(neg_scores)}"
        )
    pos, neg = [], []
    for k in range(1, len(pos_scores)):
        p0, pk, n0, nk = check_paired(pos_scores[0], pos_scores[k], neg_scores[0], neg_scores[k])
        pos, neg = (pos or [p0]) + [pk], (neg or [n0]) + [nk]
    names = (
        [f"model {k + 1}" for k in range(len(pos))] if names is None else [str(n) for n in names]
    )
    if len(names) != len(pos) or len(set(names)) != len(names):
        raise ValueError(f"names must be {len(pos)} distinct names, got {names!r}")
    return pos, neg, names


def _adjusted(adjust: str, z, p_value, contrasts, cov, level: float, random_state):
    """``(critical value, adjusted p-values)`` of ``adjust``."""
    m = p_value.size
    if adjust == "none":
        return float(special.ndtri(0.5 + level / 2)), p_value
    if adjust in ("bonferroni", "holm"):
        critical = float(special.ndtri(1 - (1 - level) / (2 * m)))
        if adjust == "bonferroni":
            return critical, np.minimum(1.0, m * p_value)
        return critical, _holm(p_value)
    maxima = _max_abs_normal(contrasts, cov, random_state)
    critical = float(np.quantile(maxima, level))
    p_adjusted = np.array([np.mean(maxima >= abs(value)) for value in z])
    return critical, p_adjusted


def _normal_points(dimension: int, random_state) -> np.ndarray:
    """:data:`MAX_T_POINTS` draws of the standard normal law in ``dimension`` dimensions from
    ``random_state``; kept for an integer seed (the same draws serve every call with it: a
    study's thousands of data sets)."""
    if isinstance(random_state, int | np.integer):
        return _seeded_normal_points(dimension, int(random_state))
    return np.random.default_rng(random_state).standard_normal((MAX_T_POINTS, dimension))


@functools.lru_cache(maxsize=8)
def _seeded_normal_points(dimension: int, seed: int) -> np.ndarray:
    points = np.random.default_rng(seed).standard_normal((MAX_T_POINTS, dimension))
    points.flags.writeable = False  # shared by every call with this seed
    return points


def _holm(p_value: np.ndarray) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values."""
    m = p_value.size
    order = np.argsort(p_value)
    stepped = np.maximum.accumulate((m - np.arange(m)) * p_value[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def _max_abs_normal(contrasts: np.ndarray, cov: np.ndarray, random_state) -> np.ndarray:
    """``max_l |Z_l|`` at :data:`MAX_T_POINTS` draws of ``Z = C W / sd``,
    ``W ~ N(0, cov)`` (the contrasts standardized; a contrast without spread left out)."""
    values, vectors = np.linalg.eigh(cov)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))  # cov = root @ root.T, PSD allowed
    z = _normal_points(cov.shape[0], random_state) @ (contrasts @ root).T  # (points, contrasts)
    sd = np.sqrt(np.einsum("lk,km,lm->l", contrasts, cov, contrasts))
    kept = sd > 0
    return np.max(np.abs(z[:, kept] / sd[kept]), axis=1) if kept.any() else np.zeros(len(z))
