"""Displays, as scikit-learn's: a classifier's curve with its exact bootstrap band, drawn from
predictions (``from_predictions(y_true, y_score, ...)``), from a fitted estimator
(``from_estimator(estimator, X, y, ...)``), from a result of rocsim's functions
(``from_result(result)``), or from arrays (the constructor, as ``RocCurveDisplay(fpr=...,
tpr=...)``).

Each display computes with the function of the same curve (:func:`rocsim.roc_ci`,
:func:`rocsim.pr_ci`, :func:`rocsim.cost_curve_ci`, :func:`rocsim.compare_roc`, and
:func:`rocsim.auc_ci` / :func:`rocsim.compare_auc` for the legend) and draws as scikit-learn's
``sklearn.metrics.RocCurveDisplay`` does [1]_: the legend reads ``"name (AUC = 0.87, 95% CI
0.83-0.91)"``, the band is shaded around the curve (its legend entry is the curve's: a line
over a shaded patch), the chance level is a black dashed line named ``"Chance level"``, and the
axis labels are scikit-learn's (an axes that already has labels keeps them, so a rocsim display
drawn beside a scikit-learn one changes nothing of it). Matplotlib keywords go to the curve
(``curve_kwargs`` or ``**kwargs``), the band (``band_kwargs``) and the chance line
(``chance_level_kw``).

A display keeps what it drew: ``ax_``, ``figure_``, ``line_`` (the curve), ``band_`` (the
band or the rectangles), ``chance_level_`` (``None`` unless drawn), and ``result`` (the
function's result, ``result.to_frame()`` for the numbers; ``None`` for a display made from
arrays). Several models go on one axes by passing the same ``ax``; each takes the axes' next
colour.

``from_estimator`` picks the scores as scikit-learn's displays do: ``response_method="auto"``
tries ``predict_proba`` then ``decision_function``; the positive class is ``pos_label``,
``estimator.classes_[-1]`` by default (the column of ``predict_proba`` for that class; the
decision function, negated when ``pos_label`` is the first class).

References
----------
.. [1] scikit-learn developers, ``sklearn.metrics.RocCurveDisplay`` (version 1.7 and later:
   ``curve_kwargs``, ``plot_chance_level``, ``chance_level_kw``, ``despine``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from matplotlib.legend import Legend
from matplotlib.legend_handler import HandlerLine2D
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from rocsim.analysis._input import scored
from rocsim.analysis.auc import auc_ci, compare_auc
from rocsim.analysis.cost import cost_curve_ci
from rocsim.analysis.decision import net_benefit_ci
from rocsim.analysis.pr import pr_ci
from rocsim.analysis.roc import compare_roc, roc_ci
from rocsim.core._validation import check_choice
from rocsim.core.labels import positive_label
from rocsim.core.registry import DEFAULT_METHODS
from rocsim.core.roc import roc_curve
from rocsim.views import plots

#: Ways ``from_estimator`` may get scores from an estimator (scikit-learn's names).
RESPONSE_METHODS = ("auto", "predict_proba", "decision_function")


class TiedVerdictWarning(UserWarning):
    """A comparison's verdict at some point rests on a block of tied scores: there the
    empirical curve is a straight segment across the tie, so how ties are read decides it."""


class _BandDisplay:
    """A curve with its band. Subclasses give the curve, the band, the legend's metric, the
    chance level and the axes' labels."""

    _chance_label: ClassVar[str] = "Chance level"
    _legend_loc: ClassVar[str] = "lower right"
    #: Whether the y axis is a rate of the positive class (named as scikit-learn names it).
    _rates_on_y: ClassVar[bool] = True
    _xlabel: ClassVar[str]
    _ylabel: ClassVar[str]

    def __init__(self, name: str | None, pos_label, confidence_level: float) -> None:
        self.name = name
        self.pos_label = pos_label
        self.confidence_level = float(confidence_level)
        self.result = None

    # what a subclass draws ---------------------------------------------------------------------

    def _curve(self) -> tuple[np.ndarray, np.ndarray, dict]:
        """``x, y`` of the curve and matplotlib keywords it is drawn with by default."""
        raise NotImplementedError

    def _draw_band(self, ax, color, band_kw: dict):
        """The band (or rectangles) in ``color``; ``None`` without one."""
        raise NotImplementedError

    def _metric(self) -> str | None:
        """The legend's numbers after the name, ``"AUC = 0.87, 95% CI 0.83-0.91"``."""
        return None

    def _draw_chance(self, ax, chance_kw: dict):
        raise NotImplementedError

    def _limits(self, ax) -> None:
        ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), aspect="equal")

    # drawing -----------------------------------------------------------------------------------

    def plot(
        self,
        ax=None,
        *,
        name: str | None = None,
        curve_kwargs: dict | None = None,
        band_kwargs: dict | None = None,
        plot_chance_level: bool = False,
        chance_level_kw: dict | None = None,
        despine: bool = False,
        **kwargs,
    ):
        """Draw the curve and its band on ``ax`` (new axes without one); return the display.

        Parameters
        ----------
        ax : matplotlib Axes, optional
        name : str, optional
            The legend's name of the curve (default: the display's ``name``).
        curve_kwargs : dict, optional
            Matplotlib keywords of the curve (``color``, ``linestyle``, ``alpha``, ...);
            ``**kwargs`` are added to them.
        band_kwargs : dict, optional
            Matplotlib keywords of the band (``alpha``, ``hatch``, ...); its colour is the
            curve's unless given.
        plot_chance_level : bool, default False
            Also draw what a classifier without skill gives (once per axes).
        chance_level_kw : dict, optional
            Matplotlib keywords of the chance line.
        despine : bool, default False
            Remove the top and right spines.
        """
        ax = plots._axes(ax)
        name = self.name if name is None else name
        x, y, style = self._curve()
        line_kw = style | {"label": self._label(name)} | (curve_kwargs or {}) | kwargs
        self.line_ = ax.plot(x, y, **line_kw)[0]
        self.band_ = self._draw_band(ax, self.line_.get_color(), dict(band_kwargs or {}))
        _banded(self.line_, self.band_)  # the legend shows them as one entry
        self.chance_level_ = (
            self._draw_chance(ax, dict(chance_level_kw or {})) if plot_chance_level else None
        )
        self._finish(ax, despine)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    def _label(self, name: str | None) -> str | None:
        metric = self._metric()
        if name and metric:
            return f"{name} ({metric})"
        return name or metric

    def _finish(self, ax, despine: bool) -> None:
        # scikit-learn's labels, unless the axes has its own (a display drawn beside another)
        pos = "" if self.pos_label is None else f" (Positive label: {self.pos_label})"
        plots.label_axes(ax, self._xlabel + pos, self._ylabel + (pos if self._rates_on_y else ""))
        self._limits(ax)
        if despine:
            for side in ("top", "right"):
                ax.spines[side].set_visible(False)
        legend(ax, self._legend_loc)

    def _chance_line(self, ax, x, y, label: str, chance_kw: dict):
        """The chance line, drawn once per axes (an existing one with its label is kept)."""
        for line in ax.lines:
            if line.get_label() == label:
                return line
        return ax.plot(x, y, **(plots.CHANCE_STYLE | {"label": label} | chance_kw))[0]

    # making ------------------------------------------------------------------------------------

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        response_method: str = "auto",
        pos_label=None,
        name: str | None = None,
        **kwargs,
    ):
        """Score ``X`` with a fitted binary classifier, then :meth:`from_predictions` on ``y``
        with ``kwargs``; ``name`` defaults to the estimator's class name."""
        y_score, pos_label = estimator_scores(estimator, X, response_method, pos_label)
        name = type(estimator).__name__ if name is None else name
        return cls.from_predictions(y, y_score, pos_label=pos_label, name=name, **kwargs)


