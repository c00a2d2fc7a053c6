"""The reproduction report: ``index.md`` and ``index.html`` over the studies' results.

At the top, "claims reproduced: x of y" (the thesis's statements checked on the data,
:mod:`rocsim.sim.claims`) and "Where we differ": every failing claim with the variant runs
that could explain it and the reading their results support (:mod:`rocsim.cli.variants`).
For each figure: our plot beside the thesis's caption (translated), the settings, a coverage
table with Monte Carlo standard errors, the wall time, and its claims: the thesis's sentence,
the check, the measured value with its standard error, and whether it holds.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from rocsim.sim.io import atomic_write

#: The repository's root (a checkout: its docs beside the package), for links to the docs.
ROOT = Path(__file__).resolve().parents[2]
#: A path of the docs written in a study's text (a variant's question or reading).
DOCS_PATH = re.compile(r"docs/[\w/.-]+\.md(?:#[\w-]+)?")


@dataclass(frozen=True)
class ReportEntry:
    """One reproduced study: its resolved config (plain mapping), table, folder, wall time."""

    name: str
    cfg: Mapping[str, Any]
    table: pd.DataFrame
    directory: Path
    wall_seconds: float
    claims: pd.DataFrame | None = None  # claims.csv of the study
    variants: Sequence[Any] = field(default_factory=tuple)  # VariantResult of its failures


def condition_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per condition: mean and lowest coverage (and where), mean MCSE, mean width."""
    rows = []
    for label, part in table.groupby("condition", sort=False):
        worst = part["coverage"].idxmin()
        rows.append(
            {
                "condition": label,
                "mean coverage": part["coverage"].mean(),
                "lowest coverage": part.loc[worst, "coverage"],
                f"at {part['grid'].iloc[0]}": part.loc[worst, "x"],
                "mean MCSE": part["mcse"].mean(),
                "mean width": part["mean_width"].mean(),
            }
        )
    return pd.DataFrame(rows)


def settings_line(cfg: Mapping[str, Any]) -> str:
    """The settings a reader needs to compare with the thesis, in one line."""
    interval = cfg["interval"]
    method = interval["method"]
    if interval.get("pseudo_count") is not None:
        method += f" (pseudo-count {interval['pseudo_count']:g})"
    axes = ", ".join(f"{k} in {list(v)}" for k, v in (cfg["study"].get("axes") or {}).items())
    parts = [
        f"kind `{cfg['study']['kind']}`",
        f"interval method `{method}`",
        f"level {cfg['confidence_level']:g}",
        f"n = {cfg['size']['n']} per class"
        if "n" not in (cfg["study"].get("axes") or {})
        else None,
        f"sampling {cfg['sampling']['scheme']}, bootstrap {cfg['bootstrap']['scheme']}",
        f"axes: {axes}" if axes else None,
        f"{cfg['coverage']} coverage",
        f"{cfg['replications']} replications" if cfg["coverage"] == "simulate" else None,
        f"seed {cfg['seed']}",
    ]
    return "; ".join(p for p in parts if p)


def write_report(
    results_dir: Path, entries: Sequence[ReportEntry], total_seconds: float
) -> tuple[Path, Path]:
    """Write ``index.md``, ``index.html`` and ``claims.csv`` (every study's claims) into
    ``results_dir``; returns the first two paths."""
    results_dir = Path(results_dir)
    claims = all_claims(entries)
    atomic_write(results_dir / "claims.csv", lambda p: claims.to_csv(p, index=False))
    md = _markdown(results_dir, entries, total_seconds)
    page = _html(results_dir, entries, total_seconds)
    md_path, html_path = results_dir / "index.md", results_dir / "index.html"
    atomic_write(md_path, lambda p: p.write_text(md))
    atomic_write(html_path, lambda p: p.write_text(page))
    return md_path, html_path


def _relative(results_dir: Path, directory: Path) -> str:
    directory = Path(directory)
    return (
        directory.relative_to(results_dir) if directory.is_relative_to(results_dir) else directory
    ).as_posix()


def claims_count(entries: Sequence[ReportEntry]) -> tuple[int, int]:
    """(claims that hold, claims checked) over ``entries``."""
    frames = [e.claims for e in entries if e.claims is not None]
    if not frames:
        return 0, 0
    holds = pd.concat(frames)["holds"].astype(bool)
    return int(holds.sum()), int(holds.size)


