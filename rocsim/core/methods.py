"""Interval methods given as functions: the protocols they follow and how they are checked.

Every interval function of rocsim takes ``method`` either as the name of a built-in method (a
key of its dispatch table) or as a function of the user's own, following the protocol of that
kind of interval. Each kind owns its protocol, a :class:`MethodProtocol` value beside its table
of methods:

``proportion`` (:data:`rocsim.core.intervals.PROPORTION_PROTOCOL`)
    ``f(x, n, confidence_level) -> (low, high)`` for the proportion ``x / n``. ``x`` and ``n``
    are float arrays that broadcast together (``n`` may be non-integer: an effective size
    under the full bootstrap, and so may ``x``). Used by threshold averaging (each rate of a
    rectangle, at ``sqrt(level)``), its exact coverage, and cost curves (each class's interval
    read as a Gaussian: centre and half-width / z).
``paired`` (:data:`rocsim.core.intervals.PAIRED_PROTOCOL`)
    ``f(b, c, n, confidence_level) -> (low, high)`` for the difference ``(b - c) / n`` of two
    paired proportions (``b``, ``c``: the discordant counts). Used by threshold averaging of two
    classifiers and the cost difference of two classifiers.
``vertical`` (:data:`rocsim.core.vertical.VERTICAL_PROTOCOL`)
    ``f(law, confidence_level) -> (low, high)`` where ``law`` is the exact bootstrap law of TPR
    at each FPR, a :class:`~rocsim.core.vertical.VerticalDistribution` (``mean``, ``var``,
    ``m_pos``, ``pmf``, ``quantile(p)``). Used by vertical averaging.
``vertical_difference`` (:data:`rocsim.core.paired_vertical.VERTICAL_DIFFERENCE_PROTOCOL`)
    The same call with ``law`` a :class:`~rocsim.core.paired_vertical.VerticalDifference`
    (``mean``, ``var``, ``m_pos``, ``discordance``) for ``TPR1 - TPR2``. A function that uses
    only ``mean``, ``var`` and ``m_pos`` fits both vertical protocols.
``precision`` (:data:`rocsim.core.precision_recall.PR_PROTOCOL`)
    The same call with ``law`` a :class:`~rocsim.core.precision_recall.PRDistribution`
    (``mean``, ``var``, ``score_size``, ``quantile(p)``): precision at fixed recalls.
``auc`` (:data:`rocsim.core.area.AUC_PROTOCOL`)
    ``f(data) -> var`` or ``-> Pivot(var, z)`` for one AUC, ``data`` an
    :class:`~rocsim.core.auc_methods.AUCData` (``auc``, ``n_pos``, ``n_neg`` and
    ``variance(name)``, the AUC's ``"delong"`` or ``"exact_bootstrap"`` variance): a variance
    gives the Wald interval and test on it; a :class:`~rocsim.core.auc_methods.Pivot` with a
    decreasing ``z(theta)`` gives the AUCs its test does not reject, and its p-value.

The bounds are returned unclipped, as arrays of the shape of the broadcast inputs (one per
FPR for the vertical protocols); rocsim clips them to ``[0, 1]`` (``[-1, 1]`` for differences).
Before its first use a function is called once on a small input, and a wrong signature, an
exception or an output of the wrong shape is reported as a ``ValueError`` naming the function.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: A probe: ``(arguments to call the method with, shape its bounds must have)``.
Probe = Callable[[], tuple[tuple[Any, ...], tuple[int, ...]]]

#: The level every probe calls a method at.
PROBE_LEVEL = 0.9


@dataclass(frozen=True)
class MethodProtocol:
    """How a kind of interval calls a method: the kind's name, the call's signature (for
    messages) and a probe, a small input of the kind on which a method must return
    well-formed bounds. Each kind of interval owns its protocol, as a value beside its table of
    methods (:data:`rocsim.core.intervals.PROPORTION_PROTOCOL`, ...): this module imports no
    law."""

    kind: str
    signature: str
    probe: Probe
    #: ``check(output, name)``: raise ``ValueError`` when a method's output on the probe is
    #: not what the kind needs; by default, bounds of the probe's shape.
    check: Callable[[Any, str], None] | None = None


# protocols (kinds) each method has passed; weak keys, so that checked functions can be freed
_CHECKED: weakref.WeakKeyDictionary[Callable, set[str]] = weakref.WeakKeyDictionary()


def method_name(method: str | Callable) -> str:
    """A readable name of a method: the name itself, or the function's (``mid_p``)."""
    if isinstance(method, str):
        return method
    target = method.func if isinstance(method, functools.partial) else method
    return getattr(target, "__qualname__", None) or getattr(target, "__name__", repr(method))


