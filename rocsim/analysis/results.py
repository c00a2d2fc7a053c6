"""The practitioner's results: typed tables, one row per point, with the result protocol of
:mod:`rocsim.core.results` (``to_frame()`` with the settings in ``.attrs``, a one-line
``repr``, ``plot(ax=None)``; scalars are Python floats).

A result's columns are its array fields; those that do not apply to how it was computed
(``q`` when thresholds were given, ``mean`` under threshold averaging, ...) are ``None`` and
left out of its frame. ``direction`` says which way the scores were read (``"higher"``:
higher means positive; ``"lower"``); thresholds are on the user's scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from rocsim.analysis._input import orient
from rocsim.core.area import AUCCI, AUCDifferenceCI
from rocsim.core.paired_threshold import ThresholdDifferenceCI
from rocsim.core.partial_area import PartialAUCCI, PartialAUCDifferenceCI
from rocsim.core.precision_recall import PRCI, PRThresholdCI
from rocsim.core.results import Result

#: Scalar settings a table may carry into its frame's ``.attrs``, in this order.
SETTINGS = (
    "confidence_level",
    "method",
    "averaging",
    "bootstrap",
    "n_pos",
    "n_neg",
    "side",
    "ties",
    "axis_level",
    "algorithm",
    "direction",
    "band",
    "pointwise_level",
    "critical_value",
    "containment",
    "calibration",
)


def _sign(direction: str) -> float:
    return -1.0 if direction == "lower" else 1.0


class _Table(Result):
    """A table of the practitioner: its columns are the fields named by :meth:`_column_names`
    that are set."""

    _settings: ClassVar[tuple[str, ...]] = SETTINGS
    _columns_by_averaging: ClassVar[dict[str, tuple[str, ...]]] = {}

    def _column_names(self) -> tuple[str, ...]:
        by_averaging = self._columns_by_averaging
        return by_averaging[self.averaging] if by_averaging else self._columns

    def _column_values(self) -> dict[str, Any]:
        values = {name: getattr(self, name) for name in self._column_names()}
        return {name: value for name, value in values.items() if value is not None}

    def _sizes(self) -> str:
        return f"n+={self.n_pos}, n-={self.n_neg}"

    def _points(self) -> int:
        return int(np.size(next(iter(self._column_values().values()))))


@dataclass(frozen=True, repr=False, eq=False)
class ROCBands(_Table):
    """Result of :func:`rocsim.roc_ci`: the ROC curve's pointwise intervals.

    Columns ``fpr, fpr_low, fpr_high, tpr, tpr_low, tpr_high``; threshold averaging adds
    ``q`` (the requested total positive ratio; absent when thresholds were given) and
    ``threshold``; vertical averaging adds ``at`` (the requested FPR; ``fpr`` is the one used)
    and ``mean`` (the bootstrap mean of TPR); horizontal, ``at`` (the requested TPR) and
    ``mean`` (of FPR). ``curve`` is the empirical ROC curve ``(fpr, tpr)``; ``.plot()`` draws
    it with the rectangles or the band.
    """

    averaging: str
    fpr: np.ndarray
    fpr_low: np.ndarray
    fpr_high: np.ndarray
    tpr: np.ndarray
    tpr_low: np.ndarray
    tpr_high: np.ndarray
    confidence_level: float
    method: str
    bootstrap: str
    n_pos: int
    n_neg: int
    curve: tuple[np.ndarray, np.ndarray]
    direction: str = "higher"
    q: np.ndarray | None = None
    threshold: np.ndarray | None = None
    at: np.ndarray | None = None
    mean: np.ndarray | None = None
    side: str | None = None
    ties: str | None = None
    axis_level: float | None = None
    band: str | None = None
    pointwise_level: float | None = None
    critical_value: float | None = None
    containment: float | None = None
    calibration: str | None = None

    _columns_by_averaging: ClassVar[dict[str, tuple[str, ...]]] = {
        "threshold": (
            "q",
            "threshold",
            "fpr",
            "fpr_low",
            "fpr_high",
            "tpr",
            "tpr_low",
            "tpr_high",
        ),
        "vertical": ("at", "fpr", "fpr_low", "fpr_high", "tpr", "mean", "tpr_low", "tpr_high"),
        "horizontal": ("at", "fpr", "fpr_low", "fpr_high", "mean", "tpr", "tpr_low", "tpr_high"),
    }
    _plot_kind = "roc"

    def _summary(self) -> str:
        side = f", {self.side} side" if self.averaging == "vertical" else ""
        if self.ties == "interpolate":
            side += ", ties interpolated"
        axis = f"; each axis at {100 * self.axis_level:.2f}%" if self.axis_level else ""
        band = ""
        if self.band == "simultaneous":
            band = (
                f"; simultaneous band for the true curve, critical value "
                f"{self.critical_value:.4g} (each point at {100 * self.pointwise_level:.4g}%)"
            )
        elif self.band and self.pointwise_level is not None and self.band != "pointwise":
            band = f"; {self.band} band, each point at {100 * self.pointwise_level:.4g}%"
        elif self.critical_value is not None:
            band = f"; {self.band} band, critical value {self.critical_value:.4g}"
        if self.containment is not None:
            how = f" ({self.calibration})" if self.calibration else ""
            band += f", bootstrap curves inside {100 * self.containment:.4g}%{how}"
            if self.band == "simultaneous" and self.containment > self.confidence_level + 0.01:
                band += (
                    f", more than the {100 * self.confidence_level:.4g}% asked: wider where "
                    "the bootstrap cannot see"
                )
        kind = "pointwise" if self.band == "pointwise" else ""
        return (
            f"ROC {kind + ' ' if kind else ''}bands at {self._points()} points, "
            f"{self.averaging} averaging{side} ({self._level_and_method()}{axis}{band}, "
            f"{self._sizes()})"
        )


@dataclass(frozen=True, repr=False, eq=False)
class ROCComparison(_Table):
    """Result of :func:`rocsim.compare_roc`: ``dtpr = TPR1 - TPR2`` with ``dtpr_low,
    dtpr_high`` at each point (horizontal averaging: ``dfpr = FPR1 - FPR2``), and ``verdict``
    (``first better``, ``second better``, ``no difference``); ``.plot()`` draws the
    difference.

    Threshold averaging adds each classifier's threshold ``t1``, ``t2``, the ``dfpr``
    interval and the probabilities that each classifier dominates (eq. 4.5); vertical adds
    ``sd`` and ``p_first_higher``, the Gaussian ``Pr{dTPR > 0}`` on the exact moments;
    horizontal ``sd`` and ``p_first_lower``.
    """

    averaging: str
    verdict: np.ndarray
    confidence_level: float
    method: str
    n_pos: int
    n_neg: int
    direction: tuple[str, str] = ("higher", "higher")
    q: np.ndarray | None = None
    at: np.ndarray | None = None
    t1: np.ndarray | None = None
    t2: np.ndarray | None = None
    fpr: np.ndarray | None = None
    tpr: np.ndarray | None = None
    dtpr: np.ndarray | None = None
    dtpr_low: np.ndarray | None = None
    dtpr_high: np.ndarray | None = None
    dfpr: np.ndarray | None = None
    dfpr_low: np.ndarray | None = None
    dfpr_high: np.ndarray | None = None
    sd: np.ndarray | None = None
    p_first_dominates: np.ndarray | None = None
    p_second_dominates: np.ndarray | None = None
    p_first_higher: np.ndarray | None = None
    p_first_lower: np.ndarray | None = None
    side: str | None = None
    algorithm: str | None = None
    band: str | None = None
    pointwise_level: float | None = None
    critical_value: float | None = None

    _columns_by_averaging: ClassVar[dict[str, tuple[str, ...]]] = {
        "threshold": (
            "q",
            # the core result's columns (thresholds, differences, bounds) but its clip flags
            *(c for c in ThresholdDifferenceCI._columns if c != "clipped"),
            "p_first_dominates",
            "p_second_dominates",
            "verdict",
        ),
        "vertical": (
            "at",
            "fpr",
            "dtpr",
            "dtpr_low",
            "dtpr_high",
            "sd",
            "p_first_higher",
            "verdict",
        ),
        "horizontal": (
            "at",
            "tpr",
            "dfpr",
            "dfpr_low",
            "dfpr_high",
            "sd",
            "p_first_lower",
            "verdict",
        ),
    }
    _plot_kind = "difference"

    @property
    def overall(self) -> str:
        """What the points say together: ``first better everywhere`` (every interval above
        0), ``first better somewhere`` (some above, none below), the same for the second,
        ``mixed`` or ``no difference``. With ``band="bonferroni"`` or ``"simultaneous"`` the
        chance that any of these statements is wrong is about ``1 - confidence_level``
        (family-wise; :func:`rocsim.compare_roc` says how each band gets there)."""
        verdicts = set(np.asarray(self.verdict).tolist())
        if verdicts == {"first better"}:
            return "first better everywhere"
        if verdicts == {"second better"}:
            return "second better everywhere"
        if {"first better", "second better"} <= verdicts:
            return "mixed"
        for who in ("first", "second"):
            if f"{who} better" in verdicts:
                return f"{who} better somewhere"
        return "no difference"

    def _summary(self) -> str:
        what = "FPR1 - FPR2" if self.averaging == "horizontal" else "TPR1 - TPR2"
        band = ""
        if self.band == "bonferroni":
            band = f"; bonferroni band, each point at {100 * self.pointwise_level:.4g}%"
        if self.band == "simultaneous":
            band = (
                f"; simultaneous band for the true difference, critical value "
                f"{self.critical_value:.4g} (each point at {100 * self.pointwise_level:.4g}%)"
            )
        return (
            f"{what} at {self._points()} points, {self.averaging} averaging "
            f"({self._level_and_method()}{band}, {self._sizes()}): {self.overall}"
        )


@dataclass(frozen=True, repr=False, eq=False)
class CostBands(_Table):
    """Result of :func:`rocsim.cost_curve_ci`: ``w, threshold, cost, low, high``; ``.plot()``
    draws the cost curve with its band."""

    w: np.ndarray
    threshold: np.ndarray
    cost: np.ndarray
    low: np.ndarray
    high: np.ndarray
    confidence_level: float
    method: str
    bootstrap: str
    n_pos: int
    n_neg: int
    direction: str = "higher"
    band: str = "pointwise"
    pointwise_level: float | None = None
    containment: float | None = None
    calibration: str | None = None

    _columns = ("w", "threshold", "cost", "low", "high")
    _plot_kind = "cost"

    def _summary(self) -> str:
        band = ""
        if self.band != "pointwise":
            band = f"; {self.band} band, each point at {100 * self.pointwise_level:.4g}%"
        if self.containment is not None:
            how = f" ({self.calibration})" if self.calibration else ""
            band += f", bootstrap curves inside {100 * self.containment:.4g}%{how}"
        return (
            f"cost curve at {self._points()} operating conditions "
            f"({self._level_and_method()}, {self.bootstrap} bootstrap{band})"
        )


@dataclass(frozen=True, repr=False, eq=False)
class CostComparison(_Table):
    """Result of :func:`rocsim.compare_cost`: ``cost_difference = cost2 - cost1`` (positive
    where the first classifier is cheaper) with ``low, high`` and ``verdict``, at each
    operating condition ``w`` with each classifier's threshold ``t1``, ``t2``."""

    w: np.ndarray
    t1: np.ndarray
    t2: np.ndarray
    cost_difference: np.ndarray
    low: np.ndarray
    high: np.ndarray
    verdict: np.ndarray
    confidence_level: float
    method: str
    bootstrap: str
    n_pos: int
    n_neg: int
    direction: tuple[str, str] = ("higher", "higher")

    _columns = ("w", "t1", "t2", "cost_difference", "low", "high", "verdict")
    _plot_kind = "difference"

    def _summary(self) -> str:
        return (
            f"cost2 - cost1 at {self._points()} operating conditions "
            f"({self._level_and_method()}, {self.bootstrap} bootstrap)"
        )


