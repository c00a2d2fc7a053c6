"""What every command does first, and how it fails."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

EXIT_BAD_INPUT = 2


def fail(message: str, prog: str = "rocsim") -> NoReturn:
    """One line on stderr and exit status 2."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def version_line() -> str:
    from rocsim import __version__

    return f"rocsim {__version__}"


def prepare_process() -> None:
    """Set up a command's process: figures go to files (a headless backend unless the user
    chose one with ``MPLBACKEND``), and modules in the working directory can be named as
    ``_target_`` of an interval method or a score model, as with ``python -m`` (appended, so
    they never shadow installed packages; joblib's workers inherit the path)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)
