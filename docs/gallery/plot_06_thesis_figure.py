"""
Reproducing a thesis figure
===========================

Every figure of the thesis is a *study*: a Hydra config (``configs/study/fig4_4.yaml`` for
figure 4.4) that one runner executes, writing a coverage table, a figure and the thesis's
claims checked on the data. From the command line::

    rocsim study=fig4_4                       # the thesis's settings, 1000 replications
    rocsim study=fig4_4 interval=wald         # any other interval method
    rocsim-reproduce                          # every figure, and the report

This page runs a *smoke version* of figure 4.4 (the sample-size study of threshold averaging:
score intervals at level 0.90 for n in {25, 250, 2500, 10000} per class) with few replications
and a coarse grid, through the same Python functions the command calls, into a temporary
folder. With so few replications the Monte Carlo bands are wide: the full study uses 1000.
"""

# %%
# Compose the study's config and run it
# -------------------------------------
# ``compose_study`` takes the same overrides as the command line.
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import rocsim
from rocsim.cli import compose_study
from rocsim.sim.pipeline import run_study
from rocsim.views.figures import save_study_figure

results = Path(tempfile.mkdtemp())
cfg = compose_study(
    "fig4_4",
    [
        f"results_dir={results}",
        "replications=100",  # the thesis: 1000
        "grid.num=25",  # the thesis: 99 total positive ratios, 0.01 to 0.99
        "n_jobs=1",
        "runner.progress=false",
    ],
)
output = run_study(cfg, draw=save_study_figure)
print(f"{output.directory.name}/ in {output.wall_seconds:.1f} s:")
for path in sorted(output.directory.iterdir()):
    if path.is_file():
        print(f"  {path.name}")

# %%
# The coverage table
# ------------------
# One row per condition and grid point: the simulated coverage with its Monte Carlo standard
# error, the exact coverage (threshold averaging has it, by binomial sums), misses below and
# above, and the mean width (the columns are described in ``results/README.md``).
table = pd.read_csv(output.directory / "coverage.csv")
table[
    ["n", "x", "target_fpr", "target", "coverage", "mcse", "exact_coverage"]
].head()

# %%
# The figure
# ----------
# Laid out like the thesis's: one panel per sample size, the nominal level dashed, a band of
# +-1.96 Monte Carlo standard errors, the exact coverage dotted.
image = plt.imread(output.directory / "coverage.png")
fig, ax = plt.subplots(figsize=(9, 9 * image.shape[0] / image.shape[1]))
ax.imshow(image)
ax.set_axis_off()
fig.tight_layout(pad=0)

# %%
# The thesis's claims, checked on this run
# ----------------------------------------
# Each study lists what the thesis says about its figure, as checks on the coverage table
# (see :doc:`/claims`); with 100 replications some cannot be decided yet.
pd.read_csv(output.directory / "claims.csv")[["claim", "value", "se", "holds"]]

# %%
# The worked example of section 4.5.1
# -----------------------------------
# Section 4.5.1 explains the lowest coverage of figure 4.3 (theta = 5, q = 0.13, n = 10 000)
# by hand: with 0 false positives the FPR interval is the score interval of ``0 / 10000`` at
# the per-axis level ``sqrt(0.90)``. The thesis prints its upper bound with one digit too
# many (see :ref:`reading-worked-example`); here it is computed:
low, high = rocsim.core.proportion_ci(
    0, 10_000, confidence_level=np.sqrt(0.90), method="score"
)
print(f"FPR interval after 0 false positives: [{low:.4g}, {high:.5g}]")
low, high = rocsim.core.proportion_ci(
    1, 10_000, confidence_level=np.sqrt(0.90), method="score"
)
print(f"FPR interval after 1 false positive:  [{low:.5g}, {high:.5g}]")
