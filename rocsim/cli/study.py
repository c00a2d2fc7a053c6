"""``rocsim study=<name> [overrides...]``: one study, or a ``-m`` sweep, through Hydra.

The config groups are rocsim's own (package data) and those of the user's config folders
(:mod:`rocsim.sim.configs`); a ``group=option`` naming an option no folder has is answered in
one line with the valid ones, before Hydra starts.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from rocsim.cli._common import EXIT_BAD_INPUT, EXIT_FAILURE, allow_interruptions, fail
from rocsim.sim.configs import group_options, is_group, package_config_dir, searchpath_override
from rocsim.sim.errors import RunError
from rocsim.sim.io import check_writable_folder
from rocsim.sim.pipeline import StudyOutput, plain_config, run_study


def run(args: list[str]) -> None:
    """Run ``rocsim`` with command-line ``args`` (Hydra reads them from ``sys.argv``)."""
    import hydra

    args = expand_home(args)
    reject_unknown_choices(args)
    check_overrides(args)
    if not any(a.startswith("hydra.searchpath") for a in args):
        args = [*args, *searchpath_override()]
    sys.argv[1:] = args
    decorated = hydra.main(
        version_base=None, config_path=str(package_config_dir()), config_name="config"
    )(_study_job)
    decorated()


def run_and_draw(
    cfg,
    out_dir: Path | None = None,
    progress_bar=None,
    figures: Figures | None = None,
    draw: bool = True,
    reuse_from: Path | None = None,
    defer: bool = False,
) -> StudyOutput | Future:
    """Run a study (:func:`rocsim.sim.pipeline.run_study`, sharing the outcomes of the studies
    under ``reuse_from``) and draw its figure, or with ``figures`` have it drawn meanwhile
    (:class:`Figures`; with ``draw=False`` the caller hands it over later). With ``figures``
    and ``defer``, all that follows the computation is left to them, figure included, and the
    future of the :class:`~rocsim.sim.pipeline.StudyOutput` is returned. Bad settings end the
    command with one line on stderr."""
    from rocsim.views.figures import save_study_figure

    now = draw and (figures is None or defer)
    folder = None
    if figures is not None:  # a figure still being drawn into the folder this run rewrites
        plain = plain_config(cfg)
        folder = Path(out_dir or Path(plain["results_dir"]) / plain["study"]["name"])
        figures.wait(folder)
    try:
        output = run_study(
            cfg,
            out_dir,
            progress_bar=progress_bar,
            draw=save_study_figure if now else None,
            reuse_from=reuse_from,
            finish_in=(lambda job: figures.submit(job, folder)) if defer and figures else None,
        )
    except (ValueError, RunError) as err:
        name = plain_config(cfg)["study"].get("name")
        status = EXIT_FAILURE if isinstance(err, RunError) else EXIT_BAD_INPUT
        fail(f"{name}: {err}" if progress_bar is not None and name else str(err), status=status)
    if draw and figures is not None and not defer:
        figures.draw(output, plain_config(cfg))
    return output


class Figures:
    """Study figures drawn by one background thread while the command goes on (the next
    study's workers compute meanwhile), each added to its study's sealed set of outputs
    (:func:`rocsim.sim.io.update_set`). ``wait()`` before anything else touches those sets or
    reads the figures; leaving the ``with`` block on an error cancels the figures not begun.
    Figures are :class:`matplotlib.figure.Figure` objects of their own (no pyplot state), so
    drawing them off the main thread is safe.
    """

    def __init__(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rocsim-figures")
        self._pending: list[tuple[Path, Any]] = []  # (folder, future)

    def submit(self, job, directory: Path) -> Any:
        """Run ``job()`` in the background, as what writes into ``directory``; its future."""
        future = self._pool.submit(job)
        self._pending.append((Path(directory).resolve(), future))
        return future

    def draw(self, output: StudyOutput, cfg) -> None:
        """Draw ``output``'s figure into its folder, in the background (``cfg``: the study's
        resolved config, :func:`rocsim.sim.pipeline.plain_config`), unless its run kept the
        figure drawn from the same table (``output.figure_kept``)."""
        if output.figure_kept:
            return
        job = self._pool.submit(_draw_into_set, output.table, cfg, output.directory)
        self._pending.append((Path(output.directory).resolve(), job))

    def wait(self, directory: Path | None = None) -> None:
        """Return once every figure asked for (into ``directory`` only, if given) is in its
        set; raise the first error."""
        folder = None if directory is None else Path(directory).resolve()
        waited = [(d, job) for d, job in self._pending if folder is None or d == folder]
        self._pending = [item for item in self._pending if item not in waited]
        for _, job in waited:
            job.result()

    def __enter__(self) -> Figures:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if kind is None:
            self.wait()
        self._pool.shutdown(wait=True, cancel_futures=kind is not None)


def _draw_into_set(table, cfg, directory: Path) -> None:
    from rocsim.sim.io import update_set
    from rocsim.views.figures import save_study_figure

    save_study_figure(
        table,
        cfg,
        directory,
        write=lambda path, save: update_set(Path(path).parent, Path(path).name, save),
    )


def _study_job(cfg) -> None:
    """Body of ``rocsim``: run the composed study, into its own folder in a sweep."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    allow_interruptions()  # the config is composed: the work begins
    out_dir = None
    hydra_cfg = HydraConfig.get()
    if hydra_cfg.mode == RunMode.MULTIRUN and cfg.study.name:
        job = hydra_cfg.job.override_dirname or f"job{hydra_cfg.job.num}"
        out_dir = Path(cfg.results_dir) / cfg.study.name / job.replace("/", "_")
    output = run_and_draw(cfg, out_dir)
    print(f"{cfg.study.name}: wrote {output.directory} in {output.wall_seconds:.1f} s")


