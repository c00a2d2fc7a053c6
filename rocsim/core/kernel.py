"""Kernel-smoothed ROC curve and its pointwise interval: the comparator of figures 4.6-4.8.

Hall, Hyndman & Fan (2004), "Nonparametric confidence intervals for receiver operating
characteristic curves", Biometrika 91(3); bandwidths from the normal-reference selector of
Hall & Hyndman (2003), "Improved methods for bandwidth selection when estimating ROC curves",
Statistics & Probability Letters 64. Formulas as in :ref:`reading-kernel`.

With ``F`` and ``G`` the Gaussian-kernel estimates of the negative and positive score CDFs and
``f``, ``g`` their densities, the smoothed ROC at FPR ``p`` is ``R(p) = 1 - G(u)`` with
``u = F^{-1}(1 - p)`` and the interval is ``R(p) +- z sigma(p)``,
``sigma^2(p) = G(u)(1 - G(u))/n+ + p(1 - p) [g(u)/f(u)]^2 / n-``.

The four kernel estimates are evaluated on a fine grid by linear binning and one FFT
convolution each (Wand & Jones 1995, ch. 3), so the cost is ``O(n + M log M)`` with no loop over
instances.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import fft as sp_fft
from scipy import special

from rocsim.core._validation import check_confidence_level, check_rates, check_two_classes
from rocsim.core.formulas import normal_quantile
from rocsim.core.results import Result, clip_bounds

#: Grid points of the binned kernel estimates. Linear binning errs by O((spacing / h)^2); with
#: 2**12 points the smoothed TPR and its bounds are within 1e-5 of the direct kernel sums
#: (tests/test_kernel.py), at a quarter of the cost of 2**14.
GRID_SIZE = 2**12


def hall_hyndman_bandwidth(x: np.ndarray, y: np.ndarray) -> float:
    """Normal-reference bandwidth for smoothing sample ``x`` against the other class ``y``.

    ``h^3 = 4 sx^3 (sx^2+sy^2)^{5/2} exp[sx^2 d^2 / ((sx^2+sy^2)(2sx^2+sy^2))] /
    [n sqrt(2sx^2+sy^2) (sy^4 + sx^2 sy^2 + 2 sx^2 d^2)]`` with ``d = mean(x) - mean(y)``
    (Hall & Hyndman 2003; :ref:`reading-kernel`).
    """
    sx, sy = np.std(x, ddof=1), np.std(y, ddof=1)
    d2 = (np.mean(x) - np.mean(y)) ** 2
    sx2, sy2 = sx * sx, sy * sy
    num = 4 * sx**3 * (sx2 + sy2) ** 2.5 * np.exp(sx2 * d2 / ((sx2 + sy2) * (2 * sx2 + sy2)))
    den = x.size * np.sqrt(2 * sx2 + sy2) * (sy2 * sy2 + sx2 * sy2 + 2 * sx2 * d2)
    return float(np.cbrt(num / den))


@dataclass(frozen=True, repr=False)
class KernelROC(Result):
    """Smoothed ROC ``tpr`` at ``fpr`` with its interval (clipped to [0, 1], ``clipped``) and
    the bandwidths; unpacks as ``tpr, low, high``."""

    fpr: np.ndarray
    tpr: np.ndarray
    low: np.ndarray
    high: np.ndarray
    h_pos: float
    h_neg: float
    confidence_level: float
    clipped: np.ndarray
    method: str = "hall_hyndman"

    _columns = ("fpr", "tpr", "low", "high", "clipped")
    _settings = ("confidence_level", "method", "h_pos", "h_neg")
    _plot_kind = "vertical"

    def _summary(self) -> str:
        return f"kernel-smoothed TPR at {self.fpr.size} FPRs ({self._level_and_method()})"

    def __iter__(self):
        yield self.tpr
        yield self.low
        yield self.high


def _linear_bins(x: np.ndarray, h: float, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Linear-binning weights of ``x`` on ``grid`` (equally spaced) and the kernel lags
    ``(grid[i] - grid[j]) / h`` in order, ``-(m - 1) .. m - 1`` steps."""
    m = grid.size
    delta = grid[1] - grid[0]
    pos = (x - grid[0]) / delta
    left = np.clip(np.floor(pos).astype(np.int64), 0, m - 2)
    frac = pos - left
    counts = np.bincount(left, 1 - frac, minlength=m) + np.bincount(left + 1, frac, minlength=m)
    return counts, np.arange(-(m - 1), m) * delta / h


def _binned_cdf_pdf(x: np.ndarray, h: float, grid: np.ndarray):
    """Kernel CDF and density of ``x`` at ``grid`` (equally spaced) by linear binning."""
    return _binned_estimates([x], [h], grid)[0]


