"""Write the results section of ``docs/operating_point_full_study.md`` from a run of the
operating point study of both bootstraps (``rocsim study=operating_point_full``), with the
tables of ``write_operating_point_page.py`` per method, sampling and bootstrap: the page quotes
this script's output, never typed numbers.

The run's tables are copied to ``docs/data/operating_point_full/`` and its figure to
``docs/figures/``; ``tests/test_operating_point.py`` checks that the page holds what this
script writes from them.

Usage: ``python docs/examples/write_operating_point_full_page.py [results_dir]`` (default
``results``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from write_auc_page import DATA, study_section, write_results
from write_operating_point_page import tables

NAME = "operating_point_full"
PAGE = Path(__file__).resolve().parents[1] / "operating_point_full_study.md"
START = "<!-- results: written by docs/examples/write_operating_point_full_page.py -->"
END = "<!-- end of results -->"
#: The committed tables the page is written from (and its test reads).
TABLES = DATA / NAME


def section(folder: Path) -> list[str]:
    return study_section(folder, NAME, partial(tables, by=("method", "sampling", "bootstrap")))


if __name__ == "__main__":
    write_results(NAME, PAGE, START, END, section)