@dataclass(frozen=True, repr=False, eq=False)
class AUCResult(AUCCI):
    """Result of :func:`rocsim.auc_ci`: the core's :class:`~rocsim.core.area.AUCCI`
    (``auc, var, low, high`` as Python floats, a one-row ``to_frame()``) with the empirical
    ROC curve, which ``.plot()`` draws with the AUC in the legend, and the scores' direction."""

    curves: tuple[tuple[np.ndarray, np.ndarray], ...] = ()
    direction: str = "higher"

    _settings = (*AUCCI._settings, "direction")
    _plot_kind = "auc"


@dataclass(frozen=True, repr=False, eq=False)
class PartialAUCResult(PartialAUCCI):
    """Result of :func:`rocsim.auc_ci` with ``max_fpr`` or ``fpr_range``: the core's
    :class:`~rocsim.core.partial_area.PartialAUCCI` (``auc`` McClish-standardised as
    scikit-learn's ``roc_auc_score(max_fpr=)``, the raw ``partial_area``, ``var``, ``low``,
    ``high``) with the empirical ROC curve, which ``.plot()`` draws with the range shaded."""

    curves: tuple[tuple[np.ndarray, np.ndarray], ...] = ()
    direction: str = "higher"

    _settings = (*PartialAUCCI._settings, "direction")
    _plot_kind = "auc"


