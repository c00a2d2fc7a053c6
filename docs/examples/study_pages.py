"""What the scripts that write a study page's results share (``write_bands_page.py``,
``write_auc_page.py``): Markdown tables and the page's generated section."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def markdown(frame: pd.DataFrame) -> list[str]:
    """The lines of a Markdown table of ``frame``."""
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.to_numpy()]
    return [header, rule, *body]


def claims_table(claims: pd.DataFrame) -> list[str]:
    """A study's ``claims.csv`` as a table: each claim, the check that judges it, its value,
    standard error and verdict."""
    out = claims[["claim", "check", "value", "se", "holds"]].copy()
    out["check"] = out["check"].map(lambda text: str(text).replace("|", "\\|"))
    out["value"] = out["value"].map(lambda v: f"{v:.4f}")
    out["se"] = out["se"].map(lambda v: f"{v:.4f}")
    return markdown(out)


def replace_section(page: Path, start: str, end: str, lines: list[str]) -> None:
    """Put ``lines`` between the markers ``start`` and ``end`` of ``page``."""
    head, rest = page.read_text().split(start)
    _, tail = rest.split(end)
    page.write_text("\n".join([head + start, "", *lines, end + tail]))