def _binned_estimates(
    samples: Sequence[np.ndarray], bandwidths: Sequence[float], grid: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`_binned_cdf_pdf` of every sample (with its bandwidth) at ``grid``, each
    transform of scipy.signal.fftconvolve's full convolutions (its transform length and its
    steps) computed once, all of them in one call and the inverses in another: pocketfft
    transforms each row as it would transform it alone (the same values, fewer calls)."""
    m = grid.size
    lags_size = 2 * m - 1
    full = m + lags_size - 1
    length = sp_fft.next_fast_len(full, True)
    # per sample: its bin counts and its two kernels, zero-padded to the transform length
    # (as rfftn pads a shorter input)
    rows = np.zeros((3 * len(samples), length))
    for i, (x, h) in enumerate(zip(samples, bandwidths)):
        counts, lags = _linear_bins(x, h, grid)
        rows[3 * i, :m] = counts
        rows[3 * i + 1, :lags_size] = special.ndtr(lags)
        rows[3 * i + 2, :lags_size] = np.exp(-0.5 * lags * lags)
    spectra = sp_fft.rfftn(rows, axes=[1])
    products = np.empty((2 * len(samples), spectra.shape[1]), dtype=spectra.dtype)
    for i in range(len(samples)):
        products[2 * i] = spectra[3 * i] * spectra[3 * i + 1]
        products[2 * i + 1] = spectra[3 * i] * spectra[3 * i + 2]
    convolved = sp_fft.irfftn(products, [length], axes=[1])[:, :full]
    out = []
    for i, (x, h) in enumerate(zip(samples, bandwidths)):
        cdf = convolved[2 * i, m - 1 : 2 * m - 1] / x.size
        pdf = convolved[2 * i + 1, m - 1 : 2 * m - 1]
        pdf /= x.size * h * np.sqrt(2 * np.pi)
        out.append((np.clip(cdf, 0.0, 1.0), np.maximum(pdf, 0.0)))
    return out


def kernel_roc_ci(
    pos_scores,
    neg_scores,
    fpr,
    *,
    confidence_level: float = 0.95,
    bandwidth_scale: float = 1.0,
) -> KernelROC:
    """Kernel-smoothed TPR at each FPR with the Hall-Hyndman-Fan pointwise interval.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
    fpr : array-like of shape (h,)
        FPRs in (0, 1).
    confidence_level : float, default 0.95
    bandwidth_scale : float, default 1.0
        Multiplies both normal-reference bandwidths (1: Hall & Hyndman's selector as
        published; smaller values smooth the tails less).

    Returns
    -------
    KernelROC
        Unpacks as ``tpr, low, high`` (bounds clipped to [0, 1]).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> roc = kernel_roc_ci(rng.normal(1, 1, 500), rng.normal(0, 1, 500), [0.5])
    >>> bool(roc.low[0] < roc.tpr[0] < roc.high[0])
    True
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    level = check_confidence_level(confidence_level)
    p = check_rates(fpr, "fpr")
    for scores, name in ((pos, "pos_scores"), (neg, "neg_scores")):
        # the normal-reference bandwidth needs a sample standard deviation above 0
        if scores.size < 2 or np.ptp(scores) == 0:
            raise ValueError(
                f"{name}: kernel smoothing needs at least 2 distinct scores per class "
                f"(got {scores.size} score(s), {np.unique(scores).size} distinct)"
            )
    if not (isinstance(bandwidth_scale, int | float) and 0 < bandwidth_scale < np.inf):
        raise ValueError(f"bandwidth_scale must be a positive number, got {bandwidth_scale!r}")
    h_neg = bandwidth_scale * hall_hyndman_bandwidth(neg, pos)
    h_pos = bandwidth_scale * hall_hyndman_bandwidth(pos, neg)
    reach = 8 * max(h_neg, h_pos)
    grid = np.linspace(
        min(pos.min(), neg.min()) - reach, max(pos.max(), neg.max()) + reach, GRID_SIZE
    )
    (big_f, small_f), (big_g, small_g) = _binned_estimates([neg, pos], [h_neg, h_pos], grid)
    u = np.interp(1 - p, np.maximum.accumulate(big_f), grid)
    g_u = np.interp(u, grid, big_g)
    ratio = np.interp(u, grid, small_g) / np.maximum(np.interp(u, grid, small_f), 1e-300)
    with np.errstate(over="ignore"):  # far in a tail f(u) ~ 0: sigma = inf, interval [0, 1]
        sigma = np.sqrt(g_u * (1 - g_u) / pos.size + p * (1 - p) * ratio**2 / neg.size)
    tpr = 1 - g_u
    z = normal_quantile(level)
    low, high, clipped = clip_bounds(tpr - z * sigma, tpr + z * sigma, (0.0, 1.0))
    return KernelROC(p, tpr, low, high, h_pos, h_neg, level, clipped)
