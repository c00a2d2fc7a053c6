"""A score model defined outside rocsim: gamma-distributed scores.

rocsim calls a score model's ``_target_`` with the config's keyword arguments (numbers, after
the study's axes are substituted) and expects a ``rocsim.sim.models.ScoreModel``; any two frozen
``scipy.stats`` continuous distributions make one (``docs/extending.md``). Every truth a study
needs (rates at a threshold, the threshold of a total positive ratio, the cost curve) is then
computed from the distributions' survival and quantile functions.
"""

from __future__ import annotations

from scipy import stats

import rocsim


def gamma_classes(
    shape_pos: float, shape_neg: float, scale: float = 1.0
) -> rocsim.sim.models.ScoreModel:
    """Positives score ``Gamma(shape_pos, scale)``, negatives ``Gamma(shape_neg, scale)``."""
    return rocsim.sim.models.ScoreModel.from_distributions(
        stats.gamma(shape_pos, scale=scale), stats.gamma(shape_neg, scale=scale)
    )