#: Hydra's command-line flags that take a value in the next argument (``--cfg job``); ``--info``
#: takes one only if it names a topic.
HYDRA_FLAGS_WITH_VALUE = frozenset(
    {"--cfg", "-c", "--package", "-p", "--config-path", "-cp", "--config-name", "-cn"}
    | {"--config-dir", "-cd", "--experimental-rerun", "--shell-completion", "-sc"}
)
HYDRA_INFO_TOPICS = frozenset(
    {"all", "config", "defaults", "defaults-tree", "plugins", "searchpath"}
)


def overrides_of(args: list[str]) -> list[str]:
    """The config overrides among ``args``: Hydra's flags and their values left out."""
    out, skip = [], False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg.startswith("-"):
            following = args[i + 1] if i + 1 < len(args) else ""
            skip = arg in HYDRA_FLAGS_WITH_VALUE and "=" not in arg
            skip = skip or (arg in ("--info", "-i") and following in HYDRA_INFO_TOPICS)
            continue
        out.append(arg)
    return out


def reject_unknown_choices(args: list[str], prog: str = "rocsim") -> None:
    """Answer ``group=option`` with an unknown option in one line listing the valid ones."""
    for arg in overrides_of(args):
        if "=" not in arg or arg.startswith(("-", "+", "~", "hydra")):
            continue
        group, _, values = arg.partition("=")
        if "." in group or "/" in group or not is_group(group):
            continue
        valid = group_options(group)
        for value in values.split(","):
            if value not in valid and value != "null":
                fail(f"unknown {group} {value!r}; valid: {', '.join(valid)}", prog)


