"""Packaging contract, checked from outside the repository.

``python -m build`` makes one wheel that carries the configs and the study kinds under the
package's own name (``rocsim/configs``, ``rocsim/studies``), its compiled kernels, and puts no
top-level ``configs`` or ``studies`` into site-packages. The wheel is installed into a fresh
virtual environment (not the repository's environment), and its console scripts, run from
empty folders with no ``PYTHONPATH``, run a study, a ``-m`` sweep, ``rocsim-reproduce``,
``rocsim analyze`` and the user-extension example of ``docs/examples/custom_method`` (configs
and ``_target_`` modules of the working folder), leaving nothing in the working folder but the
results asked for.

Two installs, one cheap and one whole. In the default run the wheel is built straight from the
repository and installed with ``--no-deps`` into a venv that reads its dependencies from the
test environment's site-packages (a ``.pth`` line: their ``.pth`` files, the repository's
editable install among them, are not read); that the wheel *declares* every dependency its code
imports is checked from its metadata instead (:func:`test_the_wheel_declares_every_import`).
Under ``-m slow`` the whole path runs as a user's does: an sdist, the wheel built from it, and
``pip install`` of the wheel with its dependencies into an empty venv (about two minutes).
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "custom_method"
STUDY_EXAMPLE = ROOT / "docs" / "examples" / "custom_study"
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
    sdist: Path | None
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


#: Modules imported only where their optional dependency is (by a function of another module),
#: whose module-level imports count as deferred.
OPTIONAL_MODULES = ("_exit_plugin.py",)  # dask.distributed: rocsim.sim.cluster imports it
#: Import name -> the distributions that provide it, in the test environment.
PACKAGES = importlib.metadata.packages_distributions()


def normal(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def one_name(archive: zipfile.ZipFile, suffix: str) -> str:
    found = [n for n in archive.namelist() if n.endswith(suffix)]
    assert len(found) == 1, found
    return found[0]


def declared(metadata: str) -> tuple[set[str], set[str]]:
    """The distributions a wheel's METADATA requires: always, and in an extra only."""
    required, optional = set(), set()
    for line in metadata.splitlines():
        if line.startswith("Requires-Dist:"):
            spec = line.removeprefix("Requires-Dist:").strip()
            (optional if "extra ==" in spec else required).update(with_extras(spec))
    return required, optional


def with_extras(spec: str) -> set[str]:
    """The distributions a requirement brings: its own, and those of the extras it names
    (``dask[distributed]`` brings ``distributed``), read from the installed metadata."""
    name, extras = re.match(r"([A-Za-z0-9._-]+)(?:\[([^\]]*)\])?", spec).groups()
    brought = {normal(name)}
    for extra in (extras or "").split(","):
        if extra.strip():
            for requirement in importlib.metadata.requires(name) or ():
                if re.search(rf"extra\s*==\s*[\"']{re.escape(extra.strip())}[\"']", requirement):
                    brought.add(normal(re.match(r"[A-Za-z0-9._-]+", requirement).group()))
    return brought


def imported_modules(*folders: Path) -> set[tuple[str, bool]]:
    """``(top-level module, deferred)`` of every absolute import of the ``.py`` files under
    ``folders`` outside the standard library and the package itself; ``deferred`` when the
    import is not run on import of its module (in a function, or guarded by ``try``), and
    imports under ``if TYPE_CHECKING:`` left out (they never run)."""
    found = set()
    for folder in folders:
        for path in folder.rglob("*.py"):
            tree = ast.parse(path.read_text(), str(path))
            for node, deferred in _imports(tree.body, path.name in OPTIONAL_MODULES):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in ("rocsim", "studies"):
                        found.add((top, deferred))
    return found


def _imports(body: list[ast.stmt], deferred: bool):
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, deferred
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Try):
            yield from _imports(list(ast.walk(node))[1:], True)
        elif isinstance(node, ast.ClassDef | ast.If | ast.With | ast.For | ast.While):
            yield from _imports(node.body + getattr(node, "orelse", []), deferred)


def methods_compared(path: Path) -> set[str]:
    """The interval methods of a sweep's ``method_comparison.csv``."""
    assert path.is_file(), f"missing {path}"
    return set(pd.read_csv(path)["method"])


def build(args: list[str], base: Path) -> Path:
    """``python -m build`` with ``args`` into ``base/dist``; that folder."""
    dist = base / "dist"
    check(run([sys.executable, "-m", "build", *args, "--outdir", str(dist)], base, clean_env()))
    return dist


def one(dist: Path, pattern: str) -> Path:
    found = sorted(dist.glob(pattern))
    assert len(found) == 1, found
    return found[0]


def new_venv(base: Path) -> tuple[Path, dict[str, str]]:
    venv = base / "venv"
    check(run([sys.executable, "-m", "venv", str(venv)], base, clean_env()))
    return venv, clean_env(venv)


def venv_site_packages(venv: Path) -> Path:
    return one(venv / "lib", "python3*/site-packages")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel, built from the repository, installed without its dependencies into a fresh
    venv that finds them in the test environment's site-packages (module docstring)."""
    base = tmp_path_factory.mktemp("wheel")
    wheel = one(build(["--wheel", str(ROOT)], base), "rocsim-*.whl")
    venv, env = new_venv(base)
    borrowed = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    (venv_site_packages(venv) / "_rocsim_test_dependencies.pth").write_text(
        "".join(f"{path}\n" for path in sorted(borrowed))
    )
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--no-deps", "--no-index"]
    check(run([*pip, str(wheel)], base, env))
    return Installed(wheel=wheel, sdist=None, venv=venv, env=env)


