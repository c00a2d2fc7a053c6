"""Partial area under the ROC curve over a range of FPRs, scikit-learn's and pROC's reading,
with a placement-value (DeLong-type) variance and its exact stratified-bootstrap variance.

The curve is the empirical ROC curve with tied scores joined by straight (diagonal) segments
and read linearly between its vertices, as ``sklearn.metrics.roc_auc_score(max_fpr=)`` and
pROC's ``auc(partial.auc=)`` read it. The raw area over ``FPR in [lo, hi]`` is the integral of
that curve; the standardised value is McClish's (1989),
``(1 + (A - A_min) / (A_max - A_min)) / 2`` with ``A_min = (hi^2 - lo^2) / 2`` (the diagonal)
and ``A_max = hi - lo`` (the perfect curve), which ``roc_auc_score(max_fpr=f)`` returns for
``lo = 0`` and pROC's ``partial.auc.correct=TRUE`` for any range.

As a sum over the negatives. Sort the negatives decreasingly, ``T_1 >= T_2 >= ...``; with
``H(y) = (#{x > y} + #{x = y} / 2) / n+`` (the positives' Mann-Whitney credit) the area from
FPR 0 to ``s / n-`` is

    A(s) = [sum_{t <= k} H(T_t) + (s - k) H(T_{k+1})] / n-  -  e(y) delta (B - delta) / (2 B n-),

``k = floor(s)``: every tie block of negatives ``y`` gets the mean height of its diagonal,
``H(y)``, per negative, and the block the cut falls in (``y = T_{k+1}``, ``B`` negatives, ``K``
of them above ``y`` and ``delta = s - K``) loses the part of the diagonal's triangle beyond the
cut (``e(y) = #{x = y} / n+``; no loss without a tie across the classes at ``y``). The area is
then linear in the positives (each positive's share, :func:`_placements`), and its influence
function for a negative ``y`` is ``(S_1(y) - TPR(f)) 1{y >= c_f}`` up to a constant (the
derivative of the quantile ``c_f`` cancels the density), whose sample version over the range
is the negatives' placement value. The variance ``S10 / n+ + S01 / n-`` of those placement
values is DeLong et al.'s (1988) for the whole area.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rocsim.core._deprecated import module_getattr
from rocsim.core._validation import (
    check_choice,
    check_confidence_level,
    check_paired,
    check_two_classes,
)
from rocsim.core.area import AUCDifferenceCI, check_hypothesis, hypothesis_summary
from rocsim.core.counting import count_above, count_at_or_above, sorted_scores
from rocsim.core.registry import names
from rocsim.core.results import Result
from rocsim.core.roc import roc_curve


def check_rate_range(lo: float, hi: float) -> tuple[float, float]:
    """``0 <= lo < hi <= 1`` as floats."""
    lo, hi = float(lo), float(hi)
    if not (0.0 <= lo < hi <= 1.0):
        raise ValueError(f"a partial AUC's range must satisfy 0 <= lo < hi <= 1, got ({lo}, {hi})")
    return lo, hi


def partial_area(pos: np.ndarray, neg: np.ndarray, lo: float, hi: float) -> float:
    """Raw area under the empirical ROC curve (diagonal ties) over ``FPR in [lo, hi]``, the
    curve interpolated linearly at ``lo`` and ``hi`` as ``roc_auc_score(max_fpr=)`` does.

    Examples
    --------
    >>> partial_area(np.array([0.9, 0.4]), np.array([0.6, 0.1]), 0.0, 0.5)
    0.25
    """
    fpr, tpr, _ = roc_curve(pos, neg)
    return _area_to(fpr, tpr, hi) - _area_to(fpr, tpr, lo)


def _area_to(fpr: np.ndarray, tpr: np.ndarray, f: float) -> float:
    """Area from FPR 0 to ``f`` (scikit-learn's arithmetic: the vertices up to ``f``, one
    interpolated point at ``f``, trapezoids)."""
    if f == 0.0:
        return 0.0
    if f == 1.0:
        return float(np.trapezoid(tpr, fpr))
    stop = int(np.searchsorted(fpr, f, "right"))
    at_f = np.interp(f, fpr[stop - 1 : stop + 1], tpr[stop - 1 : stop + 1])
    return float(np.trapezoid(np.append(tpr[:stop], at_f), np.append(fpr[:stop], f)))


def mcclish(area: float, lo: float, hi: float) -> float:
    """McClish's standardised partial area: 0.5 on the diagonal, 1 for a perfect curve."""
    return 0.5 * (1.0 + (area - (hi * hi - lo * lo) / 2) / (_span(lo, hi)))


def mcclish_scale(lo: float, hi: float) -> float:
    """The factor :func:`mcclish` multiplies the raw area by (its variance: the square)."""
    return 0.5 / _span(lo, hi)


def _span(lo: float, hi: float) -> float:
    """``A_max - A_min`` of the range."""
    return (hi - lo) - (hi * hi - lo * lo) / 2


