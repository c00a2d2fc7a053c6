"""ROC curves of a user's classifiers: pointwise intervals (:func:`roc_ci`) and where one
classifier beats another (:func:`compare_roc`), on ``(y_true, y_score)``."""

from __future__ import annotations

import numpy as np
from scipy import special

from rocsim.analysis._input import (
    check_placement,
    orient,
    placed_rates,
    placed_thresholds,
    ranks_per_request,
    scored,
    threshold_pair,
    thresholds_at_ratio,
    verdict,
)
from rocsim.analysis.results import ROCBands, ROCComparison
from rocsim.core._validation import check_choice, check_confidence_level
from rocsim.core.band_comparators import COMPARATOR_BANDS
from rocsim.core.bands import BANDS, band_ci
from rocsim.core.confidence_band import CONFIDENCE_BAND_METHODS
from rocsim.core.difference_band import difference_band
from rocsim.core.horizontal import from_swapped, horizontal_ci
from rocsim.core.paired_threshold import dominance_probability, threshold_difference_ci
from rocsim.core.paired_vertical import vertical_difference_ci
from rocsim.core.roc import roc_curve
from rocsim.core.threshold import threshold_ci
from rocsim.core.vertical import TIES, vertical_ci, vertical_distribution

#: Largest class for the paired vertical difference, whose cost grows with n per FPR.
PAIRED_VERTICAL_LIMIT = 100_000


