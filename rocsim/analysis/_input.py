"""What every practitioner entry point does with its input: labels and scores (one parser,
scikit-learn's rules, :mod:`rocsim.core.labels`), the direction of each classifier's scores,
and where to place the points of a curve."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from rocsim.core._validation import check_choice, check_rates, check_thresholds
from rocsim.core.labels import split_by_label
from rocsim.core.roc import auc
from rocsim.core.vertical import SIDES, fpr_ranks, nearest_ranks

#: Ways of averaging ROC curves (thesis 4.1): at fixed thresholds, at fixed FPRs (vertical), or
#: at fixed TPRs (horizontal: the vertical law with the classes exchanged).
AVERAGING = ("threshold", "vertical", "horizontal")
#: Default grid: total positive ratios (threshold), FPRs (vertical) or operating conditions w.
DEFAULT_GRID = np.round(np.linspace(0.01, 0.99, 99), 12)
#: Which way a classifier's scores point: higher scores mean positive (scikit-learn's rule,
#: the default), lower scores mean positive, or chosen from the data as pROC's ``roc()`` does.
DIRECTIONS = ("higher", "lower", "auto")
#: A curve lies clearly below the diagonal when its AUC is below 1/2 by more than this many
#: standard errors of the AUC of a classifier without skill (the Mann-Whitney null variance).
BELOW_DIAGONAL_SE = 3.0


class DirectionWarning(UserWarning):
    """A classifier's scores seem to point the other way: its ROC curve lies clearly below the
    diagonal, or two compared classifiers were scored in opposite directions."""


@dataclass(frozen=True)
class Scored:
    """Labels and scores, validated: the positive mask, and each classifier's scores oriented
    so that higher means positive (``sign`` times the user's scores), with its direction."""

    positive: np.ndarray
    scores: tuple[np.ndarray, ...]
    directions: tuple[str, ...]

    @property
    def signs(self) -> tuple[float, ...]:
        """``+1`` or ``-1`` per classifier: the user's scores and thresholds times the sign
        are the oriented ones (and back)."""
        return tuple(-1.0 if d == "lower" else 1.0 for d in self.directions)

    def classes(self, k: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Classifier ``k``'s oriented scores of the positives and of the negatives."""
        return self.scores[k][self.positive], self.scores[k][~self.positive]

    @property
    def n_pos(self) -> int:
        return int(np.count_nonzero(self.positive))

    @property
    def n_neg(self) -> int:
        return int(self.positive.size - self.n_pos)

    @property
    def direction(self) -> str | tuple[str, ...]:
        """What a result reports: one direction, or a pair for two classifiers."""
        return self.directions[0] if len(self.directions) == 1 else self.directions


def scored(y_true, *y_scores, pos_label=None, direction="higher", names=None) -> Scored:
    """Validate labels and scores together and orient each classifier's scores.

    ``direction`` is one of :data:`DIRECTIONS`, or one per classifier. ``"auto"`` follows
    pROC's ``roc()``: higher scores mean positive unless the median score of the negatives
    exceeds that of the positives. A curve that then lies clearly below the diagonal, or two
    classifiers that point in opposite directions, are reported with a
    :class:`DirectionWarning` (the numbers are computed as asked).
    """
    names = names or (
        ("y_score",) if len(y_scores) == 1 else tuple(f"y_score{k + 1}" for k in range(2))
    )
    positive, arrays = split_by_label(y_true, *y_scores, pos_label=pos_label, names=names)
    asked = _directions(direction, len(arrays))
    chosen = tuple(
        _auto(a[positive], a[~positive]) if d == "auto" else d for a, d in zip(arrays, asked)
    )
    oriented = tuple(orient(a, -1.0 if d == "lower" else 1.0) for a, d in zip(arrays, chosen))
    result = Scored(positive, oriented, chosen)
    _warn_direction(result, names)
    return result


def _directions(direction, count: int) -> tuple[str, ...]:
    if isinstance(direction, str):
        return (check_choice(direction, DIRECTIONS, "direction"),) * count
    directions = tuple(direction) if isinstance(direction, list | tuple) else ()
    if len(directions) != count:
        raise ValueError(
            f"direction must be one of {', '.join(DIRECTIONS)}, or {count} of them (one per "
            f"classifier), got {direction!r}"
        )
    return tuple(check_choice(d, DIRECTIONS, "direction") for d in directions)


def _auto(pos: np.ndarray, neg: np.ndarray) -> str:
    """pROC's rule: controls (negatives) below cases (positives) by their medians."""
    return "higher" if np.median(neg) <= np.median(pos) else "lower"


def _warn_direction(data: Scored, names: tuple[str, ...]) -> None:
    """One warning, if two classifiers point in opposite directions (the comparison would
    compare one with the other's mirror), or a classifier's curve lies clearly below the
    diagonal.

    Opposite directions: pROC's median rule (:func:`_auto`) gives the two different
    directions and their AUCs lie on either side of 1/2 (``roc.test`` warns on the first).
    Clearly below: the AUC is below 1/2 by more than :data:`BELOW_DIAGONAL_SE` standard errors
    of the AUC of a classifier without skill, ``sqrt((n+ + n- + 1) / (12 n+ n-))`` (the
    Mann-Whitney null variance).
    """
    n_pos, n_neg = data.n_pos, data.n_neg
    null_se = np.sqrt((n_pos + n_neg + 1) / (12.0 * n_pos * n_neg))
    areas = [auc(*data.classes(k)) for k in range(len(data.scores))]
    below = [a < 0.5 - BELOW_DIAGONAL_SE * null_se for a in areas]
    if len(areas) == 2 and _opposite(data, areas):
        k = int(areas[0] > areas[1])  # the one below 1/2
        message = (
            f"{names[0]} and {names[1]} seem scored in opposite directions (AUC "
            f"{areas[0]:.3f} and {areas[1]:.3f}): comparing them compares one classifier with "
            f"the other's mirror image; if lower {names[k]} means positive, pass "
            f"direction={_pair_hint(k)}"
        )
    elif all(below):
        listed = " and ".join(names[: len(areas)])
        curves = "curve of " if len(areas) == 1 else "curves of "
        message = (
            f"the ROC {curves}{listed} lie{'s' if len(areas) == 1 else ''} below the diagonal "
            f"(AUC {', '.join(f'{a:.3f}' for a in areas)}): positives score lower than "
            "negatives; if lower scores mean positive, pass direction='lower'"
        )
    elif any(below):
        k = below.index(True)
        message = (
            f"the ROC curve of {names[k]} lies below the diagonal (AUC {areas[k]:.3f}): "
            f"positives score lower than negatives; if lower {names[k]} means positive, pass "
            f"direction={_pair_hint(k)}"
        )
    else:
        return
    warnings.warn(message, DirectionWarning, stacklevel=4)


def _opposite(data: Scored, areas: list[float]) -> bool:
    """Whether two classifiers point in opposite directions (:func:`_warn_direction`)."""
    directions = {_auto(*data.classes(k)) for k in range(2)}
    return len(directions) == 2 and (areas[0] - 0.5) * (areas[1] - 0.5) < 0


def _pair_hint(k: int) -> tuple[str, str]:
    return ("lower", "higher") if k == 0 else ("higher", "lower")


def orient(values: np.ndarray, sign: float) -> np.ndarray:
    """Scores or thresholds between the user's scale and the oriented one (higher means
    positive), both ways: ``values`` itself for ``sign = +1``, ``-values`` for ``-1`` (as
    ``0.0 - values``: a zero threshold stays ``0.0``, as :func:`rocsim.core.roc_counts`
    names it, instead of turning ``-0.0``)."""
    return values if sign > 0 else 0.0 - values


def placed_rates(at, name: str) -> np.ndarray:
    """FPRs or total positive ratios strictly inside (0, 1), :data:`DEFAULT_GRID` when ``at``
    is None (the core would silently clip them to a rank or a threshold)."""
    return DEFAULT_GRID if at is None else check_rates(at, name)


def check_placement(
    averaging: str, at, thresholds, side: str = "lower", valid: tuple[str, ...] = AVERAGING
) -> None:
    """``at`` (rates) and ``thresholds`` (scores) are two ways to place the points; one at a
    time, and score thresholds only where points are thresholds; ``side`` only where the
    points sit on vertical steps."""
    check_choice(averaging, valid, "averaging")
    check_choice(side, SIDES, "side")
    if side != "lower" and averaging != "vertical":
        raise ValueError(
            f"side applies to averaging='vertical' (the ends of the ROC curve's vertical "
            f"step at an FPR), not to averaging={averaging!r}"
        )
    if thresholds is None:
        return
    if at is not None:
        raise ValueError("give at (rates) or thresholds (scores), not both")
    if averaging != "threshold":
        raise ValueError(
            f"thresholds apply to averaging='threshold'; {averaging} averaging places its "
            "points at rates, given by at"
        )


def ranks_per_request(
    at, m: int, averaging: str = "vertical"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The requested rates (FPRs, or TPRs for horizontal ``averaging``), the distinct ranks they
    round to among ``m`` and, per request, its index into those ranks: a row per request, even
    where two requests share a rate ``r/m``. Without ``at``, every distinct rate nearest the
    default grid, once."""
    if at is None:
        ranks = fpr_ranks(DEFAULT_GRID, m, averaging)
        return ranks / m, ranks, np.arange(ranks.size)
    requested = check_rates(at, "at (TPRs)" if averaging == "horizontal" else "at (FPRs)")
    ranks, index = np.unique(nearest_ranks(requested, m, averaging), return_inverse=True)
    return requested, ranks, index


def threshold_pair(thresholds, signs: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(t1, t2)``: each classifier's score thresholds, of equal length, oriented by
    ``signs``; a pair of arrays or an array of two rows."""
    if isinstance(thresholds, str) or not hasattr(thresholds, "__len__") or len(thresholds) != 2:
        raise ValueError("thresholds must be a pair (t1, t2): each classifier's thresholds")
    t1, t2 = (
        orient(check_thresholds(np.atleast_1d(t), f"thresholds[{k}]"), sign)
        for k, (t, sign) in enumerate(zip(thresholds, signs))
    )
    if t1.size != t2.size:
        raise ValueError(f"thresholds t1 and t2 differ in length: {t1.size} != {t2.size}")
    return t1, t2


def thresholds_at_ratio(scores: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Thresholds putting a share ``q`` of ``scores`` at or above them: the ``ceil(q n)``-th
    largest score (ties can add more); a zero as ``0.0``, whichever of the tied ``-0.0`` and
    ``0.0`` ``np.sort`` left at that rank (its order of ties depends on the CPU's SIMD sort)."""
    ordered = np.sort(scores)[::-1]
    return ordered[np.clip(np.ceil(q * scores.size).astype(int) - 1, 0, scores.size - 1)] + 0.0


def placed_thresholds(scores, at, thresholds, sign: float = 1.0):
    """Threshold averaging's (oriented) thresholds and the total positive ratios they answer
    (``None`` when the thresholds are given): a row per requested ratio or threshold, and
    without either each distinct threshold of the default grid once."""
    if thresholds is not None:
        return orient(check_thresholds(np.atleast_1d(thresholds)), sign), None
    requested = placed_rates(at, "at (total positive ratios)")
    t = thresholds_at_ratio(scores, requested)
    if at is None:
        t, first = np.unique(t[::-1], return_index=True)
        t, requested = t[::-1], requested[::-1][first][::-1]
    return t, requested


def verdict(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Per point, which classifier the interval of a difference (first minus second, or its
    cost counterpart) says is better."""
    return np.where(low > 0, "first better", np.where(high < 0, "second better", "no difference"))
