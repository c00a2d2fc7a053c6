"""A user's first call: ``import rocsim`` and the first call of each public function, each in a
new Python process, next to the warm call.

By default the processes run in a new virtual environment holding a wheel of this checkout
(built here; its dependencies from the running environment), as a fresh install, a container
or a CI job has it: nothing of the installed package has run before, and the process writes
no bytecode (``PYTHONDONTWRITEBYTECODE``), as with a read-only site-packages. The compiled
kernels were compiled when the wheel was built. In each process the call is then repeated;
the least of those runs is the warm time. At the target size each case runs in
:data:`PROCESSES_AT_TARGET` processes and the row holds the medians. ``--here`` measures
the running environment instead.

Writes ``benchmarks/results_cold_start.md``. Usage:
``python benchmarks/bench_cold_start.py [--here] [--n 1000 10000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The first call may take this much longer than the warm one, at n = 10^3 (issue 36).
FIRST_CALL_MARGIN = 0.5
#: ``import rocsim`` should take less.
IMPORT_TARGET = 0.5
#: The simultaneous band's FPRs.
BAND_FPRS = [0.05 * k for k in range(1, 20)]
#: Cases measured at the smallest size only (they do not depend on n).
SMALLEST_ONLY = ("sample_size",)
#: Cases whose first import is checked (tests/test_binomial.py) but not timed here.
NOT_TIMED: tuple[str, ...] = ()
#: Warm repeats after the first call.
REPEATS = 3
#: New processes per case at the target size: one first call is one sample of a shared
#: machine, whose noise on a call of a second is of the order of the margin itself, so the
#: rows there are medians over this many processes.
PROCESSES_AT_TARGET = 3


def data(n: int):
    """Two correlated binormal classifiers (AUC about 0.76 and 0.70), ``n`` instances a class."""
    import numpy as np

    rng = np.random.default_rng(20261127)
    y = np.repeat([1, 0], n)
    shared = rng.normal(size=2 * n)
    s1 = y * 1.0 + 0.8 * shared + 0.6 * rng.normal(size=2 * n)
    s2 = y * 0.75 + 0.8 * shared + 0.6 * rng.normal(size=2 * n)
    return y, s1, s2


def calls(n: int) -> dict:
    """Case name -> a call of the public API on data of ``n`` instances per class."""
    import rocsim

    y, s1, s2 = data(n)
    # nothing else is imported or built here: what a call imports (scipy, pandas, ...) is
    # part of its first call, as for a user
    return {
        "roc_ci threshold score": lambda: rocsim.roc_ci(y, s1),
        "roc_ci vertical score": lambda: rocsim.roc_ci(y, s1, averaging="vertical"),
        "roc_ci vertical percentile": lambda: rocsim.roc_ci(
            y, s1, averaging="vertical", method="percentile"
        ),
        "roc_ci horizontal score": lambda: rocsim.roc_ci(y, s1, averaging="horizontal"),
        "compare_roc threshold": lambda: rocsim.compare_roc(y, s1, s2),
        "compare_roc vertical": lambda: rocsim.compare_roc(y, s1, s2, averaging="vertical"),
        "pr_ci vertical": lambda: rocsim.pr_ci(y, s1),
        "pr_ci threshold": lambda: rocsim.pr_ci(y, s1, averaging="threshold"),
        "cost_curve_ci": lambda: rocsim.cost_curve_ci(y, s1),
        "compare_cost": lambda: rocsim.compare_cost(y, s1, s2),
        "auc_ci (default: newcombe)": lambda: rocsim.auc_ci(y, s1),
        "auc_ci delong": lambda: rocsim.auc_ci(y, s1, method="delong"),
        "auc_ci exact_bootstrap": lambda: rocsim.auc_ci(y, s1, method="exact_bootstrap"),
        "compare_auc (default: mover)": lambda: rocsim.compare_auc(y, s1, s2),
        "sample_size threshold": lambda: rocsim.sample_size(
            rocsim.binormal(auc=0.8), at=0.1, averaging="threshold", width=0.1
        ),
        "sample_size vertical": lambda: rocsim.sample_size(
            rocsim.binormal(auc=0.8), at=0.1, averaging="vertical", width=0.2
        ),
        "roc_ci simultaneous band": lambda: rocsim.roc_ci(
            y, s1, averaging="vertical", at=BAND_FPRS, band="simultaneous"
        ),
        "compare_roc simultaneous band": lambda: rocsim.compare_roc(
            y, s1, s2, averaging="vertical", at=BAND_FPRS, band="simultaneous"
        ),
        "auc_ci partial": lambda: rocsim.auc_ci(y, s1, max_fpr=0.2),
        "compare_auc partial": lambda: rocsim.compare_auc(y, s1, s2, max_fpr=0.2),
    }


def child(case: str, n: int) -> None:
    """In a new process: time ``import rocsim``, the first call of ``case`` and the warm ones;
    print them as JSON."""
    start = time.perf_counter()
    import rocsim

    imported = time.perf_counter() - start
    call = calls(n)[case]
    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    warm = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        call()
        warm.append(time.perf_counter() - start)
    where = rocsim.__file__
    print(json.dumps({"import": imported, "first": first, "warm": min(warm), "file": where}))


def measure(python: str, case: str, n: int) -> dict:
    """:func:`child` in a new process of ``python`` that writes no bytecode."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    code = f"import sys; sys.path.insert(0, {str(HERE)!r}); import bench_cold_start as b; "
    code += f"b.child({case!r}, {n})"
    done = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, env=env, cwd=tempfile.gettempdir()
    )
    if done.returncode != 0:
        raise RuntimeError(f"{case} at n={n} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def fresh_install(folder: Path) -> str:
    """A new venv in ``folder`` holding a wheel of this checkout; its python."""
    root = HERE.parent
    wheels = folder / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(root)],
        check=True,
    )
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    wheel = next(wheels.glob("rocsim-*.whl"))
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)],
        check=True,
    )
    return python


