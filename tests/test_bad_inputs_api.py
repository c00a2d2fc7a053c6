"""Bad inputs to every public function of ``rocsim.__all__``: each ends in a ``ValueError`` (or
``TypeError``) whose message names the argument and says what was expected, or in a correct
result; never a NaN or sentinel where an error belongs, nor a numpy/scipy internal message
("could not convert string to float", "operands could not be broadcast", OverflowError...).

Complements ``test_bad_inputs.py`` and ``test_points_requested.py`` (not repeated here)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rocsim

POS, NEG = [0.9, 0.8, 0.3, 0.6, 0.55], [0.7, 0.5, 0.2, 0.1, 0.4]
P1, P2 = POS, [0.8, 0.9, 0.1, 0.5, 0.6]
N1, N2 = NEG, [0.6, 0.4, 0.3, 0.2, 0.5]
Y = np.array([1] * 5 + [0] * 5)
S1 = np.array(P1 + N1)
S2 = np.array(P2 + N2)
W = [0.25, 0.5]

#: Part of a message that would leak a numpy/scipy internal instead of naming the argument.
INTERNAL = (
    "could not convert",
    "operands could not be broadcast",
    "invalid literal",
    "index ",
    "float() argument",
    "int() argument",
    "ufunc",
    "object of type",
    "truth value of an array",
)


def score_ci(x, n):
    return tuple(rocsim.core.proportion_ci(x, n, confidence_level=0.95))


def case(call, message, *, xfail=None, id=None):
    marks = [pytest.mark.xfail(reason=xfail, strict=True)] if xfail else []
    return pytest.param(call, message, marks=marks, id=id)


PAIRED = ["score", "wald", "agresti", "tango", "bonett_price"]

CASES = [
    # --- proportion_ci -----------------------------------------------------------------------
    case(lambda: rocsim.core.proportion_ci([1, 2], [3, 4, 5]), r"\bx\b.*\bn\b.*(broadcast|shape)"),
    case(lambda: rocsim.core.proportion_ci("a", 10), r"^x must hold numbers, got 'a'"),
    case(lambda: rocsim.core.proportion_ci(3, "ten"), r"^n must hold numbers, got 'ten'"),
    case(lambda: rocsim.core.proportion_ci(None, 10), r"^x must hold numbers, got None"),
    case(lambda: rocsim.core.proportion_ci(3, None), r"^n must hold numbers, got None"),
    case(lambda: rocsim.core.proportion_ci(np.nan, 10), r"^x must be finite"),
    case(lambda: rocsim.core.proportion_ci(3, np.inf), r"^n must be finite"),
    case(lambda: rocsim.core.proportion_ci(3 + 1j, 10), r"^x must hold real numbers"),
    case(lambda: rocsim.core.proportion_ci(3, 10 + 0j), r"^n must hold real numbers"),
    case(lambda: rocsim.core.proportion_ci(-1, 10), r"x must satisfy 0 <= x <= n"),
    case(lambda: rocsim.core.proportion_ci(11, 10), r"x must satisfy 0 <= x <= n"),
    case(lambda: rocsim.core.proportion_ci(0, 0), r"^n must be > 0"),
    case(lambda: rocsim.core.proportion_ci(0, -5), r"^n must be > 0"),
    case(
        lambda: rocsim.core.proportion_ci(True, 2),
        r"^x must hold numbers, got (True|a boolean|booleans)",
    ),
    case(
        lambda: rocsim.core.proportion_ci(1, True),
        r"^n must hold numbers, got (True|a boolean|booleans)",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, confidence_level=0),
        r"^confidence_level must be in \(0, 1\)",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, confidence_level=1),
        r"^confidence_level must be in \(0, 1\)",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, confidence_level=1.5),
        r"^confidence_level must be in \(0, 1\)",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, confidence_level="abc"),
        r"^confidence_level must be a number",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, confidence_level=np.nan),
        r"^confidence_level must be in \(0, 1\)",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, confidence_level=None),
        r"^confidence_level must be a number",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, confidence_level=True),
        r"^confidence_level must be",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, method="nope"),
        r"unknown interval method 'nope'; valid: .*wald.*score.*agresti.*jeffreys",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, method="agresti", pseudo_count=-1),
        r"^pseudo_count must be a finite number in \[0,",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, method="agresti", pseudo_count=np.nan),
        r"^pseudo_count must be a finite number in \[0,",
    ),
    case(
        lambda: rocsim.core.proportion_ci(3, 10, method="score", pseudo_count=1),
        r"^pseudo_count applies to method='agresti' only",
    ),
    # --- paired_difference_ci, every method ----------------------------------------------------
    *[
        case(
            lambda m=m: rocsim.core.paired_difference_ci(6, 5, 10, method=m),
            r"b, c >= 0 and b \+ c <= n",
            id=f"paired-b+c>n-{m}",
        )
        for m in PAIRED
    ],
    *[
        case(
            lambda m=m: rocsim.core.paired_difference_ci(0, 0, 0, method=m),
            r"^n must be > 0",
            id=f"paired-n0-{m}",
        )
        for m in PAIRED
    ],
    *[
        case(
            lambda m=m: rocsim.core.paired_difference_ci([1, 2], [1, 2, 3], 10, method=m),
            r"\bb\b.*\bc\b.*(broadcast|shape)",
            id=f"paired-shapes-{m}",
        )
        for m in PAIRED
    ],
    *[
        case(
            lambda m=m: rocsim.core.paired_difference_ci(
                1, 2, 10, confidence_level=np.nan, method=m
            ),
            r"^confidence_level must be in \(0, 1\)",
            id=f"paired-level-nan-{m}",
        )
        for m in PAIRED
    ],
    case(lambda: rocsim.core.paired_difference_ci("a", 1, 10), r"^b must hold numbers, got 'a'"),
    case(lambda: rocsim.core.paired_difference_ci(1, None, 10), r"^c must hold numbers, got None"),
    case(lambda: rocsim.core.paired_difference_ci(1, 1, 10j), r"^n must hold real numbers"),
    case(lambda: rocsim.core.paired_difference_ci(-1, 1, 10), r"b, c >= 0"),
    case(lambda: rocsim.core.paired_difference_ci(1, np.inf, 10), r"^c must be finite"),
    case(
        lambda: rocsim.core.paired_difference_ci(1, 1, 10, method="nope"),
        r"unknown paired interval method 'nope'; valid: .*tango.*bonett_price",
    ),
    case(
        lambda: rocsim.core.paired_difference_ci(1, 1, 10, method="agresti", pseudo_count="abc"),
        r"^pseudo_count must hold numbers, got 'abc'",
    ),
    # --- threshold_ci / threshold_distribution -----------------------------------------------
    case(lambda: rocsim.core.threshold_ci([], NEG, [0.5]), r"^pos_scores is empty"),
    case(lambda: rocsim.core.threshold_ci(POS, [], [0.5]), r"^neg_scores is empty"),
    case(lambda: rocsim.core.threshold_ci([POS], NEG, [0.5]), r"^pos_scores must be a 1-D array"),
    case(
        lambda: rocsim.core.threshold_ci(None, NEG, [0.5]),
        r"^pos_scores must (hold numbers|be a 1-D)",
    ),
    case(
        lambda: rocsim.core.threshold_ci(POS, [0.1, np.nan], [0.5]), r"^neg_scores contains 1 NaN"
    ),
    case(
        lambda: rocsim.core.threshold_ci([np.inf, 0.2], NEG, [0.5]), r"^pos_scores contains 1 NaN"
    ),
    case(
        lambda: rocsim.core.threshold_ci(POS, NEG, ["a"]),
        r"^thresholds must hold numbers, got 'a'",
    ),
    case(
        lambda: rocsim.core.threshold_ci(POS, NEG, [0.5j]), r"^thresholds must hold real numbers"
    ),
    case(lambda: rocsim.core.threshold_ci(POS, NEG, [[0.5]]), r"^thresholds must be 1-D"),
    case(lambda: rocsim.core.threshold_ci(POS, NEG, [np.nan]), r"^thresholds contains NaN"),
    case(lambda: rocsim.core.threshold_ci(POS, NEG, None), r"^thresholds must hold numbers"),
    case(
        lambda: rocsim.core.threshold_ci(POS, NEG, [0.5], bootstrap="nope"),
        r"unknown bootstrap scheme 'nope'; valid: stratified, full",
    ),
    case(
        lambda: rocsim.core.threshold_ci(POS, NEG, [0.5], method="nope"),
        r"unknown interval method 'nope'; valid: .*score",
    ),
    case(
        lambda: rocsim.core.threshold_ci(POS, NEG, [0.5], confidence_level="abc"),
        r"^confidence_level must be a number",
    ),
    case(
        lambda: rocsim.core.threshold_ci(POS, NEG, [0.5], method="agresti", pseudo_count=-0.5),
        r"^pseudo_count must be a finite number",
    ),
    case(
        lambda: rocsim.core.threshold_distribution(POS, NEG, ["a"]),
        r"^thresholds must hold numbers, got 'a'",
    ),
    case(
        lambda: rocsim.core.threshold_distribution(POS, NEG, [0.5], bootstrap="nope"),
        r"unknown bootstrap scheme 'nope'; valid:",
    ),
    case(lambda: rocsim.core.threshold_distribution(POS, "abc", [0.5]), r"^neg_scores must hold"),
    # --- vertical_ci / vertical_distribution -------------------------------------------------
    case(lambda: rocsim.core.vertical_ci(POS, NEG, [0]), r"^r must satisfy 1 <= r <= m- - 1 = 4"),
    case(lambda: rocsim.core.vertical_ci(POS, NEG, [5]), r"^r must satisfy 1 <= r <= m- - 1 = 4"),
    case(
        lambda: rocsim.core.vertical_ci(POS, NEG, [2**70]),
        r"^r must satisfy 1 <= r <= m- - 1",
    ),
    case(lambda: rocsim.core.vertical_ci(POS, NEG, [1.5]), r"^r must hold integers"),
    case(
        lambda: rocsim.core.vertical_ci(POS, NEG, ["a"]),
        r"^r must hold (numbers|integers)",
    ),
    case(lambda: rocsim.core.vertical_ci(POS, NEG, [np.nan]), r"^r must hold integers"),
    case(lambda: rocsim.core.vertical_ci(POS, NEG, []), r"^r must be a non-empty 1-D array"),
    case(lambda: rocsim.core.vertical_ci(POS, NEG, 2), r"^r must be a non-empty 1-D array"),
    case(
        lambda: rocsim.core.vertical_ci(POS, NEG, [2], method="nope"),
        r"unknown .*method 'nope'; valid:",
    ),
    case(
        lambda: rocsim.core.vertical_ci(POS, NEG, [2], confidence_level=1),
        r"^confidence_level must be in \(0, 1\)",
    ),
    case(
        lambda: rocsim.core.vertical_distribution(POS, NEG, [2], bootstrap="nope"),
        r"unknown bootstrap scheme 'nope'; valid:",
    ),
    case(lambda: rocsim.core.vertical_distribution(POS, [0.1], [1]), r"(neg_scores|m-|negatives)"),
    # --- kernel_roc_ci -----------------------------------------------------------------------
    case(
        lambda: rocsim.core.kernel_roc_ci(POS, NEG, [0]), r"^fpr must lie strictly between 0 and 1"
    ),
    case(
        lambda: rocsim.core.kernel_roc_ci(POS, NEG, [1]), r"^fpr must lie strictly between 0 and 1"
    ),
    case(lambda: rocsim.core.kernel_roc_ci(POS, NEG, "abc"), r"^fpr must hold numbers, got 'abc'"),
    case(
        lambda: rocsim.core.kernel_roc_ci(POS, NEG, [0.5], bandwidth_scale=-1),
        r"^bandwidth_scale must be a positive number",
    ),
    case(
        lambda: rocsim.core.kernel_roc_ci(POS, NEG, [0.5], bandwidth_scale="abc"),
        r"^bandwidth_scale must be a positive number",
    ),
    case(
        lambda: rocsim.core.kernel_roc_ci(POS, NEG, [0.5], bandwidth_scale=np.nan),
        r"^bandwidth_scale must be a positive number",
    ),
    # --- cost_ci / cost_curve / cost_difference_ci ------------------------------------------
    case(lambda: rocsim.core.cost_ci(POS, NEG, 1.5, [0.5]), r"\bw\b.*\[0, 1\]"),
    case(lambda: rocsim.core.cost_ci(POS, NEG, -0.1, [0.5]), r"\bw\b.*\[0, 1\]"),
    case(lambda: rocsim.core.cost_ci(POS, NEG, np.nan, [0.5]), r"\bw\b.*\[0, 1\]"),
    case(lambda: rocsim.core.cost_ci(POS, NEG, "abc", [0.5]), r"^w must hold numbers, got 'abc'"),
    case(lambda: rocsim.core.cost_ci(POS, NEG, [0.5j], [0.5]), r"^w must hold real numbers"),
    case(
        lambda: rocsim.core.cost_ci(POS, NEG, [0.5], ["a"]),
        r"^thresholds must hold numbers, got 'a'",
    ),
    case(
        lambda: rocsim.core.cost_ci(POS, NEG, [0.2, 0.5], [0.1, 0.2, 0.3]),
        r"w and thresholds must broadcast",
    ),
    case(
        lambda: rocsim.core.cost_ci(POS, NEG, [0.5], [0.5], method="jeffreys"),
        r"unknown cost interval method 'jeffreys'; valid: wald, score, agresti",
    ),
    case(
        lambda: rocsim.core.cost_ci(POS, NEG, [0.5], [0.5], bootstrap="nope"),
        r"unknown bootstrap scheme 'nope'; valid:",
    ),
    case(
        lambda: rocsim.core.cost_ci(POS, NEG, [0.5], [0.5], pseudo_count=np.nan),
        r"^pseudo_count must be a finite number",
    ),
    case(lambda: rocsim.core.cost_curve(POS, NEG, 2), r"\bw\b.*\[0, 1\]"),
    case(lambda: rocsim.core.cost_curve(POS, NEG, "abc"), r"^w must hold numbers, got 'abc'"),
    case(lambda: rocsim.core.cost_curve(POS, NEG, [[0.5]]), r"^w must be 1-D"),
    case(lambda: rocsim.core.cost_curve(POS, NEG, None), r"^w must hold numbers, got None"),
    case(lambda: rocsim.core.cost_curve([], NEG, W), r"^pos_scores is empty"),
    case(
        lambda: rocsim.core.cost_difference_ci(P1, P2[:3], N1, N2, W, [0.5], [0.5]),
        r"the two classifiers must score the same positives: 5 != 3",
    ),
    case(
        lambda: rocsim.core.cost_difference_ci(P1, P2, N1, N2, 2, [0.5], [0.5]),
        r"\bw\b.*\[0, 1\]",
    ),
    case(
        lambda: rocsim.core.cost_difference_ci(P1, P2, N1, N2, [0.5], ["a"], [0.5]),
        r"^t1 must hold numbers, got 'a'",
    ),
    case(
        lambda: rocsim.core.cost_difference_ci(P1, P2, N1, N2, [0.5, 0.6], [0.5], [0.5, 0.6, 0.7]),
        r"^w and t2 must broadcast",
    ),
    case(
        lambda: rocsim.core.cost_difference_ci(P1, P2, N1, N2, [0.5], [0.5], [0.5], method="nope"),
        r"unknown cost interval method 'nope'; valid:",
    ),
    # --- threshold_difference_ci / vertical_difference_ci -----------------------------------
    case(
        lambda: rocsim.core.threshold_difference_ci(P1, P2, N1, N2, [0.5, 0.6], [0.5]),
        r"t1 and t2 must pair up",
    ),
    case(
        lambda: rocsim.core.threshold_difference_ci(P1, P2, N1, N2, ["a"], [0.5]),
        r"^t1 must hold numbers, got 'a'",
    ),
    case(
        lambda: rocsim.core.threshold_difference_ci(P1, P2, N1[:2], N2, [0.5], [0.5]),
        r"the two classifiers must score the same negatives: 2 != 5",
    ),
    case(
        lambda: rocsim.core.threshold_difference_ci(P1, P2, N1, N2, [0.5], [0.5], method="nope"),
        r"unknown paired interval method 'nope'; valid: .*tango",
    ),
    case(
        lambda: rocsim.core.threshold_difference_ci(
            P1, P2, N1, N2, [0.5], [0.5], confidence_level=0
        ),
        r"^confidence_level must be in \(0, 1\)",
    ),
    case(
        lambda: rocsim.core.vertical_difference_ci(P1, P2, N1, N2, [0]),
        r"^r must satisfy 1 <= r <= m- - 1 = 4",
    ),
    case(
        lambda: rocsim.core.vertical_difference_ci(P1, P2, N1, N2, [2**70]),
        r"^r must satisfy 1 <= r <= m- - 1",
    ),
    case(
        lambda: rocsim.core.vertical_difference_ci(P1, P2, N1, N2, ["a"]),
        r"^r must hold (numbers|integers)",
    ),
    case(
        lambda: rocsim.core.vertical_difference_ci(P1, P2, N1, N2, [1.5]), r"^r must hold integers"
    ),
    case(
        lambda: rocsim.core.vertical_difference_ci(P1, P2, N1, N2, [2], algorithm="nope"),
        r"unknown vertical difference algorithm 'nope'; valid:",
    ),
    case(
        lambda: rocsim.core.vertical_difference_ci(P1, P2, N1, N2, [2], method="nope"),
        r"unknown .*method 'nope'; valid:",
    ),
    # --- roc_ci / compare_roc ----------------------------------------------------------------
    case(
        lambda: rocsim.roc_ci([0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4]),
        r"^y_true must (be binary|hold exactly two classes), got 3",
    ),
    case(
        lambda: rocsim.roc_ci([1, 1, 1], [0.1, 0.2, 0.3]),
        r"y_true (.*one class|must hold exactly two classes, got 1)",
    ),
    case(
        lambda: rocsim.roc_ci(Y, S1, pos_label=7),
        r"pos_label 7 is not (among the labels|a label) of y_true",
    ),
    case(lambda: rocsim.roc_ci(Y, S1[:-1]), r"y_true and y_score differ in length: 10 != 9"),
    case(lambda: rocsim.roc_ci(Y, ["a"] * 10), r"^y_score must hold numbers, got 'a'"),
    case(lambda: rocsim.roc_ci(Y.reshape(2, 5), S1), r"^y_true must be 1-D"),
    case(lambda: rocsim.roc_ci([], []), r"(y_true|y_score).*(empty|one class|two classes)"),
    case(lambda: rocsim.roc_ci(None, S1), r"^y_true must be"),
    case(lambda: rocsim.roc_ci(Y, S1, at="abc"), r"^at .*must hold numbers, got 'abc'"),
    case(lambda: rocsim.roc_ci(Y, S1, at=[np.nan]), r"^at .*finite"),
    case(lambda: rocsim.roc_ci(Y, S1, thresholds=["a"]), r"^thresholds must hold numbers"),
    case(
        lambda: rocsim.roc_ci(Y, S1, averaging="nope"),
        r"unknown averaging 'nope'; valid: threshold, vertical",
    ),
    case(lambda: rocsim.roc_ci(Y, S1, bootstrap="nope"), r"unknown bootstrap scheme 'nope'"),
    case(lambda: rocsim.roc_ci(Y, S1, method="nope"), r"unknown .*method 'nope'; valid:"),
    case(
        lambda: rocsim.roc_ci(Y, S1, confidence_level=1.5),
        r"^confidence_level must be in \(0, 1\)",
    ),
    case(
        lambda: rocsim.compare_roc(Y, S1, S2[:-1]),
        r"y_true and y_score2 differ in length: 10 != 9",
    ),
    case(lambda: rocsim.compare_roc(Y, S1, S2, averaging="nope"), r"unknown averaging 'nope'"),
    case(
        lambda: rocsim.compare_roc(Y, S1, S2, method="nope"),
        r"unknown .*method 'nope'; valid:",
    ),
    case(lambda: rocsim.compare_roc(Y, S1, S2, at="abc"), r"^at .*must hold numbers"),
    case(
        lambda: rocsim.compare_roc(Y, S1, S2, confidence_level="abc"),
        r"^confidence_level must be a number",
    ),
    # --- net_benefit_ci ------------------------------------------------------------------------
    case(lambda: rocsim.net_benefit_ci(Y, S1, thresholds=[0.5, 1.0]), r"^thresholds must lie"),
    case(lambda: rocsim.net_benefit_ci(Y, S1, thresholds="abc"), r"^thresholds must hold"),
    case(
        lambda: rocsim.net_benefit_ci(Y, S1 * 3), r"^y_proba must hold probabilities in \[0, 1\]"
    ),
    case(lambda: rocsim.net_benefit_ci(Y, S1, bootstrap="nope"), r"^unknown bootstrap 'nope'"),
    case(
        lambda: rocsim.net_benefit_ci(Y, S1, method="nope"),
        r"^unknown net benefit interval method 'nope'; valid: agresti, percentile, wald",
    ),
    case(lambda: rocsim.net_benefit_ci(Y, S1[:-1]), r"y_proba"),
    case(lambda: rocsim.net_benefit_ci(Y, S1, confidence_level=2), r"^confidence_level"),
    case(lambda: rocsim.compare_net_benefit(Y, S1, S2 * 2), r"^y_proba2 must hold probabilities"),
    case(lambda: rocsim.compare_net_benefit(Y, S1, S2[:-1]), r"y_proba2"),
    # --- cost_curve_ci / compare_cost --------------------------------------------------------
    case(lambda: rocsim.cost_curve_ci(Y, S1, w=2), r"\bw\b.*\[0, 1\]"),
    case(lambda: rocsim.cost_curve_ci(Y, S1, w="abc"), r"^w must hold numbers, got 'abc'"),
    case(
        lambda: rocsim.cost_curve_ci(Y, S1, thresholds="nope"),
        r"threshold.*'empirical'",
    ),
    case(
        lambda: rocsim.cost_curve_ci(Y, S1, pos_label="x"),
        r"pos_label 'x' is not (among the labels|a label) of y_true",
    ),
    case(
        lambda: rocsim.cost_curve_ci(Y, S1, method="nope"),
        r"unknown cost interval method 'nope'; valid: wald, score, agresti",
    ),
    case(lambda: rocsim.compare_cost(Y, S1, S2, w=-1), r"\bw\b.*\[0, 1\]"),
    case(
        lambda: rocsim.compare_cost(Y, S1, S2, bootstrap="nope"),
        r"unknown bootstrap scheme 'nope'",
    ),
    case(
        lambda: rocsim.compare_cost(Y, S1, [0.1, np.nan] * 5),
        r"^y_score2 contains 5 NaN",
    ),
    # --- auc_ci / compare_auc ----------------------------------------------------------------
    case(lambda: rocsim.auc_ci(Y, S1, method="nope"), r"unknown AUC method 'nope'; valid:"),
    case(lambda: rocsim.auc_ci(Y, S1, confidence_level=0), r"^confidence_level must be in"),
    case(
        lambda: rocsim.auc_ci(np.ones(10), S1),
        r"y_true (.*one class|must hold exactly two classes, got 1)",
    ),
    case(lambda: rocsim.auc_ci(Y, S1 * np.nan), r"^y_score contains 10 NaN"),
    case(lambda: rocsim.auc_ci(Y, S1 + 0j), r"^y_score must hold real numbers"),
    case(
        lambda: rocsim.compare_auc(Y, S1, S2[:3]),
        r"y_true and y_score2 differ in length: 10 != 3",
    ),
    case(lambda: rocsim.compare_auc(Y, S1, S2, method="nope"), r"unknown AUC method 'nope'"),
    case(
        lambda: rocsim.compare_auc(Y, S1, S2, confidence_level=np.nan),
        r"^confidence_level must be in",
    ),
    # --- binomial_coverage -------------------------------------------------------------------
    case(lambda: rocsim.core.binomial_coverage(0, [0.5], score_ci), r"^trials must be a positive"),
    case(
        lambda: rocsim.core.binomial_coverage(-3, [0.5], score_ci), r"^trials must be a positive"
    ),
    case(
        lambda: rocsim.core.binomial_coverage(2.5, [0.5], score_ci), r"^trials must be a positive"
    ),
    case(
        lambda: rocsim.core.binomial_coverage("abc", [0.5], score_ci),
        r"^trials must be a positive",
    ),
    case(
        lambda: rocsim.core.binomial_coverage(True, [0.5], score_ci), r"^trials must be a positive"
    ),
    case(lambda: rocsim.core.binomial_coverage(10, [1.5], score_ci), r"^p_true must .*\[0, 1\]"),
    case(
        lambda: rocsim.core.binomial_coverage(10, [np.nan], score_ci), r"^p_true must .*\[0, 1\]"
    ),
    case(lambda: rocsim.core.binomial_coverage(10, ["a"], score_ci), r"^p_true must hold numbers"),
    case(lambda: rocsim.core.binomial_coverage(10, [[0.5]], score_ci), r"^p_true must .*1-D"),
    case(
        lambda: rocsim.core.binomial_coverage(10, [0.5], "score"),
        r"^interval must be (a )?callable",
    ),
]


@pytest.mark.parametrize(("call", "message"), CASES)
def test_bad_input_names_the_argument(call, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning / ComplexWarning on the way
        with pytest.raises((ValueError, TypeError)) as err:
            call()
    text = str(err.value)
    assert not any(leak in text for leak in INTERNAL), text
    assert err.match(message), text


# --- inputs that are not errors: a correct result ---------------------------------------------


def test_empty_counts_give_an_empty_interval():
    low, high = rocsim.core.proportion_ci([], [])
    assert low.shape == high.shape == (0,)


@pytest.mark.parametrize("method", PAIRED)
def test_paired_broadcasts_counts_against_n(method):
    low, high = rocsim.core.paired_difference_ci([1, 2], [0, 1], 10, method=method)
    for k, (b, c) in enumerate([(1, 0), (2, 1)]):
        one = rocsim.core.paired_difference_ci(b, c, 10, method=method)
        assert low[k] == float(one.low) and high[k] == float(one.high)


def test_cost_difference_broadcasts_one_t1_against_several_t2():
    got = rocsim.core.cost_difference_ci(P1, P2, N1, N2, [0.5], [0.5], [0.5, 0.6, 0.7])
    want = rocsim.core.cost_difference_ci(P1, P2, N1, N2, [0.5] * 3, [0.5] * 3, [0.5, 0.6, 0.7])
    np.testing.assert_array_equal(got.t1, want.t1)
    np.testing.assert_array_equal(got.low, want.low)
    np.testing.assert_array_equal(got.high, want.high)


def test_boolean_scores_are_a_binary_classifier():
    got = rocsim.core.threshold_ci([True, True, False], [False, True, False], [0.5])
    want = rocsim.core.threshold_ci([1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5])
    np.testing.assert_array_equal(got.tpr_low, want.tpr_low)


def test_string_labels_with_pos_label():
    labels = np.where(Y == 1, "sick", "healthy")
    got = rocsim.auc_ci(labels, S1, pos_label="sick")
    want = rocsim.auc_ci(Y, S1)
    assert got.auc == pytest.approx(want.auc)


def test_binomial_coverage_at_the_ends_is_exact():
    cov = rocsim.core.binomial_coverage(10, [0.0, 1.0], score_ci)
    assert np.all(np.isfinite(cov.cover)) and np.all((cov.cover >= 0) & (cov.cover <= 1))
