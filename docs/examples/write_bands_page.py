"""Write the results section of ``docs/bands_study.md`` from a run of the band studies
(``rocsim-reproduce --only bands_small_n bands paired_bands partial_auc``, or ``rocsim
study=...``): the page quotes this script's output, never typed numbers.

The run's tables (``coverage.csv``, ``claims.csv``, ``meta.json``) are copied to
``docs/data/<study>/`` (``results/`` is not tracked) and the page is written from the copies;
``tests/test_band_studies.py`` checks that the page holds what this script writes from them.
A study not run is left out of the copy and said "not run" on the page.

Usage: ``python docs/examples/write_bands_page.py [results_dir]`` (default ``results``).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from study_pages import claims_table, markdown, replace_section

PAGE = Path(__file__).resolve().parents[1] / "bands_study.md"
#: The committed copies of the run's tables the page is written from.
DATA = Path(__file__).resolve().parents[1] / "data"
STUDIES = ("bands_small_n", "bands", "paired_bands", "partial_auc", "partial_auc_percentile")
TABLES = ("coverage.csv", "claims.csv", "meta.json")
START = "<!-- results: written by docs/examples/write_bands_page.py -->"
END = "<!-- end of results -->"
#: The standard a default band is held to (issue 48): its mean coverage at least the level
#: at every n and averaging, and no condition below this.
LOWEST_CELL = 0.93
#: The study's name of rocsim's default band (``roc_ci(band="simultaneous")``, and
#: ``compare_roc``'s) and of rocci's.
DEFAULT, PEER = "simultaneous", "rocci"


def pooled(part: pd.DataFrame) -> tuple[float, float]:
    """Mean coverage of independent conditions and its standard error (root sum of squared
    Monte Carlo SEs over their count)."""
    return float(part["coverage"].mean()), float(np.sqrt(np.sum(part["mcse"] ** 2)) / len(part))


def band_table(table: pd.DataFrame) -> list[str]:
    """Per averaging, band and n: simultaneous coverage averaged over the models and AUCs,
    the lowest condition, the mean width and the share of points covered."""
    rows = []
    keys = ["averaging", "method", "n"] if "averaging" in table else ["method", "n"]
    for key, part in table.groupby(keys, sort=False):
        mean, se = pooled(part)
        named = dict(zip(keys, key))
        rows.append(
            {
                **({"averaging": named["averaging"]} if "averaging" in named else {}),
                "band": named["method"],
                "n": int(named["n"]),
                "coverage": f"{mean:.3f} ± {se:.4f}",
                "lowest cell": f"{part['coverage'].min():.3f}",
                "mean width": f"{part['mean_width'].mean():.3f}",
                "points covered": f"{part['coverage_pointwise'].mean():.3f}",
            }
        )
    return markdown(pd.DataFrame(rows))


def standard_table(table: pd.DataFrame, level: float) -> list[str]:
    """The default band against the standard, per n and averaging: its mean coverage (at
    least the level?) and its lowest condition (at least :data:`LOWEST_CELL`?)."""
    rows = []
    part = table[table["method"] == DEFAULT]
    for (averaging, n), cells in part.groupby(["averaging", "n"], sort=False):
        mean, se = pooled(cells)
        lowest = float(cells["coverage"].min())
        rows.append(
            {
                "averaging": averaging,
                "n": int(n),
                "mean coverage": f"{mean:.3f} ± {se:.4f}",
                f"mean >= {level:g}": mean >= level,
                "lowest cell": f"{lowest:.3f}",
                f"lowest >= {LOWEST_CELL:g}": lowest >= LOWEST_CELL,
            }
        )
    frame = pd.DataFrame(rows)
    met = bool(frame[f"mean >= {level:g}"].all() and frame[f"lowest >= {LOWEST_CELL:g}"].all())
    verdict = "meets" if met else "does not meet"
    return [
        f"The default band (`{DEFAULT}`) {verdict} the standard: mean coverage at least "
        f"{level:g} at every n and averaging, no condition below {LOWEST_CELL:g}.",
        "",
        *markdown(frame),
    ]


def peer_table(table: pd.DataFrame, level: float) -> list[str]:
    """rocsim's default band against rocci's where both hold the level (each condition's
    coverage not below the level by more than twice its Monte Carlo SE): their mean widths
    over those conditions, per n and averaging."""
    if PEER not in set(table["method"]):
        return ["rocci was not installed for this run: no comparison."]
    keys = ["model", "auc", "n", "averaging"]
    ours = table[table["method"] == DEFAULT].set_index(keys)
    theirs = table[table["method"] == PEER].set_index(keys)
    both = ours.merge(theirs, left_index=True, right_index=True, suffixes=("_ours", "_rocci"))
    holds = (both["coverage_ours"] >= level - 2 * both["mcse_ours"]) & (
        both["coverage_rocci"] >= level - 2 * both["mcse_rocci"]
    )
    rows = []
    for (n, averaging), cells in both[holds].groupby(["n", "averaging"], sort=False):
        width, peer = cells["mean_width_ours"].mean(), cells["mean_width_rocci"].mean()
        rows.append(
            {
                "n": int(n),
                "averaging": averaging,
                "conditions where both hold": f"{len(cells)} of "
                f"{len(both.xs((n, averaging), level=('n', 'averaging')))}",
                "rocsim's mean width": f"{width:.3f}",
                "rocci's mean width": f"{peer:.3f}",
                "rocsim / rocci": f"{width / peer:.3f}",
            }
        )
    frame = pd.DataFrame(rows)
    narrower = bool(both[holds]["mean_width_ours"].mean() < both[holds]["mean_width_rocci"].mean())
    overall = both[holds]["mean_width_ours"].mean() / both[holds]["mean_width_rocci"].mean()
    return [
        f"Where both hold the level ({int(holds.sum())} of {len(both)} conditions), rocsim's "
        f"default band is {'narrower' if narrower else 'not narrower'} than rocci's on "
        f"average: mean width ratio {overall:.3f}.",
        "",
        *markdown(frame),
    ]


def by_model_and_auc(table: pd.DataFrame) -> list[str]:
    """Simultaneous coverage per averaging, model and AUC (rows) and band (columns) at the
    largest n."""
    n = table["n"].max()
    part = table[table["n"] == n]
    index = [k for k in ("averaging", "model", "auc", "rho") if k in part]
    pivot = part.pivot_table(index=index, columns="method", values="coverage")
    pivot = pivot[list(dict.fromkeys(part["method"]))].reset_index()
    for column in pivot.columns[len(index) :]:
        pivot[column] = pivot[column].map(lambda v: f"{v:.3f}")
    return [f"At n = {int(n)}, per condition:", "", *markdown(pivot)]


def partial_table(table: pd.DataFrame) -> list[str]:
    """Coverage per method and n, averaged over models, AUCs and max FPRs."""
    rows = []
    for (method, n), part in table.groupby(["method", "n"], sort=False):
        rows.append(
            {
                "method": method,
                "n": int(n),
                "coverage (mean over cells)": f"{part['coverage'].mean():.3f}",
                "lowest cell": f"{part['coverage'].min():.3f}",
                "at f = 0.1": f"{part.loc[np.isclose(part['x'], 0.1), 'coverage'].mean():.3f}",
                "mean width": f"{part['mean_width'].mean():.3f}",
            }
        )
    return markdown(pd.DataFrame(rows))


def study_lines(name: str, folder: Path) -> list[str]:
    """The page's section on one study, from its tables in ``folder``."""
    if not (folder / "coverage.csv").exists():
        return [f"### `{name}`", "", "Not run.", ""]
    table = pd.read_csv(folder / "coverage.csv")
    meta = json.loads((folder / "meta.json").read_text())
    claims = pd.read_csv(folder / "claims.csv")
    level = float(table["level"].iloc[0])
    lines = [
        f"### `{name}`",
        "",
        f"{int(table['replications'].iloc[0])} replications per condition, level {level:g}, "
        f"seed {meta['seed']}, code `{meta['code_hash'][:12]}`, {meta['wall_seconds']:.0f} s.",
        "",
    ]
    if name.startswith("partial_auc"):
        lines += [*partial_table(table), ""]
    else:
        lines += [*standard_table(table, level), "", *band_table(table), ""]
        if name != "paired_bands":
            lines += [*peer_table(table, level), ""]
        lines += [*by_model_and_auc(table), ""]
    held = int(claims["holds"].sum())
    lines += (
        [f"Claims: {held} of {len(claims)} hold.", "", *claims_table(claims), ""]
        if len(claims)
        else ["No claims (no text on this coverage could be read).", ""]
    )
    return lines


def section(data: Path) -> list[str]:
    return [line for name in STUDIES for line in study_lines(name, data / name)]


def copy_tables(results: Path) -> None:
    """The run's tables into :data:`DATA` (the studies it holds; the others are kept)."""
    for name in STUDIES:
        if not (results / name / "coverage.csv").exists():
            continue
        target = DATA / name
        target.mkdir(parents=True, exist_ok=True)
        for table in TABLES:
            shutil.copyfile(results / name / table, target / table)


def main() -> None:
    results = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results")
    copy_tables(results)
    replace_section(PAGE, START, END, section(DATA))
    print(f"wrote the results of {results} into {PAGE} (tables in {DATA})")


if __name__ == "__main__":
    main()
