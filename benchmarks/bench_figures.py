"""Benchmark: saving a study figure, PNG at Pillow's default zlib level against rocsim's
``PNG_COMPRESS_LEVEL``, and PDF (the time and size of each file; the PNGs' pixels compared).
Writes ``benchmarks/results_figures.md``.

Usage: ``python benchmarks/bench_figures.py``
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from _common import best_of, machine, table, write
from PIL import Image

from rocsim.views.figures import PNG_COMPRESS_LEVEL, plot_coverage

STUDIES = ("fig4_9", "fig5_3", "fig4_2")
PILLOW_DEFAULT_LEVEL = 6


def study_figures(folder: Path):
    """The study figures of a small ``rocsim-reproduce`` run, as matplotlib figures."""
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from rocsim.cli import reproduce; reproduce()",
            "--only",
            *STUDIES,
            "--replications",
            "20",
            "--results-dir",
            str(folder),
        ],
        check=True,
        capture_output=True,
    )
    for name in STUDIES:
        cfg = json.loads((folder / name / "meta.json").read_text())["config"]
        plot = cfg["study"]["plot"]
        yield (
            name,
            plot_coverage(
                pd.read_parquet(folder / name / "coverage.parquet"),
                panels=plot.get("panels"),
                lines=plot.get("lines"),
                layout=tuple(plot["layout"]) if plot.get("layout") else None,
                colors=dict(plot.get("colors") or {}),
                styles=dict(plot.get("styles") or {}),
                title=cfg["study"]["title"],
            ),
        )


def saved(fig, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=130, format=fmt, **options)
    return buffer.getvalue()


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, fig in study_figures(Path(tmp)):
            saved(fig, "png")  # the first draw lays the figure out
            row, pixels = {"study": name}, []
            for label, fmt, level in (
                (f"PNG level {PILLOW_DEFAULT_LEVEL}", "png", PILLOW_DEFAULT_LEVEL),
                (f"PNG level {PNG_COMPRESS_LEVEL}", "png", PNG_COMPRESS_LEVEL),
                ("PDF", "pdf", None),
            ):
                kw = {"pil_kwargs": {"compress_level": level}} if fmt == "png" else {}
                row[f"{label} (ms)"] = 1e3 * best_of(lambda g=fig, f=fmt, k=kw: saved(g, f, **k))
                data = saved(fig, fmt, **kw)
                row[f"{label} (kB)"] = len(data) / 1e3
                if fmt == "png":
                    pixels.append(np.asarray(Image.open(io.BytesIO(data))))
            row["PNG pixels equal"] = bool(np.array_equal(*pixels))
            rows.append(row)
    write(
        "results_figures.md",
        [
            "# Saving a study figure",
            "",
            f"Machine: {machine()}. Best of 5 saves of each figure, 130 dpi.",
            "",
            table(rows),
            "",
        ],
    )


if __name__ == "__main__":
    main()