@dataclass(frozen=True, repr=False, eq=False)
class PartialAUCComparison(PartialAUCDifferenceCI):
    """Result of :func:`rocsim.compare_auc` with ``max_fpr``, ``fpr_range`` or ``tpr_range``:
    the core's :class:`~rocsim.core.partial_area.PartialAUCDifferenceCI` with both
    empirical ROC curves, which ``.plot()`` draws, and the scores' directions."""

    curves: tuple[tuple[np.ndarray, np.ndarray], ...] = ()
    direction: tuple[str, str] = ("higher", "higher")

    _settings = (*PartialAUCDifferenceCI._settings, "direction")
    _plot_kind = "auc"


@dataclass(frozen=True, repr=False, eq=False)
class AUCComparison(AUCDifferenceCI):
    """Result of :func:`rocsim.compare_auc`: the core's
    :class:`~rocsim.core.area.AUCDifferenceCI` (``auc1, auc2, difference = auc1 - auc2,
    var, low, high, p_value`` as Python floats) with both empirical ROC curves, which
    ``.plot()`` draws, and the scores' directions."""

    curves: tuple[tuple[np.ndarray, np.ndarray], ...] = ()
    direction: tuple[str, str] = ("higher", "higher")

    _settings = (*AUCDifferenceCI._settings, "direction")
    _plot_kind = "auc"


