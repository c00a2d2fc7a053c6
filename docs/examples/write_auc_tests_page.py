"""Write the results section of ``docs/auc_tests_study.md`` from a run of the AUC tests'
study (``rocsim study=auc_tests``): the page quotes this script's output, never typed
numbers.

The run's tables (``coverage.csv``, ``claims.csv``, ``meta.json``) are copied to
``docs/data/auc_tests/`` (``results/`` is not tracked) and the page is written from the
copies; ``tests/test_auc_studies.py`` checks that the page holds what this script writes
from them.

Usage: ``python docs/examples/write_auc_tests_page.py [results_dir]`` (default ``results``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from study_pages import markdown
from write_auc_page import DATA, claims_lines, run_line, write_results

NAME = "auc_tests"
PAGE = Path(__file__).resolve().parents[1] / "auc_tests_study.md"
START = "<!-- results: written by docs/examples/write_auc_tests_page.py -->"
END = "<!-- end of results -->"
#: The committed tables the page is written from (and its test reads).
TABLES = DATA / NAME


def with_mcse(table: pd.DataFrame, measure: str, digits: int = 3) -> pd.Series:
    """``measure ± its Monte Carlo SE``, one string per row."""
    pairs = zip(table[measure], table[f"{measure}_mcse"])
    return pd.Series([f"{v:.{digits}f} ± {s:.{digits}f}" for v, s in pairs], index=table.index)


def by_method(table: pd.DataFrame, measure: str, keys: list[str]) -> list[str]:
    """``measure ± MCSE``: a row per combination of ``keys``, a column per method."""
    cells = table.assign(value=with_mcse(table, measure))
    wide = cells.pivot(index=keys, columns="method", values="value")
    return markdown(wide[list(dict.fromkeys(table["method"]))].reset_index())


def section(folder: Path) -> list[str]:
    if not (folder / "coverage.csv").exists():
        return ["Not run.", ""]
    table = pd.read_csv(folder / "coverage.csv")
    at_null = table[(table["auc"] - table["null"]).abs() < 1e-9]
    away = table[(table["auc"] - table["null"]).abs() >= 1e-9]
    # the AUC, its bias and spread do not depend on the method, the null or the alternative
    one_test = table[(table["alternative"] == "two-sided") & (table["null"] == 0.5)]
    estimator = one_test[one_test["method"] == one_test["method"].iloc[0]]
    return [
        run_line(table, folder),
        "",
        "```{figure} figures/auc_tests.png",
        ":alt: rejection rates of the AUC tests",
        ":width: 100%",
        "",
        "Solid lines: each method's share of test sets whose test rejects the null AUC; "
        "shaded bands: +-1.96 Monte Carlo standard errors; grey dashed line: 0.05. Panels "
        "where the true AUC equals the null show the size, the others the power. Click the "
        "figure for its full size.",
        "```",
        "",
        "**Size** (rejection rate where the true AUC is the null, ± Monte Carlo SE; 0.05 is "
        "exact):",
        "",
        *by_method(at_null, "rejection", ["alternative", "null", "n"]),
        "",
        "**Power** (rejection rate where the true AUC is not the null, ± Monte Carlo SE; "
        "a one-sided test of `greater` has no power below the null, by design):",
        "",
        *by_method(away, "rejection", ["alternative", "null", "auc", "n"]),
        "",
        "**How well each method's variance estimates the AUC's** (`model_se_rel_error`: the "
        "model SE, the root mean of the method's variances, over the empirical SE of the "
        "AUCs, minus 1; ± Monte Carlo SE; 0 is exact, negative too small):",
        "",
        *by_method(one_test, "model_se_rel_error", ["auc", "n"]),
        "",
        "**The AUC itself** (the same estimate for every method: bias and empirical SE, ± "
        "Monte Carlo SE):",
        "",
        *markdown(
            estimator.assign(
                bias=with_mcse(estimator, "bias", 4),
                empirical_se=with_mcse(estimator, "empirical_se", 4),
            )[["auc", "n", "bias", "empirical_se"]]
        ),
        "",
        *claims_lines(folder),
    ]


def main() -> None:
    write_results(NAME, PAGE, START, END, section)


if __name__ == "__main__":
    main()
