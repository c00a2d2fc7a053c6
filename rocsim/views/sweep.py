"""What a ``-m`` sweep leaves behind: one table and one figure over all its jobs, and a
comparison of interval methods.

``rocsim -m study=fig4_4 size.pi=0.1,0.5`` runs one job per value; the Hydra callback
:class:`SweepSummary` (configured in ``configs/config.yaml``) then writes
``<results_dir>/<study>/sweep.{csv,png,pdf}``: every job's coverage table stacked with a
``job`` column, and their coverage overlaid, one line per job. Jobs that differ only in the
interval method (``interval=wald,score,agresti``) are also compared in
``method_comparison.{png,pdf,csv}``: the methods overlaid with MCSE bands, and per method the
mean absolute coverage error and mean width.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from hydra.experimental.callback import Callback

from rocsim.sim.io import atomic_write, check_set, read_outcomes, remove_stale_parts

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
    return pd.DataFrame(
        {
            "mean_abs_coverage_error": grouped["error"].mean(),
            "max_abs_coverage_error": grouped["error"].max(),
            "min_coverage": grouped["coverage"].min(),
            "mean_coverage": grouped["coverage"].mean(),
            "mean_mcse": grouped["mcse"].mean(),
            "mean_width": grouped["mean_width"].mean(),
            "grid_points": grouped.size(),
        }
    ).reset_index()


def paired_differences(jobs: list[tuple[str, dict[str, np.ndarray]]]) -> pd.DataFrame:
    """Per method, its coverage minus the first method's (the reference), averaged over every
    condition and grid point, with the standard error of that average.

    ``jobs`` pairs each method with its outcome matrices (condition label -> (R, g) booleans,
    :func:`rocsim.sim.io.read_outcomes`). On common random numbers replication ``r`` of a
    condition is the same data set for every method, so the error comes from the
    per-replication paired differences (averaged over the grid first: points of one
    replication share a test set), far smaller than that of either coverage.

    Examples
    --------
    >>> a = {"c": np.array([[1, 1], [1, 0], [0, 1]], bool)}
    >>> b = {"c": np.array([[1, 0], [1, 0], [0, 0]], bool)}
    >>> d = paired_differences([("wald", a), ("score", b)])
    >>> d["coverage_difference"].round(4).tolist(), d["coverage_difference_se"].round(4).tolist()
    ([0.0, -0.3333], [0.0, 0.1667])
    """
    reference_name, reference = jobs[0]
    rows = []
    for name, outcomes in jobs:
        shared = [
            c for c in reference if c in outcomes and outcomes[c].shape == reference[c].shape
        ]
        if not shared or reference[shared[0]].ndim != 2:
            continue
        diff = np.hstack([outcomes[c].astype(float) - reference[c] for c in shared])
        per_replication = diff.mean(axis=1)
        se = per_replication.std(ddof=1) / np.sqrt(per_replication.size)
        rows.append(
            {
                "method": name,
                "reference": reference_name,
                "coverage_difference": per_replication.mean(),
                "coverage_difference_se": se if per_replication.size > 1 else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=PAIRED_COLUMNS)


#: Columns :func:`paired_differences` adds to ``method_comparison.csv``.
PAIRED_COLUMNS = ["method", "reference", "coverage_difference", "coverage_difference_se"]


def overlay(
    table: pd.DataFrame, lines: str, plot: Mapping[str, Any], title: str, path: Path
) -> None:
    """Coverage of ``table`` with one line per value of ``lines``, written as PNG and PDF at
    ``path`` (no suffix). Panels follow the study's own panels, with its line variable (if
    any) as a further panel axis, since lines now show something else."""
    from rocsim.views.figures import plot_coverage, save_png_and_pdf

    panels = plot.get("panels") or []
    panels = [panels] if isinstance(panels, str) else list(panels)
    if plot.get("lines") and plot["lines"] != lines:
        panels.append(plot["lines"])
    fig = plot_coverage(table, panels=panels or None, lines=lines, title=title)
    save_png_and_pdf(fig, path)


def write_comparison(
    tables: list[pd.DataFrame],
    plot: Mapping[str, Any],
    title: str,
    out_dir: Path,
    outcomes: list[dict[str, np.ndarray]] | None = None,
) -> Path:
    """Overlay the methods of ``tables`` (one per method) and write the figure and summary;
    with the jobs' ``outcomes``, the summary has their paired coverage differences too."""
    table = pd.concat(tables, ignore_index=True)
    overlay(table, "method", plot, f"{title}\nmethods compared", out_dir / "method_comparison")
    path = out_dir / "method_comparison.csv"
    summary = method_summary(table)
    if outcomes is not None:
        methods = [t["method"].iloc[0] for t in tables]
        paired = paired_differences(list(zip(methods, outcomes)))
        summary = summary.merge(paired, on="method", how="left")
    atomic_write(path, lambda p: summary.to_csv(p, index=False))
    return path


