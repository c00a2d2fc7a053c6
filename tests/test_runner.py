"""The shared runner: seeding, n_jobs/block invariance, resume, summaries, exact coverage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import smallest_cell

from rocsim.sim import pipeline
from rocsim.sim.conditions import Condition, evaluate, expand_conditions
from rocsim.sim.configs import available_studies
from rocsim.sim.pipeline import run_study, study_conditions
from rocsim.sim.provenance import code_hash, source_hash
from rocsim.sim.runner import replication_rng, run_conditions
from rocsim.studies import get_kind


def _csv(output):
    return (output.directory / "coverage.csv").read_bytes()


BINORMAL = {"family": "binormal", "pos": {"mu": 1.0, "sd": 1.0}, "neg": {"mu": 0.0, "sd": 1.0}}
DESIGN = {"model": BINORMAL, "n": 100, "pi": 0.5, "sampling": "stratified"}


def test_seeds_are_pinned():
    """The data sets of a design never change between versions (constants computed once)."""
    condition = Condition("fig4_2", {}, DESIGN)
    assert condition.data_key() == "b43f5f9c066383e5"
    assert replication_rng(20090914, condition, 0).random() == 0.054740155523338774
    assert replication_rng(20090914, condition, 7).random() == 0.9193232376169126


def test_replication_streams_depend_on_the_data_settings_only():
    def first(seed, replication=0, study="s", **settings):
        condition = Condition(study, {"k": 1}, {**DESIGN, **settings})
        return replication_rng(seed, condition, replication).random(3)

    a = first(1)
    assert np.array_equal(a, first(1))
    # how the data are analysed, or which study does it, does not change the data
    assert np.array_equal(a, first(1, study="other", method="wald", confidence_level=0.9))
    assert np.array_equal(a, first(1, bootstrap="full", pseudo_count=0.5, threshold="oracle"))
    for changed in (
        first(1, 1),
        first(2),
        first(1, n=101),
        first(1, pi=0.3),
        first(1, sampling="full"),
        first(1, model={**BINORMAL, "family": "beta"}),
    ):
        assert not np.array_equal(a, changed)


def test_methods_of_a_study_see_the_same_data(small_study, tmp_path):
    """Contract: Wald and Agresti with pseudo-count 0 coincide, so on common random numbers
    their coverage columns are identical (as sweep jobs and as a method axis)."""
    wald = run_study(small_study("fig4_3", "interval=wald"), tmp_path / "w").table
    agresti = run_study(
        small_study("fig4_3", "interval=agresti", "interval.pseudo_count=0"), tmp_path / "a"
    ).table
    assert wald["coverage"].equals(agresti["coverage"])
    axis = ("grid.num=9", "study.axes.theta=[3.0]")
    wald = run_study(small_study("fig4_7", *axis, "study.axes.method=[wald]"), tmp_path / "v")
    agresti = run_study(
        small_study("fig4_7", *axis, "study.axes.method=[agresti]", "interval.pseudo_count=0"),
        tmp_path / "g",
    )
    assert wald.table["coverage"].equals(agresti.table["coverage"])


def test_identical_bytes_for_any_n_jobs_and_block_size(small_study, tmp_path):
    one = run_study(small_study("fig4_4", "n_jobs=1", "runner.block_size=7"), tmp_path / "a")
    two = run_study(small_study("fig4_4", "n_jobs=2", "runner.block_size=13"), tmp_path / "b")
    assert _csv(one) == _csv(two)


def test_rerun_reuses_finished_conditions(small_study, tmp_path):
    cfg = small_study("fig4_4")
    first = run_study(cfg, tmp_path / "r")
    assert first.run.reused == [] and len(first.run.computed) == 4
    # lose one condition's cache, as if the run had been killed while computing it
    victim = sorted((tmp_path / "r" / ".cache").glob("*-simulate-*.npz"))[0]
    victim.unlink()
    second = run_study(cfg, tmp_path / "r")
    assert len(second.run.computed) == 1 and len(second.run.reused) == 3
    assert _csv(first) == _csv(second)


def test_a_code_change_is_not_reused(small_study, tmp_path, monkeypatch):
    """The cache is keyed by the hash of the computing code: same code, everything reused;
    other code (as after any edit), everything recomputed."""
    cfg = small_study("fig4_4")
    first = run_study(cfg, tmp_path / "r")
    same = run_study(cfg, tmp_path / "r")
    assert same.run.computed == [] and len(same.run.reused) == 4
    monkeypatch.setattr(pipeline, "code_hash", lambda: "0123456789abcdef")
    changed = run_study(cfg, tmp_path / "r")
    assert changed.run.reused == [] and len(changed.run.computed) == 4
    assert _csv(first) == _csv(changed)
    meta = json.loads((tmp_path / "r" / "meta.json").read_text())
    assert meta["code_hash"] == "0123456789abcdef" and "git_dirty" in meta
    assert meta["blas_threads"] and meta["computed_conditions"] == changed.run.computed


def test_the_code_hash_sees_a_comment(tmp_path):
    folder = Path(shutil.copytree(Path(pipeline.__file__).parent, tmp_path / "sim"))
    before = source_hash([folder], "1.0")
    runner = folder / "runner.py"
    runner.write_text(runner.read_text() + "# a comment\n")
    assert source_hash([folder], "1.0") != before
    assert source_hash([folder], "1.1") != source_hash([folder], "1.0")
    assert len(code_hash()) == 16 and code_hash() == code_hash()
    claims = folder / "claims.py"  # reads finished tables only: not part of the hash
    skipped = source_hash([folder], "1.0", {"sim/claims.py"})
    claims.write_text(claims.read_text() + "# a comment\n")
    assert source_hash([folder], "1.0", {"sim/claims.py"}) == skipped


def test_the_code_hash_sees_the_compiled_kernels_sources(tmp_path):
    """A change to a compiled kernel changes what the cache is keyed by, as a Python
    module's does: the wheel carries the .pyx beside the compiled module."""
    from rocsim.core import joint_thresholds

    core = Path(joint_thresholds.__file__).parent
    assert (core / "_lancaster.pyx").is_file()
    folder = Path(shutil.copytree(core, tmp_path / "core"))
    before = source_hash([folder], "1.0")
    kernel = folder / "_lancaster.pyx"
    kernel.write_text(kernel.read_text() + "# a comment\n")
    assert source_hash([folder], "1.0") != before


