"""Plots of the practitioner results (:mod:`rocsim.analysis`): ROC and cost curves with their
bands, paired differences, AUCs. Each draws on ``ax`` or, without one, on new pyplot axes (so
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


def plot_roc_bands(bands, ax=None):
    """Empirical ROC curve with the rectangles (threshold averaging) or the TPR band
    (vertical averaging) of :func:`rocsim.roc_ci`."""
    from matplotlib.patches import Rectangle

    ax = _axes(ax)
    fpr, tpr = _thinned(*bands.info["curve"])
    ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
    # consecutive points of the empirical curve differ in one rate, or in both across a tie:
    # straight segments draw both right
    ax.plot(fpr, tpr, color="black", lw=1.2, label="empirical ROC")
    level = f"{bands.confidence_level:.0%}"
    if bands.info["averaging"] == "threshold":
        for x0, x1, y0, y1 in zip(bands.fpr_low, bands.fpr_high, bands.tpr_low, bands.tpr_high):
            ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, color="tab:blue", alpha=0.12, lw=0))
        ax.plot(
            bands.fpr,
            bands.tpr,
            "o",
            ms=2.5,
            color="tab:blue",
            label=f"{level} rectangles (threshold averaging)",
        )
    else:
        ax.fill_between(
            bands.fpr,
            bands.tpr_low,
            bands.tpr_high,
            color="tab:blue",
            alpha=0.25,
            step="mid",
            label=f"{level} band (vertical averaging)",
        )
    return _roc_space(ax)


def plot_cost_bands(bands, ax=None):
    """Normalized expected cost against the operating condition ``w``, with its band and the
    trivial classifiers' cost ``min(w, 1 - w)`` (all negative / all positive)."""
    ax = _axes(ax)
    w = bands.w
    ax.plot(w, np.minimum(w, 1 - w), color="0.6", ls=":", lw=1, label="trivial classifiers")
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


def plot_difference(comparison, ax=None):
    """A paired difference (``TPR1 - TPR2`` or ``cost2 - cost1``) with its band and the zero
    line; points where the interval excludes 0 are marked."""
    ax = _axes(ax)
    columns = comparison.columns
    if "cost_difference" in columns:
        x, y, low, high = (columns[k] for k in ("w", "cost_difference", "low", "high"))
        xlabel, ylabel = "operating condition w", "cost2 - cost1 (> 0: first cheaper)"
    else:
        key = next(k for k in ("q", "fpr", "t1") if k in columns)
        x, y, low, high = (columns[k] for k in (key, "dtpr", "dtpr_low", "dtpr_high"))
        xlabel = GRID_LABELS[key]
        ylabel = "TPR1 - TPR2 (> 0: first better)"
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
    for verdict, color in (("first better", "tab:green"), ("second better", "tab:red")):
        hit = columns["verdict"] == verdict
        if hit.any():
            ax.plot(x[hit], y[hit], "o", ms=3, color=color, label=verdict)
    ax.set(xlim=(0, 1), xlabel=xlabel, ylabel=ylabel)
    ax.legend(fontsize=8)
    return ax


def plot_auc(result, ax=None):
    """Empirical ROC curve(s) of :func:`rocsim.auc_ci` / :func:`rocsim.compare_auc`, the AUC
    and its interval in the legend."""
    ax = _axes(ax)
    ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
    level = f"{result.confidence_level:.0%}"
    columns = result.columns
    if "auc" in columns:
        labels = [
            f"AUC {columns['auc'][0]:.3f}, {level} CI [{columns['low'][0]:.3f}, "
            f"{columns['high'][0]:.3f}]"
        ]
    else:
        labels = [
            f"classifier 1: AUC {columns['auc1'][0]:.3f}",
            f"classifier 2: AUC {columns['auc2'][0]:.3f}",
        ]
        ax.set_title(
            f"AUC1 - AUC2 = {columns['difference'][0]:+.3f}, {level} CI "
            f"[{columns['low'][0]:+.3f}, {columns['high'][0]:+.3f}]",
            fontsize=9,
        )
    for curve, label, color in zip(result.info["curves"], labels, DEFAULT_COLORS):
        ax.plot(*_thinned(*curve), color=color, lw=1.2, label=label)
    return _roc_space(ax)
