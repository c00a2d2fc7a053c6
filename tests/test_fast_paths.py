"""The fast paths of the simulations give their straightforward versions' results bit for bit.

Every coverage table must stay byte-identical when the code only gets faster, so each shortcut
is checked here against the plain computation it replaces: the compiled monotone chain, the
one-sort ROC counts, the cumulative-histogram joint counts, the normal survival function
without scipy's checks, the pmf computed where it is used, the exact cost coverage that skips
cells of probability 0, the exact threshold coverage computed in parts, the kernel estimates
sharing one transform, the vectorised ``math.isclose`` of the claims, and the runner's outcomes
shared between studies and replication counts.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import signal, special, stats

from rocsim.core import cost, counting, coverage, kernel
from rocsim.core.cost import cost_interval_from_counts, cost_target
from rocsim.core.counting import count_at_or_above, decision_counts, roc_counts
from rocsim.sim import runner
from rocsim.sim.claims import _numeric_isin
from rocsim.sim.conditions import Condition
from rocsim.sim.models import ClassDistribution, make_model
from rocsim.sim.pipeline import run_study
from rocsim.studies import get_kind


def _chain(x, y):
    """Andrew's monotone chain in Python floats, as rocsim first wrote it."""
    hull: list[int] = []
    x, y = x.tolist(), y.tolist()
    for k in range(len(x)):
        while len(hull) >= 2:
            i, j = hull[-2], hull[-1]
            if (x[j] - x[i]) * (y[k] - y[i]) - (y[j] - y[i]) * (x[k] - x[i]) >= 0:
                hull.pop()
            else:
                break
        hull.append(k)
    return np.asarray(hull, dtype=np.int64)


def _scores(rng, case: int):
    n_pos, n_neg = (int(v) for v in rng.integers(1, 60, 2))
    if case == 0:
        return rng.normal(1, 1, n_pos), rng.normal(0, 1, n_neg)
    if case == 1:  # many ties, within and across classes
        return rng.integers(0, 6, n_pos).astype(float), rng.integers(-2, 4, n_neg).astype(float)
    if case == 2:  # equal class sizes: lattice points, many exactly collinear
        return rng.integers(0, 20, n_pos).astype(float), rng.integers(-5, 15, n_pos).astype(float)
    if case == 3:
        return np.round(rng.normal(2, 1, n_pos), 1), np.round(rng.normal(0, 2, n_neg), 1)
    return rng.normal(rng.uniform(0, 6), 1, 1000), rng.normal(0, 1, 1000)


def test_compiled_hull_is_the_python_chain():
    rng = np.random.default_rng(1)
    for trial in range(3000):
        pos, neg = _scores(rng, trial % 5)
        _, tp, fp = roc_counts(pos, neg)
        x = np.concatenate([[0.0], fp / neg.size])
        y = np.concatenate([[0.0], tp / pos.size])
        np.testing.assert_array_equal(cost._upper_hull(x, y), _chain(x, y))
    for trial in range(500):  # lattice paths with up, right and diagonal steps
        steps = rng.integers(0, 3, int(rng.integers(3, 300)))
        fx = np.concatenate([[0], np.cumsum(steps != 1)])
        fy = np.concatenate([[0], np.cumsum(steps != 0)])
        scale = max(fx[-1], fy[-1], 1) if trial % 2 else 1
        x, y = fx / max(fx[-1], scale, 1), fy / max(fy[-1], scale, 1)
        np.testing.assert_array_equal(cost._upper_hull(x, y), _chain(x, y))


def test_sorted_roc_counts_are_roc_counts():
    rng = np.random.default_rng(2)
    cases = [_scores(rng, trial % 5) for trial in range(2000)]
    cases.append((np.array([0.0, -0.0, 1.0]), np.array([-0.0, 0.0, 2.0])))  # signed zeros
    for pos, neg in cases:
        for got, want in zip(counting.sorted_roc_counts(pos, neg), roc_counts(pos, neg)):
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("chain", [True, False])
def test_decision_counts_are_brute_force(chain):
    rng = np.random.default_rng(3)
    for _ in range(2000):
        s1, s2 = (rng.integers(-5, 5, int(rng.integers(1, 40))).astype(float) for _ in range(2))
        s2 = s2[: s1.size] if s2.size >= s1.size else np.resize(s2, s1.size)
        h = int(rng.integers(0, 15))
        t1, t2 = (rng.choice([-np.inf, np.inf, *range(-6, 6)], h).astype(float) for _ in "12")
        if chain:  # thresholds ordered alike, as on a grid of conditions
            order = rng.permutation(h)
            t1, t2 = np.sort(t1)[order], np.sort(t2)[order]
        first, second, both = decision_counts(s1, s2, t1, t2)
        np.testing.assert_array_equal(first, count_at_or_above(s1, t1))
        np.testing.assert_array_equal(second, count_at_or_above(s2, t2))
        brute = ((s1[:, None] >= t1) & (s2[:, None] >= t2)).sum(axis=0)
        np.testing.assert_array_equal(both, brute)
        assert both.dtype == np.int64 and both.shape == (h,)


