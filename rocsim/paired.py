"""Two classifiers scored on the same test set: paired ROC comparisons (thesis 4.3.2 and 4.4.2).

``pos1[i]`` and ``pos2[i]`` are the two classifiers' scores of positive ``i`` (likewise for the
negatives); the stratified bootstrap resamples instances, so both scores travel together.

Threshold averaging (eqs. 4.5-4.9, Algorithm 4.2). At a threshold pair ``(t1, t2)`` each
instance of a class falls in one of four cells: judged positive by both classifiers, by the
first only (``b``), by the second only (``c``), or by neither. The bootstrap counts of the
cells are multinomial, so the difference of the true positive rates is
``dTPR = (B - C)/m+`` with ``(B, C)`` two cells of a multinomial: mean ``(b - c)/n+``
(eq. 4.6) and variance ``(g - d^2)/m+`` (eq. 4.7 corrected, ``g = (b + c)/n+``). Its exact law
follows by conditioning on ``S = B + C ~ Bin(m+, g)``: then ``B | S ~ Bin(S, b/(b + c))``.

Vertical averaging (eqs. 4.15-4.17, Algorithm 4.4): see :func:`vertical_difference`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from scipy import special, stats

from rocsim._validation import (
    check_choice,
    check_confidence_level,
    check_paired,
    check_thresholds,
)
from rocsim.counting import count_at_or_above, count_jointly_at_or_above
from rocsim.intervals import (
    AGRESTI_MIN_PSEUDO_COUNT,
    PAIRED_METHODS,
    check_pseudo_count,
    normal_quantile,
    paired_interval_from_counts,
)
from rocsim.vertical import VerticalCI, check_ranks, vertical_distribution

# --- threshold averaging ---------------------------------------------------------------------


def discordant_counts(scores1: np.ndarray, scores2: np.ndarray, t1: np.ndarray,
                      t2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(b, c)``: instances judged positive (score ``>=`` threshold) by the first classifier
    only, and by the second only, at each threshold pair (categories (a) and (b) of 4.3.2)."""
    both = count_jointly_at_or_above(scores1, scores2, t1, t2)
    return count_at_or_above(scores1, t1) - both, count_at_or_above(scores2, t2) - both


def _split_law(b: np.ndarray, c: np.ndarray, n: int, m: int, band: bool = False):
    """Law of ``S = B + C ~ Bin(m, g)`` and the share ``theta = b / (b + c)`` of ``B`` within
    it: ``(s, Pr{S = s}, theta)``. With ``band``, ``s`` is a per-pair window of
    ``g m +- (12 sd + 30)``, outside which the binomial mass is below ``1e-30``."""
    g = (b + c) / n
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(b + c > 0, b / np.maximum(b + c, 1), 0.5)
    s = np.arange(m + 1)[None, :]
    if band:
        half = np.ceil(12 * np.sqrt(m * g * (1 - g)) + 30).astype(np.int64)
        start = np.clip(np.floor(m * g).astype(np.int64) - half, 0, m)
        s = np.minimum(start[:, None] + np.arange(2 * half.max() + 1)[None, :], m)
        # windows clipped at m repeat s = m: count it once
        first = np.diff(s, axis=1, prepend=-1) > 0
        return s, np.where(first, stats.binom.pmf(s, m, g[:, None]), 0.0), theta[:, None]
    return s, stats.binom.pmf(s, m, g[:, None]), theta[:, None]