@dataclass(frozen=True, repr=False, eq=False)
class PRBands(_Table):
    """Result of :func:`rocsim.pr_ci`: the precision-recall curve's pointwise intervals, from
    the exact bootstrap law ``ci.law`` (``law.mean``, ``law.var``, ``law.quantile(p)``).

    The frame's first columns are ``recall, precision, low, high`` (``precision`` the
    data's, ``low``, ``high`` its bounds), then the core result's others
    (:class:`~rocsim.core.precision_recall.PRCI` for vertical averaging,
    :class:`~rocsim.core.precision_recall.PRThresholdCI` for threshold averaging, with
    ``recall_low``, ``recall_high`` and ``threshold``), and the requested rate of each row,
    ``at`` (a recall) or ``q`` (a total positive ratio), when rates were requested.
    ``.plot()`` draws the empirical curve with the band or the rectangles.
    """

    ci: PRCI | PRThresholdCI
    averaging: str
    n_pos: int
    n_neg: int
    direction: str = "higher"
    at: np.ndarray | None = None
    q: np.ndarray | None = None

    _plot_kind = "pr"

    @property
    def law(self):
        """The exact bootstrap law the intervals come from."""
        return self.ci.law

    @property
    def confidence_level(self) -> float:
        return self.ci.confidence_level

    @property
    def method(self) -> str:
        return self.ci.method

    @property
    def recall(self) -> np.ndarray:
        return self.ci.recall

    @property
    def precision(self) -> np.ndarray:
        return self.ci.precision

    @property
    def low(self) -> np.ndarray:
        return self.ci.low

    @property
    def high(self) -> np.ndarray:
        return self.ci.high

    @property
    def threshold(self) -> np.ndarray | None:
        """The score thresholds of threshold averaging, on the user's scale (the core's are
        oriented: higher means positive); ``None`` for vertical averaging."""
        threshold = getattr(self.ci, "threshold", None)
        return None if threshold is None else orient(threshold, _sign(self.direction))

    @property
    def recall_low(self) -> np.ndarray | None:
        return getattr(self.ci, "recall_low", None)

    @property
    def recall_high(self) -> np.ndarray | None:
        return getattr(self.ci, "recall_high", None)

    @property
    def axis_level(self) -> float | None:
        return getattr(self.ci, "axis_level", None)

    def _column_values(self) -> dict[str, Any]:
        values = self.ci._column_values()
        if "threshold" in values:
            values["threshold"] = self.threshold
        requested = {"at": self.at, "q": self.q}
        return values | {k: v for k, v in requested.items() if v is not None}

    def _summary(self) -> str:
        return self.ci._summary()
