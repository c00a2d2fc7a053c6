"""Command-line entry points.

``rocsim study=<name> [overrides...]`` runs one study through Hydra (``-m`` sweeps too);
``rocsim-reproduce`` runs every thesis study and writes ``<results_dir>/index.md``.
Bad input ends with one line on stderr and a non-zero exit, before any result is written.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rocsim.pipeline import CONFIG_DIR, available_studies, run_study

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
    """``rocsim`` console script (a thin ``@hydra.main``)."""
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
    done = []
    started = time.perf_counter()
    for name in args.only or studies:
        cfg = compose_study(name, overrides)
        try:
            output = run_study(cfg)
        except ValueError as err:
            _fail(f"{name}: {err}")
        print(f"{name}: {output.wall_seconds:6.1f} s  -> {output.directory}", flush=True)
        done.append((name, cfg, output))
    total = time.perf_counter() - started
    write_index(args.results_dir, done, total)
    print(f"all studies: {total:.1f} s; index: {args.results_dir / 'index.md'}")


def write_index(results_dir: Path, done, total_seconds: float) -> Path:
    """Write ``index.md`` linking each study's figure and coverage table."""
    from rocsim.runner import atomic_write

    lines = ["# rocsim: reproduced studies", "",
             f"Total wall time: {total_seconds:.1f} s.", ""]
    for name, cfg, output in done:
        table = output.table
        rel = output.directory.relative_to(results_dir) if output.directory.is_relative_to(
            results_dir) else output.directory
        lines += [
            f"## {cfg.study.title or name}", "",
            f"{cfg.study.caption or ''}", "",
            f"Interval method `{cfg.interval.method}`, level {cfg.confidence_level:g}, "
            f"{cfg.coverage} coverage, {cfg.replications} replications, seed {cfg.seed}; "
            f"wall time {output.wall_seconds:.1f} s.", "",
            f"![{name}]({rel}/coverage.png)", "",
            f"Table: [{rel}/coverage.csv]({rel}/coverage.csv) "
            f"(PDF figure: [{rel}/coverage.pdf]({rel}/coverage.pdf))", "",
            _condition_summary(table), "",
        ]
    path = Path(results_dir) / "index.md"
    atomic_write(path, lambda p: p.write_text("\n".join(lines)))
    return path


def _condition_summary(table) -> str:
    rows = ["| condition | mean coverage | min coverage (at x) | mean MCSE |",
            "|---|---|---|---|"]
    for label, part in table.groupby("condition", sort=False):
        worst = part["coverage"].idxmin()
        rows.append(f"| {label} | {part['coverage'].mean():.4f} | "
                    f"{part.loc[worst, 'coverage']:.4f} ({part.loc[worst, 'x']:g}) | "
                    f"{part['mcse'].mean():.4f} |")
    return "\n".join(rows)