def all_claims(entries: Sequence[ReportEntry]) -> pd.DataFrame:
    """Every study's claims, one table (``<results_dir>/claims.csv``)."""
    from rocsim.sim.claims import CLAIM_COLUMNS

    frames = [e.claims for e in entries if e.claims is not None and len(e.claims)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=CLAIM_COLUMNS)


def claims_line(entries: Sequence[ReportEntry]) -> str:
    """``"claims reproduced: x of y"`` and the replications they were judged on."""
    held, total = claims_count(entries)
    return f"claims reproduced: {held} of {total}, {replications_note(entries)}"


def replications_note(entries: Sequence[ReportEntry]) -> str:
    """The replications a condition's simulated coverage rests on in this run, and the
    studies' configured ones when the run used others (fewer widen the Monte Carlo bands: a
    claim judged within them may then fail or hold by chance)."""
    simulated = [e for e in entries if e.cfg.get("coverage") == "simulate"]
    if not simulated:
        return "on exact coverage (no simulation)"
    used = sorted({int(e.cfg["replications"]) for e in simulated})
    configured = sorted({configured_replications(e.name) for e in simulated})
    note = f"simulated coverage at {' / '.join(map(str, used))} replications per condition"
    if used != configured:
        note += (
            f" (the studies are configured with {' / '.join(map(str, configured))}: this run "
            "used other counts, so its Monte Carlo errors differ from theirs)"
        )
    return note


def configured_replications(name: str) -> int:
    """The replications study ``name`` is configured with (its file's, else the base's)."""
    configs = resources.files("rocsim.configs")  # configs ship inside the package
    for path in (configs / "study" / f"{name}.yaml", configs / "config.yaml"):
        if path.is_file():
            value = (yaml.safe_load(path.read_text()) or {}).get("replications")
            if value is not None:
                return int(value)
    return 0


def figure_caption(entry: ReportEntry) -> str:
    """How to read a study's figure: what its lines, bands and marks are."""
    exact = "exact_coverage" in entry.table and entry.table["exact_coverage"].notna().any()
    return (
        "How to read the figure: each solid line is a method's coverage estimated from the "
        "simulated data sets, against the grid; the shaded band around it is +-1.96 Monte "
        "Carlo standard errors; the grey dashed line is the nominal level"
        + (
            "; the thin dotted line of the same colour is the exact coverage, computed "
            "without simulation, which the solid line estimates."
            if exact
            else "."
        )
    )


def linked(text: str, results_dir: Path) -> str:
    """``text`` escaped for HTML, the docs paths it names linked (relative to the report)
    when the docs are beside it, else set as code."""
    out, last = [], 0
    for match in DOCS_PATH.finditer(text):
        path, _, anchor = match.group(0).partition("#")
        target = ROOT / path
        out.append(html.escape(text[last : match.start()]))
        if target.exists():
            href = os.path.relpath(target, Path(results_dir).resolve()) + (
                f"#{anchor}" if anchor else ""
            )
            out.append(f'<a href="{html.escape(href)}">{html.escape(match.group(0))}</a>')
        else:
            out.append(f"<code>{html.escape(match.group(0))}</code>")
        last = match.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def _failing(entry: ReportEntry) -> pd.DataFrame:
    if entry.claims is None:
        return pd.DataFrame()
    return entry.claims[~entry.claims["holds"].astype(bool)]


def _claim_cells(row) -> list[str]:
    return [
        str(row.claim),
        str(row.thesis),
        str(row.check),
        f"{row.value:.4g}",
        f"{row.se:.2g}",
        "yes" if bool(row.holds) else "**no**",
    ]


_CLAIM_HEADER = ["claim", "thesis (quoted, translated)", "check", "value", "SE", "holds"]


