"""The public base of study kinds: what a kind must and may define for the runner.

A study kind follows the SimDesign shape [1]_: ``setup`` computes what does
not depend on the data (the grid, the true values), ``generate`` draws one data set from the
replication's random generator, ``analyse`` judges one data set at every grid point. A user's
kind subclasses :class:`StudyKind`, writes those three, and is named in a study config by
``_target_`` (``study.kind: {_target_: my_studies.CutpointStudy}``, found like the user's
methods: the working folder, ``PYTHONPATH`` or an installed package); every other hook has its
default here, and the runner, the pipeline, the cache, the figures and the report treat it as
they treat rocsim's own kinds (:mod:`rocsim.studies`, written on this same base).

References
----------
.. [1] Chalmers, R. P. and Adkins, M. C. (2020). Writing effective and reliable Monte Carlo
   simulations with the SimDesign package. The Quantitative Methods for Psychology 16(4),
   248-280.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from rocsim.core._validation import SCHEMES
from rocsim.sim.conditions import Condition

#: Per-grid-point outcomes of an interval: covered, missed below, missed above, its width.
CORE_OUTCOMES = ("cover", "below", "above", "width")
#: Per-grid-point outcomes kept replication by replication, from which the table's
#: performance measures and their Monte Carlo SEs are computed (:mod:`rocsim.sim.performance`):
#: an ``estimate`` of the target, its model ``se``, a test's ``p_value``, an interval's ``low``
#: and ``high``. NaN marks a replication that gave none.
ESTIMATE_OUTCOMES = ("estimate", "se", "p_value", "low", "high")


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


class StudyKind:
    """A kind of study: subclass it and define :meth:`setup`, :meth:`generate` and
    :meth:`analyse`; every other hook has a default.

    Attributes
    ----------
    grid : str, default "x"
        The name of the grid (the table's column ``grid``; the figures' x label).
    methods : tuple of str or None, default None
        The interval methods the kind runs (a condition's ``method`` must be one); ``None``:
        the kind does not choose by method name.
    protocol : optional
        What a user's method function is called with (:mod:`rocsim.core.methods`); ``None``:
        the kind takes no user method.
    data_settings : tuple of str or None, default None
        The settings that determine a condition's data sets: conditions equal in them draw the
        same data sets, replication by replication (common random numbers). ``None``: every
        setting, so that each condition draws its own.
    bootstraps : tuple of str, default ("stratified", "full")
        The bootstraps a condition's ``bootstrap`` may name (the config group's schemes, or
        the core function's own choices that the kind passes on).

    Examples
    --------
    >>> class MeanStudy(StudyKind):
    ...     grid = "n"
    ...     def setup(self, condition):
    ...         return Setup(x=np.array([condition.settings["n"]]), target=np.array([0.0]))
    ...     def generate(self, condition, setup, rng):
    ...         return rng.normal(0.0, 1.0, condition.settings["n"])
    ...     def analyse(self, condition, setup, data):
    ...         half = 1.96 * data.std(ddof=1) / np.sqrt(data.size)
    ...         return interval_outcome(setup.target, data.mean() - half, data.mean() + half)
    """

    grid: ClassVar[str] = "x"
    methods: ClassVar[tuple[str, ...] | None] = None
    protocol: ClassVar[Any] = None
    data_settings: ClassVar[tuple[str, ...] | None] = None
    bootstraps: ClassVar[tuple[str, ...]] = SCHEMES

    # --- what a kind defines ------------------------------------------------------------------

    def setup(self, condition: Condition) -> Setup:
        """The grid and the true values of ``condition`` (and what the data sets reuse)."""
        raise NotImplementedError(f"{type(self).__name__} must define setup(condition)")

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator) -> Any:
        """One data set, drawn from ``rng`` only (the replication's generator)."""
        raise NotImplementedError(
            f"{type(self).__name__} must define generate(condition, setup, rng)"
        )

    def analyse(self, condition: Condition, setup: Setup, data: Any) -> dict[str, Any]:
        """One data set's outcomes at every grid point, arrays of the grid's length:
        an interval's :data:`CORE_OUTCOMES` (see :func:`interval_outcome`), or estimates
        (:data:`ESTIMATE_OUTCOMES`: ``estimate`` and any of ``se``, ``p_value``, ``low``,
        ``high``), or both. Bounds without ``cover`` give the interval outcomes of
        ``[low, high]`` around ``setup.target``; estimates give the table the performance
        measures of :func:`rocsim.sim.performance.performance_measures_grid` (bias, empirical
        and model SE, MSE, rejection, ...), each with its Monte Carlo SE. Any other outcome is
        averaged over the replications into a column of its own name."""
        raise NotImplementedError(
            f"{type(self).__name__} must define analyse(condition, setup, data)"
        )

    # --- what a kind may define ---------------------------------------------------------------

    def analyse_block(
        self, condition: Condition, setup: Setup, block: Sequence[Any]
    ) -> dict[str, np.ndarray]:
        """:meth:`analyse` of a block of data sets, each outcome stacked (a row per data set).
        A kind may do the block at once, with the per-call work shared; the outcomes must be
        those of one :meth:`analyse` per data set."""
        rows = [self.analyse(condition, setup, data) for data in block]
        return {name: np.stack([np.asarray(row[name]) for row in rows]) for name in rows[0]}

    def exact(self, condition: Condition, setup: Setup) -> dict[str, np.ndarray]:
        """The exact coverage of ``condition`` (``coverage=exact``): the kind has none unless
        it defines it."""
        raise ValueError(
            f"study kind {type(self).__name__} has no exact coverage; use coverage=simulate"
        )

    def exact_split(self, condition: Condition, setup: Setup) -> list[Any]:
        """The parts :meth:`exact` may be cut into, computed side by side (one by default)."""
        return [None]

    def exact_part(self, condition: Condition, setup: Setup, part: Any) -> Any:
        """One part of :meth:`exact` (the whole of it by default)."""
        return self.exact(condition, setup)

    def exact_join(self, condition: Condition, setup: Setup, results: list[Any]) -> Any:
        """:meth:`exact`'s result from its parts' results, in :meth:`exact_split`'s order."""
        return results[0]

    def exact_beside(self, condition: Condition, limit: float) -> bool:
        """Whether a simulated run also computes ``condition``'s exact coverage, to draw
        beside it (within the run's ``limit``); never by default."""
        return False

    def outcome_settings(self, settings: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The settings the outcomes depend on, which key the cache of outcomes; ``None``:
        all of them."""
        return None

    def unavailable(self, condition: Condition) -> str | None:
        """Why ``condition`` cannot run on this machine (an optional package missing), in one
        line, or ``None``."""
        return None


def interval_outcome(target, low, high) -> dict[str, np.ndarray]:
    """The :data:`CORE_OUTCOMES` of intervals ``[low, high]`` (arrays over the grid) for true
    values ``target``: covered; the target below the interval; above it; the width."""
    return {
        "cover": (low <= target) & (target <= high),
        "below": target < low,
        "above": target > high,
        "width": high - low,
    }


def as_kind(kind: Any, name: str) -> StudyKind:
    """``kind`` if it is a :class:`StudyKind` (an instance, or a class made into one), else a
    ``ValueError`` naming ``name`` and what is missing."""
    if isinstance(kind, type) and issubclass(kind, StudyKind):
        kind = kind()
    if not isinstance(kind, StudyKind):
        raise ValueError(
            f"study kind {name!r} is {type(kind).__name__}, not a rocsim.sim.StudyKind: "
            "subclass it and define setup, generate and analyse"
        )
    return kind
