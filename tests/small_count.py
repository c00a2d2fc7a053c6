"""An exact oracle for ``Pr{N_A <= u, N_B <= u}`` with small counts, independent of the
Lancaster expansion that rocsim uses: the trinomial weights conditioned on ``N_A`` (Fisher's
noncentral hypergeometric polynomial), summed by matrix products over coefficients cached per
``(n, size)``. Written for rocsim's former hybrid algorithm; kept as a test oracle.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np


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
    """What :func:`small_count_table` needs that depends on ``(n, size)`` only: the
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


#: Pairs per block in :func:`small_count_table` (bounds its memory to ~size^2 * 24 bytes each).
_TABLE_BLOCK = 2048


def small_count_table(n: int, a, b, c, size: int) -> np.ndarray:
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
            log_row = (
                coef.log_comb
                + la[block, None] * k
                + l1a[block, None] * (n - k)
                + (lr, l1r)[branch == 0][block, None] * k
                + l1t[block, None] * (n - k)
            )
            joint *= np.exp(log_row)[:, :, None]
            odds_tau = (lt - l1t)[block, None]
            if branch == 0:
                joint *= np.exp(odds_tau * k)[:, None, :]
            else:
                steps = np.where(shift >= 0, (l1r - lr)[block, None] * shift, -odds_tau * shift)
                joint *= _toeplitz(np.exp(steps), size)
            out[block] = joint.reshape(block.size, -1) @ coef.below
    return np.minimum(out, 1.0).reshape(*shape, size)