def _markdown(results_dir: Path, entries, total_seconds: float) -> str:
    lines = [
        "# rocsim: reproduced studies",
        "",
        f"{len(entries)} studies; total wall time {total_seconds:.1f} s; {claims_line(entries)}.",
        "",
        *_markdown_differences(entries),
    ]
    for e in entries:
        rel = _relative(results_dir, e.directory)
        lines += [
            f"## {e.cfg['study'].get('title') or e.name}",
            "",
            f"![{e.name}]({rel}/coverage.png)",
            "",
            f"*Thesis caption (translated):* {e.cfg['study'].get('caption') or ''}",
            "",
            figure_caption(e),
            "",
            f"Settings: {settings_line(e.cfg)}; wall time {e.wall_seconds:.1f} s.",
            "",
            _markdown_table(condition_summary(e.table)),
            "",
            *_markdown_claims(e),
            f"Table: [{rel}/coverage.csv]({rel}/coverage.csv), figure as PDF: "
            f"[{rel}/coverage.pdf]({rel}/coverage.pdf)",
            "",
        ]
    return "\n".join(lines)


def _markdown_claims(e: ReportEntry) -> list[str]:
    if e.claims is None or not len(e.claims):
        return ["No claims of the thesis are checked for this figure.", ""]
    held = int(e.claims["holds"].astype(bool).sum())
    rows = [_md_row(_CLAIM_HEADER), "|" + "---|" * len(_CLAIM_HEADER)]
    rows += [_md_row(_claim_cells(row)) for row in e.claims.itertuples(index=False)]
    return [f"**Claims:** {held} of {len(e.claims)} hold.", "", *rows, ""]


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _markdown_differences(entries) -> list[str]:
    lines = ["## Where we differ", ""]
    if not any(len(_failing(e)) for e in entries):
        return [*lines, "Every claim checked holds.", ""]
    for e in entries:
        failing = _failing(e)
        if not len(failing):
            continue
        lines += [f"### {e.name}", "", _md_row(_CLAIM_HEADER), "|" + "---|" * len(_CLAIM_HEADER)]
        lines += [_md_row(_claim_cells(row)) for row in failing.itertuples(index=False)]
        lines.append("")
        unexplained = _unexplained(e, failing)
        if unexplained:
            lines += [f"No variant run explains: {', '.join(unexplained)}.", ""]
        for v in e.variants:
            claims = v.claims[v.claims["claim"].isin(v.explains)]
            overrides = ", ".join(f"`{o}`" for o in v.overrides)
            lines += [
                f"**Variant `{v.name}`** ({overrides}): {v.question}",
                "",
                _md_row(_VARIANT_HEADER),
                "|" + "---|" * len(_VARIANT_HEADER),
                *[_md_row(_variant_cells(r)) for r in claims.itertuples(index=False)],
                "",
                f"*Reading:* {v.reading}",
                "",
            ]
    return lines


_VARIANT_HEADER = [h for h in _CLAIM_HEADER if not h.startswith("thesis")]


def _variant_cells(row) -> list[str]:
    cells = _claim_cells(row)
    return cells[:1] + cells[2:]


def _unexplained(e: ReportEntry, failing: pd.DataFrame) -> list[str]:
    explained = {c for v in e.variants for c in v.explains}
    return [c for c in failing["claim"] if c not in explained]


def _markdown_table(frame: pd.DataFrame) -> str:
    def cell(v):
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    rows = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * frame.shape[1]]
    rows += [
        "| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join(rows)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; color: #222;
  padding: 0 1em; }
