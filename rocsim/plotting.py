"""Coverage figures laid out like the thesis's: one panel per condition value, coverage
against the grid, the nominal level dashed and a band of +-1.96 Monte Carlo standard errors."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from rocsim.runner import atomic_write

GRID_LABELS = {
    "q": "total positive ratio",
    "fpr": "false positive rate",
    "w": "operating condition w",
}
DEFAULT_COLORS = ("black", "tab:blue", "tab:green", "tab:red", "tab:purple", "tab:orange")


def plot_coverage(table: pd.DataFrame, *, panels: str | list[str] | None = None,
                  lines: str | None = None,
                  layout: tuple[int, int] | None = None, colors: Mapping[str, str] | None = None,
                  styles: Mapping[str, str] | None = None, nominal: float | None = None,
                  title: str | None = None):
    """Coverage figure of a study table (the ``coverage.csv`` of :func:`rocsim.run_study`).

    Parameters
    ----------
    table : DataFrame
        Coverage table.
    panels : str or list of str, optional
        Column whose values get one panel each (``theta``, ``n``, ``model``); with several
        columns, one panel per combination in table order (``[rho, theta]`` fills the rows
        with ``rho`` and the columns with ``theta``).
    lines : str, optional
        Column whose values get one line each within a panel (``scheme``, ``method``).
    layout : (rows, cols), optional
    colors : mapping of line value -> color, optional
    styles : mapping of line value -> matplotlib line style, optional
        E.g. ``{"0.3": ":", "0.6": "-.", "0.9": "-"}`` for the thesis's black line styles.
    nominal : float, optional
        Nominal level, drawn dashed (default: the table's ``level``).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    keys = [panels] if isinstance(panels, str) else list(panels or [])
    panel_values = (list(dict.fromkeys(zip(*(table[k] for k in keys)))) if keys else [None])
    rows, cols = layout or _layout(len(panel_values))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False,
                             sharex=True, sharey=True)
    nominal = float(table["level"].iloc[0]) if nominal is None else nominal
    grid = str(table["grid"].iloc[0])
    for ax, value in zip(axes.flat, panel_values):
        sub = table
        for k, v in zip(keys, value or ()):
            sub = sub[sub[k] == v]
        line_values = list(dict.fromkeys(sub[lines])) if lines else [None]
        for k, line in enumerate(line_values):
            part = sub if line is None else sub[sub[lines] == line]
            color = (colors or {}).get(str(line), DEFAULT_COLORS[k % len(DEFAULT_COLORS)])
            style = (styles or {}).get(str(line), "-")
            _draw_line(ax, part, color, style, None if line is None else f"{lines}={line}")
        ax.axhline(nominal, color="grey", linestyle="--", linewidth=1)
        if keys:
            ax.set_title(_panel_title(sub, keys, value), fontsize=9)
        if lines:
            ax.legend(fontsize=7, loc="lower center")
        ax.grid(alpha=0.2)
    for ax in list(axes.flat)[len(panel_values):]:
        ax.set_visible(False)
    low = min(0.5, float(np.nanmin(table["coverage"])) - 0.02)
    for ax in axes[:, 0]:
        ax.set_ylabel("coverage")
        ax.set_ylim(max(0.0, low), 1.005)
    for ax in axes[-1, :]:
        ax.set_xlabel(GRID_LABELS.get(grid, grid))
    for ax in list(axes.flat)[len(panel_values):]:
        below = axes[list(axes.flat).index(ax) // cols - 1, list(axes.flat).index(ax) % cols]
        below.xaxis.set_tick_params(labelbottom=True)
        below.set_xlabel(GRID_LABELS.get(grid, grid))
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def _draw_line(ax, part: pd.DataFrame, color: str, style: str, label: str | None) -> None:
    x = part["x"].to_numpy()
    c = part["coverage"].to_numpy()
    band = 1.96 * part["mcse"].to_numpy()
    ax.plot(x, c, color=color, linestyle=style, linewidth=1.2, label=label)
    if np.any(band > 0):
        ax.fill_between(x, c - band, np.minimum(c + band, 1.0), color=color, alpha=0.2,
                        linewidth=0)


def _panel_title(sub: pd.DataFrame, keys: list[str], value: tuple) -> str:
    text = ", ".join(f"{k} = {v}" for k, v in zip(keys, value))
    if "model_label" in sub.columns:
        text += f"   {sub['model_label'].iloc[0]}"
    return text


def _layout(count: int) -> tuple[int, int]:
    cols = 1 if count == 1 else 2
    return (count + cols - 1) // cols, cols


def save_study_figure(table: pd.DataFrame, cfg: Mapping[str, Any], out_dir: Path) -> list[Path]:
    """Draw the study's figure from its plot settings and save it as PNG and PDF."""
    plot = cfg["study"].get("plot") or {}
    layout = plot.get("layout")
    fig = plot_coverage(
        table,
        panels=plot.get("panels"),
        lines=plot.get("lines"),
        layout=tuple(layout) if layout else None,
        colors=dict(plot.get("colors") or {}),
        styles=dict(plot.get("styles") or {}),
        title=_title(cfg),
    )
    paths = []
    for suffix in ("png", "pdf"):
        path = Path(out_dir) / f"coverage.{suffix}"
        atomic_write(path, lambda p, s=suffix: fig.savefig(p, dpi=130, format=s))
        paths.append(path)
    plt.close(fig)
    return paths


def _title(cfg) -> str:
    study = cfg["study"]
    level = cfg["confidence_level"]
    axes = study.get("axes") or {}
    methods = ", ".join(axes["method"]) if "method" in axes else cfg["interval"]["method"]
    if cfg["interval"].get("pseudo_count") is not None and "method" not in axes:
        methods += f" (pseudo-count {cfg['interval']['pseudo_count']:g})"
    extra = f"{methods} intervals, level {level:g}, {cfg['coverage']}"
    if cfg["coverage"] == "simulate":
        extra += f", R = {cfg['replications']}"
    return f"{study.get('title') or study['name']}\n{extra}"


# --- practitioner results (rocsim.analysis) ---------------------------------------------------


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 5))
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
    ax = _axes(ax)
    fpr, tpr = _thinned(*bands.info["curve"])
    ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
    # consecutive points of the empirical curve differ in one rate, or in both across a tie:
    # straight segments draw both right
    ax.plot(fpr, tpr, color="black", lw=1.2, label="empirical ROC")
    level = f"{bands.confidence_level:.0%}"
    if bands.info["averaging"] == "threshold":
        for x0, x1, y0, y1 in zip(bands.fpr_low, bands.fpr_high, bands.tpr_low, bands.tpr_high):
            ax.add_patch(plt.Rectangle((x0, y0), x1 - x0, y1 - y0, color="tab:blue", alpha=0.12,
                                       lw=0))
        ax.plot(bands.fpr, bands.tpr, "o", ms=2.5, color="tab:blue",
                label=f"{level} rectangles (threshold averaging)")
    else:
        ax.fill_between(bands.fpr, bands.tpr_low, bands.tpr_high, color="tab:blue", alpha=0.25,
                        step="mid", label=f"{level} band (vertical averaging)")
    ax.set(xlim=(0, 1), ylim=(0, 1.01), xlabel="false positive rate",
           ylabel="true positive rate", aspect="equal")
    ax.legend(loc="lower right", fontsize=8)
    return ax


