"""``rocsim analyze``: exact bootstrap intervals for the classifiers scored in a data file.

``rocsim analyze data.csv --label y --score model_a [--score model_b] [--averaging ...]
[--at ...] [--confidence 0.95] [--encoding utf-8] [--out DIR]`` reads a CSV or parquet file,
writes tables (CSV) and figures (PNG, PDF) to ``DIR``, and prints a short summary: each model's
AUC, and with two models where the second is significantly better or worse (at which FPRs or
total positive ratios, at which operating conditions). Every error is one line on stderr, exit
status 2.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from rocsim.analysis import (
    AVERAGING,
    auc_ci,
    compare_auc,
    compare_cost,
    compare_roc,
    cost_curve_ci,
    roc_ci,
)
from rocsim.cli._common import EXIT_FAILURE, OneLineParser, allow_interruptions, fail
from rocsim.core._validation import check_choice, check_rates
from rocsim.core.area import AUC_DIFFERENCE_METHODS, AUC_INTERVAL_METHODS
from rocsim.core.intervals import PAIRED_METHODS, PROPORTION_METHODS
from rocsim.core.paired_vertical import VERTICAL_DIFFERENCE_METHODS
from rocsim.core.results import format_p
from rocsim.core.vertical import VERTICAL_METHODS
from rocsim.sim.errors import RunError
from rocsim.sim.io import (
    STAGING_PREFIX,
    atomic_write,
    begin_set,
    check_writable_folder,
    folder_lock,
    seal_set,
)

#: Help of the options, by option.
HELP = {
    "data": "CSV or parquet file, one row per instance",
    "--label": "column of the true labels",
    "--score": "column of a classifier's scores (higher = positive); give it twice to compare "
    "two classifiers (differences are second minus first)",
    "--pos-label": "the positive label (needed unless labels are 0/1, -1/1 or booleans)",
    "--at": "where to place the points, as rates in (0, 1): total positive ratios (threshold "
    "averaging) or FPRs (vertical); default 0.01 ... 0.99",
    "--thresholds": "score thresholds instead of --at (threshold averaging); give it once per "
    "--score, in the same order",
    "--w": "operating conditions of the cost curves, default 0.01 ... 0.99",
    "--method": "ROC interval method (default: score for each classifier; for the difference, "
    "tango under threshold averaging, score under vertical)",
    "--auc-method": "AUC interval method (default: newcombe for each classifier's AUC, mover "
    "for the difference; delong is pROC's). newcombe applies to the AUCs only and mover to "
    "the difference only, the other keeping its default; each line names its method",
    "--dropna": "drop rows with a missing label or score (otherwise an error)",
    "--encoding": "text encoding of a CSV file (default utf-8), e.g. latin-1 or cp1252 for a "
    "file saved by an older spreadsheet program",
    "--out": "output folder (default ./rocsim-analysis)",
}


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
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
    p.add_argument("--at", type=float, nargs="+", metavar="RATE", help=HELP["--at"])
    p.add_argument(
        "--thresholds",
        type=float,
        nargs="+",
        action="append",
        metavar="SCORE",
        help=HELP["--thresholds"],
    )
    p.add_argument("--w", type=float, nargs="+", metavar="W", help=HELP["--w"])
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--method", help=HELP["--method"])
    p.add_argument("--auc-method", choices=AUC_CHOICES, help=HELP["--auc-method"])
    p.add_argument("--dropna", action="store_true", help=HELP["--dropna"])
    p.add_argument("--encoding", default="utf-8", help=HELP["--encoding"])
    p.add_argument("--out", type=Path, default=Path("rocsim-analysis"), help=HELP["--out"])
    return p


#: ``--auc-method``'s choices: the single AUC's methods and the difference's.
AUC_CHOICES = tuple(dict.fromkeys([*AUC_INTERVAL_METHODS, *AUC_DIFFERENCE_METHODS]))


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    args.data, args.out = args.data.expanduser(), args.out.expanduser()
    allow_interruptions()  # imported and parsed: the work begins
    try:
        check_writable_folder(args.out, "--out")  # before reading or computing anything
        check_options(args)
        columns = [args.label, *args.score]
        frame, dropped = read_table(args.data, columns, args.dropna, args.encoding)
        report = analyze(frame, args)
    except RunError as err:  # a full disk, a folder in use: not the input's fault
        fail(str(err), "rocsim analyze", EXIT_FAILURE)
    except (ValueError, OSError) as err:
        fail(str(err).splitlines()[0] if str(err) else type(err).__name__, "rocsim analyze")
    if dropped:
        print(f"dropped {dropped} row(s) with missing values (--dropna)")
    print(report)


def check_options(args) -> None:
    """The options' values, named as on the command line (the library would name its own
    arguments: ``at``, ``confidence_level``, ``w``)."""
    if args.at is not None:
        check_rates(args.at, "--at")
    if args.thresholds is not None and args.at is not None:
        raise ValueError("give --at (rates) or --thresholds (scores), not both")
    if args.thresholds is not None and args.averaging != "threshold":
        raise ValueError("--thresholds applies to --averaging threshold (vertical uses --at FPRs)")
    if not 0 < args.confidence < 1:  # also refuses NaN
        raise ValueError(f"--confidence must be in (0, 1), got {args.confidence:g}")
    if args.w is not None and not all(0 <= w <= 1 for w in args.w):
        raise ValueError("--w must lie in [0, 1]")
    if args.method is not None:
        check_choice(args.method, _roc_methods(args.averaging, len(args.score)), "--method")
    if args.label in args.score:
        raise ValueError(f"--label and --score name the same column {args.label!r}")
    try:  # refused here, not as a LookupError out of pandas (a traceback); not b"" or "",
        "x".encode(args.encoding)  # which every name, even a wrong one, encodes
    except LookupError:  # unknown, or not a text encoding (base64)
        raise ValueError(
            f"--encoding {args.encoding!r} is not a text encoding Python knows "
            "(e.g. utf-8, latin-1, cp1252)"
        ) from None


def _roc_methods(averaging: str, models: int) -> list[str]:
    """Interval methods every table of the run accepts."""
    if averaging == "vertical":
        one = list(VERTICAL_METHODS)
        return [m for m in one if m in VERTICAL_DIFFERENCE_METHODS] if models == 2 else one
    one = list(PROPORTION_METHODS)
    return [m for m in one if m in PAIRED_METHODS] if models == 2 else one


def read_table(
    path: Path, columns: list[str], dropna: bool, encoding: str = "utf-8"
) -> tuple[pd.DataFrame, int]:
    """The used columns of a CSV or parquet file, with missing values checked."""
    if len(set(columns)) != len(columns):
        raise ValueError(f"--score columns must differ: {columns[1:]}")
    _check_regular_file(path)
    if path.suffix.lower() not in (".parquet", ".csv", ".gz", ".txt", ".tsv"):
        raise ValueError(f"{path.name}: expected a .csv or .parquet file")
    _check_columns(columns, _file(path, lambda p: _column_names(p, encoding), encoding), path)
    frame = _file(path, lambda p: _read_columns(p, columns, encoding), encoding)
    _check_decoded(frame, path, encoding)
    if frame.empty:
        raise ValueError(f"{path.name} has no rows")
    missing = frame.isna().any(axis=1)
    if missing.any() and not dropna:
        where = ", ".join(f"{c} ({int(n)})" for c, n in frame.isna().sum().items() if n)
        raise ValueError(
            f"{int(missing.sum())} row(s) have missing values in {where}; "
            "pass --dropna to drop them"
        )
    return frame[~missing], int(missing.sum())


def _check_regular_file(path: Path) -> None:
    """A regular file with something in it, told apart with ``os.stat``: opening a FIFO to
    find out would wait for a writer, and pandas calls a folder or a device "no such file"."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ValueError(f"no such file: {path}") from None
    except OSError as err:  # a parent folder one may not enter, a symlink loop
        raise ValueError(f"{path} cannot be read: {err.strerror or err}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{path} is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{path} is not a regular file (a FIFO, a device or a socket)")
    if info.st_size == 0:
        raise ValueError(f"{path} is empty")


