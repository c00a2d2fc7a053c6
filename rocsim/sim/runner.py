"""The one simulation runner every study goes through.

A study kind follows the SimDesign shape (Chalmers & Adkins 2020): ``setup`` computes what
does not depend on the data (grid, true thresholds, targets), ``generate`` draws one data set,
``analyse`` turns it into per-grid-point outcomes (covered, missed below/above, width), and the
runner summarises the replications into coverage with its Monte Carlo standard error.

Reproducibility: replication ``r`` of a condition draws from
``SeedSequence(seed, spawn_key=(study, condition, r))`` (names mapped to integers by SHA-256,
never by ``hash()``), so results are bitwise identical for any ``n_jobs`` and any block size.
Resumability: each finished condition is written atomically to a cache file keyed by what its
outcomes depend on (:func:`outcome_key`), its seed and replication count; a rerun after an
interruption recomputes only the conditions that are missing, and a run given other studies'
cache folders takes from them the conditions (or the first replications) they already hold.
Optional kind methods: ``outcome_settings`` (the settings the analysis reads; all by default)
and ``exact_split`` / ``exact_part`` / ``exact_join`` (exact coverage in parts, :func:`_exact`).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs, parallel_config
from threadpoolctl import ThreadpoolController
from tqdm.auto import tqdm

from rocsim.sim.conditions import Condition
from rocsim.sim.io import atomic_write

#: Per-grid-point outcomes every ``analyse`` returns.
CORE_OUTCOMES = ("cover", "below", "above", "width")
COVERAGE_MODES = ("simulate", "exact")


@dataclass(frozen=True)
class Setup:
    """What a condition needs before any data: the grid, the targets, precomputed inputs.

    ``x`` are the grid values reported in ``coverage.csv`` (column ``x``), ``target`` the true
    value each interval should contain; ``extra`` holds further per-grid columns (e.g.
    ``target_fpr``) and ``payload`` anything ``generate``/``analyse`` reuse.
    """

    x: np.ndarray
    target: np.ndarray
    extra: dict[str, np.ndarray] = field(default_factory=dict)
    payload: Any = None


class StudyKind(Protocol):
    """A kind of study (threshold averaging, vertical averaging, cost curves, ...)."""

    grid: str

    def setup(self, condition: Condition) -> Setup: ...

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator) -> Any: ...

    def analyse(self, condition: Condition, setup: Setup, data: Any) -> dict[str, Any]: ...

    def exact(self, condition: Condition, setup: Setup) -> dict[str, np.ndarray]: ...


def replication_rng(seed: int, condition: Condition, replication: int) -> np.random.Generator:
    """Random generator of one replication, keyed by (seed, data settings, replication).

    The key is the condition's :meth:`~rocsim.sim.conditions.Condition.data_key`, not its study
    or label: every interval method, level or pseudo-count of a design, in one study or across
    studies and sweep jobs, is judged on the same data sets (common random numbers).
    """
    return _replication_rng(seed, int(condition.data_key(), 16), replication)


def _replication_rng(seed: int, data_key: int, replication: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(data_key, replication)))


def run_block(
    kind: StudyKind,
    condition: Condition,
    setup: Setup,
    seed: int,
    start: int,
    stop: int,
    parent: int | None = None,
) -> dict[str, np.ndarray]:
    """Replications ``start .. stop-1`` of a condition, stacked per outcome.

    BLAS runs single-threaded here, in a worker or in the main process alike: a threaded
    reduction may sum in another order, and results must not depend on ``n_jobs``. In a
    worker process (``parent``: the pid of the process that submitted the block), a watchdog
    ends the worker once its parent is gone.
    """
    if parent is not None and os.getpid() != parent:
        exit_with_parent(parent)  # dask and other backends; loky workers did at start
    keep_freed_memory()
    rows = []
    data_key = int(condition.data_key(), 16)  # replication_rng's key, digested once per block
    with single_threaded():
        for r in range(start, stop):
            data = kind.generate(condition, setup, _replication_rng(seed, data_key, r))
            rows.append(kind.analyse(condition, setup, data))
    return {name: np.stack([np.asarray(row[name]) for row in rows]) for name in rows[0]}


_controller: tuple[int, ThreadpoolController] | None = None


@contextmanager
def single_threaded() -> Iterator[None]:
    """``threadpool_limits(limits=1)``: every BLAS/OpenMP pool of the process on one thread for
    the ``with`` block, then as before; numba's compiled kernels too (the paired vertical law runs
    its ranks on every core), so that joblib's workers do not each start a pool per core.

    Finding the pools means scanning the process's shared libraries (milliseconds, once per
    replication block); the pools are found again only when modules were imported since, the
    way a new library gets loaded.
    """
    global _controller
    numba = sys.modules.get("numba")  # imported with the kernels that use it
    before = numba.get_num_threads() if numba is not None else None
    if numba is not None:  # first: it may load its threading library, a pool to find below
        numba.set_num_threads(1)
    try:
        if _controller is None or _controller[0] != len(sys.modules):
            _controller = (len(sys.modules), ThreadpoolController())
        with _controller[1].limit(limits=1):
            yield
    finally:
        if numba is not None:
            numba.set_num_threads(before)


#: ``mallopt`` parameters of glibc, and the values :func:`keep_freed_memory` gives them.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_TRIM_THRESHOLD, _MMAP_THRESHOLD = 2**28, 2**25
_memory_kept = False


def keep_freed_memory() -> None:
    """Have glibc's ``malloc`` keep the memory this process frees for its next arrays (once
    per process; elsewhere nothing).

    A replication or a part of an exact coverage allocates and frees arrays of a few hundred
    kB (the kernel estimates' transforms, the binomial tables); by default glibc maps such
    blocks anew or returns the top of its heap to the kernel once it is free, and every
    array then costs page faults as it is first written, which can take as long as the
    arithmetic on it. Fixed thresholds (memory returned only above
    256 MB free, blocks mapped apart only from 32 MB) keep it in the heap. Where the numbers
    are stored never changes what they are.
    """
    global _memory_kept
    if _memory_kept:
        return
    _memory_kept = True
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, TypeError):  # not glibc (macOS, Windows): as it is
        return
    mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
    mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)


#: How often a worker checks that its parent process is alive (where the kernel cannot
#: signal it: not Linux).
PARENT_POLL_SECONDS = 0.5
#: ``prctl`` option asking Linux to send a signal to this process when its parent dies.
_PR_SET_PDEATHSIG = 1
_watchdog_started = False


def exit_with_parent(parent: int | None = None) -> None:
    """End this worker process when its parent (pid ``parent``, default the current one)
    dies; called once per process, as the loky workers' initializer and before each block.

    A killed parent (SIGKILL, or SIGTERM before its own cleanup) cannot stop its joblib
    workers, and loky keeps idle workers for minutes. On Linux the kernel kills the worker
    (``PR_SET_PDEATHSIG``), even one blocked writing a result nobody reads; elsewhere a
    daemon thread polls ``getppid()``, which changes when an orphan is re-parented.
    """
    global _watchdog_started
    if _watchdog_started:
        return
    _watchdog_started = True
    parent = os.getppid() if parent is None else parent
    if sys.platform.startswith("linux"):
        # the kernel signal needs no Python thread, but it follows the thread that started
        # the worker, which may end before the process does: the poller stays as well
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before this worker got here
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="rocsim-exit-with-parent", daemon=True).start()


def summarise(
    condition: Condition, setup: Setup, outcomes: dict[str, np.ndarray], replications: int
) -> pd.DataFrame:
    """Coverage table of one condition.

    ``outcomes`` holds per-replication arrays of shape (R, g) (simulation) or, with
    ``replications == 0``, exact probabilities/expectations of shape (g,).
    """

    def mean(name):
        values = outcomes[name]
        return values.mean(axis=0) if replications else values

    coverage = mean("cover")
    mcse = np.sqrt(coverage * (1.0 - coverage) / replications) if replications else 0.0
    table = {
        "x": setup.x,
        "target": setup.target,
        "coverage": coverage,
        "mcse": mcse + np.zeros_like(coverage),
        "mean_width": mean("width"),
        "miss_low": mean("below"),
        "miss_high": mean("above"),
        "replications": np.full(setup.x.size, replications),
    }
    table.update(setup.extra)
    for name, values in outcomes.items():
        if name in CORE_OUTCOMES:
            continue
        if name == "redraws":
            table[name] = np.full(setup.x.size, int(np.sum(values)))
        else:
            table[name] = mean(name)
    return pd.DataFrame(table)


@dataclass
class RunResult:
    """Coverage table of a study run and what it cost."""

    table: pd.DataFrame
    computed: list[str]
    reused: list[str]
    seconds_per_condition: dict[str, float]
    #: Per condition label, whether each replication's interval covered each grid point,
    #: shape (R, g) (simulation), or the exact coverage, shape (g,).
    cover: dict[str, np.ndarray] = field(default_factory=dict)


def run_conditions(
    kind: StudyKind,
    conditions: Iterable[Condition],
    *,
    replications: int,
    seed: int,
    coverage: str = "simulate",
    n_jobs: int = 1,
    block_size: int = 50,
    cache_dir: Path | None = None,
    cache_tag: str = "",
    progress: bool = True,
    backend: str | None = None,
    progress_bar: tqdm | None = None,
    reuse_dirs: Iterable[Path] = (),
) -> RunResult:
    """Run every condition of a study (simulated or exact coverage) and summarise it.

    Parameters
    ----------
    kind : StudyKind
    conditions : iterable of Condition
    replications : int
        Replications per condition (``coverage="simulate"``).
    seed : int
        Root seed.
    coverage : {"simulate", "exact"}
    n_jobs : int
        joblib workers (``-1``: all cores). Results do not depend on it.
    block_size : int
        Replications per joblib task. Results do not depend on it.
    cache_dir : Path, optional
        Where finished conditions are kept; a rerun reuses them. Files are named by the
        condition's outcome key (:func:`outcome_key`), its seed, replication count and
        ``cache_tag``.
    cache_tag : str
        Part of every cache file's name: the hash of the code that computes (see
        :func:`rocsim.sim.provenance.code_hash`), so that other code never reuses them.
    progress : bool
        Show a progress bar over replications.
    backend : str, optional
        joblib backend (``loky`` by default; ``dask`` for a cluster).
    progress_bar : tqdm, optional
        A bar shared by several runs (``rocsim-reproduce``): advanced by every replication,
        computed or reused, instead of a bar of this run's own.
    reuse_dirs : iterable of Path
        Other studies' cache folders (read only). A condition with the same outcome key there
        (another study analysing the same data the same way) is copied into ``cache_dir``
        instead of computed; one with fewer replications gives the first ones, and only the
        rest are computed (replication ``r`` is the same wherever it is computed).
    """
    if coverage not in COVERAGE_MODES:
        raise ValueError(f"unknown coverage mode {coverage!r}; valid: {', '.join(COVERAGE_MODES)}")
    if coverage == "simulate" and (int(replications) != replications or replications < 1):
        raise ValueError(f"replications must be a positive integer, got {replications!r}")
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1, got {block_size}")
    conditions = list(conditions)
    reps = int(replications) if coverage == "simulate" else 0
    setups = [kind.setup(c) for c in conditions]
    paths = [_cache_path(cache_dir, kind, c, seed, reps, coverage, cache_tag) for c in conditions]
    others = [Path(d) for d in reuse_dirs]
    outcomes: dict[int, dict[str, np.ndarray]] = {}
    prefixes: dict[int, dict[str, np.ndarray]] = {}  # the first replications, found cached
    reused, computed, seconds = [], [], {}
    listings = None
    for i, path in enumerate(paths):
        if path is None:
            continue
        found = next((p for p in (path, *(d / path.name for d in others)) if p.exists()), None)
        if found is not None:
            with np.load(found) as cached:
                outcomes[i] = dict(cached)
            if found != path:  # this study's cache holds all its conditions
                atomic_write(path, lambda tmp, found=found: shutil.copyfile(found, tmp))
            reused.append(conditions[i].label)
        elif reps:
            if listings is None:
                listings = _listings([path.parent, *others])
            prefix = _cached_prefix(path, listings, reps)
            if prefix is not None:
                prefixes[i] = prefix
    todo = [i for i in range(len(conditions)) if i not in outcomes]
    starts = {i: _replications(prefix) for i, prefix in prefixes.items()}
    if progress_bar is not None:
        progress_bar.update((len(conditions) - len(todo)) * max(reps, 1) + sum(starts.values()))

    def finish(i, result, elapsed):
        outcomes[i] = result
        seconds[conditions[i].label] = elapsed
        computed.append(conditions[i].label)
        if paths[i] is not None:
            atomic_write(paths[i], lambda tmp: _save_npz(tmp, result))

    # dask is set up by backend_context (parallel_config); naming it here again makes
    # joblib 1.6 build a second backend whose batches fail (Batch.__call__ nesting_level);
    # loky is set up by _workers (a name given here would drop its initializer)
    named = None if backend in (None, "loky", "dask") else backend
    if coverage == "exact" and todo:
        with (
            _workers(backend),
            Parallel(n_jobs=n_jobs, backend=named, return_as="generator") as parallel,
        ):
            for i, result, elapsed in _exact(parallel, kind, conditions, setups, todo):
                finish(i, result, elapsed)
                if progress_bar is not None:
                    progress_bar.update(1)
    elif todo and coverage != "exact":
        own = dict(disable=not progress, desc=conditions[0].study, unit="rep", leave=False)
        bar = progress_bar if progress_bar is not None else tqdm(total=len(todo) * reps, **own)
        with (
            _workers(backend),
            Parallel(n_jobs=n_jobs, backend=named, return_as="generator") as parallel,
        ):
            for i, result, elapsed in _simulate(
                parallel, kind, conditions, setups, todo, reps, block_size, seed, bar, starts
            ):
                if i in prefixes:
                    result = {k: np.concatenate([prefixes[i][k], v]) for k, v in result.items()}
                finish(i, result, elapsed)
        if progress_bar is None:
            bar.close()
    frames = []
    for i, condition in enumerate(conditions):
        frame = summarise(condition, setups[i], outcomes[i], reps)
        for name, value in reversed(list(condition.params.items())):
            frame.insert(0, name, value)
        frame.insert(0, "condition", condition.label)
        frame.insert(0, "study", condition.study)
        frames.append(frame)
    cover = {c.label: np.asarray(outcomes[i]["cover"]) for i, c in enumerate(conditions)}
    return RunResult(pd.concat(frames, ignore_index=True), computed, reused, seconds, cover)


@contextmanager
def _workers(backend: str | None) -> Iterator[None]:
    """loky (joblib's default) workers that end with their parent from the moment they
    start (:func:`_start_worker` as their initializer), not only after their first task."""
    if backend not in (None, "loky"):
        yield
        return
    with parallel_config(backend="loky", initializer=_start_worker, initargs=(os.getpid(),)):
        try:
            yield
        except BaseException:
            _let_stopped_queues_finish()
            raise


def _start_worker(parent: int) -> None:
    """A loky worker ends with ``parent`` and leaves Ctrl-C to it. A terminal sends SIGINT
    to the whole process group; a worker interrupted then prints a traceback, or dies and
    breaks the pool while the parent is stopping it. The parent stops its workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)


