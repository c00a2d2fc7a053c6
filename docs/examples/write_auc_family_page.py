"""Write the results section of ``docs/auc_family_study.md`` from a run of the study of many
AUCs at once (``rocsim study=auc_family``): the page quotes this script's output, never typed
numbers.

Usage: ``python docs/examples/write_auc_family_page.py [results_dir]`` (default ``results``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from study_pages import markdown
from write_auc_page import DATA, pooled, study_section, write_results
from write_auc_tests_page import by_method

NAME = "auc_family"
PAGE = Path(__file__).resolve().parents[1] / "auc_family_study.md"
START = "<!-- results: written by docs/examples/write_auc_family_page.py -->"
END = "<!-- end of results -->"
#: The committed tables the page is written from (and its test reads).
TABLES = DATA / NAME


def section(folder: Path) -> list[str]:
    return study_section(folder, NAME, tables)


def tables(table: pd.DataFrame) -> list[str]:
    by_adjust = table.rename(columns={"method": "covariance", "adjust": "method"})
    null = by_adjust[by_adjust["delta"] == 0]
    better = by_adjust[by_adjust["delta"] > 0]
    family = [
        {"adjust": name, "family coverage": pooled(part)}
        for name, part in by_adjust.groupby("method", sort=False)
    ]
    return [
        "The family's coverage (every pair's interval holds its true difference), over the "
        "conditions, ± Monte Carlo SE:",
        "",
        *markdown(pd.DataFrame(family)),
        "",
        "**Family-wise error rate** (every AUC equal: the share of test sets in which the "
        "family rejects a pair, ± Monte Carlo SE; 0.05 is the level):",
        "",
        *by_method(null, "rejection", ["models", "covariance", "n"]),
        "",
        "**Power** (the first model's AUC higher by delta: the share of test sets in which the "
        "family rejects a pair, ± Monte Carlo SE):",
        "",
        *by_method(better, "rejection", ["models", "covariance", "n"]),
        "",
    ]


def main() -> None:
    write_results(NAME, PAGE, START, END, section)


if __name__ == "__main__":
    main()
