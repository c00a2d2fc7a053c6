"""Command-line entry points.

``rocsim study=<name> [overrides...]`` runs one study through Hydra (``-m`` sweeps too);
``rocsim analyze data.csv --label y --score a [--score b]`` analyses a user's classifiers;
``rocsim-reproduce`` runs every thesis study under one progress bar and writes
``<results_dir>/index.html`` and ``index.md`` (:mod:`rocsim.report`).
Bad input ends with one line on stderr and a non-zero exit, before any result is written.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tqdm.auto import tqdm

from rocsim.pipeline import (
    CONFIG_DIR,
    available_studies,
    plain_config,
    run_study,
    study_conditions,
)
from rocsim.report import ReportEntry, write_report

EXIT_BAD_INPUT = 2


def _fail(message: str) -> None:
    print(f"rocsim: error: {message}", file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def _study_job(cfg) -> None:
    """Body of ``rocsim``: run the composed study, into its own folder in a sweep."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    out_dir = None
    hydra_cfg = HydraConfig.get()
    if hydra_cfg.mode == RunMode.MULTIRUN and cfg.study.name:
        job = hydra_cfg.job.override_dirname or f"job{hydra_cfg.job.num}"
        out_dir = Path(cfg.results_dir) / cfg.study.name / job.replace("/", "_")
    try:
        output = run_study(cfg, out_dir)
    except ValueError as err:
        _fail(str(err))
    print(f"{cfg.study.name}: wrote {output.directory} in {output.wall_seconds:.1f} s")


def main() -> None:
    """``rocsim`` console script: ``rocsim analyze ...`` (:mod:`rocsim.cli_analyze`), else a
    study through a thin ``@hydra.main``."""
    if sys.argv[1:2] == ["analyze"]:
        from rocsim.cli_analyze import main as analyze

        analyze(sys.argv[2:])
        return
    import hydra

    _reject_unknown_choices(sys.argv[1:])
    decorated = hydra.main(version_base=None, config_path=str(CONFIG_DIR),
                           config_name="config")(_study_job)
    decorated()


def _reject_unknown_choices(args: list[str]) -> None:
    """Answer ``group=option`` with an unknown option in one line listing the valid ones."""
    for arg in args:
        if "=" not in arg or arg.startswith(("-", "+", "~", "hydra")):
            continue
        group, _, values = arg.partition("=")
        folder = CONFIG_DIR / group
        if "." in group or not folder.is_dir():
            continue
        valid = sorted(p.stem for p in folder.glob("*.yaml"))
        for value in values.split(","):
            if value not in valid and value != "null":
                _fail(f"unknown {group} {value!r}; valid: {', '.join(valid)}")


def compose_study(name: str, overrides: list[str] | None = None):
    """The resolved config of study ``name`` with Hydra ``overrides`` (compose API)."""
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
        return compose("config", overrides=[f"study={name}", *(overrides or [])])


def reproduce(argv: list[str] | None = None) -> None:
    """``rocsim-reproduce``: run every available thesis study and index the results."""
    studies = available_studies()
    parser = argparse.ArgumentParser(
        prog="rocsim-reproduce",
        description="Reproduce the thesis's coverage studies and write an index of results.",
    )
    parser.add_argument("--only", nargs="+", metavar="STUDY", choices=studies,
                        help=f"run only these studies (default: all of {', '.join(studies)})")
    parser.add_argument("--replications", type=int, default=1000)
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--results-dir", type=Path, default=Path("results"))
    parser.add_argument("--coverage", choices=("simulate", "exact"), default="simulate")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    if args.replications < 1:
        parser.error("--replications must be >= 1")
    overrides = [
        f"replications={args.replications}",
        f"n_jobs={args.n_jobs}",
        f"results_dir={args.results_dir}",
        f"coverage={args.coverage}",
    ]
    if args.seed is not None:
        overrides.append(f"seed={args.seed}")
    names = args.only or studies
    configs = [compose_study(name, overrides) for name in names]
    try:  # validate every study before running any
        units = [len(study_conditions(cfg)) * (args.replications if args.coverage == "simulate"
                                               else 1) for cfg in configs]
    except ValueError as err:
        _fail(str(err))
    entries = []
    started = time.perf_counter()
    with tqdm(total=sum(units), unit="rep", desc="rocsim-reproduce", smoothing=0.05,
              disable=not sys.stderr.isatty()) as bar:
        for name, cfg in zip(names, configs):
            bar.set_postfix_str(name)
            try:
                output = run_study(cfg, progress_bar=bar)
            except ValueError as err:
                _fail(f"{name}: {err}")
            tqdm.write(f"{name}: {output.wall_seconds:6.1f} s  -> {output.directory}")
            entries.append(ReportEntry(name, plain_config(cfg), output.table,
                                       output.directory, output.wall_seconds))
    total = time.perf_counter() - started
    md, page = write_report(args.results_dir, entries, total)
    print(f"all studies: {total:.1f} s; report: {page} (and {md.name})")
