"""Exact bootstrap covariance of the ROC curve across FPRs (vertical averaging).

At the threshold ranks ``t1 < t2`` (the ``t``-th largest resampled negative is the threshold,
:func:`rocsim.core.vertical.threshold_ranks`) the bootstrap thresholds satisfy ``T1 >= T2``, so
the positives reaching ``T1`` are a subset of those reaching ``T2``. With ``q_i`` the share of
the data's positives reaching ``T_i`` (given the negatives' resample the counts are nested
binomials of ``m+`` draws),

    Cov(TPR1, TPR2) = E[q1] (1 - E[q2]) / m+ + (1 - 1/m+) Cov(q1, q2),

the covariance form of eqs. 4.13-4.14 (``t1 = t2`` gives the variance). ``Cov(q1, q2)`` needs
the joint law of the two thresholds' cells ``C1 <= C2`` among the sorted negatives. Write the
resample as ``m-`` uniforms, the ``c``-th cell standing for the ``c``-th largest negative, and
walk the cells in order: the number ``N`` of resampled negatives so far is a Markov chain
(``N`` grows by ``Bin(m- - N, 1 / (n- - c + 1))`` in cell ``c``), and rank ``t`` is crossed in
the cell where ``N`` first reaches it. One forward pass carries, for every rank crossed so far,
``E[(q_(C_i) - E q_i) 1{N = .}]``; when ``N`` crosses rank ``j`` in cell ``c`` it adds
``q_c - E q_j`` times those to the products with ``j``
(:func:`rocsim.core._band.crossing_products`, compiled). Deviations from the exact means keep
the digits where ``q`` is near 0 or 1; states and binomial terms below :data:`TINY` (``1e-22``)
are left out.

Ties and runs: consecutive negatives with no positive between them (tied ones among them) share
one ``q``, so a run of them is one cell, into which ``N`` grows by ``Bin(m- - N, L / (negatives
left))`` for a run of ``L`` (:func:`rate_runs`): exact, and about half the cells on continuous
scores.

Cost: the cells times the likely values of ``N`` in each (a few ``sqrt(n-)``) times its likely
steps times the ranks: ``O(k n^1.5)``; ``benchmarks/bench_curve.py`` times it
against a Monte Carlo bootstrap.
"""

from __future__ import annotations

import numpy as np

from rocsim.core import _band

#: States and binomial terms below this are left out of the forward pass.
TINY = 1e-22


def tpr_covariance(
    rates: np.ndarray, t: np.ndarray, m_neg: int, m_pos: int, mean: np.ndarray, var: np.ndarray
) -> np.ndarray:
    """The ``(k, k)`` stratified-bootstrap covariance of TPR at the threshold ranks ``t`` (any
    order, repeats allowed).

    ``rates``: the data's shares of positives reaching each sorted negative
    (:func:`rocsim.core.vertical.rates_at_ranks`, non-decreasing); ``mean`` and ``var``: the
    law's exact moments of TPR at ``t`` (the diagonal is ``var``).
    """
    t = np.asarray(t, dtype=np.int64)
    mean, var = np.asarray(mean, dtype=float), np.asarray(var, dtype=float)
    distinct, first, back = np.unique(t, return_index=True, return_inverse=True)
    products = _band.crossing_products(
        *rate_runs(rates),
        m_neg,
        distinct,
        np.ascontiguousarray(mean[first]),
        TINY,
    )
    # products[i, j] = Cov(q_i, q_j) for i < j (deviations from the exact means)
    share = products + products.T
    e = mean[first]
    cov = e[:, None] * (1 - e[None, :]) / m_pos + (1 - 1 / m_pos) * share
    upper = np.triu(cov, 1)
    cov = upper + upper.T
    cov = cov[np.ix_(back, back)]
    # the variance is the law's own (eq. 4.14), on the diagonal and between repeated ranks
    same = t[:, None] == t[None, :]
    return np.where(same, var[:, None] * np.ones_like(cov), cov)


def rate_runs(rates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of equal values of the non-decreasing ``rates`` (negatives with no positive
    between them), as each run's value and length: the cells of the forward passes."""
    rates = np.asarray(rates, dtype=float)
    starts = np.flatnonzero(np.r_[True, rates[1:] != rates[:-1]])
    lengths = np.diff(np.r_[starts, rates.size]).astype(np.int64)
    return np.ascontiguousarray(rates[starts]), lengths
