"""Performance measures of a simulation study, each with its Monte Carlo standard error.

For one condition and grid point a study has ``R`` replications: an estimate ``t_i`` of the
true value ``theta`` (``target``), and optionally a model standard error ``s_i``, an interval
``[low_i, high_i]`` and a p-value ``p_i``. Morris, White & Crowther (2019), Table 6, give
each performance measure with its estimate over the replications and the Monte Carlo SE
(MCSE) of that estimate. With ``n`` the replications used, ``t_bar`` their mean estimate,
``S^2 = 1/(n-1) sum (t_i - t_bar)^2`` and ``V = 1/(n-1) sum (s_i^2 - mean(s^2))^2`` (the
variance of the estimated variances), the keys of the result are

- ``bias = t_bar - theta``, MCSE ``sqrt(S^2 / n)``;
- ``empirical_se = S``, MCSE ``S / sqrt(2 (n - 1))``;
- ``mse = M = 1/n sum (t_i - theta)^2``, MCSE ``sqrt(sum ((t_i - theta)^2 - M)^2 / (n (n - 1)))``;
- ``model_se = m = sqrt(1/n sum s_i^2)``, MCSE ``sqrt(V / (4 n m^2))``;
- ``model_se_rel_error = m / S - 1``, MCSE ``(m / S) sqrt(V / (4 n m^4) + 1 / (2 (n - 1)))``;
- ``coverage = c = 1/n sum 1(low_i <= theta <= high_i)``, MCSE ``sqrt(c (1 - c) / n)``;
- ``bias_eliminated_coverage = 1/n sum 1(low_i <= t_bar <= high_i)``, MCSE as for coverage;
- ``rejection = r = 1/n sum 1(p_i < alpha)``, MCSE ``sqrt(r (1 - r) / n)``,

each MCSE under the key's name with ``_mcse`` appended, and ``alpha = 1 -
confidence_level``. The relative error is a fraction here (the paper's "relative % error in
ModSE" and its MCSE divided by 100); ``model_se`` averages the variances, not the SEs,
because "it is on this scale that standard theory yields unbiased estimates" (§5.2).

Sources read
------------
Table 6 of the published paper was not at hand; the formulas above are those of

- the preprint (arXiv:1712.03198v1, §5.2), which prints for the relative error
  ``MCSE = 100 (ModSE / EmpSE) sqrt(Var[Var(t_i)] / (4 nsim ModSE^4) + 1 / (2(n - 1)))``
  and for the model SE ``MCSE ~ sqrt(Var[Var(t_i)] / (4 nsim ModSE^2))``, the others as in
  the list above (bias, EmpSE ``EmpSE / sqrt(2(nsim - 1))``, MSE, coverage ``sqrt(Coverage
  (1 - Coverage) / nsim)``, "bias-corrected coverage ... with MCSE as for coverage", power
  ``1/nsim sum 1(p_i <= alpha)`` "with MCSE as for coverage");
- rsimsum's vignette ("Introduction to rsimsum", the same formulas, written with ``n_sim``)
  and its ``R/performance.R`` (commit 6041ba7);
- rsimsum issue #45, which quotes Table 6 of the published paper for the relative error:
  ``100 * (modelse / empse) * sqrt(se2_var / (4 * nsim * modelse^4) + 1 / (2 * (nsim - 1)))``
  (the maintainer: "the formula from the paper is the correct one", checked against Stata's
  ``simsum``). The preprint's ``n`` in ``1 / (2(n - 1))`` is ``nsim``.

The rejection share counts ``p_i < alpha`` (strictly), where the paper counts ``p_i <=
alpha``; the two differ only for a p-value equal to ``alpha``.

Failed replications
-------------------
A replication whose estimate, or any other input given for it, is NaN is dropped from every
measure of its grid point, so that all measures (and the ratio of the two SEs) come from the
same replications; ``replications_used`` counts those left. A grid point with fewer than two
gets NaN measures. Measures whose inputs are not given are left out of the result
(:func:`performance_columns` lists the keys for a set of inputs).

References
----------
Morris, T. P., White, I. R. & Crowther, M. J. (2019). Using simulation studies to evaluate
statistical methods. Statistics in Medicine 38, 2074-2102, Table 6 and §5.2.
https://doi.org/10.1002/sim.8086 (preprint arXiv:1712.03198).

Gasparini, A. (2018). rsimsum: Summarise results from Monte Carlo simulation studies.
Journal of Open Source Software 3(26), 739.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
from numpy.typing import ArrayLike

from rocsim.core._validation import as_real_array, check_confidence_level

_ESTIMATE_COLUMNS = (
    "bias",
    "bias_mcse",
    "empirical_se",
    "empirical_se_mcse",
    "mse",
    "mse_mcse",
)
_SE_COLUMNS = (
    "model_se",
    "model_se_mcse",
    "model_se_rel_error",
    "model_se_rel_error_mcse",
)
_BOUNDS_COLUMNS = (
    "coverage",
    "coverage_mcse",
    "bias_eliminated_coverage",
    "bias_eliminated_coverage_mcse",
)
_P_VALUE_COLUMNS = ("rejection", "rejection_mcse")


def performance_columns(
    *, se: bool = False, bounds: bool = False, p_value: bool = False
) -> tuple[str, ...]:
    """The keys :func:`performance_measures` returns, in order, for a set of inputs.

    Parameters
    ----------
    se : bool
        Model standard errors are given.
    bounds : bool
        Interval bounds (``low`` and ``high``) are given.
    p_value : bool
        P-values are given.

    Returns
    -------
    tuple of str
        ``replications_used``, the estimate's measures, then those of the inputs given.

    References
    ----------
    Morris, White & Crowther (2019), Table 6 (module docstring).

    Examples
    --------
    >>> performance_columns(p_value=True)[-2:]
    ('rejection', 'rejection_mcse')
    """
    columns = ("replications_used", *_ESTIMATE_COLUMNS)
    if se:
        columns += _SE_COLUMNS
    if bounds:
        columns += _BOUNDS_COLUMNS
    if p_value:
        columns += _P_VALUE_COLUMNS
    return columns


def performance_measures(
    estimate: ArrayLike,
    *,
    target: float,
    se: ArrayLike | None = None,
    low: ArrayLike | None = None,
    high: ArrayLike | None = None,
    p_value: ArrayLike | None = None,
    confidence_level: float = 0.95,
) -> dict[str, float]:
    """Performance measures and their Monte Carlo SEs for one condition and grid point.

    Parameters
    ----------
    estimate : array_like, shape (R,)
        The estimate of each replication; NaN marks a failed one.
    target : float
        The true value the estimates target.
    se : array_like, shape (R,), optional
        The model standard error of each replication.
    low, high : array_like, shape (R,), optional
        The interval bounds of each replication (both or neither; infinite bounds allowed).
    p_value : array_like, shape (R,), optional
        The p-value of each replication's test.
    confidence_level : float
        The intervals' level; the tests' significance level is ``1 - confidence_level``.

    Returns
    -------
    dict of str to float
        The keys of :func:`performance_columns` for the inputs given;
        ``replications_used`` is an int.

    Raises
    ------
    ValueError
        Naming the argument: fewer than 2 replications, lengths that differ from
        ``estimate``'s, infinite estimates, SEs or p-values, negative SEs, p-values outside
        [0, 1], ``low > high``, a bound without the other, a non-finite target.

    References
    ----------
    Morris, White & Crowther (2019), Table 6 (module docstring).

    Examples
    --------
    >>> out = performance_measures([0.9, 1.1, 1.0, 1.2], target=1.0)
    >>> round(out["bias"], 12), out["replications_used"]
    (0.05, 4)
    """
    est = _vector(estimate, "estimate")
    given = {"se": se, "low": low, "high": high, "p_value": p_value}
    columns = {
        name: _vector(values, name, len(est))[:, None]
        for name, values in given.items()
        if values is not None
    }
    table = performance_measures_grid(
        est[:, None],
        target=_finite_scalar(target, "target"),
        confidence_level=confidence_level,
        **columns,
    )
    out: dict[str, float] = {key: float(value[0]) for key, value in table.items()}
    out["replications_used"] = int(table["replications_used"][0])
    return out


def performance_measures_grid(
    estimate: ArrayLike,
    *,
    target: ArrayLike,
    se: ArrayLike | None = None,
    low: ArrayLike | None = None,
    high: ArrayLike | None = None,
    p_value: ArrayLike | None = None,
    confidence_level: float = 0.95,
) -> dict[str, np.ndarray]:
    """Performance measures and their Monte Carlo SEs for each grid point (column).

    Parameters
    ----------
    estimate : array_like, shape (R, G)
        The estimates, a row per replication and a column per grid point; NaN marks a
        failed replication (of that grid point only).
    target : float or array_like, shape (G,)
        The true value, one for all grid points or one per grid point.
    se, low, high, p_value : array_like, shape (R, G), optional
        As in :func:`performance_measures`, one column per grid point.
    confidence_level : float
        The intervals' level; the tests' significance level is ``1 - confidence_level``.

    Returns
    -------
    dict of str to ndarray, shape (G,)
        The keys of :func:`performance_columns` for the inputs given (``replications_used``
        as integers), ready for ``pandas.DataFrame``.

    Raises
    ------
    ValueError
        As :func:`performance_measures`, for shapes that differ from ``estimate``'s, and for
        a ``target`` that is neither a scalar nor one value per column.

    References
    ----------
    Morris, White & Crowther (2019), Table 6 (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> est = np.array([[0.9, 2.0], [1.1, 2.2], [1.0, np.nan], [1.2, 2.1]])
    >>> out = performance_measures_grid(est, target=[1.0, 2.0])
    >>> out["replications_used"].tolist(), np.round(out["bias"], 12).tolist()
    ([4, 3], [0.05, 0.1])
    """
    level = check_confidence_level(confidence_level)
    est = _matrix(estimate, "estimate")
    theta = _target(target, est.shape[1])
    given = {"se": se, "low": low, "high": high, "p_value": p_value}
    inputs = {
        name: _matrix(values, name, est.shape)
        for name, values in given.items()
        if values is not None
    }
    _check_values(est, inputs)
    # a row per grid point, contiguous: each grid point's sums are then the same pairwise
    # sums whether it comes alone (performance_measures) or with others
    est = np.ascontiguousarray(est.T)
    inputs = {name: np.ascontiguousarray(values.T) for name, values in inputs.items()}
    theta = theta[:, None]
    used = ~np.isnan(est)
    for values in inputs.values():
        used &= ~np.isnan(values)
    n = used.sum(axis=1, keepdims=True)
    # 0/0 and x/0 give the NaN of a grid point without replications; numpy would warn
    with np.errstate(divide="ignore", invalid="ignore"):
        t_bar = _mean(est, used, n)
        out = _estimate_measures(est, t_bar, theta, used, n)
        if "se" in inputs:
            out |= _model_se_measures(inputs["se"], used, n, out["empirical_se"])
        if "low" in inputs:
            out |= _coverage_measures(inputs["low"], inputs["high"], theta, t_bar, used, n)
        if "p_value" in inputs:
            out |= _rejection_measures(inputs["p_value"], _significance(level), used, n)
    too_few = n < 2  # no sample variance: every measure of the grid point is NaN
    table = {key: np.where(too_few, np.nan, value).ravel() for key, value in out.items()}
    return {"replications_used": n.ravel(), **table}


# --- the measures (Table 6): sums over the replications used (a row per grid point) -----


def _mean(x: np.ndarray, used: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.where(used, x, 0.0).sum(axis=1, keepdims=True) / n


def _sum_sq_dev(x: np.ndarray, centre: np.ndarray, used: np.ndarray) -> np.ndarray:
    """``sum (x_i - centre)^2`` over the replications used."""
    return (np.where(used, x - centre, 0.0) ** 2).sum(axis=1, keepdims=True)


def _estimate_measures(
    est: np.ndarray, t_bar: np.ndarray, theta: np.ndarray, used: np.ndarray, n: np.ndarray
) -> dict[str, np.ndarray]:
    """Bias, empirical SE and MSE, from the estimates alone (``t_bar`` their mean)."""
    variance = _sum_sq_dev(est, t_bar, used) / (n - 1)  # S^2, ddof = 1
    empirical_se = np.sqrt(variance)
    sq_error = (est - theta) ** 2
    mse = _mean(sq_error, used, n)
    return {
        "bias": t_bar - theta,
        "bias_mcse": np.sqrt(variance / n),
        "empirical_se": empirical_se,
        "empirical_se_mcse": empirical_se / np.sqrt(2.0 * (n - 1)),
        "mse": mse,
        "mse_mcse": np.sqrt(_sum_sq_dev(sq_error, mse, used) / (n * (n - 1))),
    }


def _model_se_measures(
    se: np.ndarray, used: np.ndarray, n: np.ndarray, empirical_se: np.ndarray
) -> dict[str, np.ndarray]:
    """Model SE and its relative error against the empirical SE."""
    variances = se**2
    mean_variance = _mean(variances, used, n)
    var_of_variances = _sum_sq_dev(variances, mean_variance, used) / (n - 1)  # V, ddof = 1
    model_se = np.sqrt(mean_variance)
    ratio = model_se / empirical_se
    # Table 6 as printed (rsimsum issue #45): the delta method on m / S, with m and S
    # treated as independent, Var(m) ~ V / (4 n m^2) and Var(S) ~ S^2 / (2 (n - 1))
    rel_mcse = ratio * np.sqrt(var_of_variances / (4 * n * mean_variance**2) + 0.5 / (n - 1))
    return {
        "model_se": model_se,
        "model_se_mcse": np.sqrt(var_of_variances / (4 * n * mean_variance)),
        "model_se_rel_error": ratio - 1.0,
        "model_se_rel_error_mcse": rel_mcse,
    }


def _share(hits: np.ndarray, used: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A proportion over the replications used and its binomial MCSE."""
    share = (hits & used).sum(axis=1, keepdims=True) / n
    return share, np.sqrt(share * (1.0 - share) / n)


def _coverage_measures(
    low: np.ndarray,
    high: np.ndarray,
    theta: np.ndarray,
    t_bar: np.ndarray,
    used: np.ndarray,
    n: np.ndarray,
) -> dict[str, np.ndarray]:
    """Coverage of the true value, and of the mean estimate (bias eliminated)."""
    coverage, coverage_mcse = _share((low <= theta) & (theta <= high), used, n)
    eliminated, eliminated_mcse = _share((low <= t_bar) & (t_bar <= high), used, n)
    return {
        "coverage": coverage,
        "coverage_mcse": coverage_mcse,
        "bias_eliminated_coverage": eliminated,
        "bias_eliminated_coverage_mcse": eliminated_mcse,
    }


def _rejection_measures(
    p_value: np.ndarray, alpha: float, used: np.ndarray, n: np.ndarray
) -> dict[str, np.ndarray]:
    rejection, rejection_mcse = _share(p_value < alpha, used, n)
    return {"rejection": rejection, "rejection_mcse": rejection_mcse}


def _significance(level: float) -> float:
    """``1 - level`` as written in decimal: in binary ``1 - 0.95`` is ``0.05000000000000004``,
    which would count a p-value of exactly 0.05 (an exact test's) as a rejection at 95%."""
    return float(Decimal(1) - Decimal(repr(level)))


# --- input checks -----------------------------------------------------------------------


def _vector(values: ArrayLike, name: str, length: int | None = None) -> np.ndarray:
    """A 1-D float array (of ``estimate``'s length), or ``ValueError`` naming ``name``."""
    arr = as_real_array(values, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per replication), got shape {arr.shape}")
    if length is None and arr.size < 2:
        raise ValueError(f"{name} needs at least 2 replications, got {arr.size}")
    if length is not None and arr.size != length:
        raise ValueError(f"{name} has {arr.size} values but estimate has {length}")
    return arr


def _matrix(values: ArrayLike, name: str, shape: tuple[int, int] | None = None) -> np.ndarray:
    """A 2-D float array (of ``estimate``'s shape), or ``ValueError`` naming ``name``."""
    arr = as_real_array(values, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (replications x grid points), got shape {arr.shape}")
    if shape is None and arr.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 replications, got {arr.shape[0]}")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have estimate's shape {shape}, got {arr.shape}")
    return arr


def _finite_scalar(value: ArrayLike, name: str) -> float:
    arr = as_real_array(value, name)
    if arr.ndim != 0 or not np.isfinite(arr):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(arr)


def _target(target: ArrayLike, columns: int) -> np.ndarray:
    """The true value of each column: a scalar, or one finite value per column."""
    theta = as_real_array(target, "target")
    if theta.ndim > 1 or (theta.ndim == 1 and theta.size != columns):
        raise ValueError(
            f"target must be a number or one per grid point ({columns}), got shape {theta.shape}"
        )
    if not np.all(np.isfinite(theta)):
        raise ValueError("target must be finite (the true value is known)")
    return np.broadcast_to(theta, (columns,))


def _check_values(est: np.ndarray, inputs: dict[str, np.ndarray]) -> None:
    """What no replication can report, failed or not (NaN, a failure, passes)."""
    for name in ("estimate", "se", "p_value"):
        values = est if name == "estimate" else inputs.get(name)
        if values is not None and np.any(np.isinf(values)):
            raise ValueError(f"{name} must be finite or NaN (a failed replication), got inf")
    if "se" in inputs and np.any(inputs["se"] < 0):
        raise ValueError("se must be non-negative")
    if "p_value" in inputs and np.any((inputs["p_value"] < 0) | (inputs["p_value"] > 1)):
        raise ValueError("p_value must lie in [0, 1]")
    if ("low" in inputs) != ("high" in inputs):
        missing = "high" if "low" in inputs else "low"
        raise ValueError(f"{missing} is missing: interval bounds come as low and high together")
    if "low" in inputs and np.any(inputs["low"] > inputs["high"]):
        raise ValueError("low must not exceed high")