@pytest.mark.parametrize("name", available_studies())
def test_every_study_gives_the_same_bytes_for_one_or_two_jobs(small_study, tmp_path, name):
    """Whatever BLAS threading the main process has: runs pin BLAS to one thread."""
    small = ("replications=6", "grid.num=7", "runner.block_size=2", *smallest_cell(name))
    one = run_study(small_study(name, *small, "n_jobs=1"), tmp_path / "one")
    two = run_study(small_study(name, *small, "n_jobs=2"), tmp_path / "two")
    assert _csv(one) == _csv(two)


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


def beyond(table, k: float) -> int:
    """Grid points where the simulated coverage is more than ``k`` standard errors (from the
    exact coverage) away from the exact one; where that is 0 or 1 any difference counts."""
    exact, sim, reps = table["exact_coverage"], table["coverage"], table["replications"]
    se = np.sqrt(exact * (1 - exact) / reps)
    known = exact.notna()
    return int(((sim - exact).abs() > k * se)[known].sum())


@pytest.mark.parametrize("study", ["fig4_3", "fig4_4", "fig5_1"])
def test_simulated_coverage_agrees_with_the_exact_one(small_study, tmp_path, study):
    """R = 1000, 396 points: beyond 3 standard errors about 1 expected by chance, at most 5
    allowed; none beyond 4.5. A systematic miss at the edges of the grid fails this."""
    table = run_study(small_study(study, "replications=1000", "n_jobs=2"), tmp_path / "s").table
    assert table["exact_coverage"].notna().sum() >= 297  # fig4_4: all but n = 10000
    assert beyond(table, 3) <= 5 and beyond(table, 4.5) == 0
    exact = run_study(small_study(study, "coverage=exact"), tmp_path / "e").table
    assert (exact["mcse"] == 0).all() and (exact["replications"] == 0).all()
    known = table["exact_coverage"].notna()
    assert np.array_equal(exact["coverage"][known], table["exact_coverage"][known])


def test_exact_coverage_of_the_worked_example(small_study, tmp_path):
    """The worked example (docs: reading-worked-example): theta = 5, q = 0.13, score, level 0.90:
    0.8390 x 0.9487 = 0.7960."""
    cfg = small_study("fig4_3", "coverage=exact", "study.axes.theta=[5.0]")
    table = run_study(cfg, tmp_path / "e").table
    row = table[np.isclose(table["x"], 0.13)].iloc[0]
    assert row["coverage"] == pytest.approx(0.7960, abs=5e-4)
    assert row["coverage_fpr"] == pytest.approx(0.8390, abs=5e-5)
    assert row["coverage_tpr"] == pytest.approx(0.9487, abs=5e-5)
    assert row["target"] == pytest.approx(0.25998, abs=5e-6)


@pytest.mark.parametrize(
    ("study", "has_exact"), [("fig5_1", True), ("fig5_4", False), ("fig4_5", False)]
)
def test_exact_coverage_beside_only_where_it_exists(small_study, tmp_path, study, has_exact):
    """fig5_4 samples the full test set (no exact cost coverage), fig4_5 is paired."""
    table = run_study(small_study(study, "replications=5", "grid.num=5"), tmp_path).table
    assert (
        table["exact_coverage"].notna().all()
        if has_exact
        else table["exact_coverage"].isna().all()
    )


def test_exact_full_sampling_matches_simulation(small_study, tmp_path):
    overrides = ("study.axes.n=[25]", "study.axes.scheme=[full]", "replications=2000")
    table = run_study(small_study("fig4_10", *overrides, "n_jobs=2"), tmp_path / "s").table
    assert table["exact_coverage"].notna().all()
    assert beyond(table, 3) <= 2 and beyond(table, 4.5) == 0


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


