"""Interval methods given as functions: the protocols they follow and how they are checked.

Every interval function of rocsim takes ``method`` either as the name of a built-in method (a
key of its dispatch table) or as a function of the user's own, following the protocol of that
kind of interval:

``proportion``
    ``f(x, n, confidence_level) -> (low, high)`` for the proportion ``x / n``. ``x`` and ``n``
    are float arrays that broadcast together (``n`` may be non-integer: an effective size
    under the full bootstrap, and so may ``x``). Used by threshold averaging (each rate of a
    rectangle, at ``sqrt(level)``), its exact coverage, and cost curves (each class's interval
    read as a Gaussian: centre and half-width / z).
``paired``
    ``f(b, c, n, confidence_level) -> (low, high)`` for the difference ``(b - c) / n`` of two
    paired proportions (``b``, ``c``: the discordant counts). Used by threshold averaging of two
    classifiers and the cost difference of two classifiers.
``vertical``
    ``f(law, confidence_level) -> (low, high)`` where ``law`` is the exact bootstrap law of TPR
    at each FPR, a :class:`~rocsim.core.vertical.VerticalDistribution` (``mean``, ``var``,
    ``m_pos``, ``pmf``, ``quantile(p)``). Used by vertical averaging.
``vertical_difference``
    The same call with ``law`` a :class:`~rocsim.core.paired_vertical.VerticalDifference`
    (``mean``, ``var``, ``m_pos``, ``discordance``) for ``TPR1 - TPR2``. A function that uses
    only ``mean``, ``var`` and ``m_pos`` fits both vertical protocols.

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

_LEVEL = 0.9


def _proportion_probe():
    x = np.array([0.0, 1.0, 5.0, 9.0, 10.0])
    return (x, np.full(5, 10.0), _LEVEL), (5,)


def _paired_probe():
    b, c = np.array([0.0, 3.0, 1.0, 4.0]), np.array([0.0, 1.0, 3.0, 4.0])
    return (b, c, np.full(4, 10.0), _LEVEL), (4,)


def _vertical_probe():
    from rocsim.core.vertical import vertical_distribution

    law = vertical_distribution([0.9, 0.8, 0.3, 0.6, 0.75], [0.7, 0.5, 0.2, 0.1, 0.4], [1, 2, 3])
    return (law, _LEVEL), (3,)


def _vertical_difference_probe():
    from rocsim.core.paired_vertical import vertical_difference

    law = vertical_difference([3, 2, 1, 5], [3, 0, 2, 4], [0, 1, 2], [1, 0, 3], [1, 2])
    return (law, _LEVEL), (2,)


@dataclass(frozen=True)
class MethodProtocol:
    """How a kind of interval calls a method: its signature (for messages) and a probe."""

    signature: str
    probe: Probe


#: Kind of interval -> the protocol its methods follow (module docstring).
PROTOCOLS: dict[str, MethodProtocol] = {
    "proportion": MethodProtocol("f(x, n, confidence_level) -> (low, high)", _proportion_probe),
    "paired": MethodProtocol("f(b, c, n, confidence_level) -> (low, high)", _paired_probe),
    "vertical": MethodProtocol("f(law, confidence_level) -> (low, high)", _vertical_probe),
    "vertical_difference": MethodProtocol(
        "f(law, confidence_level) -> (low, high)", _vertical_difference_probe
    ),
}

# protocols each method has passed; weak keys, so that checked functions can still be freed
_CHECKED: weakref.WeakKeyDictionary[Callable, set[str]] = weakref.WeakKeyDictionary()


def method_name(method: str | Callable) -> str:
    """A readable name of a method: the name itself, or the function's (``mid_p``)."""
    if isinstance(method, str):
        return method
    target = method.func if isinstance(method, functools.partial) else method
    return getattr(target, "__qualname__", None) or getattr(target, "__name__", repr(method))


def call_method(method: str | Callable, table: dict[str, Callable], *args):
    """Call a checked method on ``args``: the row of ``table`` it names, or the function."""
    return (table[method] if isinstance(method, str) else method)(*args)


def check_method_function(method: Callable, protocol: str) -> Callable:
    """Return ``method`` once it has been seen to follow ``protocol`` (a key of
    :data:`PROTOCOLS`), or raise ``ValueError`` saying what is wrong with it."""
    try:
        if protocol in _CHECKED.get(method, ()):
            return method
    except TypeError:  # not weakly referenceable: probed at every call
        pass
    spec = PROTOCOLS[protocol]
    name = method_name(method)
    args, shape = spec.probe()
    try:
        inspect.signature(method).bind(*args)
    except TypeError:
        raise ValueError(
            f"interval method {name!r} must be callable as {spec.signature} "
            f"({protocol} methods); its signature is "
            f"{_signature(method)}"
        ) from None
    except ValueError:  # some builtins have no signature: let the call decide
        pass
    try:
        bounds = method(*args)
    except Exception as err:
        raise ValueError(
            f"interval method {name!r} failed on a test input of its protocol "
            f"{spec.signature}: {type(err).__name__}: {err}"
        ) from err
    _check_bounds(bounds, shape, name, spec.signature)
    try:
        _CHECKED.setdefault(method, set()).add(protocol)
    except TypeError:
        pass
    return method


def _signature(method: Callable) -> str:
    try:
        return str(inspect.signature(method))
    except (TypeError, ValueError):
        return "unknown"


def _check_bounds(bounds, shape: tuple[int, ...], name: str, signature: str) -> None:
    expected = f"must return (low, high), two arrays of shape {shape} ({signature})"
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
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        raise ValueError(
            f"interval method {name!r} returned non-finite bounds on a test "
            f"input where every bound is defined: low={low}, high={high}"
        )
    if np.any(low > high + 1e-12):
        raise ValueError(
            f"interval method {name!r} returned low > high on a test input: low={low}, high={high}"
        )


def check_method(method: str | Callable, valid, protocol: str, what: str) -> str | Callable:
    """``method`` if it names one of ``valid`` or is a function following ``protocol``;
    otherwise a ``ValueError`` listing both possibilities."""
    if callable(method):
        return check_method_function(method, protocol)
    valid = list(valid)
    if not isinstance(method, str) or method not in valid:
        raise ValueError(
            f"unknown {what} {method!r}; valid: {', '.join(valid)}, or a function "
            f"{PROTOCOLS[protocol].signature}"
        )
    return method
