"""Writing results safely: every file appears whole or not at all, and a folder's outputs
are one run's.

:func:`atomic_write` writes to a ``.<name>*.part`` file beside the target and renames it into
place, so a reader (or a resumed run) never sees half a file. A process killed mid-write leaves
its ``.part`` file behind; :func:`remove_stale_parts` deletes those once a later run succeeds.

A study's outputs are a set (:func:`begin_set`, :func:`seal_set`): the previous set is removed
before the first file of the new one is written, and ``manifest.json``, listing every file
with its SHA-256, is written last. A folder without a manifest holds an interrupted run's
files (all of that one run: the files a set is about to write are listed first, in
``.pending.json``, and the next set removes them); readers check the manifest
(:func:`check_set`).

A folder of outputs is written by one process at a time (:func:`folder_lock`); a second run
into it is refused in one line naming the process that holds it. A file that cannot be
written (a full disk, a quota, a read-only folder) is one line too (:class:`WriteError`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rocsim.sim.errors import RunError

PART_SUFFIX = ".part"
#: Written last into a folder of outputs: the files of the set and their SHA-256.
MANIFEST = "manifest.json"
#: Written first: the files a set is about to write (removed by the next set if it was cut).
PENDING = ".pending.json"
#: The lock file of a folder of outputs, holding the pid and command of its writer.
LOCK = ".lock"
#: Folders where outputs are written before they are moved into place.
STAGING_PREFIX = ".staging-"


class WriteError(RunError):
    """A file of the outputs could not be written; the message names its folder and why."""


class FolderInUse(RunError):
    """Another process is writing into the same folder of outputs."""


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` and move ``tmp`` onto ``path``: readers never see a partial file.
    An ``OSError`` while writing (a full disk, a read-only folder) leaves nothing behind and
    is raised as a one-line :class:`WriteError` naming the folder."""
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}", suffix=PART_SUFFIX)
        os.close(fd)
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except Exception as err:
        cause = _os_error(err)
        if cause is None:
            raise
        raise WriteError(_cannot_write(path.parent, cause)) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _os_error(err: BaseException | None) -> OSError | None:
    """The ``OSError`` behind ``err``, itself or one it was raised from or while handling: a
    writer that fails on a full disk may raise something else while cleaning up (matplotlib's
    PDF writer: a ``zlib.error``)."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, OSError):
            return err
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return None


def _cannot_write(folder: Path, err: OSError) -> str:
    reason = err.strerror or (str(err).strip().splitlines() or [type(err).__name__])[0]
    hint = ""
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        hint = "; free some space and rerun the same command"
    if folder.name.startswith(STAGING_PREFIX):  # the user knows the folder it is in
        folder = folder.parent
    return f"cannot write in {folder}: {reason}{hint}"


def begin_set(directory: Path, names: Iterable[str] = ()) -> None:
    """Start writing a new set of outputs in ``directory``: remove the manifest (the folder
    is incomplete from now on), list ``names`` (every file the new set may write) as pending,
    then remove the files of the previous set, those an interrupted set had listed as pending,
    and any of ``names``, so no file of another run stays."""
    directory = Path(directory)
    manifest, pending = directory / MANIFEST, directory / PENDING
    names = sorted(set(names))
    old = set(_manifest_files(manifest)) | set(_pending_files(pending)) | set(names)
    manifest.unlink(missing_ok=True)
    if names:
        text = json.dumps({"files": names}, indent=2) + "\n"
        atomic_write(pending, lambda p: p.write_text(text))
    for name in old:
        (directory / name).unlink(missing_ok=True)


def seal_set(directory: Path, names: Iterable[str]) -> None:
    """Mark the files ``names`` of ``directory`` as one complete set: write the manifest."""
    directory = Path(directory)
    files = {name: _sha256(directory / name) for name in sorted(names)}
    text = json.dumps({"files": files}, indent=2) + "\n"
    atomic_write(directory / MANIFEST, lambda p: p.write_text(text))
    (directory / PENDING).unlink(missing_ok=True)


def changed_files(directory: Path) -> list[str]:
    """The files of the complete set in ``directory`` that are missing or not what its run
    wrote (edited by hand, say); empty if the folder holds no complete set."""
    directory = Path(directory)
    files = _manifest_files(directory / MANIFEST)
    return [name for name, digest in files.items() if not _same(directory / name, digest)]


def sealed_files(directory: Path) -> list[str]:
    """The files the complete set in ``directory`` lists (none without one), unchecked: with
    :func:`changed_files` empty, they are what its run wrote."""
    return list(_manifest_files(Path(directory) / MANIFEST))


def _same(path: Path, digest: str) -> bool:
    return path.exists() and _sha256(path) == digest


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
        if not _same(directory / name, digest):
            raise ValueError(
                f"{directory / name} is not the file its run wrote; rerun the same command"
            )
    return list(files)


def _manifest_files(manifest: Path) -> dict[str, str]:
    try:
        return dict(json.loads(manifest.read_text())["files"])
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return {}


def _pending_files(pending: Path) -> list[str]:
    try:
        return [str(name) for name in json.loads(pending.read_text())["files"]]
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return []


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
    condition is done, 8 times less than booleans (e.g. 12.4 MiB at R = 10^6 and g = 99)."""

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


