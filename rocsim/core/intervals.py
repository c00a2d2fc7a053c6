"""Confidence intervals for a binomial proportion, dispatched by method name.

One table, :data:`PROPORTION_METHODS`, maps each method name to its formula; every study and
every exact bootstrap law in rocsim reads its intervals from it (the statsmodels
``proportion_confint`` / scipy ``binomtest`` pattern).

The sizes ``n`` may be non-integer: under the full bootstrap the law of a rate is a mixture of
scaled binomials, summarised by an *effective* size ``1 / E[1/N]`` (see
:mod:`rocsim.core.threshold`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from rocsim.core._deprecated import module_getattr
from rocsim.core._validation import (
    as_real_array,
    check_broadcastable,
    check_confidence_level,
    check_counts,
)
from rocsim.core.methods import (
    PROBE_LEVEL,
    MethodProtocol,
    check_method,
    checked_bounds,
    method_name,
)
from rocsim.core.registry import default_pseudo_count, formulas, pseudo_count_methods
from rocsim.core.results import Result, clip_bounds


@dataclass(frozen=True, repr=False)
class ProportionCI(Result):
    """Bounds of one or many proportion intervals; unpacks as ``low, high``.

    Attributes
    ----------
    low, high : ndarray
        Bounds, clipped to [0, 1] ([-1, 1] for a paired difference).
    clipped : ndarray of bool
        Where the formula's interval reached outside those limits and was clipped.
    confidence_level : float or None
    method : str or None
        Set by the public functions (:func:`proportion_ci`, :func:`paired_difference_ci`).
    """

    low: np.ndarray
    high: np.ndarray
    clipped: np.ndarray
    confidence_level: float | None = None
    method: str | None = None

    _columns = ("low", "high", "clipped")

    def _column_values(self) -> dict:
        # any shape broadcast from x and n: one row per interval
        return {k: np.ravel(getattr(self, k)) for k in self._columns}

    def _summary(self) -> str:
        if np.size(self.low) == 1:
            low, high = float(np.ravel(self.low)[0]), float(np.ravel(self.high)[0])
            return f"interval [{low:.4g}, {high:.4g}] ({self._level_and_method()})"
        return f"{np.size(self.low)} intervals ({self._level_and_method()})"

    def __iter__(self) -> Iterator[np.ndarray]:
        yield self.low
        yield self.high


Formula = Callable[[np.ndarray, np.ndarray, float, float | None], tuple[np.ndarray, np.ndarray]]

#: Method name -> formula ``(x, n, confidence_level, pseudo_count) -> (low, high)``, unclipped
#: (:mod:`rocsim.core.registry`, kind ``proportion``).
PROPORTION_METHODS: dict[str, Formula] = formulas("proportion")


def _proportion_probe():
    x = np.array([0.0, 1.0, 5.0, 9.0, 10.0])
    return (x, np.full(5, 10.0), PROBE_LEVEL), (5,)


def _paired_probe():
    b, c = np.array([0.0, 3.0, 1.0, 4.0]), np.array([0.0, 1.0, 3.0, 4.0])
    return (b, c, np.full(4, 10.0), PROBE_LEVEL), (4,)


#: How a proportion method is called (:mod:`rocsim.core.methods`).
PROPORTION_PROTOCOL = MethodProtocol(
    "proportion", "f(x, n, confidence_level) -> (low, high)", _proportion_probe
)
#: How a method for the difference of two paired proportions is called.
PAIRED_PROTOCOL = MethodProtocol(
    "paired", "f(b, c, n, confidence_level) -> (low, high)", _paired_probe
)


def check_proportion_method(method: str | Callable) -> str | Callable:
    """``method`` if it names a proportion method or is a function ``f(x, n, confidence_level)
    -> (low, high)`` (:mod:`rocsim.core.methods`); otherwise ``ValueError`` listing the names."""
    return check_method(method, PROPORTION_METHODS, PROPORTION_PROTOCOL, "interval method")


def proportion_formula(method: str | Callable) -> Formula:
    """The formula ``(x, n, confidence_level, pseudo_count) -> (low, high)`` of a checked
    method: a row of :data:`PROPORTION_METHODS`, or the user's function (which takes no
    pseudo-count)."""
    if isinstance(method, str):
        return PROPORTION_METHODS[method]
    return lambda x, n, level, a: checked_bounds(method, method(x, n, level), _shape(x, n))


def paired_formula(method: str | Callable) -> Callable:
    """The formula ``(b, c, n, confidence_level, pseudo_count) -> (low, high)`` of a checked
    paired method: a row of :data:`PAIRED_METHODS`, or the user's function."""
    if isinstance(method, str):
        return PAIRED_METHODS[method]
    return lambda b, c, n, level, a: checked_bounds(
        method, method(b, c, n, level), _shape(b, c, n)
    )


def _shape(*arrays) -> tuple[int, ...]:
    """The shape the bounds of a method on ``arrays`` have: their broadcast."""
    return np.broadcast_shapes(*(np.shape(a) for a in arrays))


