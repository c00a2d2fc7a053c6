"""The reproduction report (index.md and index.html)."""

from __future__ import annotations

import numpy as np
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


def test_report_has_figure_caption_settings_and_table(tmp_path):
    cfg = plain_config(compose_study("fig5_8"))
    entry = ReportEntry("fig5_8", cfg, table(), tmp_path / "fig5_8", 1.25)
    md, page = write_report(tmp_path, [entry], 3.0)
    text, html = md.read_text(), page.read_text()
    for doc in (text, html):
        assert "fig5_8/coverage.png" in doc
        assert "The Agresti" in doc  # the thesis's caption, translated
        assert "pseudo-count 0.5" in doc and "level 0.9" in doc
        assert "No claims of the thesis are checked" in doc  # none given to this entry
        assert "0.9133" in doc and "wall time 1.2 s" in doc
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")


def test_settings_line_names_the_method_and_the_schemes():
    line = settings_line(plain_config(compose_study("fig5_4")))
    assert "`agresti`" in line and "sampling full, bootstrap full" in line
    assert "axes: theta in [0.75, 1.5, 3.0, 5.0]" in line


def claims_frame(holds) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "study": "fig5_8",
            "claim": [f"c{i}" for i in range(len(holds))],
            "thesis": "« phrase » (sentence)",
            "check": "lowest coverage over w <= 0.1 < level-0.1 (= 0.8) [exact coverage]",
            "value": 0.9,
            "se": 0.0,
            "holds": holds,
        }
    )


def test_report_counts_claims_and_explains_the_failures(tmp_path):
    from rocsim.cli.variants import VariantResult

    cfg = plain_config(compose_study("fig5_8"))
    variant = VariantResult(
        "fig5_8",
        "wide",
        "Is it the width?",
        ("model.pos.sd=3.75",),
        ("c1",),
        claims_frame([True, True]),
        "It is the width.",
        tmp_path / "v",
    )
    entries = [
        ReportEntry(
            "fig5_8",
            cfg,
            table(),
            tmp_path / "fig5_8",
            1.0,
            claims_frame([True, False]),
            [variant],
        ),
        ReportEntry("fig5_7", cfg, table(), tmp_path / "fig5_7", 1.0, claims_frame([True])),
    ]
    md, page = write_report(tmp_path, entries, 3.0)
    for doc in (md.read_text(), page.read_text()):
        assert "claims reproduced: 2 of 3" in doc
        assert "Where we differ" in doc and "Is it the width?" in doc
        assert "It is the width." in doc and "model.pos.sd=3.75" in doc
        assert "« phrase » (sentence)" in doc
    both = pd.read_csv(tmp_path / "claims.csv")
    assert list(both.columns) == ["study", "claim", "thesis", "check", "value", "se", "holds"]
    assert len(both) == 3


def test_a_failing_claim_without_a_variant_is_said(tmp_path):
    cfg = plain_config(compose_study("fig5_8"))
    entry = ReportEntry("fig5_8", cfg, table(), tmp_path, 1.0, claims_frame([False]))
    md, _ = write_report(tmp_path, [entry], 1.0)
    assert "No variant run explains: c0." in md.read_text()


def test_figures_are_saved_as_png_and_pdf_with_the_pixels_of_pillows_default(tmp_path):
    """The PNG's faster zlib level changes how the file is compressed, not what it shows."""
    import io

    from matplotlib.figure import Figure
    from PIL import Image

    from rocsim.views.figures import save_png_and_pdf

    fig = Figure(figsize=(3, 2))
    fig.add_subplot().plot([0, 1, 2], [0.9, 0.95, 0.88], label="coverage")
    paths = save_png_and_pdf(fig, tmp_path / "coverage")
    assert [p.name for p in paths] == ["coverage.png", "coverage.pdf"]
    assert paths[1].read_bytes().startswith(b"%PDF")
    default = io.BytesIO()
    fig.savefig(default, dpi=130, format="png")
    ours = np.asarray(Image.open(paths[0]))
    assert np.array_equal(ours, np.asarray(Image.open(default)))


def test_the_header_says_the_replications_and_the_figures_are_explained(tmp_path):
    """A run at 100 replications says so beside the claims count, with the configured 1000;
    every figure says what its lines, bands and dotted lines are."""
    cfg = dict(plain_config(compose_study("fig5_8", ["replications=100"])))
    exact = table().assign(exact_coverage=0.95)
    entries = [
        ReportEntry("fig5_8", cfg, exact, tmp_path / "fig5_8", 1.0, claims_frame([True])),
        ReportEntry("fig5_7", cfg, table(), tmp_path / "fig5_7", 1.0),
    ]
    md, page = write_report(tmp_path, entries, 3.0)
    for doc in (md.read_text(), page.read_text()):
        assert (
            "claims reproduced: 1 of 1, simulated coverage at 100 replications per condition "
            "(the studies are configured with 1000" in doc
        )
        assert doc.count("How to read the figure") == 2
        assert doc.count("the thin dotted line of the same colour is the exact coverage") == 1
    assert "padding: 0 1em" in page.read_text()  # never flush with the window's edges


def test_a_docs_path_in_a_variants_text_is_a_link(tmp_path):
    from rocsim.views.report import linked

    text = "How is it chosen (docs/reading_the_thesis.md#reading-cost-threshold)? <b>"
    got = linked(text, tmp_path / "results")
    assert '<a href="' in got and 'reading_the_thesis.md#reading-cost-threshold">' in got
    assert got.endswith("? &lt;b&gt;")  # the rest escaped
    assert linked("see docs/missing.md", tmp_path) == "see <code>docs/missing.md</code>"


def test_a_study_figure_has_one_legend_for_all_its_panels():
    """The lines mean the same in every panel: one legend (in the first), not one per panel."""
    from rocsim.views.figures import plot_coverage

    frame = pd.concat([table().assign(method=m) for m in ("delong", "mover")])
    frame = frame.assign(level=0.95, theta=frame["condition"].str[-1])
    fig = plot_coverage(frame, panels="theta", lines="method")
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert len(fig.axes) == 2 and len(legends) == 1
    assert [t.get_text() for t in legends[0].get_texts()] == ["method=delong", "method=mover"]


def test_each_report_figure_links_to_its_full_size(tmp_path):
    cfg = plain_config(compose_study("fig5_8"))
    _, page = write_report(
        tmp_path, [ReportEntry("fig5_8", cfg, table(), tmp_path / "fig5_8", 1.0)], 1.0
    )
    assert '<a href="fig5_8/coverage.png"><img src="fig5_8/coverage.png"' in page.read_text()
