"""The reproduction report (index.md and index.html)."""

from __future__ import annotations

import pandas as pd

from rocsim.cli import compose_study
from rocsim.sim.pipeline import plain_config
from rocsim.views.report import ReportEntry, condition_summary, settings_line, write_report


def table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "condition": ["theta=1"] * 3 + ["theta=3"] * 3,
            "grid": "w",
            "x": [0.1, 0.5, 0.9] * 2,
            "coverage": [0.95, 0.88, 0.91, 0.9, 0.9, 0.7],
            "mcse": [0.007, 0.01, 0.009, 0.0095, 0.0095, 0.0145],
            "mean_width": [0.1] * 6,
        }
    )


def test_condition_summary_by_hand():
    got = condition_summary(table())
    assert got["mean coverage"].round(4).tolist() == [0.9133, 0.8333]
    assert got["lowest coverage"].tolist() == [0.88, 0.7]
    assert got["at w"].tolist() == [0.5, 0.9]


def test_report_has_figure_caption_settings_verdict_and_table(tmp_path):
    cfg = plain_config(compose_study("fig5_8"))
    entry = ReportEntry("fig5_8", cfg, table(), tmp_path / "fig5_8", 1.25)
    md, page = write_report(tmp_path, [entry], 3.0)
    text, html = md.read_text(), page.read_text()
    for doc in (text, html):
        assert "fig5_8/coverage.png" in doc
        assert "The Agresti" in doc  # the thesis's caption, translated
        assert "pseudo-count 0.5" in doc and "level 0.9" in doc
        assert "Partly agrees" in doc  # the thesis-vs-ours line
        assert "0.9133" in doc and "wall time 1.2 s" in doc
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")


def test_settings_line_names_the_method_and_the_schemes():
    line = settings_line(plain_config(compose_study("fig5_4")))
    assert "`agresti`" in line and "sampling full, bootstrap full" in line
    assert "axes: theta in [0.75, 1.5, 3.0, 5.0]" in line


def test_every_thesis_figure_says_where_it_agrees_or_differs():
    from rocsim.sim.configs import available_studies

    missing = [n for n in available_studies() if not compose_study(n).study.thesis]
    assert missing == []
