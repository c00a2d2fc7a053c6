"""Many classifiers' AUCs on the same instances: their joint covariance, and simultaneous
inference on their differences.

The covariance of ``K`` AUCs is DeLong et al.'s (1988) placement-value covariance, or the
exact covariance over stratified bootstrap resamples of the instances (every model's score of
an instance travels with it): both are bilinear forms in the kernels of :mod:`rocsim.core.area`,
so that ``cov[i, j] = (var_i + var_j - var(AUC_i - AUC_j)) / 2`` with the variances of
:func:`rocsim.core.auc_difference_ci`, and the variance of every difference read from the
matrix is that function's. Partial AUCs (McClish-standardised) take DeLong's covariance of the
placement values of their areas (:func:`rocsim.core.partial_area.partial_auc_covariance`;
the paired exact bootstrap law of two partial areas is not built), multiclass AUCs either
covariance of their averages (:func:`rocsim.core.multiclass.multiclass_auc_covariance`): each
difference's variance is again the paired function's.

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
from rocsim.core.area import AUC_METHODS, _difference_kernel, _kernel, polarized_covariance
from rocsim.core.multiclass import multiclass_auc_covariance
from rocsim.core.partial_area import partial_auc_covariance
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

    def difference_variance(i: int, j: int) -> float:
        pair = (pos_scores[i], pos_scores[j], neg_scores[i], neg_scores[j])
        return _difference_kernel(*pair, method)[2].var(method)

    cov = polarized_covariance([k.var(method) for k in kernels], difference_variance)
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
        The models' AUCs (partial: McClish-standardised; multiclass: averaged).
    cov : ndarray of shape (K, K)
        Their joint covariance (``method``'s).
    model1, model2 : ndarray of str
        Each contrast ``AUC(model1) - AUC(model2)``.
    difference, se, low, high, p_value, p_adjusted : ndarray
        Per contrast: the difference, its standard error, the simultaneous interval
        (``adjust``'s), the marginal two-sided p-value and the adjusted one.
    critical_value : float
        The interval's normal critical value (``max-t``'s, Bonferroni's, or the marginal one).
    n_pos, n_neg : int or None
        The classes' sizes of binary AUCs (None for multiclass ones).
    class_sizes : tuple of int
        Multiclass AUCs: each class's size (empty for binary ones).
    kind : str
        Which AUCs: ``"AUCs"``, ``"partial AUCs (FPR 0-0.2, McClish)"``,
        ``"multiclass AUCs (ovr, macro)"``, ...
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
    n_pos: int | None
    n_neg: int | None
    class_sizes: tuple[int, ...] = ()
    kind: str = "AUCs"

    _columns = ("model1", "model2", "difference", "se", "low", "high", "p_value", "p_adjusted")
    _settings = ("confidence_level", "method", "adjust", "critical_value", "kind")

    def _summary(self) -> str:
        sizes = (
            f"n+={self.n_pos}, n-={self.n_neg}"
            if self.n_pos is not None
            else f"n = {', '.join(str(n) for n in self.class_sizes)}"
        )
        return (
            f"{self.difference.size} differences of {len(self.names)} {self.kind} "
            f"({self._level_and_method()}, {self.adjust} adjusted, {sizes})"
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
    rate_range: tuple[float, float] | None = None,
    focus: str = "fpr",
) -> AUCsComparison:
    """Differences of ``K`` models' AUCs on the same instances with simultaneous intervals
    and adjusted p-values (module docstring); or of their partial AUCs.

    Parameters
    ----------
    pos_scores, neg_scores : sequence of K array-likes
        ``pos_scores[k][i]``: model ``k``'s score of positive ``i`` (likewise the negatives).
    names : sequence of K str, optional
    method : {"delong", "exact_bootstrap"}, default "delong"
        A partial AUC takes ``delong`` only
        (:func:`rocsim.core.partial_area.partial_auc_covariance`).
    reference : int, optional
        Compare each model with this one; default: every pair.
    adjust : {"max-t", "holm", "bonferroni", "none"}, default "max-t"
    confidence_level : float, default 0.95
        The family's level (``none``: each contrast's).
    random_state : int or numpy.random.Generator, default 0
        Seeds the Monte Carlo draws of ``max-t``.
    rate_range : (float, float), optional
        The partial AUCs over this range of rates, McClish-standardised; default: the whole
        AUCs.
    focus : {"fpr", "tpr"}, default "fpr"
        The axis of ``rate_range`` (:func:`rocsim.core.partial_area.partial_auc_ci`).

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
    level = _check_settings(method, adjust, confidence_level)
    pos, neg = _check_models(pos_scores, neg_scores)
    names = _check_names(names, len(pos), reference)
    if rate_range is None:
        (aucs, cov), kind = auc_covariance(pos, neg, method), "AUCs"
    else:
        aucs, cov = partial_auc_covariance(pos, neg, rate_range, focus=focus, method=method)
        lo, hi = (float(rate) for rate in rate_range)
        kind = f"partial AUCs ({focus.upper()} {lo:g}-{hi:g}, McClish)"
    sizes = {"n_pos": pos[0].size, "n_neg": neg[0].size, "kind": kind}
    return _compared(aucs, cov, names, reference, adjust, level, random_state, method, sizes)


