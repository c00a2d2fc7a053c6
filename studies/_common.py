"""Helpers shared by the study kinds: grids, class sizes, score models from settings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from scipy import integrate

from rocsim.core import (
    VERTICAL_PROTOCOL,
    default_pseudo_count,
    fpr_ranks,
)
from rocsim.sim.conditions import DATA_SETTINGS, Condition
from rocsim.sim.extensions import build_model, resolve_method
from rocsim.sim.kinds import Setup, StudyKind, interval_outcome  # noqa: F401 (re-exported)
from rocsim.sim.models import PairedScoreModel, ScoreModel, draw_test_set


def grid_values(grid: Mapping) -> np.ndarray:
    """Grid points ``start .. stop`` in ``num`` equal steps, rounded to 12 digits."""
    num = int(grid["num"])
    if num < 1:
        raise ValueError(f"grid needs num >= 1, got {num}")
    return np.round(np.linspace(float(grid["start"]), float(grid["stop"]), num), 12)


def fpr_grid(settings: Mapping, n_neg: int) -> tuple[np.ndarray, np.ndarray]:
    """FPR ranks ``r`` nearest to the grid of ``settings`` and the FPRs ``r / n-``."""
    r = fpr_ranks(grid_values(settings["grid"]), n_neg)
    return r, r / n_neg


#: Averaging of the band studies (the ``averaging`` axis).
BAND_AVERAGING = ("vertical", "horizontal")


def averaging(settings) -> str:
    """A band study's averaging (setting ``averaging``, vertical by default)."""
    how = settings.get("averaging") or "vertical"
    if how not in BAND_AVERAGING:
        raise ValueError(f"a band study's averaging is vertical or horizontal, got {how!r}")
    return how


def band_outcome(truth: np.ndarray, low: np.ndarray, high: np.ndarray) -> dict[str, np.ndarray]:
    """One replication of a band study: whether the truth lies in the band at every point
    at once (``cover``), leaves it below / above somewhere, the band's mean width and the
    share of points covered (``coverage_pointwise``)."""
    inside = (low <= truth) & (truth <= high)
    return {
        "cover": np.array([inside.all()]),
        "below": np.array([np.any(truth < low)]),
        "above": np.array([np.any(truth > high)]),
        "width": np.array([np.mean(high - low)]),
        "coverage_pointwise": np.array([inside.mean()]),
    }


def class_sizes(n: int, pi: float) -> tuple[int, int]:
    """``(n+, n-)`` for a test set of ``2n`` instances with a share ``pi`` of positives.

    ``n`` is the per-class size of the balanced design (``pi = 0.5`` gives ``n+ = n- = n``),
    as in every study of the thesis.
    """
    total = 2 * int(n)
    if not 0.0 < float(pi) < 1.0:
        raise ValueError(f"pi must be in (0, 1), got {pi}")
    n_pos = round(total * float(pi))
    if n_pos < 1 or n_pos > total - 1:
        raise ValueError(f"n={n}, pi={pi} leaves a class empty")
    return n_pos, total - n_pos


def model_from_settings(settings: Mapping) -> ScoreModel:
    """The single-classifier score model of a condition (built-in family or ``_target_``)."""
    model = build_model(settings["model"])
    if not isinstance(model, ScoreModel):
        raise ValueError("this study needs the score model of one classifier, not a paired one")
    return model


def paired_model_from_settings(settings: Mapping) -> PairedScoreModel:
    """The paired score model of a condition (two classifiers on the same instances)."""
    model = build_model(settings["model"])
    if not isinstance(model, PairedScoreModel):
        raise ValueError("paired studies need a paired score model (model=paired_dispersion)")
    return model


def outcome_settings(settings: Mapping, interval_kind: str) -> dict:
    """The settings as a kind's analysis reads them (its ``outcome_settings``, which key the
    runner's cache of outcomes): the pseudo-count of a method that takes one resolved as the
    core resolves it (the method's default for ``interval_kind`` in
    :mod:`rocsim.core.registry` when not given, a float when given), so that a study spelling
    out the default shares its outcomes with one that does not."""
    out = dict(settings)
    default = (
        None
        if out.get("method_target")
        else default_pseudo_count(interval_kind, out.get("method"))
    )
    if default is not None:
        given = out.get("pseudo_count")
        out["pseudo_count"] = default if given is None else float(given)
    return out


def interval_options(settings: Mapping, *names: str) -> dict:
    """Keyword arguments of the core's interval functions from a condition's settings:
    ``confidence_level`` and ``method`` (:func:`interval_method`), and those of ``names``
    (``pseudo_count``, ``bootstrap``, ``sampling``) the function takes."""
    options = {"confidence_level": settings["confidence_level"]}
    options["method"] = interval_method(settings)
    return options | {name: settings[name] for name in names}


