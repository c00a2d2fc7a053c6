"""Plots of rocsim's results, practitioner (:mod:`rocsim.analysis`) and core alike: ROC and
cost curves with their bands, paired differences, AUCs; every result's ``plot`` lands in
:func:`plot_result`. Each draws on ``ax`` or, without one, on new pyplot axes (so
that notebooks show it inline with the backend the user chose)."""

from __future__ import annotations

import numpy as np

from rocsim.views.figures import DEFAULT_COLORS, GRID_LABELS


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 5))
    return ax


def _roc_space(ax):
    """Unit square, rate labels and the legend of a ROC plot."""
    ax.set(xlim=(0, 1), ylim=(0, 1.01), aspect="equal")
    ax.set(xlabel="false positive rate", ylabel="true positive rate")
    ax.legend(loc="lower right", fontsize=8)
    return ax


def _thinned(fpr: np.ndarray, tpr: np.ndarray, points: int = 4000):
    """At most about ``points`` vertices of an empirical ROC curve (a million-row curve would
    make a slow, heavy PDF): the first and last, and one per 1/points step of the path."""
    if fpr.size <= points:
        return fpr, tpr
    path = np.concatenate([[0.0], np.cumsum(np.abs(np.diff(fpr)) + np.abs(np.diff(tpr)))])
    keep = np.unique(np.searchsorted(path, np.linspace(0, path[-1], points)))
    return fpr[keep], tpr[keep]


def _draw_rectangles(ax, result, level: str) -> None:
    """Threshold averaging: a rectangle ``[fpr_low, fpr_high] x [tpr_low, tpr_high]`` and
    the empirical point at every threshold."""
    from matplotlib.patches import Rectangle

    corners = zip(result.fpr_low, result.fpr_high, result.tpr_low, result.tpr_high)
    for x0, x1, y0, y1 in corners:
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, color="tab:blue", alpha=0.12, lw=0))
    ax.plot(
        result.fpr,
        result.tpr,
        "o",
        ms=2.5,
        color="tab:blue",
        label=f"{level} rectangles (threshold averaging)",
    )


def _draw_band(ax, rates, low, high, label: str, horizontal: bool = False) -> None:
    """A band of intervals on TPR at FPRs (vertical) or on FPR at TPRs (horizontal)."""
    fill = ax.fill_betweenx if horizontal else ax.fill_between
    fill(rates, low, high, color="tab:blue", alpha=0.25, step="mid", label=label)


def plot_roc_bands(bands, ax=None):
    """Empirical ROC curve with the rectangles (threshold averaging) or the band (vertical:
    on TPR at FPRs; horizontal: on FPR at TPRs) of :func:`rocsim.roc_ci`."""
    ax = _axes(ax)
    fpr, tpr = _thinned(*bands.info["curve"])
    ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
    # consecutive points of the empirical curve differ in one rate, or in both across a tie:
    # straight segments draw both right
    ax.plot(fpr, tpr, color="black", lw=1.2, label="empirical ROC")
    level = f"{bands.confidence_level:.0%}"
    averaging = bands.info["averaging"]
    if averaging == "threshold":
        _draw_rectangles(ax, bands, level)
    elif averaging == "horizontal":
        label = f"{level} band (horizontal averaging)"
        _draw_band(ax, bands.tpr, bands.fpr_low, bands.fpr_high, label, horizontal=True)
    else:
        label = f"{level} band (vertical averaging, {bands.info['side']} side)"
        _draw_band(ax, bands.fpr, bands.tpr_low, bands.tpr_high, label)
    return _roc_space(ax)


def plot_threshold_ci(ci, ax=None):
    """:class:`rocsim.ThresholdCI`: the rectangles and the empirical points."""
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
    _draw_rectangles(ax, ci, f"{ci.confidence_level:.0%}")
    return _roc_space(ax)


def plot_vertical_ci(ci, ax=None):
    """:class:`rocsim.VerticalCI` or :class:`rocsim.KernelROC`: the data's TPR at each FPR
    with its band."""
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
    ax.plot(ci.fpr, ci.tpr, color="black", lw=1.2, drawstyle="steps-mid", label="TPR")
    _draw_band(ax, ci.fpr, ci.low, ci.high, f"{ci.confidence_level:.0%} band ({ci.method})")
    return _roc_space(ax)


def plot_horizontal_ci(ci, ax=None):
    """:class:`rocsim.HorizontalCI`: the data's FPR at each TPR with its band."""
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
    ax.plot(ci.fpr, ci.tpr, color="black", lw=1.2, label="FPR")
    label = f"{ci.confidence_level:.0%} band ({ci.method})"
    _draw_band(ax, ci.tpr, ci.low, ci.high, label, horizontal=True)
    return _roc_space(ax)


def plot_cost_bands(bands, ax=None):
    """Normalized expected cost against the operating condition ``w``, with its band and the
    trivial classifiers' cost ``min(w, 1 - w)`` (all negative / all positive)."""
    ax = _axes(ax)
    w = bands.w
    ax.plot(w, np.minimum(w, 1 - w), color="0.6", ls=":", lw=1, label="trivial classifiers")
    if hasattr(bands, "low"):  # an empirical cost curve (CostEnvelope) has no band
        ax.fill_between(
            w,
            bands.low,
            bands.high,
            color="tab:blue",
            alpha=0.25,
            label=f"{bands.confidence_level:.0%} interval",
        )
    ax.plot(w, bands.cost, color="black", lw=1.2, label="cost")
    ax.set(
        xlim=(0, 1),
        ylim=(0, None),
        xlabel="operating condition w",
        ylabel="normalized expected cost",
    )
    ax.legend(fontsize=8)
    return ax