@pytest.fixture(scope="module")
def installed_whole(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The sdist, the wheel built from it, and the wheel installed with its dependencies into
    an empty venv: a user's install (``-m slow``)."""
    base = tmp_path_factory.mktemp("wheel_whole")
    dist = build([str(ROOT)], base)  # the sdist, then the wheel from the sdist
    wheel, sdist = one(dist, "rocsim-*.whl"), one(dist, "rocsim-*.tar.gz")
    venv, env = new_venv(base)
    check(run([str(venv / "bin" / "python"), "-m", "pip", "install", str(wheel)], base, env))
    return Installed(wheel=wheel, sdist=sdist, venv=venv, env=env)


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


@pytest.mark.slow  # an sdist, the wheel from it, installed with its dependencies: about 2 min
def test_the_sdists_wheel_installs_with_its_dependencies_and_needs_no_compiler(
    installed_whole: Installed, tmp_path: Path
) -> None:
    with tarfile.open(installed_whole.sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    for name in SDIST_FILES:
        assert name in names, f"{name} not in {installed_whole.sdist.name}"
    for kernel in KERNELS:
        assert f"rocsim/core/{kernel}.pyx" in names, f"{kernel}.pyx not in the sdist"
    check_kernels(installed_whole)
    code = "import importlib.util as u; print(u.find_spec('numba'), u.find_spec('Cython'))"
    done = check(run([installed_whole.bin("python"), "-c", code], tmp_path, installed_whole.env))
    assert done.stdout.split() == ["None", "None"], "numba or Cython installed with the wheel"
    args = "study=fig4_3 replications=20 results_dir=out n_jobs=2".split()
    check(run([installed_whole.bin("rocsim"), *args], tmp_path, installed_whole.env))
    assert (tmp_path / "out" / "fig4_3" / "coverage.csv").stat().st_size > 0


def test_wheel_carries_configs_and_studies_under_rocsim(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    for name in WHEEL_FILES:
        assert name in names, f"{name} not in {installed.wheel.name}"
    strays = [n for n in names if n.startswith(("studies/", "configs/"))]
    assert not strays, f"top-level entries in the wheel: {strays}"


def check_kernels(installed: Installed) -> None:
    """Each kernel is an extension module of the wheel (compiled when it was built), with its
    source (the results' code hash reads it); the installed package runs them from its venv,
    compiled, with no just-in-time path (numba, pyximport). Cython itself is not checked here:
    scipy imports it when it is installed, as in the test environment the cheap install
    borrows; the whole install has neither."""
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert len(KERNELS) >= 4
    for kernel in KERNELS:
        assert any(
            n.startswith(f"rocsim/core/{kernel}.") and n.endswith((".so", ".pyd")) for n in names
        ), f"{kernel} not compiled into {installed.wheel.name}"
        assert f"rocsim/core/{kernel}.pyx" in names
    code = (
        "import sys, rocsim, rocsim.core._lancaster as k; "
        "rocsim.auc_ci([0, 1, 0, 1, 1], [0.1, 0.8, 0.4, 0.35, 0.9]); "
        "print(sorted({'numba', 'pyximport'} & set(sys.modules)), k.__file__)"
    )
    done = check(run([installed.bin("python"), "-c", code], installed.venv, installed.env))
    imported, where = done.stdout.rsplit(maxsplit=1)
    assert imported == "[]", f"the installed package imported {imported}"
    assert where.startswith(str(installed.venv)) and where.endswith((".so", ".pyd")), where


def test_wheel_carries_the_compiled_kernels_and_needs_no_compiler(installed: Installed) -> None:
    check_kernels(installed)


def test_the_wheel_declares_every_import(installed: Installed) -> None:
    """Every distribution the package's code imports (any line, function-level too) is one
    the wheel requires: among its required dependencies for a module-level import, in any
    extra for a deferred one (the cheap install borrows them, so this is where a missing one
    shows)."""
    meta = zipfile.ZipFile(installed.wheel)
    text = meta.read(one_name(meta, ".dist-info/METADATA")).decode()
    required, optional = declared(text)
    for module, deferred in imported_modules(ROOT / "rocsim", ROOT / "studies"):
        # a module not installed here (an optional peer) is taken for a distribution's name
        dists = {normal(d) for d in PACKAGES.get(module, (module,))}
        allowed = required | optional if deferred else required
        assert dists & allowed, (
            f"rocsim imports {module!r} ({'deferred' if deferred else 'at module level'}) "
            f"from {sorted(dists)}, which the wheel does not require"
        )


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


def test_the_custom_study_example_runs(installed: Installed, tmp_path: Path) -> None:
    """A study kind of the user's own (``docs/examples/custom_study``: a subclass of
    ``rocsim.sim.StudyKind`` and its config, in the working folder) runs from the wheel."""
    cwd = tmp_path / "custom_study"
    shutil.copytree(STUDY_EXAMPLE, cwd, ignore=shutil.ignore_patterns("__pycache__"))
    overrides = "study=cutpoint study.axes.n=[30] replications=20 results_dir=res n_jobs=1"
    check(run([installed.bin("rocsim"), *overrides.split()], cwd, installed.env))
    table = pd.read_csv(cwd / "res" / "cutpoint" / "coverage.csv")
    assert {"coverage", "mcse", "method"} <= set(table.columns) and len(table) > 0
