"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_python_examples_and_they_run():
    blocks = python_blocks(README.read_text())
    assert blocks, "README lost its Python examples"
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
