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

HERE = Path(__file__).resolve().parent


def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    """Smallest wall time of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_reproduce(figures: list[str], replications: int = 1000) -> dict:
    """Wall time of ``rocsim-reproduce --only figures`` in a fresh directory, total and per
    study."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-c", "from rocsim.cli import reproduce; reproduce()",
               "--only", *figures, "--replications", str(replications), "--n-jobs", "-1",
               "--results-dir", tmp]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        wall = time.perf_counter() - start
        per = {f: json.loads((Path(tmp) / f / "meta.json").read_text())["wall_seconds"]
               for f in figures}
    return {"total (s)": wall, **{f"{f} (s)": v for f, v in per.items()}}


def arguments(*extra_flags: str):
    """Command-line flags of a benchmark script: ``--skip-reproduce`` and ``extra_flags``."""
    import argparse

    parser = argparse.ArgumentParser()
    for flag in ("--skip-reproduce", *extra_flags):
        parser.add_argument(flag, action="store_true")
    return parser.parse_args()


def reproduce_section(figures: list[str], replications: int = 1000) -> list[str]:
    """Markdown lines reporting :func:`bench_reproduce` for ``figures``."""
    return ["## rocsim-reproduce --only " + " ".join(figures) + f" ({replications} replications)",
            "", table([bench_reproduce(figures, replications)]), ""]


def resample_counts(n: int, b: int, rng) -> np.ndarray:
    """``counts[k, i]``: how often item ``i`` is drawn in bootstrap resample ``k`` (vectorised)."""
    idx = rng.integers(0, n, size=(b, n)) + n * np.arange(b)[:, None]
    return np.bincount(idx.ravel(), minlength=b * n).reshape(b, n)


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
