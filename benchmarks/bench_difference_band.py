"""Measurement: would a Gaussian sup-t band hold the paired bootstrap curves of ``TPR1 - TPR2``?
Writes ``benchmarks/results_difference_band.md``.

``compare_roc`` offers no ``band="simultaneous"`` for two classifiers: a band calibrated on the
bootstrap law, as ``roc_ci``'s is, needs the joint law of both classifiers' thresholds at every
FPR of the grid (2k order statistics of one resample under two orderings), which rocsim does
not build. The shortcut would be the Gaussian sup-t band, ``mean +- c sd`` with ``c`` the 95%
quantile of ``max |Z_i|`` for a Gaussian vector with the bootstrap correlations. This script
measures how much of the paired bootstrap law such a band holds, against the Bonferroni band
``compare_roc(band="bonferroni")`` gives:

- paired binormal scores (correlation ``rho`` between the classifiers), 19 FPRs 0.05..0.95;
- B = 20000 paired stratified resamples (:func:`_common.mc_vertical_tpr`, the same resamples
  for both classifiers);
- the sup-t band on the exact means and standard deviations (``compare_roc``'s) with the
  correlations of the resamples (the most favourable input the shortcut could have), ``c``
  from 200000 seeded Gaussian draws;
- "containment": the share of resampled difference curves inside the band at every FPR; the
  band is meant to hold 0.95 of them. ``c needed``: the resamples' own 95% quantile of the
  largest standardised deviation.

Usage: ``python benchmarks/bench_difference_band.py``.
"""

from __future__ import annotations

import numpy as np
from _common import machine, mc_vertical_tpr, table, write

import rocsim

B = 20_000
LEVEL = 0.95
FPRS = np.linspace(0.05, 0.95, 19)
#: (n per class, correlation between the classifiers, mean of each classifier's positives)
SETTINGS = [
    (100, 0.5, (1.5, 1.0)),
    (200, 0.3, (2.0, 1.0)),
    (200, 0.5, (1.0, 0.8)),
    (200, 0.8, (1.0, 1.0)),
]


def setting_row(n: int, rho: float, shift: tuple[float, float], rng) -> dict:
    scores = rng.multivariate_normal([0.0, 0.0], [[1.0, rho], [rho, 1.0]], size=2 * n)
    scores[:n] += shift
    y = np.r_[np.ones(n), np.zeros(n)]
    bonferroni = rocsim.compare_roc(
        y, scores[:, 0], scores[:, 1], averaging="vertical", at=FPRS, band="bonferroni"
    )
    ranks = np.rint(bonferroni.fpr * n).astype(np.int64)
    first, second = mc_vertical_tpr(
        [(scores[:n, 0], scores[n:, 0]), (scores[:n, 1], scores[n:, 1])], ranks, B, rng
    )
    curves = first - second
    deviation = np.abs(curves - bonferroni.dtpr) / bonferroni.sd
    gaussian = rng.multivariate_normal(
        np.zeros(ranks.size), np.corrcoef(curves, rowvar=False), size=200_000
    )
    c = np.quantile(np.abs(gaussian).max(axis=1), LEVEL)
    wald = rocsim.compare_roc(
        y,
        scores[:, 0],
        scores[:, 1],
        averaging="vertical",
        at=FPRS,
        band="bonferroni",
        method="wald",
    )
    return {
        "n per class": n,
        "rho": rho,
        "Gaussian sup-t c": c,
        "c needed": np.quantile(deviation.max(axis=1), LEVEL),
        "sup-t containment": float((deviation <= c).all(axis=1).mean()),
        "Bonferroni (score) containment": containment(curves, bonferroni),
        "Bonferroni (wald) containment": containment(curves, wald),
    }


def containment(curves: np.ndarray, band) -> float:
    """The share of ``curves`` (rows) inside ``band``'s bounds at every FPR."""
    inside = (curves >= band.dtpr_low) & (curves <= band.dtpr_high)
    return float(inside.all(axis=1).mean())


def main() -> None:
    rng = np.random.default_rng(20261127)
    rows = [setting_row(n, rho, shift, rng) for n, rho, shift in SETTINGS]
    write(
        "results_difference_band.md",
        [
            "# Paired difference of two ROC curves: Gaussian sup-t band vs Bonferroni",
            "",
            f"Machine: {machine()}. Paired binormal scores, {FPRS.size} FPRs "
            f"{FPRS[0]:.2f}..{FPRS[-1]:.2f}, B = {B} paired resamples, level {LEVEL}.",
            "",
            table(rows),
            "",
        ],
    )


if __name__ == "__main__":
    main()
