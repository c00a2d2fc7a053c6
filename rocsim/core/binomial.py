"""The binomial law's pmf and quantile, as ``scipy.stats.binom`` computes them, without
importing ``scipy.stats``.

``scipy.stats.binom`` evaluates Boost's binomial functions (the ufuncs of
``scipy.special``) after its argument checks; importing ``scipy.stats`` takes most of a
second, more than a first call of rocsim may take (issue 36's target: within 0.5 s of the warm
call). These functions call the same ufuncs with the same checks, so they return the same
values, bit for bit (``tests/test_binomial.py`` compares them with ``scipy.stats.binom`` on
valid and invalid arguments).
"""

from __future__ import annotations

import numpy as np

try:  # Boost's binomial functions: the ufuncs behind scipy.stats.binom, without its checks
    from scipy.special._ufuncs import _binom_cdf as boost_binomial_cdf
    from scipy.special._ufuncs import _binom_pmf as boost_binomial_pmf
    from scipy.special._ufuncs import _binom_ppf as boost_binomial_ppf
except ImportError:  # pragma: no cover - private names, may move in a later scipy
    from scipy import stats

    def boost_binomial_cdf(x, trials, p):
        return stats.binom.cdf(x, trials, p)

    def boost_binomial_pmf(x, trials, p):
        return stats.binom.pmf(x, trials, p)

    def boost_binomial_ppf(q, trials, p):
        return stats.binom.ppf(q, trials, p)


def _arguments(x, trials, p) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``x``, ``trials``, ``p`` broadcast as float arrays, and where the law is defined
    (``scipy.stats.binom._argcheck``: whole ``trials >= 0``, ``0 <= p <= 1``)."""
    x, trials, p = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (x, trials, p)))
    valid = (trials >= 0) & (trials == np.round(trials)) & (p >= 0) & (p <= 1)
    return x, trials, p, valid


def binomial_pmf(x, trials, p):
    """``scipy.stats.binom.pmf(x, trials, p)``: Boost's pmf clipped to [0, 1] at the whole
    ``0 <= x <= trials``, 0 at other ``x``, NaN where the law is undefined or ``x`` is NaN.

    Examples
    --------
    >>> binomial_pmf([0, 1, 2, 3], 2, 0.5).round(12).tolist()
    [0.25, 0.5, 0.25, 0.0]
    """
    x, trials, p, valid = _arguments(x, trials, p)
    out = np.zeros(x.shape)
    out[~valid | np.isnan(x)] = np.nan
    inside = valid & (x >= 0) & (x <= trials) & (x == np.floor(x))
    out[inside] = np.clip(boost_binomial_pmf(x[inside], trials[inside], p[inside]), 0.0, 1.0)
    return out[()] if out.ndim == 0 else out


def binomial_ppf(q, trials, p):
    """``scipy.stats.binom.ppf(q, trials, p)``: the smallest ``k`` with ``Pr{X <= k} >= q``
    (Boost's) for ``0 < q < 1``; -1 at ``q = 0`` and ``trials`` at ``q = 1``; NaN elsewhere.

    Examples
    --------
    >>> binomial_ppf([0.0, 0.3, 0.5, 1.0], 2, 0.5).tolist()
    [-1.0, 1.0, 1.0, 2.0]
    """
    q, trials, p, valid = _arguments(q, trials, p)
    out = np.full(q.shape, np.nan)
    out[valid & (q == 0)] = -1.0
    at_one = valid & (q == 1)
    out[at_one] = trials[at_one]
    inside = valid & (q > 0) & (q < 1)
    out[inside] = boost_binomial_ppf(q[inside], trials[inside], p[inside])
    return out[()] if out.ndim == 0 else out