def roc_ci(
    y_true,
    y_score,
    *,
    averaging: str = "threshold",
    at=None,
    thresholds=None,
    confidence_level: float = 0.95,
    method: str | None = None,
    bootstrap: str = "stratified",
    side: str = "lower",
    pos_label=None,
    direction: str = "higher",
    band: str = "pointwise",
    ties: str = "step",
) -> ROCBands:
    """Confidence intervals of a classifier's ROC curve, from the exact bootstrap: pointwise,
    or a band for the whole curve.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, any two values.
    y_score : array-like of shape (n,)
        Scores, higher meaning positive (probabilities, logits, ...; see ``direction``).
    averaging : {"threshold", "vertical", "horizontal"}, default "threshold"
        ``threshold``: rectangles for (FPR, TPR) at fixed thresholds (Algorithm 4.1, each axis
        at ``sqrt(confidence_level)``; pROC's ``ci.thresholds`` uses the level per axis);
        ``vertical``: intervals for TPR at fixed FPRs (Algorithm 4.3; sensitivity at fixed
        specificity, pROC's ``ci.se``); ``horizontal``: intervals for FPR at fixed TPRs
        (specificity ``1 - FPR`` at fixed sensitivity, pROC's ``ci.sp``;
        :func:`rocsim.core.horizontal_ci`).
    at : array-like, optional
        Where to place the points, as rates in (0, 1) on the averaging's axis: total positive
        ratios ``q`` (threshold averaging; the threshold is the score putting a share ``q`` of
        the instances at or above it), FPRs (vertical; each moved to the nearest ``r/n-``,
        reported in the ``fpr`` column) or TPRs (horizontal; each moved to the nearest
        ``k/n+``, reported in ``tpr``). One row per requested rate, in the given order,
        even where two rates share a threshold or a rank. Default: 0.01, ..., 0.99, each
        distinct threshold or rank once.
    thresholds : array-like, optional
        Score thresholds instead of ``at`` (threshold averaging only); one row each.
    confidence_level : float, default 0.95
    method : str, optional
        Interval method: ``score`` (the default), ``wald``, ``agresti`` or ``percentile`` (the
        exact bootstrap quantiles); threshold averaging also takes every other proportion
        method (``jeffreys``, ``clopper_pearson``). ``band="simultaneous"`` takes ``wald``
        (its default) or ``score``; ``band="bootstrap-containment"`` defaults to
        ``percentile``.
    bootstrap : {"stratified", "full"}, default "stratified"
    side : {"lower", "upper"}, default "lower"
        Vertical averaging: which end of the ROC curve's vertical step at FPR ``r/n-``.
        ``lower`` (the thesis): positives scoring at least the ``r``-th largest negative;
        ``upper`` (pROC's ``coords`` and ``ci.se``): positives scoring above the
        ``(r + 1)``-th largest negative. Both exact; see
        :func:`rocsim.core.vertical_distribution`.
    pos_label : optional
        The positive label (needed unless the labels are 0/1, -1/1 or booleans).
    direction : {"higher", "lower", "auto"}, default "higher"
        ``higher``: higher scores mean positive (scikit-learn's rule); ``lower``: lower scores
        mean positive (thresholds stay on your scale: positive means ``score <= t``);
        ``auto``: chosen from the data as pROC's ``roc()`` does (by the classes' medians),
        and reported as ``direction`` on the result. A curve lying clearly below the diagonal
        is reported with a :class:`~rocsim.analysis.DirectionWarning`.
    band : {"pointwise", "bonferroni", "simultaneous", "bootstrap-containment", \
"working-hotelling", "ks", "fixed-width"}, default "pointwise"
        Vertical and horizontal averaging; ``at`` places the band's points.

        - ``pointwise``: each point's interval holds with probability ``confidence_level``.
        - ``bonferroni``: each point's interval of ``method`` at ``1 - (1 - confidence_level)
          / k`` over the ``k`` distinct points (FPR or TPR ranks).
        - ``simultaneous`` (stratified bootstrap): a confidence band for the **true** curve,
          meant to hold it at every point at once with probability ``confidence_level``: the
          sup-t band ``mean +- c sd`` on the exact bootstrap law (``method="score"`` widens it
          to the score-type interval at ``c``), with distribution-free floors at the lowest
          FPRs (:mod:`rocsim.core.confidence_band`). ``critical_value`` is ``c``,
          ``pointwise_level`` the level it amounts to per point, ``containment`` the share
          of bootstrap curves inside and ``calibration`` how that share was computed
          (``"exact"`` up to about 100 instances per class, ``"gaussian copula"`` on the
          exact marginal laws beyond). Its coverage of the true curve, measured by the band
          studies, is in ``docs/bands_study.md``.
        - ``bootstrap-containment`` (stratified bootstrap): each point's interval of
          ``method`` at the smallest common level at which the whole *bootstrap* curve lies
          inside with probability at least ``confidence_level`` (:mod:`rocsim.core.curve_band`;
          the result's ``containment``). It holds the bootstrap curves, not the true curve:
          where the data's TPR reaches 1 the bootstrap law has no spread and the band none.
        - The literature's bands, for comparison (:mod:`rocsim.core.band_comparators`;
          ``method`` is not used): ``working-hotelling`` (Ma & Hall 1993, binormal), ``ks``
          (Campbell 1994, distribution-free, conservative) and ``fixed-width`` (Macskassy et
          al. 2005; its width calibrated on the bootstrap law, its containment reported);
          ``critical_value`` is the band's constant.
    ties : {"step", "interpolate"}, default "step"
        Vertical and horizontal averaging: how a score shared by a positive and a negative is
        read. ``step`` (the thesis): the curve of the thresholds ``score >= t``.
        ``interpolate``: linearly along the diagonal segment the shared score draws, as
        pROC's ``coords``, ``ci.se`` and ``ci.sp`` read it; with an ordinal score (a clinical
        scale) the two readings give very different intervals. Exact either way
        (:mod:`rocsim.core.interpolated`; stratified bootstrap; methods ``score``, ``wald``,
        ``percentile``; not with ``band="simultaneous"``). pROC's ``ci.se`` is
        ``side="upper", ties="interpolate", method="percentile"``.

    Returns
    -------
    ROCBands
        Columns ``fpr, fpr_low, fpr_high, tpr, tpr_low, tpr_high``; threshold averaging adds
        ``q`` (the requested ratio; absent when ``thresholds`` are given) and ``threshold``;
        vertical adds ``at`` (the requested FPR; ``fpr`` is the one used) and ``mean`` (the
        bootstrap mean of TPR); horizontal adds ``at`` (the requested TPR; ``tpr`` is the one
        used) and ``mean`` (the bootstrap mean of FPR).

    See Also
    --------
    rocsim.ROCBandDisplay : the same intervals drawn, from predictions or an estimator.

    Notes
    -----
    .. coverage quote: roc_ci

    Measured simultaneous coverage of the true curve at level 0.95 (the band studies,
    :doc:`/bands_study`; mean over the models and AUCs per n and averaging, lowest and highest of
    those means, and the lowest condition): ``pointwise`` 0.694-0.794 (lowest 0.171);
    ``bonferroni`` 0.921-0.967 (lowest 0.855); ``simultaneous, wald`` 0.967-0.999 (lowest 0.958);
    ``simultaneous, score`` 0.975-1.000 (lowest 0.969); ``bootstrap-containment`` 0.390-0.592
    (lowest 0.000); ``working-hotelling`` 0.359-0.650 (lowest 0.000); ``ks`` 1.000-1.000 (lowest
    0.999); ``fixed-width`` 0.945-0.975 (lowest 0.883).

    .. end of coverage quote

    References
    ----------
    Gadoury (2009), sections 4.1-4.2, Algorithms 4.1 and 4.3. Robin et al. (2011), pROC,
    BMC Bioinformatics 12:77 (the upper side, ``ci.se`` and ``ci.sp``).

    Examples
    --------
    >>> y, s = [1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.3, 0.2]
    >>> bands = roc_ci(y, s, thresholds=[0.65])
    >>> bands.to_frame()[["threshold", "fpr", "tpr"]].round(3).values.tolist()
    [[0.65, 0.333, 0.667]]
    >>> bands = roc_ci(y, s, at=[0.5])  # half the instances at or above the threshold
    >>> bands.to_frame()[["q", "threshold", "fpr", "tpr"]].round(3).values.tolist()
    [[0.5, 0.7, 0.333, 0.667]]
    """
    # every argument is checked here, once: the helpers below trust what they are given
    data = scored(y_true, y_score, pos_label=pos_label, direction=direction)
    check_placement(averaging, at, thresholds, side)
    check_band(band, averaging)
    check_ties(ties, averaging, band)
    method = band_method(method, band, bootstrap)
    level = check_confidence_level(confidence_level)
    pos, neg = data.classes()
    common = {
        "averaging": averaging,
        "bootstrap": bootstrap,
        "n_pos": pos.size,
        "n_neg": neg.size,
        "curve": roc_curve(pos, neg)[:2],
        "direction": data.direction,
    }
    if averaging == "threshold":
        return _threshold_rectangles(
            pos, neg, data, at, thresholds, level, method, bootstrap, common
        )
    if band in WHOLE_CURVE_BANDS:
        return _whole_curve_bands(pos, neg, averaging, at, level, method, side, band, common)
    return _pointwise_bands(
        pos, neg, averaging, at, level, method, bootstrap, side, band, ties, common
    )


