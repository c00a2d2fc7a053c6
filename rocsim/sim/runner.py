"""The one simulation runner every study goes through.

A study kind follows the SimDesign shape (Chalmers & Adkins 2020): ``setup`` computes what
does not depend on the data (grid, true thresholds, targets), ``generate`` draws one data set,
``analyse`` turns it into per-grid-point outcomes (covered, missed below/above, width), and the
runner summarises the replications into coverage with its Monte Carlo standard error.

Reproducibility: replication ``r`` of a condition draws from
``SeedSequence(seed, spawn_key=(data key, r))`` (the data settings mapped to an integer by
SHA-256, never by ``hash()``), so results are bitwise identical for any ``n_jobs``, any block
size and any engine: local processes (:mod:`rocsim.sim.workers`) or a dask cluster
(:mod:`rocsim.sim.cluster`).
Resumability: each finished condition is written atomically to a cache file keyed by what its
outcomes depend on (:func:`outcome_key`), its seed and replication count (:mod:`rocsim.sim.
cache`, which checks every file it reads); a rerun after an interruption recomputes only what
is missing, and a run given other studies' cache folders takes from them the conditions (or
the first replications) they already hold.
Memory: a condition's replications are folded into a :class:`Tally` as they arrive; what
grows with the replication count is one bit per replication and grid point of each
condition (the claims' per-replication outcomes), and the estimates of a kind that reports
them (a float each), nothing else.
Optional kind methods: ``outcome_settings`` (the settings the analysis reads; all by default),
``analyse_block`` (``analyse`` of a block's data sets at once, stacked: the same outcomes as
one ``analyse`` per data set, with the per-call work shared) and ``exact_split`` /
``exact_part`` / ``exact_join`` (exact coverage in parts, :func:`_exact`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from rocsim.sim import cache
from rocsim.sim.cluster import CONNECT_TIMEOUT, WORKER_TIMEOUT, DaskEngine, connect
from rocsim.sim.conditions import DATA_SETTINGS, Condition
from rocsim.sim.io import PackedOutcomes
from rocsim.sim.kinds import (
    CORE_OUTCOMES,
    ESTIMATE_OUTCOMES,
    Setup,
    StudyKind,
    as_kind,
    interval_outcome,
)
from rocsim.sim.performance import performance_measures_grid
from rocsim.sim.workers import Ordered, keep_freed_memory, local_engine, single_threaded

COVERAGE_MODES = ("simulate", "exact")
#: What a data set that raises does: stop the run, or be recorded (``runner.on_error``).
ERROR_MODES = ("raise", "record")


def replication_rng(
    seed: int, condition: Condition, replication: int, data_settings=DATA_SETTINGS
) -> np.random.Generator:
    """Random generator of one replication, keyed by (seed, data settings, replication).

    The key is the condition's :meth:`~rocsim.sim.conditions.Condition.data_key` over the
    kind's ``data_settings``, not its study or label: for rocsim's kinds every interval
    method, level or pseudo-count of a design, in one study or across studies and sweep jobs,
    is judged on the same data sets (common random numbers).
    """
    return _replication_rng(seed, int(condition.data_key(data_settings), 16), replication)


def _replication_rng(seed: int, data_key: int, replication: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(data_key, replication)))


def run_block(
    kind: StudyKind,
    condition: Condition,
    setup: Setup,
    seed: int,
    start: int,
    stop: int,
    max_failures: int | None = None,
) -> dict[str, np.ndarray]:
    """Replications ``start .. stop-1`` of a condition, stacked per outcome.

    With ``max_failures`` (``runner.on_error=record``), a replication whose ``generate`` or
    ``analyse`` raises is recorded (:data:`FAILURES`: its replication, attempt and exception)
    and drawn again from the replication's next generator (:func:`attempt_rng`); past
    ``max_failures`` in the block, :class:`TooManyFailures`. Without failures the outcomes are
    those of ``max_failures=None`` (the first attempt is the replication's own generator).

    BLAS runs single-threaded here, in a worker or in the main process alike: a threaded
    reduction may sum in another order, and results must not depend on ``n_jobs``. Nothing
    here ties the process to the one that submitted the block: a cluster's workers live as
    long as the cluster says (the workers rocsim starts itself end with it from the moment
    they start, :mod:`rocsim.sim.workers`).
    """
    keep_freed_memory()
    # replication_rng's key, digested once per block
    data_key = int(condition.data_key(kind.data_settings), 16)
    failures: list[Failure] = []
    with single_threaded():
        if max_failures is not None:
            outcomes, failures = _recorded(
                kind, condition, setup, (seed, data_key), (start, stop), max_failures
            )
        else:
            block = [
                kind.generate(condition, setup, _replication_rng(seed, data_key, r))
                for r in range(start, stop)
            ]
            outcomes = kind.analyse_block(condition, setup, block)
    outcomes = {name: np.asarray(values) for name, values in outcomes.items()}
    if max_failures is not None:
        outcomes[FAILURES] = failures
    if "cover" not in outcomes and "low" in outcomes and "high" in outcomes:
        outcomes |= interval_outcome(setup.target, outcomes["low"], outcomes["high"])
    return outcomes


#: The key of :func:`run_block`'s result that holds its recorded failures.
FAILURES = "failures"


@dataclass(frozen=True)
class Failure:
    """A data set whose ``generate`` or ``analyse`` raised (``runner.on_error=record``):
    replication ``replication`` of its condition, its ``attempt``-th draw
    (:func:`attempt_rng` replays it), and the exception, in one line."""

    replication: int
    attempt: int
    error: str


class TooManyFailures(RuntimeError):
    """More of a condition's data sets failed than ``runner.max_failure_share`` allows
    (``limit`` of them): ``count`` so far, the first of them ``failure``."""

    def __init__(self, condition: Condition, failure: Failure, count: int, limit: int):
        self.condition, self.failure, self.count, self.limit = condition, failure, count, limit
        super().__init__(
            f"{condition.label}: {count} data sets failed, more than the {limit} that "
            f"runner.max_failure_share allows; the first, replication {failure.replication} "
            f"(attempt {failure.attempt}): {failure.error}"
        )

    def __reduce__(self):  # from a worker process: rebuilt from its parts, not its message
        return type(self), (self.condition, self.failure, self.count, self.limit)


def attempt_rng(
    seed: int, condition: Condition, replication: int, attempt: int, data_settings=DATA_SETTINGS
) -> np.random.Generator:
    """The generator of draw ``attempt`` of a replication: :func:`replication_rng`'s for the
    first (``attempt=0``), then one of its own for each draw again after a failure, so that a
    recorded failure replays from its seed, replication and attempt alone."""
    return _attempt_rng(seed, int(condition.data_key(data_settings), 16), replication, attempt)


def _attempt_rng(seed: int, data_key: int, replication: int, attempt: int):
    if attempt == 0:
        return _replication_rng(seed, data_key, replication)
    key = (data_key, replication, attempt)
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def _recorded(kind, condition, setup, keys, span, max_failures):
    """:func:`run_block`'s replications ``span`` with failures recorded and drawn again."""
    rows, failures = [], []
    for r in range(*span):
        attempt = 0
        while True:
            try:
                data = kind.generate(condition, setup, _attempt_rng(*keys, r, attempt))
                rows.append(kind.analyse(condition, setup, data))
                break
            except Exception as err:  # the kind's failure is the study's data
                text = " ".join(f"{type(err).__name__}: {err}".split())
                failures.append(Failure(r, attempt, text))
                if len(failures) > max_failures:
                    first = failures[0]
                    raise TooManyFailures(condition, first, len(failures), max_failures) from None
                attempt += 1
    outcomes = {name: np.stack([np.asarray(row[name]) for row in rows]) for name in rows[0]}
    return outcomes, failures


@dataclass
class Tally:
    """One condition's simulated outcomes, folded in block by block, in replication order.

    What the coverage table needs are means over replications: each outcome's running sum is
    kept, added one replication after the other (the order ``ndarray.mean(axis=0)`` adds a
    stacked matrix of two grid points or more in, so the same bits), and the sums of the first
    replications continue into the sums of more. What the claims need are the per-replication
    cover outcomes, to pair replications across conditions and studies (common random numbers,
    :mod:`rocsim.sim.claims`): kept one bit per replication and grid point
    (:class:`~rocsim.sim.io.PackedOutcomes`). A kind that reports estimates
    (:data:`~rocsim.sim.kinds.ESTIMATE_OUTCOMES`) has them kept whole, a float per replication
    and grid point each: their performance measures (the empirical SE, the bias-eliminated
    coverage, ...) need every value. That is all that grows with the replication count.
    """

    replications: int = 0
    sums: dict[str, np.ndarray] = field(default_factory=dict)
    blocks: list[np.ndarray] = field(default_factory=list)  # packed cover, block by block
    grid: int = 0
    #: The :data:`~rocsim.sim.kinds.ESTIMATE_OUTCOMES` given, block by block, shape (R, g).
    values: dict[str, list[np.ndarray]] = field(default_factory=dict)
    #: The failed data sets of a run that records them (``None``: one that does not).
    failures: list[Failure] | None = None

    def add(self, block: dict[str, np.ndarray]) -> None:
        """Fold in a block of replications (``run_block``'s stacked outcomes)."""
        block = dict(block)
        if FAILURES in block:
            self.failures = [*(self.failures or []), *block.pop(FAILURES)]
        rows = 0
        for name, values in block.items():
            values = np.asarray(values)
            rows = len(values)
            if values.ndim > 1:  # an outcome per grid point (``redraws``: one per replication)
                self.grid = values.shape[1]
            if name in ESTIMATE_OUTCOMES:
                self.values.setdefault(name, []).append(values.astype(float))
                continue
            total = self.sums.setdefault(name, np.zeros(values.shape[1:]))
            for row in values:  # one replication after the other
                total += row
        if "cover" in block:
            self.blocks.append(np.packbits(np.asarray(block["cover"], dtype=bool), axis=1))
        self.replications += rows

    def mean(self, name: str) -> np.ndarray:
        if name not in self.sums:  # a kind that reports estimates only has no interval
            return np.full(self.grid, np.nan)
        return self.sums[name] / self.replications

    def per_replication(self, name: str) -> np.ndarray | None:
        """An estimate outcome's values, shape (R, g), or ``None`` if the kind gave none."""
        if name not in self.values:
            return None
        if len(self.values[name]) > 1:
            self.values[name] = [np.concatenate(self.values[name])]
        return self.values[name][0]

    def cover(self) -> PackedOutcomes | None:
        """The per-replication cover outcomes, shape (R, g), one bit each; ``None`` for a
        kind that reports no interval."""
        if not self.blocks:
            return None
        if len(self.blocks) > 1:
            self.blocks = [np.concatenate(self.blocks)]
        return PackedOutcomes(self.blocks[0], self.grid)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The tally as arrays for a cache file (:meth:`from_arrays` reads them back)."""
        arrays = {f"sum.{name}": total for name, total in self.sums.items()}
        arrays |= {f"rep.{name}": self.per_replication(name) for name in self.values}
        cover = self.cover()
        if cover is not None:
            arrays["cover_bits"] = cover.bits
        if self.failures is not None:
            failed = self.failures
            arrays["failure.replication"] = np.array([f.replication for f in failed], np.int64)
            arrays["failure.attempt"] = np.array([f.attempt for f in failed], np.int64)
            arrays["failure.error"] = np.array([f.error for f in failed], dtype=str)
        return {"replications": np.array(self.replications), "grid": np.array(self.grid)} | (
            arrays
        )

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> Tally:
        sums = {k.removeprefix("sum."): v.copy() for k, v in arrays.items() if k[:4] == "sum."}
        values = {k.removeprefix("rep."): [v.copy()] for k, v in arrays.items() if k[:4] == "rep."}
        bits = arrays.get("cover_bits")
        blocks = [] if bits is None else [np.asarray(bits, dtype=np.uint8)]
        failures = None
        if "failure.error" in arrays:
            failures = [
                Failure(int(r), int(a), str(e))
                for r, a, e in zip(
                    arrays["failure.replication"],
                    arrays["failure.attempt"],
                    arrays["failure.error"],
                )
            ]
        return cls(
            int(arrays["replications"]), sums, blocks, int(arrays["grid"]), values, failures
        )


def summarise(
    condition: Condition, setup: Setup, outcomes: Tally | dict[str, np.ndarray]
) -> pd.DataFrame:
    """Coverage table of one condition, from its :class:`Tally` (simulation) or its exact
    probabilities and expectations, arrays of shape (g,) (exact coverage)."""
    simulated = isinstance(outcomes, Tally)
    replications = outcomes.replications if simulated else 0
    names = outcomes.sums if simulated else outcomes

    def mean(name):
        return outcomes.mean(name) if simulated else outcomes[name]

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
    if simulated and outcomes.failures is not None:  # runner.on_error=record
        failed = len(outcomes.failures)
        table["failures"] = np.full(setup.x.size, failed)
        table["failure_share"] = np.full(setup.x.size, failed / (replications + failed))
    if simulated and outcomes.per_replication("estimate") is not None:
        table.update(_performance(condition, setup, outcomes))
    for name in names:
        if name in CORE_OUTCOMES:
            continue
        if name == "redraws":
            total = outcomes.sums[name] if simulated else np.sum(outcomes[name])
            table[name] = np.full(setup.x.size, int(np.sum(total)))
        else:
            table[name] = mean(name)
    return pd.DataFrame(table)


def _performance(condition: Condition, setup: Setup, tally: Tally) -> dict[str, np.ndarray]:
    """The performance measures of a condition's estimates, each with its Monte Carlo SE
    (Morris, White & Crowther 2019; :mod:`rocsim.sim.performance`); the coverage of the
    bounds is the table's own ``coverage`` column."""
    given = {name: tally.per_replication(name) for name in ("se", "low", "high", "p_value")}
    measures = performance_measures_grid(
        tally.per_replication("estimate"),
        target=setup.target,
        confidence_level=condition.settings.get("confidence_level", 0.95),
        **{name: values for name, values in given.items() if values is not None},
    )
    return {k: v for k, v in measures.items() if k not in ("coverage", "coverage_mcse")}


@dataclass
class RunResult:
    """Coverage table of a study run and what it cost."""

    table: pd.DataFrame
    computed: list[str]
    reused: list[str]
    seconds_per_condition: dict[str, float]
    #: Per condition label, whether each replication's interval covered each grid point,
    #: shape (R, g), packed (simulation), or the exact coverage, shape (g,).
    cover: dict[str, PackedOutcomes | np.ndarray] = field(default_factory=dict)
    #: Per condition label, its failed data sets (``on_error="record"``; none otherwise).
    failures: dict[str, list[Failure]] = field(default_factory=dict)


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
    engine: DaskEngine | None = None,
    on_error: str = "raise",
    max_failure_share: float = 0.2,
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
        Replications per task. Results do not depend on it.
    cache_dir : Path, optional
        Where finished conditions are kept (:mod:`rocsim.sim.cache`); a rerun reuses them.
        Files are named by the condition's outcome key (:func:`outcome_key`), its seed,
        replication count and ``cache_tag``. A run stopped by an error or an interruption
        keeps the replications of its unfinished condition too, as a shorter run's.
    cache_tag : str
        Part of every cache file's name: the hash of the code that computes (see
        :func:`rocsim.sim.provenance.code_hash`), so that other code never reuses them.
    progress : bool
        Show a progress bar over replications.
    backend : str, optional
        joblib backend of the local engine (``loky`` by default).
    progress_bar : tqdm, optional
        A bar shared by several runs (``rocsim-reproduce``): advanced by every replication,
        computed or reused, instead of a bar of this run's own.
    reuse_dirs : iterable of Path
        Other studies' cache folders (read only). A condition with the same outcome key there
        (another study analysing the same data the same way) is copied into ``cache_dir``
        instead of computed; one with fewer replications gives the first ones, and only the
        rest are computed (replication ``r`` is the same wherever it is computed).
    engine : DaskEngine, optional
        A cluster to compute on (:func:`backend_context`) instead of local processes.
    on_error : {"raise", "record"}, default "raise"
        What a data set whose ``generate`` or ``analyse`` raises does (simulated coverage):
        stop the run, or be recorded (:class:`Failure`, in :attr:`RunResult.failures` and the
        table's ``failures`` and ``failure_share`` columns) and drawn again from the
        replication's next generator (:func:`attempt_rng`): the outcomes are those of the
        data sets that did not fail.
    max_failure_share : float, default 0.2
        With ``on_error="record"``: a condition stops the run (:class:`TooManyFailures`) once
        more than this share of its replications' count of data sets has failed.
    """
    kind = as_kind(kind, type(kind).__name__)  # the base's hooks, or one line saying why not
    if coverage not in COVERAGE_MODES:
        raise ValueError(f"unknown coverage mode {coverage!r}; valid: {', '.join(COVERAGE_MODES)}")
    if coverage == "simulate" and (int(replications) != replications or replications < 1):
        raise ValueError(f"replications must be a positive integer, got {replications!r}")
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1, got {block_size}")
    if on_error not in ERROR_MODES:
        raise ValueError(
            f"runner.on_error must be one of {', '.join(ERROR_MODES)}, got {on_error!r}"
        )
    if not 0.0 <= float(max_failure_share) < 1.0:
        raise ValueError(f"runner.max_failure_share must be in [0, 1), got {max_failure_share!r}")
    conditions = list(conditions)
    reps = int(replications) if coverage == "simulate" else 0
    setups = [kind.setup(c) for c in conditions]
    paths = [
        cache.cache_path(cache_dir, outcome_key(kind, c), coverage, reps, seed, cache_tag)
        for c in conditions
    ]
    others = [Path(d) for d in reuse_dirs]
    outcomes: dict[int, Tally | dict[str, np.ndarray]] = {}
    prefixes: dict[int, Tally] = {}  # the first replications, found cached
    reused, computed, seconds = [], [], {}
    folders = None
    for i, path in enumerate(paths):
        if path is None:
            continue
        found = _cached(path, others)
        if found is not None:
            outcomes[i] = Tally.from_arrays(found) if reps else found
            reused.append(conditions[i].label)
        elif reps:
            if folders is None:
                folders = cache.listings([path.parent, *others])
            prefix = cache.cached_prefix(path, folders, reps)
            if prefix is not None:
                prefixes[i] = Tally.from_arrays(prefix)
    todo = [i for i in range(len(conditions)) if i not in outcomes]
    max_failures = None
    if reps and on_error == "record":
        max_failures = int(np.floor(float(max_failure_share) * reps))
        # outcomes do not depend on the share allowed, but a stop does
        for i, found in [*outcomes.items(), *prefixes.items()]:
            _check_failures(conditions[i], found, max_failures)
    if progress_bar is not None:
        done = (len(conditions) - len(todo)) * max(reps, 1)
        progress_bar.update(done + sum(t.replications for t in prefixes.values()))

    def finish(i, result, elapsed):
        outcomes[i] = result
        seconds[conditions[i].label] = elapsed
        computed.append(conditions[i].label)
        if paths[i] is not None:
            cache.save(paths[i], result.to_arrays() if reps else result)

    if todo and coverage == "exact":
        with (
            _engine(engine, n_jobs, backend) as ordered,
            closing(_exact(ordered, kind, conditions, setups, todo)) as exact,
        ):
            for i, result, elapsed in exact:
                finish(i, result, elapsed)
                if progress_bar is not None:
                    progress_bar.update(1)
    elif todo:
        own = dict(disable=not progress, desc=conditions[0].study, unit="rep", leave=False)
        bar = progress_bar if progress_bar is not None else tqdm(total=len(todo) * reps, **own)
        try:
            with _engine(engine, n_jobs, backend) as ordered:
                plan = _Plan(kind, conditions, setups, todo, reps, block_size, seed, max_failures)
                _simulate(ordered, plan, bar, prefixes, finish, paths)
        finally:
            if progress_bar is None:
                bar.close()
    frames = []
    for i, condition in enumerate(conditions):
        frame = summarise(condition, setups[i], outcomes[i])
        for name, value in reversed(list(condition.params.items())):
            frame.insert(0, name, value)
        frame.insert(0, "condition", condition.label)
        frame.insert(0, "study", condition.study)
        frames.append(frame)
    cover = {
        c.label: outcomes[i].cover() if reps else np.asarray(outcomes[i]["cover"])
        for i, c in enumerate(conditions)
    }
    cover = {label: packed for label, packed in cover.items() if packed is not None}
    failures = {
        c.label: outcomes[i].failures
        for i, c in enumerate(conditions)
        if reps and outcomes[i].failures
    }
    table = pd.concat(frames, ignore_index=True)
    return RunResult(table, computed, reused, seconds, cover, failures)


def _cached(path: Path, others: list[Path]) -> dict[str, np.ndarray] | None:
    """The condition of ``path`` from this study's cache, else from another's (then copied
    into this one, which holds all its conditions); ``None`` if none holds it whole."""
    found = cache.load(path) if path.exists() else None
    if found is not None:
        return found
    for folder in others:
        candidate = folder / path.name
        found = cache.load(candidate) if candidate.exists() else None
        if found is not None:
            cache.save(path, found)
            return found
    return None


@contextmanager
def _engine(engine: DaskEngine | None, n_jobs: int, backend: str | None) -> Iterator[Ordered]:
    """The ordered map the run computes with: the cluster's, or a local pool's."""
    if engine is not None:
        yield engine.ordered
        return
    with local_engine(n_jobs, backend) as ordered:
        yield ordered


@contextmanager
def backend_context(
    backend: str | None,
    scheduler: str | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    worker_timeout: float = WORKER_TIMEOUT,
) -> Iterator[DaskEngine | None]:
    """The engine of a run for the duration of the ``with`` block: for ``backend="dask"``, a
    :class:`~rocsim.sim.cluster.DaskEngine` on the scheduler at ``scheduler`` (an address such
    as ``tcp://host:8786``), or on a local cluster started here when it is ``None``; ``None``
    (local processes) for any other backend. Results are the same on every engine because
    every block seeds itself."""
    if backend != "dask":
        yield None
        return
    with connect(scheduler, connect_timeout, worker_timeout) as engine:
        yield engine


def _tasks(
    todo: list[int], reps: int, block_size: int, starts: dict[int, int] | None = None
) -> Iterator[tuple[int, int, int]]:
    """Replication blocks ``(condition index, start, stop)``, condition by condition (from
    its ``starts``, 0 by default), made as the engine asks for them: memory does not grow
    with the replication count."""
    for i in todo:
        for a in range((starts or {}).get(i, 0), reps, block_size):
            yield i, a, min(a + block_size, reps)


@dataclass(frozen=True)
class _Plan:
    """What :func:`_simulate` computes: the replications of conditions ``todo``."""

    kind: StudyKind
    conditions: list[Condition]
    setups: list[Setup]
    todo: list[int]
    reps: int
    block_size: int
    seed: int
    max_failures: int | None  # runner.on_error=record: the failures a condition may have


def _simulate(ordered, plan: _Plan, bar, prefixes, finish, paths) -> None:
    """Compute the replications of ``todo``'s conditions (each from its cached ``prefixes``
    on) and ``finish(i, tally, seconds)`` each condition as its last block arrives.

    Blocks come condition by condition and the engine returns results in block order, so a
    condition is complete when its block ending at ``reps`` arrives. If the run stops before
    (an error, Ctrl-C, a lost cluster), the replications of the condition it was computing are
    cached as a shorter run's, which a rerun continues from.
    """
    kind, conditions, setups, reps = plan.kind, plan.conditions, plan.setups, plan.reps
    todo, block_size, seed, max_failures = plan.todo, plan.block_size, plan.seed, plan.max_failures
    starts = {i: prefix.replications for i, prefix in prefixes.items()}
    results = ordered(
        run_block,
        (
            (kind, conditions[i], setups[i], seed, a, b, max_failures)
            for i, a, b in _tasks(todo, reps, block_size, starts)
        ),
    )
    tally, clock = None, time.perf_counter()
    try:
        for (i, a, b), block in zip(_tasks(todo, reps, block_size, starts), results):
            if tally is None:
                tally = prefixes.get(i) or Tally()
            tally.add(block)
            if max_failures is not None:
                _check_failures(conditions[i], tally, max_failures)
            bar.update(b - a)
            if b == reps:
                now = time.perf_counter()
                finished, tally = tally, None
                finish(i, finished, now - clock)
                clock = now
    except BaseException:
        results.close()  # the engine stops: no block computed for nothing, no warning
        if tally is not None and paths[i] is not None:
            _keep_unfinished(paths[i], tally)
        raise


def _check_failures(condition: Condition, tally: Tally, max_failures: int) -> None:
    """:class:`TooManyFailures` if more than ``max_failures`` of the condition's data sets
    failed (a tally that records none, from a run that raised, has none)."""
    failed = tally.failures or []
    if len(failed) > max_failures:
        raise TooManyFailures(condition, failed[0], len(failed), max_failures)


def _keep_unfinished(path: Path, tally: Tally) -> None:
    """Cache the replications of a condition a stopped run had begun, as a run of that many
    replications (replication ``r`` is the same in any run): a rerun continues from them.
    Best effort: the run is stopping for another reason, which stays the one reported."""
    with suppress(Exception):
        cache.save(cache.with_replications(path, tally.replications), tally.to_arrays())


def run_exact_part(
    kind: StudyKind, condition: Condition, setup: Setup, part: Any
) -> tuple[Any, float]:
    """One part of a condition's exact coverage (:func:`_exact`) and the seconds it took;
    single-threaded BLAS as in :func:`run_block` (one summation order)."""
    keep_freed_memory()
    start = time.perf_counter()
    with single_threaded():
        result = kind.exact_part(condition, setup, part)
    return result, time.perf_counter() - start


def _exact(ordered, kind, conditions, setups, todo):
    """Yield ``(condition index, exact outcomes, seconds)`` for every condition of ``todo``.

    A kind may cut a condition's exact coverage into parts computed side by side:
    ``exact_split(condition, setup)`` lists them, ``exact_part(condition, setup, part)``
    computes one (in a worker) and ``exact_join(condition, setup, results)`` assembles their
    results in that order (here), giving what ``exact`` gives. Other kinds run ``exact``, one
    task per condition.
    """
    parts = {i: kind.exact_split(conditions[i], setups[i]) for i in todo}
    tasks = [(i, part) for i in todo for part in parts[i]]
    results = ordered(
        run_exact_part, ((kind, conditions[i], setups[i], part) for i, part in tasks)
    )
    pending, seconds = [], 0.0
    try:
        for (i, _), (result, elapsed) in zip(tasks, results):
            pending.append(result)
            seconds += elapsed
            if len(pending) == len(parts[i]):
                with single_threaded():
                    result = kind.exact_join(conditions[i], setups[i], pending)
                yield i, result, seconds
                pending, seconds = [], 0.0
    except BaseException:  # also the consumer's stop (GeneratorExit): the engine stops too
        results.close()
        raise


def outcome_key(kind: StudyKind, condition: Condition) -> str:
    """The condition's :meth:`~rocsim.sim.conditions.Condition.outcome_key` for ``kind``: its
    class, and the settings its ``outcome_settings`` says the outcomes depend on (all of them
    for a kind without one)."""
    name = f"{type(kind).__module__}.{type(kind).__qualname__}"
    return condition.outcome_key(name, kind.outcome_settings(condition.settings))
