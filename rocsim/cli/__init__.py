"""Command-line entry points (the top layer: simulation, views and the practitioner API).

``rocsim study=<name> [overrides...]`` runs one study through Hydra (``-m`` sweeps too);
``rocsim analyze data.csv --label y --score a [--score b]`` analyses a user's classifiers;
``rocsim-reproduce`` runs every thesis study under one progress bar and writes
``<results_dir>/index.html`` and ``index.md`` (:mod:`rocsim.views.report`).
Bad input ends with one line on stderr and a non-zero exit, before any result is written.

Each command imports what it needs when it runs, so ``rocsim analyze`` never loads Hydra.
"""

from __future__ import annotations

import sys


def main() -> None:
    """``rocsim`` console script: ``rocsim analyze ...``, ``rocsim --version``, else a study
    through Hydra. Ctrl-C and SIGTERM end it with one line (:func:`run_command`)."""
    from rocsim.cli._common import prepare_process, run_command, version_line

    args = sys.argv[1:]
    if args[:1] == ["--version"]:
        print(version_line())
        return
    prepare_process()
    if args[:1] == ["analyze"]:
        from rocsim.cli.analyze import main as analyze

        run_command(lambda: analyze(args[1:]), "rocsim analyze")
        return
    from rocsim.cli.study import run

    run_command(lambda: run(args), "rocsim")


def reproduce(argv: list[str] | None = None) -> None:
    """``rocsim-reproduce`` console script (:func:`rocsim.cli.reproduce.reproduce`)."""
    from rocsim.cli._common import prepare_process, run_command
    from rocsim.cli.reproduce import reproduce as run

    prepare_process()
    run_command(lambda: run(argv), "rocsim-reproduce")


def compose_study(name: str, overrides: list[str] | None = None):
    """The resolved config of study ``name`` with Hydra ``overrides`` (compose API)."""
    from rocsim.cli.study import compose_study as compose

    return compose(name, overrides)


def available_studies() -> list[str]:
    """Names of the studies rocsim and the user's config folders define."""
    from rocsim.sim.configs import available_studies as studies

    return studies()
