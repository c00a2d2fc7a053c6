"""The simulation layer: score models (:mod:`~rocsim.sim.models`), conditions
(:mod:`~rocsim.sim.conditions`), the one runner (:mod:`~rocsim.sim.runner`, joblib), the
pipeline from a config to result files (:mod:`~rocsim.sim.pipeline`), user extensions named by
``_target_`` (:mod:`~rocsim.sim.extensions`), config folders (:mod:`~rocsim.sim.configs`) and
safe writing (:mod:`~rocsim.sim.io`). It builds on the exact core and never draws."""
