"""The documented real-data example (docs/examples/breast_cancer.py) runs and says what the docs
quote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_breast_cancer_example_runs_and_matches_the_docs(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs/examples/breast_cancer.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert (tmp_path / "breast_cancer.png").stat().st_size > 10_000
    page = (ROOT / "docs/example_breast_cancer.md").read_text()
    for line in done.stdout.splitlines()[:4]:  # the figure path differs
        assert line in page, line
