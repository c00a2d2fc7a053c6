"""Plots of rocsim's results, practitioner (:mod:`rocsim.analysis`) and core alike: ROC,
cost and precision-recall curves with their bands, decision curves, paired differences, AUCs.

One drawing function per kind of curve, ``draw_*(ax, result, color=..., name=...)``, draws the
curve and its band in one colour and returns the artists; every result's ``plot`` lands in
:func:`plot_result`, and the displays (:mod:`rocsim.analysis.displays`) draw with the same
functions, one colour per model. Without ``ax``, new pyplot axes (so that notebooks show the
figure inline with the backend the user chose).
"""

from __future__ import annotations

import numpy as np

from rocsim.views.figures import DEFAULT_COLORS, GRID_LABELS

#: The legend's name of the zero line of a difference.
NO_DIFFERENCE = "no difference"
#: Opacity of a band, and of a rectangle of threshold averaging (they overlap).
BAND_ALPHA, RECTANGLE_ALPHA = 0.25, 0.12


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 5))
    return ax


def _level(result) -> str:
    return f"{result.confidence_level:.0%}"


def _thinned(fpr: np.ndarray, tpr: np.ndarray, points: int = 4000):
    """At most about ``points`` vertices of an empirical ROC curve (a million-row curve would
    make a slow, heavy PDF): the first and last, and one per 1/points step of the path."""
    if fpr.size <= points:
        return fpr, tpr
    path = np.concatenate([[0.0], np.cumsum(np.abs(np.diff(fpr)) + np.abs(np.diff(tpr)))])
    keep = np.unique(np.searchsorted(path, np.linspace(0, path[-1], points)))
    return fpr[keep], tpr[keep]


# --- ROC space ---------------------------------------------------------------------------------


#: The chance line's style, scikit-learn's displays' (a black dashed line).
CHANCE_STYLE = {"color": "k", "linestyle": "--", "lw": 1.0}


def label_axes(ax, xlabel: str, ylabel: str) -> None:
    """Name the axes, unless they already have names (scikit-learn's display, or the user's,
    drew there first)."""
    if not ax.get_xlabel():
        ax.set_xlabel(xlabel)
    if not ax.get_ylabel():
        ax.set_ylabel(ylabel)


def roc_chance(ax):
    """The diagonal of a classifier without skill; the line drawn."""
    return ax.plot([0, 1], [0, 1], **CHANCE_STYLE, label="Chance level (AUC = 0.5)")[0]


def finish_roc_axes(ax):
    """Unit square, rate labels and the legend of a ROC plot."""
    ax.set(xlim=(0, 1), ylim=(0, 1.01), aspect="equal")
    label_axes(ax, "False Positive Rate", "True Positive Rate")
    ax.legend(loc="lower right", fontsize=8)
    return ax