def check_paired_method(method: str | Callable) -> str | Callable:
    """``method`` if it names a paired-difference method or is a function
    ``f(b, c, n, confidence_level) -> (low, high)``; otherwise ``ValueError``."""
    return check_method(method, PAIRED_METHODS, PAIRED_PROTOCOL, "paired interval method")


#: Largest pseudo-count accepted: far beyond any sensible adjustment, far below overflow.
MAX_PSEUDO_COUNT = 1e300


def check_pseudo_count(
    method: str | Callable, pseudo_count: float | None, kind: str = "proportion"
) -> float | None:
    """Resolve the pseudo-count of ``kind``'s ``method``: its default
    (:mod:`rocsim.core.registry`) when not given, ``None`` for a method that takes none."""
    default = default_pseudo_count(kind, method)
    if pseudo_count is None:
        return default
    if default is None:
        takes = " or ".join(f"method={name!r}" for name in pseudo_count_methods(kind))
        raise ValueError(f"pseudo_count applies to {takes} only, not {method_name(method)!r}")
    return pseudo_count_value(pseudo_count)


def pseudo_count_value(pseudo_count) -> float:
    """``pseudo_count`` checked: a finite number in ``[0, MAX_PSEUDO_COUNT]``."""
    arr = as_real_array(pseudo_count, "pseudo_count")
    if arr.ndim != 0:
        raise ValueError(f"pseudo_count must be a number, got shape {arr.shape}")
    value = float(arr)
    # beyond MAX_PSEUDO_COUNT the adjusted size n + 2c overflows and the interval is garbage
    if not np.isfinite(value) or not 0 <= value <= MAX_PSEUDO_COUNT:
        raise ValueError(
            f"pseudo_count must be a finite number in [0, {MAX_PSEUDO_COUNT:g}], "
            f"got {pseudo_count!r}"
        )
    return value


def interval_from_counts(
    x: np.ndarray, n: np.ndarray, confidence_level: float, method: str, pseudo_count
) -> ProportionCI:
    """Clipped interval for validated inputs: the fast path used inside rocsim."""
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = proportion_formula(method)(x, n, confidence_level, pseudo_count)
    return ProportionCI(*clip_bounds(low, high, (0.0, 1.0)))


def proportion_ci(
    x,
    n,
    *,
    confidence_level: float = 0.95,
    method: str = "score",
    pseudo_count: float | None = None,
) -> ProportionCI:
    """Confidence interval for a binomial proportion ``x / n``.

    Parameters
    ----------
    x : array-like
        Successes, ``0 <= x <= n`` (non-integer values are allowed for effective counts).
    n : array-like
        Trials, ``n > 0``; broadcast against ``x``.
    confidence_level : float, default 0.95
        Coverage the interval aims at, in (0, 1).
    method : str or callable, default "score"
        A name of :data:`PROPORTION_METHODS`:
        ``wald`` is thesis eq. 4.1; ``score`` is Wilson's interval (eq. 4.2); ``agresti`` adds
        ``pseudo_count`` to each cell before Wald (thesis Table 5.1; ``z^2/2`` gives
        Agresti-Coull); ``jeffreys`` and ``clopper_pearson`` are the beta-quantile intervals;
        ``percentile``: equal-tailed quantiles of ``Bin(n, x/n) / n`` (the exact bootstrap
        percentile interval; whole ``n`` only);
        a callable ``f(x, n, confidence_level) -> (low, high)`` is a method of your own
        (:mod:`rocsim.core.methods`).
    pseudo_count : float, optional
        Pseudo-count of ``agresti`` (default 2); only valid with that method.

    Returns
    -------
    ProportionCI
        ``low`` and ``high`` arrays clipped to [0, 1] and a ``clipped`` mask; unpacks as
        ``low, high = proportion_ci(...)``.

    References
    ----------
    Brown, Cai & DasGupta (2001), Interval estimation for a binomial proportion.
    Agresti & Coull (1998). Gadoury (2009), section 4.2 and Table 5.1.

    Examples
    --------
    >>> low, high = proportion_ci(0, 10000, confidence_level=0.9 ** 0.5)
    >>> float(low), round(float(high), 8)
    (0.0, 0.00037965)
    """
    level = check_confidence_level(confidence_level)
    method = check_proportion_method(method)
    a = check_pseudo_count(method, pseudo_count)
    x_arr, n_arr = check_counts(x, "x"), check_counts(n, "n")
    check_broadcastable(x=x_arr, n=n_arr)
    if np.any(n_arr <= 0):
        raise ValueError("n must be > 0")
    if np.any(x_arr < 0) or np.any(x_arr > n_arr):
        raise ValueError("x must satisfy 0 <= x <= n")
    bounds = interval_from_counts(x_arr, n_arr, level, method, a)
    return replace(bounds, confidence_level=level, method=method_name(method))


# --- difference of paired proportions ------------------------------------------------------------


#: Method name -> formula ``(b, c, n, confidence_level, pseudo_count) -> (low, high)`` for the
#: difference ``(b - c)/n`` of two paired proportions (``b``, ``c``: discordant counts;
#: :mod:`rocsim.core.registry`, kind ``paired``).
PAIRED_METHODS: dict[str, Callable] = formulas("paired")


