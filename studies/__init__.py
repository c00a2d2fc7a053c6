"""Study kinds of rocsim, each in the SimDesign shape (setup / generate / analyse / exact).

The one shared runner, :func:`rocsim.sim.runner.run_conditions`, executes every kind; a kind only
says how to draw one data set and how to judge its intervals.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from rocsim.core import (
    check_choice,
)
from rocsim.sim.extensions import locate
from rocsim.sim.kinds import StudyKind, as_kind
from rocsim.studies.auc import (
    AUCMethodStudy,
    AUCTestStudy,
    MulticlassAUCStudy,
    PairedAUCStudy,
    PairedMulticlassAUCStudy,
    PairedPartialAUCStudy,
)
from rocsim.studies.bands import BandStudy, PartialAUCStudy
from rocsim.studies.cost import CostStudy, PairedCostStudy
from rocsim.studies.decision import (
    NetBenefitDifferenceStudy,
    NetBenefitStudy,
    OperatingPointAtFprStudy,
    OperatingPointAtTprStudy,
    OperatingPointStudy,
)
from rocsim.studies.many import AUCFamilyStudy
from rocsim.studies.paired import PairedBandStudy, PairedThresholdStudy, PairedVerticalStudy
from rocsim.studies.threshold import ThresholdStudy
from rocsim.studies.vertical import VerticalStudy

#: Study kind name (``kind:`` in a study config) -> its definition.
KINDS = {
    "threshold": ThresholdStudy(),
    "vertical": VerticalStudy(),
    "paired_threshold": PairedThresholdStudy(),
    "paired_vertical": PairedVerticalStudy(),
    "cost": CostStudy(),
    "paired_cost": PairedCostStudy(),
    "bands": BandStudy(),
    "paired_bands": PairedBandStudy(),
    "partial_auc": PartialAUCStudy(),
    "auc_methods": AUCMethodStudy(),
    "auc_tests": AUCTestStudy(),
    "net_benefit": NetBenefitStudy(),
    "net_benefit_difference": NetBenefitDifferenceStudy(),
    "operating_point": OperatingPointStudy(),
    "operating_point_fpr": OperatingPointAtFprStudy(),
    "operating_point_tpr": OperatingPointAtTprStudy(),
    "auc_family": AUCFamilyStudy(),
    "auc_multiclass": MulticlassAUCStudy(),
    "auc_paired": PairedAUCStudy(),
    "auc_paired_partial": PairedPartialAUCStudy(),
    "auc_multiclass_paired": PairedMulticlassAUCStudy(),
}


def get_kind(kind) -> StudyKind:
    """The study kind a config names: one of :data:`KINDS` by name (unknown names are answered
    with the valid ones), or the user's by ``{"_target_": "package.module.Class"}`` (a
    subclass of :class:`rocsim.sim.StudyKind`, found like the user's methods: the working
    folder, ``PYTHONPATH`` or an installed package)."""
    if isinstance(kind, Mapping):
        if not kind.get("_target_"):
            raise ValueError(
                f"study kind {dict(kind)!r}: name a built-in kind ({', '.join(KINDS)}) or the "
                "user's by _target_: package.module.Class"
            )
        return _user_kind(str(kind["_target_"]))
    return KINDS[check_choice(kind, KINDS, "study kind")]


@functools.cache
def _user_kind(target: str) -> StudyKind:
    return as_kind(locate(target, "study kind"), target)
