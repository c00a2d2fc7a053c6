"""Building from source on a machine without a C compiler ends in one line that says what to
install (or which wheel to take), before anything is built: setuptools alone printed pages of
output ending in ``error: [Errno 2] No such file or directory: 'gcc'``.

The builds run on a copy of ``setup.py``, ``pyproject.toml`` and the kernels' sources (with
the C that Cython made of them, so that nothing is cythonized again), never in the repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MESSAGE = "rocsim: building from source needs a C compiler"
#: Most lines a failed build may print: setuptools' ``running <command>`` lines and ours.
MOST_LINES = 5


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of what ``setup.py`` reads; ``copy2`` keeps the times, so the generated C is
    as up to date as in the repository."""
    top = tmp_path_factory.mktemp("source")
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, top / name)
    (top / "rocsim" / "core").mkdir(parents=True)
    for kernel in (ROOT / "rocsim" / "core").glob("_*.pyx"):
        for made in (kernel, kernel.with_suffix(".c")):
            if made.exists():
                shutil.copy2(made, top / "rocsim" / "core" / made.name)
    return top


def without_compiler(how: str, tmp_path: Path) -> dict[str, str]:
    """This environment with the C compiler out of reach: ``CC`` naming a missing file, or a
    ``PATH`` that holds only Python."""
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "LDSHARED", "PYTHONPATH")}
    if how == "CC":
        env["CC"] = "/nonexistent/gcc"
    else:
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "python").symlink_to(sys.executable)
        env["PATH"] = str(bin_dir)
    return env


@pytest.mark.parametrize(
    ("how", "command"),
    # build_ext alone (editable installs, --inplace), and build, as pip's bdist_wheel runs it
    [("CC", "build_ext"), ("PATH", "build")],
)
def test_a_missing_compiler_is_one_line_before_any_build(source, tmp_path, how, command):
    out = tmp_path / "out"
    options = ["--build-base", str(out)] if command == "build" else ["--build-temp", str(out)]
    done = subprocess.run(
        [sys.executable, "setup.py", command, *options],
        cwd=source,
        env=without_compiler(how, tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = (done.stdout + done.stderr).splitlines()
    assert done.returncode != 0, lines
    assert MESSAGE in done.stderr.splitlines()[-1], lines
    assert "pip install --only-binary rocsim rocsim" in done.stderr, lines
    assert len(lines) <= MOST_LINES and "Traceback" not in done.stderr, lines
    assert not out.exists() or not any(p.is_file() for p in out.rglob("*")), "built something"