#: The longest wait for the queue threads of a pool joblib has just stopped; they only have
#: their locks left to release.
QUEUE_THREAD_GRACE_SECONDS = 1.0


def _let_stopped_queues_finish() -> None:
    """Wait for the feeder threads of the pool joblib stopped on an error or interruption.

    A multiprocessing queue sends its items from a daemon thread, ``QueueFeederThread``, which
    ends by itself once joblib has closed the queue and may hold the last reference to it: the
    queue's semaphores are then released in that thread, each unlinked before it is
    unregistered from loky's resource tracker. A process that exits meanwhile (the usual next
    step after an error or Ctrl-C) freezes the thread between the two, and the tracker prints
    a leaked-semaphore warning under the error line. The feeder of a pool still open never
    ends: that wait times out, and the pool is closed at exit as after any run.
    """
    deadline = time.monotonic() + QUEUE_THREAD_GRACE_SECONDS
    for thread in threading.enumerate():
        if thread.daemon and thread.name == "QueueFeederThread":
            thread.join(max(0.0, deadline - time.monotonic()))


def start_workers(n_jobs: int) -> Iterator[None]:
    """Start the loky workers of ``n_jobs`` now, each importing the study kinds, and return at
    once: a caller composing its configs meanwhile finds them ready for its first study (the
    same workers :func:`run_conditions` then uses). Exhaust the returned iterator to wait.
    Called on the thread that runs the studies: a worker dies with the thread that started it
    (:func:`exit_with_parent`)."""
    with _workers(None):
        # a generator: the tasks are sent (and the workers started) before the call returns
        return Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(_import_kinds)() for _ in range(effective_n_jobs(n_jobs))
        )


