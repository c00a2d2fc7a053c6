"""``rocsim analyze``: exact bootstrap intervals for the classifiers scored in a data file.

``rocsim analyze data.csv --label y --score model_a [--score model_b] [--averaging ...]
[--at ...] [--confidence 0.95] [--out DIR]`` reads a CSV or parquet file, writes tables (CSV)
and figures (PNG, PDF) to ``DIR``, and prints a short summary: each model's AUC, and with two
models where the second is significantly better or worse (at which FPRs or total positive
ratios, at which operating conditions). Every error is one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from rocsim.analysis import (
    AVERAGING,
    compare_auc,
    compare_cost,
    compare_roc,
    cost_curve_ci,
    roc_ci,
)
from rocsim.analysis import auc_ci as auc_interval

EXIT_BAD_INPUT = 2


#: Help of the options, by option.
HELP = {
    "data": "CSV or parquet file, one row per instance",
    "--label": "column of the true labels",
    "--score": "column of a classifier's scores (higher = positive); give it twice to compare "
    "two classifiers (differences are second minus first)",
    "--pos-label": "the positive label (needed unless labels are 0/1, -1/1 or booleans)",
    "--at": "FPRs (vertical) or total positive ratios (threshold) in (0, 1), default 0.01..0.99",
    "--w": "operating conditions of the cost curves, default 0.01 ... 0.99",
    "--method": "ROC interval method (default score)",
    "--dropna": "drop rows with a missing label or score (otherwise an error)",
    "--out": "output folder (default ./rocsim-analysis)",
}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rocsim analyze",
        description="Exact bootstrap confidence intervals for one or two classifiers' ROC and "
        "cost curves, from a CSV or parquet file of labels and scores.",
    )
    p.add_argument("data", type=Path, help=HELP["data"])
    p.add_argument("--label", required=True, help=HELP["--label"])
    p.add_argument(
        "--score", required=True, action="append", metavar="COLUMN", help=HELP["--score"]
    )
    p.add_argument("--pos-label", help=HELP["--pos-label"])
    p.add_argument("--averaging", choices=AVERAGING, default="threshold")
    p.add_argument("--at", type=float, nargs="+", metavar="X", help=HELP["--at"])
    p.add_argument("--w", type=float, nargs="+", metavar="W", help=HELP["--w"])
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--method", default="score", help=HELP["--method"])
    p.add_argument("--auc-method", choices=("delong", "exact_bootstrap"), default="delong")
    p.add_argument("--dropna", action="store_true", help=HELP["--dropna"])
    p.add_argument("--out", type=Path, default=Path("rocsim-analysis"), help=HELP["--out"])
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        frame, dropped = read_table(args.data, [args.label, *args.score], args.dropna)
        report = analyze(frame, args)
    except (ValueError, OSError) as err:
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        print(f"rocsim analyze: error: {message}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
    if dropped:
        print(f"dropped {dropped} row(s) with missing values (--dropna)")
    print(report)


def read_table(path: Path, columns: list[str], dropna: bool) -> tuple[pd.DataFrame, int]:
    """The used columns of a CSV or parquet file, with missing values checked."""
    if len(set(columns)) != len(columns):
        raise ValueError(f"columns must differ: {columns}")
    suffix = path.suffix.lower()
    if not path.is_file():
        raise ValueError(f"no such file: {path}")
    if suffix == ".parquet":
        available = _parquet_columns(path)
        _check_columns(columns, available, path)
        frame = pd.read_parquet(path, columns=columns)
    elif suffix in (".csv", ".gz", ".txt", ".tsv"):
        sep = "\t" if suffix == ".tsv" else ","
        available = pd.read_csv(path, sep=sep, nrows=0).columns.tolist()
        _check_columns(columns, available, path)
        frame = pd.read_csv(path, sep=sep, usecols=columns, engine="pyarrow")
    else:
        raise ValueError(f"{path.name}: expected a .csv or .parquet file")
    missing = frame.isna().any(axis=1)
    if missing.any() and not dropna:
        where = ", ".join(f"{c} ({int(n)})" for c, n in frame.isna().sum().items() if n)
        raise ValueError(
            f"{int(missing.sum())} row(s) have missing values in {where}; "
            "pass --dropna to drop them"
        )
    return frame[~missing], int(missing.sum())


def _parquet_columns(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    return pq.read_schema(path).names


def _check_columns(wanted: list[str], available: list[str], path: Path) -> None:
    absent = [c for c in wanted if c not in available]
    if absent:
        raise ValueError(
            f"{path.name} has no column {', '.join(map(repr, absent))}; it has "
            f"{', '.join(available[:12])}{' ...' if len(available) > 12 else ''}"
        )


def _pos_label(labels: pd.Series, option: str | None):
    """Match ``--pos-label`` (a string) against the labels' own values and type."""
    if option is None:
        return None
    for value in pd.unique(labels):
        if str(value) == option:
            return value
    raise ValueError(
        f"--pos-label {option!r} is not a label of the data: "
        f"{[str(v) for v in pd.unique(labels)[:5]]}"
    )