def interval_method(settings: Mapping) -> str | Callable:
    """What the core is given as ``method``: a built-in method's name, or the user's function
    named by the interval config's ``_target_`` (:mod:`rocsim.sim.extensions`)."""
    spec = settings.get("method_target")
    return resolve_method(spec) if spec else settings["method"]


def rectangle_outcome(
    target_tpr, target_fpr, tpr_low, tpr_high, fpr_low, fpr_high
) -> dict[str, np.ndarray]:
    """Per-point results of a confidence rectangle (threshold averaging, one or two
    classifiers): covered when both axes cover; a miss is low/high on at least one axis."""
    cover_tpr = (tpr_low <= target_tpr) & (target_tpr <= tpr_high)
    cover_fpr = (fpr_low <= target_fpr) & (target_fpr <= fpr_high)
    return {
        "cover": cover_tpr & cover_fpr,
        "below": (target_tpr < tpr_low) | (target_fpr < fpr_low),
        "above": (target_tpr > tpr_high) | (target_fpr > fpr_high),
        "width": tpr_high - tpr_low,
        "coverage_tpr": cover_tpr,
        "coverage_fpr": cover_fpr,
        "mean_width_fpr": fpr_high - fpr_low,
    }


def first_row(outcomes: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The outcomes of the first replication of a block (``analyse`` from ``analyse_block``)."""
    return {name: values[0] for name, values in outcomes.items()}


def analyse_in_groups(
    block: list, method, analyse_group: Callable, sizes: Callable[[Any], tuple[int, ...]]
) -> dict[str, np.ndarray]:
    """The outcomes of a whole block, stacked per outcome: ``analyse_group`` on the data sets
    of ``block`` that share their class sizes (``sizes(data)``; random under full sampling),
    one group after the other, its rows put back in the block's order. A user's ``method``
    (a function) is given one data set at a time, as its protocol promises."""
    if callable(method):
        groups = [[i] for i in range(len(block))]
    else:
        by_size: dict[tuple[int, ...], list[int]] = {}
        for i, data in enumerate(block):
            by_size.setdefault(sizes(data), []).append(i)
        groups = list(by_size.values())
    out: dict[str, np.ndarray] = {}
    for rows in groups:
        for name, values in analyse_group([block[i] for i in rows]).items():
            values = np.asarray(values)
            if name not in out:
                out[name] = np.empty((len(block), *values.shape[1:]), dtype=values.dtype)
            out[name][rows] = values
    return out


def class_sizes_of(data) -> tuple[int, int]:
    """``(n+, n-)`` of a test set ``(pos, neg, ...)`` of one classifier."""
    return data[0].size, data[1].size


def paired_class_sizes_of(data) -> tuple[int, int]:
    """``(n+, n-)`` of a paired test set ``(pos1, pos2, neg1, neg2)``."""
    return data[0].size, data[2].size


class BuiltinKind(StudyKind):
    """rocsim's own kinds: the data sets depend on the design only (:data:`DATA_SETTINGS`), so
    every method, level and pseudo-count of a design is judged on the same data sets."""

    data_settings = DATA_SETTINGS


class SimulatedOnly(BuiltinKind):
    """What the studies of rocsim's own interval methods share (bands, partial and whole
    AUCs): built-in methods only, stratified test sets, no exact coverage. ``setup`` puts
    the score model and class sizes on its payload (``model``, ``n_pos``, ``n_neg``)."""

    kind = ""
    protocol = VERTICAL_PROTOCOL
    #: Whether the kind runs a method of the user's own (an interval config's ``_target_``,
    #: called as :attr:`protocol` says) beside its built-in ones.
    user_methods: bool = False

    def check_settings(self, settings) -> None:
        if settings["sampling"] != "stratified" or settings["bootstrap"] != "stratified":
            raise ValueError(
                f"{self.kind} studies need sampling=stratified and bootstrap=stratified"
            )
        if settings.get("method_target") and not self.user_methods:
            raise ValueError(f"{self.kind} studies compare their built-in methods")

    def model_and_sizes(self, settings) -> tuple[ScoreModel, int, int]:
        self.check_settings(settings)
        return model_from_settings(settings), *class_sizes(settings["n"], settings["pi"])

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        p = setup.payload
        return draw_test_set(p.model, p.n_pos, p.n_neg, "stratified", rng)

    def exact(self, condition: Condition, setup: Setup):
        raise ValueError(f"{self.kind} studies are simulated only; use coverage=simulate")


def true_area(model: ScoreModel, f: float = 1.0) -> float:
    """``int_0^f S+(S-^{-1}(u)) du``, the true curve's area up to FPR ``f`` (the AUC at
    ``f = 1``)."""
    value, _ = integrate.quad(
        lambda u: float(model.pos.sf(model.neg.isf(u))), 0.0, f, epsabs=1e-13, epsrel=1e-12
    )
    return value
