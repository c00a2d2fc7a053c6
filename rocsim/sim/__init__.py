"""The simulation layer: score models (:mod:`~rocsim.sim.models`), conditions
(:mod:`~rocsim.sim.conditions`), the one runner (:mod:`~rocsim.sim.runner`, joblib), the
pipeline from a config to result files (:mod:`~rocsim.sim.pipeline`), user extensions named by
``_target_`` (:mod:`~rocsim.sim.extensions`), config folders (:mod:`~rocsim.sim.configs`) and
safe writing (:mod:`~rocsim.sim.io`). It builds on the exact core and never draws.

A study kind of the user's own subclasses :class:`StudyKind` (:mod:`~rocsim.sim.kinds`) and is
named in a study config by ``_target_``.
"""

from rocsim.sim.kinds import (
    CORE_OUTCOMES,
    ESTIMATE_OUTCOMES,
    Setup,
    StudyKind,
    interval_outcome,
)

__all__ = ["CORE_OUTCOMES", "ESTIMATE_OUTCOMES", "Setup", "StudyKind", "interval_outcome"]
