"""The package's layers depend downward only, and importing the library has no side effects.

Layers, bottom up: the exact core (arrays in, result objects out); the simulation layer and
the study kinds; the practitioner API (:mod:`rocsim.analysis`) and the views; the CLI on top.
Every ``import`` statement is checked, those inside functions too.
"""

from __future__ import annotations

import ast
import functools
import importlib.machinery
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import rocsim
from rocsim.core._lazy import lazy_names

PACKAGE = Path(rocsim.__file__).parent
# found, not imported: the study kinds' folder is the repository's studies/
STUDIES = Path(importlib.util.find_spec("rocsim.studies").origin).parent

#: Layer -> rocsim modules (prefixes) and third-party packages it must never import.
FORBIDDEN = {
    "core": (
        ("rocsim.sim", "rocsim.studies", "rocsim.views", "rocsim.cli", "rocsim.analysis"),
        ("hydra", "omegaconf", "matplotlib", "joblib", "tqdm", "pyarrow", "distributed"),
    ),
    "sim": (("rocsim.views", "rocsim.cli", "rocsim.analysis"), ("matplotlib",)),
    "studies": (("rocsim.views", "rocsim.cli", "rocsim.analysis"), ("matplotlib", "hydra")),
    "views": (
        (
            "rocsim.cli",
            "rocsim.analysis",
            "rocsim.studies",
            "rocsim.sim.runner",
            "rocsim.sim.pipeline",
        ),
        ("joblib",),
    ),
    "analysis": (("rocsim.sim", "rocsim.studies", "rocsim.cli"), ("hydra", "joblib")),
}


def layer_files(layer: str) -> list[Path]:
    if layer == "studies":
        return sorted(STUDIES.glob("*.py"))
    return sorted((PACKAGE / layer).glob("*.py"))


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


@pytest.mark.parametrize("layer", list(FORBIDDEN))
def test_layers_import_downward_only(layer):
    rocsim_modules, packages = FORBIDDEN[layer]
    files = layer_files(layer)
    assert files, f"no modules found for layer {layer}"
    wrong = [
        f"{path.name} imports {name}"
        for path in files
        for name in sorted(imported_modules(path))
        if any(_under(name, p) for p in (*rocsim_modules, *packages))
    ]
    assert not wrong, wrong


def test_the_package_is_laid_out_by_layer():
    flat = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert flat == ["__init__.py"], flat
    for layer in ("core", "sim", "analysis", "views", "cli"):
        assert (PACKAGE / layer / "__init__.py").is_file()


def test_no_library_module_selects_a_matplotlib_backend():
    offenders = [
        str(p.relative_to(PACKAGE.parent))
        for p in PACKAGE.rglob("*.py")
        if "cli" not in p.parts and "matplotlib.use(" in p.read_text()
    ]
    assert not offenders


def run_python(code: str, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=cwd
    )
    return done.stdout.strip()


def test_import_rocsim_loads_neither_hydra_joblib_nor_matplotlib():
    out = run_python(
        "import rocsim, sys; "
        "print('hydra' in sys.modules, 'joblib' in sys.modules, "
        "'matplotlib' in sys.modules)"
    )
    assert out == "False False False"


def test_plotting_keeps_the_backend_the_user_chose():
    out = run_python(
        "import matplotlib; matplotlib.use('svg'); import numpy as np, rocsim; "
        "rng = np.random.default_rng(0); y = rng.integers(0, 2, 200); "
        "s = rng.normal(y, 1.0); rocsim.roc_ci(y, s).plot(); "
        "rocsim.cost_curve_ci(y, s).plot(); "
        "print(matplotlib.get_backend())"
    )
    assert out == "svg"