def _file(path: Path, read, encoding: str):
    """``read(path)``, with a file pandas or pyarrow cannot parse named in one line."""
    import pyarrow as pa

    try:
        return read(path)
    except UnicodeError:  # before ValueError, which it derives from
        raise _not_encoded(path, encoding) from None
    except (ValueError, OSError, pa.ArrowException) as err:  # pandas' errors derive from these
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ValueError(f"{path.name} cannot be read: {reason}") from None


def _not_encoded(path: Path, encoding: str, column: str | None = None) -> ValueError:
    """The error for a file whose text is not in ``encoding``: the user names the right one
    (guessing could turn "é" into "Ã©" without a word)."""
    where = f" (column {column!r})" if column is not None else ""
    return ValueError(
        f"{path.name} is not valid {encoding} text{where}; give the file's encoding, "
        "e.g. --encoding latin-1"
    )


def _check_decoded(frame: pd.DataFrame, path: Path, encoding: str) -> None:
    """pyarrow reads text that is not valid UTF-8 as bytes (``b'malade \\xe9'``) instead of
    failing: refuse such a column."""
    for column in frame.columns:
        if frame[column].dtype == object and frame[column].map(_is_bytes).any():
            raise _not_encoded(path, encoding, column)


def _is_bytes(value) -> bool:
    return isinstance(value, bytes)


