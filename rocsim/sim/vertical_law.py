"""Expected width and coverage of the vertical-averaging interval from the laws of the test set.

:func:`rocsim.sample_size` (``averaging="vertical"``) needs, at each candidate size, the
expected width and the coverage of the interval :func:`rocsim.core.vertical_ci` gives at the
FPR rank ``r``. This module computes them from the score model, without drawing a test set.

The test set. ``n+`` positives and ``n-`` negatives come from a score model whose true ROC
curve is ``R(u) = S+(S-^-1(u))``. With the negatives sorted decreasingly, the ``c``-th largest
sits at ``S-^-1(V_c)``, ``V_c`` the ``c``-th smallest of ``n-`` uniforms:
``V_c ~ Beta(c, n- - c + 1)`` and, for ``c < d``, ``V_d = V_c + (1 - V_c) B`` with
``B ~ Beta(d - c, n- - d + 1)`` independent of ``V_c`` (David & Nagaraja). Given the ``V``'s,
the count ``K_c`` of positives scoring at least the ``c``-th largest negative is
``Bin(n+, R(V_c))``, and ``K_d - K_c ~ Bin(n+, R(V_d) - R(V_c))`` (nested counts).

The interval. At the rank ``r`` the stratified exact bootstrap (``m = m+ = n+``) mixes the
shares ``q_c = K_c / n+`` with weights ``w_c`` that depend on ``n-`` and ``r`` only
(:func:`rocsim.core.mixture.rank_weights`; Gadoury 2009, eqs. 4.10-4.14): mean
``e = sum_c w_c q_c``, spread ``D = sum_c w_c (q_c - e)^2`` and variance
``v = e (1 - e) / m + (1 - 1/m) D``. ``score``, ``wald`` and ``agresti`` are functions of
``(e, D)`` (:data:`LAW_METHODS`).

Exact part (:func:`law_moments`): with ``m_c = E[R(V_c)]``, ``s_c = Var R(V_c)`` and, for
``c < d``, ``Delta_cd = Var(R(V_d) - R(V_c))``,

- ``E[e] = sum_c w_c m_c``;
- ``Var(e) = (sum_{c,d} w_c w_d m_min(c,d) - E[e]^2) / n+ + (1 - 1/n+) Var(Y)``, with
  ``Var(Y) = Var(sum_c w_c R(V_c)) = sum_c w_c s_c - T`` and
  ``T = sum_{c<d} w_c w_d Delta_cd``;
- ``E[D] = (1 - 1/n+) T + (L - M) / n+ + M``, ``L = sum_{c<d} w_c w_d (m_d - m_c)``,
  ``M = sum_c w_c (m_c - E[e])^2``.

These are finite sums of 1-D and 2-D integrals against Beta laws, over the band of ranks
with a weight (a few ``sqrt(r)`` around ``r``). ``m_c`` and ``s_c``: one composite
Gauss-Legendre grid in ``logit(u)``, shared by every rank of the band (panels no wider than
the local standard deviation of the order statistics); on a long band, at Chebyshev points
of the rank and interpolated. ``Delta_cd``: a tensor Gauss-Hermite rule in the normal scores
``Phi^-1(F(x))`` of ``V_c`` and of ``B`` (``F`` their Beta CDFs; smooth where a Beta law is
skewed and where ``R`` is not, at 0 and 1); every pair directly on a short band, else a
Chebyshev table over the pairs (the log-odds of ``c``, the share of the way from ``c`` to
the band's end), and ``T = sum_c w_c Phi(c)`` with ``Phi(c) = sum_{d>c} w_d Delta_cd`` at
ranks near Chebyshev points, interpolated. The accuracy reached (against independent
quadratures, a brute force over every pair and Monte Carlo over test sets) is checked by
``tests/test_vertical_sample_size_law.py``.

Approximate part (:func:`law_width_coverage`): ``E[width]`` and ``Pr{low <= tau <= high}`` are
not finite sums. ``D`` is taken as a Gamma variable (Satterthwaite) with its exact mean and
the variance ``2 tr((A S)^2) + 4 g' S g`` it would have if ``q`` were Gaussian with its exact
mean ``m`` and covariance ``S`` (``A = diag(w) - w w'``, ``g = A m``; ``S_cd = (m_min(c,d) -
m_c m_d) / n+ + (1 - 1/n+) Cov(R(V_c), R(V_d))``), and ``e`` given ``D`` as normal with
``e``'s exact mean and variance and the Gaussian ``Cov(e, D) = 2 w' S g`` (linear
regression on ``D``). Width and coverage are then integrals over ``(e, D)``: Gauss-Laguerre
in ``D``; in ``e``, Gauss-Legendre between the points where a bound is clipped, and the
normal CDF between the roots of the quadratic that says when the interval holds ``tau``. On
bands of more than :data:`QUADRATIC_FORM_RANKS` ranks the Gaussian variance and covariance
come from that many ranks (blocks of neighbouring ranks, weights added), as a coefficient of
variation and a correlation applied to the exact ``E[D]`` and ``Var(e)``.

Not covered: ROC curves with steps (pilot data,
:class:`rocsim.sim.planning.EmpiricalDistribution`), and intervals that are not functions of
``(e, D)`` (``percentile``, a method of your own): :func:`rocsim.sample_size` simulates
those. The normal ``e`` is poor when few positives are expected on one side of the threshold
(``e`` has an atom at 1 or 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

from rocsim.core.formulas import MomentForm, normal_quantile
from rocsim.core.mixture import rank_weights
from rocsim.core.registry import method_info, names

#: Interval methods whose expected width and coverage :func:`law_width_coverage` computes: the
#: ones with a moment form, built on the bootstrap mean and variance of TPR
#: (:mod:`rocsim.core.registry`).
LAW_METHODS = names("law")

#: Ranks of the quadratic form giving ``Var(D)`` and ``Cov(e, D)`` (larger bands: blocks).
QUADRATIC_FORM_RANKS = 160

RocFunction = Callable[[np.ndarray], np.ndarray]

# -- numerics (accuracy checked by tests/test_vertical_sample_size_law.py) -------------------

#: Band weights below this share of the largest are rounding noise (:func:`_band`).
_NOISE = 1e-15
#: Mass of each Beta law left outside the logit grid, on each side.
_TAIL = 1e-18
#: Logit grid: Gauss-Legendre points per panel; a panel spans at most one local standard
#: deviation of ``logit V_c`` (``1 / sqrt((n- + 1) u (1 - u))``) and at most ``_MAX_PANEL``.
_PANEL_X, _PANEL_W = np.polynomial.legendre.leggauss(10)
_MAX_PANEL = 2.0
#: Normal-scores Gauss-Hermite rule of the pair integrals (per dimension), probability weights.
_SCORE_Z, _SCORE_W = np.polynomial.hermite_e.hermegauss(12)
_SCORE_W = _SCORE_W / _SCORE_W.sum()
#: Chebyshev points per direction of the pair table; more on bands reaching within
#: ``_END_RANKS`` of either end of the ROC curve, where ``R`` is least smooth.
_TABLE_POINTS, _TABLE_POINTS_AT_END, _END_RANKS = 16, 24, 10
#: Chebyshev points in ``c`` for ``T``, and for ``m_c`` and ``s_c`` on longer bands.
_SUM_POINTS, _RANK_POINTS = 48, 48
#: ``e`` given ``D``: Gauss-Legendre points per piece, and the pieces span ``mean -+ _REACH sd``.
_PIECE_X, _PIECE_W = np.polynomial.legendre.leggauss(24)
_REACH = 9.0
#: Gauss-Laguerre points of the Gamma law of ``D``.
_GAMMA_POINTS = 16


@dataclass(frozen=True)
class LawMoments:
    """Moments of ``(e, D)`` at one test-set size and FPR rank (see the module docstring).

    Attributes
    ----------
    n_pos, n_neg, r : int
        Class sizes and FPR rank (``FPR = r / n-``).
    mean, var : float
        Exact ``E[e]`` and ``Var(e)`` (up to quadrature error).
    mean_d : float
        Exact ``E[D]``.
    var_d, cov_ed : float
        ``Var(D)`` and ``Cov(e, D)`` under the Gaussian approximation of ``q`` (exact second
        moments, Gaussian fourth moments).
    """

    n_pos: int
    n_neg: int
    r: int
    mean: float
    var: float
    mean_d: float
    var_d: float
    cov_ed: float


def law_moments(roc: RocFunction, n_pos: int, n_neg: int, r: int) -> LawMoments:
    """Exact ``E[e]``, ``Var(e)``, ``E[D]`` and the Gaussian ``Var(D)``, ``Cov(e, D)``.

    Parameters
    ----------
    roc : callable
        The true ROC curve ``R(u) = S+(S-^-1(u))``, vectorised, continuous on (0, 1).
    n_pos, n_neg : int
        Class sizes (``n- >= 2``).
    r : int
        FPR rank, ``1 <= r <= n- - 1``.

    Returns
    -------
    LawMoments

    Examples
    --------
    >>> from scipy import special
    >>> roc = lambda u: special.ndtr(1.19 + special.ndtri(u))
    >>> law = law_moments(roc, 100, 100, 10)
    >>> round(law.mean, 4), round(law.var, 5), round(law.mean_d, 5)
    (0.457, 0.00581, 0.00543)
    """
    ranks, w = _band(n_neg, r)
    m, s = _rank_moments(roc, n_neg, ranks)
    if ranks.size == 1:  # one rank: e = q_r exactly and D = 0
        var = (m[0] - m[0] ** 2 - s[0]) / n_pos + s[0]
        return LawMoments(n_pos, n_neg, r, float(m[0]), float(var), 0.0, 0.0, 0.0)
    pairs = _Pairs(roc, n_neg, ranks)
    total = pairs.weighted_sum(w)
    mean = float(w @ m)
    after = np.cumsum((w * m)[::-1])[::-1] - w * m  # sum_{d > c} w_d m_d
    tail = np.cumsum(w[::-1])[::-1] - w  # sum_{d > c} w_d
    lowest = float(m @ (w * w + 2 * w * tail))  # sum_{c,d} w_c w_d m_min(c,d)
    spread = float(w @ np.square(m - mean))
    rising = float(w @ (after - m * tail))  # sum_{c<d} w_c w_d (m_d - m_c)
    var_y = float(w @ s) - total
    var = (lowest - mean * mean) / n_pos + (1 - 1 / n_pos) * var_y
    mean_d = (1 - 1 / n_pos) * total + (rising - spread) / n_pos + spread
    var_d, cov = _gaussian_fluctuation(pairs, ranks, w, m, s, n_pos, mean_d, var)
    return LawMoments(n_pos, n_neg, r, mean, var, mean_d, var_d, cov)


def law_width_coverage(
    law: LawMoments, tau: float, confidence_level: float, method: str, pseudo_count: float | None
) -> tuple[float, float]:
    """Expected width and coverage of the interval, ``e`` given ``D`` normal and ``D`` Gamma.

    Parameters
    ----------
    law : LawMoments
    tau : float
        The true TPR the interval should hold.
    confidence_level : float
    method : str
        A name of :data:`LAW_METHODS`.
    pseudo_count : float or None
        The method's pseudo-count (the checked value; None for a method that takes none).

    Returns
    -------
    (float, float)
        ``E[high - low]`` (bounds clipped to [0, 1]) and ``Pr{low <= tau <= high}``.

    Examples
    --------
    >>> from scipy import special
    >>> roc = lambda u: special.ndtr(1.19 + special.ndtri(u))
    >>> law = law_moments(roc, 100, 100, 10)
    >>> width, cover = law_width_coverage(law, float(roc(0.1)), 0.95, "score", None)
    >>> round(width, 3), round(cover, 3)
    (0.33, 0.962)
    """
    form = method_info("vertical", method).moment_form
    interval = _Interval(law.n_pos, confidence_level, form, pseudo_count)
    spread, chance = _gamma_rule(law.mean_d, law.var_d)
    slope = law.cov_ed / law.var_d if law.var_d > 0 else 0.0
    sd = math.sqrt(max(law.var - slope * law.cov_ed, 0.0))
    width = cover = 0.0
    for d, p in zip(spread.tolist(), chance.tolist()):
        centre = law.mean + slope * (d - law.mean_d)
        width += p * _mean_width(interval, d, centre, sd)
        cover += p * _chance_covered(interval, d, centre, sd, tau)
    # sums of probabilities: kept within [0, 1] against rounding
    return min(max(width, 0.0), 1.0), min(max(cover, 0.0), 1.0)


# -- the band and its weights ----------------------------------------------------------------


def _band(n_neg: int, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Consecutive ranks ``c`` around ``r`` and their weights ``w_c`` (summing to 1).

    The weights of :func:`rocsim.core.mixture.rank_weights` are differences of binomial tails;
    where both tails round to 1 the difference is rounding noise (multiples of 1.1e-16, true
    values far smaller). Weights below ``_NOISE`` times the largest are left out (at most the
    band's length times ``_NOISE`` in all), which keeps the band to the ranks that matter."""
    weights = rank_weights(n_neg, n_neg, (int(r),))
    raw = weights.weights[0]
    kept = np.flatnonzero(raw > _NOISE * raw.max())
    w = raw[kept[0] : kept[-1] + 1].copy()
    w[w <= _NOISE * raw.max()] = 0.0
    ranks = weights.start[0] + np.arange(kept[0], kept[-1] + 1)
    return ranks.astype(np.int64), w / w.sum()


