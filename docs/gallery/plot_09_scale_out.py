"""
Scale-out: Dask and SLURM
=========================

*This example is not run when the site is built: it needs a cluster.*

A study runs on a cluster without changing its results: every block of replications seeds
itself from ``SeedSequence(seed, spawn_key=(data settings, replication))``, so
``coverage.csv`` is byte-identical to a local run with the same seed. Install the extras
first::

    python -m pip install -e ".[cluster]"

Two ways out of one machine, both chosen by config:

- ``runner=dask`` (``configs/runner/dask.yaml``): joblib's dask backend on a
  ``dask.distributed`` cluster; without ``runner.scheduler`` a local cluster is started;
- ``hydra/launcher=slurm`` (``configs/hydra/launcher/slurm.yaml``): Hydra's submitit
  launcher, one SLURM job per sweep job (8 CPUs, 16 GB and 4 h by default; override any of
  them on the command line); ``hydra/launcher=submitit_local`` runs the same as local
  processes, to try a sweep before submitting it.
"""

# %%
# A study on a running dask scheduler
# -----------------------------------
import subprocess

from rocsim.cli import compose_study
from rocsim.sim.pipeline import run_study

subprocess.run(
    [
        "rocsim",
        "study=fig4_7",
        "runner=dask",
        "runner.scheduler=tcp://scheduler:8786",
    ],
    check=True,
)

# %%
# Three studies as three SLURM jobs
# ---------------------------------
subprocess.run(
    [
        "rocsim",
        "-m",
        "hydra/launcher=slurm",
        "hydra.launcher.partition=cpu",
        "study=fig4_3,fig4_7,fig5_1",
    ],
    check=True,
)

# %%
# The same sweep as local processes
# ---------------------------------
subprocess.run(
    ["rocsim", "-m", "hydra/launcher=submitit_local", "study=fig4_2"],
    check=True,
)

# %%
# From Python, with your own cluster
# ----------------------------------
# The runner reads ``runner.backend`` and ``runner.scheduler`` from the config, so the Python
# API takes the same overrides as the command line:
cfg = compose_study(
    "fig4_7", ["runner=dask", "runner.scheduler=tcp://scheduler:8786"]
)
run_study(cfg)
