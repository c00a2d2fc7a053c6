"""Conditions of a built-in study kind for the tests that call its setup / generate / analyse
directly: binormal scores (positives N(1, 1), negatives N(0, 1), the axes' ``auc`` moving the
positives where the kind reads it), a share 0.3 of positives, the given settings."""

from __future__ import annotations

from rocsim.sim.conditions import Condition, expand_conditions

BINORMAL = {"family": "binormal", "pos": {"mu": 1, "sd": 1}, "neg": {"mu": 0, "sd": 1}}


def study_conditions(study: str, axes: dict, **settings) -> list[Condition]:
    """``expand_conditions(study, axes, base)``, ``base`` these defaults and ``settings``."""
    base = {"confidence_level": 0.9, "pi": 0.3, "model": BINORMAL} | settings
    return expand_conditions(study, axes, base)
