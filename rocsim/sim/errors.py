"""Errors of a run that come from outside rocsim, and what a command does with them."""

from __future__ import annotations


class RunError(RuntimeError):
    """Something outside rocsim stops a run: a full disk, a results folder another run is
    using, a cluster that is not there. Its message is one line that says what happened and
    what to do; the commands print it and exit with status 1 (bad input exits with 2)."""