def _import_kinds() -> None:
    import rocsim.studies  # noqa: F401  (the kinds and the compiled kernels they import)


@contextmanager
def backend_context(backend: str | None, scheduler: str | None = None) -> Iterator[None]:
    """Make ``backend`` usable by joblib for the duration of a run.

    Only ``dask`` needs anything: a ``distributed`` client connected to ``scheduler`` (an
    address such as ``tcp://host:8786``), or to a local cluster started here when it is
    ``None``. joblib's dask backend then sends the replication blocks to its workers; results
    are the same as with any other backend because every block seeds itself.
    """
    if backend != "dask":
        yield
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError(
            "runner=dask needs dask.distributed: python -m pip install 'rocsim[cluster]'"
        ) from None
    cluster = None if scheduler else LocalCluster(processes=True, dashboard_address=None)
    client = Client(scheduler or cluster)
    try:
        with parallel_config(backend="dask"):  # registers joblib's dask backend
            yield
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _tasks(
    todo: list[int], reps: int, block_size: int, starts: dict[int, int] | None = None
) -> Iterator[tuple[int, int, int]]:
    """Replication blocks ``(condition index, start, stop)``, condition by condition (from
    its ``starts``, 0 by default), made as joblib asks for them: memory does not grow with the
    replication count."""
    for i in todo:
        for a in range((starts or {}).get(i, 0), reps, block_size):
            yield i, a, min(a + block_size, reps)


