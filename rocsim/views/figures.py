"""Coverage figures laid out like the thesis's: one panel per condition value, coverage
against the grid, the nominal level dashed, a band of +-1.96 Monte Carlo standard errors and,
where the study has it, the exact coverage as a thin dotted line of the same colour.

Figures are :class:`matplotlib.figure.Figure` objects of their own, not pyplot's: saving them
needs no backend, so drawing a study never changes the one a notebook or script chose.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rocsim.sim.io import atomic_write

GRID_LABELS = {
    "q": "total positive ratio",
    "fpr": "false positive rate",
    "tpr": "true positive rate",
    "w": "operating condition w",
    "t1": "first classifier's threshold",
    "max_fpr": "upper end f of the FPR range [0, f]",
    "n": "per-class size n",
}
DEFAULT_COLORS = ("black", "tab:blue", "tab:green", "tab:red", "tab:purple", "tab:orange")
#: Beyond this many lines the legend's font is smaller.
MAX_PANEL_LEGEND = 5


def plot_coverage(
    table: pd.DataFrame,
    *,
    panels: str | list[str] | None = None,
    lines: str | None = None,
    layout: tuple[int, int] | None = None,
    colors: Mapping[str, str] | None = None,
    styles: Mapping[str, str] | None = None,
    nominal: float | None = None,
    title: str | None = None,
    x: str = "x",
    y: str = "coverage",
):
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
    x : str, default "x"
        Column on the horizontal axis: the grid (``x``), or an axis of the study such as
        ``n`` (then drawn on a log scale; band studies, one row per condition).
    y : str, default "coverage"
        Column on the vertical axis, with its Monte Carlo SE as a band: ``coverage`` (SE
        ``mcse``, the dashed line at the level), or a performance measure of a study that
        reports estimates (:mod:`rocsim.sim.performance`; SE ``<y>_mcse``): ``rejection``
        (the dashed line at ``1 - level``, the tests' size), ``bias``, ...

    Returns
    -------
    matplotlib.figure.Figure
    """
    keys = [panels] if isinstance(panels, str) else list(panels or [])
    panel_values = list(dict.fromkeys(zip(*(table[k] for k in keys)))) if keys else [None]
    rows, cols = layout or _layout(len(panel_values))
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.2 * cols, 3.0 * rows))
    axes = fig.subplots(rows, cols, squeeze=False, sharex=True, sharey=True)
    nominal = _nominal(table, y) if nominal is None else nominal
    grid = str(table["grid"].iloc[0]) if x == "x" else x
    for ax, value in zip(axes.flat, panel_values):
        sub = table
        for k, v in zip(keys, value or ()):
            sub = sub[sub[k] == v]
        line_values = list(dict.fromkeys(sub[lines])) if lines else [None]
        for k, line in enumerate(line_values):
            part = sub if line is None else sub[sub[lines] == line]
            color = (colors or {}).get(str(line), DEFAULT_COLORS[k % len(DEFAULT_COLORS)])
            style = (styles or {}).get(str(line), "-")
            label = None if line is None else f"{lines}={line}"
            _draw_line(ax, part, x, y, color, style, label)
        if x == "n":
            values = sorted(set(sub[x].astype(float)))
            ax.set_xscale("log")
            ax.set_xticks(values, [f"{v:g}" for v in values])
            ax.minorticks_off()
        if nominal is not None:
            ax.axhline(nominal, color="grey", linestyle="--", linewidth=1)
        if keys:
            # y given: matplotlib then skips lifting the title above top ticks (there are
            # none), which lays out every tick label again at each save
            ax.set_title(_panel_title(sub, keys, value), fontsize=9, y=1.0)
        if lines and ax is axes.flat[0]:
            # the lines mean the same in every panel: one legend, in the first panel, instead
            # of one repeated in (and hiding part of) each
            # coverage keeps off the bottom of its panels; a rejection rate may lie there
            ax.legend(
                fontsize=7 if len(line_values) <= MAX_PANEL_LEGEND else 6,
                loc="lower center" if y == "coverage" else "best",
            )
        ax.grid(alpha=0.2)
    for ax in list(axes.flat)[len(panel_values) :]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(y.replace("_", " "))
        if y in SHARES:
            low = min(0.5, float(np.nanmin(table[y])) - 0.02) if y == "coverage" else 0.0
            ax.set_ylim(max(0.0, low), 1.005)
    for ax in axes[-1, :]:
        ax.set_xlabel(GRID_LABELS.get(grid, grid))
    for ax in list(axes.flat)[len(panel_values) :]:
        below = axes[list(axes.flat).index(ax) // cols - 1, list(axes.flat).index(ax) % cols]
        below.xaxis.set_tick_params(labelbottom=True)
        below.set_xlabel(GRID_LABELS.get(grid, grid))
    if title:
        # a fixed distance from the top edge: matplotlib's default (2% of the height) drops
        # the title into the first panels' titles on a figure of many rows
        fig.suptitle(title, fontsize=11, y=1 - _TITLE_TOP / fig.get_size_inches()[1])
    two_lines = len(keys) >= 3 and "model_label" in table.columns  # as _panel_title has it
    _lay_out(
        fig, rows, cols, title, hidden=len(panel_values) < rows * cols, panel_lines=1 + two_lines
    )
    return fig


# Margins and gaps in inches around the panels: room for the tick labels and axis labels, the
# panel titles and the suptitle's lines, as tight_layout leaves them on these figures. Fixed,
# because tight_layout lays every text out once more before each save draws it again.
_LEFT, _RIGHT, _BOTTOM, _WIDTH_GAP = 0.66, 0.15, 0.59, 0.20
_TITLE_LINE, _PANEL_TITLE = 0.33, 0.20
_TITLE_TOP = 0.08  # from the top edge to the suptitle's first line
_HEIGHT_GAP, _HEIGHT_GAP_LABELLED = 0.43, 0.59  # the latter: x tick labels above an empty cell


def _lay_out(
    fig, rows: int, cols: int, title: str | None, *, hidden: bool, panel_lines: int = 1
) -> None:
    width, height = fig.get_size_inches()
    extra = _PANEL_TITLE * (panel_lines - 1)  # the panel titles' further lines
    top = _PANEL_TITLE + extra + _TITLE_LINE * (title.count("\n") + 1 if title else 0.3)
    axes_width = (width - _LEFT - _RIGHT - (cols - 1) * _WIDTH_GAP) / cols
    gap = (_HEIGHT_GAP_LABELLED if hidden else _HEIGHT_GAP) + extra
    axes_height = (height - _BOTTOM - top - (rows - 1) * gap) / rows
    fig.subplots_adjust(
        left=_LEFT / width,
        right=1 - _RIGHT / width,
        bottom=_BOTTOM / height,
        top=1 - top / height,
        wspace=_WIDTH_GAP / axes_width,
        hspace=gap / axes_height,
    )


#: Vertical-axis columns that are shares of replications (drawn on [0, 1]).
SHARES = ("coverage", "rejection", "bias_eliminated_coverage")


def _nominal(table: pd.DataFrame, y: str) -> float | None:
    """The dashed line of a figure of ``y``: the level (coverage), ``1 - level`` (rejection:
    the tests' size), none for other measures."""
    level = float(table["level"].iloc[0])
    return {"coverage": level, "bias_eliminated_coverage": level, "rejection": 1 - level}.get(
        y, 0.0 if y in ("bias", "model_se_rel_error") else None
    )


def _draw_line(
    ax, part: pd.DataFrame, column: str, y: str, color: str, style: str, label: str | None
) -> None:
    part = part.sort_values(column, kind="stable")
    x = part[column].to_numpy(dtype=float)
    c = part[y].to_numpy(dtype=float)
    band = 1.96 * part["mcse" if y == "coverage" else f"{y}_mcse"].to_numpy(dtype=float)
    ax.plot(x, c, color=color, linestyle=style, linewidth=1.2, label=label)
    if np.any(band > 0):
        top = np.minimum(c + band, 1.0) if y in SHARES else c + band
        ax.fill_between(x, c - band, top, color=color, alpha=0.2, linewidth=0)
    if y != "coverage":
        return
    exact = part["exact_coverage"].to_numpy() if "exact_coverage" in part else np.array([])
    if np.any(np.isfinite(exact)):  # the exact coverage the simulation estimates, thin
        ax.plot(x, exact, color=color, linestyle=":", linewidth=1.1)


#: Characters of a panel title's line: about the width of a 4.2-inch panel at 9 points (longer
#: lines ran into the next panel's title).
_TITLE_WIDTH = 62


def _panel_title(sub: pd.DataFrame, keys: list[str], value: tuple) -> str:
    text = textwrap.fill(", ".join(f"{k} = {v}" for k, v in zip(keys, value)), _TITLE_WIDTH)
    if "model_label" in sub.columns:
        # beside three axes' values or more, the model's label gets its own line
        text += ("\n" if len(keys) >= 3 else "   ") + str(sub["model_label"].iloc[0])
    return text


def _layout(count: int) -> tuple[int, int]:
    cols = 1 if count == 1 else 2
    return (count + cols - 1) // cols, cols


def save_study_figure(
    table: pd.DataFrame, cfg: Mapping[str, Any], out_dir: Path, write=atomic_write
) -> list[Path]:
    """Draw the study's figure from its plot settings and save it as PNG and PDF, each file
    through ``write(path, save)`` (:func:`rocsim.sim.io.atomic_write`, or another writer of
    its signature, e.g. one adding the file to a sealed set of outputs)."""
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
        x=plot.get("x") or "x",
        y=plot.get("y") or "coverage",
    )
    return save_png_and_pdf(fig, Path(out_dir) / "coverage", write)


#: zlib level of the PNGs: faster to encode than Pillow's default 6, the same pixels in a file
#: of about the same size (benchmarks/bench_figures.py measures both)
PNG_COMPRESS_LEVEL = 3


def save_png_and_pdf(fig, stem: Path, write=atomic_write) -> list[Path]:
    """``fig`` as ``stem.png`` (130 dpi) and ``stem.pdf``, each through ``write(path, save)``."""
    paths = []
    for suffix, options in (
        ("png", {"pil_kwargs": {"compress_level": PNG_COMPRESS_LEVEL}}),
        ("pdf", {}),
    ):
        path = stem.with_suffix(f".{suffix}")
        write(path, lambda p, s=suffix, o=options: fig.savefig(p, dpi=130, format=s, **o))
        paths.append(path)
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