def _separator(path: Path) -> str:
    return "\t" if path.suffix.lower() == ".tsv" else ","


def _column_names(path: Path, encoding: str) -> list[str]:
    """The column names as written in the file: reading the header as a header, pandas would
    rename a second ``a`` to ``a.1`` and hide that ``a`` is ambiguous."""
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_schema(path).names
    header = pd.read_csv(
        path,
        sep=_separator(path),
        header=None,
        nrows=1,
        dtype=str,
        keep_default_na=False,
        encoding=encoding,
    ).iloc[0]
    # a blank name is "Unnamed: i", as pandas names it when it reads the header itself
    return [name or f"Unnamed: {i}" for i, name in enumerate(header)]


def _read_columns(path: Path, columns: list[str], encoding: str) -> pd.DataFrame:
    if path.suffix.lower() == ".parquet":
        return pd.read_parquet(path, columns=columns)
    return pd.read_csv(
        path, sep=_separator(path), usecols=columns, engine="pyarrow", encoding=encoding
    )


def _check_columns(wanted: list[str], available: list[str], path: Path) -> None:
    absent = [c for c in wanted if c not in available]
    if absent:
        raise ValueError(
            f"{path.name} has no column {', '.join(map(repr, absent))}; it has "
            f"{', '.join(available[:12])}{' ...' if len(available) > 12 else ''}"
        )
    # pandas would silently take the first of them
    duplicated = [c for c in wanted if available.count(c) > 1]
    if duplicated:
        raise ValueError(
            f"{path.name} has more than one column named {', '.join(map(repr, duplicated))}; "
            "rename them apart, so that --label and --score each name one column"
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
    """A ``--score`` column as finite floats, checked here where its name is known (the
    library would call it ``y_score``). Missing values were refused or dropped (``--dropna``)
    when reading: a NaN left is a value that is not a number."""
    values = pd.to_numeric(frame[column], errors="coerce")
    if values.isna().any():
        raise ValueError(f"column {column!r} holds values that are not numbers")
    scores = values.to_numpy(dtype=float)
    infinite = int(np.isinf(scores).sum())
    if infinite:
        raise ValueError(
            f"column {column!r} holds {infinite} infinite value(s); scores must be finite"
        )
    return scores


def analyze(frame: pd.DataFrame, args) -> str:
    """Compute everything, then write the tables and figures as one set, and return the
    summary text: a validation error leaves no output behind."""
    y = frame[args.label].to_numpy()
    classes = pd.unique(frame[args.label])
    if classes.size != 2:
        raise ValueError(
            f"--label column {args.label!r} must hold exactly two classes, got "
            f"{classes.size}: {[str(c) for c in classes[:5]]}"
        )
    pos_label = _pos_label(frame[args.label], args.pos_label)
    names = args.score
    if len(names) > 2:
        raise ValueError("give one or two --score columns")
    scores = [_scores(frame, name) for name in names]
    thresholds = _thresholds_option(args.thresholds, names)
    common = {"confidence_level": args.confidence, "pos_label": pos_label}
    points = {"averaging": args.averaging, "at": _option_array(args.at)}
    if args.method is not None:  # otherwise each function's own default
        points["method"] = args.method
    outputs: dict[str, object] = {}  # file stem -> a result with to_frame() or plot
    bands = [roc_ci(y, s, thresholds=t, **points, **common) for s, t in zip(scores, thresholds)]
    costs = [cost_curve_ci(y, s, w=args.w, **common) for s in scores]
    method = _auc_method(args.auc_method, AUC_INTERVAL_METHODS)
    aucs = [auc_ci(y, s, method=method, **common) for s in scores]
    lines = [
        f"{args.data.name}: {len(y)} rows, {bands[0].n_pos} positive and {bands[0].n_neg} "
        f"negative; level {args.confidence:g}"
    ]
    for name, band, cost, auc in zip(names, bands, costs, aucs):
        outputs[f"roc_{name}"], outputs[f"cost_{name}"] = band, cost
        lines.append(f"AUC {name}: {auc.auc:.4f} [{auc.low:.4f}, {auc.high:.4f}] ({auc.method})")
    outputs["roc"] = _Figure([b.plot for b in bands], names)
    outputs["cost"] = _Figure([c.plot for c in costs], names)
    outputs["auc"] = _Frame(pd.concat([a.to_frame().assign(model=n) for n, a in zip(names, aucs)]))
    if len(names) == 2:
        pair = thresholds[::-1] if thresholds[0] is not None else None
        lines += _compare(y, scores, names, args, common, points, pair, outputs)
    write_outputs(outputs, args.out)
    lines.append(f"wrote tables and figures to {args.out}/")
    return "\n".join(lines)


def _auc_method(given: str | None, methods) -> str | None:
    """``--auc-method`` where the interval has it (``delong`` and ``exact_bootstrap`` both
    have), else the function's default (``newcombe`` has no paired form, ``mover`` no single
    one)."""
    return given if given in methods else None


def _option_array(values) -> np.ndarray | None:
    return None if values is None else np.asarray(values)


def _thresholds_option(given, names: list[str]) -> list:
    """``--thresholds``, given once per ``--score`` (in the same order), or not at all."""
    if given is None:
        return [None] * len(names)
    if len(given) != len(names):
        raise ValueError(
            f"--thresholds was given {len(given)} time(s) for {len(names)} --score column(s); "
            "give it once per --score, in the same order"
        )
    return [np.asarray(t) for t in given]


def _compare(y, scores, names, args, common, points, thresholds, outputs) -> list[str]:
    # second minus first: "model B better" reads directly off the signs
    first, second = names
    roc = compare_roc(y, scores[1], scores[0], thresholds=thresholds, **points, **common)
    cost = compare_cost(y, scores[1], scores[0], w=args.w, **common)
    method = _auc_method(args.auc_method, AUC_DIFFERENCE_METHODS)
    auc = compare_auc(y, scores[1], scores[0], method=method, **common)
    outputs |= {"roc_difference": roc, "cost_difference": cost, "auc_difference": auc}
    outputs["roc_difference_figure"] = _Figure([roc.plot], [f"{second} - {first}"])
    outputs["cost_difference_figure"] = _Figure([cost.plot], [f"{first} - {second} (cost)"])
    key = next(k for k in ("q", "fpr", "tpr", "t1") if getattr(roc, k) is not None)
    axis = {
        "q": "total positive ratio",
        "fpr": "FPR",
        "tpr": "TPR",
        "t1": f"{second}'s threshold",
    }[key]
    x = getattr(roc, key)
    return [
        f"AUC {second} - {first}: {auc.difference:+.4f} [{auc.low:+.4f}, "
        f"{auc.high:+.4f}], {format_p(auc.p_value)} ({auc.method})",
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


class _Frame:
    """A table that is already a DataFrame."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def to_frame(self) -> pd.DataFrame:
        return self.frame


class _Figure:
    """Side-by-side panels, each drawn by a result's ``plot(ax)``."""

    def __init__(self, plotters, titles) -> None:
        self.plotters, self.titles = plotters, titles

    def write(self, stem: Path) -> list[Path]:
        from matplotlib.figure import Figure

        from rocsim.views.figures import save_png_and_pdf

        # a Figure of its own, not pyplot's: written to files, whatever the backend
        fig = Figure(figsize=(5.5 * len(self.plotters), 5))
        axes = fig.subplots(1, len(self.plotters), squeeze=False)
        for ax, draw, title in zip(axes[0], self.plotters, self.titles):
            draw(ax)
            ax.set_title(title)
        fig.tight_layout()
        return save_png_and_pdf(fig, stem)


def write_outputs(outputs: dict, out: Path) -> None:
    """Write every table (``stem.csv``) and figure (``stem.png``, ``stem.pdf``) into ``out`` as
    one set, as a study's outputs are (:func:`rocsim.sim.io.begin_set`).

    The files are written into a staging folder inside ``out`` first, so that an error while
    writing them (a full disk) leaves ``out`` as it was; then the previous analysis's files
    are removed, the new ones moved in and ``manifest.json``, listing them, written last: a
    folder without it holds an interrupted analysis's files, which the next one removes
    (with any staging folder left behind). One analysis writes into a folder at a time."""
    check_writable_folder(out, "--out")
    with folder_lock(out, "--out"):
        for leftover in out.glob(f"{STAGING_PREFIX}*"):  # of a killed analysis
            shutil.rmtree(leftover, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(dir=out, prefix=STAGING_PREFIX))
        try:
            names = _write_staged(outputs, staging)
            begin_set(out, names)
            for name in names:
                os.replace(staging / name, out / name)
            seal_set(out, names)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def _write_staged(outputs: dict, staging: Path) -> list[str]:
    """Write every output into ``staging``; the names of the files written."""
    paths = []
    for stem, result in outputs.items():
        path = staging / stem.removesuffix("_figure")
        if isinstance(result, _Figure):
            paths += result.write(path)
        else:
            frame = result.to_frame()
            atomic_write(path.with_suffix(".csv"), lambda p, f=frame: f.to_csv(p, index=False))
            paths.append(path.with_suffix(".csv"))
    return sorted(Path(p).name for p in paths)
