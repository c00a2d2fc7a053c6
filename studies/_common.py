"""Helpers shared by the study kinds: grids, class sizes, score models from settings."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rocsim.models import ScoreModel, make_model


def grid_values(grid: Mapping) -> np.ndarray:
    """Grid points ``start .. stop`` in ``num`` equal steps, rounded to 12 digits."""
    num = int(grid["num"])
    if num < 1:
        raise ValueError(f"grid needs num >= 1, got {num}")
    return np.round(np.linspace(float(grid["start"]), float(grid["stop"]), num), 12)


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
    spec = settings["model"]
    return make_model(spec["family"], spec["pos"], spec["neg"])