def _simulate(parallel, kind, conditions, setups, todo, reps, block_size, seed, bar, starts):
    """Yield ``(condition index, stacked outcomes, seconds)`` as each condition finishes (the
    replications from its ``starts`` on).

    Tasks come condition by condition and ``parallel`` (a joblib generator) returns results in
    task order, so a condition is complete when its block ending at ``reps`` arrives.
    """
    parent = os.getpid()
    results = _stopping_early(
        parallel(
            delayed(run_block)(kind, conditions[i], setups[i], seed, a, b, parent)
            for i, a, b in _tasks(todo, reps, block_size, starts)
        )
    )
    pending: list[dict[str, np.ndarray]] = []
    clock = time.perf_counter()
    for (i, a, b), block in zip(_tasks(todo, reps, block_size, starts), results):
        pending.append(block)
        bar.update(b - a)
        if b == reps:
            now = time.perf_counter()
            yield i, {k: np.concatenate([p[k] for p in pending]) for k in block}, now - clock
            pending, clock = [], now


def run_exact_part(
    kind: StudyKind, condition: Condition, setup: Setup, part: Any, parent: int | None = None
) -> tuple[Any, float]:
    """One part of a condition's exact coverage (:func:`_exact`) and the seconds it took;
    single-threaded BLAS as in :func:`run_block` (one summation order)."""
    if parent is not None and os.getpid() != parent:
        exit_with_parent(parent)
    keep_freed_memory()
    start = time.perf_counter()
    with single_threaded():
        if hasattr(kind, "exact_split"):
            result = kind.exact_part(condition, setup, part)
        else:
            result = kind.exact(condition, setup)
    return result, time.perf_counter() - start


