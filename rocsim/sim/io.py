"""Writing results safely: every file appears whole or not at all.

:func:`atomic_write` writes to a ``.<name>*.part`` file beside the target and renames it into
place, so a reader (or a resumed run) never sees half a file. A process killed mid-write leaves
its ``.part`` file behind; :func:`remove_stale_parts` deletes those once a later run succeeds.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

PART_SUFFIX = ".part"


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` and move ``tmp`` onto ``path``: readers never see a partial file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}", suffix=PART_SUFFIX)
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_outcomes(
    path: Path, cover: dict[str, np.ndarray], data_keys: dict[str, str] | None = None
) -> None:
    """Write per-condition outcome matrices (``label -> (R, g)`` booleans) to ``path``, an
    ``.npz`` readable by :func:`read_outcomes`, with each condition's data key (conditions
    with equal keys saw the same data sets); atomically."""
    arrays = {f"condition_{i}": np.asarray(v) for i, v in enumerate(cover.values())}
    labels = np.array(list(cover), dtype=str)
    keys = np.array([(data_keys or {}).get(label, "") for label in cover], dtype=str)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, labels=labels, data_keys=keys, **arrays)

    atomic_write(path, write)


def read_outcomes(path: Path) -> dict[str, np.ndarray]:
    """The outcome matrices of :func:`write_outcomes`, by condition label."""
    with np.load(path) as data:
        return {str(label): data[f"condition_{i}"] for i, label in enumerate(data["labels"])}


def read_data_keys(path: Path) -> dict[str, str]:
    """The data keys :func:`write_outcomes` stored, by condition label (empty if none)."""
    with np.load(path) as data:
        if "data_keys" not in data:
            return {}
        return {str(k): str(v) for k, v in zip(data["labels"], data["data_keys"]) if v}


def remove_stale_parts(directory: Path, older_than: float) -> list[Path]:
    """Delete the ``.part`` files of :func:`atomic_write` in ``directory`` (not below it) last
    modified before ``older_than`` (a ``time.time()``): leftovers of a killed run. Files of a
    writer that started after ``older_than`` are left alone. Returns the files removed."""
    removed = []
    directory = Path(directory)
    if not directory.is_dir():
        return removed
    for part in directory.glob(f".*{PART_SUFFIX}"):
        try:
            if part.stat().st_mtime < older_than:
                part.unlink()
                removed.append(part)
        except FileNotFoundError:  # its writer finished or cleaned up meanwhile
            continue
    return removed


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
