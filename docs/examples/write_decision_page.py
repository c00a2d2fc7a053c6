"""Write the results section of ``docs/net_benefit_study.md`` from a run of the net benefit
study (``rocsim study=net_benefit``): the page quotes this script's output, never typed
numbers.

The run's tables are copied to ``docs/data/net_benefit/`` and its figure to ``docs/figures/``;
``tests/test_net_benefit_study.py`` checks that the page holds what this script writes from
them.

Usage: ``python docs/examples/write_decision_page.py [results_dir]`` (default ``results``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from write_auc_page import DATA, by_method_and_n, study_section, write_results

NAME = "net_benefit"
PAGE = Path(__file__).resolve().parents[1] / "net_benefit_study.md"
START = "<!-- results: written by docs/examples/write_decision_page.py -->"
END = "<!-- end of results -->"
#: The committed tables the page is written from (and its test reads).
TABLES = DATA / NAME


def section(folder: Path) -> list[str]:
    return study_section(folder, NAME, tables)


def tables(table: pd.DataFrame) -> list[str]:
    return matched_tables(table, "prevalences, AUCs", ["method", "pi", "n"])


def matched_tables(table: pd.DataFrame, over: str, matched_keys: list[str]) -> list[str]:
    """Coverage per method and bootstrap against each sampling (averaged ``over``), then
    where the bootstrap matches the sampling, per ``matched_keys``."""
    matched = table[table["sampling"] == table["bootstrap"]]
    return [
        "Per method and bootstrap, each against both ways of drawing the test sets, over the "
        f"{over}, sizes and threshold probabilities:",
        "",
        *by_method_and_n(table, ["sampling", "bootstrap", "method"]),
        "",
        "Where the bootstrap matches the sampling, per "
        f"{', '.join(k if k != 'pi' else 'prevalence' for k in matched_keys[:-1])} and size:",
        "",
        *by_method_and_n(matched, matched_keys),
        "",
    ]


def main() -> None:
    write_results(NAME, PAGE, START, END, section)


if __name__ == "__main__":
    main()