def _exact(parallel, kind, conditions, setups, todo):
    """Yield ``(condition index, exact outcomes, seconds)`` for every condition of ``todo``.

    A kind may cut a condition's exact coverage into parts computed side by side:
    ``exact_split(condition, setup)`` lists them, ``exact_part(condition, setup, part)``
    computes one (in a worker) and ``exact_join(condition, setup, results)`` assembles their
    results in that order (here), giving what ``exact`` gives. Other kinds run ``exact``, one
    task per condition.
    """
    parent = os.getpid()
    split = hasattr(kind, "exact_split")
    parts = {i: kind.exact_split(conditions[i], setups[i]) if split else [None] for i in todo}
    tasks = [(i, part) for i in todo for part in parts[i]]
    results = _stopping_early(
        parallel(
            delayed(run_exact_part)(kind, conditions[i], setups[i], part, parent)
            for i, part in tasks
        )
    )
    pending, seconds = [], 0.0
    for (i, _), (result, elapsed) in zip(tasks, results):
        pending.append(result)
        seconds += elapsed
        if len(pending) == len(parts[i]):
            if split:
                with single_threaded():
                    result = kind.exact_join(conditions[i], setups[i], pending)
            yield i, result, seconds
            pending, seconds = [], 0.0


class _ConsumerStopped(Exception):
    """Thrown into a joblib generator whose consumer stopped early."""