@dataclass(frozen=True)
class _RankAxis:
    """Real ranks ``lo <= c <= hi`` on [0, 1] by their log-odds ``log c - log(n- + 1 - c)``
    (``E[V_c] = c / (n- + 1)``): functions of the rank are smooth in it up to the ends of the
    ROC curve, where they follow ``R`` near 0 and 1."""

    lo: float
    hi: float
    n_neg: int

    def _odds(self, c):
        return np.log(c) - np.log(self.n_neg + 1 - c)

    def position(self, c) -> np.ndarray:
        first, last = self._odds(self.lo), self._odds(self.hi)
        return (self._odds(np.asarray(c, dtype=float)) - first) / (last - first)

    def rank(self, x) -> np.ndarray:
        first, last = self._odds(self.lo), self._odds(self.hi)
        return (self.n_neg + 1) * special.expit(first + (last - first) * np.asarray(x))

    def interpolate(self, x_values: np.ndarray, values: np.ndarray, c) -> np.ndarray:
        """The Chebyshev interpolant through ``values`` at positions ``x_values``, at ``c``."""
        k = x_values.size
        coef = np.linalg.solve(_chebyshev_basis(x_values, k), values)
        return _chebyshev_basis(self.position(c), k) @ coef


# -- one rank: E R(V_c) and Var R(V_c) -------------------------------------------------------