def _scores(frame: pd.DataFrame, column: str) -> np.ndarray:
    values = pd.to_numeric(frame[column], errors="coerce")
    if values.isna().any():
        raise ValueError(f"column {column!r} holds values that are not numbers")
    return values.to_numpy(dtype=float)


def analyze(frame: pd.DataFrame, args) -> str:
    """Compute, write the tables and figures, and return the summary text."""
    y = frame[args.label].to_numpy()
    pos_label = _pos_label(frame[args.label], args.pos_label)
    names = args.score
    if len(names) > 2:
        raise ValueError("give one or two --score columns")
    scores = [_scores(frame, name) for name in names]
    common = {"confidence_level": args.confidence, "pos_label": pos_label}
    at = None if args.at is None else np.asarray(args.at)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    bands = [
        roc_ci(y, s, averaging=args.averaging, at=at, method=args.method, **common) for s in scores
    ]
    costs = [cost_curve_ci(y, s, w=args.w, **common) for s in scores]
    aucs = [auc_interval(y, s, method=args.auc_method, **common) for s in scores]
    info = bands[0].info
    lines = [
        f"{args.data.name}: {len(y)} rows, {info['n_pos']} positive and {info['n_neg']} "
        f"negative; level {args.confidence:g}"
    ]
    for name, band, cost, auc in zip(names, bands, costs, aucs):
        band.to_frame().to_csv(out / f"roc_{name}.csv", index=False)
        cost.to_frame().to_csv(out / f"cost_{name}.csv", index=False)
        lines.append(
            f"AUC {name}: {auc.auc[0]:.4f} [{auc.low[0]:.4f}, {auc.high[0]:.4f}] "
            f"({args.auc_method})"
        )
    _figure(out / "roc", [b.plot for b in bands], names)
    _figure(out / "cost", [c.plot for c in costs], names)
    if len(names) == 2:
        lines += _compare(y, scores, names, args, common, at, out)
    pd.concat([a.to_frame().assign(model=n) for n, a in zip(names, aucs)]).to_csv(
        out / "auc.csv", index=False
    )
    lines.append(f"wrote tables and figures to {out}/")
    return "\n".join(lines)


def _compare(y, scores, names, args, common, at, out) -> list[str]:
    # second minus first: "model B better" reads directly off the signs
    first, second = names
    roc = compare_roc(
        y, scores[1], scores[0], averaging=args.averaging, at=at, method=args.method, **common
    )
    cost = compare_cost(y, scores[1], scores[0], w=args.w, **common)
    auc = compare_auc(y, scores[1], scores[0], method=args.auc_method, **common)
    roc.to_frame().to_csv(out / "roc_difference.csv", index=False)
    cost.to_frame().to_csv(out / "cost_difference.csv", index=False)
    auc.to_frame().to_csv(out / "auc_difference.csv", index=False)
    _figure(out / "roc_difference", [roc.plot], [f"{second} - {first}"])
    _figure(out / "cost_difference", [cost.plot], [f"{first} - {second} (cost)"])
    axis = "FPR" if args.averaging == "vertical" else "total positive ratio"
    x = roc.columns["fpr" if args.averaging == "vertical" else "q"]
    return [
        f"AUC {second} - {first}: {auc.difference[0]:+.4f} [{auc.low[0]:+.4f}, "
        f"{auc.high[0]:+.4f}], p = {auc.p_value[0]:.3g}",
        f"ROC ({args.averaging} averaging, {x.size} points): {second} "
        + _where(x, roc.verdict, axis, "better", "worse"),
        f"cost ({cost.w.size} operating conditions w): {second} "
        + _where(cost.w, cost.verdict, "w", "cheaper", "dearer"),
    ]


def _where(x: np.ndarray, verdict: np.ndarray, axis: str, good: str, bad: str) -> str:
    parts = []
    for label, word in (("first better", good), ("second better", bad)):
        hit = verdict == label
        parts.append(
            f"significantly {word} at {axis} {_ranges(x, hit)} ({hit.sum()} of {hit.size})"
            if hit.any()
            else f"{word} nowhere"
        )
    return "; ".join(parts)


def _ranges(x: np.ndarray, hit: np.ndarray) -> str:
    """Runs of consecutive hits as ``a-b`` ranges: ``0.05-0.30, 0.55``."""
    runs, start = [], None
    for k in range(x.size + 1):
        inside = k < x.size and hit[k]
        if inside and start is None:
            start = k
        if not inside and start is not None:
            runs.append(f"{x[start]:.2f}" if start == k - 1 else f"{x[start]:.2f}-{x[k - 1]:.2f}")
            start = None
    return ", ".join(runs)


def _figure(stem: Path, plotters, titles) -> None:
    from matplotlib.figure import Figure

    # a Figure of its own, not pyplot's: written to files, whatever the backend
    fig = Figure(figsize=(5.5 * len(plotters), 5))
    axes = fig.subplots(1, len(plotters), squeeze=False)
    for ax, draw, title in zip(axes[0], plotters, titles):
        draw(ax)
        ax.set_title(title)
    fig.tight_layout()
    for suffix in (".png", ".pdf"):
        fig.savefig(stem.with_suffix(suffix), dpi=120)
