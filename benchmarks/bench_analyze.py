"""Benchmark: ``rocsim analyze`` end to end on a million-row CSV (read, intervals, tables,
figures, summary). Writes ``benchmarks/results_analyze.md``.

Usage: ``python benchmarks/bench_analyze.py``
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import machine, table, write

ROWS = 1_000_000
RUNS = {
    "two models, threshold averaging": ["--score", "model_a", "--score", "model_b"],
    "one model, vertical averaging, exact bootstrap AUC": [
        "--score",
        "model_a",
        "--averaging",
        "vertical",
        "--auc-method",
        "exact_bootstrap",
    ],
}


def make_csv(path: Path, rows: int = ROWS) -> None:
    """Labels and two models' scores: a rounded normal score (ties) and a probability."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, rows)
    pd.DataFrame(
        {
            "y": y,
            "model_a": rng.normal(y * 1.0, 1).round(4),
            "model_b": 1 / (1 + np.exp(-rng.normal(y * 1.2, 1))),
        }
    ).to_csv(path, index=False)


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "million.csv"
        make_csv(data)
        for name, extra in RUNS.items():
            cmd = [
                sys.executable,
                "-c",
                "from rocsim.cli import main; main()",
                "analyze",
                str(data),
                "--label",
                "y",
                *extra,
                "--out",
                str(Path(tmp) / "out"),
            ]
            start = time.perf_counter()
            done = subprocess.run(cmd, check=True, capture_output=True, text=True)
            rows.append({"run": name, "rows": ROWS, "wall (s)": time.perf_counter() - start})
            print(done.stdout)
    write(
        "results_analyze.md",
        [
            "# rocsim analyze on a million-row CSV",
            "",
            f"Machine: {machine()}. Wall time of the whole command "
            "(start-up, reading, intervals at 99 points, tables, PNG and "
            "PDF figures, summary).",
            "",
            table(rows),
            "",
        ],
    )


if __name__ == "__main__":
    main()
