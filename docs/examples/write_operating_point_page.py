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

from functools import partial
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


#: The grid's points in words (the table's ``grid`` column).
GRID_POINTS = {"threshold": "thresholds", "fpr": "FPRs", "tpr": "TPRs"}


def tables(table: pd.DataFrame, by: tuple[str, ...] = ("method",)) -> list[str]:
    """Coverage per ``by`` (the method, and the bootstrap where a study compares both) and
    size, then per metric and ``by``."""
    named = " and ".join(by)
    points = GRID_POINTS.get(table["grid"].iloc[0], "grid points")
    return [
        f"Per {named} and size, over the metrics and {points}:",
        "",
        *by_method_and_n(table, [*by, "n"]),
        "",
        f"Per metric and {named}, over the sizes and {points}:",
        "",
        *by_method_and_n(table, ["metric", *by]),
        "",
    ]


class StudyPage:
    """An operating point study's page: where its results section goes and how it is
    written (:func:`tables` per ``by`` and size), for the scripts of the studies that
    compare bootstraps or designs. (Not a dataclass: the pages' test loads the scripts
    outside ``sys.modules``, where ``dataclass`` cannot find their module.)"""

    def __init__(self, name: str, by: tuple[str, ...] = ("method",)):
        self.name, self.by = name, by

    @property
    def page(self) -> Path:
        return Path(__file__).resolve().parents[1] / f"{self.name}_study.md"

    @property
    def start(self) -> str:
        return f"<!-- results: written by docs/examples/write_{self.name}_page.py -->"

    def section(self, folder: Path) -> list[str]:
        return study_section(folder, self.name, partial(tables, by=self.by))

    def write(self) -> None:
        write_results(self.name, self.page, self.start, END, self.section)


def main() -> None:
    write_results(NAME, PAGE, START, END, section)


if __name__ == "__main__":
    main()
