"""One result protocol for every result, core and practitioner (rocsim.core.results).

Every public function's result has ``.to_frame()`` (a DataFrame, settings in ``.attrs``), a
one-line ``repr`` under 200 characters, and, for curves, ``.plot(ax=None)``; scalars are Python
floats; a law offers its intervals (``law.ci``) equal to the function's; every return type is
exported; the options after the data are keyword-only.
"""

from __future__ import annotations

import inspect
import typing

import matplotlib
import numpy as np
import pandas as pd
import pytest

import rocsim
from rocsim.core.results import Result

matplotlib.use("Agg")

RNG = np.random.default_rng(7)
Y = RNG.integers(0, 2, 120).astype(bool)
S1 = np.round(RNG.normal(Y * 1.0, 1.0), 2)
S2 = np.round(S1 + RNG.normal(0, 0.7, Y.size), 2)
POS, NEG = S1[Y], S1[~Y]
POS2, NEG2 = S2[Y], S2[~Y]
R = [5, 20, 40]
W = [0.2, 0.5, 0.8]

#: A call of every public function returning a result, by name.
CALLS = {
    "roc_ci": lambda: rocsim.roc_ci(Y, S1),
    "roc_ci vertical": lambda: rocsim.roc_ci(Y, S1, averaging="vertical", side="upper"),
    "roc_ci horizontal": lambda: rocsim.roc_ci(Y, S1, averaging="horizontal"),
    "compare_roc": lambda: rocsim.compare_roc(Y, S1, S2),
    "compare_roc vertical": lambda: rocsim.compare_roc(Y, S1, S2, averaging="vertical"),
    "compare_roc horizontal": lambda: rocsim.compare_roc(Y, S1, S2, averaging="horizontal"),
    "cost_curve_ci": lambda: rocsim.cost_curve_ci(Y, S1),
    "compare_cost": lambda: rocsim.compare_cost(Y, S1, S2),
    "auc_ci": lambda: rocsim.auc_ci(Y, S1),
    "compare_auc": lambda: rocsim.compare_auc(Y, S1, S2),
    "pr_ci": lambda: rocsim.pr_ci(Y, S1, at=[0.2, 0.5], averaging="vertical"),
    "pr_ci threshold": lambda: rocsim.pr_ci(Y, S1, at=[0.2, 0.5], averaging="threshold"),
    "threshold_ci": lambda: rocsim.core.threshold_ci(POS, NEG, [0.0, 0.5]),
    "threshold_distribution": lambda: rocsim.core.threshold_distribution(POS, NEG, [0.0, 0.5]),
    "vertical_ci": lambda: rocsim.core.vertical_ci(POS, NEG, R),
    "vertical_distribution": lambda: rocsim.core.vertical_distribution(POS, NEG, R),
    "horizontal_ci": lambda: rocsim.core.horizontal_ci(POS, NEG, R),
    "vertical_difference": lambda: rocsim.core.vertical_difference(POS, POS2, NEG, NEG2, R),
    "vertical_difference_ci": lambda: rocsim.core.vertical_difference_ci(POS, POS2, NEG, NEG2, R),
    "threshold_difference_distribution": lambda: rocsim.core.threshold_difference_distribution(
        POS, POS2, NEG, NEG2, [0.0], [0.5]
    ),
    "threshold_difference_ci": lambda: rocsim.core.threshold_difference_ci(
        POS, POS2, NEG, NEG2, [0.0], [0.5]
    ),
    "cost_ci": lambda: rocsim.core.cost_ci(POS, NEG, W, "empirical"),
    "cost_difference_ci": lambda: rocsim.core.cost_difference_ci(
        POS, POS2, NEG, NEG2, W, "empirical", "empirical"
    ),
    "cost_envelope": lambda: rocsim.core.cost_envelope(POS, NEG, W),
    "kernel_roc_ci": lambda: rocsim.core.kernel_roc_ci(POS, NEG, [0.1, 0.5]),
    "proportion_ci": lambda: rocsim.core.proportion_ci([3, 4], 10),
    "paired_difference_ci": lambda: rocsim.core.paired_difference_ci(3, 1, 10),
    "core.auc_ci": lambda: rocsim.core.auc_ci(POS, NEG),
    "auc_difference_ci": lambda: rocsim.core.auc_difference_ci(POS, POS2, NEG, NEG2),
    "core.pr_ci": lambda: rocsim.core.pr_ci(POS, NEG, R),
    "pr_distribution": lambda: rocsim.core.pr_distribution(POS, NEG, R),
    "pr_threshold_ci": lambda: rocsim.core.pr_threshold_ci(POS, NEG, [0.0, 0.5]),
    "pr_threshold_distribution": lambda: rocsim.core.pr_threshold_distribution(POS, NEG, [0.0]),
    "sample_size": lambda: rocsim.sample_size(0.8, at=0.2, averaging="threshold", width=0.2),
}


@pytest.fixture(scope="module", params=sorted(CALLS))
def result(request):
    return CALLS[request.param]()


