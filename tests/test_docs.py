"""The Python examples of the README and of docs/extending.md run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", ROOT / "docs" / "extending.md"]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_python_examples_run(document):
    blocks = python_blocks(document.read_text())
    assert blocks, f"{document.name} lost its Python examples"
    for block in blocks:
        exec(compile(block, str(document), "exec"), {})