section { border-top: 1px solid #ccc; padding-top: 1em; margin-top: 2em; }
.row { display: flex; gap: 2em; align-items: flex-start; }
.row > a { flex: 0 0 62%; }
.row img { width: 100%; border: 1px solid #ddd; }
.row .text { flex: 1; min-width: 0; overflow-x: auto; }
.caption { font-style: italic; }
.claims td, .claims th { text-align: left; vertical-align: top; }
.claims td.num { text-align: right; white-space: nowrap; }
.claims .no { color: #b00020; font-weight: bold; }
.claims .yes { color: #1b7f3b; }
.reading { background: #fff8e6; border-left: 4px solid #d89a3a; padding: 0.5em 0.8em; }
.verdict { background: #f3f7ff; border-left: 4px solid #3a6fd8; padding: 0.5em 0.8em; }
table { border-collapse: collapse; font-size: 0.9em; margin-top: 0.8em; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.claims { display: block; overflow-x: auto; max-width: 100%; }
@media (max-width: 700px) {
  .row { flex-direction: column; align-items: stretch; }
  .row > a { flex-basis: auto; }
}
"""


def _html(results_dir: Path, entries, total_seconds: float) -> str:
    esc = html.escape
    nav = " · ".join(f'<a href="#{esc(e.name)}">{esc(e.name)}</a>' for e in entries)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>rocsim: reproduced studies</title>",
        f"<style>{_STYLE}</style></head>",
        "<body><h1>rocsim: reproduced studies</h1>",
        f"<p>{len(entries)} studies; total wall time {total_seconds:.1f} s.</p>",
        f'<p class="verdict"><b>{esc(claims_line(entries))}</b></p>',
        f"<p>{nav}</p>",
        _html_differences(entries, results_dir),
    ]
    for e in entries:
        rel = _relative(results_dir, e.directory)
        summary = condition_summary(e.table).to_html(
            index=False, float_format="{:.4g}".format, border=0
        )
        parts += [
            f'<section id="{esc(e.name)}">',
            f"<h2>{esc(e.cfg['study'].get('title') or e.name)}</h2>",
            '<div class="row">',
            # the figure at the row's width, a click away from its full size
            f'<a href="{esc(rel)}/coverage.png"><img src="{esc(rel)}/coverage.png" '
            f'alt="{esc(e.name)} coverage"></a>',
            '<div class="text">',
            f'<p class="caption">Thesis caption (translated): '
            f"{esc(e.cfg['study'].get('caption') or '')}</p>",
            f'<p class="caption">{esc(figure_caption(e))}</p>',
            f"<p>Settings: {esc(settings_line(e.cfg))}; wall time {e.wall_seconds:.1f} s.</p>",
            summary,
            f'<p><a href="{esc(rel)}/coverage.csv">coverage.csv</a> · '
            f'<a href="{esc(rel)}/coverage.pdf">PDF</a> · '
            f'<a href="{esc(rel)}/meta.json">meta.json</a></p>',
            "</div></div>",
            _html_claims(e),
            "</section>",
        ]
    parts.append("</body></html>")
    return "\n".join(parts)


def _html_claim_rows(claims: pd.DataFrame, with_thesis: bool = True) -> str:
    esc = html.escape
    header = [h for h in _CLAIM_HEADER if with_thesis or not h.startswith("thesis")]
    rows = ["<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>"]
    for row in claims.itertuples(index=False):
        holds = bool(row.holds)
        cells = [f"<td>{esc(str(row.claim))}</td>"]
        cells += [f"<td>{esc(str(row.thesis))}</td>"] if with_thesis else []
        cells += [
            f"<td>{esc(str(row.check))}</td>",
            f'<td class="num">{row.value:.4g}</td>',
            f'<td class="num">{row.se:.2g}</td>',
            f'<td class="{"yes" if holds else "no"}">{"yes" if holds else "no"}</td>',
        ]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return '<table class="claims">' + "".join(rows) + "</table>"


def _html_claims(e: ReportEntry) -> str:
    if e.claims is None or not len(e.claims):
        return "<p>No claims of the thesis are checked for this figure.</p>"
    held = int(e.claims["holds"].astype(bool).sum())
    return (
        f"<h3>Claims: {held} of {len(e.claims)} hold</h3>"
        + _html_claim_rows(e.claims)
        + ('<p><a href="#differ">Where we differ</a></p>' if held < len(e.claims) else "")
    )


def _html_differences(entries, results_dir: Path) -> str:
    esc = html.escape
    parts = ['<section id="differ"><h2>Where we differ</h2>']
    if not any(len(_failing(e)) for e in entries):
        parts.append("<p>Every claim checked holds.</p>")
    for e in entries:
        failing = _failing(e)
        if not len(failing):
            continue
        parts += [
            f'<h3><a href="#{esc(e.name)}">{esc(e.name)}</a>: claims that fail</h3>',
            _html_claim_rows(failing),
        ]
        unexplained = _unexplained(e, failing)
        if unexplained:
            parts.append(f"<p>No variant run explains: {esc(', '.join(unexplained))}.</p>")
        for v in e.variants:
            overrides = ", ".join(f"<code>{esc(o)}</code>" for o in v.overrides)
            claims = v.claims[v.claims["claim"].isin(v.explains)]
            parts += [
                f"<h4>Variant {esc(v.name)} ({overrides})</h4>",
                f"<p>{linked(v.question, results_dir)}</p>",
                _html_claim_rows(claims, with_thesis=False),
                f'<p class="reading"><b>Reading:</b> {linked(v.reading, results_dir)}</p>',
            ]
    parts.append("</section>")
    return "\n".join(parts)