def test_every_result_follows_the_protocol(result):
    assert isinstance(result, Result)
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) >= 1
    text = repr(result)
    assert "\n" not in text and 0 < len(text) < 200, text
    assert "array(" not in text
    for name in ("confidence_level",):
        if hasattr(result, name) and getattr(result, name) is not None:
            assert isinstance(getattr(result, name), float)


def test_curve_results_plot(result):
    import matplotlib.pyplot as plt

    if result._plot_kind is None:
        with pytest.raises(TypeError, match="no plot"):
            result.plot()
        return
    fig, ax = plt.subplots()
    assert result.plot(ax=ax) is ax
    assert ax.has_data()
    plt.close(fig)


def test_the_contract_names():
    auc = rocsim.auc_ci(Y, S1)
    assert type(auc.auc) is float and len(repr(auc)) < 200
    for name in ("var", "low", "high"):
        assert type(getattr(auc, name)) is float
    cmp = rocsim.compare_auc(Y, S1, S2)
    assert all(type(getattr(cmp, k)) is float for k in ("difference", "p_value", "low"))
    pr = rocsim.pr_ci(Y, S1, at=[0.3, 0.6], averaging="vertical")
    assert list(pr.to_frame().columns[:4]) == ["recall", "precision", "low", "high"]
    assert pr.law.mean.shape == pr.law.var.shape == (2,)
    plan = rocsim.sample_size(0.8, at=0.2, averaging="threshold", width=0.2)
    assert isinstance(plan.n, int) and isinstance(plan.to_frame(), pd.DataFrame)


@pytest.mark.parametrize("method", ["score", "wald", "agresti", "percentile"])
def test_a_law_offers_the_intervals_of_its_function(method):
    law = rocsim.core.vertical_distribution(POS, NEG, R)
    direct = rocsim.core.vertical_ci(POS, NEG, R, confidence_level=0.9, method=method)
    via_law = law.ci(0.9, method)
    np.testing.assert_array_equal(via_law.low, direct.low)
    np.testing.assert_array_equal(via_law.high, direct.high)
    tlaw = rocsim.core.threshold_distribution(POS, NEG, [0.0, 0.5])
    t_direct = rocsim.core.threshold_ci(POS, NEG, [0.0, 0.5], confidence_level=0.9, method=method)
    np.testing.assert_array_equal(tlaw.ci(0.9, method).tpr_low, t_direct.tpr_low)
    np.testing.assert_array_equal(tlaw.ci(0.9, method).fpr_high, t_direct.fpr_high)


def test_paired_laws_offer_their_intervals():
    law = rocsim.core.vertical_difference(POS, POS2, NEG, NEG2, R)
    direct = rocsim.core.vertical_difference_ci(POS, POS2, NEG, NEG2, R, method="wald")
    np.testing.assert_array_equal(law.ci(0.95, "wald").low, direct.low)
    tlaw = rocsim.core.threshold_difference_distribution(POS, POS2, NEG, NEG2, [0.0], [0.5])
    t_direct = rocsim.core.threshold_difference_ci(POS, POS2, NEG, NEG2, [0.0], [0.5])
    np.testing.assert_array_equal(tlaw.ci().dtpr_low, t_direct.dtpr_low)


def public_functions():
    return [
        name
        for name in rocsim.__all__
        if inspect.isfunction(getattr(rocsim, name)) and name[0].islower()
    ]


@pytest.mark.parametrize("name", public_functions())
def test_every_return_type_is_exported(name):
    hints = typing.get_type_hints(getattr(rocsim, name))
    returned = hints.get("return")
    if inspect.isclass(returned) and returned.__module__.startswith("rocsim"):
        # the practitioner's types at the top level; the score models of planning in the
        # simulation layer, where they are made
        public = {*rocsim.__all__, *rocsim.core.__all__, "ScoreModel", "PairedScoreModel"}
        assert returned.__name__ in public, f"{name} returns {returned.__name__}"


#: Data arguments (positional); every other parameter must be keyword-only.
DATA_ARGUMENTS = {
    "y_true",
    "y_score",
    "y_score1",
    "y_score2",
    "y_proba",
    "y_proba1",
    "y_proba2",
    "pos_scores",
    "neg_scores",
    "pos1",
    "pos2",
    "neg1",
    "neg2",
    "thresholds",
    "r",
    "k",
    "w",
    "t1",
    "t2",
    "fpr",
    "x",
    "n",
    "b",
    "c",
    "model",
    "scores",
    "tpr",
    "auc",
    # designs and models: the data of the exact coverage and of the simulation layer
    "tpr_true",
    "fpr_true",
    "n_pos",
    "n_neg",
    "m_neg",
    "trials",
    "p_true",
    "interval",
    "family",
    "pos",
    "neg",
    "sampling",
    "rng",
}


@pytest.mark.parametrize("name", public_functions())
def test_options_after_the_data_are_keyword_only(name):
    signature = inspect.signature(getattr(rocsim, name))
    positional = [
        p.name
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    options = [p for p in positional if p not in DATA_ARGUMENTS]
    assert not options, f"{name}: {options} should be keyword-only"
