"""Conditions of a study: the product of its axes, resolved into concrete settings.

A study definition names axes (``theta: [0.75, 1.5, 3, 5]``, ``n: [25, 250]``,
``model: [...]``). A condition is one point of their product. Axis values either replace a
setting (``n``, ``pi``, ``bootstrap``, ``sampling``, ``method``, ``pseudo_count``,
``confidence_level``, ``threshold``, ``cost_prior``, ``model``, the multiclass AUC's
``multi_class`` and ``average``, the band studies' ``averaging``, the AUC tests'
``alternative`` and ``null``; ``scheme`` sets ``sampling``
and ``bootstrap`` together) or are variables of the score model's parameter expressions
(``mu: theta``, ``mu: -theta``, ``mu: theta + shift``).
"""

from __future__ import annotations

import ast
import hashlib
import itertools
import json
import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scipy import special

#: Axis names that replace a setting; any other axis is a model variable.
SETTING_AXES = (
    "model",
    "n",
    "pi",
    "bootstrap",
    "sampling",
    "method",
    "pseudo_count",
    "confidence_level",
    "scheme",
    "threshold",
    "cost_prior",
    "multi_class",
    "average",
    "averaging",
    "alternative",
    "null",
)


#: Settings that determine a replication's data set, hence its seed; the others only analyse it.
DATA_SETTINGS = ("model", "n", "pi", "sampling")


@dataclass(frozen=True)
class Condition:
    """One condition of a study.

    Attributes
    ----------
    study : str
        Study name (``fig4_3``).
    params : dict
        The axis values of this condition, in axis order (``{"theta": 5.0}``).
    settings : dict
        Every setting the study kind needs, with the axis values applied and the model's
        parameter expressions evaluated (plain JSON types only).
    """

    study: str
    params: dict[str, Any]
    settings: dict[str, Any] = field(repr=False)

    @property
    def label(self) -> str:
        """Readable label, e.g. ``theta=5`` or ``n=250,bootstrap=full``."""
        return ",".join(f"{k}={_fmt(v)}" for k, v in self.params.items()) or "default"

    def key(self) -> str:
        """Digest of everything that determines the condition's results."""
        return _digest([self.study, self.params, self.settings])

    def outcome_key(self, kind: str, settings: Mapping[str, Any] | None = None) -> str:
        """Digest of what determines the condition's outcomes, study and labels aside: the
        study ``kind`` and the ``settings`` its analysis reads (default: all of them). Conditions
        of any study with equal outcome keys have the same outcomes, replication by replication
        (common random numbers), so a run can take them from another's cache."""
        return _digest([kind, self.settings if settings is None else dict(settings)])

    def data_key(self, names: Sequence[str] | None = DATA_SETTINGS) -> str:
        """Digest of the settings ``names`` that determine the condition's data sets
        (:data:`DATA_SETTINGS` for rocsim's kinds; ``None``: every setting): conditions that
        differ only in how they analyse the data (interval method, level, pseudo-count,
        bootstrap formulas, threshold rule) and studies that share a design draw the same data
        sets, replication by replication (common random numbers)."""
        if names is None:
            return _digest(self.settings)
        return _digest({name: self.settings.get(name) for name in names})


def _digest(value: Any) -> str:
    blob = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def expand_conditions(
    study: str,
    axes: Mapping[str, list],
    base: Mapping[str, Any],
    models: Mapping[str, Mapping] | None = None,
) -> list[Condition]:
    """All conditions of a study: the product of ``axes`` applied to ``base`` settings.

    Parameters
    ----------
    study : str
    axes : mapping of axis name -> list of values
    base : mapping
        Settings shared by every condition; ``base["model"]`` is a model spec
        ``{"family", "pos", "neg"}`` whose parameters may be expressions of model variables,
        and ``base["variables"]`` their default values.
    models : mapping, optional
        Named model specs an axis called ``model`` chooses from.
    """
    names = list(axes)
    for name in names:
        if not isinstance(axes[name], list | tuple) or len(axes[name]) == 0:
            raise ValueError(f"axis {name!r} needs a non-empty list of values")
    conditions = []
    for values in itertools.product(*(axes[n] for n in names)) if names else [()]:
        params = dict(zip(names, values))
        conditions.append(Condition(study, params, resolve_settings(base, params, models or {})))
    return conditions


