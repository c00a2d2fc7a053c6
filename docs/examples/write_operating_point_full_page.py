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

from write_auc_page import DATA
from write_operating_point_page import END, StudyPage

STUDY = StudyPage("operating_point_full", by=("method", "sampling", "bootstrap"))
NAME, PAGE, START, section = STUDY.name, STUDY.page, STUDY.start, STUDY.section
#: The committed tables the page is written from (and its test reads).
TABLES = DATA / NAME
#: What the page's test reads.
__all__ = ["END", "NAME", "PAGE", "START", "TABLES", "section"]

if __name__ == "__main__":
    STUDY.write()
