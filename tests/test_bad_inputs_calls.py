"""What users pass, and what their functions return, checked at every entry (issue 35, item 4):
a user's interval method is probed once, then its bounds are checked at every call (shape,
finite, low <= high) and named in one line; levels that rounding would turn into NaN bounds,
probabilities outside [0, 1], masked arrays, labels numpy cannot order, and messages that name
the wrong class are refused or fixed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rocsim
from rocsim.core import pr_distribution, proportion_ci, vertical_distribution

RNG = np.random.default_rng(35)
Y = RNG.integers(0, 2, 300)
S1 = RNG.normal(Y * 1.2, 1.0)
S2 = S1 + RNG.normal(0, 0.8, Y.size)


def wald(x, n, confidence_level):
    half = 1.64 * np.sqrt(x / n * (1 - x / n) / n)
    return x / n - half, x / n + half


def nan_on_large_classes(x, n, confidence_level):
    """Passes the probe (classes of 10), NaN bounds on real data."""
    low, high = wald(x, n, confidence_level)
    return np.where(np.asarray(n) > 50, np.nan, low), high


def five_values(x, n, confidence_level):
    """The probe has five points: always five bounds."""
    return np.zeros(5), np.ones(5)


def crossed_on_real_data(law, confidence_level):
    """Fine on the probe's three points, low > high past them."""
    low, high = law.mean - 0.1, law.mean + 0.1
    crossed = np.arange(law.mean.size) >= 3
    return np.where(crossed, high, low), np.where(crossed, low, high)


def nan_moments(law, confidence_level):
    """Finite on the probe's three points, NaN past them."""
    return np.where(np.arange(law.mean.size) >= 3, np.nan, law.mean - 0.1), law.mean + 0.1


def three_values(law, confidence_level):
    return law.mean[:3] - 0.1, law.mean[:3] + 0.1


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: rocsim.roc_ci(Y, S1, method=nan_on_large_classes), "NaN or infinite"),
        (lambda: proportion_ci([3, 60], [10, 100], method=nan_on_large_classes), "1 of 2"),
        (lambda: rocsim.cost_curve_ci(Y, S1, method=nan_on_large_classes), "NaN or infinite"),
        (lambda: rocsim.roc_ci(Y, S1, method=five_values), "two arrays of shape"),
        (
            lambda: rocsim.roc_ci(Y, S1, averaging="vertical", method=crossed_on_real_data),
            "low > high",
        ),
        (lambda: rocsim.roc_ci(Y, S1, averaging="vertical", method=nan_moments), "NaN"),
        (lambda: rocsim.roc_ci(Y, S1, averaging="vertical", method=three_values), "shape"),
        (
            lambda: rocsim.compare_roc(Y, S1, S2, averaging="vertical", method=three_values),
            "shape",
        ),
        (lambda: rocsim.pr_ci(Y, S1, method=crossed_on_real_data), "low > high"),
    ],
)
def test_a_users_method_is_checked_at_every_call_and_named(call, words):
    with pytest.raises(ValueError, match=words) as raised:
        call()
    message = str(raised.value)
    assert "\n" not in message and "interval method '" in message, message