def median_of_processes(python: str, case: str, n: int, processes: int) -> dict:
    """:func:`measure` in ``processes`` new processes; the median of each time, and of each
    process's ``first - warm``."""
    runs = [measure(python, case, n) for _ in range(processes)]
    row = {key: statistics.median(r[key] for r in runs) for key in ("import", "first", "warm")}
    row["extra"] = statistics.median(r["first"] - r["warm"] for r in runs)
    row["file"] = runs[0]["file"]
    return row


def rows(python: str, sizes: list[int]) -> list[dict]:
    out = []
    for n in sizes:
        # the target is set at the smallest n
        at_target = n == min(sizes)
        processes = PROCESSES_AT_TARGET if at_target else 1
        for case in calls_names(n, sizes):
            got = median_of_processes(python, case, n, processes)
            out.append(
                {
                    "function": case,
                    "n per class": n,
                    "processes": processes,
                    "import rocsim (s)": got["import"],
                    "first call (s)": got["first"],
                    "warm call (s)": got["warm"],
                    "first - warm (s)": got["extra"],
                    "target": ("met" if got["extra"] <= FIRST_CALL_MARGIN else "missed")
                    if at_target
                    else "",
                    "file": got["file"],
                }
            )
            print(out[-1], flush=True)
    return out


def calls_names(n: int, sizes: list[int]) -> list[str]:
    """The timed cases at size ``n``; ``sample_size`` does not depend on the data: once, at
    the smallest size."""
    names = [c for c in calls(10) if c not in NOT_TIMED]
    return names if n == min(sizes) else [c for c in names if not c.startswith(SMALLEST_ONLY)]


def measured_rows(here: bool, sizes: list[int]) -> tuple[list[dict], str]:
    """:func:`rows` on a fresh install (``here``: the running environment), and where."""
    with tempfile.TemporaryDirectory() as tmp:
        python = sys.executable if here else fresh_install(Path(tmp))
        measured = rows(python, sizes)
    installed = {Path(r.pop("file")).parent for r in measured}
    if not here and any(str(tmp) not in str(folder) for folder in installed):
        raise RuntimeError(f"rocsim was imported from {installed}, not the fresh install")
    return measured, "this environment" if here else "a fresh install (a wheel in a new venv)"


def report(measured: list[dict], where: str) -> list[str]:
    """The table of first calls, what it was measured on, and the verdict on the targets."""
    from _common import machine, table

    smallest = min(r["n per class"] for r in measured)
    small = [r for r in measured if r["n per class"] == smallest]
    missed = [r["function"] for r in small if r["target"] == "missed"]
    slow_import = max(r["import rocsim (s)"] for r in measured)
    verdict = (
        f"missed by {len(missed)} of {len(small)}: {', '.join(missed)}."
        if missed
        else f"met by all {len(small)}."
    )
    lines = [
        f"Machine: {machine()}; {where}; each process new and writing no bytecode; at "
        f"n = {smallest} each row is the median over {PROCESSES_AT_TARGET} processes (of the "
        "first call, of the warm call, and of each process's first - warm). "
        f"Target: first call within {FIRST_CALL_MARGIN} s of the warm call at n = {smallest}; "
        f"import under {IMPORT_TARGET} s.",
        "",
        table(measured),
        "",
        f"Slowest `import rocsim`: {slow_import:.3f} s "
        f"({'met' if slow_import < IMPORT_TARGET else 'missed'}). "
        f"First-call target at n = {smallest}: " + verdict,
    ]
    if NOT_TIMED:
        lines += ["", f"Not timed here: {', '.join(NOT_TIMED)}."]
    return lines


def main() -> None:
    from _common import replace_in_readme, write

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--here", action="store_true", help="the running environment")
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    lines = report(*measured_rows(args.here, args.n))
    write("results_cold_start.md", ["# First calls in new processes", "", *lines])
    replace_in_readme("cold-start table", "bench_cold_start.py", lines)


if __name__ == "__main__":
    main()
