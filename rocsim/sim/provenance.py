"""What a result was computed with: the code (its hash), the checkout, the BLAS threads.

:func:`code_hash` digests the package version and the source of every module that computes
results: the exact core, the simulation layer (score models, conditions, runner, pipeline)
and the study kinds. It names the cache files, so a run after any edit of those modules, even
of a comment, recomputes; an unchanged tree reuses everything. The modules named by a user's
``_target_`` (an interval method, a score model) are digested too (:func:`extension_hash`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

#: Packages whose modules compute results.
COMPUTING_PACKAGES = ("rocsim.core", "rocsim.sim", "rocsim.studies")
#: Modules of those packages that only read results (checking the thesis's claims on a
#: finished table): editing them must not recompute the simulations.
READERS = frozenset({"sim/claims.py"})


def source_hash(folders: Iterable[Path], salt: str = "", skip: Iterable[str] = ()) -> str:
    """Digest of ``salt`` and of every source file directly in ``folders`` (names and
    bytes, in a fixed order): the Python modules and the compiled kernels' Cython sources
    (``*.pyx``, which the wheel carries beside the compiled modules), except those named
    ``<folder name>/<file>`` in ``skip``."""
    digest = hashlib.sha256(salt.encode())
    skip = set(skip)
    for folder in folders:
        sources = [*Path(folder).glob("*.py"), *Path(folder).glob("*.pyx")]
        for path in sorted(sources):
            if f"{Path(folder).name}/{path.name}" in skip:
                continue
            digest.update(f"\0{Path(folder).name}/{path.name}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@functools.cache
def code_hash() -> str:
    """Digest of rocsim's version and of the source of its computing packages."""
    from rocsim import __version__

    folders = [Path(importlib.import_module(p).__file__).parent for p in COMPUTING_PACKAGES]
    return source_hash(folders, __version__, READERS)


@functools.cache
def views_hash() -> str:
    """Digest of rocsim's version, matplotlib's and the source of the views (what draws a
    study's figure from its table): a figure is reused only where all three are unchanged."""
    from importlib import metadata

    from rocsim import __version__

    try:
        drawing = metadata.version("matplotlib")
    except metadata.PackageNotFoundError:
        drawing = "no matplotlib"
    views = Path(importlib.import_module("rocsim.views").__file__).parent
    return source_hash([views], f"{__version__} matplotlib {drawing}")


def extension_hash(settings: Iterable[Mapping[str, Any]], kind: Any = None) -> str:
    """Digest of the source files of the user's ``_target_`` modules named in ``settings``
    (conditions' settings) and of the user's study ``kind`` (its config entry); empty when
    they name none."""
    from rocsim.sim.extensions import locate

    targets = {str(kind["_target_"])} if isinstance(kind, Mapping) else set()
    for s in settings:
        for spec in (s.get("method_target"), s.get("model")):
            if isinstance(spec, Mapping) and spec.get("_target_"):
                targets.add(str(spec["_target_"]))
    if not targets:
        return ""
    digest = hashlib.sha256()
    for target in sorted(targets):
        source = inspect.getsourcefile(inspect.unwrap(locate(target, "_target_")))
        digest.update(target.encode() + Path(source).read_bytes() if source else target.encode())
    return digest.hexdigest()[:16]


def checkout() -> Path | None:
    """The source checkout rocsim runs from (editable install), else ``None``: an installed
    wheel has no commit, and the folder around site-packages may be another repository."""
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "studies").is_dir():
        return root
    return None


def git_state() -> dict[str, Any]:
    """``{"git_commit": ..., "git_dirty": ...}`` of the checkout (``None`` without one): dirty
    when the tree has changes git would commit or untracked files it does not ignore."""
    root = checkout()
    commit = _git(root, "rev-parse", "HEAD") if root else None
    status = _git(root, "status", "--porcelain") if commit else None
    return {"git_commit": commit, "git_dirty": None if status is None else bool(status)}


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def blas_threads() -> list[dict[str, Any]]:
    """The BLAS and OpenMP libraries loaded, with their default thread counts (runs pin them
    to one thread, :func:`rocsim.sim.runner.run_block`)."""
    from threadpoolctl import threadpool_info

    keys = ("user_api", "internal_api", "version", "num_threads")
    return [{k: info.get(k) for k in keys} for info in threadpool_info()]
