"""rocsim.core.binomial gives scipy.stats.binom's pmf and ppf bit for bit, and keeps
scipy.stats out of the process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from rocsim.core.binomial import binomial_pmf, binomial_ppf


def _grid():
    rng = np.random.default_rng(3)
    trials = np.array([0, 1, 2, 7, 40, 1000, 123_457, 2.5, -1, np.nan])
    p = np.concatenate([[0.0, 1.0, 0.5, 1e-300, 1 - 1e-16, -0.1, 1.1, np.nan], rng.random(12)])
    return trials[:, None, None], p[None, :, None]


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()


def test_pmf_is_scipys():
    trials, p = _grid()
    x = np.array([-1, 0, 1, 2, 3, 5.5, 6, 20, 500, 1000, 61_728, np.nan, np.inf])[None, None, :]
    _same(binomial_pmf(x, trials, p), stats.binom.pmf(x, trials, p))
    _same(binomial_pmf(np.arange(8), 7, 0.3), stats.binom.pmf(np.arange(8), 7, 0.3))
    assert binomial_pmf(1, 2, 0.5) == stats.binom.pmf(1, 2, 0.5)


def test_ppf_is_scipys():
    trials, p = _grid()
    q = np.array([0.0, 1e-17, 1e-12, 0.025, 0.5, 0.975, 1 - 1e-12, 1.0, -0.5, 1.5, np.nan])
    q = q[None, None, :]
    _same(binomial_ppf(q, trials, p), stats.binom.ppf(q, trials, p))
    assert binomial_ppf(0.3, 2, 0.5) == stats.binom.ppf(0.3, 2, 0.5)


BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
#: What no first call may import: each takes longer to import than issue 36's whole margin
#: for a first call (0.5 s over the warm one).
SLOW_IMPORTS = ("scipy.stats", "scipy.optimize", "pandas", "numba", "matplotlib", "sklearn")


def _cold_start_cases() -> list[str]:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_cold_start
    finally:
        sys.path.remove(str(BENCHMARKS))
    return list(bench_cold_start.calls(10))


@pytest.mark.parametrize("case", _cold_start_cases())
def test_a_first_call_imports_nothing_slow(case):
    """Each public function of the cold-start benchmark, first called in a new process, on a
    small data set: what it imports is on the user's clock."""
    code = (
        f"import sys; sys.path.insert(0, {str(BENCHMARKS)!r}); import bench_cold_start as b\n"
        f"b.calls(100)[{case!r}]()\n"
        f"print(sorted(m for m in {SLOW_IMPORTS!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("mu, sd", [(0.0, 1.0), (1.19, 1.0), (-3.5, 0.25), (1e3, 7.0)])
def test_binormal_isf_is_scipys_without_scipy_stats(mu, sd):
    """A binormal class's isf (the thresholds of sample_size and of the studies) is
    scipy.stats.norm's to the bit, computed without importing scipy.stats."""
    from rocsim.sim.models import ClassDistribution

    model = ClassDistribution("binormal", (mu, sd))
    u = np.concatenate([[0, 1, -0.1, 1.1, np.nan, 1e-300, 0.5, 1 - 1e-16], _uniforms()])
    _same(model.isf(u), stats.norm(loc=mu, scale=sd).isf(u))
    assert model.isf(0.3) == stats.norm(loc=mu, scale=sd).isf(0.3)
    assert np.ndim(model.isf(0.3)) == 0


def _uniforms():
    return np.random.default_rng(1).random(1000)