def _refuse_positional(cls: type, args: tuple, arrays: str) -> None:
    if args:
        raise TypeError(
            f"{cls.__name__} takes its arrays as keywords ({arrays}), as scikit-learn's "
            f"displays do; from a result of rocsim's functions use "
            f"{cls.__name__}.from_result(result)"
        )


def _required(cls: type, **arrays) -> None:
    missing = [name for name, value in arrays.items() if value is None]
    if missing:
        raise TypeError(f"{cls.__name__} needs {', '.join(missing)}")


def _interval(level: float, low: float, high: float, digits: int = 2, sign: str = "") -> str:
    return f"{level:.0%} CI {_number(low, digits, sign)} to {_number(high, digits, sign)}"


def _number(value: float, digits: int, sign: str = "") -> str:
    """``value`` to ``digits`` decimals, a rounded ``-0`` written ``0``."""
    return f"{round(value, digits) + 0.0:{sign}.{digits}f}"


def legend(ax, loc: str) -> None:
    """The axes' legend; a curve with a band shows as one entry, its line over its shaded
    patch (:func:`_banded`), in this legend and in any the user draws later."""
    ax.legend(loc=loc)


class LineWithBand(Line2D):
    """A curve drawn with its band (``band``): legends show the band's patch under the line."""

    band: Any = None


class HandlerLineWithBand(HandlerLine2D):
    """A legend entry of a :class:`LineWithBand`: the band's colour, opacity and hatch as a
    patch, the line over it."""

    def create_artists(self, legend, orig_handle, xdescent, ydescent, width, height, *rest):
        band = orig_handle.band
        patch = Rectangle(
            (-xdescent, -ydescent),
            width,
            height,
            facecolor=band.get_facecolor()[0],
            alpha=band.get_alpha(),
            hatch=band.get_hatch(),
            lw=0,
            transform=rest[-1],
        )
        line = super().create_artists(
            legend, orig_handle, xdescent, ydescent, width, height, *rest
        )
        return [patch, *line]


# every legend, the display's or one the user draws later, shows a band under its curve
Legend.update_default_handler_map({LineWithBand: HandlerLineWithBand()})


def _banded(line, band) -> None:
    """Mark ``line`` as drawn with ``band`` (:class:`LineWithBand`)."""
    if band is not None:
        line.__class__ = LineWithBand
        line.band = band


def _hidden(label: str) -> str:
    """A label matplotlib leaves out of the legend (the band's entry is its curve's)."""
    return f"_{label}"


def _resolved_label(y_true, pos_label):
    """The positive class the axes name, scikit-learn's rule when not given."""
    return positive_label(y_true, pos_label)


# --- ROC -----------------------------------------------------------------------------------------