def test_version_comes_from_the_package_metadata():
    from importlib import metadata

    assert rocsim.__version__ == metadata.version("rocsim")
    done = subprocess.run(
        [sys.executable, "-c", "from rocsim.cli import main; main()", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == f"rocsim {rocsim.__version__}"


#: What a module's file ends with: Python source, or a compiled module (its Cython source or
#: the built extension), a leaf of the import graph, without Python imports to read.
MODULE_SUFFIXES = (".py", ".pyx", *importlib.machinery.EXTENSION_SUFFIXES)


def module_files() -> dict[str, Path]:
    """Every module of rocsim by name: ``rocsim/**``, and the study kinds of the repository's
    ``studies/`` folder (:mod:`rocsim.studies`)."""
    files = {}
    for root, package in ((PACKAGE, "rocsim"), (STUDIES, "rocsim.studies")):
        for path in sorted(root.rglob("*")):
            suffix = next((s for s in MODULE_SUFFIXES if path.name.endswith(s)), None)
            if suffix is not None:
                parts = (*path.relative_to(root).parent.parts, path.name.removesuffix(suffix))
                files[".".join((package, *parts)).removesuffix(".__init__")] = path
    return files


def type_checking_nodes(tree: ast.Module) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:`` (not
    their ``else``): read by type checkers, never run."""
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        and "TYPE_CHECKING" in (getattr(node.test, "id", None), getattr(node.test, "attr", None))
        for statement in node.body
        for inner in ast.walk(statement)
    }


def absolute_module(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` names; a relative one (``from .x import y``, level 1:
    ``package`` itself, each further dot one package up) resolved against ``package``."""
    if not node.level:
        return node.module
    parts = package.split(".")
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def module_imports(name: str, path: Path, files: dict[str, Path]) -> set[str]:
    """The rocsim modules the module ``name`` imports when it runs: every ``import``
    statement, those inside functions too, relative ones resolved, ``from P import Y`` counting
    as the submodule ``P.Y`` where ``Y`` is one. A package's lazy table counts as its imports:
    its ``__getattr__`` imports them when a name is asked for."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    type_only = type_checking_nodes(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute_module(node, package)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in files else base)
    if any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body):
        found.update(lazy_names(str(path)).values())
    return {module for module in found if module in files} - {name}


@functools.cache
def package_graph() -> dict[str, frozenset[str]]:
    """Every rocsim module and the rocsim modules it imports (:func:`module_imports`).

    How packages count: a module that imports a package by name (``import rocsim``, ``from
    rocsim.core import vertical_ci``) depends on the package, and the package on every module
    of its lazy table, which its ``__getattr__`` loads at the first access. A submodule that
    takes a name from its own package instead of the defining module therefore closes a
    cycle: import from the defining module. Not edges: a package run as the parent of a
    submodule imported (``import rocsim.sim.runner`` runs ``rocsim/sim/__init__.py`` first; the
    lazy tables load nothing then), and the subpackages ``rocsim.__getattr__`` hands out by a
    computed name (``rocsim.core``)."""
    files = module_files()
    return {
        name: frozenset(module_imports(name, path, files) if path.suffix == ".py" else ())
        for name, path in files.items()
    }


def layer_graph(layer: str) -> dict[str, set[str]]:
    """:func:`package_graph` between the modules of one layer."""
    inside = {name for name in package_graph() if _under(name, f"rocsim.{layer}")}
    return {name: set(package_graph()[name] & inside) for name in inside}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph as a path of modules, or ``None``."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


@pytest.mark.parametrize("layer", ["core", "sim", "analysis", "views", "cli", "studies"])
def test_no_import_cycle_inside_a_layer(layer):
    """Modules of one layer import each other in one direction only: no cycle, counting the
    imports inside functions (a function-level import used to close one in the core, the
    method probes importing the laws they probe with)."""
    cycle = find_cycle(layer_graph(layer))
    assert cycle is None, " -> ".join(cycle)


def test_no_import_cycle_in_the_package():
    """No cycle among all of rocsim's modules and the study kinds, every import counted: those
    inside functions (deferred to keep start-up cheap, not to hide a cycle), relative ones, and
    the packages' lazy tables (:func:`package_graph`). The study kinds import the runner; the
    runner's workers used to import the kinds back (``rocsim.sim.workers`` ->
    ``rocsim.studies``): the caller now names the modules a worker preloads."""
    graph = package_graph()
    assert "rocsim.studies.bands" in graph and "rocsim.core._band" in graph  # both roots read
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)