def test_workers_started_ahead_run_the_next_study(small_study, tmp_path):
    """The workers start_workers starts (on this thread) are the ones the next run uses, and
    they outlive the call: a worker dies with the thread that started it."""
    from collections import deque

    from rocsim.sim.workers import start_workers

    deque(start_workers(2), maxlen=0)
    first = run_study(small_study("fig4_2", "n_jobs=2"), tmp_path / "a")
    again = run_study(small_study("fig4_2", "n_jobs=1"), tmp_path / "b")
    assert _csv(first) == _csv(again)


def _imported(module: str) -> bool:
    import sys

    return module in sys.modules


def test_started_workers_import_the_modules_their_caller_names():
    """start_workers(preload=...) has each worker import the modules its caller names
    (rocsim-reproduce: the study kinds, which the simulation layer itself never imports)."""
    from collections import deque

    from rocsim.sim.workers import local_engine, start_workers

    deque(start_workers(2, preload=["tabnanny"]), maxlen=0)  # a module nothing else imports
    with local_engine(2) as ordered:
        assert any(ordered(_imported, [("tabnanny",)] * 4))


def test_configs_composed_ahead_equal_composed_ones():
    """rocsim-reproduce composes its variant runs' configs in the background: the same
    configs, and one it did not ask for is still composed."""
    from omegaconf import OmegaConf

    from rocsim.cli.study import ComposedAhead, compose_study

    asked = [("fig4_2", ["replications=7"]), ("fig5_1", ["interval=wald"])]
    runs = [*asked, ("fig4_3", ["seed=3"])]
    ahead = ComposedAhead(asked)
    try:  # (Hydra composes on one thread at a time: the thread is done after the last)
        got = [ahead.compose(name, overrides) for name, overrides in runs]
    finally:
        ahead.close()
    for cfg, (name, overrides) in zip(got, runs):
        want = compose_study(name, overrides)
        assert OmegaConf.to_container(cfg) == OmegaConf.to_container(want)


def test_a_study_finished_in_the_background_writes_the_same_files(small_study, tmp_path):
    """run_study(finish_in=...) hands the writing to the background and returns its future:
    the same files, and a sealed set, as written in line."""
    from concurrent.futures import ThreadPoolExecutor

    from rocsim.sim.io import check_set

    cfg = small_study("fig5_1")
    direct = run_study(cfg, tmp_path / "direct")
    with ThreadPoolExecutor(1) as pool:
        future = run_study(cfg, tmp_path / "later", finish_in=pool.submit)
        later = future.result()
    assert set(check_set(later.directory)) == set(check_set(direct.directory))
    for name in ("coverage.csv", "claims.csv"):
        assert (later.directory / name).read_bytes() == (direct.directory / name).read_bytes()


def test_a_rerun_keeps_the_figure_drawn_from_the_same_table(small_study, tmp_path):
    """A rerun whose table, settings and code are those the figure was drawn from copies the
    figure instead of drawing it again; anything else that changes the figure redraws it: a
    setting the title shows, a figure file edited by hand."""
    from rocsim.sim.io import check_set
    from rocsim.sim.pipeline import run_study
    from rocsim.views.figures import save_study_figure

    drawn = []

    def draw(table, cfg, out_dir):
        drawn.append(cfg["study"]["title"])
        return save_study_figure(table, cfg, out_dir)

    out = tmp_path / "fig5_1"
    cfg = small_study("fig5_1", "grid.num=5")
    run_study(cfg, out, draw=draw)
    first = {name: (out / name).read_bytes() for name in ("coverage.png", "coverage.pdf")}
    run_study(cfg, out, draw=draw)
    assert len(drawn) == 1
    assert {name: (out / name).read_bytes() for name in first} == first
    assert {"coverage.png", "coverage.pdf"} <= set(check_set(out))
    run_study(small_study("fig5_1", "grid.num=5", "study.title=Another"), out, draw=draw)
    assert drawn[-1] == "Another"
    (out / "coverage.png").write_bytes(b"edited")
    run_study(small_study("fig5_1", "grid.num=5", "study.title=Another"), out, draw=draw)
    assert len(drawn) == 3
    assert (out / "coverage.png").read_bytes()[:4] == b"\x89PNG"


def test_a_figure_drawn_into_the_set_afterwards_is_kept_by_a_rerun(small_study, tmp_path):
    """The variants' way: the run writes its set without a figure, the figure is added to the
    set later (rocsim.cli.study.Figures). A rerun from the same table keeps that figure and
    says so, so that it is not drawn again."""
    from rocsim.cli.study import Figures
    from rocsim.sim.io import check_set
    from rocsim.sim.pipeline import plain_config, run_study

    out = tmp_path / "fig5_1"
    cfg = small_study("fig5_1", "grid.num=5")
    first = run_study(cfg, out)
    assert not first.figure_kept and "coverage.png" not in check_set(out)
    with Figures() as figures:
        figures.draw(first, plain_config(cfg))
    drawn = (out / "coverage.png").read_bytes()
    again = run_study(cfg, out)
    assert again.figure_kept
    assert (out / "coverage.png").read_bytes() == drawn
    assert {"coverage.png", "coverage.pdf"} <= set(check_set(out))
