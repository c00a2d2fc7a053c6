"""Helpers shared by the benchmark scripts: timing, the reproduction run, markdown tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rocsim.core.resampled_curves import paired_vertical_tprs

HERE = Path(__file__).resolve().parent


def best_of(fn: Callable[[], object], repeat: int = 5, budget: float = 0.0) -> float:
    """Smallest wall time of ``repeat`` calls, in seconds, and of more while all the calls so far
    took under ``budget`` seconds (a machine's noise only adds time: the least is the cost)."""
    times: list[float] = []
    while len(times) < repeat or sum(times) < budget:
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_reproduce(figures: list[str], replications: int = 1000) -> dict:
    """Wall time of ``rocsim-reproduce --only figures`` in a fresh directory, total and per
    study."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            sys.executable,
            "-c",
            "from rocsim.cli import reproduce; reproduce()",
            "--only",
            *figures,
            "--replications",
            str(replications),
            "--n-jobs",
            "-1",
            "--results-dir",
            tmp,
        ]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        wall = time.perf_counter() - start
        per = run_timings(Path(tmp), figures)
    return {"total (s)": wall, **per}


def run_timings(directory: Path, figures: list[str]) -> dict:
    """``{"<study> (s)": wall seconds}`` of each study of a ``rocsim-reproduce`` results
    folder, then of each variant run its claims asked for (``<study> variant <name>: <run>``),
    from their ``meta.json`` files."""
    per = {}
    for f in figures:
        per[f"{f} (s)"] = json.loads((directory / f / "meta.json").read_text())["wall_seconds"]
    for f in figures:
        for meta in sorted((directory / f / "variants").glob("*/*/meta.json")):
            variant, run = meta.parent.parent.name, meta.parent.name
            seconds = json.loads(meta.read_text())["wall_seconds"]
            per[f"{f} variant {variant}: {run} (s)"] = seconds
    return per


def arguments(*extra_flags: str):
    """Command-line flags of a benchmark script: ``--skip-reproduce`` and ``extra_flags``."""
    import argparse

    parser = argparse.ArgumentParser()
    for flag in ("--skip-reproduce", *extra_flags):
        parser.add_argument(flag, action="store_true")
    return parser.parse_args()


def reproduce_section(figures: list[str], replications: int = 1000) -> list[str]:
    """Markdown lines reporting :func:`bench_reproduce` for ``figures``."""
    return [
        "## rocsim-reproduce --only " + " ".join(figures) + f" ({replications} replications)",
        "",
        table([bench_reproduce(figures, replications)]),
        "",
    ]


def mc_vertical_tpr(classifiers, r: np.ndarray, b: int, rng):
    """TPR at FPR ``r/n-`` (lower side) of each ``(pos, neg)`` in ``classifiers`` over ``b``
    stratified resamples sharing every resample (paired design), vectorised over resamples:
    :func:`rocsim.core.resampled_curves.paired_vertical_tprs`. One ``(b, len(r))`` array per
    classifier."""
    return paired_vertical_tprs(classifiers, np.asarray(r), "lower", b, rng)


def machine() -> str:
    return f"{os.cpu_count()} cores, Python {sys.version.split()[0]}"


def table(rows: list[dict]) -> str:
    """Markdown table over the union of the rows' keys."""
    keys = list(dict.fromkeys(k for r in rows for k in r))
    out = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for r in rows:
        out.append("| " + " | ".join(_fmt(r.get(k, "")) for k in keys) + " |")
    return "\n".join(out)


def _fmt(v) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def write(name: str, lines: list[str]) -> None:
    """Write ``benchmarks/<name>`` and echo it."""
    text = "\n".join(lines)
    (HERE / name).write_text(text)
    print(text)


def replace_in_readme(name: str, script: str, lines: list[str]) -> None:
    """Replace the lines between README.md's two markers of ``name`` by ``lines``: the
    README quotes the run of ``script`` that wrote them."""
    start = f"<!-- {name}: written by benchmarks/{script} -->"
    end = f"<!-- end of {name} -->"
    readme = HERE.parent / "README.md"
    head, rest = readme.read_text().split(start)
    _, tail = rest.split(end)
    readme.write_text("\n".join([head + start, *lines, end + tail]))
