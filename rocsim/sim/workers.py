"""The processes that run replication blocks on this machine, and what each one sets up.

The local engine is joblib's loky pool (:func:`local_engine`): its workers end with the process
that started them from the moment they start (:func:`exit_with_parent`), leave Ctrl-C to it,
and return results in the order the blocks were sent. Every block, in a worker or in the main
process, runs with single-threaded BLAS and OpenMP (:func:`single_threaded`) and with glibc
keeping freed memory (:func:`keep_freed_memory`). A cluster's workers are the cluster's own
(:mod:`rocsim.sim.cluster`): none of this process guard applies to them.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from joblib import Parallel, delayed, effective_n_jobs, parallel_config
from threadpoolctl import ThreadpoolController

#: An engine's map: ``ordered(fn, calls)`` yields ``fn(*call)`` for every call, in order.
Ordered = Callable[[Callable[..., Any], Iterable[tuple]], Iterator[Any]]


_controller: tuple[int, ThreadpoolController] | None = None


@contextmanager
def single_threaded() -> Iterator[None]:
    """``threadpool_limits(limits=1)``: every BLAS/OpenMP pool of the process on one thread for
    the ``with`` block, then as before; the compiled paired vertical law's OpenMP lanes too (it
    runs its ranks on every core), so that joblib's workers do not each start a pool per core.

    Finding the pools means scanning the process's shared libraries (milliseconds, once per
    replication block); the pools are found again only when modules were imported since, the
    way a new library gets loaded.
    """
    global _controller
    if _controller is None or _controller[0] != len(sys.modules):
        _controller = (len(sys.modules), ThreadpoolController())
    with _controller[1].limit(limits=1):
        yield


#: ``mallopt`` parameters of glibc, and the values :func:`keep_freed_memory` gives them.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_TRIM_THRESHOLD, _MMAP_THRESHOLD = 2**28, 2**25
_memory_kept = False


def keep_freed_memory() -> None:
    """Have glibc's ``malloc`` keep the memory this process frees for its next arrays (once
    per process; elsewhere nothing).

    A replication or a part of an exact coverage allocates and frees arrays of a few hundred
    kB (the kernel estimates' transforms, the binomial tables); by default glibc maps such
    blocks anew or returns the top of its heap to the kernel once it is free, and every
    array then costs page faults as it is first written, which can take as long as the
    arithmetic on it. Fixed thresholds (memory returned only above
    256 MB free, blocks mapped apart only from 32 MB) keep it in the heap. Where the numbers
    are stored never changes what they are.
    """
    global _memory_kept
    if _memory_kept:
        return
    _memory_kept = True
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, TypeError):  # not glibc (macOS, Windows): as it is
        return
    mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
    mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)


#: How often a worker checks that its parent process is alive (where the kernel cannot
#: signal it: not Linux).
PARENT_POLL_SECONDS = 0.5
#: ``prctl`` option asking Linux to send a signal to this process when its parent dies.
_PR_SET_PDEATHSIG = 1
_watchdog_started = False


def exit_with_parent(parent: int | None = None) -> None:
    """End this worker process when its parent (pid ``parent``, default the current one)
    dies; called once per process, as the loky workers' initializer and before each block.

    A killed parent (SIGKILL, or SIGTERM before its own cleanup) cannot stop its joblib
    workers, and loky keeps idle workers for minutes. On Linux the kernel kills the worker
    (``PR_SET_PDEATHSIG``), even one blocked writing a result nobody reads; elsewhere a
    daemon thread polls ``getppid()``, which changes when an orphan is re-parented.
    """
    global _watchdog_started
    if _watchdog_started:
        return
    _watchdog_started = True
    parent = os.getppid() if parent is None else parent
    if sys.platform.startswith("linux"):
        # the kernel signal needs no Python thread, but it follows the thread that started
        # the worker, which may end before the process does: the poller stays as well
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before this worker got here
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="rocsim-exit-with-parent", daemon=True).start()


@contextmanager
def _workers(backend: str | None) -> Iterator[None]:
    """loky (joblib's default) workers that end with their parent from the moment they
    start (:func:`_start_worker` as their initializer), not only after their first task."""
    if backend not in (None, "loky"):
        yield
        return
    with parallel_config(backend="loky", initializer=_start_worker, initargs=(os.getpid(),)):
        try:
            yield
        except BaseException:
            _let_stopped_queues_finish()
            raise


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Hold back SIGINT on this thread while joblib starts its workers; a Ctrl-C meanwhile is
    taken when the block ends.

    A terminal sends Ctrl-C to the whole process group. A worker that gets it while Python
    starts up (before :func:`_start_worker` ignores it) dies with a traceback, and the pool
    reports it as a lost worker. Processes inherit the signal mask of the thread that starts
    them, so the workers started here (and by the pool's manager thread, started here too)
    begin with SIGINT blocked; they never unblock it, and :func:`_start_worker` then ignores
    it. This process still stops on Ctrl-C: on another thread's behalf, or as the block ends.
    The resource trackers the pool needs are started first: starting one unblocks SIGINT on
    the calling thread (multiprocessing's, bpo-33613).
    """
    if not hasattr(signal, "pthread_sigmask"):  # not POSIX
        yield
        return
    from multiprocessing import resource_tracker

    from joblib.externals.loky.backend import resource_tracker as loky_tracker

    resource_tracker.ensure_running()
    loky_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _start_worker(parent: int) -> None:
    """A loky worker ends with ``parent`` and leaves Ctrl-C to it. A terminal sends SIGINT
    to the whole process group; a worker interrupted then prints a traceback, or dies and
    breaks the pool while the parent is stopping it. The parent stops its workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)


#: The longest wait for the queue threads of a pool joblib has just stopped; they only have
#: their locks left to release.
QUEUE_THREAD_GRACE_SECONDS = 1.0


def _let_stopped_queues_finish() -> None:
    """Wait for the feeder threads of the pool joblib stopped on an error or interruption.

    A multiprocessing queue sends its items from a daemon thread, ``QueueFeederThread``, which
    ends by itself once joblib has closed the queue and may hold the last reference to it: the
    queue's semaphores are then released in that thread, each unlinked before it is
    unregistered from loky's resource tracker. A process that exits meanwhile (the usual next
    step after an error or Ctrl-C) freezes the thread between the two, and the tracker prints
    a leaked-semaphore warning under the error line. The feeder of a pool still open never
    ends: that wait times out, and the pool is closed at exit as after any run.
    """
    deadline = time.monotonic() + QUEUE_THREAD_GRACE_SECONDS
    for thread in threading.enumerate():
        if thread.daemon and thread.name == "QueueFeederThread":
            thread.join(max(0.0, deadline - time.monotonic()))


def start_workers(n_jobs: int, preload: Iterable[str] = ()) -> Iterator[None]:
    """Start the loky workers of ``n_jobs`` now, each importing the modules named in
    ``preload`` (the study kinds, and the compiled kernels they import), and return at once: a
    caller composing its configs meanwhile finds them ready for its first study (the same
    workers :func:`run_conditions` then uses). Exhaust the returned iterator to wait.
    Called on the thread that runs the studies: a worker dies with the thread that started it
    (:func:`exit_with_parent`).

    The caller names the modules: the study kinds import the runner, which imports this
    module, so importing them from here would close an import cycle."""
    names = tuple(preload)
    with _workers(None), _ctrl_c_held():
        # a generator: the tasks are sent (and the workers started) before the call returns
        return Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(_import_modules)(names) for _ in range(effective_n_jobs(n_jobs))
        )


def _import_modules(names: tuple[str, ...]) -> None:
    for name in names:
        importlib.import_module(name)


class _ConsumerStopped(Exception):
    """Thrown into a joblib generator whose consumer stopped early."""


def _stopping_early(results: Iterator[Any]) -> Iterator[Any]:
    """The items of ``results``, a joblib generator; a consumer stopping early (an error or
    Ctrl-C in the caller) is handed to joblib as an error of its own, which stops the pool.
    Closing joblib's generator instead makes joblib warn that finished results went unused:
    a second message under the error line."""
    for item in results:
        try:
            yield item
        except GeneratorExit:
            with suppress(_ConsumerStopped):
                results.throw(_ConsumerStopped())
            raise


@contextmanager
def local_engine(n_jobs: int, backend: str | None = None) -> Iterator[Ordered]:
    """The ordered map of a joblib pool of ``n_jobs`` workers (loky's by default, or another
    joblib ``backend``): results come in the order of the calls, made as joblib asks for them,
    so memory does not grow with their number; a consumer stopping early stops the pool."""
    # loky is set up by _workers (a backend named here again would drop its initializer)
    named = None if backend in (None, "loky") else backend
    with (
        _workers(backend),
        Parallel(n_jobs=n_jobs, backend=named, return_as="generator") as parallel,
    ):

        def ordered(fn: Callable[..., Any], calls: Iterable[tuple]) -> Iterator[Any]:
            with _ctrl_c_held():  # the pool's workers start here
                results = parallel(delayed(fn)(*call) for call in calls)
            return _stopping_early(results)

        yield ordered
