"""Benchmark: ``ties="interpolate"`` (pROC's reading of tied scores, its exact bootstrap law)
against pROC's ``ci.se`` / ``ci.sp`` at ``boot.n = 2000`` and against ``ties="step"``, on the
same data sets, in one run. Writes ``benchmarks/results_interpolated.md``.

Data: binormal scores (mu+ = 1, mu- = 0, unit variances), n = 10^3 per class, read three
ways: ``np.round(4 * score)`` (17 distinct values), a 5-level score (cut at -0.5, 0.25, 0.75,
1.5), and untied. Each call is rocsim's top level as a user makes it,
``rocsim.roc_ci(y, score, averaging=..., at=..., method="percentile", ties=...)``, at
11 rates 0.05..0.95 (as many as pROC's default) and at rocsim's default 99; rocsim times are the
best of 5 calls, pROC's one call of ``ci.se`` (vertical) or ``ci.sp`` (horizontal) timed in R
by ``system.time`` on the same scores (written to a CSV it reads). Without R and pROC
(``apt-get install r-base-core r-cran-proc``) the pROC columns are left empty.

Usage: ``python benchmarks/bench_interpolated.py``
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import best_of, machine, table, write

import rocsim

N = 1000
BOOT_N = 2000
LEVEL = 0.95
# 11 rates as pROC's default seq(0, 1, 0.1), but inside (0, 1) (rocsim's rates are), and
# rocsim's default 99
GRIDS = {"11": np.linspace(0.05, 0.95, 11), "99": np.linspace(0.01, 0.99, 99)}
# pROC's ci.se at FPR t is its sensitivity at specificity 1 - t; ci.sp its specificity at
# sensitivity t, read here as FPR = 1 - specificity
PROC_CALL = {"vertical": "ci.se", "horizontal": "ci.sp"}
R_SCRIPT = """
suppressMessages(library(pROC))
d <- read.csv("{csv}")
at <- c({at})
r <- roc(d$y, d$score, levels = c(0, 1), direction = "<", quiet = TRUE)
set.seed(1)
t <- system.time({call}(r, {argument} = {values}, boot.n = {boot_n}, conf.level = {level},
                        progress = "none"))[["elapsed"]]
cat(t, "\\n")
"""


def data_sets(rng) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    y = np.r_[np.ones(N), np.zeros(N)]
    raw = np.r_[rng.normal(1.0, 1.0, N), rng.normal(0.0, 1.0, N)]
    levels = np.digitize(raw, [-0.5, 0.25, 0.75, 1.5]).astype(float)
    return {
        "np.round(4 * score)": (y, np.round(4 * raw)),
        "5-level score": (y, levels),
        "untied": (y, raw),
    }


def proc_seconds(y, score, how: str, at: np.ndarray) -> float | None:
    """Seconds of one pROC ``ci.se`` / ``ci.sp`` call on the scores, or None without R."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "scores.csv"
        np.savetxt(csv, np.column_stack([y, score]), delimiter=",", header="y,score", comments="")
        values = "1 - at" if how == "vertical" else "at"
        argument = "specificities" if how == "vertical" else "sensitivities"
        script = R_SCRIPT.format(
            csv=csv,
            at=", ".join(repr(float(a)) for a in at),
            call=PROC_CALL[how],
            argument=argument,
            values=values,
            boot_n=BOOT_N,
            level=LEVEL,
        )
        done = subprocess.run(
            ["Rscript", "-e", script], capture_output=True, text=True, check=False
        )
    if done.returncode != 0:
        return None  # pROC not installed
    return float(done.stdout.split()[0])


def rocsim_seconds(y, score, how: str, at: np.ndarray, ties: str) -> float:
    def call():
        rocsim.roc_ci(
            y, score, averaging=how, at=at, method="percentile", ties=ties, confidence_level=LEVEL
        )

    return best_of(call)


def row(name: str, y, score, how: str, grid: str) -> dict:
    at = GRIDS[grid]
    interpolate = rocsim_seconds(y, score, how, at, "interpolate")
    step = rocsim_seconds(y, score, how, at, "step")
    proc = proc_seconds(y, score, how, at)
    out = {
        "scores": name,
        "distinct": int(np.unique(score).size),
        "averaging": how,
        "rates": grid,
        "interpolate (ms)": 1e3 * interpolate,
        "step (ms)": 1e3 * step,
        "interpolate / step": interpolate / step,
    }
    out["pROC call"] = PROC_CALL[how]
    if proc is not None:
        out[f"pROC B={BOOT_N} (ms)"] = 1e3 * proc
        out["pROC / interpolate"] = proc / interpolate
    return out


def main() -> None:
    start = time.perf_counter()
    rows = []
    for name, (y, score) in data_sets(np.random.default_rng(20091129)).items():
        for how in PROC_CALL:
            for grid in GRIDS:
                rows.append(row(name, y, score, how, grid))
                print(rows[-1], flush=True)
    version = _proc_version()
    write(
        "results_interpolated.md",
        [
            "# Tied scores read along the diagonal (ties='interpolate') against pROC",
            "",
            f"Machine: {machine()}; {N} scores per class, binormal (mu+ = 1, mu- = 0); "
            f"percentile intervals at level {LEVEL}, at 11 rates 0.05..0.95 (as many as "
            "pROC's default) and rocsim's default 99 (vertical: TPR at FPR, pROC's ci.se at "
            "specificity 1 - FPR; horizontal: FPR at TPR, pROC's ci.sp). rocsim: best of 5 "
            "calls of rocsim.roc_ci; "
            f"pROC ({version}): one call, boot.n = {BOOT_N}, timed by R's system.time.",
            "",
            table(rows),
            "",
            f"Benchmark wall time: {time.perf_counter() - start:.0f} s",
            "",
        ],
    )


def _proc_version() -> str:
    if shutil.which("Rscript") is None:
        return "not installed"
    done = subprocess.run(
        ["Rscript", "-e", 'cat(as.character(packageVersion("pROC")))'],
        capture_output=True,
        text=True,
        check=False,
    )
    return f"pROC {done.stdout.strip()}" if done.returncode == 0 else "not installed"


if __name__ == "__main__":
    main()
