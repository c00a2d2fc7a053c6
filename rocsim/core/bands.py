"""Bands over the whole ROC curve by name, on the exact vertical law at the band's FPRs: the
pointwise intervals, Bonferroni's, rocsim's simultaneous band for the true curve
(:mod:`rocsim.core.confidence_band`), the band holding a share of the bootstrap curves
(:mod:`rocsim.core.curve_band`) and the literature's (:mod:`rocsim.core.band_comparators`).
The practitioner's ``roc_ci(band=...)`` and the band coverage study both build their bands
here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rocsim.core.band_comparators import (
    COMPARATOR_BANDS,
    fixed_width_band,
    ks_constant,
    shifted_band,
    working_hotelling_band,
)
from rocsim.core.confidence_band import confidence_band
from rocsim.core.curve_band import bootstrap_containment_ci
from rocsim.core.vertical import VerticalCI

#: Kinds of band: each point's interval at the level (``pointwise``); each at ``1 - alpha /
#: k`` so that all ``k`` hold at once with probability at least the level (``bonferroni``);
#: the band for the true curve (``simultaneous``: the sup-t band on the exact law with
#: distribution-free floors, :mod:`rocsim.core.confidence_band`); the method's intervals at the
#: common level at which the whole *bootstrap* curve lies inside with probability at least the
#: level (``bootstrap-containment``); and the literature's simultaneous bands
#: (:data:`~rocsim.core.band_comparators.COMPARATOR_BANDS`).
BANDS = ("pointwise", "bonferroni", "simultaneous", "bootstrap-containment", *COMPARATOR_BANDS)


@dataclass(frozen=True)
class Band:
    """A band at the FPRs of a vertical law: the intervals (a
    :class:`~rocsim.core.vertical.VerticalCI` on the law; its ``confidence_level`` the level
    of each point's interval for the exact-law bands), the band's kind, its critical value
    (``simultaneous`` and the comparators'), the share of bootstrap curves inside
    (``simultaneous``, ``bootstrap-containment`` and ``fixed-width``; else None) and how it
    was computed (``"exact"`` or ``"gaussian copula"``)."""

    ci: VerticalCI
    kind: str
    pointwise_level: float | None
    critical_value: float | None
    containment: float | None
    calibration: str | None = None


def band_ci(pos: np.ndarray, neg: np.ndarray, law, band: str, level: float, method) -> Band:
    """The ``band`` at the FPRs of ``law`` (the vertical law of ``pos``, ``neg``) for the
    family level ``level``; ``method`` is the pointwise interval method of the exact-law bands
    (the comparators do not use it).

    Internal: the caller has checked its arguments once, at its entry (:func:`rocsim.roc_ci`:
    ``band`` one of :data:`BANDS`, ``level`` a confidence level, and for
    ``band="simultaneous"`` ``method`` one of
    :data:`~rocsim.core.confidence_band.CONFIDENCE_BAND_METHODS`); nothing is checked again.

    Examples
    --------
    >>> from rocsim.core import vertical_distribution
    >>> pos, neg = np.array([0.9, 0.8, 0.3, 0.6]), np.array([0.7, 0.5, 0.2, 0.1])
    >>> law = vertical_distribution(pos, neg, [1, 2, 3])
    >>> band_ci(pos, neg, law, "bonferroni", 0.9, "wald").pointwise_level
    0.9666666666666667
    """
    if band in ("pointwise", "bonferroni"):
        pointwise = level if band == "pointwise" else 1.0 - (1.0 - level) / law.r.size
        return Band(law.ci(pointwise, method), band, pointwise, None, None)
    if band == "simultaneous":
        ci, calibrated = confidence_band(law, pos.size, level, method)
        return Band(
            ci,
            band,
            calibrated.pointwise_level,
            calibrated.critical_value,
            calibrated.containment,
            calibrated.how,
        )
    if band == "bootstrap-containment":
        ci, calibration = bootstrap_containment_ci(law, level, method)
        return Band(ci, band, ci.confidence_level, None, calibration.containment, calibration.how)
    containment = how = None
    if band == "working-hotelling":
        low, high = working_hotelling_band(pos, neg, law.fpr, level)
        constant = math.sqrt(-2.0 * math.log1p(-level))  # chi-square (2 df), square-rooted
    elif band == "ks":
        constant = ks_constant(level)
        low, high = shifted_band(pos, neg, law.fpr, constant)
    else:
        low, high, constant, calibration = fixed_width_band(pos, neg, law, level)
        containment, how = calibration.containment, calibration.how
    ci = VerticalCI.from_bounds(law, low, high, level, band)
    return Band(ci, band, None, constant, containment, how)
