"""The compiled kernels give the snapshot's arrays bit for bit (:mod:`kernel_snapshot`): the
200 arrays written by the numba kernels before the kernels were compiled with the package."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_snapshot import SNAPSHOT, cases


@pytest.fixture(scope="module")
def snapshot() -> dict[str, np.ndarray]:
    with np.load(SNAPSHOT) as stored:
        return {name: stored[name] for name in stored.files}


def test_every_array_is_the_same_bits(snapshot):
    computed = dict(cases())
    assert sorted(computed) == sorted(snapshot)
    assert len(snapshot) == 200
    differ = [
        name
        for name, want in snapshot.items()
        if computed[name].dtype != want.dtype
        or computed[name].shape != want.shape
        or computed[name].tobytes() != want.tobytes()
    ]
    assert not differ, f"{len(differ)} arrays changed: {differ[:10]}"
