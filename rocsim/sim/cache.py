"""Finished conditions kept on disk, so that a rerun recomputes nothing it had finished.

A condition's file is named by what its outcomes depend on (the runner's outcome key), its
coverage mode, replication count, seed and the hash of the code that computed it::

    <outcome key>-<coverage>-r<replications>-s<seed>-<code tag>.npz

The file carries its own name and a SHA-256 of its arrays, both checked on every read: a
damaged file (a flipped byte, cut short, empty) or one under another file's name (two files
swapped) is never used; the run says so in one line and computes that condition again,
overwriting the file. Files are written whole or not at all (:func:`rocsim.sim.io.atomic_write`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from rocsim.sim.errors import note
from rocsim.sim.io import atomic_write

#: Members of a cache file besides the condition's arrays.
_NAME, _DIGEST = "_file_name", "_sha256"


def cache_path(
    cache_dir: Path | None, key: str, coverage: str, replications: int, seed: int, tag: str
) -> Path | None:
    """Where a condition with outcome key ``key`` is cached (``None`` without a folder)."""
    if cache_dir is None:
        return None
    return Path(cache_dir) / f"{key}-{coverage}-r{replications}-s{seed}-{tag or 'untagged'}.npz"


def with_replications(path: Path, replications: int) -> Path:
    """The file of the same condition, seed and code with ``replications`` replications."""
    key, coverage, _, rest = path.name.split("-", 3)
    return path.with_name(f"{key}-{coverage}-r{replications}-{rest}")


def save(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` to the cache file ``path`` with its name and checksum, atomically."""
    arrays = {name: np.asarray(value) for name, value in arrays.items()}
    stamped = {**arrays, _NAME: np.array(path.name), _DIGEST: np.array(_digest(arrays))}

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            np.savez(fh, **stamped)

    atomic_write(path, write)


def load(path: Path) -> dict[str, np.ndarray] | None:
    """The arrays of the cache file ``path`` if it is whole and is the file its name says;
    otherwise ``None``, said in one line on stderr (the caller computes the condition)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        name, digest = str(arrays.pop(_NAME)), str(arrays.pop(_DIGEST))
    except FileNotFoundError:
        return None
    except Exception as err:  # zipfile, numpy and OS errors of a damaged file
        note(f"{path} is damaged ({type(err).__name__}); computing its condition again")
        return None
    if name != path.name:
        note(f"{path} holds the outcomes of {name}; computing its condition again")
        return None
    if digest != _digest(arrays):
        note(f"{path} does not match its checksum; computing its condition again")
        return None
    return arrays


def cached_prefix(
    path: Path, listings: Mapping[Path, list[str]], replications: int
) -> dict[str, np.ndarray] | None:
    """The arrays of the most replications (fewer than ``replications``) of ``path``'s
    condition, seed and code cached in the folders of ``listings`` (folder -> the names in
    it: listed once per run, not once per condition); ``None`` if there are none usable."""
    key, coverage, _, rest = path.name.split("-", 3)
    head, tail = f"{key}-{coverage}-r", f"-{rest}"
    found = []
    for folder, names in listings.items():
        for name in names:
            count = name[len(head) : -len(tail)] if name.endswith(tail) else ""
            if name.startswith(head) and count.isdigit() and 0 < int(count) < replications:
                found.append((int(count), folder / name))
    for _, candidate in sorted(found, reverse=True):  # the longest usable one
        arrays = load(candidate)
        if arrays is not None:
            return arrays
    return None


def listings(folders: Iterable[Path]) -> dict[Path, list[str]]:
    """The names in each existing folder of ``folders``."""
    return {folder: os.listdir(folder) for folder in folders if folder.is_dir()}


def _digest(arrays: Mapping[str, np.ndarray]) -> str:
    """SHA-256 of the arrays: names, types, shapes and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        value = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{value.dtype.str}|{value.shape}|".encode())
        digest.update(value.tobytes())
    return digest.hexdigest()
