"""Where the Hydra configs live: rocsim's own, shipped in the package as ``rocsim.configs``,
and the user's, which add options to its groups (an interval method, a score model, a study).

User config folders have the same layout as rocsim's (``interval/mine.yaml``,
``model/gamma.yaml``, ``study/my_study.yaml``). They are searched after rocsim's own, in
this order: ``./configs`` in the working directory, then each folder of the environment
variable ``ROCSIM_CONFIG_PATH`` (separated by ``os.pathsep``). Hydra's ``--config-dir`` works
too.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

#: Environment variable naming further config folders.
USER_CONFIG_ENV = "ROCSIM_CONFIG_PATH"


def package_config_dir() -> Path:
    """The folder of rocsim's own configs (``config.yaml`` and one folder per group)."""
    return Path(str(resources.files("rocsim.configs")))


def user_config_dirs() -> list[Path]:
    """The user's config folders that exist, in search order (see the module docstring)."""
    own = package_config_dir().resolve()
    candidates = [Path.cwd() / "configs"]
    candidates += [Path(p) for p in os.environ.get(USER_CONFIG_ENV, "").split(os.pathsep) if p]
    found: list[Path] = []
    for folder in candidates:
        folder = folder.resolve()
        if folder.is_dir() and folder != own and folder not in found:
            found.append(folder)
    return found


def config_dirs() -> list[Path]:
    """Every config folder, rocsim's first."""
    return [package_config_dir(), *user_config_dirs()]


def searchpath_override() -> list[str]:
    """The Hydra override adding the user's folders to the search path (empty if none)."""
    folders = user_config_dirs()
    if not folders:
        return []
    quoted = ",".join("'file://{}'".format(str(f).replace("'", "\\'")) for f in folders)
    return [f"hydra.searchpath=[{quoted}]"]


def group_options(group: str) -> list[str]:
    """Names of the options of config group ``group`` (``interval``, ``model``, ...) in every
    config folder, sorted; empty if no folder has that group."""
    names = {p.stem for folder in config_dirs() for p in (folder / group).glob("*.yaml")}
    return sorted(names)


def is_group(group: str) -> bool:
    """Whether some config folder has a group called ``group``."""
    return any((folder / group).is_dir() for folder in config_dirs())


def available_studies() -> list[str]:
    """Names of the study overlays (``study/*.yaml`` in every config folder), thesis figures
    in figure order first."""

    def order(name: str):
        parts = name.removeprefix("fig").split("_")
        if name.startswith("fig") and all(p.isdigit() for p in parts):
            return (0, tuple(int(p) for p in parts), name)
        return (1, (), name)

    return sorted(group_options("study"), key=order)
