"""Interval methods and score models of the user's own.

In the core, every interval function takes a function in place of a method name and gives
the same result as the built-in it re-implements; wrong functions are refused with a message
naming them. Through configs (``_target_``), the documented example in
``docs/examples/custom_method`` runs in studies, sweeps, method comparisons and the report.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special, stats

import rocsim
from rocsim.core.formulas import normal_quantile
from rocsim.core.intervals import PAIRED_PROTOCOL, PROPORTION_PROTOCOL
from rocsim.core.methods import check_method_function
from rocsim.core.paired_vertical import VERTICAL_DIFFERENCE_PROTOCOL
from rocsim.core.precision_recall import PR_PROTOCOL
from rocsim.core.vertical import VERTICAL_PROTOCOL

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "custom_method"
ROCSIM = [sys.executable, "-c", "from rocsim.cli import main; main()"]
REPRODUCE = [sys.executable, "-c", "from rocsim.cli import reproduce; reproduce()"]
#: Overrides of a small study run (one n, five grid points, ten replications).
SMALL = "study.axes.n=[50] grid.num=5 replications=10 results_dir=res n_jobs=1"


# --- the same numbers as the built-ins, given as functions ------------------------------------


def my_wald(x, n, confidence_level):
    p = x / n
    half = normal_quantile(confidence_level) * np.sqrt(p * (1 - p) / n)
    return p - half, p + half


def my_paired_wald(b, c, n, confidence_level):
    d, g = (b - c) / n, (b + c) / n
    half = normal_quantile(confidence_level) * np.sqrt(np.maximum(g - d * d, 0) / n)
    return d - half, d + half


def my_moment_wald(law, confidence_level):
    half = normal_quantile(confidence_level) * np.sqrt(law.var)
    return law.mean - half, law.mean + half


@pytest.fixture
def data():
    rng = np.random.default_rng(5)
    pos, neg = rng.normal(1, 1, 60), rng.normal(0, 1, 50)
    return pos, pos + rng.normal(0, 0.5, 60), neg, neg + rng.normal(0, 0.5, 50)


def test_proportion_ci_takes_a_function():
    x, n = np.array([0, 3, 7, 10]), np.array([10, 10, 10, 10])
    ours = rocsim.core.proportion_ci(x, n, confidence_level=0.9, method=my_wald)
    builtin = rocsim.core.proportion_ci(x, n, confidence_level=0.9, method="wald")
    np.testing.assert_array_equal(ours.low, builtin.low)
    np.testing.assert_array_equal(ours.high, builtin.high)


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
def test_threshold_ci_takes_a_function(data, bootstrap):
    pos, _, neg, _ = data
    t = [-0.5, 0.3, 1.2]
    ours = rocsim.core.threshold_ci(
        pos, neg, t, confidence_level=0.9, method=my_wald, bootstrap=bootstrap
    )
    builtin = rocsim.core.threshold_ci(
        pos, neg, t, confidence_level=0.9, method="wald", bootstrap=bootstrap
    )
    for name in ("tpr_low", "tpr_high", "fpr_low", "fpr_high"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(builtin, name))
    assert ours.method == "my_wald"


def test_exact_coverage_takes_a_function():
    args = ([0.3, 0.7], [0.1, 0.4], 40, 30)
    ours = rocsim.core.threshold_exact_coverage(*args, confidence_level=0.9, method=my_wald)
    builtin = rocsim.core.threshold_exact_coverage(*args, confidence_level=0.9, method="wald")
    np.testing.assert_allclose(ours.cover, builtin.cover, rtol=0, atol=1e-15)


def test_vertical_intervals_take_a_function(data):
    pos, pos2, neg, neg2 = data
    r = [5, 25, 45]
    ours = rocsim.core.vertical_ci(pos, neg, r, confidence_level=0.9, method=my_moment_wald)
    builtin = rocsim.core.vertical_ci(pos, neg, r, confidence_level=0.9, method="wald")
    np.testing.assert_array_equal(ours.low, builtin.low)
    np.testing.assert_array_equal(ours.high, builtin.high)
    ours = rocsim.core.vertical_difference_ci(
        pos, pos2, neg, neg2, r, confidence_level=0.9, method=my_moment_wald
    )
    builtin = rocsim.core.vertical_difference_ci(
        pos, pos2, neg, neg2, r, confidence_level=0.9, method="wald"
    )
    np.testing.assert_array_equal(ours.low, builtin.low)
    np.testing.assert_array_equal(ours.high, builtin.high)


def test_paired_and_cost_intervals_take_functions(data):
    pos, pos2, neg, neg2 = data
    t = [0.0, 0.5]
    ours = rocsim.core.threshold_difference_ci(
        pos, pos2, neg, neg2, t, t, confidence_level=0.9, method=my_paired_wald
    )
    builtin = rocsim.core.threshold_difference_ci(
        pos, pos2, neg, neg2, t, t, confidence_level=0.9, method="wald"
    )
    np.testing.assert_array_equal(ours.dtpr_low, builtin.dtpr_low)
    np.testing.assert_array_equal(ours.dfpr_high, builtin.dfpr_high)
    w = [0.2, 0.5, 0.8]
    ours = rocsim.core.cost_ci(pos, neg, w, "empirical", confidence_level=0.9, method=my_wald)
    builtin = rocsim.core.cost_ci(pos, neg, w, "empirical", confidence_level=0.9, method="wald")
    np.testing.assert_allclose(ours.low, builtin.low, rtol=0, atol=1e-15)
    ours = rocsim.core.cost_difference_ci(
        pos,
        pos2,
        neg,
        neg2,
        w,
        "empirical",
        "empirical",
        confidence_level=0.9,
        method=my_paired_wald,
    )
    builtin = rocsim.core.cost_difference_ci(
        pos, pos2, neg, neg2, w, "empirical", "empirical", confidence_level=0.9, method="wald"
    )
    np.testing.assert_allclose(ours.high, builtin.high, rtol=0, atol=1e-15)


# --- wrong functions are refused, by name ------------------------------------------------------


def two_arguments(x, n):
    return x / n, x / n


def one_array(x, n, confidence_level):
    return x / n


def wrong_length(x, n, confidence_level):
    return np.zeros(2), np.ones(2)


def raises(x, n, confidence_level):
    raise RuntimeError("boom")


def not_finite(x, n, confidence_level):
    return np.full(np.shape(x), np.nan), np.ones(np.shape(x))


def upside_down(x, n, confidence_level):
    return np.ones(np.shape(x)), np.zeros(np.shape(x))


@pytest.mark.parametrize(
    "function, words",
    [
        (two_arguments, ["two_arguments", "f(x, n, confidence_level)", "(x, n)"]),
        (one_array, ["one_array", "(low, high)"]),
        (wrong_length, ["wrong_length", "shape (5,)"]),
        (raises, ["raises", "RuntimeError: boom"]),
        (not_finite, ["not_finite", "non-finite"]),
        (upside_down, ["upside_down", "low > high"]),
    ],
)
def test_a_wrong_function_is_refused_with_its_name(function, words):
    with pytest.raises(ValueError) as err:
        rocsim.core.proportion_ci([1, 2], [10, 10], method=function)
    for word in words:
        assert word in str(err.value), str(err.value)


def test_a_function_of_the_wrong_protocol_is_refused(data):
    pos, _, neg, _ = data
    with pytest.raises(ValueError, match=r"my_wald.*f\(law, confidence_level\)"):
        rocsim.core.vertical_ci(pos, neg, [5], method=my_wald)
    with pytest.raises(ValueError, match=r"unknown vertical interval method 'nope'.*or a funct"):
        rocsim.core.vertical_ci(pos, neg, [5], method="nope")


def test_every_protocol_probe_runs_a_builtin():
    """Each kind of interval owns its protocol (a value beside its table of methods); a
    function of the right call passes each one's probe."""
    builtins = {
        PROPORTION_PROTOCOL: my_wald,
        PAIRED_PROTOCOL: my_paired_wald,
        VERTICAL_PROTOCOL: my_moment_wald,
        VERTICAL_DIFFERENCE_PROTOCOL: my_moment_wald,
        PR_PROTOCOL: my_moment_wald,
    }
    assert len({protocol.kind for protocol in builtins}) == len(builtins)
    for protocol, function in builtins.items():
        assert check_method_function(function, protocol) is function