def placement_values(
    pos: np.ndarray, neg: np.ndarray, lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(V10, V01)``, in the order of ``pos`` and ``neg``: each positive's share of the raw
    area over ``[lo, hi]`` (their mean is the area) and each negative's influence on it,
    ``w_j (H(y_j) - TPR(f))`` differenced between the two ends of the range (``w_j`` the share
    of negative ``j``'s FPR step inside ``[0, f]``, the same for tied negatives)."""
    order = np.argsort(-neg, kind="stable")
    neg_desc = neg[order]
    share_hi, influence_hi = _placements_to(pos, neg_desc, hi)
    share_lo, influence_lo = _placements_to(pos, neg_desc, lo)
    influence = np.empty(neg.size)
    influence[order] = influence_hi - influence_lo
    return share_hi - share_lo, influence


def _placements_to(
    pos: np.ndarray, neg_desc: np.ndarray, f: float
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`placement_values` for the range ``[0, f]`` (negatives sorted decreasingly)."""
    n_pos, n_neg = pos.size, neg_desc.size
    if f == 0.0:
        return np.zeros(n_pos), np.zeros(n_neg)
    cut = _Cut.of(neg_desc, f)
    pos_sorted = sorted_scores(pos)
    above = count_above(pos_sorted, neg_desc)
    tied = count_at_or_above(pos_sorted, neg_desc) - above
    height = (above + tied / 2) / n_pos  # H(T_t): the mean height of T_t's block
    # tied negatives are exchangeable: each gets its block's mean weight
    _, block, size = np.unique(neg_desc, return_inverse=True, return_counts=True)
    weight = (np.bincount(block, cut.weights) / size)[block]
    influence = weight * (height - cut.tpr(pos_sorted))
    # each positive's credit from the first k negatives and the fraction of the next: the
    # negatives of the range below it, ties one half
    asc = neg_desc[::-1]
    reached = n_neg - np.searchsorted(asc, pos, "left")  # G(x) = #{negatives >= x}
    strictly = n_neg - np.searchsorted(asc, pos, "right")  # #{negatives > x}
    k = cut.k
    credit = np.maximum(k - reached, 0) + (np.minimum(k, reached) - np.minimum(k, strictly)) / 2
    if cut.fraction:
        y = neg_desc[k]
        credit = credit + cut.fraction * np.where(pos > y, 1.0, np.where(pos == y, 0.5, 0.0))
    return (credit - np.where(pos == cut.value, cut.loss, 0.0)) / n_neg, influence


class _Cut:
    """Where FPR ``f`` cuts the sorted negatives: ``s = f n-``, ``k = floor(s)``, the weights
    ``w_t`` (1 for the first ``k`` negatives, ``s - k`` for the next), and the tie block of
    ``y = T_{k+1}`` that ``s`` falls in (``K`` negatives above it, ``B`` in it)."""

    def __init__(self, neg_desc: np.ndarray, f: float) -> None:
        n_neg = neg_desc.size
        s = f * n_neg
        self.k = k = min(int(np.floor(s)), n_neg)
        self.fraction = s - k if k < n_neg else 0.0
        self.weights = np.zeros(n_neg)
        self.weights[:k] = 1.0
        if k < n_neg:
            self.weights[k] = self.fraction
            self.value = neg_desc[k]
            asc = neg_desc[::-1]
            self.above = n_neg - int(np.searchsorted(asc, self.value, "right"))
            self.block = n_neg - int(np.searchsorted(asc, self.value, "left")) - self.above
            self.delta = s - self.above
        else:  # the cut at FPR 1: past every negative
            self.value, self.above, self.block, self.delta = np.nan, n_neg, 1, 0.0
        # the part of the cut block's diagonal triangle beyond the cut, per tied positive
        self.loss = self.delta * (self.block - self.delta) / (2 * self.block)

    @classmethod
    def of(cls, neg_desc: np.ndarray, f: float) -> _Cut:
        return cls(neg_desc, f)

    def tpr(self, pos_sorted: np.ndarray) -> float:
        """The curve's TPR at ``f``: on the cut block's diagonal, ``delta / B`` of the way."""
        n_pos = pos_sorted.size
        if np.isnan(self.value):
            return 1.0
        above = n_pos - int(np.searchsorted(pos_sorted, self.value, "right"))
        tied = n_pos - int(np.searchsorted(pos_sorted, self.value, "left")) - above
        return (above + tied * self.delta / self.block) / n_pos


#: Binomial terms and path states below this probability are left out of the exact variance
#: (each leaves out less than this of probability; the sums stay within about ``n`` times it).
TINY = 1e-22

#: A variance below this share of the area's second moment is the rounding error of their
#: difference (a degenerate area, which every resample gives), reported as 0: far above the
#: ulps the moments' sums carry, far below a real variance (a relative standard deviation of
#: the area of 1e-6).
ROUNDING = 1e-12


def exact_partial_area_var(pos: np.ndarray, neg: np.ndarray, lo: float, hi: float) -> float:
    """Exact variance of the raw partial area over ``FPR in [lo, hi]`` under the stratified
    bootstrap (each class resampled with replacement at its own size).

    Given the resampled negatives the area is linear in the resampled positives, so

        Var(A*) = E[Var(A* | neg*)] + Var(E[A* | neg*])
                = (1/n+) mean_x E[a(x; neg*)^2] + (1 - 1/n+) E[Abar^2] - E[Abar]^2,

    ``a(x; neg*)`` a positive's share (``phi / n-``, with ``phi`` a function of the resampled
    negatives above and tied with ``x`` alone: :func:`~rocsim.core._band.positive_moments`)
    and ``Abar(neg*)`` the area of the original positives against the resampled negatives.
    By Abel summation over the negatives' tie blocks (scores decreasing, ``C_j`` resampled
    negatives in blocks ``1..j``), ``n- Abar = sum_j (H_j - H_(j+1)) psi(C_j)`` less the cut
    blocks' triangles (module docstring), ``psi(c) = min(c, hi n-) - min(c, lo n-)``: a
    functional of the multinomial path ``C``, whose two moments one forward pass over the
    blocks gives (:func:`~rocsim.core._band.area_path_moments`).

    Examples
    --------
    The area up to FPR 1/2 is half the share of resampled positives above the larger
    resampled negative, which is 0.6 with probability 3/4: the variance is 9/256.

    >>> exact_partial_area_var(np.array([0.9, 0.4]), np.array([0.6, 0.1]), 0.0, 0.5) * 256
    9.0
    """
    from rocsim.core._band import positive_moments

    n_pos, n_neg = pos.size, neg.size
    mean_s, second_s = _resampled_negatives_moments(pos, neg, lo, hi)
    # the positives, grouped by the original negatives above and tied with them
    neg_sorted = sorted_scores(neg)
    neg_above = count_above(neg_sorted, pos)
    neg_at = count_at_or_above(neg_sorted, pos) - neg_above
    groups, size = np.unique(np.stack([neg_above, neg_at], axis=1), axis=0, return_counts=True)
    _, second_phi = positive_moments(
        n_neg,
        np.ascontiguousarray(groups[:, 0]),
        np.ascontiguousarray(groups[:, 1]),
        lo * n_neg,
        hi * n_neg,
        TINY,
    )
    within = float(size @ second_phi) / n_pos
    second = within / n_pos + (1 - 1 / n_pos) * second_s
    var = second - mean_s**2
    # a degenerate area (every resample gives it) leaves a rounding error of either sign, a
    # few ulps of the second moment: a variance that small is that error
    if var <= ROUNDING * second:
        return 0.0
    return var / n_neg**2


def _resampled_negatives_moments(
    pos: np.ndarray, neg: np.ndarray, lo: float, hi: float
) -> tuple[float, float]:
    """The first two moments of ``n- Abar(neg*)``, the area of the original positives against
    the resampled negatives (:func:`exact_partial_area_var`)."""
    from rocsim.core._band import area_path_moments

    n_pos, n_neg = pos.size, neg.size
    values, block = np.unique(-neg, return_counts=True)  # the negatives' tie blocks, decreasing
    values = -values
    pos_sorted = sorted_scores(pos)
    above = count_above(pos_sorted, values)
    tied = count_at_or_above(pos_sorted, values) - above
    heights = np.append((above + tied / 2) / n_pos, 0.0)
    return area_path_moments(
        block / n_neg,
        -np.diff(heights),
        tied / n_pos,
        heights,
        n_neg,
        lo * n_neg,
        hi * n_neg,
        TINY,
    )


def bootstrap_mean_area(pos: np.ndarray, neg: np.ndarray, lo: float, hi: float) -> float:
    """Exact mean of the raw partial area over ``FPR in [lo, hi]`` under the stratified
    bootstrap: given the resampled negatives the area is linear in the resampled positives,
    so ``E[A*]`` is the mean over the resampled negatives of the original positives' area
    against them (:func:`exact_partial_area_var`). ``E[A*] - A`` is the bootstrap's estimate
    of the area's bias (Efron & Tibshirani 1993, section 10.2), which the empirical partial
    area has, unlike the whole one: its expectation weights the true curve by a smoothed
    step that ends past ``hi`` (about ``ROC'(hi) hi (1 - hi) / (2 n-)`` too high).

    Examples
    --------
    The area up to FPR 1/2 is half the share of resampled positives above the larger
    resampled negative: 1/2 on average when that negative is 0.6 (probability 3/4), else 1
    (both negatives 0.1), a mean of 0.625 / 2.

    >>> bootstrap_mean_area(np.array([0.9, 0.4]), np.array([0.6, 0.1]), 0.0, 0.5) * 2
    0.625
    """
    return _resampled_negatives_moments(pos, neg, lo, hi)[0] / neg.size


@dataclass(frozen=True, repr=False)
class PartialAUCCI(Result):
    """Partial AUC of one classifier over a range of FPRs, with its variance and normal
    confidence interval.

    Attributes
    ----------
    auc : float
        McClish's standardised partial area (``roc_auc_score(max_fpr=hi)`` for ``lo = 0``).
    partial_area : float
        The raw area under the curve over the range.
    var : float
        Variance of ``auc`` by ``method`` (``logit_t``: the placement-value one, ``delong``'s).
    low, high : float
        ``auc -+ z sqrt(var)``, clipped to [0, 1]; ``logit_t``: the bounds of
        :func:`logit_t_interval`.
    focus : {"fpr", "tpr"}
        The axis of the range: FPRs (pROC's ``partial.auc.focus="specificity"``) or TPRs
        (``"sensitivity"``: the area between the curve and ``FPR = 1`` over the TPRs).
    range_low, range_high : float
        The range of rates.
    confidence_level : float
    method : str
    n_pos, n_neg : int
    p_value : float
        The test of ``auc = null`` against ``alternative`` that the interval inverts: normal on
        ``var``, or ``logit_t``'s t test.
    alternative : {"two-sided", "greater", "less"}
    null : float
    """

    auc: float
    partial_area: float
    var: float
    low: float
    high: float
    focus: str
    range_low: float
    range_high: float
    confidence_level: float
    method: str
    n_pos: int
    n_neg: int
    p_value: float = float("nan")
    alternative: str = "two-sided"
    null: float = 0.5

    _columns = ("auc", "partial_area", "var", "low", "high", "p_value")
    _settings = (
        "focus",
        "range_low",
        "range_high",
        "confidence_level",
        "method",
        "n_pos",
        "n_neg",
        "alternative",
        "null",
    )
    _plot_kind = None

    def _summary(self) -> str:
        rate = self.focus.upper()
        return (
            f"partial AUC ({rate} {self.range_low:g}-{self.range_high:g}, McClish) {self.auc:.3f} "
            f"[{self.low:.3f}, {self.high:.3f}]{hypothesis_summary(self)} "
            f"({self._level_and_method()}, "
            f"n+={self.n_pos}, n-={self.n_neg})"
        )


#: ``logit_t`` corrects the area's bias and takes the exact bootstrap variance where larger
#: only with at most this many negatives inside the range: both corrections are of relative
#: order ``1 / ((hi - lo) n-)``, and their exact computation takes time that grows with that
#: count (paths of the resampled negatives over the range).
FEW_IN_RANGE = 100

#: Interval methods of :func:`partial_auc_ci` (the first is the default).
PARTIAL_AUC_METHODS = names("partial_auc")

#: Methods of :func:`partial_auc_difference_ci`: DeLong's variance with the normal
#: quantile or with Student's t (the paired exact bootstrap law of two partial areas is not
#: built).
PARTIAL_AUC_DIFFERENCE_METHODS = names("partial_auc_difference")


#: Axes a partial AUC's range may be on.
FOCI = ("fpr", "tpr")


def partial_auc_ci(
    pos_scores,
    neg_scores,
    rate_range: tuple[float, float],
    *,
    focus: str = "fpr",
    confidence_level: float = 0.95,
    method: str = "delong",
    alternative: str = "two-sided",
    null: float = 0.5,
) -> PartialAUCCI:
    """Partial AUC over a range of FPRs or TPRs (McClish-standardised), with a confidence
    interval.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positives and the negatives; higher means more likely positive.
    rate_range : (float, float)
        ``(lo, hi)`` with ``0 <= lo < hi <= 1``; FPRs ``(0, f)`` is scikit-learn's
        ``max_fpr=f``.
    focus : {"fpr", "tpr"}, default "fpr"
        ``tpr``: the area between the curve and ``FPR = 1`` over the TPRs ``[lo, hi]``
        (pROC's ``partial.auc.focus="sensitivity"``): the FPR-range area of the classes
        exchanged and the scores negated, over FPRs ``[1 - hi, 1 - lo]``.
    confidence_level : float, default 0.95
    method : {"delong", "exact_bootstrap", "logit_t", "percentile"}, default "delong"
        ``delong``: the Wald interval on the placement-value variance ``S10 / n+ + S01 / n-``
        (module docstring). ``exact_bootstrap``: the Wald interval on the exact variance of
        the partial area under the stratified bootstrap (:func:`exact_partial_area_var`), no
        resampling. Either variance is scaled by McClish's factor. ``logit_t``: the
        placement-value variance (the exact bootstrap one where larger) on the logit scale of
        the area's share of its range, centred on the bias-corrected area (both corrections
        with at most :data:`FEW_IN_RANGE` negatives in the range), with a Student t quantile
        (:func:`logit_t_interval`), for small samples and narrow ranges.
        ``percentile``: the percentile bootstrap interval from the exact law of the partial
        area under the stratified bootstrap, no resampling
        (:func:`rocsim.core.partial_law.exact_partial_area_law`): the lower quantile
        ``inf{v : F(v) >= (1 - level) / 2}`` and the upper ``sup{v : S(v) >= (1 - level) /
        2}`` of the standardised area (``F(v) = P(A* <= v)``, ``S(v) = P(A* >= v)``;
        one-sided, ``1 - level`` and the other end 0 or 1), clipped to [0, 1]; ``var`` is the
        exact bootstrap one and ``p_value`` the percentile test that inverts the interval,
        ``min(1, 2 min(F(null), S(null)))`` (``greater``: ``F(null)``, ``less``:
        ``S(null)``), so that ``p < 1 - level`` exactly when ``null`` is outside it
        (:func:`rocsim.core.partial_law.percentile_interval`; a sum within ``1e-12`` of a tail
        reaches it). pROC's ``ci.auc`` of a partial AUC is this interval by Monte Carlo
        resampling; here without Monte Carlo error. The law's work grows as about
        ``n+ (n- f)^3`` (``f = hi - lo``; more with ties across the classes): a law beyond a
        few seconds' work is refused (``ValueError``) before it is computed.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
    null : float, default 0.5
        The one-sided interval and the test of the standardised partial AUC against ``null``
        (0.5: a classifier without skill), as :func:`rocsim.core.area.auc_ci` has them.

    Returns
    -------
    PartialAUCCI

    References
    ----------
    McClish, D. K. (1989). Analyzing a portion of the ROC curve. Medical Decision Making 9(3),
    190-195. DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Biometrics 44(3),
    837-845. Pepe, M. S. (2003). The Statistical Evaluation of Medical Tests for
    Classification and Prediction, section 5.2. Oxford University Press. Efron, B. &
    Tibshirani, R. J. (1993). An Introduction to the Bootstrap, chapter 13 (percentile
    intervals). Chapman & Hall. Robin, X. et al. (2011). pROC: an open-source package for R
    and S+ to analyze and compare ROC curves. BMC Bioinformatics 12, 77.

    Examples
    --------
    >>> r = partial_auc_ci([0.9, 0.8, 0.4, 0.7], [0.7, 0.4, 0.1, 0.3], (0.0, 0.5))
    >>> round(r.auc, 4), round(r.partial_area, 4)
    (0.8333, 0.375)
    >>> r = partial_auc_ci([0.9, 0.8, 0.4, 0.7], [0.7, 0.4, 0.1, 0.3], (0.0, 0.5),
    ...                          method="exact_bootstrap")
    >>> round(r.var, 6)
    0.016788
    >>> pos = [0.9, 0.8, 0.4, 0.7, 0.6, 0.35]
    >>> r = partial_auc_ci(pos, [0.7, 0.4, 0.1, 0.3, 0.5], (0.0, 0.4), method="logit_t")
    >>> round(r.auc, 4), round(r.low, 4), round(r.high, 4)
    (0.7135, 0.4347, 0.944)
    >>> r = partial_auc_ci(pos, [0.7, 0.4, 0.1, 0.3, 0.5], (0.0, 0.4), method="percentile")
    >>> round(r.low, 4), round(r.high, 4), round(r.p_value, 4)
    (0.4792, 1.0, 0.0926)
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    lo, hi = check_rate_range(*rate_range)
    check_choice(focus, FOCI, "partial AUC focus")
    level = check_confidence_level(confidence_level)
    check_choice(method, PARTIAL_AUC_METHODS, "partial AUC method")
    hypothesis = check_hypothesis(alternative, null, 0.0, 1.0)
    # a TPR range: the FPR range of the classes exchanged, scores negated
    first, second, a, b = _in_fpr_terms(pos, neg, lo, hi, focus)
    area = partial_area(first, second, a, b)
    value = mcclish(area, a, b)
    if method in ("exact_bootstrap", "percentile"):
        raw_var = exact_partial_area_var(first, second, a, b)
    else:
        _need_two_each(pos.size, neg.size)
        share, influence = placement_values(first, second, a, b)
        raw_var = _delong(share, influence)
    var = raw_var * mcclish_scale(a, b) ** 2
    if method == "percentile":
        from rocsim.core.partial_law import partial_area_law, percentile_interval

        # the errors name the range and the sizes as given (a TPR range's cuts are positives)
        ends = ("rate_range", "rate_range", "negatives" if focus == "fpr" else "positives")
        what = f"at n+={pos.size}, n-={neg.size} over {focus.upper()} [{lo:g}, {hi:g}]"
        values, probs = partial_area_law(first, second, a, b, ends, what)
        # on McClish's scale, clipped to [0, 1] as the Wald bounds are (an increasing map)
        scaled = np.clip(mcclish(values, a, b), 0.0, 1.0)
        (low, high), p_value = percentile_interval(
            scaled, probs, level, hypothesis.alternative, hypothesis.null
        )
    elif method == "logit_t" and var > 0.0 and 0.0 < area < b - a:
        centre, scale = area, 1.0
        if (b - a) * second.size <= FEW_IN_RANGE:
            centre = bias_corrected_area(first, second, a, b, area)
            # the exact bootstrap variance, where larger: it holds the second-order term the
            # placement values leave out, sizeable with a handful of negatives in the range
            scale = max(exact_partial_area_var(first, second, a, b) / raw_var, 1.0)
        (low, high), p_value = logit_t_interval(
            centre,
            share,
            influence,
            a,
            b,
            level,
            hypothesis.alternative,
            hypothesis.null,
            variance_scale=scale,
        )
    else:  # Wald; a sure value (no variance, or no logit at the ends) for logit_t
        low, high = hypothesis.interval(value, var, level)
        p_value = hypothesis.p_value(value, var)
    return PartialAUCCI(
        value,
        area,
        var,
        low,
        high,
        focus,
        lo,
        hi,
        level,
        method,
        pos.size,
        neg.size,
        p_value,
        hypothesis.alternative,
        hypothesis.null,
    )


def bias_corrected_area(
    pos: np.ndarray, neg: np.ndarray, lo: float, hi: float, area: float
) -> float:
    """``2 A - E[A*]``: the raw partial area ``A`` less the bootstrap's estimate of its bias
    (:func:`bootstrap_mean_area`, exact), or ``A`` itself where the correction would leave
    ``(0, hi - lo)``.

    >>> bias_corrected_area(np.array([0.9, 0.4]), np.array([0.6, 0.1]), 0.0, 0.5, 0.25)
    0.1875
    """
    corrected = 2.0 * area - bootstrap_mean_area(pos, neg, lo, hi)
    return corrected if 0.0 < corrected < hi - lo else area


def logit_t_interval(
    area: float,
    share: np.ndarray,
    influence: np.ndarray,
    lo: float,
    hi: float,
    level: float,
    alternative: str = "two-sided",
    null: float = 0.5,
    variance_scale: float = 1.0,
) -> tuple[tuple[float, float], float]:
    """The ``logit_t`` interval of a partial area over ``[lo, hi]`` and its p-value:
    ``((low, high), p_value)``, both on McClish's scale.

    An approximation, for the small samples and narrow ranges where the Wald intervals fall
    short of their level. The area's share of its range, ``p = A / (hi - lo)``, lies in
    [0, 1] and near an end of it for good classifiers and narrow ranges, where its law is
    skewed; the interval is the Wald interval of ``logit p`` (the delta method, as Pepe 2003,
    section 5.2, has it for the whole AUC), with the placement-value variance (scaled up to
    the exact bootstrap variance where that is larger: ``variance_scale``), mapped back.
    ``A`` is the area less the bootstrap's estimate of its bias (:func:`bias_corrected_area`,
    which :func:`partial_auc_ci` passes): unlike the whole area, the empirical partial
    area is biased upwards, by about ``ROC'(hi) hi (1 - hi) / (2 n-)``
    (:func:`bootstrap_mean_area`), a sizeable share of the interval's half-width when few
    negatives fall in the range. Then

        T(theta) = (logit p - logit theta) p (1 - p) / sd,    sd^2 = (V10 + V01) / (hi - lo)^2,

    ``V10 = S10 / n+`` and ``V01 = S01 / n-`` the positives' and the negatives' parts of the
    placement-value variance (:func:`placement_values`), and ``T`` referred to Student's t
    with Welch-Satterthwaite degrees of freedom

        nu = (V10 + V01)^2 / (V10^2 / (n+ - 1) + V01^2 / nu-),    nu- = max((hi - lo) n- - 1, 1):

    the negatives' placement values vanish outside the range, so that ``S01`` rests on the
    ``(hi - lo) n-`` negatives inside it, not on all ``n-`` (a heuristic count: with a handful
    of negatives in the range the t quantile widens the interval). The bounds are ``theta``
    where ``|T| = t_nu(1/2 + level/2)`` (one-sided, ``t_nu(level)`` with the other bound the
    end of [0, 1]) and the p-value is t's tail at the null, so that ``p < 1 - level`` exactly
    when the null lies outside the interval. A null the standardised area cannot take (below
    McClish's value of a zero area) lies below every theta with ``T = +inf``. The bounds stay
    inside the range of the area (and, as the Wald intervals', inside [0, 1]); at ``p`` of 0
    or 1, or a zero variance, there is no logit scale and :func:`partial_auc_ci` gives
    the sure value instead.

    At ``hi - lo = 1`` this is the whole AUC's ``logit`` interval
    (:mod:`rocsim.core.auc_methods`) with a t quantile in place of the normal one. Its
    coverage of the true McClish-standardised partial AUC over FPR [0, f] is measured by the
    ``partial_auc`` study (``rocsim study=partial_auc``; :mod:`rocsim.studies.bands`).

    Parameters
    ----------
    area : float
        The raw partial area over ``[lo, hi]`` (bias-corrected: :func:`bias_corrected_area`),
        strictly between 0 and ``hi - lo``.
    share, influence : ndarray
        The placement values of the positives and the negatives (:func:`placement_values`),
        not all zero.
    lo, hi : float
        The range of FPRs (a TPR range: of the classes exchanged, as
        :func:`partial_auc_ci` reads it).
    level : float
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
    null : float, default 0.5
        On McClish's scale.
    variance_scale : float, default 1.0
        A factor on both parts of the variance (the degrees of freedom keep their shares):
        :func:`partial_auc_ci` passes the exact bootstrap variance's ratio to the
        placement-value one where it exceeds 1 (:func:`exact_partial_area_var`).

    Returns
    -------
    ((float, float), float)

    References
    ----------
    McClish, D. K. (1989). Analyzing a portion of the ROC curve. Medical Decision Making 9(3),
    190-195. Pepe, M. S. (2003). The Statistical Evaluation of Medical Tests for
    Classification and Prediction, section 5.2. Oxford University Press. Satterthwaite, F. E.
    (1946). An approximate distribution of estimates of variance components. Biometrics
    Bulletin 2(6), 110-114. Welch, B. L. (1947). The generalization of "Student's" problem
    when several different population variances are involved. Biometrika 34, 28-35.
    """
    from scipy import special

    width = hi - lo
    n_pos, n_neg = share.size, influence.size
    v10 = variance_scale * float(share.var(ddof=1)) / n_pos
    v01 = variance_scale * float(influence.var(ddof=1)) / n_neg
    df = welch_df(v10, v01, n_pos, width * n_neg)
    p = area / width
    se = np.sqrt(v10 + v01) / width / (p * (1 - p))
    centre = float(special.logit(p))

    def standardised(t: float) -> float:
        # McClish's scale reaches below 0 over a range of high FPRs: clipped to [0, 1] as the
        # Wald intervals are (a null is checked to lie in [0, 1])
        return min(max(float(mcclish(float(special.expit(t)) * width, lo, hi)), 0.0), 1.0)

    if alternative == "two-sided":
        half = float(special.stdtrit(df, 0.5 + level / 2)) * se
        bounds = standardised(centre - half), standardised(centre + half)
    else:
        half = float(special.stdtrit(df, level)) * se
        if alternative == "greater":
            bounds = standardised(centre - half), 1.0
        else:
            bounds = 0.0, standardised(centre + half)
    # the null as a share of the range: below 0 or above 1 it is out of the area's reach
    p_null = ((hi * hi - lo * lo) / 2 + (2 * null - 1) * _span(lo, hi)) / width
    if p_null <= 0.0:
        t = np.inf
    elif p_null >= 1.0:
        t = -np.inf
    else:
        t = (centre - float(special.logit(p_null))) / se
    if alternative == "two-sided":
        p_value = 2.0 * float(special.stdtr(df, -abs(t)))
    elif alternative == "greater":
        p_value = float(special.stdtr(df, -t))
    else:
        p_value = float(special.stdtr(df, t))
    return bounds, min(p_value, 1.0)


def welch_df(v10: float, v01: float, n_pos: int, in_range: float) -> float:
    """Welch-Satterthwaite degrees of freedom of ``V10 + V01``, the positives' part on
    ``n+ - 1`` and the negatives' on ``max(in_range - 1, 1)``: only the ``in_range = (hi -
    lo) n-`` negatives inside the range carry non-zero placement values
    (:func:`logit_t_interval`)."""
    return (v10 + v01) ** 2 / (v10**2 / (n_pos - 1) + v01**2 / max(in_range - 1.0, 1.0))


def _delong(share: np.ndarray, influence: np.ndarray) -> float:
    """``S10 / n+ + S01 / n-`` from the placement values of one area
    (:func:`placement_covariance`)."""
    return float(placement_covariance(share, influence)[0, 0])


def placement_covariance(shares: np.ndarray, influences: np.ndarray) -> np.ndarray:
    """DeLong et al.'s (1988) ``K x K`` covariance ``S10 / n+ + S01 / n-`` of ``K`` areas on
    the same instances from their placement values (:func:`placement_values`; a row per area,
    or one area's 1-D arrays): ``S10`` the sample covariance (``ddof=1``) of the positives'
    shares, instance by instance, ``S01`` that of the negatives' influences.

    Examples
    --------
    >>> share, influence = placement_values(np.array([0.9, 0.4]), np.array([0.6, 0.1]), 0, 1)
    >>> placement_covariance(share, influence)
    array([[0.125]])
    """
    shares, influences = np.atleast_2d(shares), np.atleast_2d(influences)
    return (
        np.atleast_2d(np.cov(shares)) / shares.shape[1]
        + np.atleast_2d(np.cov(influences)) / influences.shape[1]
    )


def _need_two_each(n_pos: int, n_neg: int) -> None:
    if min(n_pos, n_neg) < 2:
        raise ValueError(
            "the partial AUC's placement-value variance needs at least 2 positives and 2 "
            f"negatives, got {n_pos} and {n_neg}"
        )


@dataclass(frozen=True, repr=False)
class PartialAUCDifferenceCI(AUCDifferenceCI):
    """Difference of two classifiers' partial AUCs (McClish-standardised) on the same
    instances: :class:`~rocsim.core.area.AUCDifferenceCI`'s fields (``auc1, auc2`` the
    standardised partial AUCs) and the range, ``focus``, ``range_low``, ``range_high`` (as in
    :class:`PartialAUCCI`)."""

    focus: str = "fpr"
    range_low: float = 0.0
    range_high: float = 1.0

    _settings = PartialAUCCI._settings

    def _summary(self) -> str:
        return (
            f"partial AUC1 - AUC2 ({self.focus.upper()} {self.range_low:g}-"
            f"{self.range_high:g}) {self.difference:+.3f} [{self.low:+.3f}, {self.high:+.3f}]"
            f"{hypothesis_summary(self)} ({self._level_and_method()}, n+={self.n_pos}, "
            f"n-={self.n_neg})"
        )


def partial_auc_difference_ci(
    pos1,
    pos2,
    neg1,
    neg2,
    rate_range: tuple[float, float],
    *,
    focus: str = "fpr",
    confidence_level: float = 0.95,
    method: str = "delong",
    alternative: str = "two-sided",
    null: float = 0.0,
) -> PartialAUCDifferenceCI:
    """Difference of the partial AUCs of two classifiers scored on the same instances.

    Parameters
    ----------
    pos1, pos2 : array-like of shape (n+,)
        ``pos1[i]`` and ``pos2[i]``: the two classifiers' scores of positive ``i``.
    neg1, neg2 : array-like of shape (n-,)
        Likewise for the negatives.
    rate_range, focus, confidence_level
        As in :func:`partial_auc_ci`.
    method : {"delong", "delong_t"}, default "delong"
        The variance is that of the paired placement values' differences (instance by
        instance), as DeLong et al. (1988) pair them. ``delong``: the normal interval and
        test; ``delong_t``: Student's t on the Welch-Satterthwaite degrees of freedom of the
        positives' and the negatives' parts of that variance, the negatives' counted as the
        ``2 (hi - lo) n-`` inside the range of either classifier (:func:`welch_df`): with a
        handful of negatives in a narrow range their part rests on a handful of values. Its
        coverage of the true difference is measured by the ``auc_paired_partial`` study.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
    null : float, default 0.0
        The one-sided interval and the test of the difference against ``null`` (the normal
        or the t test the interval inverts).

    Returns
    -------
    PartialAUCDifferenceCI

    Examples
    --------
    >>> r = partial_auc_difference_ci([0.9, 0.8, 0.4], [0.6, 0.8, 0.5],
    ...                                     [0.7, 0.4, 0.1], [0.7, 0.2, 0.1], (0.0, 0.5))
    >>> round(r.difference, 4)
    0.0926
    """
    pos1, pos2, neg1, neg2 = check_paired(pos1, pos2, neg1, neg2)
    lo, hi = check_rate_range(*rate_range)
    check_choice(focus, FOCI, "partial AUC focus")
    level = check_confidence_level(confidence_level)
    check_choice(method, PARTIAL_AUC_DIFFERENCE_METHODS, "paired partial AUC method")
    hypothesis = check_hypothesis(alternative, null, -1.0, 1.0)
    _need_two_each(pos1.size, neg1.size)
    auc1, share1, influence1, scale = _placed(pos1, neg1, lo, hi, focus)
    auc2, share2, influence2, _ = _placed(pos2, neg2, lo, hi, focus)
    share, influence = share1 - share2, influence1 - influence2
    var = _delong(share, influence) * scale**2
    df = np.inf
    if method == "delong_t" and var > 0.0:
        v10, v01 = share.var(ddof=1) / share.size, influence.var(ddof=1) / influence.size
        # a negative's paired placement difference is non-zero when it lies inside the
        # range of either classifier: up to twice the (hi - lo) n- of one
        df = welch_df(v10, v01, share.size, 2.0 * (hi - lo) * influence.size)
    difference = auc1 - auc2
    low, high = hypothesis.interval(difference, var, level, df)
    return PartialAUCDifferenceCI(
        auc1,
        auc2,
        difference,
        var,
        low,
        high,
        hypothesis.p_value(difference, var, df),
        level,
        method,
        pos1.size,
        neg1.size,
        alternative=hypothesis.alternative,
        null=hypothesis.null,
        focus=focus,
        range_low=lo,
        range_high=hi,
    )


def partial_auc_covariance(
    pos_scores: list[np.ndarray],
    neg_scores: list[np.ndarray],
    rate_range: tuple[float, float],
    *,
    focus: str = "fpr",
    method: str = "delong",
) -> tuple[np.ndarray, np.ndarray]:
    """The partial AUCs (McClish-standardised) of ``K`` classifiers scored on the same
    instances, and their ``K x K`` covariance: DeLong's, of the placement values instance by
    instance (:func:`placement_covariance`), so that the variance of every difference read
    from it is :func:`partial_auc_difference_ci`'s and each diagonal :func:`partial_auc_ci`'s
    (``method="delong"``).

    Parameters
    ----------
    pos_scores, neg_scores : sequence of K ndarray
        ``pos_scores[k][i]``: classifier ``k``'s score of positive ``i``, float arrays of one
        length (likewise the negatives).
    rate_range : (float, float)
        As in :func:`partial_auc_ci`.
    focus : {"fpr", "tpr"}, default "fpr"
        As in :func:`partial_auc_ci`.
    method : {"delong"}, default "delong"
        The only one: the paired exact bootstrap law of two partial areas is not built.

    Returns
    -------
    aucs : ndarray of shape (K,)
    cov : ndarray of shape (K, K)

    Examples
    --------
    >>> pos = [np.array([0.9, 0.8, 0.4]), np.array([0.6, 0.8, 0.5])]
    >>> neg = [np.array([0.7, 0.4, 0.1]), np.array([0.7, 0.2, 0.1])]
    >>> aucs, cov = partial_auc_covariance(pos, neg, (0.0, 0.5))
    >>> round(float(aucs[0] - aucs[1]), 4)  # partial_auc_difference_ci's difference
    0.0926
    """
    if method != "delong":
        raise ValueError(
            f"method={method!r} is not available for partial AUCs: the paired exact bootstrap "
            "law of two partial areas is not built; their covariance is DeLong's "
            "(method='delong')"
        )
    lo, hi = check_rate_range(*rate_range)
    check_choice(focus, FOCI, "partial AUC focus")
    _need_two_each(pos_scores[0].size, neg_scores[0].size)
    placed = [_placed(pos, neg, lo, hi, focus) for pos, neg in zip(pos_scores, neg_scores)]
    aucs, shares, influences, scales = (np.array(column) for column in zip(*placed))
    return aucs, placement_covariance(shares, influences) * scales[0] ** 2


def _in_fpr_terms(
    pos: np.ndarray, neg: np.ndarray, lo: float, hi: float, focus: str
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """``(pos, neg, lo, hi)`` of the FPR range the partial area over ``[lo, hi]`` on
    ``focus`` is: a TPR range is the FPR range ``[1 - hi, 1 - lo]`` of the classes
    exchanged, scores negated."""
    return (pos, neg, lo, hi) if focus == "fpr" else (-neg, -pos, 1 - hi, 1 - lo)


def _placed(
    pos: np.ndarray, neg: np.ndarray, lo: float, hi: float, focus: str
) -> tuple[float, np.ndarray, np.ndarray, float]:
    """McClish's standardised partial AUC over ``[lo, hi]`` on ``focus``, the placement
    values of its raw area (in FPR terms, :func:`_in_fpr_terms`) and McClish's factor."""
    first, second, a, b = _in_fpr_terms(pos, neg, lo, hi, focus)
    share, influence = placement_values(first, second, a, b)
    return mcclish(partial_area(first, second, a, b), a, b), share, influence, mcclish_scale(a, b)


# the names these had before rocsim.core spoke one vocabulary (rocsim.core._deprecated)
__getattr__ = module_getattr(__name__)
