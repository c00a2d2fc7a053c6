"""Names of :mod:`rocsim.core` renamed so that every interval function ends in ``_ci`` and
every interval result class in ``CI``, as the top level's (``roc_ci``, ``auc_ci``) and the
core's other intervals (``threshold_ci``, ``VerticalCI``) do. The old names keep working for
one release, with a ``DeprecationWarning`` naming the new one."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import Any

#: Old name -> new name.
RENAMED = {
    "AUCInterval": "AUCCI",
    "AUCDifferenceInterval": "AUCDifferenceCI",
    "PartialAUCInterval": "PartialAUCCI",
    "PartialAUCDifferenceInterval": "PartialAUCDifferenceCI",
    "MulticlassAUCInterval": "MulticlassAUCCI",
    "MulticlassAUCDifferenceInterval": "MulticlassAUCDifferenceCI",
    "ProportionInterval": "ProportionCI",
    "auc_interval": "auc_ci",
    "auc_difference_interval": "auc_difference_ci",
    "partial_auc_interval": "partial_auc_ci",
    "partial_auc_difference_interval": "partial_auc_difference_ci",
    "multiclass_auc_interval": "multiclass_auc_ci",
    "multiclass_auc_difference_interval": "multiclass_auc_difference_ci",
    "pr_curve_ci": "pr_ci",
}


def renamed(module: str, name: str) -> Any:
    """The value of ``name``'s new name in ``module`` (a loaded module), with a
    ``DeprecationWarning`` naming it; an ``AttributeError`` for a name never renamed."""
    if name not in RENAMED:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new = RENAMED[name]
    warnings.warn(
        f"{module}.{name} is deprecated and will be removed in the next release; use "
        f"{module}.{new}",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(sys.modules[module], new)


def module_getattr(module: str) -> Callable[[str], Any]:
    """A module's ``__getattr__`` (PEP 562) that answers its renamed names."""

    def __getattr__(name: str) -> Any:
        return renamed(module, name)

    return __getattr__