def test_bucket_ranks_are_searchsorted():
    """Large samples are placed among the thresholds by buckets; where two values would share
    a bucket, or the range overflows, by bisection. Either way numpy's ranks."""
    rng = np.random.default_rng(8)
    grid = np.log(1 / np.linspace(0.01, 0.99, 99) - 1)
    cases = [
        np.sort(rng.normal(size=99)),
        np.sort(grid / 1.5 + 0.3),
        np.sort(np.concatenate([grid, grid[::7], [-np.inf, np.inf, np.inf]])),
        np.sort(rng.integers(-5, 5, 40).astype(float)),
        np.array([0.0, 1e-300, 2e-300]),
        np.array([-1e308, 0.0, 1e308]),
        np.array([2.5]),
    ]
    for ascending in cases:
        finite = ascending[np.isfinite(ascending)]
        keys = np.concatenate(
            [
                rng.normal(0, 3, 5000),
                rng.integers(-6, 6, 500).astype(float),
                ascending,
                np.nextafter(finite, np.inf),
                np.nextafter(finite, -np.inf),
                [np.inf, -np.inf, 1e308, -1e308],
            ]
        )
        np.testing.assert_array_equal(
            counting._ranks(ascending, keys), np.searchsorted(ascending, keys, side="right")
        )


@pytest.mark.parametrize("params", [(0.0, 1.0), (3.0, 3.75), (-1.0, 3.0), (7.0, 1.0)])
def test_normal_class_functions_are_scipys(params):
    rng = np.random.default_rng(4)
    dist, frozen = ClassDistribution("binormal", params), stats.norm(*params)
    edge = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 5e-324, 40.0, -40.0])
    for t in (rng.normal(params[0], 10, 500), edge, rng.integers(-9, 9, 20), 0.5, 3, [0.1]):
        for name in ("sf", "cdf"):
            got, want = getattr(dist, name)(t), getattr(frozen, name)(t)
            assert type(got) is type(want)
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


def test_binomial_support_pmf_is_scipys_where_used():
    rng = np.random.default_rng(5)
    for trials in (1, 7, 100, 1000):
        p = np.concatenate([[0.0, 1.0, 1e-9, 0.5], rng.random(20)])
        x, pmf = coverage.binomial_support(trials, p)
        lo = np.nan_to_num(stats.binom.ppf(coverage.TAIL_MASS, trials, p), nan=0.0)
        hi = np.nan_to_num(stats.binom.isf(coverage.TAIL_MASS, trials, p), nan=trials)
        inside = lo.astype(np.int64)[:, None] + np.arange(x.shape[1]) <= hi[:, None]
        want = np.where(inside, stats.binom.pmf(x, trials, p[:, None]), 0.0)
        assert pmf.tobytes() == want.tobytes()


def _cost_exact_reference(tpr, fpr, w, n_pos, n_neg, level, method, a, bootstrap):
    """cost_exact_coverage as first written: the interval on every cell of the table."""
    target = cost_target(w, tpr, fpr, n_pos / (n_pos + n_neg), bootstrap)
    x, px = coverage.binomial_support(n_pos, tpr)
    y, py = coverage.binomial_support(n_neg, fpr)
    out = {name: np.empty(w.size) for name in ("cover", "below", "above", "width")}
    for g in range(w.size):
        _, _, low, high = cost_interval_from_counts(
            x[g][:, None], y[g][None, :], n_pos, n_neg, w[g], level, method, a, bootstrap
        )
        low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
        prob = px[g][:, None] * py[g][None, :]
        c = target[g]
        out["cover"][g] = np.sum(prob * ((low <= c) & (c <= high)))
        out["below"][g] = np.sum(prob * (c < low))
        out["above"][g] = np.sum(prob * (c > high))
        out["width"][g] = np.sum(prob * (high - low))
    for name in ("cover", "below", "above"):
        np.clip(out[name], 0.0, 1.0, out=out[name])
    return out


@pytest.mark.parametrize(
    ("method", "a", "bootstrap", "n"),
    [("agresti", 2.0, "stratified", 60), ("score", None, "full", 45), ("wald", None, "full", 80)],
)
def test_cost_exact_coverage_skips_only_cells_of_probability_zero(method, a, bootstrap, n):
    model = make_model("binormal", (1.5, 1.0), (0.0, 1.0))
    w = np.round(np.linspace(0.01, 0.99, 15), 12)
    t = model.cost_threshold(w)
    tpr, fpr = model.tpr(t), model.fpr(t)
    got = coverage.cost_exact_coverage(
        tpr,
        fpr,
        w,
        n,
        n + 7,
        confidence_level=0.9,
        method=method,
        pseudo_count=a,
        bootstrap=bootstrap,
    )
    want = _cost_exact_reference(tpr, fpr, w, n, n + 7, 0.9, method, a, bootstrap)
    for name, values in want.items():
        assert getattr(got, name).tobytes() == values.tobytes()


