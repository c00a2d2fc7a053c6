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
from scipy import special

from rocsim.core._deprecated import module_getattr
from rocsim.core._validation import (
    as_real_array,
    check_broadcastable,
    check_confidence_level,
    check_counts,
)
from rocsim.core.binomial import binomial_ppf
from rocsim.core.methods import (
    PROBE_LEVEL,
    MethodProtocol,
    check_method,
    checked_bounds,
    method_name,
)
from rocsim.core.results import Result, clip_bounds

#: Default pseudo-count of the ``agresti`` method for one proportion (thesis Table 5.1).
AGRESTI_PSEUDO_COUNT = 2.0

#: Default pseudo-count of ``agresti`` for a paired difference (Agresti & Min 2005; Table 5.2).
AGRESTI_MIN_PSEUDO_COUNT = 0.5


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


def normal_quantile(confidence_level: float) -> float:
    """Two-sided normal critical value ``z_{1 - alpha/2}`` for ``alpha = 1 - level``."""
    return float(special.ndtri(0.5 + confidence_level / 2.0))


def _wald(x, n, level, a):
    """Wald interval, thesis eq. 4.1."""
    p = x / n
    half = normal_quantile(level) * np.sqrt(p * (1.0 - p) / n)
    return p - half, p + half


def _score(x, n, level, a):
    """Wilson score interval, thesis eq. 4.2 with the radicand of Algorithm 4.1 line 12."""
    z = normal_quantile(level)
    p = x / n
    z2 = z * z
    centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n)
    half = z * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / (1.0 + z2 / n)
    # In exact arithmetic the bounds are 0 at p = 0 and 1 at p = 1; do not leave rounding noise
    return np.where(p <= 0.0, 0.0, centre - half), np.where(p >= 1.0, 1.0, centre + half)


def _agresti(x, n, level, a):
    """Wald after adding ``a`` successes and ``a`` failures (thesis Table 5.1).

    With ``a = z^2 / 2`` this is the Agresti-Coull interval.
    """
    return _wald(x + a, n + 2.0 * a, level, None)


def _clopper_pearson(x, n, level, a):
    """Clopper-Pearson interval from beta quantiles (exact binomial tails)."""
    tail = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore"):
        low = np.where(x > 0, special.betaincinv(x, n - x + 1.0, tail), 0.0)
        high = np.where(x < n, special.betaincinv(x + 1.0, n - x, 1.0 - tail), 1.0)
    return low, high


def _jeffreys(x, n, level, a):
    """Jeffreys interval; bounds 0 at ``x = 0`` and 1 at ``x = n`` (Brown, Cai & DasGupta 2001)."""
    tail = (1.0 - level) / 2.0
    low = np.where(x > 0, special.betaincinv(x + 0.5, n - x + 0.5, tail), 0.0)
    high = np.where(x < n, special.betaincinv(x + 0.5, n - x + 0.5, 1.0 - tail), 1.0)
    return low, high


#: Slack below each tail probability, so that a quantile the CDF reaches exactly does not move
#: up by rounding (the same as the vertical percentile interval's).
QUANTILE_SLACK = 1e-12


def _percentile(x, n, level, a):
    """Exact bootstrap percentile interval of the rate ``x / n``: the equal-tailed quantiles of
    ``Bin(n, x/n) / n``, the law of the rate over resamples of the ``n`` instances. Needs an
    integer ``n`` (under the full bootstrap the law of a rate is a mixture, not a binomial)."""
    n = np.asarray(n, dtype=float)
    if np.any(n != np.round(n)):
        raise ValueError(
            "the percentile interval needs whole class sizes (the stratified bootstrap); "
            "got an effective size"
        )
    tail = (1.0 - level) / 2.0
    p = np.clip(np.asarray(x, dtype=float) / n, 0.0, 1.0)
    low = binomial_ppf(tail - QUANTILE_SLACK, n, p)
    high = binomial_ppf(1.0 - tail - QUANTILE_SLACK, n, p)
    return low / n, high / n


Formula = Callable[[np.ndarray, np.ndarray, float, float | None], tuple[np.ndarray, np.ndarray]]

#: Method name -> formula ``(x, n, confidence_level, pseudo_count) -> (low, high)``, unclipped.
PROPORTION_METHODS: dict[str, Formula] = {
    "wald": _wald,
    "score": _score,
    "agresti": _agresti,
    "jeffreys": _jeffreys,
    "clopper_pearson": _clopper_pearson,
    "percentile": _percentile,
}


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
    method: str, pseudo_count: float | None, default: float = AGRESTI_PSEUDO_COUNT
) -> float | None:
    """Resolve the pseudo-count: ``default`` for ``agresti``, ``None`` for other methods."""
    if pseudo_count is None:
        return default if method == "agresti" else None
    if method != "agresti":
        raise ValueError(
            f"pseudo_count applies to method='agresti' only, not {method_name(method)!r}"
        )
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


def _paired_wald(b, c, n, level, a):
    """``d +- z sqrt((g - d^2)/n)``: eq. 4.7 with the variance of a multinomial difference
    (the thesis prints ``g + d^2``)."""
    d, g = (b - c) / n, (b + c) / n
    half = normal_quantile(level) * np.sqrt(np.maximum(g - d * d, 0.0) / n)
    return d - half, d + half


