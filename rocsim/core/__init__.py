"""The exact core: arrays of scores in, result objects out.

Counting (:mod:`~rocsim.core.counting`), the interval methods of every kind of interval in one
registry (:mod:`~rocsim.core.registry`, formulas in :mod:`~rocsim.core.formulas`), proportion
intervals (:mod:`~rocsim.core.intervals`), the exact bootstrap laws and intervals of threshold and
vertical averaging for one classifier (:mod:`~rocsim.core.threshold`,
:mod:`~rocsim.core.vertical` on the binomial mixture engine :mod:`~rocsim.core.mixture`,
:mod:`~rocsim.core.horizontal`) and two (:mod:`~rocsim.core.paired_threshold`,
:mod:`~rocsim.core.joint_thresholds`, :mod:`~rocsim.core.paired_vertical`), cost curves
(:mod:`~rocsim.core.cost`), the AUC (:mod:`~rocsim.core.area`), the partial AUC
(:mod:`~rocsim.core.partial_area`) and the multiclass AUC (:mod:`~rocsim.core.multiclass`),
precision and recall
(:mod:`~rocsim.core.precision_recall`), the kernel comparator (:mod:`~rocsim.core.kernel`) and
exact coverage (:mod:`~rocsim.core.coverage`). The functions take the scores of the two
classes apart, ``(pos_scores, neg_scores)``; :func:`~rocsim.core.labels.split_scores` gets them
from scikit-learn's ``(y_true, y_score)``.

Every public name imports from here (``from rocsim.core import vertical_distribution``); its
module is loaded on first use, so that ``import rocsim.core`` costs nothing.

No files, no Hydra, no matplotlib, no joblib: the core imports nothing from the other layers
(``tests/test_layers.py`` checks it).
"""

from typing import TYPE_CHECKING

from rocsim.core._lazy import lazy_names, load_name

# Where each public name of the core lives: the imports below, which editors follow and
# rocsim.core._lazy reads for __getattr__ (each module is loaded on first use).
if TYPE_CHECKING:
    from rocsim.core._validation import (
        check_choice,
        check_paired,
        check_thresholds,
        check_two_classes,
    )
    from rocsim.core.area import (
        AUC_DIFFERENCE_METHODS,
        AUC_DIFFERENCE_PROTOCOL,
        AUC_INTERVAL_METHODS,
        AUC_PROTOCOL,
        AUCCI,
        AUCDifferenceCI,
        auc_ci,
        auc_difference_ci,
    )
    from rocsim.core.auc_methods import AUCData, AUCDifferenceData, Pivot
    from rocsim.core.cost import (
        COST_METHODS,
        CostCI,
        CostDifferenceCI,
        CostEnvelope,
        cost_bounds,
        cost_ci,
        cost_ci_options,
        cost_curve,
        cost_difference_bounds,
        cost_difference_ci,
        cost_envelope,
        cost_target,
        effective_condition,
        normalized_cost,
        operating_range,
    )
    from rocsim.core.counting import count_at_or_above, counts_at, roc_counts
    from rocsim.core.coverage import (
        AxisCoverage,
        RectangleCoverage,
        binomial_coverage,
        cost_exact_coverage,
        mix_rectangles,
        sampling_class_sizes,
        threshold_exact_coverage,
        threshold_exact_parts,
    )
    from rocsim.core.horizontal import HorizontalCI, horizontal_ci
    from rocsim.core.intervals import (
        PAIRED_METHODS,
        PAIRED_PROTOCOL,
        PROPORTION_METHODS,
        PROPORTION_PROTOCOL,
        ProportionCI,
        paired_difference_ci,
        proportion_ci,
    )
    from rocsim.core.kernel import KernelROC, kernel_roc_ci
    from rocsim.core.labels import positive_mask, split_by_class, split_scores
    from rocsim.core.many_aucs import AUCsComparison, auc_covariance, aucs_comparison
    from rocsim.core.multiclass import (
        AVERAGES,
        MULTI_CLASS,
        MULTICLASS_AUC_DIFFERENCE_METHODS,
        MULTICLASS_AUC_METHODS,
        MulticlassAUCCI,
        MulticlassAUCDifferenceCI,
        multiclass_auc_ci,
        multiclass_auc_difference_ci,
    )
    from rocsim.core.net_benefit import (
        NET_BENEFIT_DIFFERENCE_METHODS,
        NET_BENEFIT_DIFFERENCE_PROTOCOL,
        NET_BENEFIT_METHODS,
        NET_BENEFIT_PROTOCOL,
        NetBenefitCI,
        NetBenefitDifference,
        NetBenefitDifferenceCI,
        NetBenefitDistribution,
        net_benefit_difference_distribution,
        net_benefit_distribution,
    )
    from rocsim.core.operating_point import (
        OPERATING_POINT_BOOTSTRAPS,
        OPERATING_POINT_METHODS,
        OPERATING_POINT_PROTOCOL,
        MetricDistribution,
        OperatingPointCI,
        OperatingPointDistribution,
        operating_point_distribution,
    )
    from rocsim.core.paired_threshold import (
        ThresholdDifferenceCI,
        ThresholdDifferenceDistribution,
        dominance_probability,
        threshold_difference_bounds,
        threshold_difference_ci,
        threshold_difference_ci_options,
        threshold_difference_distribution,
    )
    from rocsim.core.paired_vertical import (
        VERTICAL_DIFFERENCE_METHODS,
        VERTICAL_DIFFERENCE_PROTOCOL,
        VerticalDifference,
        VerticalDifferenceCI,
        vertical_difference,
        vertical_difference_ci,
    )
    from rocsim.core.partial_area import (
        PARTIAL_AUC_DIFFERENCE_METHODS,
        PARTIAL_AUC_METHODS,
        PartialAUCCI,
        PartialAUCDifferenceCI,
        mcclish,
        partial_auc_ci,
        partial_auc_difference_ci,
    )
    from rocsim.core.precision_recall import (
        PRCI,
        PRDistribution,
        PRThresholdCI,
        PRThresholdDistribution,
        pr_ci,
        pr_curve,
        pr_distribution,
        pr_threshold_ci,
        pr_threshold_distribution,
    )
    from rocsim.core.registry import IntervalMethod, default_pseudo_count, method_info
    from rocsim.core.roc import auc, roc_curve
    from rocsim.core.threshold import (
        ThresholdCI,
        ThresholdDistribution,
        threshold_bounds,
        threshold_ci,
        threshold_ci_options,
        threshold_distribution,
    )
    from rocsim.core.vertical import (
        VERTICAL_METHODS,
        VERTICAL_PROTOCOL,
        VerticalCI,
        VerticalDistribution,
        fpr_ranks,
        vertical_ci,
        vertical_distribution,
    )
_WHERE = lazy_names(__file__)
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        from rocsim.core._deprecated import renamed  # an old name: warns, gives the new one

        return renamed(__name__, name)
    return load_name(globals(), _WHERE, name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
