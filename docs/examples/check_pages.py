"""Check the built documentation site and the reproduction report in a real browser.

Every HTML page of the built docs (``docs/_build/html/**/*.html``) and the report that
``rocsim-reproduce`` writes (``results/index.html``) is opened in headless Chromium at
viewport widths 1400, 1024 and 390 px, and checked for:

1. ``images``: every ``<img>`` has loaded (``naturalWidth > 0``, lazy images forced to load),
   and every image or figure file the page links (``img src``, ``a href``, ``source srcset``,
   ``object data`` ending in .png, .jpg, .jpeg, .gif, .svg, .webp, .pdf or .eps) exists on
   disk (checked once per page, reported at the first width);
2. ``overflow``: nothing overflows the page width: ``document.documentElement.scrollWidth <=
   window.innerWidth + 1``, and no element's right edge lies past the viewport (only the
   outermost such element is listed; elements inside a scroll or clip container, i.e. an
   ancestor with ``overflow-x`` other than ``visible``, such as a table in an
   ``overflow-x: auto`` wrapper, and elements in ``position: fixed`` off-canvas drawers are
   left out);
3. ``overlap``: no two visible text-bearing elements (h1-h6, p, figcaption, caption, td, th,
   dt, dd, li, label, legend, ``.legend``, ``.caption``) overlap by more than 1 px each way
   unless one holds the other, and no text element overlaps an ``<img>`` it does not hold.
   A text element counts by the boxes of its rendered lines of text, not its block box, and
   text that is not drawn (``display: none``, ``visibility: hidden``, ``opacity: 0``) does not
   count: sphinx-gallery's thumbnail link is an invisible ``<p>`` laid over the thumbnail.
   Legends drawn inside a matplotlib PNG are pixels, not DOM: they are not checked here;
4. ``padding``: the main content (``article[role=main]``, ``[role=main]``, ``main``, else
   ``body``) has side padding: its content box's left edge is >= 8 px from the viewport's left
   and its right edge <= width - 8 px (at widths <= 1400 px).

Each finding is one tab-separated line: page, width, check, element, detail; then a summary
(counts per check, and the findings of one element and check on several pages or widths,
grouped). The exit
status is 1 if anything was found, 0 if not, 2 on a usage error.

Not part of CI (CI has no browser). To run it::

    pip install playwright               # the Python driver only: no browser download
    apt-get install chromium             # Debian's Chromium, found at /usr/bin/chromium
    sphinx-build -b html docs docs/_build/html
    rocsim-reproduce --results-dir results --replications 10
    python docs/examples/check_pages.py [--docs docs/_build/html] [--report results/index.html]

``--chromium PATH`` (or ``$CHROMIUM``) names another Chromium binary. Without Playwright or
without a Chromium that launches, the script prints one line ``skipped: ...`` and exits 0.

The functions that turn a page's measurements into findings (:func:`linked_files`,
:func:`missing_files`, :func:`findings_from_measure`, :func:`overlapping_pairs`) need no
browser and are tested in ``tests/test_check_pages.py``.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import sys
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
WIDTHS = (1400, 1024, 390)
HEIGHT = 900
#: Side padding the main content keeps from the viewport's edges, in CSS px.
MIN_PADDING = 8
#: Overlaps smaller than this each way (collapsed table borders, rounding) are not findings.
TOLERANCE = 1.0
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".pdf", ".eps")
TEXT_SELECTOR = (
    "h1, h2, h3, h4, h5, h6, p, figcaption, caption, td, th, dt, dd, li, label, legend, "
    ".legend, .caption"
)
MAIN_SELECTORS = ("article[role=main]", "[role=main]", "main", "body")
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


@dataclass(frozen=True)
class Finding:
    page: str
    width: int
    check: str
    element: str
    detail: str

    def line(self) -> str:
        return "\t".join((self.page, str(self.width), self.check, self.element, self.detail))


# --- check 1, on the HTML text: linked image and figure files -------------------------------


class _Links(HTMLParser):
    ATTRIBUTES: ClassVar[dict[str, tuple[str, ...]]] = {
        "img": ("src",),
        "a": ("href",),
        "source": ("srcset", "src"),
        "object": ("data",),
    }

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value and name in self.ATTRIBUTES.get(tag, ()):
                # a srcset lists "url [descriptor]" candidates separated by commas
                candidates = value.split(",") if name == "srcset" else [value]
                self.urls += [c.strip().split()[0] for c in candidates if c.strip()]


def linked_files(html_text: str) -> list[str]:
    """The local image and figure files an HTML page links, as written (relative URLs with
    the query and fragment removed, unquoted), in page order without repeats."""
    parser = _Links()
    parser.feed(html_text)
    found = []
    for url in parser.urls:
        parts = urlsplit(url)
        if parts.scheme not in ("", "file") or parts.netloc:
            continue  # remote, data: or mailto: URLs are not files of the site
        path = unquote(parts.path)
        if path.lower().endswith(IMAGE_EXTENSIONS) and path not in found:
            found.append(path)
    return found


def missing_files(page: Path, html_text: str) -> list[str]:
    """The linked image and figure files of ``page`` that do not exist beside it."""
    return [p for p in linked_files(html_text) if not (page.parent / p).is_file()]


# --- checks 1-4, on what the browser measured -----------------------------------------------


def _overlap(a, b) -> tuple[float, float]:
    """How far boxes ``a`` and ``b`` (x, y, w, h) overlap across and down (<= 0: apart)."""
    across = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    down = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return across, down


def _box(b: dict) -> tuple[float, float, float, float]:
    return b["x"], b["y"], b["w"], b["h"]


def overlapping_pairs(boxes: list[dict], others: list[dict] | None = None) -> list[tuple]:
    """Pairs of elements whose drawn parts overlap by more than :data:`TOLERANCE` px both
    ways, neither an ancestor of the other.

    Each element: ``id``, its box ``x, y, w, h`` (page coordinates), ``rects`` (the boxes of
    what it draws, ``[x, y, w, h]``: its lines of text, or its box for an image; default its
    box) and ``ancestors`` (ids of the measured elements holding it). With ``others``, the
    pairs between ``boxes`` and ``others``; without, among ``boxes``. Returns ``(a, b,
    across, down)`` tuples, the largest overlap of their drawn parts."""
    pairs = []
    # sweep down the page, keeping the elements whose bottom is still below the sweep line
    items = sorted(
        [(b["y"], 0, i, b) for i, b in enumerate(boxes)]
        + [(b["y"], 1, i, b) for i, b in enumerate(others or [])],
        key=lambda item: item[:3],
    )
    active: list[tuple[int, dict]] = []
    for top, group, _, b in items:
        active = [(g, a) for g, a in active if a["y"] + a["h"] - TOLERANCE > top]
        for g, a in active:
            if others is not None and g == group:
                continue
            if b["id"] in a["ancestors"] or a["id"] in b["ancestors"] or a["id"] == b["id"]:
                continue
            across, down = _overlap(_box(a), _box(b))
            if across <= TOLERANCE or down <= TOLERANCE:
                continue
            hits = [
                _overlap(ra, rb)
                for ra in a.get("rects") or [_box(a)]
                for rb in b.get("rects") or [_box(b)]
            ]
            hits = [(x, y) for x, y in hits if x > TOLERANCE and y > TOLERANCE]
            if hits:
                across, down = max(hits, key=lambda h: h[0] * h[1])
                first, second = (a, b) if g == 0 else (b, a)  # a text first, then an image
                pairs.append((first, second, across, down))
        active.append((group, b))
    return pairs


def _px(v: float) -> str:
    return f"{v:.0f}px"


def findings_from_measure(page: str, width: int, m: dict) -> list[Finding]:
    """Findings of checks 1-4 from one page's measurements at one width (what
    :data:`MEASURE_JS` returns): ``images`` (src, naturalWidth, element), ``innerWidth``,
    ``scrollWidth``, ``overflowing`` (element, right), ``texts`` and ``imgs`` (boxes as in
    :func:`overlapping_pairs`, with ``element``), ``main`` (element, left, right: its content
    box)."""
    out = []

    def add(check, element, detail):
        out.append(Finding(page, width, check, element, detail))

    for img in m["images"]:
        if not img["naturalWidth"]:
            add("images", img["element"], f"not loaded: {img['src']}")
    inner = m["innerWidth"]
    if m["scrollWidth"] > inner + 1:
        add("overflow", "document", f"scrollWidth {m['scrollWidth']} > innerWidth {inner}")
    for el in m["overflowing"]:
        add("overflow", el["element"], f"right edge {_px(el['right'])} > {inner}px")
    for a, b, across, down in overlapping_pairs(m["texts"]):
        add("overlap", f"{a['element']} <-> {b['element']}", f"{_px(across)} x {_px(down)}")
    for a, b, across, down in overlapping_pairs(m["texts"], m["imgs"]):
        add("overlap", f"{a['element']} <-> {b['element']}", f"{_px(across)} x {_px(down)}")
    main = m["main"]
    if width <= 1400 and main:
        if main["left"] < MIN_PADDING:
            add("padding", main["element"], f"left edge {_px(main['left'])} < {MIN_PADDING}px")
        if main["right"] > inner - MIN_PADDING:
            add(
                "padding",
                main["element"],
                f"right edge {_px(main['right'])} > {inner - MIN_PADDING}px",
            )
    return out


# --- the browser ----------------------------------------------------------------------------

#: Run in the page once it has loaded (and its lazy images with it): the measurements of
#: checks 1-4. Element descriptions: tag#id.class, and the first words of its text.
MEASURE_JS = """
([textSelector, mainSelectors]) => {
  const W = window.innerWidth, sx = window.scrollX, sy = window.scrollY;
  const words = (el) => {
    const parts = [];
    let n = 0;
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = walk.nextNode(); t && n < 60; t = walk.nextNode()) {
      const w = t.data.replace(/\\s+/g, ' ').trim();
      if (w) { parts.push(w); n += w.length + 1; }
    }
    const text = parts.join(' ');
    return text.length > 40 ? text.slice(0, 40) + '...' : text;
  };
  const describe = (el) => {
    let d = el.tagName.toLowerCase();
    if (el.id) d += '#' + el.id;
    const cls = (el.getAttribute('class') || '').trim().split(/\\s+/).filter(Boolean);
    if (cls.length) d += '.' + cls.slice(0, 2).join('.');
    const around = el.parentElement && el.parentElement.closest('[id]');
    if (around && around !== document.body) d += ' in #' + around.id;
    const text = el.tagName === 'IMG' ? (el.getAttribute('src') || '') : words(el);
    if (text) d += ' "' + text + '"';
    return d;
  };
  // hidden: not rendered, or under visibility:hidden or an opacity 0 box (tooltips)
  const memoHidden = new Map();
  const hidden = (el) => {
    if (!el || el === document.documentElement) return false;
    if (memoHidden.has(el)) return memoHidden.get(el);
    const cs = getComputedStyle(el);
    const v = cs.display === 'none' || cs.visibility === 'hidden' || cs.opacity === '0'
      || hidden(el.parentElement);
    memoHidden.set(el, v);
    return v;
  };
  // inside a position:fixed box, or in a box that scrolls or clips its overflow
  const memo = new Map();
  const contained = (el) => {
    if (!el || el === document.body || el === document.documentElement) return false;
    if (memo.has(el)) return memo.get(el);
    const cs = getComputedStyle(el);
    const p = el.parentElement;
    let v = cs.position === 'fixed' || contained(p);
    if (!v && p && p !== document.body && p !== document.documentElement) {
      v = getComputedStyle(p).overflowX !== 'visible';
    }
    memo.set(el, v);
    return v;
  };
  const images = [...document.images].filter((img) => !hidden(img)).map((img) => ({
    src: img.currentSrc || img.src, naturalWidth: img.naturalWidth, element: describe(img),
  }));
  const all = [...document.body.querySelectorAll('*')];
  const over = new Set();
  for (const el of all) {
    const r = el.getBoundingClientRect();
    if (r.right > W + 1 && r.width > 0 && r.height > 0 && !hidden(el) && !contained(el)) {
      over.add(el);
    }
  }
  const overflowing = [...over]
    .filter((el) => !over.has(el.parentElement))
    .map((el) => ({ element: describe(el), right: el.getBoundingClientRect().right }));
  // the rendered lines of an element's own visible text (a box per text fragment)
  const textRects = (el) => {
    const rects = [];
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = walk.nextNode(); t; t = walk.nextNode()) {
      if (!t.data.trim() || hidden(t.parentElement)) continue;
      const range = document.createRange();
      range.selectNodeContents(t);
      for (const r of range.getClientRects()) {
        if (r.width > 0 && r.height > 0 && r.right > 0 && r.left < W) {
          rects.push([r.left + sx, r.top + sy, r.width, r.height]);
        }
      }
    }
    return rects;
  };
  const ids = new Map();
  const boxes = (els, isText) => els.map((el) => {
    if (hidden(el)) return null;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || r.right <= 0 || r.left >= W) return null;
    const rects = isText ? textRects(el) : [[r.left + sx, r.top + sy, r.width, r.height]];
    if (!rects.length) return null;
    ids.set(el, ids.size);
    return { el, x: r.left + sx, y: r.top + sy, w: r.width, h: r.height, rects };
  }).filter(Boolean);
  const texts = boxes([...document.body.querySelectorAll(textSelector)], true);
  const imgs = boxes([...document.images], false);
  const finish = (b) => {
    const ancestors = [];
    for (let p = b.el.parentElement; p; p = p.parentElement) {
      if (ids.has(p)) ancestors.push(ids.get(p));
    }
    return { id: ids.get(b.el), x: b.x, y: b.y, w: b.w, h: b.h, rects: b.rects, ancestors,
             element: describe(b.el) };
  };
  let main = null;
  for (const sel of mainSelectors) {
    const el = document.querySelector(sel);
    if (!el) continue;
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    const px = (v) => parseFloat(v) || 0;
    main = {
      element: el.tagName.toLowerCase() + (el.id ? '#' + el.id : ''),
      left: r.left + px(cs.borderLeftWidth) + px(cs.paddingLeft),
      right: r.right - px(cs.borderRightWidth) - px(cs.paddingRight),
    };
    break;
  }
  return {
    innerWidth: W, scrollWidth: document.documentElement.scrollWidth, images, overflowing,
    texts: texts.map(finish), imgs: imgs.map(finish), main,
  };
}
"""

#: Load lazy images now and wait (at most 5 s) until every image has loaded or failed.
LOAD_IMAGES_JS = """
async () => {
  for (const img of document.images) img.loading = 'eager';
  await Promise.race([
    Promise.all([...document.images].map((img) => img.complete ? null : new Promise((ok) => {
      img.addEventListener('load', ok); img.addEventListener('error', ok);
    }))),
    new Promise((ok) => setTimeout(ok, 5000)),
  ]);
  if (document.fonts) await document.fonts.ready;
}
"""


def find_chromium(given: str | None) -> str | None:
    """The Chromium binary: ``given`` (only), else ``$CHROMIUM``, else Debian's."""
    for path in (given,) if given else (os.environ.get("CHROMIUM"), *CHROMIUM_CANDIDATES):
        if path and shutil.which(path):
            return shutil.which(path)
    return None


