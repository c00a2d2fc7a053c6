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
steps times the ranks carried: ``O(k n^1.5)``. Two things cut it. A pass carries only the ranks
crossed so far, so it runs forward over the cells before a meeting cell and backward over the
rest (:func:`q_products`), which halves the ranks carried; and each new state sums its sources
once, many ranks at a time in vector registers (``_band.crossing_products``).
``benchmarks/bench_curve.py`` times it against a Monte Carlo bootstrap.
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
    e = mean[first]
    # share[i, j] = Cov(q_i, q_j) for i != j (deviations from the exact means)
    share = q_products(*rate_runs(rates), m_neg, distinct, e)
    cov = e[:, None] * (1 - e[None, :]) / m_pos + (1 - 1 / m_pos) * share
    upper = np.triu(cov, 1)
    cov = upper + upper.T
    cov = cov[np.ix_(back, back)]
    # the variance is the law's own (eq. 4.14), on the diagonal and between repeated ranks
    same = t[:, None] == t[None, :]
    return np.where(same, var[:, None] * np.ones_like(cov), cov)


def q_products(
    values: np.ndarray,
    lengths: np.ndarray,
    m_neg: int,
    ranks: np.ndarray,
    reference: np.ndarray,
    stop: int | None = None,
) -> np.ndarray:
    """``E[(q_(C_i) - reference_i) (q_(C_j) - reference_j)]`` for ``i != j`` (the diagonal is
    0) at the ascending ``ranks``, over the cells ``(values, lengths)`` (:func:`rate_runs`).

    A forward pass over the cells before :func:`meeting_cell` and a backward pass (the same
    pass over the reversed cells, ranks counted from the other end) over the rest each give
    the products of the ranks crossed on their side. Given ``N`` at the meeting cell the two
    sides are independent (the resample is multinomial), so a rank crossed before it and one
    crossed after meet in ``sum_N h_before[N] h_after[m- - N] / Pr{N}``
    (:func:`rocsim.core._band.meeting_products`). Each pass carries only the ranks crossed on
    its side, about half the work of one pass over every cell. ``stop``: the meeting cell
    (any of ``0 .. len(values)`` gives the same products; :func:`meeting_cell` by default).
    """
    ranks = np.ascontiguousarray(ranks, dtype=np.int64)
    reference = np.ascontiguousarray(reference, dtype=float)
    if stop is None:
        stop = meeting_cell(lengths, m_neg, ranks)
    before, p, h_before = _band.crossing_products(
        values, lengths, m_neg, ranks, reference, TINY, stop
    )
    after, _, h_after = _band.crossing_products(
        np.ascontiguousarray(values[::-1]),
        np.ascontiguousarray(lengths[::-1]),
        m_neg,
        np.ascontiguousarray(m_neg + 1 - ranks[::-1]),
        np.ascontiguousarray(reference[::-1]),
        TINY,
        values.size - stop,
    )
    # the backward pass numbers the ranks from the other end
    after = after[::-1, ::-1]
    across = _band.meeting_products(p, h_before, np.ascontiguousarray(h_after[:, ::-1]))
    products = before + after + across
    return products + products.T


def meeting_cell(lengths: np.ndarray, m_neg: int, ranks: np.ndarray) -> int:
    """The cell where the forward and backward passes of :func:`q_products` meet: the one
    that balances their work, each pass's work in a cell being the ranks it carries there
    (those below, for the forward pass, the expected resampled negatives so far) times the
    cell's negatives."""
    reached = np.cumsum(lengths)
    forward = np.searchsorted(ranks, reached, side="right") * lengths
    backward = (ranks.size - np.searchsorted(ranks, reached - lengths, side="right")) * lengths
    before = np.r_[0, np.cumsum(forward)]
    after = np.r_[np.cumsum(backward[::-1])[::-1], 0]
    return int(np.argmin(np.maximum(before, after)))


def rate_runs(rates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of equal values of the non-decreasing ``rates`` (negatives with no positive
    between them), as each run's value and length: the cells of the forward passes."""
    rates = np.asarray(rates, dtype=float)
    starts = np.flatnonzero(np.r_[True, rates[1:] != rates[:-1]])
    lengths = np.diff(np.r_[starts, rates.size]).astype(np.int64)
    return np.ascontiguousarray(rates[starts]), lengths


def bridge_covariance(
    t: np.ndarray, m_neg: int, m_pos: int, mean: np.ndarray, var: np.ndarray
) -> np.ndarray:
    """The covariance of TPR at the threshold ranks ``t`` with ``Cov(q_i, q_j)`` replaced by
    its large-sample form (**approximate**): where :func:`tpr_covariance`'s pass costs too
    much.

    The threshold of rank ``t`` is an order statistic of the ``m-`` resampled negatives; as
    ``m-`` grows their quantile process tends to a Brownian bridge, and ``q`` (a smooth
    function of the threshold's place) follows it, so ``Corr(q_i, q_j) -> sqrt(u_i (1 - u_j)
    / (u_j (1 - u_i)))`` for ``u_i = t_i / (m- + 1) <= u_j`` (Shorack & Wellner 1986, ch. 3).
    ``Var q_i`` is exact, from the law's moments (eq. 4.14 read backwards: ``var = E q (1 - E
    q) / m+ + (1 - 1/m+) Var q``), and the binomial part ``E q_i (1 - E q_j) / m+`` is
    exact. ``tests/test_copula.py`` measures the approximation against the exact covariance.
    """
    t = np.asarray(t, dtype=float)
    mean, var = np.asarray(mean, dtype=float), np.asarray(var, dtype=float)
    binomial = mean * (1 - mean) / m_pos
    spread = np.sqrt(np.clip((var - binomial) / (1 - 1 / m_pos), 0.0, None))
    u = t / (m_neg + 1)
    first = u[:, None] <= u[None, :]  # i's threshold ranks above j's
    low_u, high_u = np.minimum.outer(u, u), np.maximum.outer(u, u)
    rho = np.sqrt(low_u * (1 - high_u) / (high_u * (1 - low_u)))
    low_e = np.where(first, mean[:, None], mean[None, :])
    high_e = np.where(first, mean[None, :], mean[:, None])
    cov = low_e * (1 - high_e) / m_pos + (1 - 1 / m_pos) * np.outer(spread, spread) * rho
    same = t[:, None] == t[None, :]
    return np.where(same, var[:, None] * np.ones_like(cov), cov)