def multiclass_aucs_comparison(
    models,
    *,
    multi_class: str = "ovo",
    average: str = "macro",
    labels=None,
    names=None,
    method: str = "delong",
    reference: int | None = None,
    adjust: str = "max-t",
    confidence_level: float = 0.95,
    random_state=0,
) -> AUCsComparison:
    """Differences of ``K`` models' multiclass AUCs on the same instances with simultaneous
    intervals and adjusted p-values: :func:`aucs_comparison` on the covariance of
    :func:`rocsim.core.multiclass.multiclass_auc_covariance`.

    Parameters
    ----------
    models : sequence of K sequences of array-like of shape (n_k, c)
        ``models[m][k]``: model ``m``'s score rows of the instances of class ``k``.
    multi_class, average, labels
        As in :func:`rocsim.core.multiclass.multiclass_auc_ci`.
    names, method, reference, adjust, confidence_level, random_state
        As in :func:`aucs_comparison`.

    Returns
    -------
    AUCsComparison

    Examples
    --------
    Three models of three classes of four instances each:

    >>> rng = np.random.default_rng(0)
    >>> models = [[rng.random((4, 3)) for _ in range(3)] for _ in range(3)]
    >>> r = multiclass_aucs_comparison(models, multi_class="ovr", adjust="holm")
    >>> r.kind, r.to_frame()[["model1", "model2"]].values.tolist()[-1]
    ('multiclass AUCs (ovr, macro)', ['model 2', 'model 3'])
    """
    level = _check_settings(method, adjust, confidence_level)
    names = _check_names(names, len(models), reference)
    aucs, cov, sizes = multiclass_auc_covariance(
        models, multi_class=multi_class, average=average, method=method, labels=labels
    )
    fields = {"n_pos": None, "n_neg": None, "class_sizes": tuple(sizes)}
    fields["kind"] = f"multiclass AUCs ({multi_class}, {average})"
    return _compared(aucs, cov, names, reference, adjust, level, random_state, method, fields)


def _compared(
    aucs, cov, names, reference, adjust, level, random_state, method, fields
) -> AUCsComparison:
    """The contrasts of ``aucs`` with their joint covariance ``cov``, tested together;
    ``fields``: the result's sizes and kind."""
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
        **fields,
    )


def _check_settings(method: str, adjust: str, confidence_level: float) -> float:
    """The level, after the checks of ``method`` and ``adjust``."""
    level = check_confidence_level(confidence_level)
    check_choice(method, AUC_METHODS, "method")
    check_choice(adjust, ADJUSTMENTS, "adjust")
    return level


def _check_models(pos_scores, neg_scores) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each model's scores of the same instances as float arrays."""
    if len(pos_scores) != len(neg_scores) or len(pos_scores) < 2:
        raise ValueError(
            "pos_scores and neg_scores must hold the same number of models, at least 2; got "
            f"{len(pos_scores)} and {len(neg_scores)}"
        )
    pos, neg = [], []
    for k in range(1, len(pos_scores)):
        p0, pk, n0, nk = check_paired(pos_scores[0], pos_scores[k], neg_scores[0], neg_scores[k])
        pos, neg = (pos or [p0]) + [pk], (neg or [n0]) + [nk]
    return pos, neg


def _check_names(names, count: int, reference: int | None) -> list[str]:
    """The ``count`` models' names (default ``model 1``, ...), after the check of
    ``reference``."""
    names = [f"model {k + 1}" for k in range(count)] if names is None else [str(n) for n in names]
    if len(names) != count or len(set(names)) != len(names):
        raise ValueError(f"names must be {count} distinct names, got {names!r}")
    if reference is not None and reference not in range(count):
        raise ValueError(f"reference must be a model's index in 0..{count - 1}, got {reference!r}")
    return names


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
