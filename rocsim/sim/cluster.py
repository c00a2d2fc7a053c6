"""Replication blocks on a dask.distributed cluster: the runner's engine for ``runner=dask``.

A study run on a cluster (``runner=dask runner.scheduler=tcp://host:8786``) sends its blocks
to the cluster's workers through a :class:`distributed.Client` and takes their results in the
order it sent them, as the local engine (joblib's ordered generator) gives them; every block
seeds itself, so the outputs are the local run's bytes.

What a cluster can do to a run, and what the user sees:

- the scheduler answers nothing: one line naming the address and how to start a scheduler,
  after ``connect_timeout`` seconds;
- no worker is connected (at the start, or all of them lost mid-run): a line saying so at
  once, then one line naming the address and how to start a worker after ``worker_timeout``
  seconds without any;
- a worker dies mid-block (killed, out of memory): the scheduler runs the block again on
  another worker (the same replications, so the same outcomes);
- the scheduler is lost mid-run: one line at once; the conditions finished so far are cached,
  so rerunning the command resumes;
- Ctrl-C (or any error in the run): the run's futures still on the cluster are cancelled.

The workers are the cluster's own: they live as long as it says. Only a cluster this run
starts itself (no ``scheduler`` given: a :class:`distributed.LocalCluster`) has workers that end
with this process, as the local engine's do.
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from rocsim.sim.errors import RunError, note

#: Seconds to wait for a scheduler to answer before giving up (``runner.connect_timeout``).
CONNECT_TIMEOUT = 20.0
#: Seconds a run waits without any worker before giving up (``runner.worker_timeout``).
WORKER_TIMEOUT = 60.0
#: Blocks in flight per worker thread: enough to keep every thread busy while results travel,
#: few enough that the client's memory does not grow with the number of replications.
BLOCKS_PER_THREAD = 4
#: How often a run waiting for a block looks whether any worker is left.
POLL_SECONDS = 1.0
#: Seconds to wait for the scheduler to take note of a closing client.
CLOSE_TIMEOUT = 5.0
#: The loggers of dask.distributed a client logs to.
_LOGGERS = ("distributed", "distributed.client", "distributed.utils", "distributed.core")


class ClusterError(RunError):
    """The cluster cannot run the study (no scheduler, no worker, scheduler lost); its message
    is one line saying what to do."""


def connect(
    scheduler: str | None,
    connect_timeout: float = CONNECT_TIMEOUT,
    worker_timeout: float = WORKER_TIMEOUT,
) -> DaskEngine:
    """A :class:`DaskEngine` on the scheduler at ``scheduler`` (``tcp://host:8786``), or on a
    local cluster started for the run when it is ``None``. Use it as a context manager."""
    try:
        import distributed
    except ImportError:
        raise ValueError(
            "runner=dask needs dask.distributed: python -m pip install 'rocsim[cluster]'"
        ) from None
    for name, value in (("connect_timeout", connect_timeout), ("worker_timeout", worker_timeout)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ValueError(f"runner.{name} must be a positive number of seconds, got {value!r}")
    if scheduler is not None and not isinstance(scheduler, str):
        raise ValueError(
            f"runner.scheduler must be an address such as tcp://host:8786, got {scheduler!r}"
        )
    cluster = None
    if scheduler is None:
        cluster = distributed.LocalCluster(processes=True, dashboard_address=None)
    try:
        client = _client(distributed, scheduler or cluster, connect_timeout)
    except BaseException:
        if cluster is not None:
            cluster.close()
        raise
    if cluster is not None:  # workers this process started end with it
        from rocsim.sim._exit_plugin import ExitWithParent

        client.register_plugin(ExitWithParent(os.getpid()), name="rocsim-exit-with-parent")
    return DaskEngine(client, cluster, float(worker_timeout))


def _client(distributed, address, timeout: float):
    where = address if isinstance(address, str) else "the local cluster"
    try:
        if isinstance(address, str):
            _answers(address, timeout)
        return distributed.Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError):
        host, port = _host_port(where)
        raise ClusterError(
            f"no dask scheduler answers at {where} (waited {timeout:g} s); start one with "
            f"`dask scheduler --host {host} --port {port}` and a worker with "
            f"`dask worker {where}`, or check runner.scheduler"
        ) from None
    except ValueError as err:  # a malformed address
        raise ValueError(f"runner.scheduler {address!r}: {_reason(err)}") from None


def _answers(address: str, timeout: float) -> None:
    """Return once something accepts TCP connections at a ``tcp://host:port`` address; raise
    ``TimeoutError`` after ``timeout`` seconds (a client that fails to connect lingers, and
    its clean-up blocks the process's exit for tens of seconds)."""
    import socket

    if not address.startswith("tcp://"):
        return  # tls://, inproc://, ...: the client's own connection is the test
    host, port = _host_port(address)
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            with socket.create_connection((host.strip("[]"), int(port)), max(0.1, left)):
                return
        except OSError:
            if left <= 0:
                raise TimeoutError(address) from None
            time.sleep(min(0.5, max(0.0, left)))


def _host_port(address: str) -> tuple[str, str]:
    hostport = address.split("://", 1)[-1]
    host, _, port = hostport.rpartition(":")
    return (host or hostport), (port if port.isdigit() else "8786")


def _quiet_logs(levels: dict[str, int] | None = None) -> dict[str, int]:
    """Set the levels of distributed's loggers to ``levels`` (default: only critical
    messages) and return the levels they had."""
    import logging

    before = {name: logging.getLogger(name).level for name in _LOGGERS}
    for name in _LOGGERS:
        logging.getLogger(name).setLevel((levels or {}).get(name, logging.CRITICAL))
    return before


def _note(message: str) -> None:
    """A line on a terminal while the run waits (a log keeps only the outcome's line)."""
    if sys.stderr.isatty():
        note(message)


def _reason(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


class DaskEngine:
    """A run's connection to a dask cluster: :meth:`ordered` maps a function over calls on the
    cluster's workers; closing it (leaving the ``with`` block) closes the client, and the local
    cluster if the run started one."""

    def __init__(self, client, cluster, worker_timeout: float) -> None:
        # the lines a run prints about its cluster are rocsim's own: distributed's logs of
        # its reconnection attempts (tracebacks) and rescheduled blocks are not shown
        self._levels = _quiet_logs()
        self.client = client
        self.cluster = cluster
        self.worker_timeout = worker_timeout
        self.address = client.scheduler.address

    def __enter__(self) -> DaskEngine:
        try:
            self.wait_for_workers()
        except BaseException:  # no ``with`` block to leave: close here
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.client.close(timeout=CLOSE_TIMEOUT)
        except (OSError, TimeoutError):  # the scheduler is gone: nothing to tell it
            pass
        finally:
            if self.cluster is not None:
                self.cluster.close()
            _quiet_logs(self._levels)

    def threads(self) -> int:
        """Worker threads connected now (0 if none, or the scheduler is gone)."""
        try:
            return sum(self.client.nthreads().values())
        except (OSError, TimeoutError, RuntimeError):
            return 0

    def wait_for_workers(self) -> int:
        """Return the worker threads once at least one worker is connected; say so on stderr if
        none is, and raise :class:`ClusterError` after ``worker_timeout`` seconds without one."""
        threads = self.threads()
        if threads:
            return threads
        _note(
            f"waiting up to {self.worker_timeout:g} s for a dask worker at {self.address} "
            f"(start one with `dask worker {self.address}`)"
        )
        deadline = time.monotonic() + self.worker_timeout
        while time.monotonic() < deadline:
            time.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
            threads = self.threads()
            if threads:
                return threads
            self._check_scheduler()
        raise ClusterError(
            f"no dask worker connected to {self.address} within {self.worker_timeout:g} s; "
            f"start one with `dask worker {self.address}`"
        )

    def _check_scheduler(self) -> None:
        if self.client.status in ("closing", "closed", "connecting"):
            raise ClusterError(self._lost_message())

    def _lost_message(self) -> str:
        return (
            f"lost the dask scheduler at {self.address}; finished conditions are cached: "
            "restart the cluster and rerun the same command to resume"
        )

    def ordered(self, fn: Callable[..., Any], calls: Iterable[tuple]) -> Iterator[Any]:
        """``fn(*call)`` for every call, computed on the cluster, yielded in the order of
        ``calls``. At most a few blocks per worker thread are in flight
        (:data:`BLOCKS_PER_THREAD`), so memory does not grow with the number of calls. If the
        consumer stops early (an error, Ctrl-C), the futures still on the cluster are
        cancelled."""
        window = max(2, BLOCKS_PER_THREAD * self.wait_for_workers())
        calls = iter(calls)
        pending: deque = deque()
        try:
            while True:
                while len(pending) < window:
                    call = next(calls, None)
                    if call is None:
                        break
                    pending.append(self.client.submit(fn, *call, pure=False))
                if not pending:
                    return
                yield self._result(pending[0])
                pending.popleft()
        finally:
            if pending:
                self._cancel(list(pending))

    def _result(self, future) -> Any:
        """The future's result; waits while workers come and go, up to ``worker_timeout``
        seconds without any worker."""
        import distributed
        from distributed.comm.core import CommClosedError

        alone_since = None
        while True:
            try:
                return future.result(timeout=POLL_SECONDS)
            except (distributed.TimeoutError, TimeoutError):
                pass
            except (distributed.client.FutureCancelledError, CommClosedError):
                # cancelled by the client when it lost the scheduler, or the connection closed
                # under the request (an error of the block itself is raised as it is)
                raise ClusterError(self._lost_message()) from None
            except distributed.KilledWorker as err:
                raise ClusterError(
                    f"a block of replications ended the dask workers that ran it several times "
                    f"({_reason(err)}); look at the workers' logs (memory?)"
                ) from None
            self._check_scheduler()
            if self.threads():
                alone_since = None
                continue
            if alone_since is None:
                alone_since = time.monotonic()
                _note(
                    f"no dask worker left at {self.address}; waiting up to "
                    f"{self.worker_timeout:g} s for one (`dask worker {self.address}`)"
                )
            elif time.monotonic() - alone_since > self.worker_timeout:
                raise ClusterError(
                    f"no dask worker left at {self.address} for {self.worker_timeout:g} s; "
                    f"start one with `dask worker {self.address}` and rerun the same command "
                    "to resume (finished conditions are cached)"
                )

    def _cancel(self, futures: list) -> None:
        """Cancel ``futures`` on the cluster (best effort: the scheduler may be gone)."""
        try:
            self.client.cancel(futures, force=True)
        except Exception:  # a lost scheduler has nothing left to cancel
            pass
