"""Write the results section of ``docs/operating_point_study.md`` from a run of the operating
point study (``rocsim study=operating_point``): the page quotes this script's output, never
typed numbers.

The run's tables are copied to ``docs/data/operating_point/`` and its figure to
``docs/figures/``; ``tests/test_operating_point.py`` checks that the page holds what this
script writes from them.

Usage: ``python docs/examples/write_operating_point_page.py [results_dir]`` (default
``results``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from write_auc_page import DATA, by_method_and_n, study_section, write_results

NAME = "operating_point"
PAGE = Path(__file__).resolve().parents[1] / "operating_point_study.md"
START = "<!-- results: written by docs/examples/write_operating_point_page.py -->"
END = "<!-- end of results -->"
#: The committed tables the page is written from (and its test reads).
TABLES = DATA / NAME


def section(folder: Path) -> list[str]:
    return study_section(folder, NAME, tables)


def tables(table: pd.DataFrame, by: tuple[str, ...] = ("method",)) -> list[str]:
    """Coverage per ``by`` (the method, and the bootstrap where a study compares both) and
    size, then per metric and ``by``."""
    named = " and ".join(by)
    return [
        f"Per {named} and size, over the metrics and thresholds:",
        "",
        *by_method_and_n(table, [*by, "n"]),
        "",
        f"Per metric and {named}, over the sizes and thresholds:",
        "",
        *by_method_and_n(table, ["metric", *by]),
        "",
    ]


def main() -> None:
    write_results(NAME, PAGE, START, END, section)


if __name__ == "__main__":
    main()