def resolve_settings(
    base: Mapping[str, Any], params: Mapping[str, Any], models: Mapping[str, Mapping]
) -> dict[str, Any]:
    """Apply one condition's axis values to the base settings."""
    settings = json.loads(json.dumps(dict(base)))
    variables = dict(settings.pop("variables", {}) or {})
    for name, value in params.items():
        if name == "model":
            if value not in models:
                raise ValueError(f"unknown model {value!r}; valid: {', '.join(models)}")
            settings["model"] = json.loads(json.dumps(dict(models[value])))
        elif name == "scheme":
            settings["sampling"] = settings["bootstrap"] = value
        elif name in SETTING_AXES:
            settings[name] = value
            if name == "method" and value != base.get("method"):
                settings.pop("method_target", None)  # a built-in method, not the user's
        else:
            variables[name] = value
    settings["model"] = _evaluate_model(settings["model"], variables)
    # the variables themselves too: an axis a kind reads directly (not through the model)
    # must enter the condition's cache key like any setting
    settings["variables"] = variables
    return settings


def _evaluate_model(spec: Mapping[str, Any], variables: Mapping[str, float]) -> dict[str, Any]:
    # the family or the user's factory is a name, not an expression
    out = {k: spec[k] for k in ("family", "_target_") if k in spec}
    for part in spec:
        if part in out:
            continue
        params = spec[part]
        if isinstance(params, bool):
            out[part] = params  # a switch of the model (paired: common_threshold)
        elif isinstance(params, str | int | float):
            out[part] = evaluate(params, variables)  # a scalar parameter (paired: rho)
        elif isinstance(params, Mapping):
            out[part] = {k: evaluate(v, variables) for k, v in params.items()}
        else:
            out[part] = [evaluate(v, variables) for v in params]
    return out


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


#: Functions a model parameter's expression may call: ``ndtri`` (the standard normal
#: quantile) puts a binormal model at a given AUC, ``mu = sqrt(2) * ndtri(auc)``.
_FUNCTIONS = {"sqrt": math.sqrt, "ndtri": lambda p: float(special.ndtri(p))}


def evaluate(expression: Any, variables: Mapping[str, float]) -> float:
    """Value of a number or of an arithmetic expression such as ``"-theta"``, ``"theta + 2"``,
    ``"sqrt(2) * ndtri(auc)"``.

    Only numbers, variable names, ``+ - * /``, parentheses and the functions ``sqrt`` and
    ``ndtri`` are allowed.
    """
    if isinstance(expression, int | float) and not isinstance(expression, bool):
        return float(expression)
    if not isinstance(expression, str):
        raise ValueError(f"model parameter must be a number or expression, got {expression!r}")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ValueError(f"cannot parse model parameter {expression!r}") from None
    return float(_eval_node(tree.body, variables, expression))


def _variable_value(name: str, value: Any) -> float:
    """A model variable's value as a number, or one line naming its key (a command-line
    ``model.variables.theta=abc``, or an axis of that name)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"model variable {name!r} (model.variables.{name}, or an axis {name}) must be a "
            f"number, got {value!r}"
        ) from None


def _eval_node(node, variables, text):
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in variables:
            raise ValueError(
                f"model parameter {text!r} uses {node.id!r}, which no axis or "
                f"variable defines (known: {', '.join(variables) or 'none'})"
            )
        return _variable_value(node.id, variables[node.id])
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left = _eval_node(node.left, variables, text)
        return _OPERATORS[type(node.op)](left, _eval_node(node.right, variables, text))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_eval_node(node.operand, variables, text))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and len(node.args) == 1
        and not node.keywords
    ):
        return _FUNCTIONS[node.func.id](_eval_node(node.args[0], variables, text))
    raise ValueError(
        f"model parameter {text!r}: only numbers, names, + - * / and the functions "
        f"{', '.join(_FUNCTIONS)} are allowed"
    )


def _fmt(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
