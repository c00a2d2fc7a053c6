"""The package's layers depend downward only, and importing the library has no side effects.

Layers, bottom up: the exact core (arrays in, result objects out); the simulation layer and
the study kinds; the practitioner API (:mod:`rocsim.analysis`) and the views; the CLI on top.
Every ``import`` statement is checked, those inside functions too.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import rocsim

PACKAGE = Path(rocsim.__file__).parent
STUDIES = Path(__import__("rocsim.studies").studies.__file__).parent

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


def module_graph(layer: str) -> dict[str, set[str]]:
    """The modules of a layer and the modules of the same layer each imports, with the
    imports inside functions (``from rocsim.core import vertical`` counts as the module)."""
    files = layer_files(layer)
    package = "rocsim.studies" if layer == "studies" else f"rocsim.{layer}"
    names = {f"{package}.{path.stem}": path for path in files if path.stem != "__init__"}
    graph = {}
    for name, path in names.items():
        found = set()
        for imported in imported_modules(path):
            for candidate in names:
                if imported == candidate or imported.startswith(candidate + "."):
                    found.add(candidate)
        graph[name] = found - {name}
    return graph


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
    assert find_cycle(module_graph(layer)) is None, " -> ".join(find_cycle(module_graph(layer)))
