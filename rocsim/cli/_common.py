"""What every command does first, and how it fails."""

from __future__ import annotations

import argparse
import atexit
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import NoReturn

EXIT_BAD_INPUT = 2
#: Exit status of a run stopped by something outside rocsim (:class:`rocsim.sim.errors.RunError`).
EXIT_FAILURE = 1
#: Exit statuses of a run stopped by SIGINT (Ctrl-C) or SIGTERM: 128 + the signal number,
#: as a shell reports a process the signal killed.
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like ``KeyboardInterrupt`` for SIGINT, so that the
    same cleanup (joblib stops its workers, ``.part`` files are removed) runs."""


def run_command(body: Callable[[], None], prog: str) -> None:
    """Run a command's ``body``; an interruption ends it with one line and the status a
    shell expects, instead of a traceback (of the main process and its joblib workers).

    Until the body calls :func:`allow_interruptions` (once its imports and configs are done),
    Ctrl-C and SIGTERM are only noted: raised in the middle of an import or of Hydra's
    composition, an interruption can come out as another library's error, with a traceback.
    Finished conditions are cached and outputs are written as whole sets, so rerunning the
    same command resumes.
    """
    from rocsim.sim.errors import RunError

    global _noted
    _noted = None
    previous = {sig: signal.signal(sig, _note_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        body()
        interruption_point()  # one noted while the body was not allowing them
    except RunError as err:
        fail(str(err), prog, EXIT_FAILURE)
    except KeyboardInterrupt:
        _stop(prog, "interrupted", EXIT_INTERRUPTED)
    except Terminated:
        _stop(prog, "terminated", EXIT_TERMINATED)
    except BaseException:
        if _noted is not None:  # an interruption some library turned into its own error
            _stop(prog, *_STOPS[_noted])
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    _at_process_exit(_ignore_interruptions)


#: The signal :func:`run_command` noted while interruptions were held back (or ``None``).
_noted: int | None = None
_STOPS = {
    signal.SIGINT: ("interrupted", EXIT_INTERRUPTED),
    signal.SIGTERM: ("terminated", EXIT_TERMINATED),
}


def _note_signal(signum, frame) -> None:
    global _noted
    _noted = signum


def interruption_point() -> None:
    """Raise the interruption :func:`run_command` noted, if any (a place where stopping is
    clean: between two imports, two configs)."""
    if _noted == signal.SIGINT:
        raise KeyboardInterrupt
    if _noted == signal.SIGTERM:
        raise Terminated


def allow_interruptions() -> None:
    """From now on Ctrl-C and SIGTERM stop the command at once (the work has begun: the
    runner stops its workers and keeps what is finished); one noted before is raised now."""
    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_terminated)
    interruption_point()


def _ignore_interruptions() -> None:
    """Ctrl-C and SIGTERM ignored from here on: the process is exiting after a command's work
    was done and written, and the interpreter is closing joblib's worker pool, where an
    interruption would print a traceback and stop nothing."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _at_process_exit(hook: Callable[[], None]) -> None:
    """Run ``hook`` first when the process exits (a command called from Python keeps its
    signals until then): threading's exit hooks run, latest registered first, before the
    interpreter joins the pool's threads; ``atexit``'s only after (the fallback)."""
    register = getattr(threading, "_register_atexit", None)
    (register or atexit.register)(hook)


def _raise_terminated(signum, frame) -> NoReturn:
    raise Terminated


def _stop(prog: str, what: str, status: int) -> NoReturn:
    # a second Ctrl-C while joblib shuts its workers down must not print a traceback either
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print(f"{prog}: {what}; rerun the same command to resume", file=sys.stderr, flush=True)
    sys.stderr.flush()
    sys.exit(status)


class OneLineParser(argparse.ArgumentParser):
    """``argparse`` whose errors are one line (its own print the usage first)."""

    def error(self, message: str) -> NoReturn:
        fail(message, self.prog)


def fail(message: str, prog: str = "rocsim", status: int = EXIT_BAD_INPUT) -> NoReturn:
    """One line on stderr and exit ``status`` (2: bad input)."""
    print(f"{prog}: error: {message}", file=sys.stderr, flush=True)
    sys.exit(status)


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