def _rank_moments(roc: RocFunction, n_neg: int, ranks: np.ndarray):
    """``m_c = E[R(V_c)]`` and ``s_c = Var R(V_c)`` of every rank, on one logit grid (on a long
    band, at Chebyshev points of the rank axis, interpolated: both are smooth in the rank)."""
    if ranks.size <= _RANK_POINTS:
        return _moments_at(roc, n_neg, ranks.astype(float))
    axis = _RankAxis(float(ranks[0]), float(ranks[-1]), n_neg)
    x = _chebyshev_points(_RANK_POINTS)
    m, s = _moments_at(roc, n_neg, axis.rank(x))
    return axis.interpolate(x, m, ranks), axis.interpolate(x, s, ranks)


def _moments_at(roc: RocFunction, n_neg: int, c: np.ndarray):
    """``E[R(V_c)]`` and ``Var R(V_c)`` at real ranks ``c`` (ascending)."""
    s, a = _logit_grid(n_neg, float(c[0]), float(c[-1]))
    log_u, log_1u = -np.logaddexp(0, -s), -np.logaddexp(0, s)
    c = c[:, None]
    log_pdf = c * log_u + (n_neg - c + 1) * log_1u - special.betaln(c, n_neg - c + 1)
    weight = np.exp(log_pdf) * a
    # each row sums to 1 within the grid's error (a few 1e-13): divide, so m stays a mean
    weight /= weight.sum(axis=1, keepdims=True)
    values = roc(special.expit(s))
    m = weight @ values
    deviation = values[None, :] - m[:, None]
    return m, np.einsum("ij,ij->i", weight, deviation * deviation)


