"""Write the results section of ``docs/bands_study.md`` from a run of the band and partial-AUC
studies (``rocsim-reproduce --only bands_small_n bands partial_auc``, or ``rocsim
study=...``): the page quotes this script's output, never typed numbers.

Usage: ``python docs/examples/write_bands_page.py [results_dir]`` (default ``results``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from study_pages import claims_table, markdown, replace_section

PAGE = Path(__file__).resolve().parents[1] / "bands_study.md"
START = "<!-- results: written by docs/examples/write_bands_page.py -->"
END = "<!-- end of results -->"


def band_table(table: pd.DataFrame) -> list[str]:
    """Simultaneous coverage per band and n, averaged over the models and AUCs (independent
    data sets: the standard error is the root sum of squared MCSEs over their count), and the
    band's mean width."""
    rows = []
    for (method, n), part in table.groupby(["method", "n"], sort=False):
        k = len(part)
        se = float(np.sqrt(np.sum(part["mcse"] ** 2)) / k)
        rows.append(
            {
                "band": method,
                "n": int(n),
                "coverage": f"{part['coverage'].mean():.3f} ± {se:.3f}",
                "lowest cell": f"{part['coverage'].min():.3f}",
                "mean width": f"{part['mean_width'].mean():.3f}",
                "points covered": f"{part['coverage_pointwise'].mean():.3f}",
            }
        )
    return markdown(pd.DataFrame(rows))


def by_model_and_auc(table: pd.DataFrame) -> list[str]:
    """Simultaneous coverage per model and AUC (rows) and band (columns) at the largest n."""
    n = table["n"].max()
    part = table[table["n"] == n]
    pivot = part.pivot_table(index=["model", "auc"], columns="method", values="coverage")
    pivot = pivot[list(dict.fromkeys(part["method"]))].reset_index()
    for column in pivot.columns[2:]:
        pivot[column] = pivot[column].map(lambda v: f"{v:.3f}")
    return [f"At n = {int(n)}, per model and AUC:", "", *markdown(pivot)]


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


def section(results: Path) -> list[str]:
    lines = []
    for name, kind in (("bands_small_n", "bands"), ("bands", "bands"), ("partial_auc", "pauc")):
        folder = results / name
        if not (folder / "coverage.csv").exists():
            lines += [f"### `{name}`", "", "Not run.", ""]
            continue
        table = pd.read_csv(folder / "coverage.csv")
        meta = json.loads((folder / "meta.json").read_text())
        claims = pd.read_csv(folder / "claims.csv")
        held = int(claims["holds"].sum())
        lines += [
            f"### `{name}`",
            "",
            f"{int(table['replications'].iloc[0])} replications per condition, level "
            f"{table['level'].iloc[0]}, seed {meta['seed']}, code "
            f"`{meta['code_hash'][:12]}`, {meta['wall_seconds']:.0f} s.",
            "",
            *(band_table(table) if kind == "bands" else partial_table(table)),
            "",
            *([*by_model_and_auc(table), ""] if kind == "bands" else []),
            *(
                [f"Claims: {held} of {len(claims)} hold.", "", *claims_table(claims), ""]
                if len(claims)
                else ["No claims (no text on this coverage could be read).", ""]
            ),
        ]
    return lines


def main() -> None:
    results = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results")
    replace_section(PAGE, START, END, section(results))
    print(f"wrote the results of {results} into {PAGE}")


if __name__ == "__main__":
    main()
