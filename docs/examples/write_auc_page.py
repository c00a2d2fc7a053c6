"""Write the results section of ``docs/auc_study.md`` from a run of the AUC interval studies
(``rocsim-reproduce --only auc_methods auc_multiclass auc_paired``, or ``rocsim
study=...``): the page
quotes this script's output, never typed numbers.

The run's tables (``coverage.csv``, ``claims.csv``, ``meta.json``) are copied to
``docs/data/<study>/`` (``results/`` is not tracked) and the page is written from the copies;
``tests/test_auc_studies.py`` checks that the page holds what this script writes from them.

Usage: ``python docs/examples/write_auc_page.py [results_dir]`` (default ``results``).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from study_pages import claims_table, markdown, replace_section

PAGE = Path(__file__).resolve().parents[1] / "auc_study.md"
#: The committed copies of the run's tables the page is written from, and its figures.
DATA = Path(__file__).resolve().parents[1] / "data"
FIGURES = Path(__file__).resolve().parents[1] / "figures"
STUDIES = (
    "auc_methods",
    "auc_multiclass",
    "auc_paired",
    "auc_paired_partial",
    "auc_multiclass_paired",
)
TABLES = ("coverage.csv", "claims.csv", "meta.json")
START = "<!-- results: written by docs/examples/write_auc_page.py -->"
END = "<!-- end of results -->"
#: Where the normal interval fails: the smallest test sets and the highest AUCs.
HARD = {"n": (10, 25), "auc": (0.95, 0.99)}


def pooled(part: pd.DataFrame) -> str:
    """Mean coverage of independent conditions with its standard error (root sum of squared
    Monte Carlo SEs over their count)."""
    se = float(np.sqrt(np.sum(part["mcse"] ** 2)) / len(part))
    return f"{part['coverage'].mean():.3f} ± {se:.4f}"


def by_method_and_n(table: pd.DataFrame, keys: list[str]) -> list[str]:
    """Coverage per ``keys`` (method, n, ...), averaged over the other axes, with the lowest
    and highest cells, the mean width and the share of zero-width intervals (where the
    study records them)."""
    rows = []
    for values, part in table.groupby(keys, sort=False):
        rows.append(
            dict(zip(keys, values))
            | {
                "coverage": pooled(part),
                "lowest cell": f"{part['coverage'].min():.3f}",
                "highest cell": f"{part['coverage'].max():.3f}",
                "mean width": f"{part['mean_width'].mean():.3f}",
            }
            | ({"zero width": f"{part['degenerate'].mean():.3f}"} if "degenerate" in part else {})
        )
    return markdown(pd.DataFrame(rows))


def hard_cells(table: pd.DataFrame) -> list[str]:
    """Coverage ± MCSE per method (columns) in each cell where the normal interval fails."""
    part = table[table["n"].isin(HARD["n"]) & table["auc"].isin(HARD["auc"])]
    cells = part.assign(value=[f"{c:.3f} ± {s:.3f}" for c, s in zip(part.coverage, part.mcse)])
    wide = cells.pivot(index=["model", "auc", "n"], columns="method", values="value")
    return markdown(wide[list(dict.fromkeys(part["method"]))].reset_index())


def run_line(table: pd.DataFrame, folder: Path) -> str:
    meta = json.loads((folder / "meta.json").read_text())
    reused = len(meta.get("reused_conditions") or [])
    total = reused + len(meta.get("computed_conditions") or [])
    # a run that reused cached outcomes took seconds that are not the computation's
    timing = f"{meta['wall_seconds']:.0f} s" + (
        f" (the outcomes of {reused} of its {total} conditions reused from an earlier run of "
        "the same code)"
        if reused
        else ""
    )
    return (
        f"{int(table['replications'].iloc[0])} replications per condition, level "
        f"{table['level'].iloc[0]}, seed {meta['seed']}, code `{meta['code_hash'][:12]}`, "
        f"{timing}."
    )


def claims_lines(folder: Path) -> list[str]:
    claims = pd.read_csv(folder / "claims.csv")
    if not len(claims):
        return ["No claims (no text on this coverage could be read).", ""]
    held = int(claims["holds"].sum())
    return [f"Claims: {held} of {len(claims)} hold.", "", *claims_table(claims), ""]


def figure(name: str) -> list[str]:
    """The study's figure at the page's width, a link to its full size (Sphinx links a
    resized image to the original), and how to read it."""
    return [
        f"```{{figure}} figures/{name}.png",
        f":alt: coverage of {name}",
        ":width: 100%",
        "",
        "Solid lines: each method's coverage over the simulated test sets; shaded bands: "
        "+-1.96 Monte Carlo standard errors; grey dashed line: the level. Click the figure "
        "for its full size.",
        "```",
        "",
    ]


def study_section(folder: Path, name: str, body: Callable[[pd.DataFrame], list[str]]) -> list[str]:
    """A study page's results from its run in ``folder``: how it was run, its figure, the
    ``body`` written from its coverage table, and its claims ("Not run." without a run)."""
    if not (folder / "coverage.csv").exists():
        return ["Not run.", ""]
    table = pd.read_csv(folder / "coverage.csv")
    return [run_line(table, folder), "", *figure(name), *body(table), *claims_lines(folder)]


def section(results: Path) -> list[str]:
    lines = []
    for name in STUDIES:
        folder = results / name
        lines += [f"### `{name}`", ""]
        if not (folder / "coverage.csv").exists():
            lines += ["Not run.", ""]
            continue
        table = pd.read_csv(folder / "coverage.csv")
        lines += [run_line(table, folder), "", *figure(name)]
        if name == "auc_methods":
            lines += [
                "Per method and n, over the models and AUCs:",
                "",
                *by_method_and_n(table, ["method", "n"]),
                "",
                "Where the normal interval fails (coverage ± Monte Carlo SE):",
                "",
                *hard_cells(table),
                "",
            ]
        elif name == "auc_paired":
            lines += [
                "Per method and n, over the pairs of classifiers and correlations:",
                "",
                *by_method_and_n(table, ["method", "n"]),
                "",
            ]
        elif name == "auc_paired_partial":
            lines += [
                "Per method, n and f, over the pairs of classifiers and correlations:",
                "",
                *by_method_and_n(table, ["method", "n", "max_fpr"]),
                "",
            ]
        elif name == "auc_multiclass_paired":
            lines += [
                "Per method, averaging and mean class size, over the pairs of models, "
                "correlations and numbers of classes:",
                "",
                *by_method_and_n(table, ["method", "multi_class", "n"]),
                "",
            ]
        else:
            lines += [
                "Per method, averaging and mean class size, over the models, AUCs and "
                "numbers of classes:",
                "",
                *by_method_and_n(table, ["method", "multi_class", "n"]),
                "",
            ]
        lines += claims_lines(folder)
    return lines


def shrink(source: Path, target: Path, width: int = 1600) -> None:
    """The study's figure at ``width`` pixels wide for the page (Pillow: matplotlib's own
    dependency), palette-quantised: the repository keeps it."""
    from PIL import Image

    with Image.open(source) as image:
        height = round(image.height * width / image.width)
        small = image.convert("RGB").resize((width, height), Image.LANCZOS)
        small.quantize(colors=64).save(target, optimize=True)


def copy_tables(results: Path, studies: tuple[str, ...] = STUDIES) -> None:
    """The run's tables into :data:`DATA`, study by study (a study not run is left as is),
    and each study's figure, shrunk, into :data:`FIGURES`."""
    for name in studies:
        if (results / name / "coverage.csv").exists():
            (DATA / name).mkdir(parents=True, exist_ok=True)
            for table in TABLES:
                shutil.copyfile(results / name / table, DATA / name / table)
            shrink(results / name / "coverage.png", FIGURES / f"{name}.png")


def write_results(name: str, page: Path, start: str, end: str, section) -> None:
    """The results section of one study's ``page``: its run's tables copied from the results
    folder given on the command line (default ``results``), then ``section`` of the copies."""
    results = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results")
    copy_tables(results, (name,))
    replace_section(page, start, end, section(DATA / name))
    print(f"wrote the results of {results / name} into {page} (tables in {DATA / name})")


def main() -> None:
    results = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results")
    copy_tables(results)
    replace_section(PAGE, START, END, section(DATA))
    print(f"wrote the results of {results} into {PAGE} (tables in {DATA})")


if __name__ == "__main__":
    main()
