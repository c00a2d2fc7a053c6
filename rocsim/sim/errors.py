"""Errors of a run that come from outside rocsim, and the lines a run says on its way."""

from __future__ import annotations

import sys


class RunError(RuntimeError):
    """Something outside rocsim stops a run: a full disk, a results folder another run is
    using, a cluster that is not there. Its message is one line that says what happened and
    what to do; the commands print it and exit with status 1 (bad input exits with 2)."""


def note(message: str) -> None:
    """Say ``message`` in one line on stderr (``rocsim: ...``), above a progress bar if one
    is drawn."""
    from tqdm.auto import tqdm

    tqdm.write(f"rocsim: {message}", file=sys.stderr)
