"""Packaging contract, checked from outside the repository.

``python -m build`` makes an sdist (with the repository's ``configs/`` and ``studies/``) and,
from it, one wheel that carries the configs and the study kinds under the package's own name
(``rocsim/configs``, ``rocsim/studies``) and puts no top-level ``configs`` or ``studies`` into
site-packages. The wheel is installed into a fresh virtual environment (not the repository's
environment), and its console scripts, run from empty folders with no ``PYTHONPATH``, run a
study, a ``-m`` sweep, ``rocsim-reproduce``, ``rocsim analyze`` and the user-extension example of
``docs/examples/custom_method`` (configs and ``_target_`` modules of the working folder), leaving
nothing in the working folder but the results asked for.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "custom_method"
TIMEOUT = 900

#: Files of the wheel that the installed commands need.
WHEEL_FILES = (
    "rocsim/configs/config.yaml",
    "rocsim/configs/study/fig4_3.yaml",
    "rocsim/configs/hydra/launcher/slurm.yaml",
    "rocsim/studies/__init__.py",
    "rocsim/studies/auc.py",
    "rocsim/configs/study/auc_methods.yaml",
)
#: Files of the sdist, relative to its top folder ``rocsim-<version>/``.
SDIST_FILES = ("configs/config.yaml", "studies/__init__.py", "setup.py")
#: The compiled kernels (``rocsim/core/_*.pyx``), compiled when the wheel is built.
KERNELS = sorted(path.stem for path in (ROOT / "rocsim" / "core").glob("_*.pyx"))


@dataclass(frozen=True)
class Installed:
    """The built distributions and the virtual environment the wheel is installed in."""

    wheel: Path
    sdist: Path
    venv: Path
    env: dict[str, str]

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)


def clean_env(venv: Path | None = None) -> dict[str, str]:
    """This process's environment without ``PYTHONPATH``, ``PYTHONHOME`` and ``MPLBACKEND``;
    with ``venv``, its ``bin`` folder first on ``PATH``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "MPLBACKEND", "VIRTUAL_ENV")
    }
    if venv is not None:
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
    return env


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)


def check(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """``done``, asserting it succeeded (showing the command and its stderr otherwise)."""
    assert done.returncode == 0, (
        f"{' '.join(done.args)} exited {done.returncode}\n"
        f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-6000:]}"
    )
    return done


def methods_compared(path: Path) -> set[str]:
    """The interval methods of a sweep's ``method_comparison.csv``."""
    assert path.is_file(), f"missing {path}"
    return set(pd.read_csv(path)["method"])


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Build the sdist and, from it, the wheel; install the wheel into a fresh venv."""
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    check(
        run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], base, clean_env())
    )
    wheels = sorted(dist.glob("rocsim-*.whl"))
    sdists = sorted(dist.glob("rocsim-*.tar.gz"))
    assert len(wheels) == 1, wheels
    assert len(sdists) == 1, sdists
    venv = base / "venv"
    check(run([sys.executable, "-m", "venv", str(venv)], base, clean_env()))
    env = clean_env(venv)
    check(run([str(venv / "bin" / "python"), "-m", "pip", "install", str(wheels[0])], base, env))
    return Installed(wheel=wheels[0], sdist=sdists[0], venv=venv, env=env)


@pytest.fixture(scope="module")
def workdir(installed: Installed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty folder in which the installed commands ran (results checked by the tests)."""
    cwd = tmp_path_factory.mktemp("work")
    rng = np.random.default_rng(20090914)
    y = rng.integers(0, 2, size=300)
    pd.DataFrame({"y": y, "s": y + rng.normal(size=300)}).to_csv(cwd / "scores.csv", index=False)
    commands = [
        ("rocsim", "study=fig5_1 replications=20 results_dir=out n_jobs=2"),
        (
            "rocsim",
            "-m study=fig4_3 interval=wald,score replications=20 results_dir=sweep n_jobs=2",
        ),
        ("rocsim-reproduce", "--only fig4_3 --replications 20 --results-dir rep --n-jobs 2"),
        ("rocsim", "analyze scores.csv --label y --score s --out ana"),
    ]
    for script, args in commands:
        check(run([installed.bin(script), *args.split()], cwd, installed.env))
    return cwd