def paired_interval_from_counts(
    b, c, n, confidence_level: float, method: str, pseudo_count
) -> ProportionCI:
    """Interval for validated counts, clipped to [-1, 1]: the fast path used inside rocsim."""
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = paired_formula(method)(b, c, n, confidence_level, pseudo_count)
    return ProportionCI(*clip_bounds(low, high, (-1.0, 1.0)))


def paired_difference_ci(
    b,
    c,
    n,
    *,
    confidence_level: float = 0.95,
    method: str = "tango",
    pseudo_count: float | None = None,
) -> ProportionCI:
    """Confidence interval for the difference ``(b - c)/n`` of two paired proportions.

    Two classifiers judge the same ``n`` instances; ``b`` are judged positive by the first only
    and ``c`` by the second only (the discordant cells), so the difference of their positive
    rates is ``d = (b - c)/n``.

    Parameters
    ----------
    b, c : array-like
        Discordant counts, ``b, c >= 0`` and ``b + c <= n``.
    n : array-like
        Pairs, ``n > 0``; broadcast against ``b`` and ``c``.
    confidence_level : float, default 0.95
    method : {'tango', 'score', 'wald', 'agresti', 'bonett_price'} or callable, default 'tango'
        The default contains the observed difference for every table; the thesis's ``score``
        (its studies' method) can exclude it (at ``b = n``, for one).
        ``wald``: ``d +- z sqrt((g - d^2)/n)``, ``g = (b + c)/n`` (eq. 4.7 corrected);
        ``score``: eq. 4.8 with the smoothed nuisance ``(b + c + 2)/(n + 4)`` of eq. 4.9;
        ``agresti``: Agresti & Min (2005), Wald after adding ``pseudo_count`` to each cell;
        ``tango``: Tango's (1998) asymptotic score interval, every ``delta`` whose score
        statistic ``|b - c - n delta| / sqrt(n (2 q + delta (1 - delta)))`` is at most ``z``,
        ``q`` the MLE of the ``c`` cell probability given ``delta``; always contains ``d``,
        reaches 1 when ``b = n`` and -1 when ``c = n``;
        ``bonett_price``: Bonett & Price (2012), Wald with pseudo-frequencies as in Fagerland,
        Lydersen & Laake (2014): ``p12 = (b + 1)/(n + 2)``, ``p21 = (c + 1)/(n + 2)``,
        ``p12 - p21 +- z sqrt((p12 + p21 - (p12 - p21)^2)/(n + 2))`` (one added to each
        discordant cell only, not 1/2 to all four cells as in ``agresti``); below a level of
        about 0.78 (``z^2 < 3/2``) it can exclude ``d`` when ``b`` or ``c`` is near ``n``;
        a callable ``f(b, c, n, confidence_level) -> (low, high)`` is a method of your own.
    pseudo_count : float, optional
        For ``agresti`` (default 1/2).

    Returns
    -------
    ProportionCI
        ``low, high`` clipped to [-1, 1] and the ``clipped`` mask; unpacks as ``low, high``.

    References
    ----------
    Gadoury (2009), eqs. 4.6-4.9 and Table 5.2; Agresti & Min (2005), Simple improved
    confidence intervals for comparing matched proportions, Statistics in Medicine 24.
    Tango (1998), Equivalence test and confidence interval for the difference in proportions
    for the paired-sample design, Statistics in Medicine 17:891-908.
    Bonett & Price (2012), Adjusted Wald confidence interval for a difference of binomial
    proportions based on paired data, Journal of Educational and Behavioral Statistics
    37:479-488.
    Fagerland, Lydersen & Laake (2014), Recommended tests and confidence intervals for paired
    binomial proportions, Statistics in Medicine 33:2850-2875.

    Examples
    --------
    >>> low, high = paired_difference_ci(12, 4, 100, confidence_level=0.9, method="wald")
    >>> round(float(low), 4), round(float(high), 4)
    (0.0155, 0.1445)
    """
    level = check_confidence_level(confidence_level)
    method = check_paired_method(method)
    a = check_pseudo_count(method, pseudo_count, "paired")
    b_arr, c_arr, n_arr = (check_counts(v, name) for v, name in ((b, "b"), (c, "c"), (n, "n")))
    check_broadcastable(b=b_arr, c=c_arr, n=n_arr)
    if np.any(n_arr <= 0):
        raise ValueError("n must be > 0")
    if np.any(b_arr < 0) or np.any(c_arr < 0) or np.any(b_arr + c_arr > n_arr):
        raise ValueError("discordant counts must satisfy b, c >= 0 and b + c <= n")
    bounds = paired_interval_from_counts(b_arr, c_arr, n_arr, level, method, a)
    return replace(bounds, confidence_level=level, method=method_name(method))


# the names these had before rocsim.core spoke one vocabulary (rocsim.core._deprecated)
__getattr__ = module_getattr(__name__)