def _threshold_rectangles(
    pos, neg, data, at, thresholds, level, method, bootstrap, common
) -> ROCBands:
    """:func:`roc_ci` under threshold averaging: a rectangle for (FPR, TPR) at each threshold
    placed by ``at`` or given as ``thresholds``, reported on the user's scale of scores."""
    sign = data.signs[0]
    t, requested = placed_thresholds(data.scores[0], at, thresholds, sign)
    ci = threshold_ci(pos, neg, t, confidence_level=level, method=method, bootstrap=bootstrap)
    return ROCBands(
        fpr=ci.fpr,
        fpr_low=ci.fpr_low,
        fpr_high=ci.fpr_high,
        tpr=ci.tpr,
        tpr_low=ci.tpr_low,
        tpr_high=ci.tpr_high,
        q=requested,
        threshold=orient(ci.thresholds, sign),
        confidence_level=ci.confidence_level,
        method=ci.method,
        axis_level=ci.axis_level,
        **common,
    )


def _pointwise_bands(
    pos, neg, averaging, at, level, method, bootstrap, side, band, ties, common
) -> ROCBands:
    """:func:`roc_ci`'s pointwise or Bonferroni bands, each point's interval on its own law:
    of TPR at the FPRs ``r/n-`` nearest ``at``, on the ``side`` of each vertical step
    (vertical averaging), or of FPR at the TPRs ``k/n+`` nearest ``at`` (horizontal)."""
    if averaging == "horizontal":
        requested, ranks, index = ranks_per_request(at, pos.size, "horizontal")
        interval, averaged, reading = horizontal_ci, "fpr", {"ties": ties}
    else:
        requested, ranks, index = ranks_per_request(at, neg.size)
        interval, averaged, reading = vertical_ci, "tpr", {"side": side, "ties": ties}
    ci = interval(
        pos,
        neg,
        ranks,
        confidence_level=pointwise_level(level, band, ranks.size),
        method=method,
        bootstrap=bootstrap,
        **reading,
    )
    return _averaged_bands(ci, requested, index, averaged, level, band, **reading, **common)