class ROCBandDisplay(_BandDisplay):
    """ROC curve with its exact bootstrap band, as :func:`rocsim.roc_ci` computes it, and the
    AUC with its interval (:func:`rocsim.auc_ci`) in the legend.

    Create it with :meth:`from_predictions`, :meth:`from_estimator` or :meth:`from_result`;
    or from arrays, as ``sklearn.metrics.RocCurveDisplay``.

    Parameters
    ----------
    fpr, tpr : array-like
        The empirical ROC curve.
    band_fpr, tpr_low, tpr_high : array-like, optional
        A vertical band: TPR bounds at FPRs.
    band_tpr, fpr_low, fpr_high : array-like, optional
        A horizontal band: FPR bounds at TPRs. With all six arrays, threshold averaging's
        rectangles ``[fpr_low, fpr_high] x [tpr_low, tpr_high]`` around the points
        ``(band_fpr, band_tpr)``.
    roc_auc : float, optional
    roc_auc_ci : (float, float), optional
        The AUC's interval, shown in the legend.
    confidence_level : float, default 0.95
    name : str, optional
    pos_label : optional
        Named in the axis labels, as scikit-learn does.

    Attributes
    ----------
    result : ROCBands or None
        The intervals (``result.to_frame()``), for a display made by ``from_*``.
    auc_result : AUCResult or None
    line_ : matplotlib Line2D
        The empirical ROC curve.
    band_ : matplotlib artist
        The band (vertical, horizontal averaging) or the rectangles (threshold averaging).
    chance_level_ : matplotlib Line2D or None
    ax_, figure_ : matplotlib Axes and Figure

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> clf = LogisticRegression().fit(X[:200], y[:200])
    >>> display = ROCBandDisplay.from_estimator(clf, X[200:], y[200:])
    >>> display.line_.get_label()
    'LogisticRegression (AUC = 0.97, 95% CI 0.92 to 0.99)'
    """

    _xlabel, _ylabel = "False Positive Rate", "True Positive Rate"

    def __init__(
        self,
        *args,
        fpr=None,
        tpr=None,
        band_fpr=None,
        tpr_low=None,
        tpr_high=None,
        band_tpr=None,
        fpr_low=None,
        fpr_high=None,
        roc_auc: float | None = None,
        roc_auc_ci: tuple[float, float] | None = None,
        confidence_level: float = 0.95,
        name: str | None = None,
        pos_label=None,
    ) -> None:
        _refuse_positional(type(self), args, "fpr=..., tpr=..., band_fpr=..., ...")
        _required(type(self), fpr=fpr, tpr=tpr)
        super().__init__(name, pos_label, confidence_level)
        self.fpr, self.tpr = np.asarray(fpr, float), np.asarray(tpr, float)
        self.band_fpr, self.band_tpr = band_fpr, band_tpr
        self.tpr_low, self.tpr_high, self.fpr_low, self.fpr_high = (
            tpr_low,
            tpr_high,
            fpr_low,
            fpr_high,
        )
        self.roc_auc, self.roc_auc_ci = roc_auc, roc_auc_ci
        self.auc_result = None

    def _curve(self):
        return *plots._thinned(self.fpr, self.tpr), {"lw": 1.5}

    def _draw_band(self, ax, color, band_kw):
        label = _hidden(f"{self.confidence_level:.0%} band")
        if self.tpr_low is not None and self.fpr_low is not None:
            band = plots._rectangles(
                ax, self.fpr_low, self.fpr_high, self.tpr_low, self.tpr_high, color
            )
            band.update(band_kw)
            ax.plot(self.band_fpr, self.band_tpr, "o", ms=2.5, color=color, label="_points")
            return band
        if self.tpr_low is not None:
            x, low, high, fill = self.band_fpr, self.tpr_low, self.tpr_high, ax.fill_between
        elif self.fpr_low is not None:
            x, low, high, fill = self.band_tpr, self.fpr_low, self.fpr_high, ax.fill_betweenx
        else:
            return None
        style = {"color": color, "alpha": plots.BAND_ALPHA, "lw": 0, "label": label}
        return fill(x, low, high, **(style | band_kw))

    def _metric(self):
        if self.roc_auc is None:
            return None
        text = f"AUC = {self.roc_auc:.2f}"
        if self.roc_auc_ci is not None:
            text += f", {_interval(self.confidence_level, *self.roc_auc_ci)}"
        return text

    def _draw_chance(self, ax, chance_kw):
        return self._chance_line(ax, [0, 1], [0, 1], "Chance level (AUC = 0.5)", chance_kw)

    @classmethod
    def from_result(cls, result, *, auc=None, name: str | None = None, pos_label=None):
        """The display of a result of :func:`rocsim.roc_ci` (curve and band; ``auc`` a
        result of :func:`rocsim.auc_ci` for the legend) or of :func:`rocsim.auc_ci` alone
        (the curve and the AUC with its interval, no band)."""
        if hasattr(result, "auc") and hasattr(result, "curves"):
            fpr, tpr = result.curves[0]
            display = cls(fpr=fpr, tpr=tpr, confidence_level=result.confidence_level)
            auc = result
        elif hasattr(result, "averaging") and hasattr(result, "curve"):
            display = cls(**_roc_band_arrays(result), confidence_level=result.confidence_level)
        else:
            raise TypeError(
                f"ROCBandDisplay.from_result takes a result of rocsim.roc_ci or "
                f"rocsim.auc_ci, got {type(result).__name__}"
            )
        if auc is not None:
            display.roc_auc, display.roc_auc_ci = auc.auc, (auc.low, auc.high)
            display.auc_result = auc
        display.result = result
        display.name, display.pos_label = name, pos_label
        return display

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        pos_label=None,
        name: str | None = None,
        ax=None,
        averaging: str = "vertical",
        at=None,
        thresholds=None,
        band: str = "pointwise",
        method: str | None = None,
        confidence_level: float = 0.95,
        bootstrap: str = "stratified",
        side: str = "lower",
        direction: str = "higher",
        ties: str = "step",
        auc_method: str | None = None,
        **kwargs,
    ):
        """Compute the band (:func:`rocsim.roc_ci`) and the AUC's interval
        (:func:`rocsim.auc_ci`, ``method=auc_method``) and draw them.

        ``averaging`` (``"vertical"`` by default in displays: a band around the curve;
        ``"threshold"`` for Fawcett's rectangles), ``at``, ``thresholds``, ``band``,
        ``method``, ``confidence_level``, ``bootstrap``, ``side``, ``direction``, ``ties``
        are those of :func:`rocsim.roc_ci`; the drawing keywords those of :meth:`plot`."""
        result = roc_ci(
            y_true,
            y_score,
            averaging=averaging,
            at=at,
            thresholds=thresholds,
            confidence_level=confidence_level,
            method=method,
            bootstrap=bootstrap,
            side=side,
            pos_label=pos_label,
            direction=direction,
            band=band,
            ties=ties,
        )
        auc = auc_ci(
            y_true,
            y_score,
            method=auc_method,
            confidence_level=confidence_level,
            pos_label=pos_label,
            direction=direction,
        )
        display = cls.from_result(
            result, auc=auc, name=name, pos_label=_resolved_label(y_true, pos_label)
        )
        return display.plot(ax, **kwargs)


