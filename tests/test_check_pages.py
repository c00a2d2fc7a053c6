"""docs/examples/check_pages.py, the browser check of the docs and the report: its pure
functions on tiny pages and hand-made measurements (CI has no browser), and its skip line."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "examples" / "check_pages.py"


@pytest.fixture(scope="module")
def cp():
    spec = importlib.util.spec_from_file_location("check_pages", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_pages"] = module  # its dataclass looks its module up while defined
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("check_pages", None)


PAGE = """<!DOCTYPE html><html><body>
<img src="_images/a.png"><img src="https://example.org/remote.png">
<a href="figs/b%20c.pdf#page=2">PDF</a> <a href="coverage.csv">csv</a> <a href="#top">top</a>
<picture><source srcset="d.webp 1x, e.webp 2x"></picture><img src="data:image/png;base64,AA">
<a href="_images/a.png">again</a>
</body></html>"""


def test_linked_files_are_the_local_images_and_figures_once(cp):
    assert cp.linked_files(PAGE) == ["_images/a.png", "figs/b c.pdf", "d.webp", "e.webp"]


def test_missing_files_are_looked_up_beside_the_page(cp, tmp_path):
    (tmp_path / "_images").mkdir()
    (tmp_path / "_images" / "a.png").write_bytes(b"")
    (tmp_path / "d.webp").write_bytes(b"")
    page = tmp_path / "index.html"
    page.write_text(PAGE)
    assert cp.missing_files(page, PAGE) == ["figs/b c.pdf", "e.webp"]


def box(i, x, y, w, h, ancestors=(), rects=None, element=None):
    return {
        "id": i,
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "ancestors": list(ancestors),
        "rects": rects if rects is not None else [[x, y, w, h]],
        "element": element or f"e{i}",
    }


def test_overlapping_pairs(cp):
    texts = [
        box(0, 0, 0, 100, 20),  # a heading
        box(1, 0, 15, 100, 20),  # a paragraph pulled up over it: 5 px
        box(2, 0, 34.5, 100, 20.5),  # overlaps the one above by 0.5 px (a collapsed border): fine
        box(3, 10, 40, 50, 10, ancestors=[2]),  # inside 2: fine
        # a block box over 0's but its only line of text beside it: fine
        box(4, 0, 0, 300, 20, rects=[[200, 0, 100, 20]]),
    ]
    pairs = cp.overlapping_pairs(texts)
    assert [(a["id"], b["id"], across, down) for a, b, across, down in pairs] == [(0, 1, 100, 5)]
    imgs = [box(5, 50, 45, 100, 100), box(6, 70, 36, 20, 10, ancestors=[2])]
    pairs = cp.overlapping_pairs(texts, imgs)
    # the text over an image it does not hold, text first; not the image inside 2
    assert [(a["id"], b["id"]) for a, b, *_ in pairs] == [(2, 5), (3, 5)]


def measure(**changes):
    m = {
        "innerWidth": 390,
        "scrollWidth": 390,
        "images": [{"src": "a.png", "naturalWidth": 640, "element": "img"}],
        "overflowing": [],
        "texts": [box(0, 16, 0, 300, 20)],
        "imgs": [],
        "main": {"element": "article", "left": 16, "right": 374},
    }
    return m | changes


def test_a_clean_page_has_no_findings(cp):
    assert cp.findings_from_measure("p.html", 390, measure()) == []


def test_findings_from_measure(cp):
    m = measure(
        scrollWidth=716,
        images=[{"src": "b.png", "naturalWidth": 0, "element": 'img "b.png"'}],
        overflowing=[{"element": "table.claims", "right": 716.4}],
        texts=[box(0, 0, 0, 300, 20, element="h1"), box(1, 0, 10, 300, 20, element="p")],
        main={"element": "body", "left": 0, "right": 390},
    )
    lines = [f.line() for f in cp.findings_from_measure("r.html", 390, m)]
    assert lines == [
        'r.html\t390\timages\timg "b.png"\tnot loaded: b.png',
        "r.html\t390\toverflow\tdocument\tscrollWidth 716 > innerWidth 390",
        "r.html\t390\toverflow\ttable.claims\tright edge 716px > 390px",
        "r.html\t390\toverlap\th1 <-> p\t300px x 10px",
        "r.html\t390\tpadding\tbody\tleft edge 0px < 8px",
        "r.html\t390\tpadding\tbody\tright edge 390px > 382px",
    ]
    # side padding is asked for at widths up to 1400 px only
    wide = measure(innerWidth=1600, main={"element": "body", "left": 0, "right": 1600})
    assert cp.findings_from_measure("r.html", 1600, wide) == []


def test_the_summary_groups_one_cause_across_pages(cp):
    findings = [
        cp.Finding(page, width, "padding", "body", "left edge 0px < 8px")
        for page in ("a.html", "b.html")
        for width in (1400, 390)
    ]
    lines = cp.summary(findings, n_pages=2, n_widths=2, seconds=3.2)
    assert lines[0].startswith("4 findings (images: 0, overflow: 0, overlap: 0, padding: 4)")
    assert lines[-1] == "  padding\tbody: 4 findings, 2 pages, 1400,390"


def test_without_a_browser_driver_it_skips(cp, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "playwright", None)
    monkeypatch.setitem(sys.modules, "playwright.sync_api", None)
    assert cp.main([]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("skipped: ")


def test_without_chromium_it_skips(cp, monkeypatch, capsys):
    import types

    driver = types.ModuleType("playwright.sync_api")
    monkeypatch.setitem(sys.modules, "playwright", types.ModuleType("playwright"))
    monkeypatch.setitem(sys.modules, "playwright.sync_api", driver)
    assert cp.main(["--chromium", "/nonexistent/chromium"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["skipped: no Chromium found (apt-get install chromium, or --chromium PATH)"]