#: Bands calibrated on the law of the whole curve, or the literature's.
WHOLE_CURVE_BANDS = ("simultaneous", "bootstrap-containment", *COMPARATOR_BANDS)
#: Bands built on the stratified bootstrap's law of the whole curve.
STRATIFIED_BANDS = ("simultaneous", "bootstrap-containment", "fixed-width")


def band_method(method: str | None, band: str, bootstrap: str) -> str:
    """The interval method of :func:`roc_ci` for ``band``: ``method``, or the band's default
    (``wald`` for the simultaneous band, ``percentile`` for the bootstrap-containment band,
    ``score`` otherwise); the simultaneous band takes only its own shapes, and the bands of
    the whole curve's law need the stratified bootstrap."""
    if band in STRATIFIED_BANDS and bootstrap != "stratified":
        raise ValueError(f"band={band!r} needs bootstrap='stratified'")
    if band == "simultaneous":
        if method not in (None, *CONFIDENCE_BAND_METHODS):
            raise ValueError(
                f"band='simultaneous' (the band for the true curve) takes method='wald' or "
                f"'score', got method={method!r}; the {method} intervals at the level holding "
                f"a share of the bootstrap curves are band='bootstrap-containment'"
            )
        return method or "wald"
    if method is None:
        return "percentile" if band == "bootstrap-containment" else "score"
    return method


def _whole_curve_bands(pos, neg, averaging, at, level, method, side, band, common) -> ROCBands:
    """:func:`roc_ci`'s bands over the whole curve: rocsim's (the band for the true curve, or
    the exact law's pointwise intervals at the level holding a share of the bootstrap
    curves) or a comparator's; horizontal averaging on the classes exchanged (upper
    side)."""
    if averaging == "horizontal":
        requested, ranks, index = ranks_per_request(at, pos.size, "horizontal")
        first, second = -neg, -pos
        law = vertical_distribution(first, second, pos.size - ranks, side="upper")
        extra = {}
    else:
        requested, ranks, index = ranks_per_request(at, neg.size)
        first, second = pos, neg
        law = vertical_distribution(pos, neg, ranks, side=side)
        extra = {"side": side}
    built = band_ci(first, second, law, band, level, method)
    ci = built.ci
    extra |= {
        "critical_value": built.critical_value,
        "containment": built.containment,
        "calibration": built.calibration,
    }
    if averaging == "horizontal":
        ci = from_swapped(ci, ranks, pos.size)
    averaged = "tpr" if averaging == "vertical" else "fpr"
    return _averaged_bands(ci, requested, index, averaged, level, band, **extra, **common)


def check_band(band: str, averaging: str) -> None:
    """``band`` is one of :data:`BANDS`, and a band other than ``pointwise`` is asked of
    vertical or horizontal averaging."""
    check_choice(band, BANDS, "band")
    if band != "pointwise" and averaging == "threshold":
        raise ValueError(
            f"band={band!r} needs averaging='vertical' or 'horizontal' (threshold averaging "
            "gives rectangles at thresholds, not a band over rates)"
        )


def check_ties(ties: str, averaging: str, band: str) -> None:
    """``ties`` is one of :data:`~rocsim.core.vertical.TIES`; ``interpolate`` reads the curve
    between thresholds, so it applies to vertical and horizontal averaging, pointwise or
    Bonferroni (the simultaneous band's containment is built on the step reading)."""
    check_choice(ties, TIES, "ties")
    if ties == "step":
        return
    if averaging == "threshold":
        raise ValueError(
            "ties='interpolate' applies to averaging='vertical' or 'horizontal' (threshold "
            "averaging reads the curve at thresholds, where it has no diagonal segment)"
        )
    if band not in ("pointwise", "bonferroni"):
        raise ValueError(
            f"band={band!r} is built on the step reading of ties: use ties='step', "
            "or band='bonferroni' with ties='interpolate'"
        )


#: Bands of :func:`compare_roc`.
COMPARISON_BANDS = ("pointwise", "bonferroni", "simultaneous")


