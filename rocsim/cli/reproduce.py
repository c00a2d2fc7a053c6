"""``rocsim-reproduce``: every thesis study under one progress bar, and the report.

``rocsim-reproduce [--only STUDY ...] [--replications R] [...] [group=option key=value ...]``:
arguments of the form ``key=value`` are Hydra overrides applied to every study (e.g.
``interval=wald`` or a user's ``interval=mine``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import deque
from contextlib import closing
from functools import partial
from pathlib import Path

from rocsim.cli._common import (
    OneLineParser,
    allow_interruptions,
    fail,
    interruption_point,
    version_line,
)
from rocsim.cli.study import (
    ComposedAhead,
    Figures,
    check_overrides,
    compose_study,
    expand_home,
    reject_unknown_choices,
    run_and_draw,
)
from rocsim.cli.variants import check_variants, variant_runs
from rocsim.sim.configs import available_studies
from rocsim.sim.io import check_writable_folder, remove_stale_parts
from rocsim.sim.pipeline import available_conditions, plain_config, study_conditions
from rocsim.sim.workers import start_workers
from rocsim.studies import get_kind


def parser(studies: list[str]) -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="rocsim-reproduce",
        description="Reproduce the thesis's coverage studies and write an index of results. "
        "Arguments key=value are Hydra overrides applied to every study.",
    )
    thesis = [name for name in studies if is_thesis_figure(name)]
    others = [name for name in studies if not is_thesis_figure(name)]
    p.add_argument(
        "--only",
        nargs="+",
        metavar="STUDY",
        choices=studies,
        help=f"run only these studies (default: the thesis's, {', '.join(thesis)})",
    )
    p.add_argument(
        "--with-bands",
        action="store_true",
        help=f"also run the studies that are not thesis figures ({', '.join(others)}: "
        "whole-curve bands, partial AUCs, AUC intervals)",
    )
    p.add_argument(
        "--replications",
        type=int,
        default=None,
        help="replications per condition (default: each study's own, 1000 for the thesis's)",
    )
    p.add_argument("--n-jobs", type=int, default=-1)
    p.add_argument("--results-dir", type=Path, default=Path("results"))
    p.add_argument("--coverage", choices=("simulate", "exact"), default="simulate")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--version", action="version", version=version_line())
    return p


def is_thesis_figure(name: str) -> bool:
    """Whether a study overlay reproduces a figure of the thesis (``fig4_2`` ... ``fig5_12``)."""
    return name.startswith("fig")


def chosen_studies(only: list[str] | None, with_bands: bool, studies: list[str]) -> list[str]:
    """The studies a run reproduces: ``--only``'s, else the thesis's figures, and with
    ``--with-bands`` the other studies too (whole-curve bands, partial AUCs, AUC intervals).

    Examples
    --------
    >>> chosen_studies(None, False, ["fig4_2", "bands", "fig5_1"])
    ['fig4_2', 'fig5_1']
    >>> chosen_studies(None, True, ["fig4_2", "bands"])
    ['fig4_2', 'bands']
    """
    return list(only) if only else [s for s in studies if with_bands or is_thesis_figure(s)]


def reproduce(argv: list[str] | None = None) -> None:
    """Run every available thesis study (or ``--only`` some) and index the results."""
    from tqdm.auto import tqdm

    from rocsim.views.report import write_report

    argv = sys.argv[1:] if argv is None else list(argv)
    extra = expand_home([a for a in argv if "=" in a and not a.startswith("-")])
    studies = available_studies()
    p = parser(studies)
    args = p.parse_args([a for a in argv if "=" not in a or a.startswith("-")])
    args.results_dir = args.results_dir.expanduser()
    if args.replications is not None and args.replications < 1:
        p.error("--replications must be >= 1")
    if args.n_jobs == 0:  # joblib's meaning: -1 all cores, -2 all but one, ...
        p.error("--n-jobs must be a positive number of workers or negative (-1: all cores)")
    if args.seed is not None and args.seed < 0:
        p.error(f"--seed must be >= 0, got {args.seed}")
    try:
        check_writable_folder(args.results_dir, "--results-dir")
    except ValueError as err:
        p.error(str(err))
    reject_unknown_choices(extra, "rocsim-reproduce")
    check_overrides(extra, "rocsim-reproduce")  # before any worker starts
    overrides = [
        *([f"replications={args.replications}"] if args.replications is not None else []),
        f"n_jobs={args.n_jobs}",
        f"results_dir={args.results_dir}",
        f"coverage={args.coverage}",
        *([f"seed={args.seed}"] if args.seed is not None else []),
        *extra,
    ]
    names = chosen_studies(args.only, args.with_bands, studies)
    # local workers start while the configs compose, each importing the study kinds (and the
    # compiled kernels they import); a cluster run has its own workers
    local = "runner=dask" not in extra
    workers = start_workers(args.n_jobs, preload=["rocsim.studies"]) if local else iter(())
    try:
        configs = []
        for name in names:
            interruption_point()  # a Ctrl-C meanwhile stops here, between two configs
            configs.append(_compose(name, overrides))
        units = _validated(names, configs, args)
    finally:  # their start is awaited, also before a refusal ends the command
        deque(workers, maxlen=0)
    allow_interruptions()  # configured: the work begins
    # the configs of every variant run a failing claim may call for, composed meanwhile
    ahead = ComposedAhead(
        run
        for name, cfg in zip(names, configs)
        for variant in plain_config(cfg)["study"].get("variants") or []
        for run in variant_runs(name, variant, overrides, plain_config(cfg)["replications"])
    )
    started, started_at = time.perf_counter(), time.time()
    # each study's files, claims and figure are written in the background while the next
    # study computes
    with Figures() as figures, closing(ahead):
        with tqdm(
            total=sum(units),
            unit="rep",
            desc="rocsim-reproduce",
            smoothing=0.05,
            disable=not sys.stderr.isatty(),
        ) as bar:
            outputs = []
            for name, cfg in zip(names, configs):
                # a study that failed writing ends the command now, not after the rest
                _results([o for o in outputs if o.done() and o.exception() is not None])
                bar.set_postfix_str(name)
                output = run_and_draw(
                    cfg, progress_bar=bar, figures=figures, reuse_from=args.results_dir, defer=True
                )
                output.add_done_callback(partial(_report_done, name))
                outputs.append(output)
            entries = [
                _entry(name, cfg, output)
                for name, cfg, output in zip(names, configs, _results(outputs))
            ]
        figures.wait()  # the claims below update the same sets of outputs
        entries = _with_claims_and_variants(entries, overrides, args, figures, ahead.compose)
    total = time.perf_counter() - started
    md, page = write_report(args.results_dir, entries, total)
    remove_stale_parts(args.results_dir, started_at)  # of a report a killed run was writing
    print(f"all studies: {total:.1f} s; report: {page} (and {md.name})")


def runnable(cfg) -> list:
    """The study's conditions that can run here (:func:`available_conditions`, quietly: the
    run says which are left out)."""
    kind = get_kind(plain_config(cfg)["study"]["kind"])
    return available_conditions(kind, study_conditions(cfg), say=False)


def _validated(names: list[str], configs, args) -> list[int]:
    """Every study checked before any runs (one line on stderr if one is refused); the
    replications (or exact conditions) each will count on the progress bar."""
    try:
        units = [
            len(runnable(cfg))
            * (plain_config(cfg)["replications"] if args.coverage == "simulate" else 1)
            for cfg in configs
        ]
        for name, cfg in zip(names, configs):
            study = plain_config(cfg)["study"]
            claims = [c["claim"] for c in study.get("claims") or []]
            check_variants(study.get("variants") or [], claims, name)
    except ValueError as err:
        fail(str(err), "rocsim-reproduce")
    return units


def _report_done(name: str, future) -> None:
    from tqdm.auto import tqdm

    if not future.cancelled() and future.exception() is None:
        output = future.result()
        tqdm.write(f"{name}: {output.wall_seconds:6.1f} s  -> {output.directory}")


def _results(futures) -> list:
    """The studies' outputs; a bad setting found while writing them ends the command with one
    line, as it does while computing."""
    try:
        return [future.result() for future in futures]
    except ValueError as err:
        fail(str(err), "rocsim-reproduce")


def _entry(name: str, cfg, output):
    from rocsim.views.report import ReportEntry

    return ReportEntry(
        name,
        plain_config(cfg),
        output.table,
        output.directory,
        output.wall_seconds,
        claims=output.claims,
    )


def _with_claims_and_variants(entries, overrides: list[str], args, figures=None, compose=None):
    """Every study's claims evaluated once all studies ran (claims may compare studies: those
    of a study whose claims do not are the ones its run wrote), and the variant runs of the
    claims that failed (their figures drawn by ``figures``, their configs from ``compose``)."""
    from dataclasses import replace

    from rocsim.cli.variants import needed, run_variant
    from rocsim.sim.pipeline import write_claims

    done = []
    for entry in entries:
        claims = entry.claims
        if claims is None or _compares_studies(entry.cfg):
            claims = write_claims(entry.cfg, entry.directory)
        failing = set(claims.loc[~claims["holds"].astype(bool), "claim"])
        variants = needed(entry.cfg["study"].get("variants") or [], failing)
        results = []
        for variant in variants:
            print(f"{entry.name}: variant {variant['name']} ...", flush=True)
            clock = time.perf_counter()
            results.append(
                run_variant(
                    entry.name,
                    variant,
                    overrides,
                    entry.cfg["replications"],
                    args.results_dir,
                    figures,
                    compose,
                )
            )
            seconds = time.perf_counter() - clock
            print(f"{entry.name}: variant {variant['name']}: {seconds:6.1f} s", flush=True)
        done.append(replace(entry, claims=claims, variants=results))
    return done


def _compares_studies(cfg) -> bool:
    """Whether a claim of the study compares it with another study (``versus: {study: ...}``)."""
    claims = cfg["study"].get("claims") or []
    return any((claim["check"].get("versus") or {}).get("study") for claim in claims)


def _compose(name: str, overrides: list[str]):
    """The study's config, or one line on stderr if an override does not compose."""
    try:
        return compose_study(name, overrides)
    except Exception as err:  # Hydra's composition errors share no public base class
        fail(f"{name}: {str(err).splitlines()[0]}", "rocsim-reproduce")
