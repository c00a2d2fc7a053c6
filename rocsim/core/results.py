"""The protocol every rocsim result follows, core and practitioner alike.

- ``to_frame()``: a pandas DataFrame, one row per point (a scalar result is one row); the
  settings (``confidence_level``, ``method``, ...) are in ``frame.attrs``.
- ``repr``: a one-line summary, e.g. ``AUC 0.812 [0.723, 0.900] (delong, 95%, n+=40, n-=55)``
  or ``TPR at 99 FPRs, vertical averaging, lower side (score, 95%)``; the arrays themselves
  are attributes.
- ``plot(ax=None)`` on curve results: the curve with its intervals, on ``ax`` or new axes.
- One vocabulary: curve coordinates (``fpr``, ``tpr``, ``w``, ``recall``, ...) or
  ``estimate``, then ``low``, ``high`` (per axis ``tpr_low``, ``fpr_high``, ...),
  ``confidence_level``, ``method``, ``clipped``; scalars are Python floats.
- A bootstrap law offers its intervals, ``law.ci(confidence_level=..., method=...)``, so that
  comparing methods on one data set computes the law once (as scipy's
  ``BinomTestResult.proportion_ci``).

The exact core draws nothing itself: ``plot`` imports the plotting module named by
:data:`PLOTTING_BACKEND` on first use (as pandas' ``plotting.backend`` option does), so that the
core never imports matplotlib and a user without it can still compute everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, ClassVar

import numpy as np

#: Module whose ``plot_result(result, ax)`` draws results; imported by ``plot`` only.
PLOTTING_BACKEND = "rocsim.views.plots"


def as_float(value) -> float:
    """A scalar result as a Python float (a length-1 array or numpy scalar included)."""
    return float(np.asarray(value, dtype=float).reshape(-1)[0])


class Result:
    """Mixin of every result: ``to_frame``, a one-line ``repr`` and ``plot`` (curve results).

    A subclass lists the per-point attributes of its frame in ``_columns`` (fields or
    properties, in order; arrays of one length) and the settings in ``_settings``; it writes
    its summary in ``_summary``. Curve results name their kind of plot in ``_plot_kind``.
    """

    _columns: ClassVar[tuple[str, ...]] = ()
    _settings: ClassVar[tuple[str, ...]] = ("confidence_level", "method")
    _plot_kind: ClassVar[str | None] = None

    def _column_values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._columns}

    def to_frame(self):
        """The result as a pandas DataFrame, one row per point; settings in ``.attrs``."""
        import pandas as pd

        values = self._column_values()
        if values and all(np.ndim(v) == 0 for v in values.values()):
            values = {k: [v] for k, v in values.items()}
        frame = pd.DataFrame(values)
        frame.attrs.update(
            {k: getattr(self, k) for k in self._settings if getattr(self, k, None) is not None}
        )
        return frame

    def _summary(self) -> str:
        """One line saying what the result is, e.g. ``AUC 0.812 [0.723, 0.900] (delong, 95%,
        n+=40, n-=55)``; the ``repr``."""
        return f"{type(self).__name__} ({self._level_and_method()})"

    def _level_and_method(self) -> str:
        """``"score, 95%"``: the method and the level, for a summary's parentheses."""
        parts = []
        method = getattr(self, "method", None)
        if method is not None:
            parts.append(str(method).replace("_", " "))
        level = getattr(self, "confidence_level", None)
        if level is not None:
            parts.append(_percent(level))
        return ", ".join(parts)

    def __repr__(self) -> str:
        return self._summary()

    def _repr_pretty_(self, printer, cycle) -> None:  # IPython shows the same line
        printer.text(repr(self))

    def plot(self, ax=None):
        """Draw the result on ``ax`` (new axes without one) and return the axes."""
        if self._plot_kind is None:
            raise TypeError(f"{type(self).__name__} is not a curve; it has no plot")
        return import_module(PLOTTING_BACKEND).plot_result(self, ax)


def from_law(name: str, doc: str | None = None) -> property:
    """A value of an interval result read from the law it holds, never copied: an interval is
    its law and the bounds on it (:class:`Interval`)."""
    return property(lambda self: getattr(self.law, name), doc=doc or f"The law's ``{name}``.")


@dataclass(frozen=True, repr=False)
class Interval(Result):
    """The shape of an interval result: the exact bootstrap law it was computed on and the
    bounds at each of the law's points, clipped to the range of the quantity (``clipped``
    marks where the method's bound was outside). A kind of interval is then a law, a table of
    methods ``(law, confidence_level) -> (low, high)`` and a subclass naming what its frame
    shows of the law (:func:`from_law`)."""

    law: Any
    low: np.ndarray
    high: np.ndarray
    confidence_level: float
    method: str
    clipped: np.ndarray

    #: Range the bounds are clipped to.
    _range: ClassVar[tuple[float, float]] = (0.0, 1.0)

    @classmethod
    def from_bounds(cls, law, low, high, confidence_level: float, method: str):
        """The interval ``[low, high]`` on ``law``, clipped to :attr:`_range`."""
        low, high, clipped = clip_bounds(low, high, cls._range)
        return cls(law, low, high, confidence_level, method, clipped)


def _percent(level: float) -> str:
    """``0.95 -> '95%'``, ``0.975 -> '97.5%'``: a level as people write it."""
    return f"{100 * level:.6g}%"


#: Below this a p-value is written ``p < 1e-16``: a normal or t tail that far out says only
#: that the data are far from the null (the approximation's error there exceeds the tail
#: itself), and a p-value computed as ``1 - cdf`` cannot go below double precision's 2.2e-16
#: anyway (R's ``format.pval`` writes ``< 2.2e-16`` for that reason).
SMALLEST_P = 1e-16


def format_p(p: float) -> str:
    """A p-value as a statistician writes it: ``"p = 0.00712"``, or ``"p < 1e-16"``.

    Parameters
    ----------
    p : float
        The p-value.

    Returns
    -------
    str
        ``"p = "`` and three significant digits; ``"p < 1e-16"`` below :data:`SMALLEST_P`
        (an underflow to 0 included); ``"p = nan"`` when there is no test.

    Examples
    --------
    >>> format_p(0.007123), format_p(1.0), format_p(1.9e-79), format_p(0.0)
    ('p = 0.00712', 'p = 1', 'p < 1e-16', 'p < 1e-16')
    """
    p = float(p)
    if p < SMALLEST_P:
        return f"p < {SMALLEST_P:g}"
    return f"p = {p:.3g}"


def clip_bounds(low, high, bounds: tuple[float, float]):
    """Bounds as float arrays clipped to ``bounds``, and where clipping changed them."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    clipped = (low < bounds[0]) | (high > bounds[1])
    return np.clip(low, *bounds), np.clip(high, *bounds), clipped