def _logit_grid(n_neg: int, c_min: float, c_max: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``logit(u)`` and weights of a composite Gauss-Legendre rule covering the laws of
    ``V_c``, ``c_min <= c <= c_max``, all but ``_TAIL`` of each side."""
    lo = special.logit(special.betaincinv(c_min, n_neg - c_min + 1, _TAIL))
    # logit(x) = -logit(1 - x), and 1 - V_c ~ Beta(n- - c + 1, c): no rounding of x near 1
    hi = -special.logit(special.betaincinv(n_neg - c_max + 1, c_max, _TAIL))
    edges = [float(lo)]
    while edges[-1] < hi:
        x = edges[-1]
        spread = 1.0 / math.sqrt((n_neg + 1) * special.expit(x) * special.expit(-x))
        edges.append(min(x + min(spread, _MAX_PANEL), float(hi)))
    left, right = np.array(edges[:-1]), np.array(edges[1:])
    mid, half = (left + right) / 2, (right - left) / 2
    return (mid[:, None] + half[:, None] * _PANEL_X).ravel(), (half[:, None] * _PANEL_W).ravel()


# -- two ranks: Var(R(V_d) - R(V_c)) ---------------------------------------------------------


def _normal_scores(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``F^-1(Phi(z))`` at the Gauss-Hermite points ``z`` for the Beta(a, b) laws (rows)."""
    a, b = a[:, None], b[:, None]
    low = _SCORE_Z < 0
    x = np.empty((a.shape[0], _SCORE_Z.size))
    x[:, low] = special.betaincinv(a, b, special.ndtr(_SCORE_Z[low]))
    x[:, ~low] = special.betainccinv(a, b, special.ndtr(-_SCORE_Z[~low]))
    return x


def _pair_spread(roc: RocFunction, n_neg: int, c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``Var(R(V_d) - R(V_c))`` for real ranks ``c < d`` (arrays)."""
    c, d = np.asarray(c, dtype=float), np.asarray(d, dtype=float)
    distinct, back = np.unique(c, return_inverse=True)  # the table repeats each c
    nodes = _normal_scores(distinct, n_neg - distinct + 1)  # V_c
    first = nodes[back]
    step = _normal_scores(d - c, n_neg - d + 1)  # B, V_d = V_c + (1 - V_c) B
    second = first[:, :, None] + (1 - first[:, :, None]) * step[:, None, :]
    gap = roc(second) - roc(nodes)[back][:, :, None]
    weight = _SCORE_W[:, None] * _SCORE_W[None, :]
    mean = np.einsum("ij,pij->p", weight, gap)
    gap -= mean[:, None, None]
    return np.einsum("ij,pij->p", weight, gap * gap)


def _chebyshev_points(k: int) -> np.ndarray:
    """Chebyshev points of the first kind on [0, 1], ascending."""
    return (1 - np.cos((2 * np.arange(k) + 1) * np.pi / (2 * k))) / 2


def _chebyshev_basis(x: np.ndarray, k: int) -> np.ndarray:
    """``T_0 .. T_{k-1}`` at ``2 x - 1``."""
    return np.polynomial.chebyshev.chebvander(2 * np.asarray(x, dtype=float) - 1, k - 1)


class _Pairs:
    """``Delta_cd = Var(R(V_d) - R(V_c))`` on a band of ranks: every pair directly on a small
    band, else a Chebyshev table of ``Delta_cd / (d - c)`` over ``x`` (the position of ``c`` on
    the :class:`_RankAxis` of ``[lo, hi - 1]``) and ``y = (d - c - 1) / (hi - c - 1)``."""

    def __init__(self, roc: RocFunction, n_neg: int, ranks: np.ndarray) -> None:
        self.ranks = ranks
        self.lo, self.hi = int(ranks[0]), int(ranks[-1])
        near_end = self.lo <= _END_RANKS or self.hi > n_neg - _END_RANKS
        self.k = k = _TABLE_POINTS_AT_END if near_end else _TABLE_POINTS
        # a band with no more pairs than the table has points: every pair directly
        self.direct = ranks.size * (ranks.size - 1) // 2 <= k * k
        if self.direct:
            c, d = np.triu_indices(ranks.size, 1)
            spread = np.zeros((ranks.size, ranks.size))
            spread[c, d] = _pair_spread(roc, n_neg, ranks[c], ranks[d])
            self.matrix = spread + spread.T
            return
        self.axis = _RankAxis(self.lo, self.hi - 1, n_neg)
        y = _chebyshev_points(k)
        c = self.axis.rank(y)[:, None]  # the same points on both axes
        d = c + 1 + (self.hi - c - 1) * y[None, :]
        first = np.broadcast_to(c, d.shape)
        values = _pair_spread(roc, n_neg, first.ravel(), d.ravel()).reshape(k, k) / (d - first)
        basis = _chebyshev_basis(y, k)
        self.coef = np.linalg.solve(basis, np.linalg.solve(basis, values.T).T)

    def __call__(self, c: np.ndarray, d: np.ndarray) -> np.ndarray:
        """``Delta_cd`` at ranks ``c < d`` of the band (arrays)."""
        if self.direct:
            return self.matrix[c - self.lo, d - self.lo]
        c, d = np.asarray(c, dtype=float), np.asarray(d, dtype=float)
        y = (d - c - 1) / np.maximum(self.hi - c - 1, 1.0)
        distinct, back = np.unique(c, return_inverse=True)  # callers repeat each c
        rows = (_chebyshev_basis(self.axis.position(distinct), self.k) @ self.coef)[back]
        return np.einsum("...j,...j->...", rows, _chebyshev_basis(y, self.k)) * (d - c)

    def weighted_sum(self, w: np.ndarray) -> float:
        """``T = sum_{c<d} w_c w_d Delta_cd`` over the band."""
        if self.direct:
            return float(w @ np.triu(self.matrix, 1) @ w)
        # T = sum_c w_c Phi(c), Phi(c) = sum_{d>c} w_d Delta_cd smooth in c: Phi at integer
        # ranks near Chebyshev points (every rank on a short band), interpolated
        below = self.ranks[:-1]
        at = np.unique(np.rint(self.axis.rank(_chebyshev_points(_SUM_POINTS)))).astype(np.int64)
        if at.size < _SUM_POINTS or below.size <= 3 * _SUM_POINTS:
            at = below
        lags = np.arange(1, self.hi - self.lo + 1)
        d = at[:, None] + lags[None, :]
        inside = d <= self.hi
        first = np.broadcast_to(at[:, None], d.shape)
        terms = np.zeros(d.shape)
        terms[inside] = w[d[inside] - self.lo] * self(first[inside], d[inside])
        phi = terms.sum(axis=1)
        if at.size < below.size:
            phi = self.axis.interpolate(self.axis.position(at), phi, below)
        return float(w[:-1] @ phi)


# -- Var(D) and Cov(e, D): q Gaussian with its exact mean and covariance -----------------------


def _gaussian_fluctuation(
    pairs: _Pairs,
    ranks: np.ndarray,
    w: np.ndarray,
    m: np.ndarray,
    s: np.ndarray,
    n_pos: int,
    mean_d: float,
    var_e: float,
) -> tuple[float, float]:
    """``Var(D)`` and ``Cov(e, D)`` of the quadratic form ``D = q' A q`` with ``q`` Gaussian,
    scaled to the exact ``E[D]`` and ``Var(e)`` (on more than :data:`QUADRATIC_FORM_RANKS`
    ranks, the form of blocks of neighbouring ranks)."""
    pick, wq = _blocks(w)
    c, mq, sq = ranks[pick], m[pick], s[pick]
    size = c.size
    first, second = np.triu_indices(size, 1)
    spread = np.zeros((size, size))
    spread[first, second] = pairs(c[first], c[second])
    spread += spread.T
    cov_r = (sq[:, None] + sq[None, :] - spread) / 2  # Cov(R(V_c), R(V_d))
    low = np.minimum.outer(np.arange(size), np.arange(size))
    sigma = (mq[low] - np.outer(mq, mq)) / n_pos + (1 - 1 / n_pos) * cov_r
    row = sigma @ wq  # Cov(q_c, e)
    total = float(wq @ row)  # Var(e)
    centred = sigma - row[:, None] - row[None, :] + total  # Cov(q_c - e, q_d - e)
    g = wq * (mq - wq @ mq)
    mean_form = float(wq @ np.diag(centred)) + float(wq @ np.square(mq - wq @ mq))
    var_form = 2 * float(wq @ np.square(centred) @ wq) + 4 * float(g @ centred @ g)
    cov_form = 2 * float(row @ g)
    if mean_form <= 0 or var_form <= 0:
        return 0.0, 0.0
    var_d = var_form / mean_form**2 * mean_d**2
    corr = cov_form / math.sqrt(var_form * total) if total > 0 else 0.0
    return var_d, corr * math.sqrt(var_d * var_e)


def _blocks(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At most :data:`QUADRATIC_FORM_RANKS` ranks: blocks of consecutive ranks, each at its
    middle rank with the block's total weight."""
    size = w.size
    step = max(1, math.ceil(size / QUADRATIC_FORM_RANKS))
    if step == 1:
        return np.arange(size), w
    starts = np.arange(0, size, step)
    middle = np.minimum(starts + step // 2, size - 1)
    return middle, np.add.reduceat(w, starts)


# -- width and coverage given (E, Var) of e and the law of D ---------------------------------


@dataclass(frozen=True)
class _Interval:
    """The interval of :func:`rocsim.core.vertical_ci` as a function of ``(e, D)``: the
    method's registered moment form (:mod:`rocsim.core.registry`) on the moments after its
    pseudo-count ``a``, if it takes one (``q -> (m q + a) / (m + 2a)``, ``m -> m + 2a``)."""

    m: int
    level: float
    form: MomentForm
    a: float | None

    @property
    def z(self) -> float:
        return normal_quantile(self.level)

    def _moments(self, e, d):
        """``(e, D, m)`` after the pseudo-count."""
        if self.a is None:
            return e, d, self.m
        size = self.m + 2 * self.a
        return (self.m * e + self.a) / size, d * (self.m / size) ** 2, size

    def bounds(self, e: np.ndarray, d: float) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` clipped to [0, 1], ``e`` taken in [0, 1]."""
        e, d, m = self._moments(np.clip(e, 0.0, 1.0), d)
        v = e * (1 - e) / m + (1 - 1 / m) * d
        low, high = self.form.bounds(e, v, m, self.level)
        return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)

    def holds(self, tau: float, d: float) -> tuple[float, float] | None:
        """The ``e`` (real line) whose interval holds ``tau``: an interval, or None."""
        _, d_adj, m = self._moments(0.0, d)
        held = self.form.holding(tau, (1 - 1 / m) * d_adj, m, self.z)
        if held is None or self.a is None:
            return held
        size = self.m + 2 * self.a  # back from (m e + a) / (m + 2a) to e
        low, high = held
        return (size * low - self.a) / self.m, (size * high - self.a) / self.m


def _gamma_rule(mean: float, var: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Laguerre points and weights of the Gamma law with this mean and variance (a point
    mass when the variance is 0)."""
    if var <= 0 or mean <= 0:
        return np.array([max(mean, 0.0)]), np.array([1.0])
    shape, scale = mean * mean / var, var / mean
    i = np.arange(_GAMMA_POINTS, dtype=float)
    jacobi = np.diag(2 * i + shape)  # generalized Laguerre, alpha = shape - 1
    off = np.sqrt(i[1:] * (i[1:] + shape - 1))
    jacobi += np.diag(off, 1) + np.diag(off, -1)
    points, vectors = np.linalg.eigh(jacobi)
    return points * scale, vectors[0] ** 2


def _mean_width(interval: _Interval, d: float, centre: float, sd: float) -> float:
    """``E[high - low]`` with ``e ~ N(centre, sd^2)``: Gauss-Legendre between the ``e`` where
    the width's formula changes (``e`` reaching 0 or 1, a bound clipped)."""
    if sd == 0:
        low, high = interval.bounds(np.array([centre]), d)
        return float(high[0] - low[0])
    cuts = [0.0, 1.0]
    for tau in (0.0, 1.0):
        held = interval.holds(tau, d)
        if held is not None:
            cuts.extend(held)
    lo, hi = centre - _REACH * sd, centre + _REACH * sd
    edges = np.unique(np.clip([lo, *cuts, hi], lo, hi))
    left, right = edges[:-1], edges[1:]
    mid, half = (left + right) / 2, (right - left) / 2
    e = (mid[:, None] + half[:, None] * _PIECE_X).ravel()
    weight = (half[:, None] * _PIECE_W).ravel() * np.exp(-0.5 * ((e - centre) / sd) ** 2)
    low, high = interval.bounds(e, d)
    return float(weight @ (high - low) / (sd * math.sqrt(2 * math.pi)))


def _chance_covered(interval: _Interval, d: float, centre: float, sd: float, tau: float) -> float:
    """``Pr{low <= tau <= high}`` with ``e ~ N(centre, sd^2)`` (``e`` outside [0, 1] acts as
    the nearest end, as the data's mean always lies in [0, 1])."""
    held = interval.holds(tau, d)
    if held is None:
        return 0.0
    low, high = held
    low, high = max(low, 0.0), min(high, 1.0)
    if low > high:
        return 0.0
    lower = -math.inf if low <= 0.0 else low
    upper = math.inf if high >= 1.0 else high
    if sd == 0:
        return float(lower <= centre <= upper)
    return float(special.ndtr((upper - centre) / sd) - special.ndtr((lower - centre) / sd))