def plot_cost_bands(bands, ax=None):
    """Normalized expected cost against the operating condition ``w``, with its band and the
    trivial classifiers' cost ``min(w, 1 - w)`` (all negative / all positive)."""
    ax = _axes(ax)
    w = bands.w
    ax.plot(w, np.minimum(w, 1 - w), color="0.6", ls=":", lw=1, label="trivial classifiers")
    ax.fill_between(w, bands.low, bands.high, color="tab:blue", alpha=0.25,
                    label=f"{bands.confidence_level:.0%} interval")
    ax.plot(w, bands.cost, color="black", lw=1.2, label="cost")
    ax.set(xlim=(0, 1), ylim=(0, None), xlabel="operating condition w",
           ylabel="normalized expected cost")
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
        key = "q" if "q" in columns else "fpr"
        x, y, low, high = (columns[k] for k in (key, "dtpr", "dtpr_low", "dtpr_high"))
        xlabel = GRID_LABELS[key]
        ylabel = "TPR1 - TPR2 (> 0: first better)"
    ax.axhline(0.0, color="0.4", lw=0.8, ls="--")
    ax.fill_between(x, low, high, color="tab:blue", alpha=0.25,
                    label=f"{comparison.confidence_level:.0%} interval")
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
        labels = [f"AUC {columns['auc'][0]:.3f}, {level} CI [{columns['low'][0]:.3f}, "
                  f"{columns['high'][0]:.3f}]"]
    else:
        labels = [f"classifier 1: AUC {columns['auc1'][0]:.3f}",
                  f"classifier 2: AUC {columns['auc2'][0]:.3f}"]
        ax.set_title(f"AUC1 - AUC2 = {columns['difference'][0]:+.3f}, {level} CI "
                     f"[{columns['low'][0]:+.3f}, {columns['high'][0]:+.3f}]", fontsize=9)
    for curve, label, color in zip(result.info["curves"], labels, DEFAULT_COLORS):
        ax.plot(*_thinned(*curve), color=color, lw=1.2, label=label)
    ax.set(xlim=(0, 1), ylim=(0, 1.01), xlabel="false positive rate",
           ylabel="true positive rate", aspect="equal")
    ax.legend(loc="lower right", fontsize=8)
    return ax