def _roc_band_arrays(result) -> dict[str, Any]:
    """The constructor's arrays of a :func:`rocsim.roc_ci` result."""
    fpr, tpr = result.curve
    arrays: dict[str, Any] = {"fpr": fpr, "tpr": tpr}
    if result.averaging in ("threshold", "vertical"):
        arrays |= {"band_fpr": result.fpr, "tpr_low": result.tpr_low, "tpr_high": result.tpr_high}
    if result.averaging in ("threshold", "horizontal"):
        arrays |= {"band_tpr": result.tpr, "fpr_low": result.fpr_low, "fpr_high": result.fpr_high}
    return arrays


# --- precision-recall ----------------------------------------------------------------------------


class PrecisionRecallBandDisplay(_BandDisplay):
    """Precision-recall curve with its exact bootstrap band (vertical averaging, precision at
    fixed recalls) or rectangles (threshold averaging), as :func:`rocsim.pr_ci` computes it;
    the average precision in the legend, as ``sklearn.metrics.PrecisionRecallDisplay``.

    Parameters
    ----------
    precision, recall : array-like
        The empirical curve, one point per threshold (recall increasing).
    band_recall, precision_low, precision_high : array-like, optional
        The band: precision bounds at recalls.
    band_precision, recall_low, recall_high : array-like, optional
        With the band's arrays, threshold averaging's rectangles around the points
        ``(band_recall, band_precision)``.
    average_precision : float, optional
    prevalence_pos_label : float, optional
        The share of positives: the chance level.
    confidence_level, name, pos_label
        As :class:`ROCBandDisplay`'s.

    Attributes as :class:`ROCBandDisplay`'s (``result`` a ``PRBands``).
    """

    _xlabel, _ylabel = "Recall", "Precision"
    _legend_loc = "lower left"

    def __init__(
        self,
        *args,
        precision=None,
        recall=None,
        band_recall=None,
        precision_low=None,
        precision_high=None,
        band_precision=None,
        recall_low=None,
        recall_high=None,
        average_precision: float | None = None,
        prevalence_pos_label: float | None = None,
        confidence_level: float = 0.95,
        name: str | None = None,
        pos_label=None,
    ) -> None:
        _refuse_positional(type(self), args, "precision=..., recall=..., ...")
        _required(type(self), precision=precision, recall=recall)
        super().__init__(name, pos_label, confidence_level)
        self.precision, self.recall = np.asarray(precision, float), np.asarray(recall, float)
        self.band_recall, self.precision_low, self.precision_high = (
            band_recall,
            precision_low,
            precision_high,
        )
        self.band_precision, self.recall_low, self.recall_high = (
            band_precision,
            recall_low,
            recall_high,
        )
        self.average_precision = average_precision
        self.prevalence_pos_label = prevalence_pos_label

    def _curve(self):
        recall, precision = plots._thinned(self.recall, self.precision)
        # precision at a point holds over the recalls since the previous one
        return np.r_[0.0, recall], np.r_[precision[:1], precision], {"drawstyle": "steps-pre"}

    def _draw_band(self, ax, color, band_kw):
        if self.precision_low is None:
            return None
        if self.recall_low is not None:
            band = plots._rectangles(
                ax,
                self.recall_low,
                self.recall_high,
                self.precision_low,
                self.precision_high,
                color,
            )
            band.update(band_kw)
            ax.plot(self.band_recall, self.band_precision, "o", ms=2.5, color=color, label="_p")
            return band
        order = np.argsort(self.band_recall, kind="stable")  # rows may follow any request
        style = {"color": color, "alpha": plots.BAND_ALPHA, "lw": 0, "step": "mid"}
        style["label"] = _hidden(f"{self.confidence_level:.0%} band")
        low, high = np.asarray(self.precision_low)[order], np.asarray(self.precision_high)[order]
        return ax.fill_between(np.asarray(self.band_recall)[order], low, high, **style | band_kw)

    def _metric(self):
        return None if self.average_precision is None else f"AP = {self.average_precision:.2f}"

    def _draw_chance(self, ax, chance_kw):
        share = self.prevalence_pos_label
        label = f"Chance level (AP = {share:.2f})"
        return self._chance_line(ax, [0, 1], [share, share], label, chance_kw)

    @classmethod
    def from_result(cls, result, *, name: str | None = None, pos_label=None):
        """The display of a result of :func:`rocsim.pr_ci`."""
        recall, precision = result.law.curve
        law = result.law
        display = cls(
            precision=precision,
            recall=recall,
            band_recall=result.recall,
            precision_low=result.low,
            precision_high=result.high,
            band_precision=result.precision if result.recall_low is not None else None,
            recall_low=result.recall_low,
            recall_high=result.recall_high,
            average_precision=average_precision(recall, precision),
            prevalence_pos_label=law.m_pos / (law.m_pos + law.m_neg),
            confidence_level=result.confidence_level,
            name=name,
            pos_label=pos_label,
        )
        display.result = result
        return display

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        pos_label=None,
        name: str | None = None,
        ax=None,
        averaging: str = "vertical",
        at=None,
        thresholds=None,
        method: str = "score",
        confidence_level: float = 0.95,
        direction: str = "higher",
        **kwargs,
    ):
        """Compute the band (:func:`rocsim.pr_ci`: ``averaging``, ``at``, ``thresholds``,
        ``method``, ``confidence_level``, ``direction``) and draw it with
        ``kwargs``, the drawing keywords of :meth:`plot`."""
        result = pr_ci(
            y_true,
            y_score,
            averaging=averaging,
            at=at,
            thresholds=thresholds,
            confidence_level=confidence_level,
            method=method,
            pos_label=pos_label,
            direction=direction,
        )
        display = cls.from_result(result, name=name, pos_label=_resolved_label(y_true, pos_label))
        return display.plot(ax, **kwargs)


