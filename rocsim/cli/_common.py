"""What every command does first, and how it fails."""

from __future__ import annotations

import _thread
import argparse
import atexit
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import CodeType, FrameType
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


def run_command(body: Callable[[], None], prog: str, *, ends_process: bool = False) -> None:
    """Run a command's ``body``; an interruption ends it with one line and the status a
    shell expects, instead of a traceback (of the main process and its joblib workers).

    Until the body calls :func:`allow_interruptions` (once its imports and configs are done),
    Ctrl-C and SIGTERM are only noted: raised in the middle of an import or of Hydra's
    composition, an interruption can come out as another library's error, with a traceback.
    Finished conditions are cached and outputs are written as whole sets, so rerunning the
    same command resumes.

    Parameters
    ----------
    body : callable
        The command's work.
    prog : str
        The command's name, first on its one line.
    ends_process : bool, default False
        The command is the process's (a console script, which exits when it returns): from
        the moment its work is done, failed or stopped, Ctrl-C and SIGTERM are ignored, with
        no moment in between where they could raise while the interpreter exits (its exit
        hooks printed ``Exception ignored in ... KeyboardInterrupt``); an interruption raised
        where it cannot propagate (a ``__del__``) is sent again instead of printed and lost;
        and signals the console script held back (``rocsim.cli._hold_interruptions``) are
        let through, to be noted. Otherwise the caller's handlers are restored on return,
        and the interruptions are ignored only once the process exits.
    """
    global _noted, _ends_process
    _noted, _ends_process = None, ends_process
    previous = {sig: signal.signal(sig, _note_signal) for sig in _SIGNALS}
    if ends_process:
        _let_signals_through()
        _send_unraisable_interruptions_again()
    try:
        _run(body, prog)
    finally:
        if ends_process:
            _ignore_interruptions()  # whatever ended the body: the process exits next
        else:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    if not ends_process:
        _at_process_exit(_ignore_interruptions)


def _run(body: Callable[[], None], prog: str) -> None:
    """``body``, its failures and interruptions each ended in one line."""
    from rocsim.sim.errors import RunError

    try:
        body()
        interruption_point()  # one noted while the body was not allowing them
        if _ends_process:  # inside the try: a signal before it is caught below
            _ignore_interruptions()
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


#: The signals a command handles: Ctrl-C and ``kill``'s default.
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: Whether the running command is its process's (:func:`run_command`'s ``ends_process``).
_ends_process = False


def _let_signals_through() -> None:
    """Unblock the signals the console script blocked before its imports: one sent meanwhile
    is delivered now, to :func:`_note_signal`."""
    if hasattr(signal, "pthread_sigmask"):  # POSIX; Windows blocks none
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)


def _send_unraisable_interruptions_again() -> None:
    """A Ctrl-C that lands in code whose exceptions Python cannot propagate (a ``__del__``,
    a weakref callback) was printed as ``Exception ignored in ...`` with a traceback, and
    the command ran on: the signal is sent again, to stop the command where it can (or to be
    ignored, once the work is done)."""
    previous = sys.unraisablehook

    def hook(unraisable) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt | Terminated):
            previous(unraisable)
            return
        terminated = isinstance(unraisable.exc_value, Terminated)
        signum = signal.SIGTERM if terminated else signal.SIGINT
        # sent by a thread once this hook has returned: a handler run in here would raise
        # where nothing catches it either
        threading.Thread(target=_send_out_of, args=(hook.__code__, signum), daemon=True).start()

    sys.unraisablehook = hook


def _send_out_of(code: CodeType, signum: int) -> None:
    """Send ``signum`` to the main thread once it no longer runs ``code`` (or after a
    second): to the thread itself, so that a wait it is in (a sleep, a join) is cut short
    as by a Ctrl-C, where ``raise_signal`` would signal this thread."""
    main = threading.main_thread().ident
    for _ in range(1000):
        if not _runs(sys._current_frames().get(main), code):
            break
        time.sleep(0.001)
    if hasattr(signal, "pthread_kill"):
        signal.pthread_kill(main, signum)
    else:  # Windows: the handler runs once the main thread's wait ends
        _thread.interrupt_main(signum)


def _runs(frame: FrameType | None, code: CodeType) -> bool:
    """Whether ``code`` is on the stack that ``frame`` tops."""
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


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
    for sig in _SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


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
    _ignore_interruptions()
    print(f"{prog}: {what}; rerun the same command to resume", file=sys.stderr, flush=True)
    sys.stderr.flush()
    sys.exit(status)


class OneLineParser(argparse.ArgumentParser):
    """``argparse`` whose errors are one line (its own print the usage first)."""

    def error(self, message: str) -> NoReturn:
        fail(message, self.prog)


def fail(message: str, prog: str = "rocsim", status: int = EXIT_BAD_INPUT) -> NoReturn:
    """One line on stderr and exit ``status`` (2: bad input)."""
    if _ends_process:  # a Ctrl-C after this line would add its own
        _ignore_interruptions()
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
