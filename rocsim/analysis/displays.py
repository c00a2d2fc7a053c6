"""Displays, as scikit-learn's: a classifier's curve with its exact bootstrap band, drawn from
predictions (``from_predictions(y_true, y_score, ...)``) or from a fitted estimator
(``from_estimator(estimator, X, y, ...)``).

Each display computes with the function of the same curve (:func:`rocsim.roc_ci`,
:func:`rocsim.pr_ci`, :func:`rocsim.cost_curve_ci`, :func:`rocsim.compare_roc`; its options
are the display's) and draws with :mod:`rocsim.views.plots`. As in scikit-learn
(``sklearn.metrics.RocCurveDisplay``), the display keeps what it drew: ``ax_``, ``figure_``,
``line_`` (the curve), ``band_`` (the band or the rectangles), ``chance_level_`` (when drawn),
and ``result`` (the function's result, ``result.to_frame()`` for the numbers). Several models
go on one axes by passing the same ``ax``; each takes the axes' next colour.

``from_estimator`` picks the scores as scikit-learn's displays do: ``response_method="auto"``
tries ``predict_proba`` then ``decision_function``; the positive class is ``pos_label``,
``estimator.classes_[-1]`` by default (the column of ``predict_proba`` for that class; the
decision function, negated when ``pos_label`` is the first class).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rocsim.analysis.cost import cost_curve_ci
from rocsim.analysis.pr import pr_ci
from rocsim.analysis.roc import compare_roc, roc_ci
from rocsim.core._validation import check_choice
from rocsim.views import plots

#: Ways ``from_estimator`` may get scores from an estimator (scikit-learn's names).
RESPONSE_METHODS = ("auto", "predict_proba", "decision_function")


class _BandDisplay:
    """A curve with its band; subclasses name the function computing it and the drawing."""

    _compute: ClassVar[Any]
    _draw: ClassVar[Any]
    _chance: ClassVar[Any]
    _finish: ClassVar[Any]

    def __init__(self, result, *, name: str | None = None) -> None:
        self.result = result
        self.name = name

    def plot(self, ax=None, *, name=None, plot_chance_level: bool = False, color=None):
        """Draw the curve and its band on ``ax`` (new axes without one) and return the display.

        Parameters
        ----------
        ax : matplotlib Axes, optional
        name : str, optional
            The legend's name of the curve (default: the display's ``name``).
        plot_chance_level : bool, default False
            Also draw what a classifier without skill gives.
        color : optional
            The curve's and the band's colour (default: the axes' next colour).
        """
        ax = plots._axes(ax)
        name = self.name if name is None else name
        self.line_, self.band_ = type(self)._draw(ax, self.result, color=color, name=name)
        if plot_chance_level:
            self.chance_level_ = self._draw_chance(ax)
        self._finish_axes(ax)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    def _draw_chance(self, ax):
        return type(self)._chance(ax)

    def _finish_axes(self, ax) -> None:
        type(self)._finish(ax)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        ax=None,
        name: str | None = None,
        plot_chance_level: bool = False,
        color=None,
        **options,
    ):
        """Compute the band from labels and scores and draw it.

        ``options`` are those of the display's function (``averaging``, ``at``,
        ``confidence_level``, ``method``, ``pos_label``, ``direction``, ...).
        """
        result = cls._compute(y_true, y_score, **options)
        display = cls(result, name=name)
        return display.plot(ax, plot_chance_level=plot_chance_level, color=color)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        response_method: str = "auto",
        pos_label=None,
        ax=None,
        name: str | None = None,
        plot_chance_level: bool = False,
        color=None,
        **options,
    ):
        """Score ``X`` with a fitted binary classifier, then :meth:`from_predictions` on
        ``y``; ``name`` defaults to the estimator's class name."""
        y_score, pos_label = estimator_scores(estimator, X, response_method, pos_label)
        return cls.from_predictions(
            y,
            y_score,
            pos_label=pos_label,
            ax=ax,
            name=type(estimator).__name__ if name is None else name,
            plot_chance_level=plot_chance_level,
            color=color,
            **options,
        )


class ROCBandDisplay(_BandDisplay):
    """ROC curve with its exact bootstrap band (vertical or horizontal averaging) or
    rectangles (threshold averaging), as :func:`rocsim.roc_ci` computes them.

    Create it with :meth:`from_predictions` or :meth:`from_estimator`; the options of
    :func:`rocsim.roc_ci` (``averaging``, ``at``, ``thresholds``, ``confidence_level``,
    ``method``, ``bootstrap``, ``side``, ``pos_label``, ``direction``) pass through.

    Attributes
    ----------
    result : ROCBands
        The intervals (``result.to_frame()``).
    line_ : matplotlib Line2D
        The empirical ROC curve.
    band_ : matplotlib artist
        The band (vertical, horizontal averaging) or the rectangles (threshold averaging).
    chance_level_ : matplotlib Line2D
        The diagonal, when ``plot_chance_level=True``.
    ax_, figure_ : matplotlib Axes and Figure

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> clf = LogisticRegression().fit(X[:200], y[:200])
    >>> display = ROCBandDisplay.from_estimator(clf, X[200:], y[200:], averaging="vertical")
    >>> display.result.to_frame().shape[1], display.line_.get_label()
    (8, 'LogisticRegression')
    """

    _compute = staticmethod(roc_ci)
    _draw = staticmethod(plots.draw_roc_bands)
    _chance = staticmethod(plots.roc_chance)
    _finish = staticmethod(plots.finish_roc_axes)


