"""The results of ``rocsim study=operating_point_tpr`` (the default laws at a fixed TPR, on
fixed classes and on cohorts) written into ``docs/operating_point_tpr_study.md``, per method
and sampling, from the tables copied to ``docs/data/operating_point_tpr/``: computed, never
typed (the page's test in ``tests/test_operating_point.py``).

Usage: ``python docs/examples/write_operating_point_tpr_page.py [results_dir]``.
"""

from __future__ import annotations

from write_auc_page import DATA
from write_operating_point_page import END, StudyPage

STUDY = StudyPage("operating_point_tpr", by=("method", "sampling"))
NAME, PAGE, START, section = STUDY.name, STUDY.page, STUDY.start, STUDY.section
#: The committed tables the page is written from (and its test reads).
TABLES = DATA / NAME
#: What the page's test reads.
__all__ = ["END", "NAME", "PAGE", "START", "TABLES", "section"]

if __name__ == "__main__":
    STUDY.write()
