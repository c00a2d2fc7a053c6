"""Writing results safely: every file appears whole or not at all, and a folder's outputs
are one run's.

:func:`atomic_write` writes to a ``.<name>*.part`` file beside the target and renames it into
place, so a reader (or a resumed run) never sees half a file. A process killed mid-write leaves
its ``.part`` file behind; :func:`remove_stale_parts` deletes those once a later run succeeds.

A study's outputs are a set (:func:`begin_set`, :func:`seal_set`): the previous set is removed
before the first file of the new one is written, and ``manifest.json``, listing every file
with its SHA-256, is written last. A folder without a manifest holds an interrupted run's
files (all of that one run); readers check the manifest (:func:`check_set`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

PART_SUFFIX = ".part"
#: Written last into a folder of outputs: the files of the set and their SHA-256.
MANIFEST = "manifest.json"


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


def begin_set(directory: Path, names: Iterable[str] = ()) -> None:
    """Start writing a new set of outputs in ``directory``: remove the manifest (the folder
    is incomplete from now on), then the files of the previous set and any of ``names``
    (the new set's files, left by an interrupted run), so no file of another run stays."""
    directory = Path(directory)
    manifest = directory / MANIFEST
    old = set(_manifest_files(manifest)) | set(names)
    manifest.unlink(missing_ok=True)
    for name in old:
        (directory / name).unlink(missing_ok=True)


def seal_set(directory: Path, names: Iterable[str]) -> None:
    """Mark the files ``names`` of ``directory`` as one complete set: write the manifest."""
    directory = Path(directory)
    files = {name: _sha256(directory / name) for name in sorted(names)}
    text = json.dumps({"files": files}, indent=2) + "\n"
    atomic_write(directory / MANIFEST, lambda p: p.write_text(text))


def update_set(directory: Path, name: str, write: Callable[[Path], None]) -> None:
    """Rewrite (or add) one file of a complete set and seal the set again."""
    directory = Path(directory)
    names = set(check_set(directory)) | {name}
    (directory / MANIFEST).unlink()
    atomic_write(directory / name, write)
    seal_set(directory, names)


def check_set(directory: Path) -> list[str]:
    """The files of the complete set in ``directory``; ``ValueError`` if the folder holds no
    complete set (no manifest: an interrupted run) or a file changed since it was sealed."""
    directory = Path(directory)
    manifest = directory / MANIFEST
    if not manifest.exists():
        raise ValueError(
            f"{directory} holds no complete set of outputs (no {MANIFEST}: its run was "
            "interrupted); rerun the same command"
        )
    files = _manifest_files(manifest)
    for name, digest in files.items():
        path = directory / name
        if not path.exists() or _sha256(path) != digest:
            raise ValueError(f"{path} is not the file its run wrote; rerun the same command")
    return list(files)


def _manifest_files(manifest: Path) -> dict[str, str]:
    try:
        return dict(json.loads(manifest.read_text())["files"])
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return {}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_writable_folder(folder: Path, name: str) -> None:
    """Raise a one-line ``ValueError`` naming ``name`` unless ``folder`` is, or can be created
    as, a folder this process can write in; nothing is left behind by the check."""
    folder = Path(folder)
    existing = next(p for p in (folder, *folder.absolute().parents) if p.exists())
    if not existing.is_dir():
        what = "is" if existing == folder else f"is under {existing}, which is"
        raise ValueError(f"{name} {folder} {what} a file, not a folder")
    try:
        os.rmdir(tempfile.mkdtemp(dir=existing, prefix=".rocsim-write-check-"))
    except OSError as err:
        raise ValueError(f"{name} {folder} is not writable: {err.strerror}") from None


@dataclass(frozen=True)
class PackedOutcomes:
    """Per-replication booleans of one condition, shape (R, g), kept one bit each
    (:func:`numpy.packbits` along the grid): what grows with the replication count R once a
    condition is done, 8 times less than booleans (e.g. 12.4 MB at R = 10^6 and g = 99)."""

    bits: np.ndarray  #: (R, ceil(g / 8)) uint8
    grid: int  #: g

    @classmethod
    def pack(cls, outcomes: np.ndarray) -> PackedOutcomes:
        outcomes = np.asarray(outcomes, dtype=bool)
        return cls(np.packbits(outcomes, axis=1), outcomes.shape[1])

    @property
    def replications(self) -> int:
        return len(self.bits)

    def unpack(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Replications ``start .. stop - 1`` as booleans (all by default)."""
        return np.unpackbits(self.bits[start:stop], axis=1, count=self.grid).astype(bool)

    def weighted(self, weights: np.ndarray) -> np.ndarray:
        """``outcomes @ weights``, shape (R,), unpacked a slice of replications at a time."""
        weights = np.asarray(weights, dtype=float)
        out = np.empty(self.replications)
        for start in range(0, self.replications, _ROWS_PER_SLICE):
            stop = start + _ROWS_PER_SLICE
            out[start:stop] = self.unpack(start, stop).astype(float) @ weights
        return out


#: Replications unpacked at once by :meth:`PackedOutcomes.weighted` (a few MB of floats).
_ROWS_PER_SLICE = 4096


def write_outcomes(
    path: Path, cover: Mapping[str, PackedOutcomes], data_keys: dict[str, str] | None = None
) -> None:
    """Write per-condition outcome matrices (``label -> (R, g)`` booleans, packed) to
    ``path``, an ``.npz`` readable by :func:`read_outcomes`, with each condition's data key
    (conditions with equal keys saw the same data sets); atomically."""
    arrays = {f"condition_{i}": v.bits for i, v in enumerate(cover.values())}
    labels = np.array(list(cover), dtype=str)
    keys = np.array([(data_keys or {}).get(label, "") for label in cover], dtype=str)
    grids = np.array([v.grid for v in cover.values()], dtype=np.int64)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, labels=labels, data_keys=keys, grid_sizes=grids, **arrays)

    atomic_write(path, write)


class OutcomeFile(Mapping[str, np.ndarray]):
    """The outcome matrices of :func:`write_outcomes` by condition label, each read (and
    unpacked to booleans) when asked for: reading the file holds no condition in memory."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        with np.load(self.path) as data:
            self._labels = [str(label) for label in data["labels"]]
            # files of earlier versions hold boolean matrices, not packed ones
            self._grids = data["grid_sizes"].tolist() if "grid_sizes" in data else None

    def packed(self, label: str) -> PackedOutcomes:
        i = self._labels.index(label)
        with np.load(self.path) as data:
            values = data[f"condition_{i}"]
        if self._grids is None:
            return PackedOutcomes.pack(values)
        return PackedOutcomes(values, int(self._grids[i]))

    def __getitem__(self, label: str) -> np.ndarray:
        if label not in self._labels:
            raise KeyError(label)
        return self.packed(label).unpack()

    def __iter__(self) -> Iterator[str]:
        return iter(self._labels)

    def __len__(self) -> int:
        return len(self._labels)


def read_outcomes(path: Path) -> OutcomeFile:
    """The outcome matrices of :func:`write_outcomes`, by condition label (read lazily)."""
    return OutcomeFile(path)


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
