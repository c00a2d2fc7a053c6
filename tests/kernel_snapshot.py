"""The arrays of the compiled kernels' snapshot (``tests/data/kernel_snapshot.npz``).

Every compiled loop of the core feeds one of these arrays: the paired vertical law (the
Lancaster kernel, with and without its kept Krawtchouk tables, both sides, ties), the
Lancaster series pair by pair, the binomial mixture (quantiles, tables, tail sums), the
counting kernels (radix sort, merge, chain counts, merged ROC counts), the cost curve's
hull, the net benefit lattice's slices (the full bootstrap's law of NB1 - NB2) and the
staircases of the metrics at an operating point.
``tests/test_kernel_snapshot.py`` checks that the kernels give these arrays bit for bit:
the snapshot was written by the numba kernels, before they were compiled with the package;
the counting cases' 12 arrays were written again by the compiled kernels on the inputs below
(checked against brute-force counts first, and the kernels against the numba arrays on the
inputs before).

The inputs must be the same bits on every x86-64 CPU, or the snapshot stops guarding the
kernels: they are drawn by seeded Generators and built with exact operations only. numpy
picks the SIMD paths of its vectorised functions by the CPU at run time, and the C library's
``pow`` is not correctly rounded (its results move with its version): inputs made with
``np.round`` and ``10.0 ** k`` changed 3 counting arrays on an AVX-512 machine. So the
counting cases scale integers by powers of two (``np.ldexp``, a division by ``2**k``: exact),
ties and signed zeros chosen from a list, and scores rounded to decimals (tied scores) are
rounded by :func:`_rounded`: ``np.round``'s bits without its ``rint``. The normal draws are
numpy's scalar C code (not SIMD), and the correlated pairs' 2 x 2 algebra gave the same bits
with OpenBLAS held to its oldest kernel (``OPENBLAS_CORETYPE=Prescott``) and numpy to its
baseline SIMD (``NPY_DISABLE_CPU_FEATURES="X86_V3 X86_V4 AVX512_ICL"``).

Run ``python tests/kernel_snapshot.py`` to write the snapshot again, or ``python
tests/kernel_snapshot.py NAME...`` to write only the arrays whose names start with a NAME
(only when a change of those numbers is meant: the other arrays must come out the same bits).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

SNAPSHOT = Path(__file__).parent / "data" / "kernel_snapshot.npz"


def _rounded(x: np.ndarray, decimals: int) -> np.ndarray:
    """``np.round(x, decimals)``, the same bits (``rint(x * 10**d) / 10**d``, a zero with the
    sign of ``x``), without numpy's ``rint``, whose SIMD paths vary with the CPU: Python's
    ``round`` of each product is exact, and the product and the quotient are IEEE operations
    (correctly rounded on every machine). ``10.0**d`` is exact up to ``d = 22``."""
    scale = 10.0**decimals
    whole = np.array([round(v) for v in (x * scale).ravel()], dtype=np.float64)
    return np.copysign(whole.reshape(x.shape) / scale, x)


def _grid(rng: np.random.Generator, size: int, half: int, scale: int) -> np.ndarray:
    """``size`` scores on the grid of steps ``1 / scale`` (a power of two) in
    ``[-half / scale, half / scale)``: integers divided exactly, tied where they repeat."""
    return rng.integers(-half, half, size=size) / float(scale)


#: Scores the counting cases tie on: a few values and both zeros.
TIED = np.array([-0.75, -0.0, 0.0, 0.5, 2.0])


def _paired(rng: np.random.Generator, n_pos: int, n_neg: int, rho: float, ties: int = 0):
    """Two correlated binormal classifiers; ``ties > 0`` rounds the scores to that many
    decimals (tied scores), ``-1`` to integers."""
    cov = [[1.0, rho], [rho, 1.0]]
    pos = rng.multivariate_normal([1.0, 1.3], cov, size=n_pos)
    neg = rng.multivariate_normal([0.0, 0.0], cov, size=n_neg)
    if ties:  # -1: integers (an ordinal score), tied everywhere
        pos, neg = _rounded(pos, max(ties, 0)), _rounded(neg, max(ties, 0))
    return pos[:, 0], pos[:, 1], neg[:, 0], neg[:, 1]


def _paired_cases() -> Iterator[tuple[str, np.ndarray]]:
    from rocsim.core import vertical_difference

    designs = [
        # n+, n-, rho, ties, ranks (None: every 1 .. n- - 1)
        (7, 9, 0.5, 0, None),
        (30, 40, 0.8, 1, None),
        (60, 50, -0.3, 0, None),
        (200, 200, 0.6, 0, "grid"),
        (150, 400, 0.9, 2, "grid"),
        (1000, 1000, 0.6, 0, "grid"),
        (500, 3000, 0.3, 0, "grid"),
        (3, 4, 0.0, 0, None),
        (25, 25, 1.0, 0, None),
        (80, 120, 0.95, 0, None),
        (100, 70, 0.4, -1, None),
        (40, 300, 0.7, 0, "grid"),
        (300, 300, -0.8, 1, "grid"),
        (2000, 600, 0.6, 0, "grid"),
        (250, 1500, 0.99, 0, "grid"),
        (120, 90, 0.2, 1, None),
        (700, 700, 0.75, 0, "grid"),
    ]
    for index, (n_pos, n_neg, rho, ties, ranks) in enumerate(designs):
        rng = np.random.default_rng(20261127 + index)
        pos1, pos2, neg1, neg2 = _paired(rng, n_pos, n_neg, rho, ties)
        if ranks is None:
            r = np.arange(1, n_neg)
        else:
            r = np.unique(np.clip(np.rint(np.linspace(0.01, 0.99, 99) * n_neg), 1, n_neg - 1))
        for side in ("lower", "upper"):
            law = vertical_difference(pos1, pos2, neg1, neg2, r.astype(np.int64), side=side)
            for name in ("mean", "var", "discordance"):
                yield f"paired{index}_{side}_{name}", np.asarray(getattr(law, name))


def _lancaster_cases() -> Iterator[tuple[str, np.ndarray]]:
    from rocsim.core.joint_thresholds import lancaster_below

    rng = np.random.default_rng(7)
    for n in (2, 5, 40, 300, 2500):
        u = rng.integers(0, n, size=64)
        a = rng.integers(0, n + 1, size=64)
        b = rng.integers(0, n + 1, size=64)
        low = np.maximum(0, a + b - n)
        c = low + (rng.random(64) * (np.minimum(a, b) - low + 1)).astype(np.int64)
        yield f"lancaster_n{n}", lancaster_below(n, u, a, b, c)


def _vertical_cases() -> Iterator[tuple[str, np.ndarray]]:
    from rocsim.core import vertical_distribution
    from rocsim.core.mixture import BinomialMixture

    for index, (n_pos, n_neg, ties) in enumerate([(40, 60, 1), (500, 800, 0), (5000, 4000, 2)]):
        rng = np.random.default_rng(31 + index)
        pos, neg = _rounded(rng.normal(1, 1, n_pos), ties or 12), rng.normal(0, 1, n_neg)
        if ties:
            neg = _rounded(neg, ties)
        r = np.unique(np.clip(np.rint(np.linspace(0.01, 0.99, 99) * n_neg), 1, n_neg - 1))
        for side in ("lower", "upper"):
            law = vertical_distribution(pos, neg, r.astype(np.int64), side=side)
            yield f"vertical{index}_{side}_mean", np.asarray(law.mean)
            yield f"vertical{index}_{side}_var", np.asarray(law.var)
            for p in (0.025, 0.5, 0.975):
                yield f"vertical{index}_{side}_q{p}", np.asarray(law.quantile(p))
            for level in (0.9, 0.95):
                for method in ("percentile", "score", "wald"):
                    ci = law.ci(level, method)
                    yield f"vertical{index}_{side}_{method}{level}", np.stack([ci.low, ci.high])
        rows = np.arange(min(99, r.size))
        mix = BinomialMixture(
            rng.random((rows.size, 7)).cumsum(axis=1) / 8, rng.random((rows.size, 7)), n_pos
        )
        yield f"mixture{index}_q", mix.q
        yield f"mixture{index}_w", mix.w
        yield f"mixture{index}_quantile", np.asarray(mix.quantile(0.3))


def _counting_cases() -> Iterator[tuple[str, np.ndarray]]:
    from rocsim.core.counting import (
        count_at_or_above,
        decision_counts,
        sorted_roc_counts,
        sorted_scores,
    )

    rng = np.random.default_rng(11)
    for n in (3000, 50_000):
        # 53-bit integers times 2**-1000 .. 2**947: every exponent the radix sort sorts by
        x = np.ldexp(rng.integers(1 - 2**53, 2**53, size=n) * 1.0, rng.integers(-1000, 948, n))
        x[: n // 10] = TIED[rng.integers(0, TIED.size, size=n // 10)]
        yield f"sorted_{n}", sorted_scores(x)
        t = np.sort(np.concatenate([_grid(rng, n // 2, 2**20, 2**18), TIED]))  # and ties
        yield f"count_{n}", count_at_or_above(x, t)
        s1, s2 = _grid(rng, n, 2**12, 2**10), _grid(rng, n, 2**12, 2**10)
        t1 = np.sort(_grid(rng, 200, 2**12, 2**10))
        t2 = np.sort(_grid(rng, 200, 2**12, 2**10))
        yield f"decisions_{n}", np.stack(decision_counts(s1, s2, t1, t2))
        pos, neg = _grid(rng, n, 2**8, 2**6) + 1.0, _grid(rng, n // 3, 2**8, 2**6)
        for scores in (pos, neg):  # both zeros: the threshold is 0.0 whatever their signs
            scores[rng.random(scores.size) < 0.01] = -0.0
        thresholds, tp, fp = sorted_roc_counts(pos, neg)
        yield f"roc_counts_{n}_t", thresholds
        yield f"roc_counts_{n}_tp", tp
        yield f"roc_counts_{n}_fp", fp


def _cost_cases() -> Iterator[tuple[str, np.ndarray]]:
    from rocsim.core import cost_ci, cost_envelope

    rng = np.random.default_rng(5)
    w = np.linspace(0.01, 0.99, 99)
    for n in (20, 300, 4000):
        pos, neg = _rounded(rng.normal(1, 1, n), 1), rng.normal(0, 1, n)
        envelope = cost_envelope(pos, neg, w)
        yield f"cost_envelope_{n}", np.asarray(envelope.cost)
        ci = cost_ci(pos, neg, w, envelope.threshold)
        yield f"cost_ci_{n}", np.stack([ci.low, ci.high, ci.var])


def _lattice_cases() -> Iterator[tuple[str, np.ndarray]]:
    """The full bootstrap's law of NB1 - NB2 (the slices' kernel and its binomial seeds):
    probabilities on the grid of steps 1/64, so that which instances a model treats at each
    threshold is exact."""
    from rocsim.core import net_benefit_difference_distribution

    rng = np.random.default_rng(17)
    thresholds = np.arange(1, 64) / 64
    for n in (40, 700):
        probs = (rng.integers(0, 65, size=(4, n)) / 64.0).clip(0, 1)
        law = net_benefit_difference_distribution(*probs, thresholds, bootstrap="full")
        levels = [0.001, 0.025 - 1e-12, 0.5, 0.975 - 1e-12, 0.999]
        yield f"lattice_quantiles_{n}", np.stack([law.quantile(q) for q in levels])
        yield f"lattice_cdf_{n}", np.asarray(law.cdf(law.quantile(0.5)))


def _operating_point_cases() -> Iterator[tuple[str, np.ndarray]]:
    """The metrics at an operating point (the staircase kernel: quantiles, moments and the
    distribution function, under both bootstraps; the full bootstrap's approximation at a
    fixed FPR): scores on the grid of steps 1/64."""
    from rocsim.core import operating_point_distribution
    from rocsim.core.operating_point import METRICS

    rng = np.random.default_rng(23)
    levels = [0.001, 0.025 - 1e-12, 0.5, 0.975 - 1e-12, 0.999]
    for n in (30, 900):
        pos, neg = _grid(rng, n, 96, 64) + 0.5, _grid(rng, n + 7, 96, 64)
        for bootstrap in ("stratified", "full"):
            law = operating_point_distribution(
                pos, neg, threshold=0.25, bootstrap=bootstrap, prevalence=0.2, pseudo_count=2.0
            )
            rows = [
                [law[m].quantile(q) for q in levels]
                + [law[m].mean, law[m].var, law[m].undefined, law[m].cdf(law[m].mean)]
                for m in METRICS
            ]
            yield f"operating_point_{bootstrap}_{n}", np.array(rows)
        law = operating_point_distribution(
            pos, neg, fpr=0.3, bootstrap="full_approx", pseudo_count=2.0
        )
        rows = [
            [law[m].quantile(q) for q in levels]
            + [law[m].mean, law[m].var, law[m].undefined, law[m].cdf(law[m].mean)]
            for m in ("ppv", "npv", "accuracy")
        ]
        yield f"operating_point_full_approx_{n}", np.array(rows)


def cases() -> Iterator[tuple[str, np.ndarray]]:
    """Every array of the snapshot, by name."""
    for part in (
        _paired_cases,
        _lancaster_cases,
        _vertical_cases,
        _counting_cases,
        _cost_cases,
        _lattice_cases,
        _operating_point_cases,
    ):
        yield from part()


def rewrite(prefixes: tuple[str, ...]) -> list[str]:
    """Store the arrays whose names start with one of ``prefixes`` again, after checking that
    every other array is still the stored bits; the names rewritten."""
    with np.load(SNAPSHOT) as stored:
        arrays = {name: stored[name] for name in stored.files}
    computed = dict(cases())
    chosen = [name for name in computed if name.startswith(prefixes)]
    kept = [name for name in computed if name not in chosen]
    changed = [name for name in kept if computed[name].tobytes() != arrays[name].tobytes()]
    if changed or sorted(kept) != sorted(set(arrays) - set(chosen)):
        raise SystemExit(f"not rewritten: arrays not named changed too: {changed}")
    arrays.update((name, computed[name]) for name in chosen)
    np.savez_compressed(SNAPSHOT, **arrays)
    return chosen


if __name__ == "__main__":
    if len(sys.argv) > 1:
        names = rewrite(tuple(sys.argv[1:]))
        print(f"{len(names)} arrays rewritten in {SNAPSHOT}: {names}")
    else:
        arrays = dict(cases())
        np.savez_compressed(SNAPSHOT, **arrays)
        print(f"{len(arrays)} arrays written to {SNAPSHOT}")
