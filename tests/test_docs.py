"""The Python examples of the README and of docs/extending.md and coming_from_sklearn.md run
as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [
    ROOT / "README.md",
    ROOT / "docs" / "extending.md",
    ROOT / "docs" / "coming_from_sklearn.md",
]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_python_examples_run(document):
    blocks = python_blocks(document.read_text())
    assert blocks, f"{document.name} lost its Python examples"
    namespace: dict = {}  # one per document: its blocks run in order, as in a notebook
    for block in blocks:
        exec(compile(block, str(document), "exec"), namespace)


def test_measured_coverage_is_quoted_from_the_studies_tables():
    """Each method's measured coverage in the public functions' docstrings and in
    docs/interval_methods.md is what docs/examples/write_coverage_quotes.py writes from the
    studies' tables kept in docs/data (computed, never typed)."""
    import subprocess
    import sys

    script = ROOT / "docs" / "examples" / "write_coverage_quotes.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
