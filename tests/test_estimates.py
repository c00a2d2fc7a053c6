"""Kinds that report estimates (issue 50, item 2): a kind's ``analyse`` may return an
``estimate`` of the target with its ``se``, a ``p_value`` and bounds, instead of or besides
interval outcomes; the runner keeps them replication by replication and the table gets every
performance measure of Morris, White & Crowther (2019) with its Monte Carlo SE, the same
numbers :func:`rocsim.sim.performance.performance_measures_grid` gives on the replications'
values drawn again here, for any number of jobs and after a resume."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from user_kinds import LEVEL, MeanOnly, MeanTest

from rocsim.sim.conditions import expand_conditions
from rocsim.sim.performance import performance_columns, performance_measures_grid
from rocsim.sim.runner import replication_rng, run_conditions
from rocsim.studies import get_kind

BASE = {"model": {"family": "binormal"}, "confidence_level": LEVEL}


def conditions():
    return expand_conditions("means", {"mu": [0.0, 0.4], "n": [8]}, BASE)


def run(kind, replications=60, **options):
    options = {"seed": 5, "progress": False, **options}
    return run_conditions(kind, conditions(), replications=replications, **options).table


def drawn_again(kind, condition, replications: int) -> dict[str, np.ndarray]:
    """Each replication's outcomes, drawn and analysed here as the runner seeds them."""
    setup = kind.setup(condition)
    rows = [
        kind.analyse(condition, setup, kind.generate(condition, setup, rng))
        for rng in (replication_rng(5, condition, r, None) for r in range(replications))
    ]
    return {name: np.stack([row[name] for row in rows]) for name in rows[0]}


def test_the_table_holds_every_measure_with_its_mcse():
    table = run(MeanTest())
    for name in performance_columns(se=True, bounds=True, p_value=True):
        if name not in ("coverage", "coverage_mcse"):  # the table's own columns
            assert name in table.columns, name
    for condition, row in zip(conditions(), table.itertuples()):
        values = drawn_again(MeanTest(), condition, 60)
        expected = performance_measures_grid(
            values["estimate"],
            target=[condition.params["mu"]],
            se=values["se"],
            low=values["low"],
            high=values["high"],
            p_value=values["p_value"],
            confidence_level=LEVEL,
        )
        for name in ("bias", "empirical_se_mcse", "model_se_rel_error", "rejection_mcse"):
            assert getattr(row, name) == pytest.approx(expected[name][0], rel=1e-12), name
        covered = (values["low"] <= row.target) & (row.target <= values["high"])
        assert row.coverage == pytest.approx(covered.mean())
        assert row.mcse == pytest.approx(np.sqrt(row.coverage * (1 - row.coverage) / 60))
        assert row.mean_width == pytest.approx(np.mean(values["high"] - values["low"]))


def test_a_kind_of_estimates_only_has_no_coverage():
    table = run(MeanOnly())
    assert {"bias", "bias_mcse", "model_se", "model_se_rel_error_mcse"} <= set(table.columns)
    assert "rejection" not in table.columns
    assert table["coverage"].isna().all() and table["mean_width"].isna().all()


@pytest.mark.parametrize("jobs, block", [(2, 7), (1, 13)])
def test_the_measures_do_not_depend_on_jobs_or_blocks(jobs, block):
    pd.testing.assert_frame_equal(run(MeanTest(), n_jobs=jobs, block_size=block), run(MeanTest()))


def test_a_resumed_run_continues_the_estimates(tmp_path):
    """The first replications, cached by a shorter run, are continued, not recomputed: the
    table is the one of a single run."""
    run(MeanTest(), replications=25, cache_dir=tmp_path)
    resumed = run_conditions(
        MeanTest(),
        conditions(),
        replications=60,
        seed=5,
        progress=False,
        cache_dir=tmp_path,
    )
    pd.testing.assert_frame_equal(resumed.table, run(MeanTest()))


def test_the_auc_tests_kind_reports_size_and_power():
    kind = get_kind("auc_tests")
    axes = {"alternative": ["greater"], "null": [0.75], "auc": [0.75, 0.9], "n": [40]}
    model = {"family": "binormal", "pos": {"mu": "sqrt(2) * ndtri(auc)", "sd": 1}}
    base = {
        "model": model | {"neg": {"mu": 0, "sd": 1}},
        "confidence_level": LEVEL,
        "method": "delong",
        "n": 40,
        "pi": 0.5,
        "sampling": "stratified",
        "bootstrap": "stratified",
    }
    table = run_conditions(
        kind,
        expand_conditions("auc_tests", axes, base),
        replications=200,
        seed=1,
        progress=False,
    ).table
    size, power = table["rejection"]
    assert size < 0.15 < 0.5 < power  # the truth at the null, then well above it
    assert np.allclose(table["x"], [0.75, 0.9]) and np.allclose(table["target"], table["x"])
    # the test rejects exactly when the one-sided interval misses the null: at the null,
    # the size is one minus the coverage of the truth
    assert size == pytest.approx(1 - table["coverage"].iloc[0])
    assert (table["rejection_mcse"] > 0).all() and (table["model_se"] > 0).all()


def test_the_auc_tests_page_quotes_the_committed_results(page_script):
    """docs/auc_tests_study.md's results are what docs/examples/write_auc_tests_page.py writes
    from the run's tables it keeps in docs/data/auc_tests (computed, never typed), and they
    show size and power with their Monte Carlo SEs."""
    writer, written = page_script("write_auc_tests_page")
    assert written.strip() == "\n".join(writer.section(writer.DATA / writer.NAME)).strip()
    assert "**Size**" in written and "**Power**" in written and " ± " in written
    table = pd.read_csv(writer.DATA / writer.NAME / "coverage.csv")
    assert {"rejection", "rejection_mcse", "model_se_rel_error_mcse"} <= set(table.columns)
