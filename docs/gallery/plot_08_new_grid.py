"""
A new grid: sweeping settings the thesis did not run
====================================================

Any config value of a study can be swept with Hydra's ``-m``: one job per combination, each
in its own folder, then one table (``sweep.csv``, with a ``job`` column naming what each job
changed) and one figure (``sweep.png``, one line per job). Every job sees the same simulated
data sets where their data settings agree (common random numbers), so differences between
jobs are not simulation noise.

Here: figure 4.4's study with unbalanced classes (10% positives) against balanced ones, at
sizes the thesis did not run. The full command would be::

    rocsim -m study=fig4_4 size.pi=0.1,0.5 'study.axes.n=[50,500,5000]'

This page runs it with few replications and a coarse grid, into a temporary folder, as a
subprocess (exactly what you would type in a shell).
"""

# %%
import subprocess
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

results = Path(tempfile.mkdtemp())
command = [
    "rocsim",
    "-m",
    "study=fig4_4",
    "size.pi=0.1,0.5",
    "study.axes.n=[50,500]",
    "replications=60",
    "grid.num=19",
    "n_jobs=1",
    f"results_dir={results}",
]
done = subprocess.run(command, capture_output=True, text=True, check=True)
for line in done.stdout.splitlines():
    if "HYDRA" not in line:  # Hydra's own log lines
        print(line.replace(str(results), "<results_dir>"))

# %%
# One table over the jobs
# -----------------------
sweep = pd.read_csv(results / "fig4_4" / "sweep.csv")
summary = sweep.groupby(["job", "n"])["coverage"].agg(["mean", "min"])
summary.round(3)

# %%
# One figure over the jobs
# ------------------------
image = plt.imread(results / "fig4_4" / "sweep.png")
fig, ax = plt.subplots(figsize=(9, 9 * image.shape[0] / image.shape[1]))
ax.imshow(image)
ax.set_axis_off()
fig.tight_layout(pad=0)