def check_overrides(args: list[str], prog: str = "rocsim") -> None:
    """Compose the config once with the command's overrides (a sweep's first value) so that
    a key no config has is answered in one line with the nearest valid key, before Hydra
    starts (Hydra's own message is several lines and names no alternative)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        parsed = OverridesParser.create().parse_overrides(overrides_of(args))
    except Exception as err:  # Hydra's grammar errors share no public base class
        fail(str(err).splitlines()[0], prog)
    _check_keys(parsed, prog)
    first = []
    for override in parsed:
        if override.is_hydra_override():
            continue
        if override.is_sweep_override():
            try:
                value = next(override.sweep_string_iterator())
            except Exception:  # glob() sweeps need Hydra's config loader: leave to Hydra
                continue
            first.append(f"{override.get_key_element()}={value}")
        else:
            first.append(override.input_line)
    try:
        _compose(first)
    except Exception as err:
        fail(explain_compose_error(err, first), prog)


def expand_home(args: list[str]) -> list[str]:
    """``key=~/path`` as the shell would have expanded it (Hydra's grammar reads a leading
    ``~`` as nothing it knows); ``~key`` (a deletion) is left alone."""
    out = []
    for arg in args:
        key, sep, value = arg.partition("=")
        if sep and (value == "~" or value.startswith("~/")):
            arg = f"{key}={os.path.expanduser(value)}"
        out.append(arg)
    return out


#: Folders Hydra itself creates, checked writable before it starts.
HYDRA_FOLDERS = ("hydra.run.dir", "hydra.sweep.dir")


def _check_keys(parsed, prog: str) -> None:
    """Overrides Hydra would take in silence or answer with a traceback: a key given twice
    (the last one wins, even in a sweep), a deletion of a setting rocsim needs, a folder of
    Hydra's own it cannot create."""
    seen: dict[str, Any] = {}
    for override in parsed:
        key = override.get_key_element().lstrip("+~")
        if key in seen:
            first = seen[key]
            both = (
                ""
                if first.is_delete() or override.is_delete()
                else (f"; to run both, sweep them: -m {key}={first.value()},{override.value()}")
            )
            fail(
                f"{key} is given twice ({first.input_line} and {override.input_line}){both}", prog
            )
        seen[key] = override
        if override.is_delete():
            fail(
                f"{override.input_line} would delete a setting rocsim needs; give it a value "
                f"instead ({key}=...)",
                prog,
            )
        if key in HYDRA_FOLDERS and not override.is_sweep_override():
            try:
                check_writable_folder(Path(str(override.value())), key)
            except ValueError as err:
                fail(str(err), prog)


def explain_compose_error(err: Exception, overrides: list[str]) -> str:
    """One line for a config that does not compose; an unknown key gets the nearest valid
    one."""
    import difflib
    import re

    message = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    unknown = re.match(r"Could not override '([^']+)'", message)
    if not unknown:
        return message
    key = unknown.group(1)
    rest = [o for o in overrides if o.split("=", 1)[0].lstrip("+~") != key]
    try:
        keys = _dotted_keys(_compose(rest))
    except Exception:  # another override fails too; name this key without a suggestion
        keys = []
    near = difflib.get_close_matches(key, keys, n=1, cutoff=0.6)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return f"unknown key {key!r}{hint} (a new key is added with +{key}=...)"


def _dotted_keys(cfg, prefix: str = "") -> list[str]:
    from omegaconf import DictConfig

    keys = []
    for key, value in cfg.items_ex(resolve=False) if isinstance(cfg, DictConfig) else []:
        name = f"{prefix}{key}"
        keys.append(name)
        keys += _dotted_keys(value, name + ".")
    return keys


def _compose(overrides: list[str]):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(package_config_dir()), version_base=None):
        return compose("config", overrides=[*overrides, *searchpath_override()])


def compose_overrides(overrides: list[str], prog: str = "rocsim"):
    """The resolved config of a command's ``overrides`` (``study=NAME ...``), answered in one
    line when a group option or key is unknown (:func:`check_overrides`)."""
    overrides = expand_home(overrides)
    reject_unknown_choices(overrides, prog)
    check_overrides(overrides, prog)
    return _compose(overrides)


def compose_study(name: str, overrides: list[str] | None = None):
    """The resolved config of study ``name`` with Hydra ``overrides`` (compose API), with the
    user's config folders on the search path."""
    return _compose([f"study={name}", *(overrides or [])])


class ComposedAhead:
    """Configs composed by one background thread while the command goes on, for the runs it
    may make later (``requests``: ``(study, overrides)`` pairs). Hydra composes on one thread
    at a time here: :meth:`compose` takes a requested config when it is ready, and composes
    one that was not requested only once the thread is done."""

    def __init__(self, requests) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._executor = ThreadPoolExecutor(1, thread_name_prefix="rocsim-compose")
        self._futures = {
            (name, tuple(overrides)): self._executor.submit(compose_study, name, list(overrides))
            for name, overrides in requests
        }

    def compose(self, name: str, overrides: list[str]):
        future = self._futures.get((name, tuple(overrides)))
        if future is not None:
            return future.result()
        self._executor.shutdown(wait=True)
        return compose_study(name, overrides)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