def difference_tails(b, c, n: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Pr{B - C > 0}``, ``Pr{B - C = 0}``, ``Pr{B - C < 0}`` for ``(B, C)`` two cells of a
    ``Mult(m; b/n, c/n, ...)`` (Algorithm 4.2), summing over ``S = B + C`` within the window of
    ``O(sqrt(m))`` values where its law is not negligible."""
    b, c = np.asarray(b, dtype=float), np.asarray(c, dtype=float)
    s, weight, theta = _split_law(b, c, n, m, band=True)
    # B - C = 2B - S: positive when B >= floor(S/2) + 1, zero when S is even and B = S/2
    above = special.bdtrc(s // 2, s, theta)
    tie = np.where(s % 2 == 0, stats.binom.pmf(s // 2, s, theta), 0.0)
    greater = np.sum(weight * above, axis=1)
    equal = np.sum(weight * tie, axis=1)
    return greater, equal, np.maximum(1.0 - greater - equal, 0.0)


def difference_pmf(b, c, n: int, m: int) -> np.ndarray:
    """``pmf[i, d + m] = Pr{B - C = d}``, ``d = -m..m``, for each pair ``(b[i], c[i])``.

    ``O(m^2)`` per pair: the sum over ``S = B + C`` of ``Bin(S; m, g) Bin((S + d)/2; S, theta)``.
    """
    b, c = np.asarray(b, dtype=float), np.asarray(c, dtype=float)
    _, weight, theta = _split_law(b, c, n, m)
    out = np.zeros((b.size, 2 * m + 1))
    for total in range(m + 1):
        first = np.arange(total + 1)
        cond = stats.binom.pmf(first[None, :], total, theta)
        out[:, 2 * first - total + m] += weight[:, total:total + 1] * cond
    return out


@dataclass(frozen=True)
class ThresholdDifferenceDistribution:
    """Exact stratified bootstrap law of ``dTPR = TPR1(t1) - TPR2(t2)`` and ``dFPR``.

    Attributes
    ----------
    dtpr, dfpr : ndarray
        Observed differences, also the bootstrap means (eq. 4.6).
    var_dtpr, var_dfpr : ndarray
        Bootstrap variances ``(g - d^2)/m`` (eq. 4.7 corrected).
    b_pos, c_pos, b_neg, c_neg : ndarray
        Discordant counts per class.
    """

    t1: np.ndarray
    t2: np.ndarray
    n_pos: int
    n_neg: int
    b_pos: np.ndarray
    c_pos: np.ndarray
    b_neg: np.ndarray
    c_neg: np.ndarray

    @property
    def dtpr(self) -> np.ndarray:
        return (self.b_pos - self.c_pos) / self.n_pos

    @property
    def dfpr(self) -> np.ndarray:
        return (self.b_neg - self.c_neg) / self.n_neg

    @property
    def var_dtpr(self) -> np.ndarray:
        g = (self.b_pos + self.c_pos) / self.n_pos
        return (g - self.dtpr**2) / self.n_pos

    @property
    def var_dfpr(self) -> np.ndarray:
        g = (self.b_neg + self.c_neg) / self.n_neg
        return (g - self.dfpr**2) / self.n_neg

    @cached_property
    def pmf_dtpr(self) -> np.ndarray:
        """``pmf_dtpr[i, d + m+] = Pr{dTPR = d / m+}``, ``d = -m+..m+``."""
        return difference_pmf(self.b_pos, self.c_pos, self.n_pos, self.n_pos)

    @cached_property
    def pmf_dfpr(self) -> np.ndarray:
        """``pmf_dfpr[i, d + m-] = Pr{dFPR = d / m-}``, ``d = -m-..m-``."""
        return difference_pmf(self.b_neg, self.c_neg, self.n_neg, self.n_neg)

    @cached_property
    def dominance(self) -> tuple[np.ndarray, np.ndarray]:
        """``(f1, f2)``: probabilities that classifier 1 (2) dominates the other (eq. 4.5)."""
        tp_gt, tp_eq, tp_lt = difference_tails(self.b_pos, self.c_pos, self.n_pos, self.n_pos)
        fp_gt, fp_eq, fp_lt = difference_tails(self.b_neg, self.c_neg, self.n_neg, self.n_neg)
        both_equal = tp_eq * fp_eq
        f1 = (tp_gt + tp_eq) * (fp_lt + fp_eq) - both_equal
        f2 = (tp_lt + tp_eq) * (fp_gt + fp_eq) - both_equal
        return f1, f2


def threshold_difference_distribution(pos1, pos2, neg1, neg2, t1, t2
                                      ) -> ThresholdDifferenceDistribution:
    """Exact stratified bootstrap law of the paired differences at threshold pairs (4.3.2).

    Parameters
    ----------
    pos1, pos2 : array-like of shape (n+,)
        Scores of the positives by classifiers 1 and 2 (``pos1[i]``, ``pos2[i]``: positive i).
    neg1, neg2 : array-like of shape (n-,)
        Scores of the negatives.
    t1, t2 : array-like of shape (h,)
        Threshold pairs: classifier 1 at ``t1[j]`` against classifier 2 at ``t2[j]``.

    Returns
    -------
    ThresholdDifferenceDistribution

    Examples
    --------
    >>> law = threshold_difference_distribution([3, 2, 1], [3, 0, 2], [0, 1], [1, 0], [2], [2])
    >>> law.dtpr.tolist(), law.pmf_dtpr.round(4).tolist()
    ([0.0], [[0.037, 0.1111, 0.2222, 0.2593, 0.2222, 0.1111, 0.037]])
    """
    pos1, pos2, neg1, neg2 = check_paired(pos1, pos2, neg1, neg2)
    t1, t2 = check_thresholds(t1, "t1"), check_thresholds(t2, "t2")
    if t1.shape != t2.shape:
        raise ValueError(f"t1 and t2 must pair up: shapes {t1.shape} and {t2.shape}")
    b_pos, c_pos = discordant_counts(pos1, pos2, t1, t2)
    b_neg, c_neg = discordant_counts(neg1, neg2, t1, t2)
    return ThresholdDifferenceDistribution(t1, t2, pos1.size, neg1.size, b_pos, c_pos,
                                           b_neg, c_neg)


def dominance_probability(pos1, pos2, neg1, neg2, t1, t2) -> tuple[np.ndarray, np.ndarray]:
    """Exact bootstrap probabilities that one classifier strictly dominates the other (eq. 4.5).

    Classifier 1 dominates at ``(t1, t2)`` when its TPR is ``>=`` and its FPR ``<=`` those of
    classifier 2, not both equal:
    ``f1 = Pr{dTPR >= 0} Pr{dFPR <= 0} - Pr{dTPR = 0} Pr{dFPR = 0}`` (the classes are resampled
    independently), and ``f2`` symmetrically. ``O(n)`` per threshold pair (Algorithm 4.2).

    Returns
    -------
    f1, f2 : ndarray of shape (h,)

    Examples
    --------
    >>> f1, f2 = dominance_probability([3, 2, 1], [3, 0, 2], [0, 1], [1, 0], [2], [2])
    >>> round(float(f1[0]), 4), round(float(f2[0]), 4)
    (0.3704, 0.3704)
    """
    return threshold_difference_distribution(pos1, pos2, neg1, neg2, t1, t2).dominance


@dataclass(frozen=True)
class ThresholdDifferenceCI:
    """Rectangles for ``(dFPR, dTPR)`` at threshold pairs; each axis at ``sqrt(level)``."""

    t1: np.ndarray
    t2: np.ndarray
    dtpr: np.ndarray
    dfpr: np.ndarray
    dtpr_low: np.ndarray
    dtpr_high: np.ndarray
    dfpr_low: np.ndarray
    dfpr_high: np.ndarray
    confidence_level: float
    method: str


def threshold_difference_ci(pos1, pos2, neg1, neg2, t1, t2, confidence_level: float = 0.95,
                            method: str = "score", pseudo_count: float | None = None
                            ) -> ThresholdDifferenceCI:
    """Confidence rectangles for the paired differences ``(dFPR, dTPR)`` at threshold pairs.

    Parameters
    ----------
    pos1, pos2, neg1, neg2 : array-like
        The two classifiers' scores of the same positives and negatives.
    t1, t2 : array-like of shape (h,)
        Threshold pairs.
    confidence_level : float, default 0.95
        Level of the rectangle; each axis gets ``sqrt(confidence_level)`` (thesis 4.5.2).
    method : {"score", "wald", "agresti"}, default "score"
        Paired-difference interval (see :func:`rocsim.paired_difference_ci`): ``score`` is
        eq. 4.8 with the nuisance of eq. 4.9.
    pseudo_count : float, optional
        For ``agresti`` (Agresti-Min, default 1/2 per cell).

    Returns
    -------
    ThresholdDifferenceCI
        ``dtpr, dfpr`` and the bounds ``dtpr_low, dtpr_high, dfpr_low, dfpr_high``.

    Examples
    --------
    >>> ci = threshold_difference_ci([3, 2, 1, 5], [3, 0, 2, 4], [0, 1, 2], [1, 0, 3], [2], [2],
    ...                              confidence_level=0.9)
    >>> ci.dtpr.tolist(), ci.dfpr.round(4).tolist()
    ([0.0], [0.0])
    """
    level = check_confidence_level(confidence_level)
    check_choice(method, PAIRED_METHODS, "paired interval method")
    a = check_pseudo_count(method, pseudo_count, AGRESTI_MIN_PSEUDO_COUNT)
    law = threshold_difference_distribution(pos1, pos2, neg1, neg2, t1, t2)
    axis = float(np.sqrt(level))
    tpr = paired_interval_from_counts(law.b_pos, law.c_pos, law.n_pos, axis, method, a)
    fpr = paired_interval_from_counts(law.b_neg, law.c_neg, law.n_neg, axis, method, a)
    return ThresholdDifferenceCI(law.t1, law.t2, law.dtpr, law.dfpr, tpr.low, tpr.high,
                                 fpr.low, fpr.high, level, method)


# --- vertical averaging ----------------------------------------------------------------------

#: Counts of at most ``SMALL_COUNT - 1`` draws (in a set or in its complement) are summed
#: exactly by :func:`_small_count_table`; in between, ``algorithm="hybrid"`` uses a Gaussian
#: copula. With ``n- <= 2 * SMALL_COUNT`` every rank is covered, so the result is exact.
SMALL_COUNT = 30

VERTICAL_DIFFERENCE_ALGORITHMS = ("auto", "exact", "hybrid")

# marginal probabilities this close to 0 or 1 are treated as 0 or 1 (error <= 1e-15 per pair)
_NEGLIGIBLE = 1e-15


def _bivariate_normal_cdf(h: np.ndarray, k: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """``Pr{X <= h, Y <= k}`` for standard normals with correlation ``rho`` (Owen 1956, via
    Owen's T: accurate to rounding for every ``|rho| < 1``)."""
    root = np.sqrt(np.maximum(1.0 - rho * rho, 1e-300))
    with np.errstate(divide="ignore", invalid="ignore"):
        a_h = (k - rho * h) / (h * root)
        a_k = (h - rho * k) / (k * root)
    offset = np.where((h * k < 0) | ((h * k == 0) & (h + k < 0)), 0.5, 0.0)
    value = (0.5 * special.ndtr(h) + 0.5 * special.ndtr(k) - special.owens_t(h, a_h)
             - special.owens_t(k, a_k) - offset)
    origin = 0.25 + np.arcsin(np.clip(rho, -1, 1)) / (2 * np.pi)
    return np.where((h == 0) & (k == 0), origin, value)


def _floored_logs(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log p`` and ``log(1 - p)`` floored at ``-1e300``, so that ``0 * log 0 = 0`` (a sure
    outcome keeps probability 1) and sums of a few such terms stay finite."""
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(p), -1e300), np.maximum(np.log1p(-p), -1e300)


def _log_comb(m: np.ndarray, size: int) -> np.ndarray:
    """``out[..., k] = log C(m, k)`` for ``k < size`` (``-inf`` for ``k > m``), as sums of
    ``log((m - t)/(t + 1))``: ``gammaln(m + 1) - ...`` would lose ``m * eps`` to cancellation."""
    t = np.arange(size - 1)
    with np.errstate(divide="ignore"):
        steps = np.log(np.maximum(np.asarray(m, dtype=float)[..., None] - t, 0)) - np.log1p(t)
    return np.concatenate([np.zeros((*np.shape(m), 1)), np.cumsum(steps, axis=-1)], axis=-1)


@dataclass(frozen=True)
class _CountTableCoefficients:
    """What :func:`_small_count_table` needs that depends on ``(n, size)`` only: the
    polynomial coefficients ``poly[branch][x, i * size + j]`` (odds-ratio powers ``x``, cells
    ``(i, j)``), ``log C(n, i)`` and ``below[(i, j), u] = 1{max(i, j) <= u}``, which sums the
    joint pmf into the table."""

    poly: tuple[np.ndarray, np.ndarray]
    log_comb: np.ndarray
    below: np.ndarray


@lru_cache(maxsize=16)
def _count_table_coefficients(n: int, size: int) -> _CountTableCoefficients:
    i, j, x = np.ogrid[:size, :size, :size]
    low = np.minimum(i, j)
    # K[i, j, x] = C(i, x) C(n - i, j - x): x of the i draws in A also in B, j - x of the
    # n - i others in B (Fisher's noncentral hypergeometric weights); at most C(n, size) 2^size
    inside = _log_comb(np.arange(size), size)[i, x]
    outside = _log_comb(n - np.arange(size), size)[i, np.clip(j - x, 0, None)]
    poly_up = np.where(x <= low, np.exp(inside + outside), 0.0)
    # odds ratio > 1: the same polynomial in 1/odds, read from the top power min(i, j) down
    top = np.clip(low - x, 0, None).astype(int)
    poly_down = np.where(x <= low, np.take_along_axis(poly_up, top, axis=-1), 0.0)
    flat = (size * size, size)
    cells = np.arange(size)
    return _CountTableCoefficients(
        poly=(poly_up.reshape(flat).T.copy(), poly_down.reshape(flat).T.copy()),
        log_comb=_log_comb(n, size),
        below=(np.maximum(cells[:, None], cells[None, :]).ravel()[:, None] <= cells).astype(float),
    )


def _toeplitz(v: np.ndarray, size: int) -> np.ndarray:
    """View ``out[p, i, j] = v[p, i - j + size - 1]`` of ``v`` with ``2 size - 1`` columns."""
    return np.lib.stride_tricks.sliding_window_view(v, size, axis=1)[:, :, ::-1]


#: Pairs per block in :func:`_small_count_table` (bounds its memory to ~size^2 * 24 bytes each).
_TABLE_BLOCK = 2048


def _small_count_table(n: int, a, b, c, size: int) -> np.ndarray:
    """``out[..., u] = Pr{N_A <= u, N_B <= u}`` for ``u = 0 .. size - 1``, exactly.

    ``N_A``, ``N_B`` count the ``n`` uniform draws among ``n`` negatives that fall in sets of
    sizes ``a``, ``b`` with ``|A & B| = c`` (``size <= ceil(n / 2)``). Condition on
    ``N_A = i ~ Bin(n, a/n)`` (pmf ``b(i)``): ``N_B = X + Z`` with independent
    ``X ~ Bin(i, rho)``, ``rho = c/a``, and ``Z ~ Bin(n - i, tau)``, ``tau = (b - c)/(n - a)``,
    so with ``K[i, j, x] = C(i, x) C(n - i, j - x)`` and the odds ratio
    ``omega = rho (1 - tau) / ((1 - rho) tau)``

    ``Pr{N_A = i, N_B = j} = b(i) (1-rho)^i (1-tau)^(n-i) (tau/(1-tau))^j sum_x K[i,j,x] omega^x``.

    For ``omega > 1`` the sum is taken in ``1/omega`` from its top power ``min(i, j)``, and the
    prefactor becomes ``b(i) rho^i (1-tau)^(n-i) E(i - j)`` with ``E(d) = ((1-rho)/rho)^d``
    for ``d >= 0`` and ``(tau/(1-tau))^-d`` below. ``K`` depends on ``(n, size)`` only, so the
    sums for every pair are one matrix product; the prefactor is a product of per-pair vectors
    (``O(size)`` exponentials per pair); a third matrix product sums the cells
    ``max(i, j) <= u``. Every term is positive (no cancellation), powers of the odds ratio are
    at most 1, ratios at most ``n`` (so nothing overflows for ``n^size < 1e300``). ``O(size^3)``
    per pair, in BLAS.
    """
    a, b, c = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, c)))
    shape = a.shape
    a, b, c = a.ravel(), b.ravel(), c.ravel()
    coef = _count_table_coefficients(int(n), int(size))
    rho = np.where(a > 0, c / np.maximum(a, 1), 0.0)
    tau = np.where(a < n, (b - c) / np.maximum(n - a, 1), 0.0)
    rise, fall = rho * (1 - tau), (1 - rho) * tau
    down = rise > fall  # omega > 1, hence rho > 0 and tau < 1
    ratio = np.where(down, fall, rise) / np.where(down, rise, np.where(fall > 0, fall, 1.0))
    (la, l1a), (lr, l1r), (lt, l1t) = (_floored_logs(v) for v in (a / n, rho, tau))
    k = np.arange(size)
    shift = np.arange(2 * size - 1) - (size - 1)  # d = i - j
    out = np.zeros((a.size, size))
    # tau = 1 puts all n - i draws outside A in B: N_B >= n - size + 1 >= size, so out = 0
    for branch, rows in enumerate((np.flatnonzero(~down & (tau < 1)), np.flatnonzero(down))):
        for block in np.array_split(rows, -(-rows.size // _TABLE_BLOCK)) if rows.size else ():
            joint = ((ratio[block, None] ** k) @ coef.poly[branch]).reshape(-1, size, size)
            log_row = (coef.log_comb + la[block, None] * k + l1a[block, None] * (n - k)
                       + (lr, l1r)[branch == 0][block, None] * k + l1t[block, None] * (n - k))
            joint *= np.exp(log_row)[:, :, None]
            odds_tau = (lt - l1t)[block, None]
            if branch == 0:
                joint *= np.exp(odds_tau * k)[:, None, :]
            else:
                steps = np.where(shift >= 0, (l1r - lr)[block, None] * shift, -odds_tau * shift)
                joint *= _toeplitz(np.exp(steps), size)
            out[block] = joint.reshape(block.size, -1) @ coef.below
    return np.minimum(out, 1.0).reshape(*shape, size)


#: Up to this many negatives the marginals of :func:`_binomial_below` are cached as whole rows.
_CACHED_ROWS = 5000


@lru_cache(maxsize=64)
def _binomial_rows(n: int, u: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    below = special.bdtr(np.asarray(u)[:, None], n, np.arange(n + 1) / n)
    return below, special.ndtri(below)


def _binomial_below(n: int, u: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``out[k, j] = Pr{Bin(n, a_j/n) <= u_k}`` and its standard normal quantile, for integer
    ``a``. They depend on ``(n, u, a)`` only, so up to ``_CACHED_ROWS`` negatives the rows over
    every ``a`` are computed once per grid of ranks and shared by every data set of a
    simulation."""
    u = np.asarray(u, dtype=np.int64)
    if n <= _CACHED_ROWS:
        below, probit = _binomial_rows(n, tuple(u.tolist()))
        return below[:, a], probit[:, a]
    below = special.bdtr(u[:, None], n, np.asarray(a)[None, :] / n)
    return below, special.ndtri(below)


def _copula_below(n: int, h, k, a, b, c) -> np.ndarray:
    """``Pr{N_A <= u, N_B <= u}`` approximated by the exact binomial marginals of ``N_A`` and
    ``N_B`` (normal quantiles ``h``, ``k``) joined by a Gaussian copula with their multinomial
    correlation: one bivariate normal CDF per pair. For marginals strictly inside (0, 1)."""
    pa, pb, pab = a / n, b / n, c / n
    rho = (pab - pa * pb) / np.sqrt(pa * (1 - pa) * pb * (1 - pb))
    return _bivariate_normal_cdf(h, k, np.clip(rho, -1.0, 1.0))


#: Pairs of threshold values evaluated at once by :meth:`_JointThresholdLaw.moments`.
_PAIR_BLOCK = 1 << 21


class _JointThresholdLaw:
    """``L_k(a, b) = Pr{N_A <= u_k, N_B <= u_k}`` at the ranks ``u_k = r_k - 1`` for the value
    grid ``a_values x b_values`` (sorted integers) with overlaps
    ``overlap[i, j] = |A_{a_i} & B_{b_j}|``: exact tables where ``u`` or ``n - 1 - u`` is below
    ``small`` (complement sets turn the upper end into small counts), the Gaussian copula of
    :func:`_copula_below` in between. Tables are built once, for the part of the grid where the
    marginals are not negligible, and serve every rank.

    Where a marginal is negligible (within ``1e-15`` of 0 or 1) no joint law is needed:
    ``L = 0`` if either is ~0, the other marginal if one is ~1; the pairs with both marginals
    *open* form, at each rank, a block of the grid.
    """

    def __init__(self, n: int, a_values, b_values, overlap, small: int, ranks):
        # with small = ceil(n/2) the two tables already cover every rank
        self.n, self.small = n, min(small, -(-n // 2))
        self.a, self.b, self.c = a_values, b_values, overlap
        self.u = np.asarray(ranks, dtype=np.int64) - 1
        # looser than the test for an open marginal, so that every pair found open has a
        # table entry despite rounding
        u_low, keep = [self.small - 1], _NEGLIGIBLE * 1e-3
        keep_a = _binomial_below(n, u_low, a_values)[0][0] > keep
        keep_b = _binomial_below(n, u_low, b_values)[0][0] > keep
        self.low = self._table(keep_a, keep_b, a_values, b_values, overlap)
        # Pr{N_A > u, N_B > u} = Pr{N_A' <= n - 1 - u, N_B' <= n - 1 - u} for the complements
        keep_a = _binomial_below(n, u_low, n - a_values)[0][0] > keep
        keep_b = _binomial_below(n, u_low, n - b_values)[0][0] > keep
        self.high = self._table(keep_a, keep_b, n - a_values, n - b_values,
                                n - a_values[:, None] - b_values[None, :] + overlap)
        self.below_a, self.probit_a = _binomial_below(n, self.u, a_values)
        self.below_b, self.probit_b = _binomial_below(n, self.u, b_values)
        self.sure_a = self.below_a >= 1 - _NEGLIGIBLE
        self.sure_b = self.below_b >= 1 - _NEGLIGIBLE
        self.open_a = ~self.sure_a & (self.below_a > _NEGLIGIBLE)
        self.open_b = ~self.sure_b & (self.below_b > _NEGLIGIBLE)

    def _table(self, keep_a, keep_b, a, b, c):
        rows, cols = np.flatnonzero(keep_a), np.flatnonzero(keep_b)
        index_a = np.full(keep_a.size, -1)
        index_b = np.full(keep_b.size, -1)
        index_a[rows], index_b[cols] = np.arange(rows.size), np.arange(cols.size)
        grid = _small_count_table(self.n, a[rows][:, None], b[cols][None, :],
                                  c[np.ix_(rows, cols)], self.small)
        return index_a, index_b, grid

    def values(self, k: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """``L_k(a_ia, b_ib)`` elementwise, for pairs with both marginals open."""
        n, u = self.n, self.u[k]
        out = np.empty(k.shape)
        low, high = u < self.small, n - 1 - u < self.small
        index_a, index_b, grid = self.low
        out[low] = grid[index_a[ia[low]], index_b[ib[low]], u[low]]
        high &= ~low
        index_a, index_b, grid = self.high
        both_above = grid[index_a[ia[high]], index_b[ib[high]], n - 1 - u[high]]
        kh, ah, bh = k[high], ia[high], ib[high]
        out[high] = np.clip(self.below_a[kh, ah] + self.below_b[kh, bh] - 1 + both_above, 0, 1)
        mid = ~low & ~high
        km, am, bm = k[mid], ia[mid], ib[mid]
        out[mid] = _copula_below(n, self.probit_a[km, am], self.probit_b[km, bm],
                                 self.a[am], self.b[bm], self.c[am, bm])
        return out

    def _open_blocks(self, ranks: np.ndarray):
        """Every open pair at the ranks ``ranks`` (indices into ``u``): ``(k, ia, ib)`` flat,
        rank by rank, row-major within a rank, and each rank's offset into them."""
        count_a = self.open_a[ranks].sum(axis=1)
        count_b = self.open_b[ranks].sum(axis=1)
        list_a = np.nonzero(self.open_a[ranks])[1]
        list_b = np.nonzero(self.open_b[ranks])[1]
        start_a, start_b = np.cumsum(count_a) - count_a, np.cumsum(count_b) - count_b
        sizes = count_a * count_b
        offset = np.cumsum(sizes) - sizes
        which = np.repeat(np.arange(ranks.size), sizes)
        local = np.arange(sizes.sum()) - offset[which]
        ia = list_a[start_a[which] + local // np.maximum(count_b[which], 1)]
        ib = list_b[start_b[which] + local % np.maximum(count_b[which], 1)]
        return ranks[which], ia, ib, offset, count_b

    def _rank_groups(self) -> list[np.ndarray]:
        sizes = self.open_a.sum(axis=1) * self.open_b.sum(axis=1)
        group = np.cumsum(sizes) // _PAIR_BLOCK
        return [np.flatnonzero(group == g) for g in np.unique(group)]

    def moments(self, weight_a, weight_b, pairs) -> tuple[np.ndarray, np.ndarray]:
        """Per rank, ``sum_{a,b} w_a w_b L(a, b)`` and ``mean_i L(a_i, b_i)``."""
        below_a, below_b, sure_a, sure_b = self.below_a, self.below_b, self.sure_a, self.sure_b
        product = ((sure_a @ weight_a) * (below_b @ weight_b)
                   + ((below_a * self.open_a) @ weight_a) * (sure_b @ weight_b))
        pa, pb = pairs
        diagonal = np.where(sure_a[:, pa], below_b[:, pb],
                            np.where(sure_b[:, pb], below_a[:, pa], 0.0))
        # a pair open in both is a cell of its rank's block: row = rank among the open a's
        row = np.cumsum(self.open_a, axis=1) - 1
        col = np.cumsum(self.open_b, axis=1) - 1
        for ranks in self._rank_groups():
            k, ia, ib, offset, width = self._open_blocks(ranks)
            value = self.values(k, ia, ib)
            product[ranks] += np.bincount(k - ranks[0], weight_a[ia] * weight_b[ib] * value,
                                          minlength=ranks.size)[ranks - ranks[0]]
            kk, ii = np.nonzero(self.open_a[ranks][:, pa] & self.open_b[ranks][:, pb])
            flat = offset[kk] + row[ranks[kk], pa[ii]] * width[kk] + col[ranks[kk], pb[ii]]
            diagonal[ranks[kk], ii] = value[flat]
        return product, diagonal.mean(axis=1)

    def grid(self, k: int) -> np.ndarray:
        """``L_k`` on the whole value grid."""
        out = np.where(self.sure_a[k][:, None], self.below_b[k][None, :],
                       np.where(self.sure_b[k][None, :], self.below_a[k][:, None], 0.0))
        _, ia, ib, _, _ = self._open_blocks(np.array([k]))
        out[ia, ib] = self.values(np.full(ia.shape, k), ia, ib)
        return out


def _overlaps(order1_rank2: np.ndarray, a_values: np.ndarray, b_values: np.ndarray) -> np.ndarray:
    """``c[i, j] = |A_{a_i} & B_{b_j}|`` where ``A_a`` is the top ``a`` negatives of classifier 1
    and ``B_b`` of classifier 2; ``order1_rank2[t]`` is the classifier-2 rank (0-based) of the
    ``t``-th best negative of classifier 1. ``O(n + |a| |b|)`` by a 2-D histogram."""
    n = order1_rank2.size
    a_sorted, b_sorted = np.unique(a_values), np.unique(b_values)
    # negative t is in A_a iff t < a; in B_b iff rank2 < b
    row = np.searchsorted(a_sorted, np.arange(n), side="right")
    col = np.searchsorted(b_sorted, order1_rank2, side="right")
    hist = np.zeros((a_sorted.size + 1, b_sorted.size + 1))
    np.add.at(hist, (row, col), 1.0)
    table = np.cumsum(np.cumsum(hist, axis=0), axis=1)[:-1, :-1]
    return table[np.searchsorted(a_sorted, a_values)][:, np.searchsorted(b_sorted, b_values)]


@dataclass(frozen=True)
class VerticalDifference:
    """Stratified bootstrap moments of ``dTPR = TPR1 - TPR2`` at the FPRs ``r / m-``.

    Attributes
    ----------
    r, fpr : ndarray
    mean, var : ndarray
        ``E[dTPR]`` (exact for every algorithm) and ``Var[dTPR]``.
    discordance : ndarray
        ``E[g]``, the bootstrap mean share of positives on which the classifiers disagree.
    algorithm : str
        ``exact`` or ``hybrid``.
    """

    r: np.ndarray
    fpr: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    discordance: np.ndarray
    m_pos: int
    algorithm: str
    _pmf: np.ndarray | None = None

    @property
    def pmf(self) -> np.ndarray:
        """``pmf[i, d + m+] = Pr{dTPR = d / m+}`` (exact algorithm only, eq. 4.17)."""
        if self._pmf is None:
            raise NotImplementedError("the pmf of dTPR is computed only by "
                                      "vertical_difference(..., algorithm='exact', pmf=True)")
        return self._pmf


def vertical_difference(pos1, pos2, neg1, neg2, r, algorithm: str = "auto",
                        pmf: bool = False) -> VerticalDifference:
    """Stratified bootstrap law of ``dTPR = TPR1 - TPR2`` at FPR ``r / n-`` (Algorithm 4.4).

    In a resample, ``T1`` and ``T2`` are the ``r``-th largest resampled negative scores under
    each classifier (the same resampled negatives). Given the thresholds, ``dTPR`` is a paired
    multinomial difference with conditional mean ``q1 - q2`` and variance
    ``(q1 + q2 - 2 q12 - (q1 - q2)^2)/m+``, where ``q1``, ``q2`` are the shares of positives
    reaching ``T1``, ``T2`` and ``q12`` the share reaching both. Hence

    - ``E[dTPR] = E[q1(T1)] - E[q2(T2)]`` needs only each threshold's own law (eq. 4.11);
    - ``Var[dTPR] = Var[TPR1] + Var[TPR2] - 2 Cov``, with the single-design variances
      (eqs. 4.13-4.14) and ``Cov = (1 - 1/m+) E[q1 q2] + E[q12]/m+ - E[q1] E[q2]``.

    The two joint expectations need the joint law of the thresholds only through
    ``L(a, b) = Pr{T1 <= x, T2 <= y} = Pr{N_A <= r - 1, N_B <= r - 1}`` with ``A``, ``B`` the
    negatives scoring above ``x`` (classifier 1) and ``y`` (classifier 2): it depends on
    ``|A|, |B|, |A & B|`` only (SPEC section 4). By summation by parts
    ``E[q12] = (1/n+) sum_i L(a_i, b_i)`` and ``E[q1 q2] = (1/n+^2) sum_{i,l} L(a_i, b_l)``, where
    ``a_i`` (``b_i``) counts the negatives scoring strictly above positive ``i`` under classifier
    1 (2). Only distinct values of ``a`` and ``b`` are visited, and only where both marginals
    ``Pr{N_A <= r - 1}``, ``Pr{N_B <= r - 1}`` are in ``(1e-15, 1 - 1e-15)`` (the band of
    width ``O(sqrt(n))`` around ``r``); elsewhere ``L`` is 0 or a marginal.

    Algorithm and complexity (``h`` FPRs, ``w`` values of ``a`` and ``b`` in the band,
    ``s = SMALL_COUNT = 30``):

    - ``L`` by exact tables (:func:`_small_count_table`) wherever ``r - 1 < s`` or
      ``n- - r < s``: conditional on ``N_A``, ``N_B`` is a sum of two independent binomials,
      whose joint pmf is a polynomial in one odds ratio with coefficients that depend on
      ``(n-, s)`` only, so every pair of values is summed by matrix products; for complements
      the same with ``n - a``, ``n - b``. ``O(s^3)`` per pair of values, once for all ranks.
    - between, ``algorithm="hybrid"``: exact binomial marginals joined by a Gaussian copula with
      the multinomial correlation of ``(N_A, N_B)``, one bivariate normal CDF (Owen's T) per pair.
      ``O(h w^2)`` in all, ``w = O(sqrt(n))``: linear in ``n`` for a fixed grid of FPRs.
    - ``algorithm="exact"`` widens the tables to cover every rank (``s = ceil(n-/2)``):
      ``O(n^3)`` per pair of values, ``O(n^5)`` at worst; meant for ``n- <= 100``. It is the
      default (``auto``) for ``n- <= 2 s = 60``, where the hybrid is exact anyway.

    Error of the hybrid: the mean is exact. The copula misses the lattice dependence of the two
    counts, which matters most when they are small (hence the exact tables there: with the
    copula alone the variance was up to 19% off at n = 20 and 8% at n = 100). Against the exact
    variance on paired binormal data (correlation 0.3-0.95 between the classifiers, n = 70-150
    per class, every rank) the hybrid is within 1.7%; against a Monte Carlo bootstrap
    (``B = 10^5``) at n = 200 and 1000 within 1.0% and 2.1 MCSE (``benchmarks/
    results_paired.md``). Time per data set, 99 FPRs: 0.03-0.05 s at n = 100, 0.35 s at
    n = 1000 and 3.5-4 s at n = 10^4 per class (growth exponent about 1.1,
    ``benchmarks/results.md``), mostly bivariate normal CDFs. The thesis's Algorithm 4.4 is
    ``O(n^4)`` per FPR.

    Parameters
    ----------
    pos1, pos2, neg1, neg2 : array-like
        ``pos1[i]``, ``pos2[i]``: the two classifiers' scores of positive ``i``.
    r : array-like of int
        FPR ranks, ``1 <= r <= n- - 1``.
    algorithm : {"auto", "exact", "hybrid"}, default "auto"
        ``auto``: exact when ``n- <= 2 * SMALL_COUNT``, else hybrid.
    pmf : bool, default False
        Also compute the exact pmf (``algorithm="exact"`` only; ``O(n^4)`` per FPR).

    Returns
    -------
    VerticalDifference
        ``mean``, ``var`` (and ``pmf`` when requested).

    References
    ----------
    Gadoury (2009), section 4.4.2, eqs. 4.15-4.17, Algorithm 4.4.

    Examples
    --------
    >>> law = vertical_difference([3, 2, 1, 5], [3, 0, 2, 4], [0, 1, 2], [1, 0, 3], [1, 2])
    >>> law.algorithm, law.mean.round(4).tolist()
    ('exact', [0.2407, 0.1852])
    """
    pos1, pos2, neg1, neg2 = check_paired(pos1, pos2, neg1, neg2)
    check_choice(algorithm, VERTICAL_DIFFERENCE_ALGORITHMS, "vertical difference algorithm")
    ranks = check_ranks(r, neg1.size)
    n_pos, n_neg = pos1.size, neg1.size
    if algorithm == "auto":
        algorithm = "exact" if n_neg <= 2 * SMALL_COUNT else "hybrid"
    if pmf and algorithm != "exact":
        raise ValueError("pmf=True needs algorithm='exact'")
    law1 = vertical_distribution(pos1, neg1, ranks)
    law2 = vertical_distribution(pos2, neg2, ranks)
    # a_i: negatives strictly above positive i, so {T1 <= pos1[i]} = {N_A <= r - 1}
    order1 = np.argsort(-neg1, kind="stable")
    order2 = np.argsort(-neg2, kind="stable")
    a_i = np.searchsorted(-neg1[order1], -pos1, side="left")
    b_i = np.searchsorted(-neg2[order2], -pos2, side="left")
    rank2 = np.empty(n_neg, dtype=np.int64)
    rank2[order2] = np.arange(n_neg)
    a_values, a_count = np.unique(a_i, return_counts=True)
    b_values, b_count = np.unique(b_i, return_counts=True)
    small = -(-n_neg // 2) if algorithm == "exact" else SMALL_COUNT
    joint = _JointThresholdLaw(n_neg, a_values, b_values,
                               _overlaps(rank2[order1], a_values, b_values), small, ranks)
    pairs = (np.searchsorted(a_values, a_i), np.searchsorted(b_values, b_i))
    product, joint12 = joint.moments(a_count / n_pos, b_count / n_pos, pairs)
    mean1, mean2 = law1.mean, law2.mean
    exact_pmf = _exact_pmf(a_i, b_i, rank2[order1], ranks, n_pos, n_neg) if pmf else None
    cov = (1 - 1 / n_pos) * product + joint12 / n_pos - mean1 * mean2
    var = np.maximum(law1.var + law2.var - 2 * cov, 0.0)
    discordance = mean1 + mean2 - 2 * joint12
    return VerticalDifference(ranks, ranks / n_neg, mean1 - mean2, var, discordance, n_pos,
                              algorithm, exact_pmf)


#: Interval methods of :func:`vertical_difference_ci`.
VERTICAL_DIFFERENCE_METHODS = ("score", "wald")


@dataclass(frozen=True)
class VerticalDifferenceCI(VerticalCI):
    """Pointwise intervals for ``dTPR`` at the FPRs ``r / m-`` (bounds clipped to [-1, 1]),
    and the algorithm of :func:`vertical_difference` that gave the moments."""

    algorithm: str


def vertical_difference_ci(pos1, pos2, neg1, neg2, r, confidence_level: float = 0.95,
                           method: str = "score", algorithm: str = "auto"
                           ) -> VerticalDifferenceCI:
    """Confidence intervals for ``TPR1 - TPR2`` at FPR ``r / m-`` from the exact bootstrap moments.

    With ``e``, ``v`` the bootstrap mean and variance of :func:`vertical_difference`:

    - ``wald``: ``e +- z sqrt(v)``;
    - ``score``: the paired score interval (eq. 4.8, nuisance smoothed as in eq. 4.9) with the
      bootstrap variance in place of the multinomial one:
      ``(e +- z sqrt(v + (gamma (1 + z^2/m+) - E[g]) / m+)) / (1 + z^2 / m+)``, where ``E[g]``
      is the expected share of discordant positives and ``gamma = (m+ E[g] + 2)/(m+ + 4)`` its
      smoothed value (``v`` contains ``E[g]/m+``; the smoothing swaps it for ``gamma/m+``).
      This is our reading: the thesis gives eq. 4.8 for fixed thresholds and the Gaussian
      interval of Algorithm 4.4 without a formula; when the thresholds are sure it reduces to
      :func:`rocsim.paired_difference_ci` (``method="score"``).

    Parameters
    ----------
    pos1, pos2, neg1, neg2 : array-like
        Paired scores, as in :func:`vertical_difference`.
    r : array-like of int
        FPR ranks, ``1 <= r <= n- - 1``.
    confidence_level : float, default 0.95
    method : {"score", "wald"}, default "score"
    algorithm : {"auto", "exact", "hybrid"}, default "auto"
        Passed to :func:`vertical_difference`.

    Returns
    -------
    VerticalDifferenceCI

    Examples
    --------
    >>> ci = vertical_difference_ci([3, 2, 1, 5], [3, 0, 2, 4], [0, 1, 2], [1, 0, 3], [1], 0.9)
    >>> ci.mean.round(4).tolist(), ci.low.round(3).tolist(), ci.high.round(3).tolist()
    ([0.2407], [-0.227], [0.514])
    """
    level = check_confidence_level(confidence_level)
    check_choice(method, VERTICAL_DIFFERENCE_METHODS, "vertical difference interval method")
    law = vertical_difference(pos1, pos2, neg1, neg2, r, algorithm)
    z, m = normal_quantile(level), law.m_pos
    e, v = law.mean, law.var
    if method == "wald":
        low, high = e - z * np.sqrt(v), e + z * np.sqrt(v)
    else:
        gamma = (m * law.discordance + 2) / (m + 4)
        half = z * np.sqrt(np.maximum(v + (gamma * (1 + z * z / m) - law.discordance) / m, 0.0))
        low, high = (e - half) / (1 + z * z / m), (e + half) / (1 + z * z / m)
    return VerticalDifferenceCI(law.r, law.fpr, e, v, np.clip(low, -1, 1), np.clip(high, -1, 1),
                                level, method, law.algorithm)


def _exact_pmf(a_i, b_i, order1_rank2, ranks, n_pos: int, n_neg: int) -> np.ndarray:
    """Eq. 4.17: ``h_r(d) = sum_{k,j} f_r(k, j) g_{k,j}(d)`` over every threshold-rank pair.

    ``f_r`` is the 2-D difference of ``S(k, j) = Pr{K1 >= k, K2 >= j} = L(k - 1, j - 1)``;
    ``g_{k,j}`` is the paired multinomial difference law at the thresholds ``(s1_(k), s2_(j))``.
    With ties, ranks inside a block of equal scores split that block's mass arbitrarily, but
    ``g`` is constant on the block, so the sum is exact.
    """
    grid = np.arange(n_neg + 1)
    joint = _JointThresholdLaw(n_neg, grid, grid,
                               _overlaps(order1_rank2, grid, grid), -(-n_neg // 2), ranks)
    # positives reaching s1_(k) and s2_(j): a_i <= k - 1 and b_i <= j - 1
    reach = np.zeros((n_neg + 1, n_neg + 1))
    np.add.at(reach, (a_i, b_i), 1.0)
    table = np.cumsum(np.cumsum(reach, axis=0), axis=1)
    both = table[:-1, :-1]
    first = table[:-1, -1:] - both  # q1 n+ - q12 n+: reach s1_(k) but not s2_(j)
    second = table[-1:, :-1] - both
    out = np.zeros((ranks.size, 2 * n_pos + 1))
    for idx in range(ranks.size):
        survival = joint.grid(idx)
        survival[n_neg, :] = 0.0  # K1 >= n- + 1 is impossible
        survival[:, n_neg] = 0.0
        f = survival[:-1, :-1] - survival[1:, :-1] - survival[:-1, 1:] + survival[1:, 1:]
        keep = f > 0
        laws = difference_pmf(first[keep], second[keep], n_pos, n_pos)
        out[idx] = f[keep] @ laws
    return out