def check_comparison_band(band: str, averaging: str, method: str | None) -> None:
    """``band`` is one of :data:`COMPARISON_BANDS`, asked of vertical or horizontal
    averaging; the simultaneous band is calibrated for the Wald interval."""
    check_choice(band, COMPARISON_BANDS, "band")
    if band == "simultaneous" and method not in (None, "wald"):
        raise ValueError(
            f"band='simultaneous' widens the Wald interval on the exact moments (method="
            f"'wald'), got method={method!r}"
        )
    if band != "pointwise" and averaging == "threshold":
        raise ValueError(
            f"band={band!r} needs averaging='vertical' or 'horizontal' (threshold averaging "
            "gives rectangles at thresholds, not a band over rates)"
        )


def pointwise_level(level: float, band: str, points: int) -> float:
    """The level of each point's interval for the family level ``level`` (checked by the
    caller): the level itself, or Bonferroni's ``1 - (1 - level) / k`` over ``k`` points."""
    return level if band == "pointwise" else 1.0 - (1.0 - level) / points


def _averaged_bands(
    ci, requested, index, averaged: str, confidence_level: float, band: str, **fields
) -> ROCBands:
    """The bands of vertical (``averaged="tpr"``) or horizontal (``"fpr"``) averaging: the
    interval on the averaged rate, the other rate fixed at the data's value, at the points
    ``index`` of ``ci`` that answer the ``requested`` rates; ``ci`` at the per-point level of
    ``band`` for the family level ``confidence_level``."""
    fixed = "fpr" if averaged == "tpr" else "tpr"
    data_rate = getattr(ci, fixed)[index]
    return ROCBands(
        at=requested,
        mean=ci.mean[index],
        confidence_level=float(confidence_level),
        band=band,
        pointwise_level=None if band in COMPARATOR_BANDS else ci.confidence_level,
        method=ci.method,
        **{fixed: data_rate, f"{fixed}_low": data_rate, f"{fixed}_high": data_rate},
        **{averaged: getattr(ci, averaged)[index]},
        **{f"{averaged}_low": ci.low[index], f"{averaged}_high": ci.high[index]},
        **fields,
    )