def _difference_axes(result):
    """``x, y, low, high, xlabel, ylabel`` of a paired difference, practitioner or core."""
    if hasattr(result, "w"):  # cost2 - cost1
        y = result.cost_difference if hasattr(result, "cost_difference") else result.cost
        xlabel, ylabel = "operating condition w", "cost2 - cost1 (> 0: first cheaper)"
        return result.w, y, result.low, result.high, xlabel, ylabel
    if hasattr(result, "dfpr") and not hasattr(result, "dtpr"):  # horizontal averaging
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
    if hasattr(result, "dtpr_low"):  # threshold averaging, or a practitioner table
        key = next(k for k in ("q", "fpr", "t1") if hasattr(result, k))
        x = getattr(result, key)
        return x, result.dtpr, result.dtpr_low, result.dtpr_high, GRID_LABELS[key], ylabel
    return result.fpr, result.mean, result.low, result.high, GRID_LABELS["fpr"], ylabel


def plot_difference(comparison, ax=None):
    """A paired difference (``TPR1 - TPR2``, ``FPR1 - FPR2`` or ``cost2 - cost1``) with its
    band and the zero line; points where the interval excludes 0 are marked."""
    ax = _axes(ax)
    x, y, low, high, xlabel, ylabel = _difference_axes(comparison)
    ax.axhline(0.0, color="0.4", lw=0.8, ls="--")
    ax.fill_between(
        x,
        low,
        high,
        color="tab:blue",
        alpha=0.25,
        label=f"{comparison.confidence_level:.0%} interval",
    )
    ax.plot(x, y, color="black", lw=1.2, label="difference")
    for hit, color in ((low > 0, "tab:green"), (high < 0, "tab:red")):
        if hit.any():
            ax.plot(x[hit], y[hit], "o", ms=3, color=color, label="interval excludes 0")
    ax.set(xlim=(0, 1), xlabel=xlabel, ylabel=ylabel)
    ax.legend(fontsize=8)
    return ax


def plot_auc(result, ax=None):
    """Empirical ROC curve(s) of :func:`rocsim.auc_ci` / :func:`rocsim.compare_auc`, the AUC
    and its interval in the legend."""
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
    level = f"{result.confidence_level:.0%}"
    if hasattr(result, "auc"):
        labels = [f"AUC {result.auc:.3f}, {level} CI [{result.low:.3f}, {result.high:.3f}]"]
    else:
        labels = [f"classifier 1: AUC {result.auc1:.3f}", f"classifier 2: AUC {result.auc2:.3f}"]
        ax.set_title(
            f"AUC1 - AUC2 = {result.difference:+.3f}, {level} CI "
            f"[{result.low:+.3f}, {result.high:+.3f}]",
            fontsize=9,
        )
    for curve, label, color in zip(result.info["curves"], labels, DEFAULT_COLORS):
        ax.plot(*_thinned(*curve), color=color, lw=1.2, label=label)
    return _roc_space(ax)


def plot_pr_bands(result, ax=None):
    """Empirical precision-recall curve (a step curve over every threshold) with the precision
    band (vertical averaging, :class:`rocsim.core.precision_recall.PRCI`) or the rectangles
    (threshold averaging, :class:`~rocsim.core.precision_recall.PRThresholdCI`) of
    :func:`rocsim.analysis.pr_ci`, and the precision of a classifier without skill (the share
    of positives)."""
    from matplotlib.patches import Rectangle

    ax = _axes(ax)
    law = result.law
    ax.axhline(law.m_pos / (law.m_pos + law.m_neg), color="0.7", lw=0.8, ls=":", label="no skill")
    recall, precision = _thinned(*law.curve)
    # precision at a point holds over the recalls since the previous one: steps before points
    recall, precision = np.r_[0.0, recall], np.r_[precision[:1], precision]
    ax.plot(recall, precision, color="black", lw=1.2, drawstyle="steps-pre", label="empirical PR")
    level = f"{result.confidence_level:.0%}"
    if hasattr(result, "recall_low"):
        corners = zip(result.recall_low, result.recall_high, result.low, result.high)
        for x0, x1, y0, y1 in corners:
            patch = Rectangle((x0, y0), x1 - x0, y1 - y0, color="tab:blue", alpha=0.12, lw=0)
            ax.add_patch(patch)
        label = f"{level} rectangles (threshold averaging, {result.method})"
        ax.plot(result.recall, result.precision, "o", ms=2.5, color="tab:blue", label=label)
    else:
        order = np.argsort(result.recall, kind="stable")  # the rows may follow any request
        label = f"{level} band (vertical averaging, {result.method})"
        _draw_band(ax, result.recall[order], result.low[order], result.high[order], label)
    ax.set(xlim=(0, 1), ylim=(0, 1.01), xlabel="recall", ylabel="precision")
    ax.legend(loc="lower left", fontsize=8)
    return ax


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
}