def _rectangles(ax, low_x, high_x, low_y, high_y, color):
    """Threshold averaging's rectangles ``[low_x, high_x] x [low_y, high_y]``, one collection."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    patches = [
        Rectangle((x0, y0), x1 - x0, y1 - y0)
        for x0, x1, y0, y1 in zip(low_x, high_x, low_y, high_y)
    ]
    collection = PatchCollection(patches, facecolor=color, alpha=RECTANGLE_ALPHA, lw=0)
    ax.add_collection(collection)
    return collection


def _band(ax, rates, low, high, color, label, horizontal: bool = False):
    """A band of intervals on TPR at FPRs (vertical) or on FPR at TPRs (horizontal)."""
    fill = ax.fill_betweenx if horizontal else ax.fill_between
    return fill(rates, low, high, color=color, alpha=BAND_ALPHA, step="mid", label=label)


def draw_roc_bands(ax, bands, *, color=None, name: str | None = None):
    """The empirical ROC curve of :func:`rocsim.roc_ci`'s result and its rectangles
    (threshold averaging) or band (vertical: on TPR at FPRs; horizontal: on FPR at TPRs), in
    ``color`` (default: the axes' next colour); returns ``(line, band)``."""
    fpr, tpr = _thinned(*bands.curve)
    # consecutive points of the empirical curve differ in one rate, or in both across a tie:
    # straight segments draw both right
    line = ax.plot(fpr, tpr, color=color, lw=1.2, label=name or "empirical ROC")[0]
    color = line.get_color()
    what = f"{name}: " if name else ""
    kind = getattr(bands, "band", None)
    kind = f"{kind} " if kind and kind != "pointwise" else ""
    if bands.averaging == "threshold":
        band = _rectangles(ax, bands.fpr_low, bands.fpr_high, bands.tpr_low, bands.tpr_high, color)
        label = f"{what}{_level(bands)} rectangles (threshold averaging)"
        ax.plot(bands.fpr, bands.tpr, "o", ms=2.5, color=color, label=label)
    elif bands.averaging == "horizontal":
        label = f"{what}{_level(bands)} {kind}band (horizontal averaging)"
        band = _band(ax, bands.tpr, bands.fpr_low, bands.fpr_high, color, label, True)
    else:
        label = f"{what}{_level(bands)} {kind}band (vertical averaging, {bands.side} side)"
        band = _band(ax, bands.fpr, bands.tpr_low, bands.tpr_high, color, label)
    return line, band


def plot_roc_bands(bands, ax=None):
    """:func:`rocsim.roc_ci`'s result: the empirical ROC curve with its rectangles or band."""
    ax = _axes(ax)
    roc_chance(ax)
    draw_roc_bands(ax, bands)
    return finish_roc_axes(ax)


def plot_threshold_ci(ci, ax=None):
    """:class:`rocsim.core.ThresholdCI`: the rectangles and the empirical points."""
    ax = _axes(ax)
    roc_chance(ax)
    _rectangles(ax, ci.fpr_low, ci.fpr_high, ci.tpr_low, ci.tpr_high, "tab:blue")
    label = f"{_level(ci)} rectangles (threshold averaging)"
    ax.plot(ci.fpr, ci.tpr, "o", ms=2.5, color="tab:blue", label=label)
    return finish_roc_axes(ax)


def plot_vertical_ci(ci, ax=None):
    """:class:`rocsim.core.VerticalCI` or :class:`rocsim.core.KernelROC`: the data's TPR at
    each FPR with its band."""
    ax = _axes(ax)
    roc_chance(ax)
    ax.plot(ci.fpr, ci.tpr, color="black", lw=1.2, drawstyle="steps-mid", label="TPR")
    _band(ax, ci.fpr, ci.low, ci.high, "tab:blue", f"{_level(ci)} band ({ci.method})")
    return finish_roc_axes(ax)


def plot_horizontal_ci(ci, ax=None):
    """:class:`rocsim.core.HorizontalCI`: the data's FPR at each TPR with its band."""
    ax = _axes(ax)
    roc_chance(ax)
    ax.plot(ci.fpr, ci.tpr, color="black", lw=1.2, label="FPR")
    label = f"{_level(ci)} band ({ci.method})"
    _band(ax, ci.tpr, ci.low, ci.high, "tab:blue", label, horizontal=True)
    return finish_roc_axes(ax)


# --- cost space --------------------------------------------------------------------------------


def cost_chance(ax, w=None):
    """The trivial classifiers' cost ``min(w, 1 - w)`` (all negative / all positive)."""
    w = np.linspace(0, 1, 201) if w is None else w
    label = "Chance level (trivial classifiers)"
    return ax.plot(w, np.minimum(w, 1 - w), **CHANCE_STYLE, label=label)[0]


def finish_cost_axes(ax):
    ax.set(xlim=(0, 1), ylim=(0, None))
    label_axes(ax, "Operating condition w", "Normalized expected cost")
    ax.legend(fontsize=8)
    return ax


def draw_cost_bands(ax, bands, *, color=None, name: str | None = None):
    """A cost curve and its band (an empirical cost curve, :class:`rocsim.core.CostEnvelope`,
    has none: ``band`` is then ``None``); returns ``(line, band)``."""
    line = ax.plot(bands.w, bands.cost, color=color, lw=1.2, label=name or "cost")[0]
    band = None
    if getattr(bands, "low", None) is not None:
        what = f"{name}: " if name else ""
        label = f"{what}{_level(bands)} interval"
        band = ax.fill_between(
            bands.w, bands.low, bands.high, color=line.get_color(), alpha=BAND_ALPHA, label=label
        )
    return line, band


def plot_cost_bands(bands, ax=None):
    """Normalized expected cost against the operating condition ``w``, with its band and the
    trivial classifiers' cost."""
    ax = _axes(ax)
    cost_chance(ax, bands.w)
    draw_cost_bands(ax, bands)
    return finish_cost_axes(ax)


# --- decision curves ---------------------------------------------------------------------------


def draw_treat_all(ax, curve):
    """Treat-all's net benefit with its band (a line only under the stratified bootstrap, where
    it is fixed) and treat-none's, 0; returns the treat-all line."""
    line = ax.plot(curve.threshold, curve.treat_all, color="0.4", lw=1.0, label="Treat all")[0]
    if np.any(curve.treat_all_high > curve.treat_all_low):
        ax.fill_between(
            curve.threshold,
            curve.treat_all_low,
            curve.treat_all_high,
            color="0.4",
            alpha=BAND_ALPHA / 2,
            label=f"Treat all: {_level(curve)} interval",
        )
    ax.axhline(0.0, **CHANCE_STYLE, label="Treat none")
    return line


def draw_decision_curve(ax, curve, *, color=None, name: str | None = None):
    """A model's net benefit against the threshold probability with its band; returns
    ``(line, band)``."""
    x = curve.threshold
    line = ax.plot(x, curve.net_benefit, color=color, lw=1.2, label=name or "model")[0]
    what = f"{name}: " if name else ""
    band = ax.fill_between(
        x,
        curve.net_benefit_low,
        curve.net_benefit_high,
        color=line.get_color(),
        alpha=BAND_ALPHA,
        label=f"{what}{_level(curve)} interval",
    )
    return line, band


def finish_decision_axes(ax, curve):
    """Net benefit from a little below 0 (where treat-all plunges) to the prevalence and a bit."""
    prevalence = curve.n_pos / (curve.n_pos + curve.n_neg)
    top = max(1.1 * prevalence, 1.02 * float(np.max(curve.net_benefit_high)))
    ax.set(xlim=(float(curve.threshold.min()), float(curve.threshold.max())))
    ax.set_ylim(-0.05 * max(prevalence, 0.1), top)
    label_axes(ax, "Threshold probability", "Net benefit")
    ax.legend(fontsize=8)
    return ax


def plot_decision_curve(curve, ax=None):
    """The decision curve with its band, treat-all's and treat-none's."""
    ax = _axes(ax)
    draw_treat_all(ax, curve)
    draw_decision_curve(ax, curve)
    return finish_decision_axes(ax, curve)


# --- differences -------------------------------------------------------------------------------


def _difference_axes(result):
    """``x, y, low, high, xlabel, ylabel`` of a paired difference, practitioner or core."""
    if hasattr(result, "w"):  # cost2 - cost1
        y = result.cost_difference if hasattr(result, "cost_difference") else result.cost
        xlabel, ylabel = "operating condition w", "cost2 - cost1 (> 0: first cheaper)"
        return result.w, y, result.low, result.high, xlabel, ylabel
    if getattr(result, "dfpr", None) is not None and getattr(result, "dtpr", None) is None:
        # horizontal averaging
        ylabel = "FPR1 - FPR2 (< 0: first better)"
        return (
            result.tpr,
            result.dfpr,
            result.dfpr_low,
            result.dfpr_high,
            "true positive rate",
            ylabel,
        )
    ylabel = "TPR1 - TPR2 (> 0: first better)"
    if getattr(result, "dtpr_low", None) is not None:  # threshold averaging, or a table
        key = next(k for k in ("q", "fpr", "t1") if getattr(result, k, None) is not None)
        x = getattr(result, key)
        return x, result.dtpr, result.dtpr_low, result.dtpr_high, GRID_LABELS[key], ylabel
    return result.fpr, result.mean, result.low, result.high, GRID_LABELS["fpr"], ylabel


def draw_difference(ax, comparison, *, color=None, name: str | None = None):
    """A paired difference (``TPR1 - TPR2``, ``FPR1 - FPR2`` or ``cost2 - cost1``) with its
    band; points where the interval excludes 0 are marked. Returns ``(line, band)``."""
    x, y, low, high, _, _ = _difference_axes(comparison)
    line = ax.plot(x, y, color=color, lw=1.2, label=name or "difference")[0]
    what = f"{name}: " if name else ""
    label = f"{what}{_level(comparison)} interval"
    band = ax.fill_between(x, low, high, color=line.get_color(), alpha=BAND_ALPHA, label=label)
    signs = ((low > 0, "tab:green", "above 0"), (high < 0, "tab:red", "below 0"))
    for hit, mark, where in signs:
        if hit.any():
            ax.plot(x[hit], y[hit], "o", ms=3, color=mark, label=f"interval {where}")
    return line, band


def finish_difference_axes(ax, comparison):
    _, _, _, _, xlabel, ylabel = _difference_axes(comparison)
    if not any(line.get_label() == NO_DIFFERENCE for line in ax.lines):  # once per axes
        ax.axhline(0.0, color="0.4", lw=0.8, ls="--", label=NO_DIFFERENCE)
    ax.set(xlim=(0, 1), xlabel=xlabel, ylabel=ylabel)
    ax.legend(fontsize=8)
    return ax


def plot_difference(comparison, ax=None):
    """A paired difference with its band and the zero line."""
    ax = _axes(ax)
    draw_difference(ax, comparison, color="black")
    return finish_difference_axes(ax, comparison)


# --- the AUC -----------------------------------------------------------------------------------


def plot_auc(result, ax=None):
    """Empirical ROC curve(s) of :func:`rocsim.auc_ci` / :func:`rocsim.compare_auc`, the AUC
    and its interval in the legend.

    A partial AUC is named "standardised partial AUC (FPR lo-hi)" in the legend: McClish's
    scale puts it between 0.5 (chance) and 1 over its range, and a bare "AUC" beside the
    whole curve would be read as the area under all of it. Its range is shaded, with its own
    legend entry.
    """
    ax = _axes(ax)
    roc_chance(ax)
    level = _level(result)
    what = "AUC"
    if hasattr(result, "focus"):
        rates = f"{result.focus.upper()} {result.range_low:g}-{result.range_high:g}"
        # two lines: one would span the axes and hide the curve at low FPR, where a partial
        # AUC over low FPRs is read
        what = f"standardised partial AUC\n({rates})"
    if hasattr(result, "auc1"):
        labels = [
            f"classifier 1: {what} {result.auc1:.3f}",
            f"classifier 2: {what} {result.auc2:.3f}",
        ]
        name = "AUC1 - AUC2"
        if hasattr(result, "focus"):
            # the summary's words (repr); the legend says the AUCs are standardised
            name = f"partial AUC1 - AUC2 ({rates})"
        ax.set_title(
            f"{name} = {result.difference:+.3f}, {level} CI "
            f"[{result.low:+.3f}, {result.high:+.3f}]",
            fontsize=9,
        )
    else:
        labels = [f"{what} {result.auc:.3f}, {level} CI [{result.low:.3f}, {result.high:.3f}]"]
    for curve, label, color in zip(result.curves, labels, DEFAULT_COLORS):
        ax.plot(*_thinned(*curve), color=color, lw=1.2, label=label)
    if hasattr(result, "focus"):
        # drawn behind the curves (zorder) but after them, so its legend entry comes last
        span = ax.axvspan if result.focus == "fpr" else ax.axhspan
        label = f"{rates}: the partial AUC's range"
        span(result.range_low, result.range_high, color="0.9", lw=0, zorder=0, label=label)
    return finish_roc_axes(ax)


# --- precision-recall --------------------------------------------------------------------------


def pr_chance(ax, law):
    """The precision of a classifier without skill: the share of positives."""
    share = law.m_pos / (law.m_pos + law.m_neg)
    return ax.axhline(share, **CHANCE_STYLE, label=f"Chance level (AP = {share:.2f})")


def finish_pr_axes(ax):
    ax.set(xlim=(0, 1), ylim=(0, 1.01))
    label_axes(ax, "Recall", "Precision")
    ax.legend(loc="lower left", fontsize=8)
    return ax


def draw_pr_bands(ax, result, *, color=None, name: str | None = None):
    """The empirical precision-recall curve (a step curve over every threshold) with the
    precision band (vertical averaging) or the rectangles (threshold averaging) of
    :func:`rocsim.pr_ci`'s result or of the core's; returns ``(line, band)``."""
    recall, precision = _thinned(*result.law.curve)
    # precision at a point holds over the recalls since the previous one: steps before points
    recall, precision = np.r_[0.0, recall], np.r_[precision[:1], precision]
    label = name or "empirical PR"
    line = ax.plot(recall, precision, color=color, lw=1.2, drawstyle="steps-pre", label=label)[0]
    color = line.get_color()
    what = f"{name}: " if name else ""
    if getattr(result, "recall_low", None) is not None:
        band = _rectangles(
            ax, result.recall_low, result.recall_high, result.low, result.high, color
        )
        label = f"{what}{_level(result)} rectangles (threshold averaging, {result.method})"
        ax.plot(result.recall, result.precision, "o", ms=2.5, color=color, label=label)
    else:
        order = np.argsort(result.recall, kind="stable")  # the rows may follow any request
        label = f"{what}{_level(result)} band (vertical averaging, {result.method})"
        band = _band(ax, result.recall[order], result.low[order], result.high[order], color, label)
    return line, band


def plot_pr_bands(result, ax=None):
    """:func:`rocsim.pr_ci`'s result: the empirical precision-recall curve with the band or
    rectangles, and the precision of a classifier without skill."""
    ax = _axes(ax)
    pr_chance(ax, result.law)
    draw_pr_bands(ax, result)
    return finish_pr_axes(ax)


def plot_result(result, ax=None):
    """Draw any curve result of rocsim (its ``plot`` method lands here): the function of
    :data:`PLOTTERS` named by the result's ``_plot_kind``."""
    return PLOTTERS[result._plot_kind](result, ax)


#: Kind of curve result -> the function drawing it ``(result, ax) -> ax``.
PLOTTERS = {
    "roc": plot_roc_bands,
    "threshold": plot_threshold_ci,
    "vertical": plot_vertical_ci,
    "horizontal": plot_horizontal_ci,
    "cost": plot_cost_bands,
    "difference": plot_difference,
    "auc": plot_auc,
    "pr": plot_pr_bands,
    "decision": plot_decision_curve,
}
