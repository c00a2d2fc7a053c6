"""The law of the difference of two cells of a multinomial, ``B - C`` for
``(B, C, rest) ~ Mult(m; b, c, 1 - b - c)``, by its characteristic function.

``E[z^(B - C)] = (1 - b - c + b z + c / z)^m``: evaluated at the ``L``-th roots of unity and
inverted by one FFT, it gives ``Pr{B - C = d}`` summed over each residue class of ``d`` modulo
``L``; with ``L`` at least the width of a window holding all but a negligible mass (every window
here leaves out less than ``1e-18``), each residue is one ``d`` of the window plus that folded
mass. The power is ``exp(m log(1 + x))`` with ``log(1 + x)`` computed as ``log1p`` of its
modulus and the argument apart, so that its rounding is relative to ``x``, not to 1: the pmf's
absolute error is of the order of ``1e-16`` (``tests/test_net_benefit.py`` checks it against
the sum over ``B + C`` of binomial laws, and the law against the enumeration of every resample).
It costs one FFT of the window's size per row, where the sum over ``B + C`` costs a binomial
pmf per pair of values.
"""

from __future__ import annotations

import numpy as np


def difference_pmf(m: int, b: np.ndarray, c: np.ndarray, lo: np.ndarray, width: int) -> np.ndarray:
    """``pmf[row, j] = Pr{B - C = lo[row] + j}`` (``j < width``) for ``(B, C)`` two cells of
    ``Mult(m; b[row], c[row], 1 - b[row] - c[row])``; the window ``[lo, lo + width)`` must hold
    all but a negligible mass of the law (the mass outside is folded into it).

    Examples
    --------
    >>> difference_pmf(2, np.array([0.5]), np.array([0.5]), np.array([-2]), 5).round(12)
    array([[0.25, 0.  , 0.5 , 0.  , 0.25]])
    """
    b, c = np.asarray(b, dtype=float)[:, None], np.asarray(c, dtype=float)[:, None]
    size = 1 << max(int(width - 1).bit_length(), 1)
    # the law is real, so its transform at -angle is the conjugate of that at angle: half the
    # roots of unity and an inverse real FFT suffice
    angle = -2 * np.pi * np.arange(size // 2 + 1) / size
    # 1 + x = 1 - b - c + b z + c / z at z = e^(i angle): x = (b + c)(cos - 1) + i (b - c) sin
    cos, sin = np.cos(angle), np.sin(angle)
    real, imag = (b + c) * (cos - 1), (b - c) * sin
    along = (1 - b - c) + (b + c) * cos  # 1 + real, exact where it nears 0
    spread = real * (2 + real) + imag * imag  # |1 + x|^2 - 1, exact where it nears 0
    with np.errstate(divide="ignore"):  # 1 + x = 0 (no rest, b = c): the power is 0 there
        # log1p where |1 + x| nears 1, the square itself where it nears 0
        log_square = np.where(
            spread > -0.5, np.log1p(np.maximum(spread, -0.5)), np.log(along**2 + imag * imag)
        )
    power = np.exp(0.5 * m * log_square + 1j * (m * np.arctan2(imag, along)))
    residues = np.fft.irfft(power, n=size, axis=1)
    at = (np.asarray(lo, dtype=np.int64)[:, None] + np.arange(width)) % size
    # rounding leaves values of order 1e-17 about 0 where the law has no mass
    return np.maximum(np.take_along_axis(residues, at, axis=1), 0.0)