def average_precision(recall: np.ndarray, precision: np.ndarray) -> float:
    """``sum (R_k - R_{k-1}) P_k`` over the thresholds (``R_0 = 0``), scikit-learn's
    ``average_precision_score``."""
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


# --- cost ----------------------------------------------------------------------------------------


class CostCurveDisplay(_BandDisplay):
    """Cost curve (normalized expected cost against the operating condition ``w``) with its
    pointwise band, as :func:`rocsim.cost_curve_ci` computes it; the chance level is the
    trivial classifiers' cost ``min(w, 1 - w)``.

    Parameters
    ----------
    w, cost : array-like
        Operating conditions and the classifier's normalized expected cost there.
    cost_low, cost_high : array-like, optional
        The band.
    confidence_level, name, pos_label
        As :class:`ROCBandDisplay`'s.

    Attributes as :class:`ROCBandDisplay`'s (``result`` a ``CostBands``).
    """

    _xlabel, _ylabel = "Operating condition w", "Normalized expected cost"
    _legend_loc = "upper right"

    def __init__(
        self,
        *args,
        w=None,
        cost=None,
        cost_low=None,
        cost_high=None,
        confidence_level: float = 0.95,
        name: str | None = None,
        pos_label=None,
    ) -> None:
        _refuse_positional(type(self), args, "w=..., cost=..., cost_low=..., cost_high=...")
        _required(type(self), w=w, cost=cost)
        super().__init__(name, pos_label, confidence_level)
        self.w, self.cost = np.asarray(w, float), np.asarray(cost, float)
        self.cost_low, self.cost_high = cost_low, cost_high

    def _curve(self):
        return self.w, self.cost, {"lw": 1.5}

    def _draw_band(self, ax, color, band_kw):
        if self.cost_low is None:
            return None
        style = {"color": color, "alpha": plots.BAND_ALPHA, "lw": 0}
        style["label"] = _hidden(f"{self.confidence_level:.0%} band")
        return ax.fill_between(self.w, self.cost_low, self.cost_high, **style | band_kw)

    def _draw_chance(self, ax, chance_kw):
        w = np.linspace(0, 1, 201)
        label = "Chance level (trivial classifiers)"
        return self._chance_line(ax, w, np.minimum(w, 1 - w), label, chance_kw)

    def _limits(self, ax) -> None:
        ax.set(xlim=(0, 1), ylim=(0, None))

    @classmethod
    def from_result(cls, result, *, name: str | None = None, pos_label=None):
        """The display of a result of :func:`rocsim.cost_curve_ci`."""
        display = cls(
            w=result.w,
            cost=result.cost,
            cost_low=result.low,
            cost_high=result.high,
            confidence_level=result.confidence_level,
            name=name,
            pos_label=pos_label,
        )
        display.result = result
        return display

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        pos_label=None,
        name: str | None = None,
        ax=None,
        w=None,
        thresholds="empirical",
        method: str | Callable = DEFAULT_METHODS["cost"],
        confidence_level: float = 0.95,
        bootstrap: str = "stratified",
        direction: str = "higher",
        band: str = "pointwise",
        **kwargs,
    ):
        """Compute the band (:func:`rocsim.cost_curve_ci`: ``w``, ``thresholds``, ``method``,
        ``confidence_level``, ``bootstrap``, ``direction``, ``band``) and draw it with ``kwargs``,
        the drawing keywords of :meth:`plot`."""
        result = cost_curve_ci(
            y_true,
            y_score,
            w=w,
            thresholds=thresholds,
            confidence_level=confidence_level,
            method=method,
            bootstrap=bootstrap,
            pos_label=pos_label,
            direction=direction,
            band=band,
        )
        display = cls.from_result(result, name=name, pos_label=_resolved_label(y_true, pos_label))
        return display.plot(ax, **kwargs)


# --- decision curves -----------------------------------------------------------------------------


