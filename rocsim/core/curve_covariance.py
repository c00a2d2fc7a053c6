"""Exact bootstrap covariance of the ROC curve across FPRs (vertical averaging).

At the threshold ranks ``t1 < t2`` (the ``t``-th largest resampled negative is the threshold,
:func:`rocsim.core.vertical.threshold_ranks`) the bootstrap thresholds satisfy ``T1 >= T2``, so
the positives reaching ``T1`` are a subset of those reaching ``T2``. With ``q_i`` the share of
the data's positives reaching ``T_i`` (given the negatives' resample the counts are nested
binomials of ``m+`` draws),

    Cov(TPR1, TPR2) = E[q1] (1 - E[q2]) / m+ + (1 - 1/m+) Cov(q1, q2),

the covariance form of eqs. 4.13-4.14 (``t1 = t2`` gives the variance). ``Cov(q1, q2)`` needs
the joint law of the two thresholds' ranks ``C1 <= C2`` among the sorted negatives. Write the
resample as ``m-`` uniforms, the ``c``-th cell ``((c - 1)/n-, c/n-]`` standing for the
``c``-th largest negative; ``C_t`` is the cell of the ``t``-th smallest uniform. The state
``(C1, A)``, with ``A`` the number of uniforms in cells ``1..C1``, is Markov: given it, the
other ``m- - A`` uniforms are uniform on cells ``C1 + 1 .. n-``, so

    Pr{C1 = c, A = a} = b(a; m-, c/n-) B(t1 - 1; a, (c - 1)/c)                 (a >= t1)
    Pr{C2 <= d | c, a} = Pr{Bin(m- - a, (d - c)/(n- - c)) >= t2 - a}          (d > c, a < t2)

and ``C2 = c`` when ``a >= t2`` (``b`` the binomial pmf, ``B`` its distribution function).
``E[q2 | c, a]`` is then a sum over the cells ``d`` where the share ``q`` steps (Abel's
summation), and ``Cov(q1, q2)`` the mean over the states of ``(q_c - E q1) E[q2 - E q2 | c, a]``
(deviations from reference values, so that no digits cancel where ``q`` is near 0 or 1).

Ties: as in :mod:`rocsim.core.vertical`, tied negatives share one ``q`` and the sums over cells
are exact with them.

Cost: per pair of ranks, one binomial tail per state ``(c, a)`` and step cell ``d``: the band
of ``C1`` (a few ``sqrt(n-)`` cells) times the few values of ``A - t1`` (the uniforms sharing
``C1``'s cell, about ``m-/n-`` of them) times the band of ``C2``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from rocsim.core.binomial import binomial_pmf
from rocsim.core.mixture import RankWeights, rank_weights


def tpr_covariance(
    rates: np.ndarray, t: np.ndarray, m_neg: int, m_pos: int, mean: np.ndarray, var: np.ndarray
) -> np.ndarray:
    """The ``(k, k)`` stratified-bootstrap covariance of TPR at the threshold ranks ``t``.

    ``rates``: the data's shares of positives reaching each sorted negative
    (:func:`rocsim.core.vertical.rates_at_ranks`, non-decreasing); ``mean`` and ``var``: the
    law's exact moments of TPR at ``t`` (the diagonal is ``var``).
    """
    weights = rank_weights(rates.size, m_neg, tuple(int(x) for x in t))
    cov = np.diag(np.asarray(var, dtype=float))
    for i, j in zip(*np.triu_indices(t.size, 1)):
        first, second = (i, j) if t[i] <= t[j] else (j, i)
        if t[first] == t[second]:
            cov[i, j] = cov[j, i] = var[i]
            continue
        share = _share_covariance(rates, weights, first, second, t, m_neg)
        value = mean[first] * (1 - mean[second]) / m_pos + (1 - 1 / m_pos) * share
        cov[i, j] = cov[j, i] = value
    return cov


def _band(weights: RankWeights, row: int) -> tuple[np.ndarray, np.ndarray]:
    """The cells (1-based) of row ``row``'s band with a positive weight, and the weights."""
    w = weights.weights[row]
    cells = weights.start[row] + np.arange(w.size)
    keep = w > 0
    return cells[keep], w[keep]


def _share_covariance(
    rates: np.ndarray, weights: RankWeights, first: int, second: int, t: np.ndarray, m_neg: int
) -> float:
    """``Cov(q1, q2)`` at the threshold ranks ``t[first] < t[second]``, the mean over the
    states ``(c, a)`` of the first of ``(q_c - ref1) E[q2 - ref2 | c, a]``."""
    n_neg = rates.size
    t1, t2 = int(t[first]), int(t[second])
    cells1, w1 = _band(weights, first)
    cells2, w2 = _band(weights, second)
    # references near the means: deviations from them carry no rounding of a mean near 1
    ref1, ref2 = rates[cells1[np.argmax(w1)] - 1], rates[cells2[np.argmax(w2)] - 1]
    # the states: c on the band of C1, a - t1 the uniforms after the t1-th in its cell
    a = np.arange(t1, min(t1 + _cell_extra(m_neg, n_neg), m_neg) + 1)
    c = cells1[:, None]
    state = binomial_pmf(a, m_neg, c / n_neg) * special.bdtr(t1 - 1, a, (c - 1) / c)
    state /= state.sum()  # the band holds all but ~1e-15 of the mass: renormalised
    # E[q2 - ref2 | c, a] = q_(last + 1) - ref2 - sum_d (q_(d+1) - q_d) Pr{C2 <= d | c, a}
    # over the cells d of C2's band where q steps (Pr{C2 > last} is negligible)
    last = min(int(cells2[-1]), n_neg - 1)
    d = np.arange(max(int(cells1[0]) + 1, int(cells2[0])), last + 1)
    step = rates[d] - rates[d - 1]
    d, step = d[step != 0], step[step != 0]
    before = _cdf_after(d, cells1, a, t2, m_neg, n_neg) @ step
    second_share = np.where(a >= t2, rates[c - 1] - ref2, rates[last] - ref2 - before)
    first_share = rates[cells1 - 1] - ref1
    joint = float(np.einsum("ca,c,ca->", state, first_share, second_share))
    mean1 = float(np.einsum("ca,c->", state, first_share))
    mean2 = float(np.einsum("ca,ca->", state, second_share))
    return joint - mean1 * mean2


def _cell_extra(m_neg: int, n_neg: int) -> int:
    """Largest ``A - t1`` kept: the uniforms sharing ``C1``'s cell after the ``t1``-th are
    fewer than a cell's count, about Poisson with mean ``m-/n-``; beyond this many their
    probability is below ~1e-18."""
    share = m_neg / n_neg
    return math.ceil(share + 10 * math.sqrt(share) + 12)


def _cdf_after(
    d: np.ndarray, cells: np.ndarray, a: np.ndarray, t2: int, m_neg: int, n_neg: int
) -> np.ndarray:
    """``Pr{C2 <= d | C1 = c, A = a}`` of shape ``(len(cells), len(a), len(d))`` for
    ``a < t2`` (0 for ``d <= c``; unused where ``a >= t2``)."""
    c = cells[:, None, None]
    aa = a[None, :, None]
    room = np.maximum(n_neg - c, 1)  # c = n-: every later uniform is in the last cell
    p = np.clip((d[None, None, :] - c) / room, 0.0, 1.0)
    need = np.maximum(t2 - aa - 1, 0)
    out = special.bdtrc(need, m_neg - aa, p)
    return np.where((d[None, None, :] > c) & (aa < t2), out, 0.0)
