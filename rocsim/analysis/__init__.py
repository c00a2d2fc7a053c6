"""Pointwise confidence intervals for a user's own classifiers, on ``(y_true, y_score)``.

The scikit-learn-style entry points of rocsim (the practitioner layer: the exact core below,
the views beside): labels in any two values (``pos_label`` names the positive one, by
scikit-learn's rules, :mod:`rocsim.core.labels`), scores of any scale (probabilities, logits,
margins; higher means positive unless ``direction`` says otherwise), and a second classifier
scored on the same instances for comparisons. Each validates its input once and calls the
exact core; results are typed tables (:mod:`rocsim.analysis.results`) with ``.to_frame()`` and
``.plot(ax=None)``, drawn by :mod:`rocsim.views.plots`.

- :func:`roc_ci`, :func:`compare_roc` (:mod:`~rocsim.analysis.roc`): ROC curves;
- :func:`cost_curve_ci`, :func:`compare_cost` (:mod:`~rocsim.analysis.cost`): normalized
  expected cost;
- :func:`auc_ci`, :func:`compare_auc` (:mod:`~rocsim.analysis.auc`): the area under the ROC
  curve, DeLong or exact bootstrap;
- :func:`pr_ci` (:mod:`~rocsim.analysis.pr`): precision-recall curves;
- :func:`net_benefit_ci`, :func:`compare_net_benefit` (:mod:`~rocsim.analysis.decision`):
  decision curves.
"""

from importlib import import_module
from typing import TYPE_CHECKING

from rocsim.core._lazy import lazy_names, load_name

# Each public name's module is imported on its first use (PEP 562, as rocsim.core's): a first
# call of one function then loads its own module, not every other one's.
if TYPE_CHECKING:
    from rocsim.analysis._input import AVERAGING, DEFAULT_GRID, DIRECTIONS, DirectionWarning
    from rocsim.analysis.auc import auc_ci, compare_auc, compare_aucs
    from rocsim.analysis.cost import compare_cost, cost_curve_ci
    from rocsim.analysis.decision import (
        NetBenefitComparison,
        NetBenefitCurve,
        compare_net_benefit,
        net_benefit_ci,
    )
    from rocsim.analysis.operating_point import operating_point_ci
    from rocsim.analysis.pr import PR_AVERAGING, pr_ci
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
    from rocsim.analysis.roc import PAIRED_VERTICAL_LIMIT, compare_roc, roc_ci
_WHERE = lazy_names(__file__)
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        return load_name(globals(), _WHERE, name)
    try:  # a submodule, which an eager import made an attribute: rocsim.analysis.roc
        return import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