def _paired_score(b, c, n, level, a):
    """Score interval of eq. 4.8 with the smoothed nuisance ``(b + c + 2)/(n + 4)`` (eq. 4.9)."""
    z2 = normal_quantile(level) ** 2
    d = (b - c) / n
    gamma = (b + c + 2.0) / (n + 4.0)
    shrink = 1.0 + z2 / n
    half = np.sqrt(z2 * np.maximum(gamma * shrink - d * d, 0.0) / n)
    return (d - half) / shrink, (d + half) / shrink


def _agresti_min(b, c, n, level, a):
    """Wald after adding ``a`` to each of the four cells of the paired 2x2 table
    (Agresti & Min 2005; thesis Table 5.2)."""
    return _paired_wald(b + a, c + a, n + 4.0 * a, level, None)


def _bonett_price(b, c, n, level, a):
    """Wald interval with the pseudo-frequencies of Bonett & Price (2012): one is added to each
    discordant cell and two to ``n``, ``p12 = (b + 1)/(n + 2)``, ``p21 = (c + 1)/(n + 2)``,
    centred on ``p12 - p21`` with variance ``(p12 + p21 - (p12 - p21)^2)/(n + 2)`` (the
    "Bonett-Price" interval of Fagerland, Lydersen & Laake 2014, their adjustment: +1 to the
    discordant cells only, not +1/2 to all four cells as in Agresti & Min).

    Centred on the shrunk ``p12 - p21``, it holds ``d`` for every table with ``n >= 1`` if and
    only if ``z^2 >= 3/2`` (confidence level above about 0.78): the condition is tightest at
    ``|b - c| = b + c = n``, where it reads ``z^2 >= (n + 2)/(n + 1)``."""
    p12, p21 = (b + 1.0) / (n + 2.0), (c + 1.0) / (n + 2.0)
    centre = p12 - p21
    half = normal_quantile(level) * np.sqrt(
        np.maximum(p12 + p21 - centre * centre, 0.0) / (n + 2.0)
    )
    return centre - half, centre + half


#: Bisection halvings for the Tango limits: a bracket of width <= 2 shrinks below 2**-53.
_TANGO_STEPS = 54


def _tango_lower(b, c, n, z):
    """Lower Tango limit: the root of ``T(delta) = z`` in ``[-1, d]``, by vectorised bisection.

    Tango's (1998) score statistic for the hypothesis ``p12 - p21 = delta`` is
    ``T = (b - c - n delta) / sqrt(n (2 q + delta (1 - delta)))``, where ``q`` is the restricted
    MLE of ``p21``, the larger root of ``A q^2 + B q + C`` with ``A = 2n``,
    ``B = -b - c + (2n - b + c) delta`` and ``C = -c delta (1 - delta)``. On ``[-1, d]`` the
    numerator is >= 0 and ``T`` falls from ``+inf`` to 0, so ``T <= z`` is tested squared,
    without a division. The bracket ``[lo, hi]`` keeps ``T(lo) > z`` and ``T(hi) <= z``
    (``hi`` starts at ``d``) and ``lo`` is returned: the limit is -1 exactly when ``c = n``
    and never exceeds ``d``. ``T`` is only evaluated strictly inside ``(-1, d)``; a variance
    rounded below zero (next to -1) counts as outside.
    """
    slope_b, minus_b0 = 2.0 * n - b + c, b + c  # B = slope_b delta - minus_b0
    lo = np.full(np.shape(b), -1.0)
    hi = (b - c) / n
    for _ in range(_TANGO_STEPS):
        mid = 0.5 * (lo + hi)
        w = mid * (1.0 - mid)
        big_b = slope_b * mid - minus_b0
        # |B| + sqrt(B^2 - 4AC) (no cancellation); q = (root - B)/(2A) cancels when B > 0,
        # where its conjugate form -2C/(root + B) is used instead
        s = np.abs(big_b) + np.sqrt(np.maximum(big_b * big_b + 8.0 * n * c * w, 0.0))
        q = np.where(big_b > 0.0, 2.0 * c * w / s, s / (4.0 * n))
        numerator = b - c - n * mid
        inside = numerator * numerator <= z * z * n * (2.0 * q + w)
        lo = np.where(inside, lo, mid)
        hi = np.where(inside, mid, hi)
    return lo


def _tango(b, c, n, level, a):
    """Tango's (1998) asymptotic score interval: every ``delta`` with ``|T(delta)| <= z``
    (:func:`_tango_lower`); the two limits bracket ``d`` by construction. Swapping
    ``b`` and ``c`` negates ``delta``, so the upper limit is minus the lower limit of the
    swapped table, and both come from one vectorised bisection."""
    b, c, n = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (b, c, n)))
    with np.errstate(divide="ignore", invalid="ignore"):
        limits = _tango_lower(
            np.stack([b, c]), np.stack([c, b]), np.stack([n, n]), normal_quantile(level)
        )
    return limits[0], -limits[1]


#: Method name -> formula ``(b, c, n, confidence_level, pseudo_count) -> (low, high)`` for the
#: difference ``(b - c)/n`` of two paired proportions (``b``, ``c``: discordant counts).
PAIRED_METHODS: dict[str, Callable] = {
    "wald": _paired_wald,
    "score": _paired_score,
    "agresti": _agresti_min,
    "tango": _tango,
    "bonett_price": _bonett_price,
}


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
    method : {"tango", "score", "wald", "agresti", "bonett_price"} or callable, default "tango"
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
    a = check_pseudo_count(method, pseudo_count, AGRESTI_MIN_PSEUDO_COUNT)
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
