"""The exact core: arrays of scores in, result objects out.

Counting (:mod:`~rocsim.core.counting`), proportion intervals through one dispatch table per
kind (:mod:`~rocsim.core.intervals`), the exact bootstrap laws and intervals of threshold and
vertical averaging for one classifier (:mod:`~rocsim.core.threshold`,
:mod:`~rocsim.core.vertical`) and two (:mod:`~rocsim.core.paired_threshold`,
:mod:`~rocsim.core.joint_thresholds`, :mod:`~rocsim.core.paired_vertical`), cost curves
(:mod:`~rocsim.core.cost`), the AUC (:mod:`~rocsim.core.area`), the kernel comparator
(:mod:`~rocsim.core.kernel`) and exact coverage (:mod:`~rocsim.core.coverage`).

No files, no Hydra, no matplotlib, no joblib: the core imports nothing from the other layers
(``tests/test_layers.py`` checks it).
"""
