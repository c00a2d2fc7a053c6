"""The shared runner: seeding, n_jobs/block invariance, resume, summaries, exact coverage."""

from __future__ import annotations

import numpy as np
import pytest

from rocsim.sim.conditions import Condition, evaluate, expand_conditions, stable_int
from rocsim.sim.pipeline import run_study, study_conditions
from rocsim.sim.runner import replication_rng, run_conditions
from rocsim.studies import get_kind


def _csv(output):
    return (output.directory / "coverage.csv").read_bytes()


def test_stable_int_is_not_python_hash():
    # fixed value: sha256 of "fig4_3", first four bytes little-endian; same in every process
    import hashlib

    expected = int.from_bytes(hashlib.sha256(b"fig4_3").digest()[:4], "little")
    assert stable_int("fig4_3") == expected


def test_replication_streams_differ_and_repeat():
    c = Condition("s", {"theta": 1.0}, {})
    a = replication_rng(1, c, 0).random(3)
    assert np.array_equal(a, replication_rng(1, c, 0).random(3))
    assert not np.array_equal(a, replication_rng(1, c, 1).random(3))
    assert not np.array_equal(a, replication_rng(2, c, 0).random(3))
    other = Condition("s", {"theta": 2.0}, {})
    assert not np.array_equal(a, replication_rng(1, other, 0).random(3))


def test_identical_bytes_for_any_n_jobs_and_block_size(small_study, tmp_path):
    one = run_study(small_study("fig4_4", "n_jobs=1", "runner.block_size=7"), tmp_path / "a")
    two = run_study(small_study("fig4_4", "n_jobs=2", "runner.block_size=13"), tmp_path / "b")
    assert _csv(one) == _csv(two)


def test_rerun_reuses_finished_conditions(small_study, tmp_path):
    cfg = small_study("fig4_4")
    first = run_study(cfg, tmp_path / "r")
    assert first.run.reused == [] and len(first.run.computed) == 4
    # lose one condition's cache, as if the run had been killed while computing it
    victim = sorted((tmp_path / "r" / ".cache").glob("*.npz"))[0]
    victim.unlink()
    second = run_study(cfg, tmp_path / "r")
    assert len(second.run.computed) == 1 and len(second.run.reused) == 3
    assert _csv(first) == _csv(second)


def test_changed_settings_are_not_reused(small_study, tmp_path):
    run_study(small_study("fig4_4"), tmp_path / "r")
    again = run_study(small_study("fig4_4", "interval=wald"), tmp_path / "r")
    assert again.run.reused == []


def test_summary_columns_and_mcse(small_study, tmp_path):
    table = run_study(small_study("fig4_3"), tmp_path / "r").table
    contract = [
        "study",
        "condition",
        "theta",
        "method",
        "grid",
        "x",
        "target",
        "coverage",
        "mcse",
        "mean_width",
        "miss_low",
        "miss_high",
        "replications",
    ]
    assert list(table.columns[: len(contract)]) == contract
    assert (table["grid"] == "q").all() and (table["replications"] == 40).all()
    c = table["coverage"]
    assert np.allclose(table["mcse"], np.sqrt(c * (1 - c) / 40))
    # a replication that misses the rectangle misses below or above on some axis
    assert (table["miss_low"] + table["miss_high"] >= 1 - c - 1e-12).all()
    assert (table["coverage"] <= np.minimum(table["coverage_tpr"], table["coverage_fpr"])).all()


def test_full_sampling_counts_redraws(small_study, tmp_path):
    cfg = small_study(
        "fig4_10", "study.axes.n=[1]", "study.axes.scheme=[full]", "replications=200"
    )
    table = run_study(cfg, tmp_path / "r").table
    # N+ ~ Bin(2, 1/2): a class is empty with probability 1/2, so about 200 redraws
    redraws = int(table["redraws"].iloc[0])
    assert 100 < redraws < 320


def _agreement(table_sim, table_exact, k=3.5):
    diff = np.abs(table_sim["coverage"].to_numpy() - table_exact["coverage"].to_numpy())
    mcse = np.sqrt(
        table_exact["coverage"] * (1 - table_exact["coverage"]) / table_sim["replications"]
    ).to_numpy()
    return np.mean(diff <= k * mcse)


@pytest.mark.parametrize("study", ["fig4_3", "fig4_4"])
def test_exact_and_simulated_coverage_agree(small_study, tmp_path, study):
    """Done-when criterion: within 3.5 MCSE at >= 97% of the grid points, R = 1000."""
    sim = run_study(small_study(study, "replications=1000", "n_jobs=2"), tmp_path / "s")
    exact = run_study(small_study(study, "coverage=exact"), tmp_path / "e")
    assert (exact.table["mcse"] == 0).all() and (exact.table["replications"] == 0).all()
    assert _agreement(sim.table, exact.table) >= 0.97


def test_exact_coverage_of_the_worked_example(small_study, tmp_path):
    """SPEC 9: theta = 5, q = 0.13, score, level 0.90: 0.8390 x 0.9487 = 0.7960."""
    cfg = small_study("fig4_3", "coverage=exact", "study.axes.theta=[5.0]")
    table = run_study(cfg, tmp_path / "e").table
    row = table[np.isclose(table["x"], 0.13)].iloc[0]
    assert row["coverage"] == pytest.approx(0.7960, abs=5e-4)
    assert row["coverage_fpr"] == pytest.approx(0.8390, abs=5e-5)
    assert row["coverage_tpr"] == pytest.approx(0.9487, abs=5e-5)
    assert row["target"] == pytest.approx(0.25998, abs=5e-6)


def test_exact_full_sampling_matches_simulation(small_study, tmp_path):
    overrides = ("study.axes.n=[25]", "study.axes.scheme=[full]")
    sim = run_study(
        small_study("fig4_10", *overrides, "replications=2000", "n_jobs=2"), tmp_path / "s"
    )
    exact = run_study(small_study("fig4_10", *overrides, "coverage=exact"), tmp_path / "e")
    assert _agreement(sim.table, exact.table, k=4.0) >= 0.97


def test_unknown_coverage_mode():
    kind = get_kind("threshold")
    with pytest.raises(ValueError, match="coverage mode"):
        run_conditions(kind, [], replications=1, seed=0, coverage="bogus")


def test_expressions_and_axes():
    assert evaluate("-theta", {"theta": 2.0}) == -2.0
    assert evaluate("theta + 2 * shift", {"theta": 1.0, "shift": 2.0}) == 5.0
    with pytest.raises(ValueError, match="rho"):
        evaluate("rho", {"theta": 1.0})
    with pytest.raises(ValueError, match="only numbers"):
        evaluate("__import__('os')", {})
    conds = expand_conditions(
        "s",
        {"a": [1, 2], "n": [5]},
        {
            "model": {
                "family": "binormal",
                "pos": {"mu": "a", "sd": 1},
                "neg": {"mu": 0, "sd": 1},
            },
            "n": 1,
        },
    )
    assert [c.label for c in conds] == ["a=1,n=5", "a=2,n=5"]
    assert conds[1].settings["model"]["pos"]["mu"] == 2.0 and conds[1].settings["n"] == 5


def test_bad_axis_is_reported(small_study):
    with pytest.raises(ValueError, match="unknown model"):
        study_conditions(small_study("fig4_2", "study.axes.model=[ex9]"))