def test_exact_threshold_coverage_in_parts_is_the_whole():
    kind = get_kind("threshold")
    normal = {"family": "binormal", "pos": {"mu": 1.0, "sd": 1.0}, "neg": {"mu": 0.0, "sd": 1.0}}
    grid = {"start": 0.01, "stop": 0.99, "num": 9}
    settings = {
        "model": normal,
        "n": 60,
        "pi": 0.5,
        "method": "score",
        "pseudo_count": None,
        "confidence_level": 0.9,
        "grid": grid,
        "bootstrap": "stratified",
        "sampling": "full",
        "threshold": "oracle",
        "cost_prior": "sample",
    }
    condition = Condition("s", {}, settings)
    setup = kind.setup(condition)
    parts = kind.exact_split(condition, setup)
    assert len(parts) > 1
    joined = kind.exact_join(
        condition, setup, [kind.exact_part(condition, setup, p) for p in parts]
    )
    whole = coverage.threshold_exact_coverage(
        setup.target,
        setup.extra["target_fpr"],
        60,
        60,
        confidence_level=0.9,
        method="score",
        sampling="full",
    )
    assert joined["cover"].tobytes() == whole.cover.tobytes()
    assert joined["mean_width_fpr"].tobytes() == whole.fpr.width.tobytes()


def _binned_reference(x, h, grid):
    """kernel._binned_cdf_pdf as first written, with scipy.signal.fftconvolve."""
    m = grid.size
    counts, lags = kernel._linear_bins(x, h, grid)
    cdf = signal.fftconvolve(counts, special.ndtr(lags))[m - 1 : 2 * m - 1] / x.size
    pdf = signal.fftconvolve(counts, np.exp(-0.5 * lags * lags))[m - 1 : 2 * m - 1]
    pdf /= x.size * h * np.sqrt(2 * np.pi)
    return np.clip(cdf, 0.0, 1.0), np.maximum(pdf, 0.0)


def test_kernel_estimates_share_one_transform():
    rng = np.random.default_rng(6)
    for _ in range(30):
        x = rng.normal(rng.uniform(-2, 2), rng.uniform(0.2, 3), int(rng.integers(5, 3000)))
        grid = np.linspace(x.min() - 3, x.max() + 3, kernel.GRID_SIZE)
        h = float(rng.uniform(0.05, 1.0))
        for got, want in zip(kernel._binned_cdf_pdf(x, h, grid), _binned_reference(x, h, grid)):
            assert got.tobytes() == want.tobytes()


def test_numeric_isin_is_math_isclose():
    rng = np.random.default_rng(7)
    column = pd.Series(
        np.concatenate(
            [rng.normal(size=100), [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 1 + 1e-9, 1 + 3e-9]]
        )
    )
    for numbers in ([0.0], [1.0], [np.inf], [np.nan], [1e-300], list(column[:4])):
        want = column.apply(lambda v, numbers=numbers: any(math.isclose(v, n) for n in numbers))
        assert _numeric_isin(column, numbers).equals(want)


def _bytes(output):
    return (output.directory / "coverage.csv").read_bytes()


def test_studies_share_outcomes_and_replications(small_study, tmp_path, monkeypatch):
    """With ``reuse_from``, a condition another study already ran on the same data, the same
    way (fig5_7 repeats fig5_1: the default pseudo-count spelled out), is taken from its cache,
    and a run with more replications computes only the missing ones: the same bytes as alone."""
    alone = run_study(small_study("fig5_7", "results_dir=" + str(tmp_path / "a")), tmp_path / "a")
    root = tmp_path / "b"
    run_study(small_study("fig5_1", f"results_dir={root}"), root / "fig5_1", reuse_from=root)
    shared = run_study(
        small_study("fig5_7", f"results_dir={root}"), root / "fig5_7", reuse_from=root
    )
    assert shared.run.computed == [] and len(shared.run.reused) == 4
    assert _bytes(shared) == _bytes(alone)
    more = ("replications=70", "exact_beside_limit=0")
    fresh = run_study(
        small_study("fig5_1", *more, f"results_dir={tmp_path / 'c'}"), tmp_path / "c"
    )
    blocks = []
    run_block = runner.run_block
    monkeypatch.setattr(runner, "run_block", lambda *a: blocks.append(a[4:6]) or run_block(*a))
    longer = run_study(
        small_study("fig5_1", *more, f"results_dir={root}"), root / "longer", reuse_from=root
    )
    assert _bytes(longer) == _bytes(fresh)
    assert blocks and min(start for start, _ in blocks) == 40  # only replications 40..69 ran


def test_single_threaded_limits_every_pool():
    from threadpoolctl import threadpool_info

    from rocsim.sim.runner import single_threaded

    with single_threaded():
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())