def write_sweep(paths: list[Path], plot: Mapping[str, Any], title: str, out_dir: Path) -> Path:
    """Stack the coverage tables of a sweep's jobs (column ``job``: the overrides in which the
    job differs from the others) and overlay them."""
    labels = distinct_overrides([p.parent.name for p in paths])
    table = pd.concat(
        [pd.read_csv(p).assign(job=label) for p, label in zip(paths, labels)], ignore_index=True
    )
    path = out_dir / "sweep.csv"
    atomic_write(path, lambda p: table.to_csv(p, index=False))
    overlay(table, "job", plot, f"{title}\n{len(paths)} jobs of one sweep", out_dir / "sweep")
    return path


def distinct_overrides(job_folders: list[str]) -> list[str]:
    """Each job folder's overrides minus those every job shares.

    Examples
    --------
    >>> distinct_overrides(["grid.num=9,size.pi=0.1", "grid.num=9,size.pi=0.5"])
    ['size.pi=0.1', 'size.pi=0.5']
    """
    parts = [folder.split(",") for folder in job_folders]
    shared = set.intersection(*(set(p) for p in parts)) if parts else set()
    return [",".join(p for p in job if p not in shared) or "default" for job in parts]


def group_key(job_folder: str) -> str:
    """The job folder's overrides without those choosing the interval method."""
    parts = [p for p in job_folder.split(",") if not p.startswith(_METHOD_KEYS)]
    return ",".join(parts)


def _sweep_tables(results_dir: Path, since: float) -> dict[Path, list[Path]]:
    """coverage.csv of every sweep job finished after ``since``, by study folder, in the order
    the jobs finished (the first method named in ``interval=a,b`` comes first); a job folder
    without a complete set of outputs (an interrupted job) is left out."""
    found: dict[Path, list[Path]] = {}
    tables = Path(results_dir).glob("*/*/coverage.csv")
    for csv in sorted(tables, key=lambda p: (p.stat().st_mtime, str(p))):
        if csv.stat().st_mtime >= since and _complete(csv.parent):
            found.setdefault(csv.parent.parent, []).append(csv)
    return found


def _complete(folder: Path) -> bool:
    try:
        check_set(folder)
    except ValueError:
        return False
    return True


def _study_config(path: Path) -> dict:
    return json.loads((path.parent / "meta.json").read_text())["config"]


def summarise_sweep(results_dir: Path, since: float) -> list[Path]:
    """Write ``sweep.*`` for every study with two or more jobs finished after ``since`` (a
    ``time.time()``), and the method comparisons; returns the tables written."""
    written = []
    for study_dir, paths in _sweep_tables(results_dir, since).items():
        if len(paths) >= 2:
            study = _study_config(paths[0])["study"]
            written.append(
                write_sweep(
                    paths, study.get("plot") or {}, study.get("title") or study_dir.name, study_dir
                )
            )
    return written + compare_sweep(results_dir, since)


def compare_sweep(results_dir: Path, since: float) -> list[Path]:
    """Write a method comparison for each group of jobs of one study, finished after
    ``since`` (a ``time.time()``), that differ only in the interval method."""
    groups: dict[tuple[Path, str], list[Path]] = {}
    for study_dir, paths in _sweep_tables(results_dir, since).items():
        # overrides every job shares (grid.num=9) do not split the comparison
        distinct = distinct_overrides([csv.parent.name for csv in paths])
        for csv, name in zip(paths, distinct):
            key = "" if name == "default" else group_key(name)
            groups.setdefault((study_dir, key), []).append(csv)
    written = []
    for (study_dir, key), paths in groups.items():
        tables = [pd.read_csv(p) for p in paths]
        if len({t["method"].iloc[0] for t in tables}) < 2:
            continue
        config = _study_config(paths[0])
        out_dir = study_dir / key if key else study_dir
        files = [p.parent / "outcomes.npz" for p in paths]
        outcomes = [read_outcomes(f) for f in files] if all(f.exists() for f in files) else None
        written.append(
            write_comparison(
                tables,
                config["study"].get("plot") or {},
                config["study"].get("title") or study_dir.name,
                out_dir,
                outcomes,
            )
        )
    return written


class SweepSummary(Callback):
    """Hydra callback: after a ``-m`` sweep, one table and figure per study over its jobs,
    and a comparison of the interval methods it ran."""

    def on_multirun_start(self, config, **kwargs) -> None:
        self.started = time.time()

    def on_multirun_end(self, config, **kwargs) -> None:
        started = getattr(self, "started", 0.0)
        written = summarise_sweep(Path(config.results_dir), started)
        for path in written:
            print(f"sweep summary: {path}")
        for folder in {path.parent for path in written}:  # leftovers of a killed summary
            remove_stale_parts(folder, started)
