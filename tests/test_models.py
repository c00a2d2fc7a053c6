"""Score models: true thresholds of total positive ratios, sampling, test-set draws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from rocsim.sim.models import draw_test_set, make_model

MODELS = {
    "binormal": make_model("binormal", {"mu": 1.0, "sd": 1.0}, (0.0, 1.0)),
    "binormal_unequal": make_model("binormal", (2.0, 2.0), {"mu": 0.0, "sd": 1.0}),
    "thesis_theta5": make_model("binormal", (5.0, 3.75), (-5.0, 3.0)),
    "beta": make_model("beta", (2.0, 4.0), (2.0, 3.0)),
    "beta_shape": make_model("beta", {"a": 1.2, "b": 2.0}, {"a": 1.2, "b": 3.0}),
    "exponential": make_model("exponential", (3.0,), {"mean": 2.0}),
}

# The same distributions, built independently with scipy.stats
SCIPY = {
    "binormal": (stats.norm(1, 1), stats.norm(0, 1)),
    "binormal_unequal": (stats.norm(2, 2), stats.norm(0, 1)),
    "thesis_theta5": (stats.norm(5, 3.75), stats.norm(-5, 3)),
    "beta": (stats.beta(2, 4), stats.beta(2, 3)),
    "beta_shape": (stats.beta(1.2, 2), stats.beta(1.2, 3)),
    "exponential": (stats.expon(scale=3), stats.expon(scale=2)),
}

Q_GRID = np.round(np.arange(1, 100) / 100, 2)


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("pi", [0.5, 0.1])
def test_threshold_for_total_positive_ratio_solves_equation(name, pi):
    model = MODELS[name]
    pos, neg = SCIPY[name]
    t = model.threshold_for_total_positive_ratio(Q_GRID, pi=pi)
    assert t.shape == Q_GRID.shape
    ratio = pi * pos.sf(t) + (1 - pi) * neg.sf(t)
    np.testing.assert_allclose(ratio, Q_GRID, rtol=0, atol=1e-10)
    assert np.all(np.diff(t) < 0)  # larger ratio, lower threshold
    np.testing.assert_allclose(model.tpr(t), pos.sf(t), rtol=1e-14)
    np.testing.assert_allclose(model.fpr(t), neg.sf(t), rtol=1e-14)


def test_threshold_scalar_input():
    model = MODELS["binormal"]
    t = model.threshold_for_total_positive_ratio(0.5)
    assert t.shape == (1,)
    # N(1,1) and N(0,1) at equal weight: symmetric about 0.5
    assert t[0] == pytest.approx(0.5, abs=1e-10)


@pytest.mark.parametrize("q", [0.0, 1.0, -0.1, 1.5])
def test_threshold_rejects_ratio_outside_unit_interval(q):
    with pytest.raises(ValueError, match="ratio"):
        MODELS["binormal"].threshold_for_total_positive_ratio([0.5, q])


def dispersion_model(theta):
    return make_model("binormal", (theta, 3.75), (-theta, 3.0))


def test_thesis_worked_example():
    model = dispersion_model(5)
    (t,) = model.threshold_for_total_positive_ratio(0.13)
    assert round(float(t), 4) == 7.4127
    assert round(float(model.tpr(t)), 5) == 0.25998
    assert float(f"{float(model.fpr(t)):.4e}") == 1.7549e-5


@pytest.mark.parametrize(
    ("theta", "t01", "t99"),
    [(0.75, 8.5299, -7.8430), (5.0, 12.7016, -11.1618)],
)
def test_thesis_extreme_thresholds(theta, t01, t99):
    t = dispersion_model(theta).threshold_for_total_positive_ratio([0.01, 0.99])
    assert round(float(t[0]), 4) == t01
    assert round(float(t[1]), 4) == t99


@pytest.mark.parametrize("name", list(MODELS))
def test_samples_follow_the_distribution(name):
    model = MODELS[name]
    pos, neg = SCIPY[name]
    rng = np.random.default_rng(12345)
    xp = model.pos.sample(rng, 5000)
    xn = model.neg.sample(rng, 5000)
    assert xp.shape == xn.shape == (5000,)
    assert stats.kstest(xp, pos.cdf).pvalue > 1e-3
    assert stats.kstest(xn, neg.cdf).pvalue > 1e-3
    # and not the other class's distribution (the test has power)
    assert stats.kstest(xp, neg.cdf).pvalue < 1e-3


@pytest.mark.parametrize("name", list(MODELS))
def test_sampling_is_reproducible(name):
    model = MODELS[name]
    a = model.pos.sample(np.random.default_rng(3), 50)
    b = model.pos.sample(np.random.default_rng(3), 50)
    c = model.pos.sample(np.random.default_rng(4), 50)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    for sampling in ["stratified", "full"]:
        first = draw_test_set(model, 30, 20, sampling, np.random.default_rng(9))
        second = draw_test_set(model, 30, 20, sampling, np.random.default_rng(9))
        np.testing.assert_array_equal(first[0], second[0])
        np.testing.assert_array_equal(first[1], second[1])
        assert first[2] == second[2]


def test_draw_test_set_stratified_sizes():
    pos, neg, redraws = draw_test_set(
        MODELS["binormal"], 7, 13, "stratified", np.random.default_rng(0)
    )
    assert (pos.size, neg.size, redraws) == (7, 13, 0)


def test_draw_test_set_full_sizes_sum_to_n():
    rng = np.random.default_rng(0)
    sizes = []
    for _ in range(2000):
        pos, neg, _ = draw_test_set(MODELS["exponential"], 30, 10, "full", rng)
        assert pos.size + neg.size == 40
        assert pos.size > 0 and neg.size > 0
        sizes.append(pos.size)
    sizes = np.array(sizes)
    # N+ ~ Bin(40, 3/4) (the empty-class redraw has probability ~1e-24 here)
    assert len(set(sizes.tolist())) > 5
    assert abs(sizes.mean() - 30) <= 4 * math.sqrt(40 * 0.75 * 0.25 / sizes.size)


def test_draw_test_set_full_redraws_happen_with_tiny_sets():
    model = MODELS["binormal"]
    redraws = [
        draw_test_set(model, 1, 1, "full", np.random.default_rng(seed))[2] for seed in range(100)
    ]
    assert any(r > 0 for r in redraws)
    for seed in range(100):
        pos, neg, _ = draw_test_set(model, 1, 1, "full", np.random.default_rng(seed))
        assert pos.size == neg.size == 1


@pytest.mark.parametrize(
    ("n_pos", "n_neg"),
    [(1, 1), (2, 1), (1, 3)],
)
def test_draw_test_set_redraw_count_is_geometric(n_pos, n_neg):
    n = n_pos + n_neg
    pi = n_pos / n
    p_empty = pi**n + (1 - pi) ** n  # n_pos=n_neg=1: 2 * 0.5^2 = 0.5
    accept = 1 - p_empty
    mean = p_empty / accept  # failures before the first success
    var = p_empty / accept**2
    rng = np.random.default_rng(2024)
    draws = 4000
    counts = np.array(
        [draw_test_set(MODELS["binormal"], n_pos, n_neg, "full", rng)[2] for _ in range(draws)]
    )
    assert abs(counts.mean() - mean) <= 4 * math.sqrt(var / draws)
    # Pr{no redraw} = accept
    assert abs(np.mean(counts == 0) - accept) <= 4 * math.sqrt(accept * p_empty / draws)


class CountingRng:
    """A Generator stand-in that fails loudly instead of looping for ever."""

    def __init__(self, seed=0, limit=10_000):
        self._rng = np.random.default_rng(seed)
        self.calls = 0
        self.limit = limit

    def binomial(self, *args, **kwargs):
        self.calls += 1
        if self.calls > self.limit:
            raise RuntimeError("draw_test_set redrew the class counts more than 10000 times")
        return self._rng.binomial(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._rng, name)


@pytest.mark.parametrize(("n_pos", "n_neg"), [(0, 5), (5, 0), (1, 0)])
def test_draw_test_set_full_rejects_an_impossible_class(n_pos, n_neg):
    # With an empty class in the design every full-sampling draw has an empty class, so
    # "redraw while a class is empty" can never stop: that must be an input error.
    with pytest.raises(ValueError, match=r"n_pos|n_neg"):
        draw_test_set(MODELS["binormal"], n_pos, n_neg, "full", CountingRng())


def test_draw_test_set_unknown_sampling():
    with pytest.raises(ValueError, match="sampling") as info:
        draw_test_set(MODELS["binormal"], 5, 5, "bootstrap", np.random.default_rng(0))
    assert "stratified" in str(info.value) and "full" in str(info.value)


@pytest.mark.parametrize(
    ("family", "pos", "neg", "word"),
    [
        ("gamma", (1.0, 1.0), (1.0, 1.0), "family"),
        ("binormal", (0.0, 0.0), (0.0, 1.0), "binormal"),
        ("binormal", (0.0, -1.0), (0.0, 1.0), "binormal"),
        ("binormal", (0.0,), (0.0, 1.0), "binormal"),
        ("binormal", (0.0, 1.0, 2.0), (0.0, 1.0), "binormal"),
        ("binormal", (np.nan, 1.0), (0.0, 1.0), "binormal"),
        ("binormal", (0.0, np.inf), (0.0, 1.0), "binormal"),
        ("binormal", {"mu": 0.0, "sigma": 1.0}, (0.0, 1.0), "binormal"),
        ("binormal", {"mu": 0.0}, (0.0, 1.0), "binormal"),
        ("beta", (0.0, 1.0), (1.0, 1.0), "beta"),
        ("beta", (1.0, -2.0), (1.0, 1.0), "beta"),
        ("beta", {"a": 1.0}, (1.0, 1.0), "beta"),
        ("exponential", (0.0,), (1.0,), "exponential"),
        ("exponential", (1.0, 2.0), (1.0,), "exponential"),
        ("exponential", {"scale": 1.0}, (1.0,), "exponential"),
    ],
)
def test_bad_family_or_params(family, pos, neg, word):
    with pytest.raises(ValueError, match=word):
        make_model(family, pos, neg)


def test_unknown_family_lists_valid_names():
    with pytest.raises(ValueError) as info:
        make_model("gamma", (1.0,), (1.0,))
    for name in ["binormal", "beta", "exponential"]:
        assert name in str(info.value)