def compare_roc(
    y_true,
    y_score1,
    y_score2,
    *,
    averaging: str = "threshold",
    at=None,
    thresholds=None,
    confidence_level: float = 0.95,
    method: str | None = None,
    side: str = "lower",
    pos_label=None,
    direction: str | tuple[str, str] = "higher",
    band: str = "pointwise",
) -> ROCComparison:
    """Where does one classifier's ROC curve beat the other's? Exact paired bootstrap.

    Both classifiers score the same instances, so the bootstrap resamples instances with both
    scores (stratified); the interval is on ``dTPR = TPR1 - TPR2``.

    Parameters
    ----------
    y_true, y_score1, y_score2 : array-like of shape (n,)
    averaging : {"threshold", "vertical", "horizontal"}, default "threshold"
        ``threshold``: at each total positive ratio ``q`` (share of instances predicted
        positive) each classifier uses its own threshold (the score putting a share ``q`` at or
        above it); then a higher TPR also means a lower FPR. Columns add the ``dfpr``
        interval (eqs. 4.8-4.9, each axis at ``sqrt(level)``) and the probabilities that each
        classifier dominates (eq. 4.5). ``vertical``: at fixed FPRs (Algorithm 4.4, exact,
        limited to ``PAIRED_VERTICAL_LIMIT`` per class); ``p_first_higher`` is then the
        Gaussian ``Pr{dTPR > 0}`` with the exact moments. ``horizontal``: ``dFPR = FPR1 -
        FPR2`` at fixed TPRs (the vertical algorithm with the classes exchanged; columns
        ``dfpr, dfpr_low, dfpr_high``, ``p_first_lower``; the first is better where its FPR
        is lower).
    at : array-like, optional
        Rates in (0, 1) on the averaging's axis: total positive ratios (threshold), FPRs
        (vertical, each moved to the nearest ``r/n-``, reported in ``fpr``) or TPRs
        (horizontal); one row per requested rate, in order. Default 0.01..0.99 (vertical and
        horizontal: each distinct rate once).
    thresholds : (array-like, array-like), optional
        Score thresholds instead of ``at`` (threshold averaging only): a pair ``(t1, t2)``
        of equal-length arrays (or an array of two rows), the first classifier's and the
        second's.
    confidence_level : float, default 0.95
    method : str, optional
        Threshold averaging: ``tango`` (default; Tango's score interval, which always
        contains the observed difference), ``score`` (the thesis's eq. 4.8), ``wald``,
        ``agresti`` or ``bonett_price``; vertical and horizontal: ``score`` (default) or
        ``wald``.
    side : {"lower", "upper"}, default "lower"
        Vertical averaging: which end of each curve's vertical step (:func:`roc_ci`).
    pos_label : optional
    direction : {"higher", "lower", "auto"} or a pair of them, default "higher"
        Which way each classifier's scores point (:func:`roc_ci`); two classifiers that seem
        scored in opposite directions are reported with a
        :class:`~rocsim.analysis.DirectionWarning`.
    band : {"pointwise", "bonferroni", "simultaneous"}, default "pointwise"
        Vertical and horizontal averaging; both make the statements of the result's
        ``overall`` ("first better somewhere", "... everywhere") family-wise: all right
        together with probability about ``confidence_level``.

        - ``bonferroni``: each point's interval at ``1 - (1 - confidence_level) / k`` over the
          ``k`` distinct points (Bonferroni's inequality, as far as each point's Gaussian
          interval holds its level at that far tail).
        - ``simultaneous``: a confidence band for the **true** difference of the curves, meant
          to hold it at every point at once with probability ``confidence_level``: the
          sup-t band ``mean +- c sd`` on the exact paired moments, widened to Tango's score
          interval at ``c`` (:mod:`rocsim.core.difference_band`). ``c`` (``critical_value``)
          is the sup-t critical value of the curve's Gaussian law, its correlation the
          large-sample one of the two curves' influence functions (**approximate**; the
          exact law across the points, both classifiers' thresholds at every point at once,
          is not built). Its coverage of the true difference, measured by the paired band
          study (``rocsim study=paired_bands``), is in ``docs/bands_study.md``.

    Returns
    -------
    ROCComparison
        ``verdict`` per point, and ``overall``: what they say together.

    Notes
    -----
    .. coverage quote: compare_roc

    Measured simultaneous coverage of the true difference at level 0.95 (the paired band study,
    :doc:`/bands_study`; mean over the pairs and correlations per n and averaging, and the lowest
    condition): ``pointwise`` 0.699-0.916 (lowest 0.670); ``bonferroni`` 0.979-0.998 (lowest
    0.974); ``simultaneous`` 0.971-0.993 (lowest 0.966).

    .. end of coverage quote

    References
    ----------
    Gadoury (2009), sections 4.3.2 and 4.4.2.

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0]
    >>> cmp = compare_roc(y, [0.9, 0.8, 0.4, 0.5, 0.3, 0.2], [0.9, 0.3, 0.4, 0.5, 0.8, 0.2],
    ...                   at=[0.5])
    >>> cmp.t1.tolist(), cmp.t2.tolist(), cmp.dtpr.round(4).tolist()
    ([0.5], [0.5], [0.3333])
    """
    data = scored(y_true, y_score1, y_score2, pos_label=pos_label, direction=direction)
    check_placement(averaging, at, thresholds, side)
    check_comparison_band(band, averaging, method)
    (pos1, neg1), (pos2, neg2) = data.classes(0), data.classes(1)
    common = {"n_pos": pos1.size, "n_neg": neg1.size, "direction": data.direction}
    if averaging == "threshold":
        return _compare_at_thresholds(data, at, thresholds, confidence_level, method, common)
    if max(pos1.size, neg1.size) > PAIRED_VERTICAL_LIMIT:
        raise ValueError(
            f"{averaging} averaging of two classifiers is limited to "
            f"{PAIRED_VERTICAL_LIMIT} instances per class (its cost grows with n "
            f"at every point); use averaging='threshold'"
        )
    family_level = check_confidence_level(confidence_level)
    band_of = _BandOfDifference(family_level, band, method)
    if averaging == "horizontal":
        # FPR at TPR k/n+ is 1 - (upper-side TPR at FPR (n+ - k)/n+) with the classes
        # exchanged and the scores negated (horizontal_ci), so dFPR = -(that difference)
        requested, ranks, index = ranks_per_request(at, pos1.size, "horizontal")
        law, low, high = band_of(((-neg1, -pos1), (-neg2, -pos2)), pos1.size - ranks, "upper")
        sd = np.sqrt(law.var)
        rows = {
            "tpr": ranks / pos1.size,
            "dfpr": -law.mean,
            "dfpr_low": -high,
            "dfpr_high": -low,
            "sd": sd,
            "p_first_lower": _gaussian_above_zero(law.mean, sd),
            "verdict": verdict(low, high),
        }
    else:
        requested, ranks, index = ranks_per_request(at, neg1.size)
        law, low, high = band_of(((pos1, neg1), (pos2, neg2)), ranks, side)
        sd = np.sqrt(law.var)
        rows = {
            "fpr": law.fpr,
            "dtpr": law.mean,
            "dtpr_low": low,
            "dtpr_high": high,
            "sd": sd,
            "p_first_higher": _gaussian_above_zero(law.mean, sd),
            "verdict": verdict(low, high),
        }
        common["side"] = side
    return ROCComparison(
        averaging=averaging,
        at=requested,
        confidence_level=family_level,
        band=band,
        pointwise_level=band_of.pointwise_level,
        method=band_of.method,
        algorithm=law.algorithm,
        critical_value=band_of.critical_value,
        **{k: v[index] for k, v in rows.items()},
        **common,
    )