_held: dict[Path, list] = {}  # folder -> [lock file, holders] of the locks this process holds
_held_guard = threading.Lock()


@contextmanager
def folder_lock(folder: Path, name: str = "results folder") -> Iterator[None]:
    """Hold the lock of the folder of outputs ``folder`` for the ``with`` block, or raise a
    one-line :class:`FolderInUse` naming the process that holds it (``name``: what the folder
    is to the user, e.g. ``--out``). The lock is the operating system's (``flock`` on
    ``folder/.lock``): it ends with its process, however that ends, so no lock is ever left
    stale. This process may take a lock it holds again (threads of one command share it).
    Elsewhere than on POSIX systems, nothing is locked."""
    key = acquire_folder(folder, name)
    try:
        yield
    finally:
        release_folder(key)


def acquire_folder(folder: Path, name: str = "results folder") -> Path | None:
    """Take ``folder``'s lock (:func:`folder_lock`) until :func:`release_folder` is called with
    the key returned."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        return None
    folder = Path(folder)
    missing = [p for p in (folder, *folder.absolute().parents) if not p.exists()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise WriteError(_cannot_write(folder, err)) from None
    key = folder.resolve()
    with _held_guard:
        if key in _held:
            _held[key][1] += 1
            return key
        try:
            handle = open(key / LOCK, "a+")
        except OSError as err:
            raise WriteError(_cannot_write(folder, err)) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip().splitlines()
            handle.close()
            who = f"pid {holder[0]}" if holder else "another process"
            command = f" ({holder[1]})" if len(holder) > 1 else ""
            raise FolderInUse(
                f"{name} {folder} is in use by {who}{command}; wait for it to finish, or "
                "write elsewhere"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n{' '.join(sys.argv)[:300]}\n")
        handle.flush()
        _held[key] = [handle, 1, [p.resolve() for p in missing]]
    return key


def release_folder(key: Path | None, unused: bool = False) -> None:
    """Release a lock :func:`acquire_folder` took. The lock file stays (removing it would
    race with another process opening it), unless ``unused`` says nothing was written: then
    a folder the lock created is removed with it, as the run found things."""
    if key is None:
        return
    with _held_guard:
        entry = _held[key]
        entry[1] -= 1
        if entry[1] == 0:
            del _held[key]
            entry[0].close()  # closing the file releases the flock
            if unused and entry[2] and os.listdir(key) == [LOCK]:
                (key / LOCK).unlink(missing_ok=True)
                with suppress(OSError):  # the folders the lock made, if still empty
                    for made in entry[2]:
                        made.rmdir()
