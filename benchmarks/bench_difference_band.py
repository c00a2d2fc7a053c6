"""Measurement: how much of two classifiers' paired bootstrap law does each band of
``compare_roc`` hold? Writes ``benchmarks/results_difference_band.md``.

A band of ``TPR1 - TPR2`` calibrated on the exact law, as ``roc_ci``'s simultaneous band is,
would need both classifiers' thresholds at every FPR of the grid at once (2k order statistics of
one resample under two orderings), which rocsim does not build. ``compare_roc`` offers:

- ``band="bonferroni"``: each point's Gaussian interval at ``1 - alpha / k``;
- ``band="simultaneous"``: the band for the true difference, the Wald intervals ``mean +- c
  sd`` on the exact moments with the Gaussian sup-t ``c`` of the influence functions'
  correlation, widened to Tango's interval at ``c`` (:mod:`rocsim.core.difference_band`).

The script measures, on B = 20000 seeded paired stratified resamples
(:func:`_common.mc_vertical_tpr`), the share of bootstrap difference curves each band holds at
every one of 19 FPRs 0.05..0.95 (paired binormal scores, correlation ``rho`` between the
classifiers), and the critical values: the band's, the Gaussian sup-t ``c`` of the resamples'
own correlations (200000 seeded draws), and ``c needed``, the resamples' 95% quantile of the
largest standardised deviation. The band is meant to hold the *true* difference (the paired
band study measures that); how much of the bootstrap law it holds shows how far the Gaussian
critical value is from the bootstrap's own.

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
    (1000, 0.5, (1.0, 0.8)),
]


def containment(curves: np.ndarray, band) -> float:
    """The share of ``curves`` (rows) inside ``band``'s bounds at every FPR."""
    inside = (curves >= band.dtpr_low) & (curves <= band.dtpr_high)
    return float(inside.all(axis=1).mean())


def setting_row(n: int, rho: float, shift: tuple[float, float], rng) -> dict:
    scores = rng.multivariate_normal([0.0, 0.0], [[1.0, rho], [rho, 1.0]], size=2 * n)
    scores[:n] += shift
    y = np.r_[np.ones(n), np.zeros(n)]

    def band(**options):
        return rocsim.compare_roc(
            y, scores[:, 0], scores[:, 1], averaging="vertical", at=FPRS, **options
        )

    simultaneous = band(band="simultaneous")
    ranks = np.rint(simultaneous.fpr * n).astype(np.int64)
    first, second = mc_vertical_tpr(
        [(scores[:n, 0], scores[n:, 0]), (scores[:n, 1], scores[n:, 1])], ranks, B, rng
    )
    curves = first - second
    deviation = np.abs(curves - simultaneous.dtpr) / simultaneous.sd
    gaussian = rng.multivariate_normal(
        np.zeros(ranks.size), np.corrcoef(curves, rowvar=False), size=200_000
    )
    c_gaussian = np.quantile(np.abs(gaussian).max(axis=1), LEVEL)
    return {
        "n per class": n,
        "rho": rho,
        "simultaneous c": simultaneous.critical_value,
        "c needed": np.quantile(deviation.max(axis=1), LEVEL),
        "Gaussian sup-t c": c_gaussian,
        "simultaneous containment": containment(curves, simultaneous),
        "Bonferroni (score) containment": containment(curves, band(band="bonferroni")),
        "Bonferroni (wald) containment": containment(
            curves, band(band="bonferroni", method="wald")
        ),
        "Gaussian sup-t containment": float((deviation <= c_gaussian).all(axis=1).mean()),
    }


def main() -> None:
    rng = np.random.default_rng(20261127)
    rows = [setting_row(n, rho, shift, rng) for n, rho, shift in SETTINGS]
    write(
        "results_difference_band.md",
        [
            "# Paired difference of two ROC curves: how much of the bootstrap law each band holds",
            "",
            f"Machine: {machine()}. Paired binormal scores, {FPRS.size} FPRs "
            f"{FPRS[0]:.2f}..{FPRS[-1]:.2f}, B = {B} paired resamples independent of the "
            f"calibration, level {LEVEL} (Monte Carlo standard error of a containment near "
            f"it: {np.sqrt(LEVEL * (1 - LEVEL) / B):.4f}).",
            "",
            table(rows),
            "",
        ],
    )


if __name__ == "__main__":
    main()
