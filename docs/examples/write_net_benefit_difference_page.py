"""Write the results section of ``docs/net_benefit_difference_study.md`` from a run of the
study of two models' net benefits (``rocsim study=net_benefit_difference``): the page quotes
this script's output, never typed numbers.

The run's tables are copied to ``docs/data/net_benefit_difference/`` and its figure to
``docs/figures/``; ``tests/test_net_benefit_study.py`` checks that the page holds what this
script writes from them.

Usage: ``python docs/examples/write_net_benefit_difference_page.py [results_dir]`` (default
``results``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from write_auc_page import DATA, study_section, write_results
from write_decision_page import matched_tables

NAME = "net_benefit_difference"
PAGE = Path(__file__).resolve().parents[1] / "net_benefit_difference_study.md"
START = "<!-- results: written by docs/examples/write_net_benefit_difference_page.py -->"
END = "<!-- end of results -->"
#: The committed tables the page is written from (and its test reads).
TABLES = DATA / NAME


def section(folder: Path) -> list[str]:
    return study_section(folder, NAME, tables)


def tables(table: pd.DataFrame) -> list[str]:
    return matched_tables(table, "AUC gaps", ["bootstrap", "method", "delta", "n"])


def main() -> None:
    write_results(NAME, PAGE, START, END, section)


if __name__ == "__main__":
    main()
