"""Monte Carlo bootstrap of whole ROC curves: the oracle of the tests and the baseline of the
benchmarks (rocsim's bands are computed from exact laws, :mod:`rocsim.core.confidence_band` and
:mod:`rocsim.core.difference_band`).

Paired resamples of two classifiers scored on the same instances (:func:`paired_vertical_tprs`,
one classifier too) give the TPRs at the FPRs of a grid, read as
:func:`rocsim.core.vertical_distribution` reads the curve; :func:`sup_t_critical_value` is the
sup-t critical value those curves calibrate.
"""

from __future__ import annotations

import numpy as np

from rocsim.core.counting import count_above, count_at_or_above

#: Resamples drawn at once (memory: a few times ``CHUNK * (n+ + n-)`` numbers).
CHUNK = 200


def resample_counts(n: int, replications: int, rng: np.random.Generator) -> np.ndarray:
    """``counts[k, i]``: how often item ``i`` is drawn in resample ``k`` (``n`` draws with
    replacement from ``n`` items)."""
    idx = rng.integers(0, n, size=(replications, n)) + n * np.arange(replications)[:, None]
    return np.bincount(idx.ravel(), minlength=replications * n).reshape(replications, n)


def paired_vertical_tprs(
    classifiers: list[tuple[np.ndarray, np.ndarray]],
    ranks: np.ndarray,
    side: str,
    replications: int,
    rng: np.random.Generator,
) -> list[np.ndarray]:
    """TPR at FPR ``ranks / n-`` of each ``(pos, neg)`` in ``classifiers`` over
    ``replications`` stratified resamples. The classifiers score the same instances, so they
    share every resample (the paired design). Returns one ``(replications, len(ranks))``
    array per classifier.

    In a resample the threshold is the ``r``-th largest resampled negative (``side="lower"``;
    the ``(r + 1)``-th, ``"upper"``), found where the negatives' cumulative counts in
    decreasing score reach it; TPR counts the resampled positives at or above it (strictly
    above, ``"upper"``), as :func:`rocsim.core.vertical_distribution` reads the curve.
    """
    n_pos, n_neg = classifiers[0][0].size, classifiers[0][1].size
    target = np.asarray(ranks, dtype=np.int64) + (side == "upper")
    reaching = count_at_or_above if side == "lower" else count_above
    layouts = []
    for pos, neg in classifiers:
        neg_order, pos_order = np.argsort(-neg, kind="stable"), np.argsort(-pos, kind="stable")
        # the positives (sorted decreasingly) reaching each sorted negative: a prefix
        layouts.append((neg_order, pos_order, reaching(pos, neg[neg_order])))
    out: list[list[np.ndarray]] = [[] for _ in classifiers]
    for start in range(0, replications, CHUNK):
        k = min(CHUNK, replications - start)
        rows = np.arange(k)[:, None]
        neg_counts, pos_counts = resample_counts(n_neg, k, rng), resample_counts(n_pos, k, rng)
        for tprs, (neg_order, pos_order, reach) in zip(out, layouts):
            neg_cum = np.cumsum(neg_counts[:, neg_order], axis=1)
            # offsetting each row by (n- + 1) keeps the flattened cumulative counts sorted
            flat = (neg_cum + (n_neg + 1) * rows).ravel()
            hit = np.searchsorted(flat, (target[None, :] + (n_neg + 1) * rows).ravel())
            threshold = hit.reshape(k, -1) - n_neg * rows
            pos_cum = np.cumsum(pos_counts[:, pos_order], axis=1)
            pos_cum = np.concatenate([np.zeros((k, 1), dtype=pos_cum.dtype), pos_cum], axis=1)
            tprs.append(np.take_along_axis(pos_cum, reach[threshold], axis=1) / n_pos)
    return [np.vstack(tprs) for tprs in out]


def sup_t_critical_value(
    curves: np.ndarray, mean: np.ndarray, sd: np.ndarray, level: float
) -> float:
    """The smallest ``c`` with ``|curve - mean| <= c sd`` at every point for at least a share
    ``level`` of the ``curves`` (rows): the ``level`` quantile of each curve's largest
    standardised deviation (points with ``sd = 0`` are where the law is one value)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        deviation = np.where(sd > 0, np.abs(curves - mean) / sd, 0.0)
    return float(np.quantile(deviation.max(axis=1), level, method="inverted_cdf"))