@pytest.mark.slow  # builds an sdist, then a wheel from it: about 70 s
def test_sdist_has_the_repository_folders(installed: Installed) -> None:
    with tarfile.open(installed.sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    for name in SDIST_FILES:
        assert name in names, f"{name} not in {installed.sdist.name}"
    for kernel in KERNELS:
        assert f"rocsim/core/{kernel}.pyx" in names, f"{kernel}.pyx not in the sdist"


def test_wheel_carries_configs_and_studies_under_rocsim(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    for name in WHEEL_FILES:
        assert name in names, f"{name} not in {installed.wheel.name}"


def test_wheel_carries_the_compiled_kernels_and_needs_no_compiler(installed: Installed) -> None:
    """Each kernel is an extension module of the wheel (compiled when it was built, from the
    sdist); the installed package imports them with no numba and no Cython in its venv."""
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert len(KERNELS) >= 4
    for kernel in KERNELS:
        assert any(
            n.startswith(f"rocsim/core/{kernel}.") and n.endswith((".so", ".pyd")) for n in names
        ), f"{kernel} not compiled into {installed.wheel.name}"
        # its source too: the code hash of the results' cache reads it
        assert f"rocsim/core/{kernel}.pyx" in names
    code = (
        "import importlib.util as u, rocsim.core._lancaster, rocsim.core._counting; "
        "print(u.find_spec('numba'), u.find_spec('Cython'), rocsim.core._lancaster.__file__)"
    )
    done = check(run([installed.bin("python"), "-c", code], installed.venv, installed.env))
    numba, cython, where = done.stdout.split()
    assert numba == cython == "None"
    assert where.startswith(str(installed.venv))
    strays = [n for n in names if n.startswith(("studies/", "configs/"))]
    assert not strays, f"top-level entries in the wheel: {strays}"


def test_version_matches_the_metadata(installed: Installed, tmp_path: Path) -> None:
    python = installed.bin("python")
    script = "import importlib.metadata as m; print(m.version('rocsim'))"
    version = check(run([python, "-c", script], tmp_path, installed.env)).stdout.strip()
    done = check(run([installed.bin("rocsim"), "--version"], tmp_path, installed.env))
    assert done.stdout.strip() == f"rocsim {version}"


def test_only_the_rocsim_package_is_importable(installed: Installed, tmp_path: Path) -> None:
    python, env = installed.bin("python"), installed.env
    done = run([python, "-c", "import studies"], tmp_path, env)
    assert done.returncode != 0, "a top-level `studies` module is installed"
    script = "import rocsim, rocsim.studies, rocsim.configs; print(rocsim.__file__)"
    where = Path(check(run([python, "-c", script], tmp_path, env)).stdout.strip())
    assert where.is_relative_to(installed.venv), f"rocsim imported from {where}"


def test_a_study_writes_its_results(workdir: Path) -> None:
    for name in ("coverage.csv", "coverage.png", "meta.json"):
        assert (workdir / "out" / "fig5_1" / name).stat().st_size > 0, name


def test_a_sweep_compares_the_methods(workdir: Path) -> None:
    path = workdir / "sweep" / "fig4_3" / "method_comparison.csv"
    assert {"wald", "score"} <= methods_compared(path)


def test_reproduce_writes_the_report(workdir: Path) -> None:
    for name in ("index.html", "index.md"):
        assert (workdir / "rep" / name).stat().st_size > 0, name


def test_analyze_draws_figures(workdir: Path) -> None:
    written = sorted(p.name for p in (workdir / "ana").iterdir())
    assert any(name.endswith(".png") for name in written), written


def test_the_working_folder_holds_only_the_results(workdir: Path) -> None:
    # no cli.log, .hydra, outputs/, multirun/ or multirun.yaml
    assert {p.name for p in workdir.iterdir()} == {"out", "sweep", "rep", "ana", "scores.csv"}


def test_the_custom_method_example_runs(installed: Installed, tmp_path: Path) -> None:
    cwd = tmp_path / "custom_method"
    shutil.copytree(EXAMPLE, cwd, ignore=shutil.ignore_patterns("__pycache__"))
    overrides = "-m study=fig4_3 interval=wald,mine replications=50 results_dir=res n_jobs=2"
    args = [installed.bin("rocsim"), *overrides.split()]
    check(run(args, cwd, installed.env))
    assert {"wald", "mine"} <= methods_compared(cwd / "res" / "fig4_3" / "method_comparison.csv")