class DecisionCurveDisplay(_BandDisplay):
    """A model's decision curve, net benefit against the threshold probability, with its exact
    bootstrap band, as :func:`rocsim.net_benefit_ci` computes it, beside treat-all's (with its
    band under the full bootstrap) and treat-none's.

    Parameters
    ----------
    threshold, net_benefit : array-like
    net_benefit_low, net_benefit_high : array-like, optional
        The band.
    treat_all : array-like, optional
        Treat-all's net benefit at ``threshold``; ``treat_all_low``, ``treat_all_high`` its
        band.
    prevalence : float, optional
        The share of positives: the axes reach a little above it.
    confidence_level, name, pos_label
        As :class:`ROCBandDisplay`'s.

    Attributes as :class:`ROCBandDisplay`'s (``result`` a ``NetBenefitCurve``,
    ``chance_level_`` the treat-all and treat-none lines, drawn by default).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = make_classification(n_samples=400, weights=[0.8], random_state=0)
    >>> clf = LogisticRegression().fit(X[:200], y[:200])
    >>> display = DecisionCurveDisplay.from_estimator(clf, X[200:], y[200:])
    >>> [line.get_label() for line in display.ax_.lines]
    ['LogisticRegression', 'Treat all', 'Treat none']
    """

    _legend_loc = "upper right"
    _rates_on_y = False
    _xlabel, _ylabel = "Threshold probability", "Net benefit"

    def __init__(
        self,
        *args,
        threshold=None,
        net_benefit=None,
        net_benefit_low=None,
        net_benefit_high=None,
        treat_all=None,
        treat_all_low=None,
        treat_all_high=None,
        prevalence: float | None = None,
        confidence_level: float = 0.95,
        name: str | None = None,
        pos_label=None,
    ) -> None:
        _refuse_positional(type(self), args, "threshold=..., net_benefit=...")
        _required(type(self), threshold=threshold, net_benefit=net_benefit)
        super().__init__(name, pos_label, confidence_level)
        self.threshold = np.asarray(threshold, float)
        self.net_benefit = np.asarray(net_benefit, float)
        self.net_benefit_low, self.net_benefit_high = net_benefit_low, net_benefit_high
        self.treat_all = treat_all
        self.treat_all_low, self.treat_all_high = treat_all_low, treat_all_high
        self.prevalence = prevalence

    def plot(self, ax=None, *, plot_chance_level: bool = True, **kwargs):
        """:meth:`ROCBandDisplay.plot`'s drawing; the references (treat-all, treat-none) are
        drawn unless ``plot_chance_level=False``."""
        # another decision curve on these axes: keep the room it made
        drawn = ax is not None and any(ln.get_label() == "Treat none" for ln in ax.lines)
        self._room = ax.get_ylim() if drawn else None
        return super().plot(ax, plot_chance_level=plot_chance_level, **kwargs)

    def _curve(self):
        return self.threshold, self.net_benefit, {"lw": 1.5}

    def _draw_band(self, ax, color, band_kw):
        if self.net_benefit_low is None:
            return None
        style = {"color": color, "alpha": plots.BAND_ALPHA, "lw": 0}
        style["label"] = _hidden(f"{self.confidence_level:.0%} band")
        return ax.fill_between(
            self.threshold, self.net_benefit_low, self.net_benefit_high, **style | band_kw
        )

    def _draw_chance(self, ax, chance_kw):
        """Treat-all's curve with its band, if known, and treat-none's zero line, each once per
        axes (dcurves' references); returns the treat-all line, or treat-none's without it."""
        line = None
        if self.treat_all is not None:
            line = next((ln for ln in ax.lines if ln.get_label() == "Treat all"), None)
            line = line or self._draw_treat_all(ax, chance_kw)
        none = self._chance_line(ax, self.threshold, 0 * self.threshold, "Treat none", chance_kw)
        return line or none

    def _draw_treat_all(self, ax, chance_kw):
        style = {"color": "0.45", "lw": 1.0, "label": "Treat all"} | chance_kw
        line = ax.plot(self.threshold, self.treat_all, **style)[0]
        low, high = self.treat_all_low, self.treat_all_high
        if low is not None and np.any(np.asarray(high) > np.asarray(low)):  # full bootstrap
            band_style = {"color": line.get_color(), "alpha": plots.BAND_ALPHA / 2, "lw": 0}
            band = ax.fill_between(
                self.threshold, low, high, label=_hidden("treat all band"), **band_style
            )
            _banded(line, band)
        return line

    def _limits(self, ax) -> None:
        """From a little below 0 (where treat-all plunges) to a little above the prevalence
        and the bands, and the room other decision curves on the axes made."""
        highs = [self.net_benefit, self.net_benefit_high, self.treat_all_high, [self.prevalence]]
        top = max(float(np.max(h)) for h in highs if h is not None and h[0] is not None)
        low, high = -0.05 * max(top, 0.1), 1.1 * top
        if self._room is not None:
            low, high = min(low, self._room[0]), max(high, self._room[1])
        ax.set(xlim=(float(self.threshold.min()), float(self.threshold.max())))
        ax.set_ylim(low, high)

    @classmethod
    def from_result(cls, result, *, name: str | None = None, pos_label=None):
        """The display of a result of :func:`rocsim.net_benefit_ci`."""
        display = cls(
            threshold=result.threshold,
            net_benefit=result.net_benefit,
            net_benefit_low=result.net_benefit_low,
            net_benefit_high=result.net_benefit_high,
            treat_all=result.treat_all,
            treat_all_low=result.treat_all_low,
            treat_all_high=result.treat_all_high,
            prevalence=result.n_pos / (result.n_pos + result.n_neg),
            confidence_level=result.confidence_level,
            name=name,
            pos_label=pos_label,
        )
        display.result = result
        return display

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_proba,
        *,
        pos_label=None,
        name: str | None = None,
        ax=None,
        thresholds=None,
        method: str | Callable = DEFAULT_METHODS["net_benefit"],
        confidence_level: float = 0.95,
        bootstrap: str = "full",
        **kwargs,
    ):
        """Compute the curve (:func:`rocsim.net_benefit_ci`: ``thresholds``, ``method``,
        ``confidence_level``, ``bootstrap``) and draw it with ``kwargs``, the drawing keywords
        of :meth:`plot`."""
        result = net_benefit_ci(
            y_true,
            y_proba,
            thresholds=thresholds,
            confidence_level=confidence_level,
            method=method,
            bootstrap=bootstrap,
            pos_label=pos_label,
        )
        display = cls.from_result(result, name=name, pos_label=_resolved_label(y_true, pos_label))
        return display.plot(ax, **kwargs)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, response_method: str = "predict_proba", **kwargs):
        """Predicted probabilities of a fitted binary classifier (``predict_proba``: a
        decision curve treats by probability), then :meth:`from_predictions`."""
        return super().from_estimator(estimator, X, y, response_method=response_method, **kwargs)


# --- two classifiers -----------------------------------------------------------------------------

#: A comparison's axis -> its label and the difference's label (``{a}``, ``{b}``: the names).
COMPARISON_AXES = {
    "fpr": ("False Positive Rate", "TPR({a}) - TPR({b})"),
    "tpr": ("True Positive Rate", "FPR({a}) - FPR({b})"),
    "q": ("Total positive ratio (share predicted positive)", "TPR({a}) - TPR({b})"),
}
NO_DIFFERENCE = plots.NO_DIFFERENCE


