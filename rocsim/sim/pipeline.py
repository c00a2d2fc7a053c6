"""From a study config to its results: conditions, the shared runner, tables, metadata, plots.

Config-format agnostic: it takes a plain mapping (the CLI passes the resolved Hydra config),
so tests and notebooks can call :func:`run_study` directly.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rocsim.core._validation import SCHEMES, check_choice, check_confidence_level
from rocsim.core.cost import COST_PRIORS, THRESHOLD_RULES
from rocsim.core.intervals import check_pseudo_count
from rocsim.core.methods import check_method_function
from rocsim.sim.claims import check_claims, evaluate_claims, load_study_data
from rocsim.sim.conditions import Condition, expand_conditions
from rocsim.sim.configs import available_studies
from rocsim.sim.errors import RunError, note
from rocsim.sim.extensions import build_model, method_label, method_spec, resolve_method
from rocsim.sim.failures import failure_table, replay_command, run_overrides, write_failures
from rocsim.sim.io import (
    acquire_folder,
    atomic_write,
    begin_set,
    changed_files,
    check_set,
    check_writable_folder,
    release_folder,
    remove_stale_parts,
    seal_set,
    sealed_files,
    update_set,
    write_outcomes,
)
from rocsim.sim.models import PairedScoreModel
from rocsim.sim.provenance import blas_threads, code_hash, extension_hash, git_state, views_hash
from rocsim.sim.runner import (
    COVERAGE_MODES,
    RunResult,
    TooManyFailures,
    backend_context,
    run_conditions,
)
from rocsim.studies import get_kind

#: Files a study run may write: all are removed before a new set is written, so a file
#: another run wrote never stays beside the new ones.
OUTPUT_FILES = (
    "coverage.csv",
    "coverage.parquet",
    "outcomes.npz",
    "meta.json",
    "claims.csv",
    "failures.csv",
    "coverage.png",
    "coverage.pdf",
)
PACKAGES = (
    "rocsim",
    "numpy",
    "scipy",
    "pandas",
    "hydra-core",
    "joblib",
    "matplotlib",
    "pyarrow",
    "tqdm",
    "threadpoolctl",
)


@dataclass
class StudyOutput:
    """Where a study's results went and the run behind them."""

    directory: Path
    run: RunResult
    wall_seconds: float
    claims: pd.DataFrame | None = None
    figure_kept: bool = False  # the figure of the previous set, drawn from the same table

    @property
    def table(self) -> pd.DataFrame:
        return self.run.table


