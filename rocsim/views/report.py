"""The reproduction report: ``index.md`` and ``index.html`` over the studies' results.

For each figure: our plot beside the thesis's caption (translated), the settings, a coverage
table with Monte Carlo standard errors, the interval method, the wall time, and a line saying
where our result and the thesis's text agree or differ (``study.thesis`` in the overlay).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from rocsim.sim.io import atomic_write


@dataclass(frozen=True)
class ReportEntry:
    """One reproduced study: its resolved config (plain mapping), table, folder, wall time."""

    name: str
    cfg: Mapping[str, Any]
    table: pd.DataFrame
    directory: Path
    wall_seconds: float


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
    """Write ``index.md`` and ``index.html`` into ``results_dir``; returns both paths."""
    results_dir = Path(results_dir)
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


def _comparison(cfg) -> str:
    return cfg["study"].get("thesis") or "No comparison with the thesis's text written yet."


def _markdown(results_dir: Path, entries, total_seconds: float) -> str:
    lines = [
        "# rocsim: reproduced studies",
        "",
        f"{len(entries)} studies; total wall time {total_seconds:.1f} s.",
        "",
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
            f"Settings: {settings_line(e.cfg)}; wall time {e.wall_seconds:.1f} s.",
            "",
            f"**Thesis vs ours:** {_comparison(e.cfg)}",
            "",
            _markdown_table(condition_summary(e.table)),
            "",
            f"Table: [{rel}/coverage.csv]({rel}/coverage.csv), figure as PDF: "
            f"[{rel}/coverage.pdf]({rel}/coverage.pdf)",
            "",
        ]
    return "\n".join(lines)


def _markdown_table(frame: pd.DataFrame) -> str:
    def cell(v):
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    rows = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * frame.shape[1]]
    rows += [
        "| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join(rows)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; color: #222; }
section { border-top: 1px solid #ccc; padding-top: 1em; margin-top: 2em; }
.row { display: flex; gap: 2em; align-items: flex-start; }
.row img { width: 62%; border: 1px solid #ddd; }
.row .text { flex: 1; min-width: 0; overflow-x: auto; }
.caption { font-style: italic; }
.verdict { background: #f3f7ff; border-left: 4px solid #3a6fd8; padding: 0.5em 0.8em; }
table { border-collapse: collapse; font-size: 0.9em; margin-top: 0.8em; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }
td:first-child, th:first-child { text-align: left; }
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
        f"<p>{nav}</p>",
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
            f'<img src="{esc(rel)}/coverage.png" alt="{esc(e.name)} coverage">',
            '<div class="text">',
            f'<p class="caption">Thesis caption (translated): '
            f"{esc(e.cfg['study'].get('caption') or '')}</p>",
            f"<p>Settings: {esc(settings_line(e.cfg))}; wall time {e.wall_seconds:.1f} s.</p>",
            f'<p class="verdict"><b>Thesis vs ours:</b> {esc(_comparison(e.cfg))}</p>',
            summary,
            f'<p><a href="{esc(rel)}/coverage.csv">coverage.csv</a> · '
            f'<a href="{esc(rel)}/coverage.pdf">PDF</a> · '
            f'<a href="{esc(rel)}/meta.json">meta.json</a></p>',
            "</div></div></section>",
        ]
    parts.append("</body></html>")
    return "\n".join(parts)