class ROCComparisonDisplay(_BandDisplay):
    """Two classifiers scored on the same instances: the difference of their ROC curves with
    its exact paired bootstrap band, as :func:`rocsim.compare_roc` computes it (``TPR1 -
    TPR2`` at fixed FPRs by default), and the difference of their AUCs with its interval
    (:func:`rocsim.compare_auc`) in the legend. Points where the interval excludes 0 are
    marked; a :class:`TiedVerdictWarning` says when a block of tied scores decides one.

    Parameters
    ----------
    x, difference, low, high : array-like
        The rates compared at and the difference with its bounds.
    axis : {"fpr", "tpr", "q"}, default "fpr"
        What ``x`` is: FPRs (``TPR1 - TPR2``), TPRs (``FPR1 - FPR2``) or total positive
        ratios.
    names : (str, str), default ("classifier 1", "classifier 2")
    auc_difference : float, optional
    auc_difference_ci : (float, float), optional
    confidence_level, name, pos_label
        As :class:`ROCBandDisplay`'s; ``name`` defaults to ``"<first> - <second>"``.

    Attributes as :class:`ROCBandDisplay`'s (``result`` a ``ROCComparison``, ``line_`` the
    difference, ``chance_level_`` the zero line).
    """

    _legend_loc = "best"
    _rates_on_y = False

    def __init__(
        self,
        *args,
        x=None,
        difference=None,
        low=None,
        high=None,
        axis: str = "fpr",
        names: tuple[str, str] = ("classifier 1", "classifier 2"),
        auc_difference: float | None = None,
        auc_difference_ci: tuple[float, float] | None = None,
        confidence_level: float = 0.95,
        name: str | None = None,
        pos_label=None,
    ) -> None:
        _refuse_positional(type(self), args, "x=..., difference=..., low=..., high=...")
        _required(type(self), x=x, difference=difference, low=low, high=high)
        check_choice(axis, tuple(COMPARISON_AXES), "axis")
        name = f"{names[0]} - {names[1]}" if name is None else name
        super().__init__(name, pos_label, confidence_level)
        self.x, self.difference = np.asarray(x, float), np.asarray(difference, float)
        self.low, self.high = np.asarray(low, float), np.asarray(high, float)
        self.axis, self.names = axis, tuple(names)
        self.auc_difference, self.auc_difference_ci = auc_difference, auc_difference_ci
        self._xlabel, template = COMPARISON_AXES[axis]
        self._ylabel = template.format(a=names[0], b=names[1])

    def _curve(self):
        return self.x, self.difference, {"lw": 1.5}

    def _draw_band(self, ax, color, band_kw):
        style = {"color": color, "alpha": plots.BAND_ALPHA, "lw": 0}
        style["label"] = _hidden(f"{self.confidence_level:.0%} band")
        band = ax.fill_between(self.x, self.low, self.high, **style | band_kw)
        signs = ((self.low > 0, "tab:green", "above 0"), (self.high < 0, "tab:red", "below 0"))
        for hit, mark, where in signs:
            if hit.any():
                label = f"interval {where}"
                if any(line.get_label() == label for line in ax.lines):
                    label = _hidden(label)  # one legend entry per axes
                ax.plot(self.x[hit], self.difference[hit], "o", ms=3, color=mark, label=label)
        return band

    def _label(self, name: str | None) -> str | None:
        # two names and an interval: the numbers on a line of their own
        label = super()._label(name)
        return label.replace(" (", "\n(", 1) if name and self._metric() else label

    def _metric(self):
        if self.auc_difference is None:
            return None
        text = f"\N{GREEK CAPITAL LETTER DELTA}AUC = {_number(self.auc_difference, 3, '+')}"
        if self.auc_difference_ci is not None:
            text += f", {_interval(self.confidence_level, *self.auc_difference_ci, 3, '+')}"
        return text

    def _draw_chance(self, ax, chance_kw):
        return None  # the zero line, "no difference", is always drawn

    def _limits(self, ax) -> None:
        if not any(line.get_label() == NO_DIFFERENCE for line in ax.lines):  # once per axes
            ax.axhline(0.0, **(plots.CHANCE_STYLE | {"lw": 0.8, "label": NO_DIFFERENCE}))
        ax.set(xlim=(0, 1))

    @classmethod
    def from_result(
        cls,
        result,
        *,
        auc=None,
        names: tuple[str, str] = ("classifier 1", "classifier 2"),
        name: str | None = None,
        pos_label=None,
    ):
        """The display of a result of :func:`rocsim.compare_roc` (``auc`` a result of
        :func:`rocsim.compare_auc` for the legend)."""
        x, y, low, high, _, _ = plots._difference_axes(result)
        axis = (
            "tpr"
            if result.averaging == "horizontal"
            else ("q" if result.averaging == "threshold" and result.q is not None else "fpr")
        )
        display = cls(
            x=x,
            difference=y,
            low=low,
            high=high,
            axis=axis,
            names=names,
            auc_difference=None if auc is None else auc.difference,
            auc_difference_ci=None if auc is None else (auc.low, auc.high),
            confidence_level=result.confidence_level,
            name=name,
            pos_label=pos_label,
        )
        display.result, display.auc_result = result, auc
        return display

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score1,
        y_score2,
        *,
        pos_label=None,
        names: tuple[str, str] = ("classifier 1", "classifier 2"),
        name: str | None = None,
        ax=None,
        averaging: str = "vertical",
        at=None,
        thresholds=None,
        band: str = "pointwise",
        method: str | None = None,
        confidence_level: float = 0.95,
        side: str = "lower",
        direction: str | tuple[str, str] = "higher",
        **kwargs,
    ):
        """Compare two classifiers' scores on the same instances (:func:`rocsim.compare_roc`,
        ``averaging="vertical"`` by default: ``TPR1 - TPR2`` at fixed FPRs; and
        :func:`rocsim.compare_auc`) and draw the difference (:meth:`plot`).
        ``kwargs`` are those of :meth:`plot` (``plot_chance_level`` is ignored: the zero
        line is always drawn)."""
        result = compare_roc(
            y_true,
            y_score1,
            y_score2,
            averaging=averaging,
            at=at,
            thresholds=thresholds,
            confidence_level=confidence_level,
            method=method,
            side=side,
            pos_label=pos_label,
            direction=direction,
            band=band,
        )
        auc = compare_auc(
            y_true,
            y_score1,
            y_score2,
            confidence_level=confidence_level,
            pos_label=pos_label,
            direction=direction,
        )
        display = cls.from_result(
            result,
            auc=auc,
            names=names,
            name=name,
            pos_label=_resolved_label(y_true, pos_label),
        )
        data = scored(y_true, y_score1, y_score2, pos_label=pos_label, direction=direction)
        warn_tied_verdicts(display, data)
        return display.plot(ax, **kwargs)

    @classmethod
    def from_estimator(cls, *args, **kwargs):
        raise TypeError(
            "ROCComparisonDisplay compares two classifiers: use "
            "ROCComparisonDisplay.from_estimators(estimator1, estimator2, X, y)"
        )

    @classmethod
    def from_estimators(
        cls,
        estimator1,
        estimator2,
        X,
        y,
        *,
        response_method: str = "auto",
        pos_label=None,
        names: tuple[str, str] | None = None,
        **kwargs,
    ):
        """Score ``X`` with two fitted binary classifiers and draw the difference of their
        ROC curves (:meth:`from_predictions` with ``kwargs``); ``names`` default to their
        class names."""
        s1, pos_label1 = estimator_scores(estimator1, X, response_method, pos_label)
        s2, pos_label2 = estimator_scores(estimator2, X, response_method, pos_label)
        if pos_label1 != pos_label2:
            raise ValueError(
                f"the two estimators' positive classes differ ({pos_label1!r} and "
                f"{pos_label2!r}); pass pos_label"
            )
        names = names or (type(estimator1).__name__, type(estimator2).__name__)
        return cls.from_predictions(y, s1, s2, pos_label=pos_label1, names=names, **kwargs)


