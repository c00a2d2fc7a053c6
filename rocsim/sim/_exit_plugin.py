"""The worker plugin of a dask cluster rocsim starts itself (imported only then: it needs
dask.distributed, an optional dependency)."""

from __future__ import annotations

import os

from distributed import WorkerPlugin


class ExitWithParent(WorkerPlugin):
    """The worker processes of a local cluster this process started (children of this
    process: their nannies live in it) end with it, as loky's workers do."""

    def __init__(self, parent: int) -> None:
        self.parent = parent

    def setup(self, worker) -> None:
        from rocsim.sim.workers import exit_with_parent

        if os.getppid() == self.parent:
            exit_with_parent(self.parent)