def test_checked_functions_are_not_kept_alive():
    """A fresh function per call (a lambda in a loop) is probed each time and then freed."""
    import gc

    from rocsim.core import methods

    before = len(methods._CHECKED)
    for _ in range(20):
        rocsim.core.proportion_ci([1, 2], [10, 10], method=lambda x, n, level: (x / n, x / n))
    gc.collect()
    assert len(methods._CHECKED) == before


def test_pseudo_count_is_refused_for_a_function():
    with pytest.raises(ValueError, match=r"pseudo_count.*my_wald"):
        rocsim.core.proportion_ci([1], [10], method=my_wald, pseudo_count=1)


# --- the documented example --------------------------------------------------------------------


@pytest.fixture(scope="module")
def example_module():
    sys.path.insert(0, str(EXAMPLE))
    try:
        import my_intervals

        yield my_intervals
    finally:
        sys.path.remove(str(EXAMPLE))


def mid_p_by_root_finding(x: int, n: int, level: float) -> tuple[float, float]:
    """Reference mid-p bounds of integer ``x`` from the binomial pmf and Brent's method."""
    tail = (1 - level) / 2

    def upper(p):  # Pr{X > x} + Pr{X = x}/2
        return stats.binom.sf(x, n, p) + stats.binom.pmf(x, n, p) / 2

    low = (
        0.0 if x == 0 else optimize.brentq(lambda p: upper(p) - tail, 1e-14, 1 - 1e-14, xtol=1e-15)
    )
    high = (
        1.0
        if x == n
        else optimize.brentq(lambda p: upper(p) - (1 - tail), 1e-14, 1 - 1e-14, xtol=1e-15)
    )
    return low, high