def tie_spans(pos: np.ndarray, neg: np.ndarray, axis: str) -> list[tuple[float, float, int]]:
    """The open spans of ``axis`` (FPR, TPR or total positive ratio) across which a block of
    tied scores decides a classifier's operating point, with the block's size: on the FPR and
    TPR axes, the diagonal segments of its empirical ROC curve (positives and negatives tied
    at one score); on the total positive ratio, any block of two or more instances."""
    fpr, tpr, _ = roc_curve(pos, neg)
    n_pos, n_neg = pos.size, neg.size
    rate = {"fpr": fpr, "tpr": tpr, "q": (tpr * n_pos + fpr * n_neg) / (n_pos + n_neg)}[axis]
    size = np.rint(np.diff(tpr) * n_pos + np.diff(fpr) * n_neg).astype(int)
    if axis == "q":  # no threshold puts a share strictly inside a tied block positive
        tied = size > 1
    else:  # a block of one class keeps the other's rate: only mixed blocks are read
        tied = (np.diff(fpr) > 0) & (np.diff(tpr) > 0)
    return [(rate[i], rate[i + 1], size[i]) for i in np.flatnonzero(tied)]


def warn_tied_verdicts(display: ROCComparisonDisplay, data) -> None:
    """A :class:`TiedVerdictWarning` per classifier whose tied scores decide a verdict: a
    marked point (interval excluding 0) strictly inside one of its :func:`tie_spans`."""
    marked = display.x[(display.low > 0) | (display.high < 0)]
    axis = {"fpr": "FPR", "tpr": "TPR", "q": "total positive ratio"}[display.axis]
    for k, name in enumerate(display.names):
        for start, end, size in tie_spans(*data.classes(k), display.axis):
            inside = marked[(marked > start) & (marked < end)]
            if not inside.size:
                continue
            span = f"{start:.3g}-{end:.3g}"
            how = (
                f"no threshold of it predicts between {start:.3g} and {end:.3g} positive"
                if display.axis == "q"
                else f"its curve crosses {axis} {span} on a straight segment"
            )
            where = f"{inside.min():.3g}" + (f"-{inside.max():.3g}" if inside.size > 1 else "")
            warnings.warn(
                f"{name} gives {size} instances one score ({how}): the verdict at {axis} "
                f"{where} rests on how the tie is read, not on the ranking",
                TiedVerdictWarning,
                stacklevel=3,
            )


def estimator_scores(estimator, X, response_method: str = "auto", pos_label=None):
    """The scores a fitted binary classifier gives ``X`` for its positive class, and that
    class (scikit-learn's rules, module docstring)."""
    check_choice(response_method, RESPONSE_METHODS, "response_method")
    methods = RESPONSE_METHODS[1:] if response_method == "auto" else (response_method,)
    method = next((m for m in methods if callable(getattr(estimator, m, None))), None)
    if method is None:
        raise ValueError(
            f"{type(estimator).__name__} has no {' or '.join(methods)}: a binary classifier "
            "with predict_proba or decision_function is needed"
        )
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise ValueError(f"{type(estimator).__name__} has no classes_: fit it first")
    classes = list(classes)
    if len(classes) != 2:
        raise ValueError(
            f"{type(estimator).__name__} has {len(classes)} classes {classes}; the displays "
            "draw binary classifiers"
        )
    pos_label = classes[-1] if pos_label is None else pos_label
    if pos_label not in classes:
        raise ValueError(f"pos_label {pos_label!r} is not a class of the estimator: {classes}")
    values = getattr(estimator, method)(X)
    if method == "predict_proba":
        return values[:, classes.index(pos_label)], pos_label
    return (values if pos_label == classes[-1] else -values), pos_label
