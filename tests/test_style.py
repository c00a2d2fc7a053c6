"""The code is ``ruff check`` clean and ``ruff format`` formatted (CI runs this file)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=" ".join)
def test_ruff(command):
    ruff = shutil.which("ruff")
    assert ruff, "ruff is a test dependency: python -m pip install -e '.[test]'"
    done = subprocess.run([ruff, *command, "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