def test_example_mid_p_matches_root_finding(example_module):
    n = 25
    x = np.arange(n + 1)
    low, high = example_module.mid_p(x, np.full(x.shape, float(n)), 0.9)
    expected = np.array([mid_p_by_root_finding(int(k), n, 0.9) for k in x])
    np.testing.assert_allclose(low, expected[:, 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(high, expected[:, 1], rtol=0, atol=1e-12)


def test_example_mid_p_lies_inside_clopper_pearson(example_module):
    """The mid-p interval is the exact interval with half the observed count's mass: always
    inside Clopper-Pearson's."""
    x, n = np.arange(41.0), np.full(41, 40.0)
    low, high = example_module.mid_p(x, n, 0.95)
    cp = rocsim.core.proportion_ci(x, n, confidence_level=0.95, method="clopper_pearson")
    assert np.all(low >= cp.low - 1e-12) and np.all(high <= cp.high + 1e-12)


def test_example_logit_wald_stays_inside_the_unit_interval(example_module, data):
    pos, _, neg, _ = data
    law = rocsim.core.vertical_distribution(pos, neg, [1, 10, 25, 49])
    low, high = example_module.logit_wald(law, 0.95)
    assert np.all((0 <= low) & (low <= law.mean) & (law.mean <= high) & (high <= 1))
    ci = rocsim.core.vertical_ci(
        pos, neg, [1, 10, 25, 49], confidence_level=0.95, method=example_module.logit_wald
    )
    np.testing.assert_array_equal(ci.low, low)
    assert np.allclose(
        special.logit(ci.low[1:3]) + special.logit(ci.high[1:3]), 2 * special.logit(law.mean[1:3])
    )


def run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=600, env={**os.environ, **env}
    )
    assert done.returncode == 0, done.stderr
    return done


def run_rocsim(cwd: Path, arguments: str, **env: str) -> subprocess.CompletedProcess:
    """``rocsim`` with space-separated ``arguments`` in ``cwd``; it must succeed."""
    return run([*ROCSIM, *arguments.split()], cwd, **env)


@pytest.fixture
def example_dir(tmp_path):
    """A copy of the example: a user's folder with their modules and ``configs/``."""
    return Path(shutil.copytree(EXAMPLE, tmp_path / "project"))


def test_example_method_runs_in_a_sweep_and_its_comparison(example_dir):
    run_rocsim(
        example_dir,
        "-m study=fig4_3 interval=wald,mine replications=20 grid.num=9 results_dir=res n_jobs=1",
    )
    summary = pd.read_csv(example_dir / "res" / "fig4_3" / "method_comparison.csv")
    assert set(summary["method"]) == {"wald", "mine"}
    (csv,) = (example_dir / "res" / "fig4_3").glob("*interval=mine/coverage.csv")
    table = pd.read_csv(csv)
    assert set(table["method"]) == {"mine"} and table["coverage"].between(0, 1).all()
    assert not (example_dir / "cli.log").exists()


@pytest.mark.parametrize("study", ["fig4_4", "fig5_2"])
def test_example_model_and_method_run_in_threshold_and_cost_studies(example_dir, study):
    run_rocsim(example_dir, f"study={study} model=gamma interval=mine {SMALL}")
    table = pd.read_csv(example_dir / "res" / study / "coverage.csv")
    assert set(table["method"]) == {"mine"}
    assert table["model_label"].str.startswith("gamma(3").all()
    assert np.isfinite(table["target"]).all()


def test_example_vertical_method_joins_the_method_axis(example_dir):
    done = subprocess.run(
        [*ROCSIM, "study=fig4_8", "interval=logit", "results_dir=res"],
        cwd=example_dir,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 2 and "study.axes.method=[score,kernel,logit]" in done.stderr
    run_rocsim(example_dir, f"study=fig4_8 interval=logit study.axes.method=[score,logit] {SMALL}")
    table = pd.read_csv(example_dir / "res" / "fig4_8" / "coverage.csv")
    assert set(table["method"]) == {"score", "logit"}


def test_example_auc_method_joins_the_auc_study(example_dir):
    """A method of one AUC of the user's own (``f(data) -> variance``) beside DeLong's in the
    AUC study: on the larger of two variances, its intervals are never narrower."""
    run_rocsim(
        example_dir,
        "study=auc_methods interval=larger_variance study.axes.method=[delong,larger_variance] "
        "study.axes.n=[10,25] study.axes.auc=[0.75] study.axes.model=[binormal] "
        "replications=50 results_dir=res n_jobs=1",
    )
    table = pd.read_csv(example_dir / "res" / "auc_methods" / "coverage.csv")
    assert set(table["method"]) == {"delong", "larger_variance"}
    width = table.pivot_table(index="n", columns="method", values="mean_width")
    assert (width["larger_variance"] >= width["delong"]).all()


def test_example_method_reaches_the_report_through_the_config_path(example_dir, tmp_path):
    """From another folder: configs through ROCSIM_CONFIG_PATH, the module on PYTHONPATH."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run(
        [
            *REPRODUCE,
            "--only",
            "fig4_3",
            "--replications",
            "10",
            "--results-dir",
            "rep",
            "--n-jobs",
            "1",
            "interval=mine",
            "grid.num=5",
        ],
        elsewhere,
        ROCSIM_CONFIG_PATH=str(example_dir / "configs"),
        PYTHONPATH=str(example_dir),
    )
    index = (elsewhere / "rep" / "index.md").read_text()
    assert "interval method `mine`" in index


def test_wrong_user_configs_fail_in_one_line(example_dir):
    cases = [
        (["interval=mine", "interval._target_=my_intervals.nope"], "has no 'nope'"),
        (["interval=mine", "interval._target_=no_such_module.f"], "no module 'no_such_module'"),
        (["interval=mine", "+interval.steps=3"], "unexpected keyword argument 'steps'"),
        (["model=gamma", "model.shape_neg=-1"], "score model 'my_models.gamma_classes'"),
        (["interval=mine", "interval.pseudo_count=2"], "pseudo_count"),
    ]
    for args, words in cases:
        done = subprocess.run(
            [*ROCSIM, "study=fig4_4", *args, "results_dir=res"],
            cwd=example_dir,
            capture_output=True,
            text=True,
            timeout=600,
        )
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1 and words in lines[0], done.stderr
        assert not (example_dir / "res").exists()