class _BandOfDifference:
    """The intervals of ``TPR1 - TPR2`` at the ranks of :func:`compare_roc`'s vertical (and,
    on exchanged classes, horizontal) averaging, for its band; after a call, the method, the
    level of each point's interval and (simultaneous band) the critical value."""

    def __init__(self, family_level, band, method):
        self.family_level, self.band = family_level, band
        self.method = method or ("wald" if band == "simultaneous" else "score")
        self.pointwise_level: float | None = None
        self.critical_value: float | None = None

    def __call__(self, classes, ranks, side):
        """``(law, low, high)`` for the paired ``classes`` ``((pos1, neg1), (pos2, neg2))``."""
        (pos1, neg1), (pos2, neg2) = classes
        if self.band != "simultaneous":
            level = pointwise_level(self.family_level, self.band, ranks.size)
            ci = vertical_difference_ci(
                pos1,
                pos2,
                neg1,
                neg2,
                ranks,
                side=side,
                confidence_level=level,
                method=self.method,
            )
            self.pointwise_level = ci.confidence_level
            return ci, ci.low, ci.high
        band = difference_band(pos1, pos2, neg1, neg2, ranks, side, self.family_level)
        self.critical_value, self.pointwise_level = band.critical_value, band.pointwise_level
        return band.law, band.low, band.high


def _compare_at_thresholds(data, at, thresholds, confidence_level, method, common):
    """:func:`compare_roc` under threshold averaging: each classifier at its own threshold."""
    (pos1, neg1), (pos2, neg2) = data.classes(0), data.classes(1)
    method = method or "tango"
    q = None
    if thresholds is None:
        q = placed_rates(at, "at (total positive ratios)")
        t1, t2 = (thresholds_at_ratio(s, q) for s in data.scores)
    else:
        t1, t2 = threshold_pair(thresholds, data.signs)
    ci = threshold_difference_ci(
        pos1, pos2, neg1, neg2, t1, t2, confidence_level=confidence_level, method=method
    )
    first, second = dominance_probability(pos1, pos2, neg1, neg2, t1, t2)
    return ROCComparison(
        averaging="threshold",
        q=q,
        t1=orient(t1, data.signs[0]),
        t2=orient(t2, data.signs[1]),
        dtpr=ci.dtpr,
        dtpr_low=ci.dtpr_low,
        dtpr_high=ci.dtpr_high,
        dfpr=ci.dfpr,
        dfpr_low=ci.dfpr_low,
        dfpr_high=ci.dfpr_high,
        p_first_dominates=first,
        p_second_dominates=second,
        verdict=verdict(ci.dtpr_low, ci.dtpr_high),
        confidence_level=ci.confidence_level,
        method=method,
        **common,
    )


def _gaussian_above_zero(mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """``Pr{X > 0}`` for ``X ~ N(mean, sd^2)``; a point mass where ``sd = 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, special.ndtr(mean / sd), (mean > 0).astype(float))
