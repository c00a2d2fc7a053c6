"""Command-line entry points (the top layer: simulation, views and the practitioner API).

``rocsim study=<name> [overrides...]`` runs one study through Hydra (``-m`` sweeps too);
``rocsim analyze data.csv --label y --score a [--score b]`` analyses a user's classifiers;
``rocsim replay <overrides> --condition LABEL --replication R`` draws one data set of a study
again (a failure a run recorded, :mod:`rocsim.cli.replay`);
``rocsim-reproduce`` runs every thesis study under one progress bar and writes
``<results_dir>/index.html`` and ``index.md`` (:mod:`rocsim.views.report`).
Bad input ends with one line on stderr and a non-zero exit, before any result is written.

Each command imports what it needs when it runs, so ``rocsim analyze`` never loads Hydra.
"""

from __future__ import annotations

import sys


def main() -> None:
    """``rocsim`` console script: ``rocsim analyze ...``, ``rocsim --version``, else a study
    through Hydra. Ctrl-C and SIGTERM end it with one line (:func:`run_command`), from its
    first moment (every import happens inside the handler) to its last: once the work is
    done, they are ignored while the process exits."""
    _hold_interruptions()
    from rocsim.cli._common import run_command

    args = sys.argv[1:]
    prog = f"rocsim {args[0]}" if args[:1] in (["analyze"], ["replay"]) else "rocsim"
    run_command(lambda: _rocsim(args), prog, ends_process=True)


def _hold_interruptions() -> None:
    """Block Ctrl-C and SIGTERM until :func:`rocsim.cli._common.run_command` has its
    handlers (it unblocks them): importing it runs Python code, where a Ctrl-C printed a
    ``KeyboardInterrupt`` traceback. ``_signal``, the C module the interpreter loads at
    start, is already imported; ``signal`` would run Python code to import."""
    import _signal

    if hasattr(_signal, "pthread_sigmask"):  # POSIX; on Windows the moment stays open
        _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGINT, _signal.SIGTERM})


def _rocsim(args: list[str]) -> None:
    from rocsim.cli._common import prepare_process, version_line

    if args[:1] == ["--version"]:
        print(version_line())
        return
    prepare_process()
    if args[:1] == ["analyze"]:
        from rocsim.cli.analyze import main as analyze

        analyze(args[1:])
        return
    if args[:1] == ["replay"]:
        from rocsim.cli.replay import main as replay

        replay(args[1:])
        return
    from rocsim.cli.study import run

    run(args)


def reproduce(argv: list[str] | None = None) -> None:
    """``rocsim-reproduce`` console script (:func:`rocsim.cli.reproduce.reproduce`); Ctrl-C
    and SIGTERM as in :func:`main`."""
    _hold_interruptions()
    from rocsim.cli._common import run_command

    run_command(lambda: _reproduce(argv), "rocsim-reproduce", ends_process=True)


def _reproduce(argv: list[str] | None) -> None:
    from rocsim.cli._common import prepare_process
    from rocsim.cli.reproduce import reproduce as run

    prepare_process()
    run(argv)


def compose_study(name: str, overrides: list[str] | None = None):
    """The resolved config of study ``name`` with Hydra ``overrides`` (compose API)."""
    from rocsim.cli.study import compose_study as compose

    return compose(name, overrides)


def available_studies() -> list[str]:
    """Names of the studies rocsim and the user's config folders define."""
    from rocsim.sim.configs import available_studies as studies

    return studies()
