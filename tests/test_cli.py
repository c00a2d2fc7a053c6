"""Command-line contract: `rocsim study=...`, sweeps, `rocsim-reproduce`, bad input, SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rocsim.sim.io import check_set

ROCSIM = [sys.executable, "-c", "from rocsim.cli import main; main()"]
REPRODUCE = [sys.executable, "-c", "from rocsim.cli import reproduce; reproduce()"]


def run(args, cwd, **kw):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600, **kw)


def test_study_writes_every_output(tmp_path):
    done = run(
        [
            *ROCSIM,
            "study=fig4_2",
            "replications=20",
            f"results_dir={tmp_path}",
            "n_jobs=1",
            "interval=wald",
            "seed=7",
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    out = tmp_path / "fig4_2"
    for name in ("coverage.csv", "coverage.parquet", "meta.json", "coverage.png", "coverage.pdf"):
        assert (out / name).stat().st_size > 0, name
    import json

    meta = json.loads((out / "meta.json").read_text())
    assert meta["seed"] == 7 and meta["config"]["interval"]["method"] == "wald"
    assert {"numpy", "scipy", "hydra-core"} <= set(meta["packages"])
    assert "git_commit" in meta and meta["wall_seconds"] > 0
    assert not list(out.glob("*.part")) and not list(out.glob(".*.part"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig4_2"]  # no cli.log, no .hydra


def test_a_run_after_a_killed_one_removes_its_part_files(tmp_path):
    out = tmp_path / "fig4_2"
    stale = [out / ".coverage.csvabc123.part", out / ".cache" / ".0123-simulate.npzxyz.part"]
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half a file")
        os.utime(path, (time.time() - 60, time.time() - 60))
    done = run(
        [
            *ROCSIM,
            "study=fig4_2",
            "replications=5",
            f"results_dir={tmp_path}",
            "n_jobs=1",
            "grid.num=5",
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert not any(path.exists() for path in stale)
    assert (out / "coverage.csv").exists()


@pytest.mark.parametrize(
    "args, word",
    [
        (["confidence_level=1.5"], "confidence_level"),
        (["interval=bogus"], "interval"),
        (["interval=agresti", "interval.pseudo_count=-1"], "pseudo_count"),
        (["replications=0"], "replications"),
        (["coverage=maybe"], "coverage"),
        (["study.axes.theta=[]"], "theta"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, word):
    done = run([*ROCSIM, "study=fig4_3", f"results_dir={tmp_path}", *args], tmp_path)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0], done.stderr
    assert not (tmp_path / "fig4_3").exists()


def test_missing_study_is_one_line(tmp_path):
    done = run([*ROCSIM, f"results_dir={tmp_path}"], tmp_path)
    assert done.returncode != 0 and "fig4_3" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_sweep_jobs_write_their_own_results(tmp_path):
    done = run(
        [
            *ROCSIM,
            "-m",
            "study=fig4_4",
            "size.pi=0.3,0.5",
            "replications=10",
            "study.axes.n=[25]",
            f"results_dir={tmp_path / 'out'}",
            "n_jobs=1",
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no cli.log in the working folder
    tables = sorted((tmp_path / "out" / "fig4_4").glob("*/coverage.csv"))
    names = [p.parent.name for p in tables]
    assert len(names) == 2 and "size.pi=0.3" in names[0] and "size.pi=0.5" in names[1]
    assert tables[0].read_bytes() != tables[1].read_bytes()


@pytest.mark.slow  # test_runner checks every study in-process; this is the command line
def test_same_bytes_for_n_jobs_1_and_2(tmp_path):
    common = ["study=fig4_10", "replications=30", "seed=3", "study.axes.n=[25,250]"]
    for jobs in (1, 2):
        done = run(
            [*ROCSIM, *common, f"n_jobs={jobs}", f"results_dir={tmp_path / str(jobs)}"], tmp_path
        )
        assert done.returncode == 0, done.stderr
    one = (tmp_path / "1" / "fig4_10" / "coverage.csv").read_bytes()
    assert one == (tmp_path / "2" / "fig4_10" / "coverage.csv").read_bytes()


def test_sigkill_then_rerun_gives_the_same_bytes(tmp_path):
    args = ["study=fig4_3", "replications=300", "seed=11", "n_jobs=1", "runner.block_size=25"]
    reference = run([*ROCSIM, *args, f"results_dir={tmp_path / 'ref'}"], tmp_path)
    assert reference.returncode == 0, reference.stderr
    killed_dir = tmp_path / "killed"
    proc = subprocess.Popen(
        [*ROCSIM, *args, f"results_dir={killed_dir}"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    cache = killed_dir / "fig4_3" / ".cache"
    deadline = time.time() + 300
    while time.time() < deadline and len(list(cache.glob("*.npz"))) < 1:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(list(cache.glob("*.npz")))
    assert 1 <= finished < 4, "kill the run while conditions are still missing"
    assert not (killed_dir / "fig4_3" / "coverage.csv").exists()
    rerun = run([*ROCSIM, *args, f"results_dir={killed_dir}"], tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    import json

    meta = json.loads((killed_dir / "fig4_3" / "meta.json").read_text())
    assert len(meta["reused_conditions"]) == finished
    assert (killed_dir / "fig4_3" / "coverage.csv").read_bytes() == (
        tmp_path / "ref" / "fig4_3" / "coverage.csv"
    ).read_bytes()


def test_reproduce_writes_an_index(tmp_path):
    options = "--only fig4_2 fig4_4 --replications 10 --n-jobs 1 --results-dir".split()
    command = [*REPRODUCE, *options, str(tmp_path)]
    done = run(command, tmp_path)
    assert done.returncode == 0, done.stderr
    index = (tmp_path / "index.md").read_text()
    page = (tmp_path / "index.html").read_text()
    for name in ("fig4_2", "fig4_4"):
        assert f"{name}/coverage.png" in index and f"{name}/coverage.csv" in index
        assert f'src="{name}/coverage.png"' in page and f'id="{name}"' in page
        assert (tmp_path / name / "coverage.csv").exists()
        # figures drawn in the background are in the study's sealed set, beside its claims
        assert {"coverage.png", "coverage.pdf", "claims.csv"} <= set(check_set(tmp_path / name))
    assert "fig4_3" not in index and "fig4_3" not in page
    # a rerun recomputes nothing: every condition comes from the cache
    again = run(command, tmp_path)
    assert again.returncode == 0, again.stderr
    for name in ("fig4_2", "fig4_4"):
        meta = json.loads((tmp_path / name / "meta.json").read_text())
        assert meta["computed_conditions"] == [] and meta["reused_conditions"]


def test_reproduce_rejects_unknown_study(tmp_path):
    done = run([*REPRODUCE, "--only", "fig9_9", "--results-dir", str(tmp_path)], tmp_path)
    assert done.returncode != 0 and "fig9_9" in done.stderr
    assert not Path(tmp_path / "index.md").exists()


def test_reproduce_stops_at_a_study_that_failed_writing(tmp_path, monkeypatch, capsys):
    """Files are written in the background while the next study computes: a study that
    failed writing ends the command with one line before a later study starts."""
    from rocsim.cli.reproduce import reproduce
    from rocsim.sim import pipeline

    real = pipeline._write_outputs

    def fails_for_fig4_4(out_dir, *args, **kwargs):
        if Path(out_dir).name == "fig4_4":
            raise ValueError("fig4_4: cannot write")
        return real(out_dir, *args, **kwargs)

    monkeypatch.setattr(pipeline, "_write_outputs", fails_for_fig4_4)
    only = ["fig4_4", "fig4_2", "fig5_7", "fig5_9"]
    with pytest.raises(SystemExit) as stop:
        reproduce(["--only", *only, "--replications", "20", "--results-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "cannot write" in err, err
    assert not (tmp_path / "fig5_9").exists()


def test_a_rerun_of_the_command_keeps_the_figures_it_drew(tmp_path):
    """Two runs of ``rocsim`` in new processes: the second reuses the cached outcomes and
    keeps the figure the first drew (its PDF, which carries the time it was written, is the
    same file), and says nothing was computed."""
    args = [*ROCSIM, "study=fig5_1", "replications=20", "grid.num=5", f"results_dir={tmp_path}"]
    first = run(args, tmp_path)
    assert first.returncode == 0, first.stderr
    pdf = (tmp_path / "fig5_1" / "coverage.pdf").read_bytes()
    time.sleep(1.1)  # a redrawn PDF would carry a later creation date
    second = run(args, tmp_path)
    assert second.returncode == 0, second.stderr
    assert (tmp_path / "fig5_1" / "coverage.pdf").read_bytes() == pdf
    meta = json.loads((tmp_path / "fig5_1" / "meta.json").read_text())
    assert meta["computed_conditions"] == [] and meta["reused_conditions"]