class PrecisionRecallBandDisplay(_BandDisplay):
    """Precision-recall curve with its exact bootstrap band (vertical averaging, precision at
    fixed recalls) or rectangles (threshold averaging), as :func:`rocsim.pr_ci` computes them.

    Create it with :meth:`from_predictions` or :meth:`from_estimator`; the options of
    :func:`rocsim.pr_ci` (``averaging``, ``at``, ``thresholds``, ``confidence_level``,
    ``method``, ``pos_label``, ``direction``) pass through. The chance level is the share of
    positives. Attributes as :class:`ROCBandDisplay`'s (``result`` a ``PRBands``).
    """

    _compute = staticmethod(pr_ci)
    _draw = staticmethod(plots.draw_pr_bands)
    _finish = staticmethod(plots.finish_pr_axes)

    def _draw_chance(self, ax):
        return plots.pr_chance(ax, self.result.law)


class CostCurveDisplay(_BandDisplay):
    """Cost curve (normalized expected cost against the operating condition ``w``) with its
    pointwise band, as :func:`rocsim.cost_curve_ci` computes it.

    Create it with :meth:`from_predictions` or :meth:`from_estimator`; the options of
    :func:`rocsim.cost_curve_ci` (``w``, ``thresholds``, ``confidence_level``, ``method``,
    ``bootstrap``, ``pos_label``, ``direction``) pass through. The chance level is the
    trivial classifiers' cost ``min(w, 1 - w)``. Attributes as :class:`ROCBandDisplay`'s
    (``result`` a ``CostBands``).
    """

    _compute = staticmethod(cost_curve_ci)
    _draw = staticmethod(plots.draw_cost_bands)
    _chance = staticmethod(plots.cost_chance)
    _finish = staticmethod(plots.finish_cost_axes)


class ROCComparisonDisplay(_BandDisplay):
    """Two classifiers scored on the same instances: the difference of their ROC curves
    (``TPR1 - TPR2`` at fixed FPRs or total positive ratios, ``FPR1 - FPR2`` at fixed TPRs)
    with its exact paired bootstrap band, as :func:`rocsim.compare_roc` computes it; points
    where the interval excludes 0 are marked.

    Create it with :meth:`from_predictions` (``y_true, y_score1, y_score2``) or
    :meth:`from_estimators` (two fitted classifiers); the options of
    :func:`rocsim.compare_roc` pass through. Attributes as :class:`ROCBandDisplay`'s
    (``result`` a ``ROCComparison``; ``line_`` the difference).
    """

    _compute = staticmethod(compare_roc)
    _draw = staticmethod(plots.draw_difference)

    def _draw_chance(self, ax):
        return None  # the zero line, "no difference", is always drawn

    def _finish_axes(self, ax) -> None:
        plots.finish_difference_axes(ax, self.result)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score1,
        y_score2,
        *,
        ax=None,
        name: str | None = None,
        plot_chance_level: bool = False,
        color=None,
        **options,
    ):
        """Compare two classifiers' scores on the same instances and draw the difference;
        ``options`` are those of :func:`rocsim.compare_roc`."""
        result = compare_roc(y_true, y_score1, y_score2, **options)
        display = cls(result, name=name)
        return display.plot(ax, plot_chance_level=plot_chance_level, color=color)

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
        ax=None,
        name: str | None = None,
        plot_chance_level: bool = False,
        color=None,
        **options,
    ):
        """Score ``X`` with two fitted binary classifiers and draw the difference of their
        ROC curves; ``name`` defaults to ``"<first> - <second>"`` (their class names)."""
        s1, pos_label1 = estimator_scores(estimator1, X, response_method, pos_label)
        s2, pos_label2 = estimator_scores(estimator2, X, response_method, pos_label)
        if pos_label1 != pos_label2:
            raise ValueError(
                f"the two estimators' positive classes differ ({pos_label1!r} and "
                f"{pos_label2!r}); pass pos_label"
            )
        default = f"{type(estimator1).__name__} - {type(estimator2).__name__}"
        return cls.from_predictions(
            y,
            s1,
            s2,
            pos_label=pos_label1,
            ax=ax,
            name=default if name is None else name,
            plot_chance_level=plot_chance_level,
            color=color,
            **options,
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
