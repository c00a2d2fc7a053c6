"""Study kinds of rocsim, each in the SimDesign shape (setup / generate / analyse / exact).

The one shared runner, :func:`rocsim.sim.runner.run_conditions`, executes every kind; a kind only
says how to draw one data set and how to judge its intervals.
"""

from __future__ import annotations

from rocsim.core._validation import check_choice
from rocsim.studies.auc import (
    AUCMethodStudy,
    MulticlassAUCStudy,
    PairedAUCStudy,
    PairedMulticlassAUCStudy,
    PairedPartialAUCStudy,
)
from rocsim.studies.bands import BandStudy, PartialAUCStudy
from rocsim.studies.cost import CostStudy, PairedCostStudy
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
    "auc_multiclass": MulticlassAUCStudy(),
    "auc_paired": PairedAUCStudy(),
    "auc_paired_partial": PairedPartialAUCStudy(),
    "auc_multiclass_paired": PairedMulticlassAUCStudy(),
}


def get_kind(name: str):
    """The study kind called ``name``; unknown names are answered with the valid ones."""
    return KINDS[check_choice(name, KINDS, "study kind")]
