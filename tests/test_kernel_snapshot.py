"""The compiled kernels give the snapshot's arrays bit for bit (:mod:`kernel_snapshot`): the
200 arrays written by the numba kernels before the kernels were compiled with the package (the
counting cases' 12 since written again on inputs that are the same bits on every CPU), 4 of
the net benefit lattice's kernel and 4 of the operating point's staircase kernel, each written
by its kernel when it was added (every other array the same bits then)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from kernel_snapshot import SNAPSHOT, cases

#: Each array's digest, printed by a child process (:func:`digests`), after the SIMD targets
#: numpy dispatches to on the child's CPU.
DIGESTS = (
    "import hashlib, json, kernel_snapshot as k\n"
    "from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__\n"
    "print(json.dumps([n for n in __cpu_dispatch__ if __cpu_features__.get(n)]))\n"
    "print(json.dumps({n: hashlib.sha256(a.tobytes()).hexdigest() for n, a in k.cases()}))"
)


@pytest.fixture(scope="module")
def snapshot() -> dict[str, np.ndarray]:
    with np.load(SNAPSHOT) as stored:
        return {name: stored[name] for name in stored.files}


def test_every_array_is_the_same_bits(snapshot):
    computed = dict(cases())
    assert sorted(computed) == sorted(snapshot)
    assert len(snapshot) == 210
    differ = [
        name
        for name, want in snapshot.items()
        if computed[name].dtype != want.dtype
        or computed[name].shape != want.shape
        or computed[name].tobytes() != want.tobytes()
    ]
    assert not differ, f"{len(differ)} arrays changed: {differ[:10]}"


def digests(arrays) -> dict[str, str]:
    return {name: hashlib.sha256(a.tobytes()).hexdigest() for name, a in arrays}


def test_the_arrays_do_not_depend_on_the_cpus_simd():
    """numpy held to its baseline SIMD and OpenBLAS to its oldest kernel, as on an older
    x86-64 CPU: the same inputs, so the same arrays (inputs made with np.round and the C
    library's pow changed 3 arrays on one AVX-512 machine)."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy < 2
        pytest.skip("numpy 2's CPU dispatch names")
    found = [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(found)}
    env["OPENBLAS_CORETYPE"] = "Prescott"
    done = subprocess.run(
        [sys.executable, "-c", DIGESTS],
        cwd=Path(__file__).parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    targets, held = map(json.loads, done.stdout.splitlines())
    assert targets == [], f"numpy still dispatched to {targets}"
    here = digests(cases())
    assert [name for name in here if held[name] != here[name]] == []
