"""rocsim: exact bootstrap confidence intervals for ROC and cost curves, and coverage studies.

The public functions validate their inputs once and return result objects; see
``rocsim.proportion_ci``, ``rocsim.threshold_ci``, ``rocsim.threshold_distribution``,
``rocsim.vertical_ci``, ``rocsim.vertical_distribution``, ``rocsim.kernel_roc_ci``, and for
cost curves ``rocsim.cost_curve``, ``rocsim.cost_ci`` and ``rocsim.cost_difference_ci``.
On labels and scores of one's own classifiers (scikit-learn style): ``rocsim.roc_ci``,
``rocsim.compare_roc``, ``rocsim.cost_curve_ci``, ``rocsim.compare_cost``, ``rocsim.auc_ci``
and ``rocsim.compare_auc``; from the command line, ``rocsim analyze``.
"""

from importlib import metadata

from rocsim.analysis import (
    AUCResult,
    CostBands,
    CostComparison,
    ROCBands,
    ROCComparison,
    auc_ci,
    compare_auc,
    compare_cost,
    compare_roc,
    cost_curve_ci,
    roc_ci,
)
from rocsim.core.cost import (
    COST_METHODS,
    CostCI,
    CostDifferenceCI,
    CostEnvelope,
    cost_ci,
    cost_curve,
    cost_difference_ci,
    cost_envelope,
    normalized_cost,
    operating_range,
)
from rocsim.core.counting import count_at_or_above, counts_at, roc_counts, split_scores
from rocsim.core.coverage import binomial_coverage, cost_exact_coverage, threshold_exact_coverage
from rocsim.core.intervals import (
    PAIRED_METHODS,
    PROPORTION_METHODS,
    ProportionInterval,
    paired_difference_ci,
    proportion_ci,
)
from rocsim.core.kernel import KernelROC, kernel_roc_ci
from rocsim.core.paired_threshold import (
    ThresholdDifferenceCI,
    ThresholdDifferenceDistribution,
    dominance_probability,
    threshold_difference_ci,
    threshold_difference_distribution,
)
from rocsim.core.paired_vertical import (
    VerticalDifference,
    VerticalDifferenceCI,
    vertical_difference,
    vertical_difference_ci,
)
from rocsim.core.roc import auc, roc_curve
from rocsim.core.threshold import (
    ThresholdCI,
    ThresholdDistribution,
    threshold_ci,
    threshold_distribution,
)
from rocsim.core.vertical import (
    VerticalCI,
    VerticalDistribution,
    fpr_ranks,
    vertical_ci,
    vertical_distribution,
)
from rocsim.sim.models import ScoreModel, draw_test_set, make_model

__all__ = [
    "COST_METHODS",
    "PAIRED_METHODS",
    "PROPORTION_METHODS",
    "AUCResult",
    "CostBands",
    "CostCI",
    "CostComparison",
    "CostDifferenceCI",
    "CostEnvelope",
    "KernelROC",
    "ProportionInterval",
    "ROCBands",
    "ROCComparison",
    "ScoreModel",
    "ThresholdCI",
    "ThresholdDifferenceCI",
    "ThresholdDifferenceDistribution",
    "ThresholdDistribution",
    "VerticalCI",
    "VerticalDifference",
    "VerticalDifferenceCI",
    "VerticalDistribution",
    "auc",
    "auc_ci",
    "binomial_coverage",
    "compare_auc",
    "compare_cost",
    "compare_roc",
    "cost_ci",
    "cost_curve",
    "cost_curve_ci",
    "cost_difference_ci",
    "cost_envelope",
    "cost_exact_coverage",
    "count_at_or_above",
    "counts_at",
    "dominance_probability",
    "draw_test_set",
    "fpr_ranks",
    "kernel_roc_ci",
    "make_model",
    "normalized_cost",
    "operating_range",
    "paired_difference_ci",
    "proportion_ci",
    "roc_ci",
    "roc_counts",
    "roc_curve",
    "split_scores",
    "threshold_ci",
    "threshold_difference_ci",
    "threshold_difference_distribution",
    "threshold_distribution",
    "threshold_exact_coverage",
    "vertical_ci",
    "vertical_difference",
    "vertical_difference_ci",
    "vertical_distribution",
]

try:
    __version__ = metadata.version("rocsim")
except metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
