"""rocsim: exact bootstrap confidence intervals for ROC and cost curves, and coverage studies.

The public functions validate their inputs once and return result objects; see
``rocsim.proportion_ci``, ``rocsim.threshold_ci``, ``rocsim.threshold_distribution``,
``rocsim.vertical_ci``, ``rocsim.vertical_distribution``, ``rocsim.kernel_roc_ci``, and for
cost curves ``rocsim.cost_curve``, ``rocsim.cost_ci`` and ``rocsim.cost_difference_ci``.
On labels and scores of one's own classifiers (scikit-learn style): ``rocsim.roc_ci``,
``rocsim.compare_roc``, ``rocsim.cost_curve_ci``, ``rocsim.compare_cost``, ``rocsim.pr_ci``,
``rocsim.auc_ci`` and ``rocsim.compare_auc``; planning a study, ``rocsim.sample_size``; from
the command line, ``rocsim analyze``. Every result follows one protocol
(:mod:`rocsim.core.results`): ``.to_frame()``, a one-line ``repr``, ``.plot()`` for curves.
"""

from importlib import import_module, metadata

#: Where each public name lives. The modules are imported on first use (PEP 562), so that
#: ``import rocsim`` and the command line start at once: a Ctrl-C while numpy and scipy load
#: is then caught by the command, not printed as a traceback.
_SOURCES = {
    "rocsim.analysis": (
        "AUCResult",
        "CostBands",
        "CostComparison",
        "ROCBands",
        "ROCComparison",
        "auc_ci",
        "compare_auc",
        "compare_cost",
        "compare_roc",
        "cost_curve_ci",
        "pr_ci",
        "roc_ci",
    ),
    "rocsim.core.area": (
        "AUCDifferenceInterval",
        "AUCInterval",
        "auc_difference_interval",
        "auc_interval",
    ),
    "rocsim.core.cost": (
        "COST_METHODS",
        "CostCI",
        "CostDifferenceCI",
        "CostEnvelope",
        "cost_ci",
        "cost_curve",
        "cost_difference_ci",
        "cost_envelope",
        "normalized_cost",
        "operating_range",
    ),
    "rocsim.core.counting": (
        "count_at_or_above",
        "counts_at",
        "roc_counts",
        "split_scores",
    ),
    "rocsim.core.coverage": (
        "AxisCoverage",
        "RectangleCoverage",
        "binomial_coverage",
        "cost_exact_coverage",
        "threshold_exact_coverage",
    ),
    "rocsim.core.intervals": (
        "PAIRED_METHODS",
        "PROPORTION_METHODS",
        "ProportionInterval",
        "paired_difference_ci",
        "proportion_ci",
    ),
    "rocsim.core.kernel": (
        "KernelROC",
        "kernel_roc_ci",
    ),
    "rocsim.core.precision_recall": (
        "PRCI",
        "PRDistribution",
        "PRThresholdCI",
        "PRThresholdDistribution",
        "pr_curve",
        "pr_curve_ci",
        "pr_distribution",
        "pr_threshold_ci",
        "pr_threshold_distribution",
    ),
    "rocsim.core.paired_threshold": (
        "ThresholdDifferenceCI",
        "ThresholdDifferenceDistribution",
        "dominance_probability",
        "threshold_difference_ci",
        "threshold_difference_distribution",
    ),
    "rocsim.core.paired_vertical": (
        "VerticalDifference",
        "VerticalDifferenceCI",
        "vertical_difference",
        "vertical_difference_ci",
    ),
    "rocsim.core.roc": (
        "auc",
        "roc_curve",
    ),
    "rocsim.core.threshold": (
        "ThresholdCI",
        "ThresholdDistribution",
        "threshold_ci",
        "threshold_distribution",
    ),
    "rocsim.core.vertical": (
        "HorizontalCI",
        "VerticalCI",
        "VerticalDistribution",
        "fpr_ranks",
        "horizontal_ci",
        "vertical_ci",
        "vertical_distribution",
    ),
    "rocsim.sim.models": (
        "PairedScoreModel",
        "ScoreModel",
        "draw_test_set",
        "make_model",
    ),
    "rocsim.sim.planning": (
        "SampleSize",
        "binormal",
        "pilot_model",
        "sample_size",
    ),
}
_WHERE = {name: module for module, names in _SOURCES.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'rocsim' has no attribute {name!r}")
    value = getattr(import_module(_WHERE[name]), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


try:
    __version__ = metadata.version("rocsim")
except metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
