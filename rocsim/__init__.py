"""rocsim: exact bootstrap confidence intervals for ROC, cost and precision-recall curves and
for the AUC, and coverage studies of them.

The top level is the practitioner's, in scikit-learn's convention: every function takes
``(y_true, y_score, ...)`` (and ``y_score2`` to compare two classifiers scored on the same
instances), labels follow scikit-learn's rules (``pos_label``), and the displays draw as
scikit-learn's do (``from_predictions``, ``from_estimator``):

- ``roc_ci``, ``compare_roc``; ``cost_curve_ci``, ``compare_cost``; ``auc_ci``,
  ``compare_auc``, ``compare_aucs`` (many models at once); ``pr_ci``; ``net_benefit_ci``,
  ``compare_net_benefit`` (decision curves); ``operating_point_ci``; their results
  ``ROCBands``, ``ROCComparison``, ``CostBands``, ``CostComparison``, ``AUCResult``,
  ``PartialAUCResult``, ``AUCComparison``, ``PRBands``, ``NetBenefitCurve``,
  ``NetBenefitComparison`` (:mod:`rocsim.analysis`);
- ``ROCBandDisplay``, ``PrecisionRecallBandDisplay``, ``CostCurveDisplay``,
  ``DecisionCurveDisplay`` and ``ROCComparisonDisplay`` (:mod:`rocsim.analysis.displays`);
- planning a study: ``sample_size``, ``pilot_model``, ``binormal``; for the AUC,
  ``auc_sample_size`` (an interval's width or a test's power);
- ``split_scores(y_true, y_score)``: the scores of each class, for the exact core.

The exact core takes the two classes' scores apart, ``(pos_scores, neg_scores)``: its
functions and laws (``vertical_distribution``, ``threshold_ci``, ...) import from
:mod:`rocsim.core`; the simulation layer (score models, the runner, studies) is
:mod:`rocsim.sim`; ``rocsim`` and ``rocsim-reproduce`` on the command line. Every result
follows one protocol (:mod:`rocsim.core.results`): ``.to_frame()``, a one-line ``repr``,
``.plot()`` for curves.
"""

from importlib import import_module
from typing import TYPE_CHECKING

from rocsim.core._lazy import lazy_names, load_name

# Where each public name lives: the imports below, which editors follow and rocsim.core._lazy reads
# for __getattr__. The modules are imported on first use (PEP 562), so that ``import rocsim``
# and the command line start at once: a Ctrl-C while numpy and scipy load is then caught by the
# command, not printed as a traceback.
if TYPE_CHECKING:
    from rocsim.analysis._input import DirectionWarning
    from rocsim.analysis.auc import auc_ci, compare_auc, compare_aucs
    from rocsim.analysis.cost import compare_cost, cost_curve_ci
    from rocsim.analysis.decision import (
        NetBenefitComparison,
        NetBenefitCurve,
        compare_net_benefit,
        net_benefit_ci,
    )
    from rocsim.analysis.displays import (
        CostCurveDisplay,
        DecisionCurveDisplay,
        PrecisionRecallBandDisplay,
        ROCBandDisplay,
        ROCComparisonDisplay,
    )
    from rocsim.analysis.operating_point import operating_point_ci
    from rocsim.analysis.pr import pr_ci
    from rocsim.analysis.results import (
        AUCComparison,
        AUCResult,
        CostBands,
        CostComparison,
        PartialAUCComparison,
        PartialAUCResult,
        PRBands,
        ROCBands,
        ROCComparison,
    )
    from rocsim.analysis.roc import compare_roc, roc_ci
    from rocsim.core.curve_band import ContainmentWarning
    from rocsim.core.labels import split_scores
    from rocsim.sim.auc_planning import AUCSampleSize, auc_sample_size
    from rocsim.sim.planning import SampleSize, binormal, pilot_model, sample_size
#: Names the top level had before it became the practitioner's, and where they live now.
_MOVED = {
    **{
        name: "rocsim.core"
        for name in (
            "AUCDifferenceInterval",
            "AUCInterval",
            "COST_METHODS",
            "CostCI",
            "CostDifferenceCI",
            "CostEnvelope",
            "HorizontalCI",
            "KernelROC",
            "PAIRED_METHODS",
            "PRCI",
            "PRDistribution",
            "PRThresholdCI",
            "PRThresholdDistribution",
            "PROPORTION_METHODS",
            "ProportionInterval",
            "AxisCoverage",
            "RectangleCoverage",
            "ThresholdCI",
            "ThresholdDifferenceCI",
            "ThresholdDifferenceDistribution",
            "ThresholdDistribution",
            "VerticalCI",
            "VerticalDifference",
            "VerticalDifferenceCI",
            "VerticalDistribution",
            "auc",
            "auc_difference_interval",
            "auc_interval",
            "binomial_coverage",
            "cost_ci",
            "cost_curve",
            "cost_difference_ci",
            "cost_envelope",
            "cost_exact_coverage",
            "count_at_or_above",
            "counts_at",
            "dominance_probability",
            "fpr_ranks",
            "horizontal_ci",
            "kernel_roc_ci",
            "normalized_cost",
            "operating_range",
            "paired_difference_ci",
            "pr_curve",
            "pr_curve_ci",
            "pr_distribution",
            "pr_threshold_ci",
            "pr_threshold_distribution",
            "proportion_ci",
            "roc_counts",
            "roc_curve",
            "threshold_ci",
            "threshold_difference_ci",
            "threshold_difference_distribution",
            "threshold_distribution",
            "threshold_exact_coverage",
            "vertical_ci",
            "vertical_difference",
            "vertical_difference_ci",
            "vertical_distribution",
        )
    },
    **{
        name: "rocsim.sim.models"
        for name in ("PairedScoreModel", "ScoreModel", "draw_test_set", "make_model")
    },
}
_WHERE = lazy_names(__file__)
__all__ = sorted(_WHERE)


#: The package's layers, importable as attributes after ``import rocsim`` (``rocsim.core``).
_SUBPACKAGES = ("analysis", "cli", "core", "sim", "studies", "views")


def __getattr__(name: str):
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    if name in _SUBPACKAGES:
        return import_module(f"rocsim.{name}")
    if name in _MOVED:
        raise AttributeError(_moved(name))
    if name not in _WHERE:
        raise AttributeError(f"module 'rocsim' has no attribute {name!r}")
    return load_name(globals(), _WHERE, name)


def _moved(name: str) -> str:
    """Where a name of the former top level went, in one line."""
    where = _MOVED[name]
    if name in ("auc", "roc_curve"):
        return (
            f"rocsim.{name} is not scikit-learn's {name}: on (y_true, y_score) use "
            f"sklearn.metrics or rocsim.auc_ci / rocsim.roc_ci; the class-split "
            f"{name}(pos_scores, neg_scores) is in rocsim.core"
        )
    if where == "rocsim.core":
        from rocsim.core._deprecated import RENAMED

        return (
            f"rocsim.{name} takes the two classes' scores apart and lives in the exact core: "
            f"from rocsim.core import {RENAMED.get(name, name)} (on (y_true, y_score): "
            "rocsim.roc_ci, rocsim.pr_ci, rocsim.cost_curve_ci, rocsim.auc_ci and their "
            "compare_ functions)"
        )
    return f"rocsim.{name} is part of the simulation layer: from {where} import {name}"


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


def _version() -> str:
    """The installed distribution's version, read on first use of ``rocsim.__version__``:
    ``importlib.metadata`` takes longer to import than the rest of ``import rocsim``."""
    from importlib import metadata

    try:
        return metadata.version("rocsim")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