def base_settings(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Settings shared by all conditions of the study described by ``cfg``."""
    model, interval = cfg["model"], cfg["interval"]
    if "method" not in interval and not interval.get("_target_"):
        raise ValueError(
            "an interval config needs `method:` (a built-in method's name) or "
            "`_target_:` (a function of yours)"
        )
    settings = {
        "model": {k: model[k] for k in model if k != "variables"},
        "variables": dict(model.get("variables") or {}),
        "n": cfg["size"]["n"],
        "pi": cfg["size"]["pi"],
        "method": method_label(interval),
        "pseudo_count": interval.get("pseudo_count"),
        "confidence_level": cfg["confidence_level"],
        "grid": dict(cfg["grid"]),
        "bootstrap": cfg["bootstrap"]["scheme"],
        "sampling": cfg["sampling"]["scheme"],
        "threshold": cfg["threshold"]["rule"],
        "cost_prior": cfg["cost_prior"],
    }
    if interval.get("bandwidth_scale") is not None:  # kernel intervals (figures 4.6-4.8)
        settings["bandwidth_scale"] = interval["bandwidth_scale"]
    spec = method_spec(interval)
    if spec:  # only then, so that built-in conditions keep their cache keys
        settings["method_target"] = spec
    return settings


def study_conditions(cfg: Mapping[str, Any]) -> list[Condition]:
    """Every condition of the study, validated before anything runs."""

    cfg = plain_config(cfg)
    study = cfg["study"]
    if not study.get("name") or not study.get("kind"):
        raise ValueError(
            f"no study chosen; pass study=<name>, one of: {', '.join(available_studies())}"
        )
    kind = get_kind(study["kind"])
    conditions = expand_conditions(
        study["name"],
        dict(study.get("axes") or {}),
        base_settings(cfg),
        dict(study.get("models") or {}),
    )
    _check_method_axis(study, cfg["interval"])
    check_claims(study.get("claims") or [], [*(study.get("axes") or {}), "method"], study["name"])
    for condition in conditions:
        validate_settings(condition.settings, kind)
    return conditions


def available_conditions(kind, conditions: list[Condition], say: bool = True) -> list[Condition]:
    """The conditions ``kind`` can run on this machine: a kind's optional ``unavailable(
    condition)`` says why one cannot (an optional comparator not installed); those are left
    out, with one line per reason (``say``)."""
    reasons = {c.label: kind.unavailable(c) for c in conditions}
    for reason in dict.fromkeys(r for r in reasons.values() if r) if say else ():
        left = sum(r == reason for r in reasons.values())
        note(f"{reason} ({left} condition{'s' if left > 1 else ''})")
    kept = [c for c in conditions if not reasons[c.label]]
    if not kept:
        raise ValueError(
            "none of the study's conditions can run here: "
            + "; ".join(dict.fromkeys(r for r in reasons.values() if r))
        )
    return kept


def _check_method_axis(study: Mapping[str, Any], interval: Mapping[str, Any]) -> None:
    """A study that compares methods along an axis runs the user's method only if the axis
    names it; say so rather than silently leave it out."""
    axis = list((study.get("axes") or {}).get("method") or [])
    label = method_label(interval) if interval.get("_target_") else None
    if axis and label and label not in axis:
        raise ValueError(
            f"study {study['name']} compares the methods of its axis "
            f"({', '.join(axis)}); to run {label!r} add it: "
            f"'study.axes.method=[{','.join([*axis, label])}]'"
        )


def validate_settings(s: Mapping[str, Any], kind) -> None:
    """Raise ``ValueError`` naming the first bad setting of a condition of study ``kind``."""
    check_confidence_level(s["confidence_level"])
    if s.get("method_target"):  # the user's function, called as the kind's protocol says
        if kind.protocol is None:
            raise ValueError(f"study kind {type(kind).__name__} takes no user method")
        check_method_function(resolve_method(s["method_target"]), kind.protocol)
    elif kind.methods is not None:
        check_choice(s["method"], kind.methods, "interval method")
    interval_kind = kind.protocol.kind if kind.protocol is not None else "proportion"
    check_pseudo_count(s["method"], s["pseudo_count"], interval_kind)
    build_model(s["model"])
    check_choice(s["bootstrap"], kind.bootstraps, "bootstrap scheme")
    check_choice(s["sampling"], SCHEMES, "sampling scheme")
    check_choice(s["threshold"], THRESHOLD_RULES, "threshold rule")
    check_choice(s["cost_prior"], COST_PRIORS, "cost_prior")
    _positive_int(s["n"], "n")
    pi = s["pi"]
    if isinstance(pi, bool) or not isinstance(pi, int | float) or not 0 < pi < 1:
        raise ValueError(f"pi must be a number in (0, 1), got {pi!r}")


def run_study(
    cfg: Mapping[str, Any],
    out_dir: Path | None = None,
    progress_bar=None,
    draw: Callable[[pd.DataFrame, dict, Path], list[Path]] | None = None,
    reuse_from: Path | None = None,
    finish_in: Callable[[Callable[[], StudyOutput]], Future] | None = None,
) -> StudyOutput | Future:
    """Run the study of ``cfg`` and write its results.

    Writes ``coverage.csv``, ``coverage.parquet``, ``outcomes.npz`` (simulated coverage),
    ``meta.json``, ``claims.csv`` (:func:`write_claims`) and what ``draw(table, cfg,
    out_dir)`` writes (the views' :func:`rocsim.views.figures.save_study_figure`: the figure)
    to ``out_dir`` (default ``<results_dir>/<study>``) as one set (:func:`rocsim.sim.io.
    begin_set`), only once every condition is done: ``manifest.json`` is written last, and a
    folder without it holds an interrupted run's files. Finished conditions are cached in
    ``out_dir/.cache`` so an interrupted run resumes where it stopped, and the ``.part`` files
    a killed run left there are removed. ``progress_bar`` (a tqdm bar) is advanced instead of
    the run's own bar, so that several studies share one. The folder is checked writable
    before any work. With ``reuse_from`` (a results folder: ``rocsim-reproduce``'s), conditions
    that another study under it has already run with the same outcome key (the same data
    analysed the same way, :func:`rocsim.sim.runner.outcome_key`) are taken from its cache.

    Returns the :class:`StudyOutput`; with ``finish_in`` (``finish_in(fn)`` runs ``fn`` in the
    background and returns its future), everything after the computation (the tables, files,
    claims and figure) is handed to it and the future of the :class:`StudyOutput` is returned
    at once, so that a caller can start the next study's computation meanwhile.
    """
    started, started_at = time.perf_counter(), time.time()
    cfg = plain_config(cfg)
    conditions = study_conditions(cfg)  # first: it names the studies when none is chosen
    kind = get_kind(cfg["study"]["kind"])
    conditions = available_conditions(kind, conditions)
    check_choice(cfg["coverage"], COVERAGE_MODES, "coverage mode")
    replications = _positive_int(cfg["replications"], "replications")
    _nonnegative_int(cfg["seed"], "seed")
    _int(cfg["n_jobs"], "n_jobs")
    out_dir = Path(out_dir or Path(cfg["results_dir"]) / cfg["study"]["name"])
    check_writable_folder(out_dir, "results_dir")
    lock = acquire_folder(out_dir)  # until the outputs are written, in whichever thread
    try:
        edited = _say_if_edited(out_dir)
        code = _code_tags(conditions, cfg["study"]["kind"])
        run, exact = _compute(
            cfg, kind, conditions, replications, out_dir, code, progress_bar, reuse_from
        )
    except TooManyFailures as err:
        release_folder(lock, unused=True)
        command = replay_command(run_overrides(cfg), err.condition, err.failure)
        raise RunError(f"{err}; replay it: {command}") from None
    except BaseException:
        release_folder(lock, unused=True)
        raise
    wall = time.perf_counter() - started

    def finish() -> StudyOutput:
        try:
            table = _with_columns(run.table, conditions, kind.grid, cfg["coverage"])
            if cfg["coverage"] == "simulate":
                rows = table.groupby("condition", sort=False).size()
                table["exact_coverage"] = np.concatenate(
                    [exact.get(label, np.full(size, np.nan)) for label, size in rows.items()]
                )
            run.table = table
            data_keys = {c.label: c.data_key(kind.data_settings) for c in conditions}
            csv = table.to_csv(index=False)
            figure = _figure_key(csv, cfg, code)
            kept = _drawn_figure(out_dir, figure, edited)  # read before begin_set removes it
            begin_set(out_dir, OUTPUT_FILES)
            names = _write_outputs(out_dir, csv, table, cfg, run, wall, code, data_keys, figure)
            if (cfg.get("runner") or {}).get("on_error") == "record":
                names.append(_record_failures(out_dir, cfg, conditions, run))
            claims = evaluate_study_claims(cfg, out_dir)
            atomic_write(out_dir / "claims.csv", lambda p: claims.to_csv(p, index=False))
            names.append("claims.csv")
            for name, data in kept.items():
                atomic_write(out_dir / name, lambda p, d=data: p.write_bytes(d))
            names += list(kept)
            if draw is not None and not kept:
                names += [Path(p).name for p in draw(table, cfg, out_dir)]
            seal_set(out_dir, names)
            for folder in (out_dir, out_dir / ".cache"):
                remove_stale_parts(folder, started_at)
            return StudyOutput(out_dir, run, wall, claims, figure_kept=bool(kept))
        finally:
            release_folder(lock)

    if finish_in is None:
        return finish()
    try:
        return finish_in(finish)
    except BaseException:  # never handed over: finish will not release the folder
        release_folder(lock)
        raise


def _record_failures(out_dir: Path, cfg, conditions: list[Condition], run: RunResult) -> str:
    """``failures.csv`` (a row per failed data set, with the command that replays it) and a
    line per condition with failures, naming its share and the command of its first."""
    overrides = run_overrides(cfg)
    table = failure_table(conditions, run.failures, overrides)
    write_failures(out_dir / "failures.csv", table, atomic_write)
    for condition in conditions:
        failed = run.failures.get(condition.label)
        if failed:
            share = len(failed) / (len(failed) + int(cfg["replications"]))
            note(
                f"{condition.label}: {len(failed)} data sets failed ({share:.1%}, drawn again); "
                f"replay the first: {replay_command(overrides, condition, failed[0])}"
            )
    return "failures.csv"


def _say_if_edited(out_dir: Path) -> list[str]:
    """One line if a file of the folder's sealed outputs was changed since its run wrote it
    (edited by hand, say): the run is about to write them all again. Returns those files
    (:func:`rocsim.sim.io.changed_files`; the folder is the run's from now on)."""
    edited = changed_files(out_dir)
    if edited:
        note(
            f"{out_dir / edited[0]} was changed since its run wrote it; writing the study's "
            "outputs again"
        )
    return edited


#: The files of a study's figure (:func:`rocsim.views.figures.save_study_figure`).
FIGURE_FILES = ("coverage.png", "coverage.pdf")

#: Settings that do not change a study's figure (nor its table): where and how it ran.
_NOT_DRAWN = ("n_jobs", "results_dir", "runner")


def _figure_key(csv: str, cfg: Mapping[str, Any], code) -> str:
    """What a study's figure is drawn from: its table (``coverage.csv``'s text), its settings
    but where and how it ran, the code that computed the table and the code that draws it
    (:func:`rocsim.sim.provenance.views_hash`)."""
    settings = {k: v for k, v in cfg.items() if k not in _NOT_DRAWN}
    digest = hashlib.sha256(csv.encode())
    digest.update(json.dumps(settings, sort_keys=True, default=str).encode())
    digest.update(json.dumps(code, sort_keys=True).encode() + views_hash().encode())
    return digest.hexdigest()


def _drawn_figure(out_dir: Path, key: str, edited: list[str]) -> dict[str, bytes]:
    """The figure files of the complete set in ``out_dir`` if none of its files was
    ``edited`` and they were drawn from what ``key`` says (their run's ``meta.json`` records
    it, whoever drew them into the set): drawing the same figure again gives the same
    picture, at a cost that dominates a rerun whose outcomes are all cached. Empty
    otherwise."""
    if edited or not set(sealed_files(out_dir)).issuperset(FIGURE_FILES):
        return {}
    try:
        drawn_from = json.loads((out_dir / "meta.json").read_text()).get("figure_key")
    except (ValueError, OSError):
        return {}
    if drawn_from != key:
        return {}
    return {name: (out_dir / name).read_bytes() for name in FIGURE_FILES}


def _code_tags(conditions: list[Condition], kind: Any = None) -> dict[str, str | None]:
    """The hashes of the code that computes the conditions: rocsim's and the user's own
    methods', models' and study kind's (``kind``: the config's entry;
    :mod:`rocsim.sim.provenance`)."""
    extensions = extension_hash((c.settings for c in conditions), kind)
    return {"code_hash": code_hash(), "extension_hash": extensions or None}


def _compute(cfg, kind, conditions, replications, out_dir, code, progress_bar, reuse_from):
    """The study's run (:func:`rocsim.sim.runner.run_conditions`) and, for simulated
    coverage, the exact coverage beside it where the kind has it (by condition label)."""
    runner = cfg.get("runner", {})
    common = {
        "seed": int(cfg["seed"]),
        "n_jobs": int(cfg["n_jobs"]),
        "backend": runner.get("backend"),
        "cache_dir": out_dir / ".cache",
        # a run that records failures draws their replications again: its own cache files
        "cache_tag": code["code_hash"]
        + (code["extension_hash"] or "")
        + ("-record" if runner.get("on_error") == "record" else ""),
        "reuse_dirs": _other_caches(reuse_from, out_dir / ".cache") if reuse_from else [],
    }
    with backend_context(**_engine_settings(runner)) as engine:
        common["engine"] = engine
        run = run_conditions(
            kind,
            conditions,
            replications=replications,
            coverage=cfg["coverage"],
            on_error=runner.get("on_error") or "raise",
            max_failure_share=float(runner.get("max_failure_share", 0.2)),
            block_size=int(runner.get("block_size", 50)),
            progress=bool(runner.get("progress", True)) and sys.stderr.isatty(),
            progress_bar=progress_bar,
            **common,
        )
        if cfg["coverage"] != "simulate":
            return run, {}
        limit = cfg.get("exact_beside_limit", 0) or 0
        # a user's method may be slow on the whole binomial support (coverage=exact gives it)
        small = [
            c
            for c in conditions
            if kind.exact_beside(c, limit) and "method_target" not in c.settings
        ]
        return run, _exact_beside(kind, small, common)


def write_claims(cfg: Mapping[str, Any], directory: Path) -> pd.DataFrame:
    """Evaluate the study's claims on the complete set of results in ``directory``
    (:func:`evaluate_study_claims`) and rewrite its ``claims.csv`` (the set stays sealed)."""
    check_set(directory)
    frame = evaluate_study_claims(cfg, directory)
    update_set(directory, "claims.csv", lambda p: frame.to_csv(p, index=False))
    return frame


def evaluate_study_claims(cfg: Mapping[str, Any], directory: Path) -> pd.DataFrame:
    """The study's claims (``study.claims``, :mod:`rocsim.sim.claims`) evaluated on the
    results in ``directory``. A claim comparing with another study reads that study's
    complete results beside ``directory`` (``../<study>``) if the same code made them, and
    is left out otherwise."""
    cfg = plain_config(cfg)
    study = cfg["study"]
    data = load_study_data(directory, study["name"])
    claims = list(study.get("claims") or [])
    partners = {
        name: load_study_data(Path(directory).parent / name, name, code_hash(), complete=True)
        for name in {(c["check"].get("versus") or {}).get("study") for c in claims} - {None}
    }
    others = {name: d for name, d in partners.items() if d is not None}
    return evaluate_claims(claims, data, list(study.get("axes") or {}), others)


def _engine_settings(runner: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`rocsim.sim.runner.backend_context`'s arguments from the ``runner`` config."""
    settings = {"backend": runner.get("backend"), "scheduler": runner.get("scheduler")}
    for name in ("connect_timeout", "worker_timeout"):
        if runner.get(name) is not None:
            settings[name] = runner[name]
    return settings


def _other_caches(results_dir: Path, own: Path) -> list[Path]:
    """The cache folders of the other studies under ``results_dir`` (a study's, a sweep job's,
    a variant run's: the folders rocsim writes), whose outcomes a study may share
    (:func:`rocsim.sim.runner.run_conditions`)."""
    patterns = ("*/.cache", "*/*/.cache", "*/variants/*/*/.cache")
    found = {p for pattern in patterns for p in Path(results_dir).glob(pattern) if p.is_dir()}
    return sorted(p for p in found if p.resolve() != own.resolve())


def _exact_beside(kind, conditions, common) -> dict[str, np.ndarray]:
    """Exact coverage of ``conditions`` (those the kind's ``exact_beside`` chose) by condition
    label, to draw beside the simulated curve and check it against."""
    if not conditions:
        return {}
    exact = run_conditions(kind, conditions, replications=0, coverage="exact", **common)
    rows = exact.table.groupby("condition", sort=False)["coverage"]
    return {label: part.to_numpy() for label, part in rows}


def _with_columns(table, conditions, grid, mode) -> pd.DataFrame:
    by_label = {c.label: c.settings for c in conditions}
    first = 2 + len(conditions[0].params)
    if "method" not in table.columns:  # unless the study sweeps methods as an axis
        table.insert(first, "method", table["condition"].map(lambda c: by_label[c]["method"]))
        first += 1
    table.insert(first, "grid", grid)
    table["level"] = table["condition"].map(lambda c: by_label[c]["confidence_level"])
    labels = {c: _model_label(s["model"]) for c, s in by_label.items()}
    table["model_label"] = table["condition"].map(labels)
    table["mode"] = mode
    return table


def _model_label(spec) -> str:
    """A condition's score model in tables and panel titles; of a paired design, both
    classifiers' (``"N(1, 1)/N(0, 1) vs N(0.7, 1)/N(0, 1)"``: the panels name the
    correlation)."""
    model = build_model(spec)
    if isinstance(model, PairedScoreModel):
        return f"{model.first.label()} vs {model.second.label()}"
    return model.label()


def _write_outputs(
    out_dir: Path, csv: str, table, cfg, run: RunResult, wall: float, code, data_keys, figure
) -> list[str]:
    """Write the tables (``csv``: the text of ``coverage.csv``), the outcomes and
    ``meta.json`` (``figure``: what the figure is drawn from, :func:`_figure_key`); return
    their file names."""
    atomic_write(out_dir / "coverage.csv", lambda p: p.write_text(csv))
    atomic_write(out_dir / "coverage.parquet", lambda p: table.to_parquet(p, index=False))
    names = ["coverage.csv", "coverage.parquet", "meta.json"]
    if cfg["coverage"] == "simulate":  # per replication, for paired comparisons and windows
        write_outcomes(out_dir / "outcomes.npz", run.cover, data_keys)
        names.append("outcomes.npz")
    meta = {
        "study": cfg["study"]["name"],
        "config": plain_config(cfg),
        "seed": cfg["seed"],
        "replications": cfg["replications"],
        "coverage": cfg["coverage"],
        "n_jobs": cfg["n_jobs"],
        "wall_seconds": round(wall, 3),
        "seconds_per_condition": {k: round(v, 3) for k, v in run.seconds_per_condition.items()},
        "computed_conditions": run.computed,
        "reused_conditions": run.reused,
        "packages": dict(_versions()),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        **code,
        "figure_key": figure,
        **git_state(),
        "blas_threads": blas_threads(),
        "command": sys.argv,
    }
    atomic_write(
        out_dir / "meta.json",
        lambda p: p.write_text(json.dumps(meta, indent=2, default=str) + "\n"),
    )
    return names


def plain_config(cfg) -> dict:
    """A resolved Hydra config (or any mapping) as plain JSON types."""
    try:
        from omegaconf import OmegaConf

        if OmegaConf.is_config(cfg):
            return OmegaConf.to_container(cfg, resolve=True)
    except ImportError:  # pragma: no cover - hydra is a dependency
        pass
    return json.loads(json.dumps(cfg, default=str))


@lru_cache(maxsize=1)
def _versions() -> dict[str, str]:
    """The installed versions of ``PACKAGES`` (looked up once per process: they do not change
    under a running one)."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(value)


def _positive_int(value, name: str) -> int:
    if _int(value, name) < 1:
        raise ValueError(f"{name} must be >= 1, got {value!r}")
    return int(value)


def _nonnegative_int(value, name: str) -> int:
    if _int(value, name) < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return int(value)