def call_method(method: str | Callable, table: dict[str, Callable], law, level: float):
    """Call a checked method on ``(law, level)``: the row of ``table`` it names, or the user's
    function, whose bounds are checked at every call (:func:`checked_bounds`), one per point of
    the law (``law.mean``)."""
    if isinstance(method, str):
        return table[method](law, level)
    return checked_bounds(method, method(law, level), np.shape(law.mean))


def checked_bounds(method: Callable, bounds, shape: tuple[int, ...]):
    """The bounds a user's function returned on real data, as two float arrays of ``shape``,
    or a one-line ``ValueError`` naming the function: its probe (:func:`check_method_function`)
    passed, but a function may still fail on other data (NaN where a variance is 0, low above
    high past some point), and its bounds would become NaN rows, or a coverage of 0."""
    name, what = method_name(method), f"(low, high), two arrays of shape {shape}"
    low, high = _as_bounds(bounds, shape, name, what)
    bad = ~(np.isfinite(low) & np.isfinite(high))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"interval method {name!r} returned NaN or infinite bounds at {int(bad.sum())} of "
            f"{bad.size} points (first: low={low.flat[i]}, high={high.flat[i]}); its bounds "
            "must be finite wherever it is called"
        )
    crossed = low > high + 1e-12
    if crossed.any():
        i = int(np.flatnonzero(crossed)[0])
        raise ValueError(
            f"interval method {name!r} returned low > high at {int(crossed.sum())} of "
            f"{crossed.size} points (first: low={low.flat[i]}, high={high.flat[i]})"
        )
    return low, high


def check_method_function(method: Callable, protocol: MethodProtocol) -> Callable:
    """Return ``method`` once it has been seen to follow ``protocol``, or raise ``ValueError``
    saying what is wrong with it."""
    try:
        if protocol.kind in _CHECKED.get(method, ()):
            return method
    except TypeError:  # not weakly referenceable: probed at every call
        pass
    name = method_name(method)
    args, shape = protocol.probe()
    try:
        inspect.signature(method).bind(*args)
    except TypeError:
        raise ValueError(
            f"interval method {name!r} must be callable as {protocol.signature} "
            f"({protocol.kind} methods); its signature is "
            f"{_signature(method)}"
        ) from None
    except ValueError:  # some builtins have no signature: let the call decide
        pass
    try:
        bounds = method(*args)
    except Exception as err:
        raise ValueError(
            f"interval method {name!r} failed on a test input of its protocol "
            f"{protocol.signature}: {type(err).__name__}: {err}"
        ) from err
    if protocol.check is not None:
        protocol.check(bounds, name)
    else:
        _check_bounds(bounds, shape, name, protocol.signature)
    try:
        _CHECKED.setdefault(method, set()).add(protocol.kind)
    except TypeError:
        pass
    return method


def _signature(method: Callable) -> str:
    try:
        return str(inspect.signature(method))
    except (TypeError, ValueError):
        return "unknown"


def _as_bounds(bounds, shape: tuple[int, ...], name: str, what: str):
    """``bounds`` as two float arrays of ``shape`` (numpy broadcasting), or a ``ValueError``
    saying the method must return ``what``."""
    expected = f"must return {what}"
    if isinstance(bounds, str | bytes) or not hasattr(bounds, "__len__") or len(bounds) != 2:
        raise ValueError(
            f"interval method {name!r} {expected}; it returned {type(bounds).__name__}"
        )
    try:
        low, high = (np.broadcast_to(np.asarray(b, dtype=float), shape) for b in bounds)
    except (TypeError, ValueError):
        got = [np.shape(b) for b in bounds]
        raise ValueError(
            f"interval method {name!r} {expected}; it returned shapes {got}"
        ) from None
    return low, high


def _check_bounds(bounds, shape: tuple[int, ...], name: str, signature: str) -> None:
    what = f"(low, high), two arrays of shape {shape} ({signature})"
    low, high = _as_bounds(bounds, shape, name, what)
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        raise ValueError(
            f"interval method {name!r} returned non-finite bounds on a test "
            f"input where every bound is defined: low={low}, high={high}"
        )
    if np.any(low > high + 1e-12):
        raise ValueError(
            f"interval method {name!r} returned low > high on a test input: low={low}, high={high}"
        )


def check_method(
    method: str | Callable, valid, protocol: MethodProtocol, what: str
) -> str | Callable:
    """``method`` if it names one of ``valid`` (a table of methods, or their names) or is a
    function following ``protocol``; otherwise a ``ValueError`` listing both possibilities.
    The one check of every kind of interval."""
    if callable(method):
        return check_method_function(method, protocol)
    valid = list(valid)
    if not isinstance(method, str) or method not in valid:
        raise ValueError(
            f"unknown {what} {method!r}; valid: {', '.join(valid)}, or a function "
            f"{protocol.signature}"
        )
    return method
