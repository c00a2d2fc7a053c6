"""sample_size(averaging="vertical") from the laws of the test set (rocsim.sim.vertical_law).

Checked here: the exact ingredients E[e], Var(e), E[D] against Monte Carlo over test sets (a
tiny design and a realistic one); the quadrature against independent integrals and against a
brute force over every pair; the approximate width and coverage against the simulation of
sample_size(computation="simulate") at two design points; the API (computation, fallbacks).
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
import pytest
from scipy import integrate, special, stats

from rocsim.core.mixture import rank_weights
from rocsim.core.vertical import nearest_ranks, vertical_distribution
from rocsim.sim import vertical_law
from rocsim.sim.models import ScoreModel
from rocsim.sim.planning import binormal, sample_size
from rocsim.sim.vertical_law import law_moments, law_width_coverage

BINORMAL = binormal(auc=0.8)
#: A model whose ROC curve is no binormal one: positives Gamma(3), negatives Gamma(1.5).
GAMMA = ScoreModel.from_distributions(stats.gamma(3.0), stats.gamma(1.5))


def roc_of(model):
    return lambda u: model.pos.sf(model.neg.isf(u))


def weights(n_neg, r):
    """The mixture weights of vertical_ci at rank r (ranks 1..n-), as _moments uses them."""
    band = rank_weights(n_neg, n_neg, (r,))
    w = np.zeros(n_neg)
    w[band.index[0]] += band.normalised[0]
    return w


def draw_test_sets(model, n_pos, n_neg, r, reps, seed, chunk=500):
    """e and D of `reps` test sets drawn from `model` (seeded): the share q_c of positives
    reaching the c-th largest negative, e = sum w_c q_c, D = sum w_c (q_c - e)^2."""
    rng = np.random.default_rng(seed)
    w = weights(n_neg, r)
    ranks = np.flatnonzero(w > 0)
    e, d = np.empty(reps), np.empty(reps)
    for start in range(0, reps, chunk):
        size = min(chunk, reps - start)
        pos = model.pos.sample(rng, (size, n_pos))
        neg = -np.sort(-model.neg.sample(rng, (size, n_neg)), axis=1)
        q = (pos[:, :, None] >= neg[:, None, ranks]).mean(axis=1)
        e[start : start + size] = q @ w[ranks]
        d[start : start + size] = np.square(q - e[start : start + size, None]) @ w[ranks]
    return e, d


def within(value, sample, sigmas=4.0):
    """|value - mean(sample)| within `sigmas` standard errors of the mean."""
    se = sample.std(ddof=1) / math.sqrt(sample.size)
    return abs(value - sample.mean()) <= sigmas * se, (value, sample.mean(), se)


# --- the exact ingredients -------------------------------------------------------------------


def test_the_test_set_helper_is_vertical_distribution():
    # e and D of the helper are the mean and (var - e(1-e)/m)/(1 - 1/m) of the exact law
    rng = np.random.default_rng(3)
    for n_pos, n_neg, r in ((3, 4, 1), (3, 4, 2), (7, 12, 4)):
        w = weights(n_neg, r)
        for _ in range(30):
            pos, neg = BINORMAL.pos.sample(rng, n_pos), BINORMAL.neg.sample(rng, n_neg)
            law = vertical_distribution(pos, neg, [r])
            q = (pos[:, None] >= np.sort(neg)[::-1][None, :]).mean(axis=0)
            e = float(w @ q)
            d = float(w @ np.square(q - e))
            assert law.mean[0] == pytest.approx(e, abs=1e-14)
            spread = (law.var[0] - e * (1 - e) / n_pos) / (1 - 1 / n_pos)
            assert spread == pytest.approx(d, abs=1e-13)


@pytest.mark.parametrize(
    ("model", "size", "r", "draws", "seed"),
    [
        # n+ = n- - 1 = 3: tiny, every rank's weight matters
        (BINORMAL, 3, 1, 200_000, 11),
        (BINORMAL, 3, 2, 200_000, 12),
        (GAMMA, 3, 3, 200_000, 13),
        # 200 per class at FPR 0.1 (r = 20)
        (BINORMAL, 200, 20, 20_000, 5),
        (GAMMA, 200, 20, 20_000, 5),
    ],
)
def test_exact_ingredients_against_test_sets(model, size, r, draws, seed):
    """E[e], Var(e) and E[D] within 4 standard errors of their means over test sets."""
    n_neg = 4 if size == 3 else size
    e, d = draw_test_sets(model, size, n_neg, r, draws, seed=seed)
    law = law_moments(roc_of(model), size, n_neg, r)
    for value, sample in (
        (law.mean, e),
        (law.var, np.square(e - e.mean())),
        (law.mean_d, d),
    ):
        ok, detail = within(value, sample)
        assert ok, detail


# --- the quadrature --------------------------------------------------------------------------


def test_one_rank_grid_against_adaptive_quadrature():
    roc = roc_of(BINORMAL)
    for n_neg, c in ((50, 1), (50, 5), (2000, 200), (100_000, 10_000)):
        pdf = stats.beta(c, n_neg - c + 1).pdf
        lo, hi = special.betaincinv(c, n_neg - c + 1, [1e-16, 1 - 1e-16])
        m = integrate.quad(lambda u, f=pdf: roc(u) * f(u), lo, hi, epsabs=0, epsrel=1e-13)[0]
        v = integrate.quad(
            lambda u, f=pdf, m=m: (roc(u) - m) ** 2 * f(u), lo, hi, epsabs=0, epsrel=1e-12
        )[0]
        got_m, got_v = vertical_law._moments_at(roc, n_neg, np.array([float(c)]))
        assert got_m[0] == pytest.approx(m, rel=1e-11)
        assert got_v[0] == pytest.approx(v, rel=1e-8)


def pair_spread_by_fine_grid(roc, n_neg, c, d, nodes=400):
    """Var(R(V_d) - R(V_c)) by a tensor Gauss-Legendre rule in the probit of V_c and of B
    (V_d = V_c + (1 - V_c) B), each law's density evaluated: another rule than the module's."""

    def rule(a, b):
        lo, hi = (
            special.ndtri(special.betaincinv(a, b, 1e-17)),
            -special.ndtri(special.betaincinv(b, a, 1e-17)),
        )
        x, wx = np.polynomial.legendre.leggauss(nodes)
        z = (hi + lo) / 2 + (hi - lo) / 2 * x
        u = special.ndtr(z)
        log_pdf = (
            (a - 1) * np.log(u)
            + (b - 1) * special.log_ndtr(-z)
            - special.betaln(a, b)
            - z * z / 2
            - 0.5 * math.log(2 * math.pi)
        )
        return u, np.exp(log_pdf) * wx * (hi - lo) / 2

    v, wv = rule(c, n_neg - c + 1)
    b, wb = rule(d - c, n_neg - d + 1)
    gap = roc(v[:, None] + (1 - v[:, None]) * b[None, :]) - roc(v)[:, None]
    weight = np.outer(wv, wb) / (wv.sum() * wb.sum())
    mean = np.sum(weight * gap)
    return float(np.sum(weight * (gap - mean) ** 2))


@pytest.mark.parametrize(
    ("n_neg", "c", "d"), [(50, 1, 2), (50, 3, 7), (100, 10, 40), (100_000, 10_000, 10_001)]
)
def test_pair_rule_against_a_fine_grid(n_neg, c, d):
    roc = roc_of(BINORMAL)
    got = vertical_law._pair_spread(roc, n_neg, np.array([c]), np.array([d]))[0]
    # adjacent ranks near FPR 0 (c = 1, d = 2) are the hardest case of the 12-point rule
    assert got == pytest.approx(pair_spread_by_fine_grid(roc, n_neg, c, d), rel=3e-7)


@pytest.mark.parametrize(("n", "r"), [(40, 1), (100, 10), (300, 30), (400, 360)])
def test_the_pair_rule_moves_no_planned_width(n, r, monkeypatch):
    # the 12-point rule errs up to ~3e-7 on one pair (above); what it feeds, the expected width
    # and coverage, agrees with a 24-point rule to 1e-7 relative
    roc = roc_of(BINORMAL)
    tpr = float(roc(np.array(r / n)))
    rule = vertical_law.law_width_coverage(law_moments(roc, n, n, r), tpr, 0.95, "score", None)
    z, wz = np.polynomial.hermite_e.hermegauss(24)
    monkeypatch.setattr(vertical_law, "_SCORE_Z", z)
    monkeypatch.setattr(vertical_law, "_SCORE_W", wz / wz.sum())
    fine = vertical_law.law_width_coverage(law_moments(roc, n, n, r), tpr, 0.95, "score", None)
    np.testing.assert_allclose(rule, fine, rtol=1e-7)


def brute_force_moments(roc, n_pos, n_neg, r, monkeypatch):
    """E[e], Var(e), E[D] with every rank and every pair integrated directly (24-point normal
    scores), by the formulas of the module docstring."""
    z, wz = np.polynomial.hermite_e.hermegauss(24)
    monkeypatch.setattr(vertical_law, "_SCORE_Z", z)
    monkeypatch.setattr(vertical_law, "_SCORE_W", wz / wz.sum())
    ranks, w = vertical_law._band(n_neg, r)
    m, s = vertical_law._moments_at(roc, n_neg, ranks.astype(float))
    c, d = np.triu_indices(ranks.size, 1)
    spread = np.concatenate(
        [
            vertical_law._pair_spread(roc, n_neg, ranks[c[i : i + 4000]], ranks[d[i : i + 4000]])
            for i in range(0, c.size, 4000)
        ]
    )
    monkeypatch.undo()
    total = float(np.sum(w[c] * w[d] * spread))
    mean = float(w @ m)
    index = np.arange(ranks.size)
    lowest = float(w @ m[np.minimum.outer(index, index)] @ w)
    spread_m = float(w @ np.square(m - mean))
    rising = float(np.sum(w[c] * w[d] * (m[d] - m[c])))
    var = (lowest - mean**2) / n_pos + (1 - 1 / n_pos) * (float(w @ s) - total)
    mean_d = (1 - 1 / n_pos) * total + (rising - spread_m) / n_pos + spread_m
    return mean, var, mean_d


@pytest.mark.parametrize(
    ("n", "at"),
    [(30, 0.1), (100, 0.02), (100, 0.1), (400, 0.9), (1200, 0.1)],
    ids=["direct", "table-near-0", "table", "table-near-1", "interpolated"],
)
def test_table_and_interpolation_against_every_pair(n, at, monkeypatch):
    # the Chebyshev table of pairs, the interpolation of sum_d w_d Delta_cd in c and of the
    # one-rank moments against a brute force over every rank and pair with finer rules
    roc = roc_of(BINORMAL)
    r = int(nearest_ranks([at], n)[0])
    law = law_moments(roc, n, n, r)
    mean, var, mean_d = brute_force_moments(roc, n, n, r, monkeypatch)
    assert law.mean == pytest.approx(mean, rel=1e-12)
    assert law.var == pytest.approx(var, rel=1e-7)
    assert law.mean_d == pytest.approx(mean_d, rel=1e-7)


def test_blocks_of_ranks_barely_move_the_gaussian_fluctuation(monkeypatch):
    # Var(D) and Cov(e, D) from blocks of ranks (a band of 191 ranks > 160) against every rank
    roc = roc_of(BINORMAL)
    blocks = law_moments(roc, 1500, 1500, 150)
    monkeypatch.setattr(vertical_law, "QUADRATIC_FORM_RANKS", 10_000)
    every = law_moments(roc, 1500, 1500, 150)
    assert blocks.var_d == pytest.approx(every.var_d, rel=0.01)
    assert blocks.cov_ed == pytest.approx(every.cov_ed, rel=0.01)
    tau = float(roc(0.1))
    for got, want in zip(
        law_width_coverage(blocks, tau, 0.95, "score", None),
        law_width_coverage(every, tau, 0.95, "score", None),
    ):
        assert got == pytest.approx(want, rel=1e-4)


def test_one_candidate_at_n_1e5_is_fast():
    # generous bound (a shared machine): the work per candidate does not grow with the band
    roc = roc_of(BINORMAL)
    law_moments(roc, 1000, 1000, 100)  # warm up
    start = time.perf_counter()
    law = law_moments(roc, 100_000, 100_000, 10_000)
    law_width_coverage(law, float(roc(0.1)), 0.95, "score", None)
    assert time.perf_counter() - start < 1.0


# --- width and coverage against the simulation -------------------------------------------------


def at_one_n(n, method, computation, replications=400, seed=0):
    """sample_size evaluated at exactly one n (width 1 is met at once)."""
    return sample_size(
        BINORMAL,
        at=0.1,
        width=1.0,
        method=method,
        computation=computation,
        replications=replications,
        random_state=seed,
        min_n=n,
    )


#: Allowed relative width error and coverage error of the law's approximation, per n, beyond
#: 4 Monte Carlo standard errors.
ALLOWANCE = {100: (0.01, 0.012), 400: (0.004, 0.006)}


def check_against_simulation(n, method, replications, seed):
    law = at_one_n(n, method, "law")
    sim = at_one_n(n, method, "simulate", replications, seed)
    assert law.n == sim.n == n and law.computed == "law (approximate)"
    assert sim.computed == "simulated" and sim.replications == replications
    width_tol, cover_tol = ALLOWANCE[n]
    assert abs(law.expected_width - sim.expected_width) <= (
        4 * sim.width_se + width_tol * sim.expected_width
    ), (law.expected_width, sim.expected_width, sim.width_se)
    assert abs(law.coverage - sim.coverage) <= 4 * sim.coverage_se + cover_tol, (
        law.coverage,
        sim.coverage,
        sim.coverage_se,
    )
    assert law.tpr == sim.tpr and law.fpr == sim.fpr
    return law, sim


@pytest.mark.parametrize(
    ("n", "method"), [(100, "score"), (400, "score"), (100, "wald"), (400, "agresti")]
)
def test_law_width_and_coverage_against_simulation(n, method):
    check_against_simulation(n, method, 4000, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["score", "wald", "agresti"])
@pytest.mark.parametrize("n", [100, 400])
def test_law_width_and_coverage_against_a_long_simulation(n, method):
    check_against_simulation(n, method, 40_000, seed=2)


@pytest.mark.slow
def test_pair_rule_against_adaptive_quadrature():
    roc = roc_of(BINORMAL)
    n_neg, c, d = 50, 3.0, 7.0
    first, step = stats.beta(c, n_neg - c + 1), stats.beta(d - c, n_neg - d + 1)

    def moment(k):
        def f(b, x):
            return (roc(x + (1 - x) * b) - roc(x)) ** k * first.pdf(x) * step.pdf(b)

        return integrate.dblquad(f, 0, 1, 0, 1, epsabs=1e-13, epsrel=1e-11)[0]

    expected = moment(2) - moment(1) ** 2
    got = vertical_law._pair_spread(roc, n_neg, np.array([c]), np.array([d]))[0]
    assert got == pytest.approx(expected, rel=1e-9)


# --- the API -----------------------------------------------------------------------------------


def test_law_rows_are_deterministic_and_marked_approximate():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # enough positives on both sides: no warning
        plan = sample_size(0.8, at=0.1, width=0.25)
    frame = plan.to_frame()
    assert set(frame["computed"]) == {"law (approximate)"} and not frame["exact"].any()
    assert (frame["width_se"] == 0).all() and (frame["coverage_se"] == 0).all()
    assert plan.replications is None and plan.computed == "law (approximate)"
    assert frame.attrs["computed"] == "law (approximate)"
    assert frame["meets"].iloc[-1] and not frame[frame["n_pos"] < plan.n]["meets"].any()
    # nothing is drawn: the seed, the replications and common random numbers do not matter
    other = sample_size(
        0.8, at=0.1, width=0.25, random_state=99, replications=7, common_random_numbers=False
    )
    assert other.to_frame().equals(frame)
    assert 0.9 < plan.coverage < 1.0


def test_few_positives_on_one_side_warn():
    # TPR 0.998 at FPR 0.95: e has an atom at 1, far from normal
    with pytest.warns(UserWarning, match="computation='simulate'"):
        plan = sample_size(0.8, at=0.95, width=0.05)
    assert plan.n * (1 - plan.tpr) < 5


def test_simulate_is_the_former_behaviour():
    plan = sample_size(0.8, at=0.1, width=0.3, computation="simulate", replications=40)
    frame = plan.to_frame()
    assert set(frame["computed"]) == {"simulated"} and plan.replications == 40
    assert (frame["width_se"] > 0).all()


@pytest.mark.parametrize(
    "method", ["percentile", lambda law, level: (law.mean - 0.1, law.mean + 0.1)]
)
def test_methods_without_a_law_are_simulated(method):
    plan = sample_size(0.8, at=0.1, width=0.4, method=method, replications=30)
    assert plan.computed == "simulated" and plan.replications == 30
    assert set(plan.to_frame()["computed"]) == {"simulated"}


def test_pilot_data_is_simulated():
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(100, dtype=int), np.zeros(100, dtype=int)]
    s = np.r_[BINORMAL.pos.sample(rng, 100), BINORMAL.neg.sample(rng, 100)]
    plan = sample_size((y, s), at=0.2, width=0.35, replications=30)
    assert plan.computed == "simulated" and plan.replications == 30


def test_threshold_averaging_ignores_computation():
    a = sample_size(0.8, at=0.1, averaging="threshold", width=0.1)
    b = sample_size(0.8, at=0.1, averaging="threshold", width=0.1, computation="simulate")
    assert a.to_frame().equals(b.to_frame()) and a.computed == "exact"


@pytest.mark.parametrize("value", ["foo", "Law", None, 1])
def test_bad_computation_names_the_argument(value):
    with pytest.raises(ValueError, match=r"computation .*; valid: law, simulate"):
        sample_size(0.8, at=0.1, width=0.2, computation=value)


def test_other_score_models_and_ratios():
    one = sample_size(GAMMA, at=0.2, width=1.0, ratio=2.0, min_n=150)
    assert one.computed == "law (approximate)" and (one.n, one.n_neg) == (150, 300)
    assert one.tpr == pytest.approx(float(GAMMA.pos.sf(GAMMA.neg.isf(one.fpr))))
    assert one.fpr == 60 / 300 and 0.9 < one.coverage < 1.0
    plan = sample_size(0.8, at=0.1, width=0.3, ratio=0.5)
    assert plan.n_neg == math.ceil(0.5 * plan.n) and plan.expected_width <= 0.3
    wald = sample_size(0.8, at=0.1, width=0.3, method="wald", confidence_level=0.9)
    score = sample_size(0.8, at=0.1, width=0.3, confidence_level=0.9)
    assert abs(wald.n - score.n) <= 0.15 * score.n and wald.method == "wald"
