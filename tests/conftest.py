"""Shared fixtures: small study configs composed through Hydra."""

from __future__ import annotations

import pytest

from rocsim.cli import compose_study


@pytest.fixture
def small_study(tmp_path):
    """Factory: the config of a study with few replications, writing under ``tmp_path``."""

    def make(name: str, *overrides: str):
        return compose_study(
            name,
            [
                f"results_dir={tmp_path}",
                "replications=40",
                "n_jobs=1",
                "runner.progress=false",
                *overrides,
            ],
        )

    return make