def _stopping_early(results: Iterator[Any]) -> Iterator[Any]:
    """The items of ``results``, a joblib generator; a consumer stopping early (an error or
    Ctrl-C in the caller) is handed to joblib as an error of its own, which stops the pool.
    Closing joblib's generator instead makes joblib warn that finished results went unused:
    a second message under the error line."""
    for item in results:
        try:
            yield item
        except GeneratorExit:
            with suppress(_ConsumerStopped):
                results.throw(_ConsumerStopped())
            raise


def _save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


def outcome_key(kind: StudyKind, condition: Condition) -> str:
    """The condition's :meth:`~rocsim.sim.conditions.Condition.outcome_key` for ``kind``: its
    class, and the settings its ``outcome_settings`` says the outcomes depend on (all of them
    for a kind without one)."""
    settings = getattr(kind, "outcome_settings", None)
    name = f"{type(kind).__module__}.{type(kind).__qualname__}"
    return condition.outcome_key(name, settings(condition.settings) if settings else None)


def _cache_path(cache_dir, kind, condition, seed, reps, coverage, tag) -> Path | None:
    if cache_dir is None:
        return None
    key = outcome_key(kind, condition)
    return Path(cache_dir) / f"{key}-{coverage}-r{reps}-s{seed}-{tag or 'untagged'}.npz"


def _cached_prefix(
    path: Path, listings: dict[Path, list[str]], reps: int
) -> dict[str, np.ndarray] | None:
    """The outcomes of the most replications (fewer than ``reps``) of ``path``'s condition,
    seed and code cached in the folders of ``listings`` (folder -> the names in it: listed
    once per run, not once per condition); ``None`` if there are none."""
    key, coverage, _, rest = path.name.split("-", 3)
    head, tail = f"{key}-{coverage}-r", f"-{rest}"
    best, most = None, 0
    for folder, names in listings.items():
        for name in names:
            count = name[len(head) : -len(tail)] if name.endswith(tail) else ""
            if name.startswith(head) and count.isdigit() and most < int(count) < reps:
                best, most = folder / name, int(count)
    if best is None:
        return None
    with np.load(best) as cached:
        prefix = dict(cached)
    return prefix if all(len(v) == most for v in prefix.values()) else None


def _listings(folders: Iterable[Path]) -> dict[Path, list[str]]:
    """The names in each existing folder of ``folders``."""
    return {folder: os.listdir(folder) for folder in folders if folder.is_dir()}


def _replications(outcomes: dict[str, np.ndarray]) -> int:
    return len(next(iter(outcomes.values())))