def pages_to_check(docs: Path, report: Path) -> list[tuple[str, Path]]:
    """(name, path) of every HTML page of the built docs and the report, those that exist."""
    pages = []
    if docs.is_dir():
        pages += [(f"docs/{p.relative_to(docs)}", p) for p in sorted(docs.rglob("*.html"))]
    if report.is_file():
        pages.append((str(report), report))
    return pages


def check(pages, widths, chromium: str) -> list[Finding]:
    from playwright.sync_api import sync_playwright

    findings: list[Finding] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            for i, width in enumerate(widths):
                context = browser.new_context(viewport={"width": width, "height": HEIGHT})
                page = context.new_page()
                for name, path in pages:
                    if i == 0:
                        findings += [
                            Finding(name, width, "images", f'link "{p}"', "file not found")
                            for p in missing_files(path, path.read_text(errors="replace"))
                        ]
                    page.goto(path.resolve().as_uri(), wait_until="load")
                    page.evaluate(LOAD_IMAGES_JS)
                    measure = page.evaluate(MEASURE_JS, [TEXT_SELECTOR, list(MAIN_SELECTORS)])
                    findings += findings_from_measure(name, width, measure)
                context.close()
        finally:
            browser.close()
    return findings


def summary(findings: list[Finding], n_pages: int, n_widths: int, seconds: float) -> list[str]:
    by_check = collections.Counter(f.check for f in findings)
    counts = ", ".join(
        f"{c}: {by_check.get(c, 0)}" for c in ("images", "overflow", "overlap", "padding")
    )
    lines = [
        f"{len(findings)} findings ({counts}) on {n_pages} pages x {n_widths} widths "
        f"in {seconds:.0f} s"
    ]
    # the same element and check, on several pages or at several widths: one cause
    groups: dict[tuple[str, str], list[Finding]] = collections.defaultdict(list)
    for f in findings:
        groups[f.check, f.element].append(f)
    repeated = sorted(
        ((k, fs) for k, fs in groups.items() if len(fs) > 1), key=lambda kv: -len(kv[1])
    )
    if repeated:
        lines.append("repeated (check, element: findings, pages, widths):")
        for (check, element), fs in repeated[:30]:
            widths = ",".join(str(w) for w in sorted({f.width for f in fs}, reverse=True))
            pages = len({f.page for f in fs})
            lines.append(f"  {check}\t{element}: {len(fs)} findings, {pages} pages, {widths}")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs", type=Path, default=ROOT / "docs" / "_build" / "html")
    p.add_argument("--report", type=Path, default=ROOT / "results" / "index.html")
    p.add_argument("--widths", type=int, nargs="+", default=list(WIDTHS))
    p.add_argument("--chromium", help="the Chromium binary (default: $CHROMIUM, /usr/bin/...)")
    p.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help="check only pages whose name contains one of these",
    )
    args = p.parse_args(argv)

    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        print("skipped: Playwright is not installed (pip install playwright)")
        return 0
    chromium = find_chromium(args.chromium)
    if chromium is None:
        print("skipped: no Chromium found (apt-get install chromium, or --chromium PATH)")
        return 0
    pages = pages_to_check(args.docs, args.report)
    if args.only:
        pages = [(n, q) for n, q in pages if any(o in n for o in args.only)]
    if not pages:
        print(f"no pages to check: neither {args.docs} nor {args.report} exists", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        findings = check(pages, args.widths, chromium)
    except Exception as error:  # a browser that does not launch is no browser
        if "launch" not in str(error).lower() and "executable" not in str(error).lower():
            raise
        print(f"skipped: Chromium did not launch ({str(error).splitlines()[0]})")
        return 0
    for f in findings:
        print(f.line())
    for line in summary(findings, len(pages), len(args.widths), time.perf_counter() - start):
        print(line)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
