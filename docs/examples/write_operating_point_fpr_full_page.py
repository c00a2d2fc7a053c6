"""The results of ``rocsim study=operating_point_fpr_full`` (PPV, NPV and accuracy at a fixed
FPR: the stratified law against full_approx, on fixed classes and on cohorts) written into
``docs/operating_point_fpr_full_study.md``, per method, sampling and bootstrap, from the
tables copied to ``docs/data/operating_point_fpr_full/``: computed, never typed (the page's
test in ``tests/test_operating_point.py``).

Usage: ``python docs/examples/write_operating_point_fpr_full_page.py [results_dir]``.
"""

from __future__ import annotations

from write_auc_page import DATA
from write_operating_point_page import END, StudyPage

STUDY = StudyPage("operating_point_fpr_full", by=("method", "sampling", "bootstrap"))
NAME, PAGE, START, section = STUDY.name, STUDY.page, STUDY.start, STUDY.section
#: The committed tables the page is written from (and its test reads).
TABLES = DATA / NAME
#: What the page's test reads.
__all__ = ["END", "NAME", "PAGE", "START", "TABLES", "section"]

if __name__ == "__main__":
    STUDY.write()
