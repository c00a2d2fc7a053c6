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

from rocsim.core import count_at_or_above

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


def resample_counts(n: int, b: int, rng) -> np.ndarray:
    """``counts[k, i]``: how often item ``i`` is drawn in bootstrap resample ``k`` (vectorised)."""
    idx = rng.integers(0, n, size=(b, n)) + n * np.arange(b)[:, None]
    return np.bincount(idx.ravel(), minlength=b * n).reshape(b, n)


def mc_vertical_tpr(classifiers, r: np.ndarray, b: int, rng, chunk: int = 200):
    """TPR at FPR ``r/n-`` of each ``(pos, neg)`` in ``classifiers`` over ``b`` stratified
    resamples, vectorised over resamples; the classifiers score the same instances, so they
    share every resample (paired design). Returns one ``(b, len(r))`` array per classifier.

    In each resample the threshold is the ``r``-th largest resampled negative (first rank whose
    cumulative count reaches ``r``); TPR counts the resampled positives reaching it.
    """
    n_pos, n_neg = classifiers[0][0].size, classifiers[0][1].size
    layouts = []
    for pos, neg in classifiers:
        neg_order, pos_order = np.argsort(-neg, kind="stable"), np.argsort(-pos, kind="stable")
        # positives (sorted decreasingly) reaching each negative's score: a prefix of that length
        layouts.append((neg_order, pos_order, count_at_or_above(pos, neg[neg_order])))
    out: list[list[np.ndarray]] = [[] for _ in classifiers]
    for start in range(0, b, chunk):
        k = min(chunk, b - start)
        rows = np.arange(k)[:, None]
        neg_weights, pos_weights = resample_counts(n_neg, k, rng), resample_counts(n_pos, k, rng)
        for tprs, (neg_order, pos_order, reach) in zip(out, layouts):
            neg_cum = np.cumsum(neg_weights[:, neg_order], axis=1)
            # offsetting each row by (n- + 1) keeps the flattened cumulative counts sorted
            flat = (neg_cum + (n_neg + 1) * rows).ravel()
            hit = np.searchsorted(flat, (r[None, :] + (n_neg + 1) * rows).ravel()).reshape(k, -1)
            rank = hit - n_neg * rows
            pos_cum = np.cumsum(pos_weights[:, pos_order], axis=1)
            pos_cum = np.concatenate([np.zeros((k, 1), dtype=pos_cum.dtype), pos_cum], axis=1)
            tprs.append(np.take_along_axis(pos_cum, reach[rank], axis=1) / n_pos)
    return [np.vstack(tprs) for tprs in out]


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
