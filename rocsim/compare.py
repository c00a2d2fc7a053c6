"""Compare interval methods on one study: one figure overlaying their coverage (with MCSE
bands) and a table of mean absolute coverage error and mean width per method.

``rocsim -m study=fig4_3 interval=wald,score,agresti`` runs one job per method; the Hydra
callback :class:`MethodComparison` (configured in ``configs/config.yaml``) then writes
``<results_dir>/<study>/method_comparison.{png,pdf,csv}`` from the jobs of that sweep.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from rocsim.runner import atomic_write

#: Job-folder parts that only choose the interval method (dropped to group jobs).
_METHOD_KEYS = ("interval=", "interval.method=")


def method_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per method: mean and largest absolute coverage error, lowest coverage, mean width.

    ``table`` is a coverage table with a ``method`` column (several methods stacked).

    Examples
    --------
    >>> t = pd.DataFrame({"method": ["wald", "wald", "score", "score"], "level": 0.9,
    ...                   "coverage": [0.8, 0.9, 0.88, 0.92], "mcse": 0.01,
    ...                   "mean_width": [0.1, 0.1, 0.2, 0.2]})
    >>> method_summary(t)["mean_abs_coverage_error"].round(3).tolist()
    [0.05, 0.02]
    """
    error = (table["coverage"] - table["level"]).abs()
    grouped = table.assign(error=error).groupby("method", sort=False)
    return pd.DataFrame({
        "mean_abs_coverage_error": grouped["error"].mean(),
        "max_abs_coverage_error": grouped["error"].max(),
        "min_coverage": grouped["coverage"].min(),
        "mean_coverage": grouped["coverage"].mean(),
        "mean_mcse": grouped["mcse"].mean(),
        "mean_width": grouped["mean_width"].mean(),
        "grid_points": grouped.size(),
    }).reset_index()


def write_comparison(tables: list[pd.DataFrame], plot: Mapping[str, Any], title: str,
                     out_dir: Path) -> Path:
    """Overlay the methods of ``tables`` (one per method) and write the figure and summary.

    Panels follow the study's own panels, with its line variable (if any) as a further panel
    axis, since lines now show the methods.
    """
    from rocsim.plotting import plot_coverage, plt

    table = pd.concat(tables, ignore_index=True)
    panels = plot.get("panels") or []
    panels = [panels] if isinstance(panels, str) else list(panels)
    if plot.get("lines") and plot["lines"] != "method":
        panels.append(plot["lines"])
    fig = plot_coverage(table, panels=panels or None, lines="method",
                        title=f"{title}\nmethods compared")
    for suffix in ("png", "pdf"):
        atomic_write(out_dir / f"method_comparison.{suffix}",
                     lambda p, s=suffix: fig.savefig(p, dpi=130, format=s))
    plt.close(fig)
    path = out_dir / "method_comparison.csv"
    summary = method_summary(table)
    atomic_write(path, lambda p: summary.to_csv(p, index=False))
    return path


def group_key(job_folder: str) -> str:
    """The job folder's overrides without those choosing the interval method."""
    parts = [p for p in job_folder.split(",") if not p.startswith(_METHOD_KEYS)]
    return ",".join(parts)


def compare_sweep(results_dir: Path, since: float) -> list[Path]:
    """Write a method comparison for each group of jobs of one study, finished after
    ``since`` (a ``time.time()``), that differ only in the interval method."""
    groups: dict[tuple[Path, str], list[Path]] = {}
    for csv in sorted(Path(results_dir).glob("*/*/coverage.csv")):
        if csv.stat().st_mtime >= since:
            groups.setdefault((csv.parent.parent, group_key(csv.parent.name)), []).append(csv)
    written = []
    for (study_dir, key), paths in groups.items():
        tables = [pd.read_csv(p) for p in paths]
        if len({t["method"].iloc[0] for t in tables}) < 2:
            continue
        config = json.loads((paths[0].parent / "meta.json").read_text())["config"]
        out_dir = study_dir / key if key else study_dir
        written.append(write_comparison(tables, config["study"].get("plot") or {},
                                        config["study"].get("title") or study_dir.name,
                                        out_dir))
    return written


try:  # the callback is only needed when Hydra runs rocsim
    from hydra.experimental.callback import Callback
except ImportError:  # pragma: no cover - hydra is a dependency
    Callback = object


class MethodComparison(Callback):
    """Hydra callback: after a ``-m`` sweep, compare the interval methods it ran."""

    def on_multirun_start(self, config, **kwargs) -> None:
        self.started = time.time()

    def on_multirun_end(self, config, **kwargs) -> None:
        for path in compare_sweep(Path(config.results_dir), getattr(self, "started", 0.0)):
            print(f"method comparison: {path}")