def test_a_studys_method_that_fails_on_real_data_ends_it_in_one_line(tmp_path):
    example = Path(__file__).parents[1] / "docs" / "examples" / "custom_method"
    project = Path(shutil.copytree(example, tmp_path / "project"))
    (project / "flaky.py").write_text(
        "import numpy as np\n\n\n"
        "def flaky(x, n, confidence_level):\n"
        '    """Wald, but NaN once a class has more than 50 instances."""\n'
        "    half = 1.64 * np.sqrt(x / n * (1 - x / n) / n)\n"
        "    return np.where(np.asarray(n) > 50, np.nan, x / n - half), x / n + half\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from rocsim.cli import main; main()",
            "study=fig4_4",
            "interval=mine",
            "interval._target_=flaky.flaky",
            "replications=5",
            "grid.num=5",
            "n_jobs=1",
            "results_dir=res",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and "'flaky'" in done.stderr, done.stderr
    assert not (project / "res" / "fig4_4" / "coverage.csv").exists()


LEVEL = 0.9999999999999999


@pytest.mark.parametrize(
    "call",
    [
        lambda: rocsim.roc_ci(Y, S1, confidence_level=LEVEL),
        lambda: rocsim.roc_ci(Y, S1, averaging="vertical", confidence_level=LEVEL),
        lambda: proportion_ci([3, 4], 10, confidence_level=LEVEL),
        lambda: rocsim.cost_curve_ci(Y, S1, confidence_level=LEVEL),
        lambda: rocsim.pr_ci(Y, S1, confidence_level=LEVEL),
    ],
)
def test_a_level_whose_tail_rounds_away_is_refused(call):
    """``0.9999999999999999`` passed and gave NaN bounds (coverage 0 in a study)."""
    with pytest.raises(ValueError, match="confidence_level must be at most 1 - 1e-9"):
        call()


def test_the_highest_level_accepted_gives_finite_bounds():
    level = 1 - 1e-9
    for result in (
        rocsim.roc_ci(Y, S1, confidence_level=level, method="percentile"),
        rocsim.roc_ci(Y, S1, averaging="vertical", confidence_level=level),
        rocsim.pr_ci(Y, S1, confidence_level=level, method="percentile"),
        rocsim.cost_curve_ci(Y, S1, confidence_level=level),
    ):
        frame = result.to_frame().select_dtypes(float)
        assert np.isfinite(frame.to_numpy()).all()


@pytest.mark.parametrize(
    "law",
    [
        vertical_distribution([0.9, 0.8, 0.3], [0.7, 0.5, 0.2], [1]),
        pr_distribution([0.9, 0.8, 0.3], [0.7, 0.5, 0.2], [1, 2]),
    ],
    ids=["vertical", "precision"],
)
@pytest.mark.parametrize("p", [1.5, -1, float("nan"), "a"])
def test_a_quantile_outside_zero_one_is_refused(law, p):
    """``law.quantile(1.5)`` returned 1.0, ``quantile(-1)`` 0.27, ``quantile(nan)`` 1.0."""
    with pytest.raises(ValueError, match="p must be a probability in"):
        law.quantile(p)


def test_masked_entries_are_refused_naming_the_argument():
    scores = np.ma.masked_array(S1, mask=np.arange(S1.size) < 3)
    with pytest.raises(ValueError, match="y_score has 3 masked value"):
        rocsim.roc_ci(Y, scores)
    labels = np.ma.masked_array(Y, mask=np.arange(Y.size) == 0)
    with pytest.raises(ValueError, match="y_true has 1 masked label"):
        rocsim.auc_ci(labels, S1)
    unmasked = np.ma.masked_array(S1)  # a masked array with nothing masked is its values
    assert rocsim.auc_ci(Y, unmasked).auc == rocsim.auc_ci(Y, S1).auc


def test_labels_numpy_cannot_order_are_named():
    labels = np.array([1, "1", 1, "1"], dtype=object)
    with pytest.raises(ValueError, match="y_true mixes labels of types int, str"):
        rocsim.roc_ci(labels, [0.1, 0.2, 0.3, 0.4])


def test_horizontal_averaging_with_one_positive_names_the_positives():
    with pytest.raises(ValueError, match="horizontal averaging needs at least 2 positives"):
        rocsim.roc_ci([1, 0, 0, 0], [0.9, 0.1, 0.2, 0.3], averaging="horizontal")


def test_cost_thresholds_as_an_array_of_two_rows():
    """The docstring asks for a pair of arrays; an array of two rows was refused."""
    pair = np.array([[0.1, 0.3, 0.5], [0.2, 0.2, 0.6]])
    both = rocsim.compare_cost(Y, S1, S2, w=[0.2, 0.5, 0.8], thresholds=pair)
    listed = rocsim.compare_cost(Y, S1, S2, w=[0.2, 0.5, 0.8], thresholds=(pair[0], pair[1]))
    assert both.to_frame().equals(listed.to_frame())
    np.testing.assert_array_equal(both.t1, pair[0])
