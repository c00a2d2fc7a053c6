"""sample_size (rocsim.sim.planning): the smallest test set whose expected interval width at one
ROC point meets a target, checked against brute-force scans over n with simulated test sets.

Vertical averaging computes from the laws of the test set by default; the tests of the
simulation itself pass ``computation="simulate"``. The law computation has its own file,
``tests/test_vertical_sample_size_law.py``."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

from rocsim.core.coverage import threshold_exact_coverage
from rocsim.core.intervals import proportion_ci
from rocsim.core.threshold import threshold_ci
from rocsim.core.vertical import nearest_ranks, vertical_ci
from rocsim.sim.models import ScoreModel
from rocsim.sim.planning import (
    SampleSize,
    binormal,
    negatives_for,
    pilot_model,
    sample_size,
)

REQUIRED_COLUMNS = {"n_pos", "n_neg", "expected_width", "coverage", "coverage_se", "exact"}


# --- helpers: brute force by simulation -----------------------------------------------------


def simulated_threshold_widths(model, n_pos, n_neg, t, level, reps, rng):
    """TPR-side widths and rectangle coverage of threshold_ci's rectangles on ``reps`` test
    sets drawn from ``model`` (scores drawn, then counted at ``t``; vectorised over test sets:
    under the stratified bootstrap each side of threshold_ci is proportion_ci at sqrt(level))."""
    pos = model.pos.sample(rng, (reps, n_pos))
    neg = model.neg.sample(rng, (reps, n_neg))
    tp, fp = (pos >= t).sum(axis=1), (neg >= t).sum(axis=1)
    axis = math.sqrt(level)
    tpr_low, tpr_high = proportion_ci(tp, n_pos, confidence_level=axis, method="score")
    fpr_low, fpr_high = proportion_ci(fp, n_neg, confidence_level=axis, method="score")
    tpr, fpr = float(model.tpr(t)), float(model.fpr(t))
    cover = (tpr_low <= tpr) & (tpr <= tpr_high) & (fpr_low <= fpr) & (fpr <= fpr_high)
    return tpr_high - tpr_low, cover


def simulated_vertical_widths(model, n_pos, n_neg, at, level, reps, rng):
    """Widths of rocsim.core.vertical_ci at the rank nearest ``at`` on ``reps`` independent test
    sets, and whether each holds the true TPR at FPR r / n-."""
    r = nearest_ranks([at], n_neg)
    truth = float(model.pos.sf(model.neg.isf(r[0] / n_neg)))
    widths, cover = np.empty(reps), np.empty(reps, dtype=bool)
    for j in range(reps):
        ci = vertical_ci(
            model.pos.sample(rng, n_pos), model.neg.sample(rng, n_neg), r, confidence_level=level
        )
        widths[j] = ci.high[0] - ci.low[0]
        cover[j] = ci.low[0] <= truth <= ci.high[0]
    return widths, cover


def exact_tpr_width(model, t, n_pos, n_neg, level, method="score"):
    c = threshold_exact_coverage(
        [float(model.tpr(t))],
        [float(model.fpr(t))],
        n_pos,
        n_neg,
        confidence_level=level,
        method=method,
    )
    return float(c.tpr.width[0])


# --- threshold averaging: exact, checked by brute force --------------------------------------


def test_threshold_side_of_threshold_ci_is_the_proportion_interval_used_by_the_brute_force():
    # the vectorised brute force below reads threshold_ci's TPR side as proportion_ci at
    # sqrt(level); check that on simulated test sets
    model, rng = binormal(auc=0.8), np.random.default_rng(1)
    t = float(model.neg.isf(0.2))
    for _ in range(20):
        pos, neg = model.pos.sample(rng, 37), model.neg.sample(rng, 41)
        ci = threshold_ci(pos, neg, [t], confidence_level=0.9)
        low, high = proportion_ci((pos >= t).sum(), 37, confidence_level=math.sqrt(0.9))
        assert ci.tpr_low[0] == pytest.approx(float(low), abs=1e-15)
        assert ci.tpr_high[0] == pytest.approx(float(high), abs=1e-15)


def test_threshold_answer_is_the_first_n_by_exact_scan_and_by_simulated_scan():
    # design point 1: AUC 0.8, FPR 0.2, TPR width 0.2 at 95%
    level, target = 0.95, 0.2
    plan = sample_size(0.8, at=0.2, averaging="threshold", width=target, confidence_level=level)
    model = binormal(auc=0.8)
    t = float(model.neg.isf(0.2))
    assert plan.threshold == pytest.approx(t)
    assert plan.fpr == pytest.approx(0.2) and plan.tpr == pytest.approx(float(model.tpr(t)))
    # exact scan of every n from 1: the answer is the first n with W(n) <= width
    exact = {n: exact_tpr_width(model, t, n, n, level) for n in range(1, plan.n + 1)}
    first = min(n for n, w in exact.items() if w <= target)
    assert plan.n == first
    assert plan.expected_width == pytest.approx(exact[plan.n], abs=1e-15)
    assert plan.exact and plan.width_se == 0 and plan.coverage_se == 0
    # simulated scan of n around the answer: simulated mean widths agree with the exact ones
    # within Monte Carlo error, and the first n whose simulated width is (within error) <=
    # the target is the function's n
    rng = np.random.default_rng(2024)
    reps = 20_000
    scan = range(plan.n - 8, plan.n + 5)
    z_max, first_sim = 0.0, None
    for n in scan:
        widths, _ = simulated_threshold_widths(model, n, n, t, level, reps, rng)
        mean, se = widths.mean(), widths.std(ddof=1) / math.sqrt(reps)
        exact_w = exact.get(n) or exact_tpr_width(model, t, n, n, level)
        z_max = max(z_max, abs(mean - exact_w) / se)
        if first_sim is None and mean <= target + 4 * se:
            first_sim = n
        if n < plan.n - 2:  # clearly before the answer: clearly above the target
            assert mean > target - 4 * se, (n, mean, se)
    assert z_max < 4.5
    assert first_sim is not None and abs(first_sim - plan.n) <= 2


def test_threshold_exact_coverage_equals_simulated_coverage():
    level = 0.9
    plan = sample_size(0.75, at=0.3, averaging="threshold", width=0.15, confidence_level=level)
    model = binormal(auc=0.75)
    rng = np.random.default_rng(7)
    reps = 40_000
    widths, cover = simulated_threshold_widths(
        model, plan.n_pos, plan.n_neg, plan.threshold, level, reps, rng
    )
    se = math.sqrt(plan.coverage * (1 - plan.coverage) / reps)
    assert abs(cover.mean() - plan.coverage) < 4 * se
    assert abs(widths.mean() - plan.expected_width) < 4 * widths.std() / math.sqrt(reps)
    # and with rocsim.core.threshold_ci itself on fewer test sets
    hits = 0
    for _ in range(2000):
        pos, neg = model.pos.sample(rng, plan.n_pos), model.neg.sample(rng, plan.n_neg)
        ci = threshold_ci(pos, neg, [plan.threshold], confidence_level=level)
        hits += bool(
            (ci.tpr_low[0] <= plan.tpr <= ci.tpr_high[0])
            and (ci.fpr_low[0] <= plan.fpr <= ci.fpr_high[0])
        )
    assert abs(hits / 2000 - plan.coverage) < 4 * math.sqrt(plan.coverage * 0.2 / 2000) + 0.01


def test_threshold_fpr_axis_depends_on_the_negatives_only():
    plan = sample_size(0.8, at=0.1, averaging="threshold", width=0.08, axis="fpr", ratio=2.0)
    assert plan.n_neg == negatives_for(plan.n, 2.0) == math.ceil(2 * plan.n)
    frame = plan.to_frame()
    assert frame.attrs["axis"] == "fpr"
    # the same FPR width needs about half the positives of ratio 1
    base = sample_size(0.8, at=0.1, averaging="threshold", width=0.08, axis="fpr")
    assert abs(plan.n_neg - base.n_neg) <= 1


# --- vertical averaging: law and simulation, checked by brute force ---------------------------


def _check_vertical_against_brute_force(
    target, reps_function, reps_brute, scan_step, seed, computation="simulate"
):
    at, level = 0.2, 0.95
    plan = sample_size(
        0.8,
        at=at,
        width=target,
        replications=reps_function,
        random_state=seed,
        computation=computation,
    )
    model = binormal(auc=0.8)
    frame = plan.to_frame()
    computed = "simulated" if computation == "simulate" else "law (approximate)"
    assert not frame["exact"].any() and set(frame["computed"]) == {computed}
    assert plan.expected_width <= target
    rng = np.random.default_rng(seed + 1000)
    span = max(12, int(0.08 * plan.n))
    ns, means, ses = [], [], []
    for n in range(plan.n - span, plan.n + span + 1, scan_step):
        widths, _ = simulated_vertical_widths(model, n, n, at, level, reps_brute, rng)
        ns.append(n)
        means.append(widths.mean())
        ses.append(widths.std(ddof=1) / math.sqrt(reps_brute))
    ns, means, ses = np.array(ns), np.array(means), np.array(ses)
    sigma = np.sqrt(ses**2 + plan.width_se**2)  # brute force and function errors combined
    # no n clearly before the answer clearly meets the target; the answer meets it
    before = ns < plan.n
    assert np.all(means[before] > target - 4 * sigma[before]), (ns, means)
    at_answer = np.abs(ns - plan.n) <= scan_step // 2
    assert np.all(means[at_answer] <= target + 4 * sigma[at_answer])
    # the crossing of a straight line through the brute-force widths is the function's n,
    # within the uncertainty of both (W falls as n^-1/2: dn = 2 n dW / W)
    slope, intercept = np.polyfit(ns, means, 1)
    crossing = (target - intercept) / slope
    tolerance = 4 * 2 * plan.n * float(np.sqrt(plan.width_se**2 + np.mean(ses) ** 2)) / target
    assert abs(crossing - plan.n) <= tolerance + 2, (crossing, plan.n, tolerance)
    # the function's simulated widths agree with the brute force where both were computed
    shared = frame[frame["n_pos"].isin(ns)]
    for _, row in shared.iterrows():
        k = int(np.flatnonzero(ns == row["n_pos"])[0])
        assert abs(row["expected_width"] - means[k]) < 4.5 * math.hypot(row["width_se"], ses[k])
    return plan


@pytest.mark.parametrize("computation", ["simulate", "law"])
def test_vertical_answer_agrees_with_a_brute_force_scan_smoke(computation):
    _check_vertical_against_brute_force(0.3, 200, 300, 4, seed=3, computation=computation)


@pytest.mark.slow
def test_vertical_answer_agrees_with_a_brute_force_scan():
    # design point 2: AUC 0.8, FPR 0.2, TPR width 0.2 at 95%, every n of the scan
    _check_vertical_against_brute_force(0.2, 400, 1500, 1, seed=0)


def test_vertical_coverage_and_point_are_those_of_the_rank():
    plan = sample_size(0.8, at=0.1, width=0.3, replications=100, computation="simulate")
    r = nearest_ranks([0.1], plan.n_neg)[0]
    model = binormal(auc=0.8)
    assert plan.fpr == pytest.approx(r / plan.n_neg)
    assert plan.tpr == pytest.approx(float(model.pos.sf(model.neg.isf(r / plan.n_neg))))
    assert 0 < plan.coverage_se < 0.05 and 0 < plan.width_se
    assert plan.coverage_se == pytest.approx(
        math.sqrt(plan.coverage * (1 - plan.coverage) / 99), rel=1e-9
    )
    assert plan.replications == 100 and not plan.exact
    law = sample_size(0.8, at=0.1, width=0.3)
    r = nearest_ranks([0.1], law.n_neg)[0]
    assert law.fpr == pytest.approx(r / law.n_neg)
    assert law.tpr == pytest.approx(float(model.pos.sf(model.neg.isf(r / law.n_neg))))
    assert law.coverage_se == law.width_se == 0 and law.replications is None and not law.exact


def test_vertical_results_do_not_depend_on_the_search_path():
    # the width at a given n is the same whichever search visits it (streams keyed by seed,
    # replication and class, or by n without common random numbers)
    for crn in (True, False):
        kwargs = dict(
            width=0.3,
            replications=60,
            random_state=5,
            common_random_numbers=crn,
            computation="simulate",
        )
        a = sample_size(0.8, at=0.1, **kwargs).to_frame().set_index("n_pos")
        b = sample_size(0.8, at=0.1, min_n=13, **kwargs).to_frame().set_index("n_pos")
        shared = a.index.intersection(b.index)
        assert len(shared) >= 3
        cols = ["expected_width", "width_se", "coverage"]
        assert a.loc[shared, cols].equals(b.loc[shared, cols])


def test_common_random_numbers_nest_the_test_sets():
    # replication j's test set of size n is the first n draws of its streams: the widths
    # move smoothly with n, in steps far below the Monte Carlo error of each width (what is
    # left is mostly the true sawtooth of the rank r = round(at n-))
    kwargs = dict(at=0.25, width=0.25, replications=100, random_state=1, computation="simulate")
    for crn in (True, False):
        plan = sample_size(0.8, common_random_numbers=crn, **kwargs)
        assert plan.to_frame()["meets"].iloc[-1] and plan.expected_width <= 0.25
    plan = sample_size(0.8, **kwargs)
    widths = plan.to_frame().set_index("n_pos")["expected_width"]
    steps = [abs(widths[n + 1] - widths[n]) for n in widths.index if n + 1 in widths.index]
    assert len(steps) >= 3, "the search evaluates neighbours near the answer"
    assert np.median(steps) < 0.25 * plan.width_se


# --- models ----------------------------------------------------------------------------------


def test_auc_model_is_the_binormal_score_model():
    model = binormal(auc=0.8)
    a = math.sqrt(2) * 0.8416212335729143  # sqrt(2) Phi^-1(0.8)
    assert model.pos.family == model.neg.family == "binormal"
    assert model.pos.params == pytest.approx((a, 1.0)) and model.neg.params == (0.0, 1.0)
    assert binormal(a=1.2, b=0.8).pos.params == pytest.approx((1.5, 1.25))
    assert binormal(auc=0.8, b=0.5).label().startswith("N(")
    by_auc = sample_size(0.8, at=0.1, averaging="threshold", width=0.12)
    by_model = sample_size(model, at=0.1, averaging="threshold", width=0.12)
    assert by_auc.to_frame().equals(by_model.to_frame())
    assert by_auc.model == model.label()


def test_any_score_model_works():
    from scipy import stats

    model = ScoreModel.from_distributions(stats.gamma(3.0), stats.gamma(1.5))
    plan = sample_size(model, at=0.2, averaging="threshold", width=0.15)
    assert plan.tpr == pytest.approx(float(model.tpr(model.neg.isf(0.2))))
    vertical = sample_size(model, at=0.2, width=0.35, replications=50, computation="simulate")
    assert vertical.n >= 5 and vertical.expected_width <= 0.35


def test_pilot_data_model():
    rng = np.random.default_rng(0)
    truth = binormal(auc=0.8)
    y = np.r_[np.ones(400, dtype=int), np.zeros(400, dtype=int)]
    s = np.r_[truth.pos.sample(rng, 400), truth.neg.sample(rng, 400)]
    pilot = sample_size((y, s), at=0.2, averaging="threshold", width=0.15)
    auc = sample_size(0.8, at=0.2, averaging="threshold", width=0.15)
    assert pilot.model == "empirical(400)/empirical(400)"
    # the pilot's true TPR at its threshold is its own share of positives there
    assert pilot.tpr == pytest.approx(np.mean(s[y == 1] >= pilot.threshold))
    assert pilot.fpr == pytest.approx(np.mean(s[y == 0] >= pilot.threshold))
    assert pilot.fpr >= 0.2
    assert abs(pilot.n - auc.n) <= 0.15 * auc.n
    # vertical averaging draws test sets from the pilot's scores (ties and all)
    vertical = sample_size((y, s), at=0.2, width=0.3, replications=60)
    assert vertical.expected_width <= 0.3 and not vertical.exact
    assert vertical.computed == "simulated"  # no law for a step-function ROC curve
    # labels other than 0/1
    labels = np.where(y == 1, "case", "control")
    named = sample_size((labels, s), at=0.2, averaging="threshold", width=0.15, pos_label="case")
    assert named.n == pilot.n


def test_empirical_distribution_functions():
    model = pilot_model([1, 1, 0, 0, 0, 0], [0.9, 0.4, 0.5, 0.2, 0.2, 0.1])
    neg = model.neg
    assert neg.sf(0.2) == 0.75 and neg.sf(0.21) == 0.25 and neg.cdf(0.2) == 0.25
    # isf(u): the largest score v with sf(v) >= u
    assert neg.isf(0.25) == 0.5 and neg.isf(0.26) == 0.2 and neg.isf(0.76) == 0.1
    rng = np.random.default_rng(0)
    draws = neg.sample(rng, 4000)
    assert set(np.unique(draws)) == {0.1, 0.2, 0.5}
    assert abs(np.mean(draws == 0.2) - 0.5) < 0.03


# --- result protocol, reproducibility, inputs -----------------------------------------------


def test_result_protocol():
    plan = sample_size(0.8, at=0.1, averaging="threshold", width=0.1)
    assert isinstance(plan, SampleSize) and plan.n == plan.n_pos and isinstance(plan.n, int)
    assert re.fullmatch(
        r"SampleSize\(n\+=\d+, n-=\d+: expected TPR width [\d.]+ <= 0\.1 at FPR 0\.1, "
        r"threshold, score, 95%\)",
        repr(plan),
    )
    frame = plan.to_frame()
    assert REQUIRED_COLUMNS <= set(frame.columns)
    assert frame["n_pos"].is_monotonic_increasing and frame["exact"].all()
    assert set(frame["computed"]) == {"exact"}
    assert frame.attrs["averaging"] == "threshold" and frame.attrs["width"] == 0.1
    assert frame.attrs["n_pos"] == plan.n and frame.attrs["method"] == "score"
    chosen = frame[frame["n_pos"] == plan.n].iloc[0]
    assert chosen["meets"] and chosen["expected_width"] == plan.expected_width
    assert not frame[frame["n_pos"] < plan.n]["meets"].any()
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.n_pos = 3
    vertical = sample_size(0.8, at=0.1, width=0.3, replications=30)
    assert "vertical, score, 95%" in repr(vertical)


def test_same_seed_same_table_other_seed_other_table():
    kwargs = dict(at=0.1, width=0.3, replications=40, computation="simulate")
    a = sample_size(0.8, random_state=11, **kwargs).to_frame()
    b = sample_size(0.8, random_state=11, **kwargs).to_frame()
    c = sample_size(0.8, random_state=12, **kwargs).to_frame()
    assert a.equals(b)
    assert not a["expected_width"].equals(c["expected_width"])


def test_ratio_rounding_and_min_n():
    assert negatives_for(30, 0.1) == 3 and negatives_for(31, 0.1) == 4
    plan = sample_size(0.8, at=0.3, averaging="threshold", width=0.15, ratio=0.5)
    assert plan.n_neg == math.ceil(0.5 * plan.n)
    # a vertical search starts where a rank sits at the FPR: n- >= 1 / at
    vertical = sample_size(0.8, at=0.05, width=0.5, replications=20)
    assert vertical.to_frame()["n_neg"].min() >= 20


def test_unreachable_width_names_width_and_max_n():
    with pytest.raises(ValueError, match="max_n"):
        sample_size(0.8, at=0.1, averaging="threshold", width=0.01, max_n=100)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(width=0), "width"),
        (dict(width=-0.1), "width"),
        (dict(width=float("nan")), "width"),
        (dict(width="0.1"), "width"),
        (dict(at=0.0), "at"),
        (dict(at=1.0), "at"),
        (dict(at=1.5), "at"),
        (dict(confidence_level=1.0), "confidence_level"),
        (dict(confidence_level=0), "confidence_level"),
        (dict(ratio=0), "ratio"),
        (dict(ratio=-2), "ratio"),
        (dict(averaging="diagonal"), "averaging"),
        (dict(method="bogus"), "method"),
        (dict(method="not_a_method", averaging="threshold"), "method"),
        (dict(method="clopper_pearson", averaging="vertical"), "method"),
        (dict(axis="fpr", averaging="vertical"), "axis"),
        (dict(axis="both", averaging="threshold"), "axis"),
        (dict(replications=1), "replications"),
        (dict(replications=2.5), "replications"),
        (dict(computation="exact"), "computation"),
        (dict(random_state=-1), "random_state"),
        (dict(min_n=0), "min_n"),
        (dict(max_n=0), "max_n"),
        (dict(pseudo_count=1.0), "pseudo_count"),
        (dict(model=1.5), "model"),
        (dict(model=0.0), "model"),
        (dict(model="binormal"), "model"),
        (dict(model=([1, 1, 1], [0.1, 0.2, 0.3])), "model"),
        (dict(model=([1, 0], [0.1, 0.2, 0.3])), "model"),
    ],
)
def test_bad_inputs_name_the_argument(kwargs, name):
    args = dict(model=0.8, at=0.1, width=0.1, averaging="threshold") | kwargs
    model = args.pop("model")
    with pytest.raises(ValueError, match=name):
        sample_size(model, **args)


def test_averaging_and_method_errors_list_the_valid_choices():
    with pytest.raises(ValueError, match="vertical, threshold"):
        sample_size(0.8, at=0.1, width=0.1, averaging="diagonal")
    with pytest.raises(ValueError, match="score, wald, agresti, percentile"):
        sample_size(0.8, at=0.1, width=0.1, method="jeffreys")
    with pytest.raises(ValueError, match="clopper_pearson"):
        sample_size(0.8, at=0.1, width=0.1, averaging="threshold", method="exact")


def test_other_methods_and_levels():
    wilson = sample_size(0.8, at=0.1, averaging="threshold", width=0.1)
    cp = sample_size(0.8, at=0.1, averaging="threshold", width=0.1, method="clopper_pearson")
    assert cp.n > wilson.n  # Clopper-Pearson is wider
    ninety = sample_size(0.8, at=0.1, averaging="threshold", width=0.1, confidence_level=0.9)
    assert ninety.n < wilson.n
    agresti = sample_size(0.8, at=0.1, averaging="threshold", width=0.1, method="agresti")
    assert agresti.method == "agresti" and abs(agresti.n - wilson.n) < 0.1 * wilson.n
