"""Scale-out: the same study on a dask.distributed cluster (joblib's dask backend) and through
Hydra's submitit launcher gives the same coverage.csv bytes as a local run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rocsim.sim.pipeline import run_study

distributed = pytest.importorskip("distributed")

SMALL = ["replications=30", "grid.num=7", "runner.progress=false"]


def test_dask_cluster_gives_the_local_bytes(small_study, tmp_path):
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        local = run_study(small_study("fig5_3", *SMALL, "n_jobs=2"), tmp_path / "local")
        on_dask = run_study(
            small_study(
                "fig5_3",
                *SMALL,
                "runner=dask",
                f"runner.scheduler={cluster.scheduler_address}",
                "runner.block_size=11",
            ),
            tmp_path / "dask",
        )
        # the replication blocks really ran on the cluster's workers
        assert any("run_block" in name for name in cluster.scheduler.task_prefixes)
    assert (local.directory / "coverage.csv").read_bytes() == (
        on_dask.directory / "coverage.csv"
    ).read_bytes()


def test_dask_runner_without_address_starts_a_local_cluster(small_study, tmp_path):
    local = run_study(small_study("fig4_2", *SMALL), tmp_path / "local")
    on_dask = run_study(small_study("fig4_2", *SMALL, "runner=dask"), tmp_path / "dask")
    assert (local.directory / "coverage.csv").read_bytes() == (
        on_dask.directory / "coverage.csv"
    ).read_bytes()


def sweep(results: Path, *launcher: str) -> Path:
    """Run ``rocsim -m`` for one study and return its coverage.csv."""
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from rocsim.cli import main; main()",
            "-m",
            *launcher,
            "study=fig4_2",
            *SMALL,
            "n_jobs=1",
            f"results_dir={results}",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    (table,) = results.glob("fig4_2/*/coverage.csv")
    return table


@pytest.mark.slow  # Hydra's submitit launcher in real processes: about 20 s
def test_submitit_local_launcher_gives_the_local_bytes(tmp_path):
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    basic = sweep(tmp_path / "basic")
    submitit = sweep(tmp_path / "submitit", "hydra/launcher=submitit_local")
    assert basic.relative_to(tmp_path / "basic") == submitit.relative_to(tmp_path / "submitit")
    assert basic.read_bytes() == submitit.read_bytes()
    assert (tmp_path / "submitit" / ".submitit").is_dir()  # the jobs went through submitit


def test_slurm_launcher_config_composes():
    from hydra import compose, initialize_config_dir

    from rocsim.sim.configs import package_config_dir

    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    with initialize_config_dir(config_dir=str(package_config_dir()), version_base=None):
        cfg = compose(
            "config",
            overrides=["study=fig4_3", "hydra/launcher=slurm", "hydra.launcher.partition=cpu"],
            return_hydra_config=True,
        )
    launcher = cfg.hydra.launcher
    assert launcher._target_.endswith("SlurmLauncher")
    assert launcher.partition == "cpu" and launcher.cpus_per_task == 8
    assert launcher.submitit_folder.startswith(cfg.results_dir)
