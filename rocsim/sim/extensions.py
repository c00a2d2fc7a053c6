"""Interval methods and score models of the user's own, named in a config by ``_target_``.

Hydra's ``instantiate`` convention: ``_target_`` is the dotted path of a function (or class)
in any importable module (the working folder counts, for the ``rocsim`` command), and the
config's other keys are its keyword arguments.

An interval method (``interval/<name>.yaml``)::

    method: mine                      # its name in tables, figures and comparisons
    _target_: my_intervals.mid_p      # f(x, n, confidence_level) -> (low, high), or the
    pseudo_count: null                # protocol of the study's kind (rocsim.core.methods)
    # any further key is passed to the function as a keyword argument

A score model (``model/<name>.yaml``)::

    _target_: my_models.gamma_classes # returns a rocsim.sim.models.ScoreModel
    variables: {theta: 2.0}           # defaults of the study axes it uses
    shape: theta                      # keyword arguments: numbers or expressions of axes

Both are checked before a study runs: the method against its protocol on a small input, the
model for its type and its truths (:func:`check_score_model`).
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from rocsim.sim.models import (
    MulticlassScoreModel,
    PairedScoreModel,
    ScoreModel,
    make_model,
    make_multiclass_model,
    make_paired_model,
)

#: Keys of an interval config that configure rocsim, not the user's function.
INTERVAL_KEYS = ("method", "pseudo_count", "_target_")


def method_spec(interval: Mapping[str, Any]) -> dict[str, Any] | None:
    """``{"_target_": ..., **keyword arguments}`` of an interval config that names a user's
    function, or ``None`` for a built-in method."""
    if not interval.get("_target_"):
        return None
    kwargs = {k: v for k, v in interval.items() if k not in INTERVAL_KEYS}
    return {"_target_": str(interval["_target_"]), **kwargs}


def method_label(interval: Mapping[str, Any]) -> str:
    """The name a method has in tables: ``method:`` of its config, else its function's name."""
    if interval.get("method"):
        return str(interval["method"])
    return str(interval["_target_"]).rpartition(".")[2]


def resolve_method(spec: Mapping[str, Any]) -> Callable:
    """The function of a method spec (:func:`method_spec`), its keyword arguments bound."""
    return _resolve_method(json.dumps(dict(spec), sort_keys=True))


@functools.lru_cache(maxsize=64)
def _resolve_method(spec_json: str) -> Callable:
    spec = json.loads(spec_json)
    target = spec.pop("_target_")
    function = locate(target, "interval method")
    if not callable(function):
        raise ValueError(f"interval method _target_ {target!r} is not callable")
    return functools.partial(function, **spec) if spec else function


def locate(target: str, what: str) -> Any:
    """The object at dotted path ``target`` (``package.module.function``, or an attribute of
    a class), or a ``ValueError`` saying why it is not there."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name and module_name.startswith(err.name):
                continue  # a shorter prefix may be the module
            raise ValueError(
                f"{what} _target_ {target!r}: importing {module_name!r} failed: {err}"
            ) from err
        try:
            return functools.reduce(getattr, parts[cut:], obj)
        except AttributeError:
            raise ValueError(
                f"{what} _target_ {target!r}: module {module_name!r} has no "
                f"{'.'.join(parts[cut:])!r}"
            ) from None
    raise ValueError(
        f"{what} _target_ {target!r} cannot be imported: no module "
        f"{parts[0]!r}; it must be importable (in the working folder, on "
        f"PYTHONPATH, or installed)"
    )


def build_model(
    spec: Mapping[str, Any],
) -> ScoreModel | PairedScoreModel | MulticlassScoreModel:
    """The score model of an evaluated model spec: a user's ``_target_``, a paired binormal
    model (``pos2``, ``neg2``, ``rho``), a multiclass model (``classes``), or one of the
    built-in families."""
    if "_target_" in spec:
        return _build_target_model(json.dumps(dict(spec), sort_keys=True))
    if "pos2" in spec:
        return make_paired_model(spec["pos"], spec["neg"], spec["pos2"], spec["neg2"], spec["rho"])
    if "classes" in spec:
        return make_multiclass_model(spec["family"], spec["pos"], spec["neg"], spec["classes"])
    return make_model(spec["family"], spec["pos"], spec["neg"])


@functools.lru_cache(maxsize=64)
def _build_target_model(spec_json: str) -> ScoreModel | PairedScoreModel:
    spec = json.loads(spec_json)
    target = spec.pop("_target_")
    factory = locate(target, "score model")
    try:
        model = factory(**spec)
    except Exception as err:
        raise ValueError(
            f"score model {target!r} failed with arguments {spec}: {type(err).__name__}: {err}"
        ) from err
    return check_score_model(model, target)


def check_score_model(model: Any, name: str) -> ScoreModel | PairedScoreModel:
    """``model`` if it is a :class:`~rocsim.sim.models.ScoreModel` (or a paired one) whose
    draws and truths look right on a small probe; otherwise ``ValueError`` naming ``name``."""
    if not isinstance(model, ScoreModel | PairedScoreModel):
        raise ValueError(
            f"score model {name!r} returned {type(model).__name__}; it must return "
            "a rocsim.sim.models.ScoreModel, e.g. "
            "rocsim.sim.models.ScoreModel.from_distributions(pos, neg) with two scipy.stats "
            "distributions"
        )
    if isinstance(model, PairedScoreModel):
        return model
    try:
        _probe_score_model(model, name)
    except ValueError as err:
        if str(err).startswith("score model"):
            raise
        raise ValueError(f"score model {name!r}: {str(err).splitlines()[0]}") from err
    except Exception as err:
        raise ValueError(
            f"score model {name!r} failed on a probe of its draws and truths: "
            f"{type(err).__name__}: {err}"
        ) from err
    return model


def _probe_score_model(model: ScoreModel, name: str) -> None:
    rng = np.random.default_rng(0)
    for cls in ("pos", "neg"):
        draw = np.asarray(getattr(model, cls).sample(rng, 7))
        if draw.shape != (7,) or not np.all(np.isfinite(draw)):
            raise ValueError(
                f"score model {name!r}: sampling 7 {cls} scores gave "
                f"{draw.shape} values (finite: {np.all(np.isfinite(draw))})"
            )
    q = np.array([0.1, 0.5, 0.9])
    t = model.threshold_for_total_positive_ratio(q)
    rates = np.concatenate([model.tpr(t), model.fpr(t)])
    if not (np.all(np.isfinite(t)) and np.all((rates >= 0) & (rates <= 1))):
        raise ValueError(
            f"score model {name!r}: its survival functions do not give rates in "
            f"[0, 1] (thresholds {t}, rates {rates})"
        )
