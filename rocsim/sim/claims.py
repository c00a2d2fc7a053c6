"""The thesis's statements about each figure, checked on the coverage table.

A study config lists its claims under ``study.claims``: the thesis's sentence (quoted and
translated) and a *check*, a predicate built from a small vocabulary, never a typed result::

    - claim: edges_conservative
      thesis: "« une certaine tendance à être trop conservateur lorsque w est proche des
        extrêmes » (a tendency to be too conservative when w is near the extremes)"
      check: {stat: mean, window: [[0, 0.05], [0.95, 1]], each: [theta],
              versus: {window: [0.2, 0.8]}, op: ">", bound: 0, margin_se: 3}

A check selects cells (conditions x grid points): ``where`` filters the axes (a value or a
list), ``window`` keeps grid values in one or several closed ranges. On the selection it
computes a statistic of :data:`STATISTICS`:

``mean``
    mean coverage;
``distance``
    ``|mean coverage - level|``;
``deviation``
    mean of ``|coverage - level|`` over the cells (how far the curve fluctuates);
``min`` / ``max``
    the lowest / highest coverage of a cell;
``gap``
    the largest difference between the mean coverages of the lines of axis ``lines``
    (e.g. the three correlations of a panel);
``point_gap``
    the largest difference between two lines at one grid point.

``distance`` and ``deviation`` measure from ``target`` (default ``level``). ``versus`` (a
mapping overriding ``where`` and ``window``, or naming another ``study`` whose results lie
beside this one's) subtracts the same statistic on a second selection. The value is compared
with ``bound`` (a number, or ``level``, ``level-0.05``, ...) by ``op`` (``<``, ``>``, or
``abs<``, ``abs>`` on its absolute value); ``margin_se: k`` asks for the comparison to hold by
``k`` standard errors. ``each: [axes]`` evaluates the check within every combination
of those axes' values and holds only if it holds in all of them; the row reported is the
group with the least room.

Values come from the exact coverage where the table has it for every selected cell (standard
error 0), else from the simulated coverage. Standard errors are computed from the
per-replication outcome matrices: every statistic is a (locally) linear function of the cell
coverages, ``sum_c,j w_cj cover_cj``, and its variance is the variance over replications of
``sum_c,j w_cj X_rcj`` divided by ``R``, summed over groups of conditions that share their data
sets (common random numbers pair them replication by replication; other groups are
independent). Grid points of one replication share a test set, so this is larger than
``sqrt(c (1 - c) / R)`` averaged over points. For ``min``, ``max`` and ``gap`` the weights are
those of the extreme cell or lines (the delta method, ignoring the selection of the extreme),
and for ``distance`` and ``deviation`` they carry the sign of ``coverage - level``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rocsim.sim.io import OutcomeFile, check_set, read_data_keys, read_outcomes

CLAIM_COLUMNS = ("study", "claim", "thesis", "check", "value", "se", "holds")
#: ``abs<`` / ``abs>`` compare the absolute value (two lines alike / unlike).
OPERATORS = ("<", ">", "abs<", "abs>")
CHECK_KEYS = frozenset(
    {"stat", "where", "window", "versus", "each", "lines", "op", "bound", "margin_se", "target"}
)
VERSUS_KEYS = frozenset({"where", "window", "study"})
#: Grid values are floats from ``np.linspace``-like grids, and exact coverages sums of
#: probabilities: windows and comparisons allow this much rounding (an exact difference of
#: 1e-17 between two sides that are equal by symmetry is no difference).
_EPS = 1e-9
#: ``math.isclose``'s default relative tolerance (axis values named in a check match it).
_REL_TOL = 1e-9


@dataclass
class StudyData:
    """What claims are evaluated on: a study's coverage table, its per-replication outcomes
    (label -> ``(R, g)``, or exact coverage ``(g,)``) and each condition's data key."""

    name: str
    table: pd.DataFrame
    cover: Mapping[str, np.ndarray]
    data_keys: Mapping[str, str]


@dataclass
class Cells:
    """Selected cells: per condition label, the grid-point mask and the coverage there."""

    coverage: dict[str, np.ndarray]  # label -> coverage at the selected points
    masks: dict[str, np.ndarray]  # label -> boolean mask over the condition's grid
    lines: dict[str, Any]  # label -> value of the `lines` axis (gap statistics)

    def size(self) -> int:
        return sum(v.size for v in self.coverage.values())


@dataclass
class Estimate:
    """A statistic's value and its weights on the cells (for the standard error)."""

    value: float
    weights: dict[Any, np.ndarray]  # label -> weights over the selected points


def _mean(cells: Cells, target: float) -> Estimate:
    k = cells.size()
    values = np.concatenate(list(cells.coverage.values()))
    weights = {label: np.full(c.size, 1.0 / k) for label, c in cells.coverage.items()}
    return Estimate(float(values.mean()), weights)


def _distance(cells: Cells, target: float) -> Estimate:
    mean = _mean(cells, target)
    sign = 1.0 if mean.value >= target else -1.0
    weights = {label: sign * w for label, w in mean.weights.items()}
    return Estimate(abs(mean.value - target), weights)


def _deviation(cells: Cells, target: float) -> Estimate:
    k = cells.size()
    weights = {label: np.sign(c - target) / k for label, c in cells.coverage.items()}
    values = np.concatenate(list(cells.coverage.values()))
    return Estimate(float(np.abs(values - target).mean()), weights)


def _extreme(pick: Callable[[np.ndarray], int]) -> Callable[[Cells, float], Estimate]:
    def statistic(cells: Cells, target: float) -> Estimate:
        where = [(label, j) for label, c in cells.coverage.items() for j in range(c.size)]
        values = np.concatenate(list(cells.coverage.values()))
        best = int(pick(values))
        label, j = where[best]
        weights = {k: np.zeros(c.size) for k, c in cells.coverage.items()}
        weights[label][j] = 1.0
        return Estimate(float(values[best]), weights)

    return statistic


def _by_line(cells: Cells) -> dict[Any, list[str]]:
    lines: dict[Any, list[str]] = {}
    for label, line in cells.lines.items():
        lines.setdefault(line, []).append(label)
    return lines


def _gap(cells: Cells, target: float) -> Estimate:
    means = {
        line: _mean(Cells({k: cells.coverage[k] for k in labels}, {}, {}), target)
        for line, labels in _by_line(cells).items()
    }
    high = max(means, key=lambda line: means[line].value)
    low = min(means, key=lambda line: means[line].value)
    weights = {label: np.zeros(c.size) for label, c in cells.coverage.items()}
    for line, sign in ((high, 1.0), (low, -1.0)):
        for label, w in means[line].weights.items():
            weights[label] = weights[label] + sign * w
    return Estimate(means[high].value - means[low].value, weights)


def _point_gap(cells: Cells, target: float) -> Estimate:
    """The largest difference between two lines at one grid point (each line one condition
    within the group, on the same grid)."""
    labels = [labels[0] for labels in _by_line(cells).values()]
    stacked = np.vstack([cells.coverage[label] for label in labels])
    spread = stacked.max(axis=0) - stacked.min(axis=0)
    j = int(np.argmax(spread))
    weights = {label: np.zeros(c.size) for label, c in cells.coverage.items()}
    weights[labels[int(np.argmax(stacked[:, j]))]][j] += 1.0
    weights[labels[int(np.argmin(stacked[:, j]))]][j] -= 1.0
    return Estimate(float(spread[j]), weights)


#: The statistics a check can compute, by name: ``(cells, target) -> Estimate``.
STATISTICS: dict[str, Callable[[Cells, float], Estimate]] = {
    "mean": _mean,
    "distance": _distance,
    "deviation": _deviation,
    "min": _extreme(np.argmin),
    "max": _extreme(np.argmax),
    "gap": _gap,
    "point_gap": _point_gap,
}

_DESCRIPTIONS = {
    "mean": "mean coverage",
    "distance": "|mean coverage - {target}|",
    "deviation": "mean |coverage - {target}|",
    "min": "lowest coverage",
    "max": "highest coverage",
    "gap": "largest gap between the {lines} lines' mean coverages",
    "point_gap": "largest gap between the {lines} lines at one point",
}


@dataclass(frozen=True)
class ClaimResult:
    """One claim evaluated: the value and standard error of its group with the least room,
    and whether it holds in every group."""

    study: str
    claim: str
    thesis: str
    check: str
    value: float
    se: float
    holds: bool

    def row(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in CLAIM_COLUMNS}


def load_study_data(
    directory: Path, name: str, code: str | None = None, complete: bool = False
) -> StudyData | None:
    """A study's results in ``directory`` (``coverage.csv``, ``outcomes.npz`` and its data
    keys); ``None`` if they are missing, with ``complete`` if they are not one run's complete
    set (:func:`rocsim.sim.io.check_set`), or, with ``code`` given, if other code made them
    (``meta.json``'s ``code_hash``)."""
    directory = Path(directory)
    table_path, outcomes_path = directory / "coverage.csv", directory / "outcomes.npz"
    if not table_path.exists():
        return None
    if complete:
        try:
            check_set(directory)
        except ValueError:
            return None
    if code is not None:
        meta = directory / "meta.json"
        if not meta.exists() or json.loads(meta.read_text()).get("code_hash") != code:
            return None
    cover, keys = {}, {}
    if outcomes_path.exists():
        cover, keys = read_outcomes(outcomes_path), read_data_keys(outcomes_path)
    return StudyData(name, pd.read_csv(table_path), cover, keys)


def check_claims(claims: Sequence[Mapping[str, Any]], axes: Sequence[str], study: str) -> None:
    """Raise ``ValueError`` naming the first malformed claim of ``study``."""
    seen = set()
    for i, claim in enumerate(claims):
        where = f"study {study}, claim {claim.get('claim') or f'#{i + 1}'}"
        if not claim.get("claim") or not claim.get("thesis") or not claim.get("check"):
            raise ValueError(f"{where}: a claim needs `claim`, `thesis` and `check`")
        if claim["claim"] in seen:
            raise ValueError(f"{where}: claim names must be unique")
        seen.add(claim["claim"])
        _check_check(claim["check"], axes, where)


def _check_check(check: Mapping[str, Any], axes: Sequence[str], where: str) -> None:
    versus = check.get("versus") or {}
    for keys, valid in ((check, CHECK_KEYS), (versus, VERSUS_KEYS)):
        unknown = set(keys) - valid
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; valid: {sorted(valid)}")
    if check.get("stat") not in STATISTICS:
        raise ValueError(
            f"{where}: unknown stat {check.get('stat')!r}; valid: {', '.join(STATISTICS)}"
        )
    if check.get("op") not in OPERATORS:
        raise ValueError(f"{where}: op must be one of {OPERATORS}, got {check.get('op')!r}")
    try:
        _bound(check.get("bound"), 0.9)
        _bound(check.get("target", "level"), 0.9)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None
    named = [*(check.get("where") or {}), *(check.get("each") or [])]
    named += [check["lines"]] if check.get("lines") else []
    if not versus.get("study"):  # another study's axes are checked when it is read
        named += list(versus.get("where") or {})
    for axis in named:
        if axis not in axes:
            raise ValueError(f"{where}: {axis!r} is not an axis; axes: {', '.join(axes)}")
    if check["stat"] in ("gap", "point_gap") and not check.get("lines"):
        raise ValueError(f"{where}: stat {check['stat']} needs `lines: <axis>`")


def evaluate_claims(
    claims: Sequence[Mapping[str, Any]],
    data: StudyData,
    axes: Sequence[str],
    others: Mapping[str, StudyData] | None = None,
) -> pd.DataFrame:
    """Evaluate a study's ``claims`` on its coverage table.

    Parameters
    ----------
    claims : sequence of mapping
        The study's ``claims`` (see the module docstring).
    data : StudyData
        The study's coverage table (``coverage.csv``: columns ``condition``, ``x``,
        ``coverage``, ``level``, ``grid``, the axes and ``exact_coverage`` where the study has
        it), per-replication outcomes and data keys: conditions with the same data key saw
        the same data sets, replication by replication.
    axes : sequence of str
        The study's axes (``where``, ``each`` and ``lines`` may name these and ``method``).
    others : mapping, optional
        Other studies' data by name, for checks with ``versus: {study: ...}``; a claim whose
        study is missing is left out.

    Returns
    -------
    DataFrame
        One row per claim, columns :data:`CLAIM_COLUMNS`. A claim that selects no cell (a
        variant run with fewer conditions) is left out.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> table = pd.DataFrame({"condition": ["a", "a"], "x": [0.1, 0.9], "grid": "q",
    ...                       "coverage": [0.9, 1.0], "level": 0.9})
    >>> cover = {"a": np.array([[1, 1], [1, 1], [1, 1], [0, 1]], dtype=bool)}
    >>> claims = [{"claim": "high", "thesis": "conservative",
    ...            "check": {"stat": "mean", "op": ">", "bound": "level"}}]
    >>> row = evaluate_claims(claims, StudyData("s", table, cover, {"a": "k"}), [])
    >>> row[["value", "holds"]].to_numpy().tolist()
    [[0.95, True]]
    """
    check_claims(claims, [*axes, "method"], data.name)
    studies = {data.name: data, **dict(others or {})}
    rows = []
    for claim in claims:
        result = evaluate_claim(claim, data, studies)
        if result is not None:
            rows.append(result.row())
    return pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))


def evaluate_claim(claim, data: StudyData, studies) -> ClaimResult | None:
    """One claim (see :func:`evaluate_claims`); ``None`` if it selects no cell."""
    check = claim["check"]
    level = float(data.table["level"].iloc[0])
    partner = (check.get("versus") or {}).get("study")
    if partner and partner not in studies:
        return None
    outcomes = []
    for group in _groups(data.table, check):
        source = _sources(check, group, data, studies)
        estimate = _group_estimate(check, group, data, studies, source, level)
        if estimate is None:
            continue
        se = 0.0 if source == "exact" else _standard_error(estimate.weights, studies)
        outcomes.append((group, estimate.value, se, source))
    if not outcomes:
        return None
    bound = _bound(check.get("bound"), level)
    margin = float(check.get("margin_se") or 0)
    slack = [_slack(check["op"], value, se, bound, margin) for _, value, se, _ in outcomes]
    group, value, se, _ = outcomes[int(np.argmin(slack))]
    sources = sorted({source for *_, source in outcomes})
    text = describe_check(check, level, str(data.table["grid"].iloc[0]))
    text += f" [{' and '.join(sources)} coverage"
    text += f"; least room at {_fmt_group(group)}]" if group else "]"
    thesis = " ".join(str(claim["thesis"]).split())
    return ClaimResult(data.name, str(claim["claim"]), thesis, text, value, se, min(slack) > _EPS)


def _slack(op: str, value: float, se: float, bound: float, margin: float) -> float:
    """How far the comparison holds (> 0) or fails (<= 0), after the margin."""
    if op.startswith("abs"):
        value, op = abs(value), op[3:]
    return (value - margin * se - bound) if op == ">" else (bound - value - margin * se)


def _bound(bound: Any, level: float) -> float:
    if isinstance(bound, int | float) and not isinstance(bound, bool):
        return float(bound)
    text = str(bound).replace(" ", "")
    if text.startswith("level"):
        rest = text[len("level") :]
        try:
            return level + (float(rest) if rest else 0.0)
        except ValueError:
            pass
    raise ValueError(f"bound and target must be numbers or 'level[+-offset]', got {bound!r}")


def _source(table: pd.DataFrame, where, window) -> str:
    """``exact`` if every selected cell has an exact coverage, else ``simulated``."""
    if "mode" in table and (table["mode"] == "exact").all():
        return "exact"
    if "exact_coverage" not in table or any(axis not in table for axis in where or {}):
        return "simulated"
    exact = table.loc[_select(table, where, window), "exact_coverage"].to_numpy(float)
    return "exact" if exact.size and np.isfinite(exact).all() else "simulated"


def _sources(check, group, data: StudyData, studies) -> str:
    """Exact if every cell the check reads in ``group`` (both sides) has exact coverage."""
    versus = check.get("versus") or {}
    where = _merge(check.get("where"), group)
    found = {_source(data.table, where, check.get("window"))}
    if versus:
        other = studies[versus.get("study") or data.name].table
        where = _merge(where, versus.get("where"))
        found.add(_source(other, where, versus.get("window", check.get("window"))))
    return "exact" if found == {"exact"} else "simulated"


def _groups(table: pd.DataFrame, check: Mapping[str, Any]) -> list[dict[str, Any]]:
    each = list(check.get("each") or [])
    if not each:
        return [{}]
    rows = _select(table, check.get("where"), None)
    combos = table.loc[rows, each].drop_duplicates()
    return [dict(zip(each, values)) for values in combos.itertuples(index=False)]


def _group_estimate(check, group, data: StudyData, studies, source, level) -> Estimate | None:
    """The check's statistic within ``group`` (minus its ``versus`` side), with weights over
    every condition's whole grid, keyed by (study, label), so that two sides add up."""
    target = _bound(check.get("target", "level"), level)
    where = _merge(check.get("where"), group)
    estimate = _estimate(check, data, where, check.get("window"), source, target)
    versus = check.get("versus")
    if estimate is None or not versus:
        return estimate
    other_data = studies[versus.get("study") or data.name]
    window = versus.get("window", check.get("window"))
    where = _merge(where, versus.get("where"))
    other = _estimate(check, other_data, where, window, source, target)
    if other is None:
        return None
    weights = {key: w.copy() for key, w in estimate.weights.items()}
    for key, w in other.weights.items():
        weights[key] = weights.get(key, 0.0) - w
    return Estimate(estimate.value - other.value, weights)


def _estimate(check, data: StudyData, where, window, source, target) -> Estimate | None:
    if any(axis not in data.table for axis in where):
        return None
    cells = _cells(data.table, where, window, source, check.get("lines"))
    if cells.size() == 0:
        return None
    estimate = STATISTICS[check["stat"]](cells, target)
    full = {}
    for label, w in estimate.weights.items():
        full[(data.name, label)] = np.zeros(cells.masks[label].size)
        full[(data.name, label)][cells.masks[label]] = w
    return Estimate(estimate.value, full)


def _merge(base: Mapping[str, Any] | None, extra: Mapping[str, Any] | None) -> dict[str, Any]:
    return {**dict(base or {}), **dict(extra or {})}


def _select(table: pd.DataFrame, where, window) -> np.ndarray:
    """The rows (a boolean array) whose axes take the ``where`` values and whose ``x`` lies in
    ``window``; in numpy, since claims select many times per study."""
    rows = np.ones(len(table), dtype=bool)
    for axis, wanted in (where or {}).items():
        values = wanted if isinstance(wanted, list | tuple) else [wanted]
        column = table[axis]
        rows &= column.isin(values).to_numpy() | _numeric_isin(column, values)
    if window is not None:
        rows &= _in_window(table["x"].to_numpy(float), window)
    return rows


def _numeric_isin(column: pd.Series, values: list) -> np.ndarray:
    """Where ``column`` is :func:`math.isclose` to one of the numbers among ``values``."""
    numbers = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if not numbers or not pd.api.types.is_numeric_dtype(column):
        return np.zeros(len(column), dtype=bool)
    v = column.to_numpy(dtype=float)
    found = np.zeros(v.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        for n in numbers:  # math.isclose(v, n), default tolerances, element by element
            diff = np.abs(n - v)
            near = (diff <= abs(_REL_TOL * n)) | (diff <= np.abs(_REL_TOL * v))
            found |= (v == n) | (np.isfinite(v) & math.isfinite(n) & near)
    return found


def _in_window(x: np.ndarray, window) -> np.ndarray:
    ranges = window if isinstance(window[0], list | tuple) else [window]
    keep = np.zeros(x.shape, dtype=bool)
    for low, high in ranges:
        keep |= (x >= low - _EPS) & (x <= high + _EPS)
    return keep


def _cells(table, where, window, source, lines) -> Cells:
    rows = _select(table, where, window)
    column = "exact_coverage" if source == "exact" and "exact_coverage" in table else "coverage"
    values = table[column].to_numpy(float)
    coverage, masks, line_of = {}, {}, {}
    for label, positions in _condition_rows(table):
        mask = rows[positions]
        if not mask.any():
            continue
        coverage[label] = values[positions][mask]
        masks[label] = mask
        if lines:
            line_of[label] = table[lines].iloc[positions[0]]
    return Cells(coverage, masks, line_of)


def _condition_rows(table: pd.DataFrame) -> list[tuple[Any, np.ndarray]]:
    """Each condition label with the positions of its rows, in order of first appearance (as
    ``groupby("condition", sort=False)`` gives them)."""
    labels = table["condition"].to_numpy()
    codes, uniques = pd.factorize(labels, sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    return [(uniques[k], order[bounds[k] : bounds[k + 1]]) for k in range(len(uniques))]


def _standard_error(weights, studies: Mapping[str, StudyData]) -> float:
    """Standard error of ``sum w * coverage`` from the per-replication outcomes (module
    docstring): within a data group the replications are paired, across groups independent."""
    totals: dict[str, np.ndarray] = {}
    for (study, label), w in weights.items():
        data = studies[study]
        key = data.data_keys.get(label) or f"{study}/{label}"
        totals[key] = totals.get(key, 0.0) + _weighted_outcomes(data, label, w)
    variance = 0.0
    for per_replication in totals.values():
        if per_replication.size > 1:
            variance += per_replication.var(ddof=1) / per_replication.size
    return float(np.sqrt(variance))


def _weighted_outcomes(data: StudyData, label: str, w: np.ndarray) -> np.ndarray:
    """Per replication, ``sum_j w_j X_rj`` over the condition's grid points; read from an
    outcomes file a slice of replications at a time (:class:`rocsim.sim.io.OutcomeFile`)."""
    if isinstance(data.cover, OutcomeFile) and label in data.cover:
        return data.cover.packed(label).weighted(w)
    outcomes = data.cover.get(label)
    if outcomes is None or np.ndim(outcomes) != 2:
        raise ValueError(f"{data.name}: no per-replication outcomes for condition {label!r}")
    return np.asarray(outcomes, dtype=float) @ w


def describe_check(check: Mapping[str, Any], level: float, grid: str = "x") -> str:
    """The check in words, e.g. ``mean coverage over q <= 0.05 or q >= 0.95 minus the same
    over 0.2 <= q <= 0.8 > 0 by 3 SE, for each theta``."""
    target = check.get("target", "level")
    stat = _DESCRIPTIONS[check["stat"]].format(lines=check.get("lines"), target=target)
    text = stat + _selection_words(check.get("where"), check.get("window"), grid)
    versus = check.get("versus")
    if versus:
        window = versus.get("window", check.get("window"))
        text += " minus the same" + (f" in {versus['study']}" if versus.get("study") else "")
        text += _selection_words(versus.get("where"), window, grid)
    op = check["op"]
    text = f"|{text}|" if op.startswith("abs") else text
    text += f" {op.removeprefix('abs')} {_bound_words(check.get('bound'), level)}"
    if check.get("margin_se"):
        text += f" by {_fmt(float(check['margin_se']))} SE"
    if check.get("each"):
        text += ", for each " + " and ".join(check["each"])
    return text


def _selection_words(where, window, grid: str) -> str:
    words = ""
    if window is not None:
        ranges = window if isinstance(window[0], list | tuple) else [window]
        words += " over " + " or ".join(_range_words(low, high, grid) for low, high in ranges)
    if where:
        words += " at " + ", ".join(f"{axis} in {_fmt_values(v)}" for axis, v in where.items())
    return words


def _range_words(low: float, high: float, grid: str) -> str:
    if low <= 0:
        return f"{grid} <= {_fmt(float(high))}"
    if high >= 1:
        return f"{grid} >= {_fmt(float(low))}"
    return f"{_fmt(float(low))} <= {grid} <= {_fmt(float(high))}"


def _fmt_values(value) -> str:
    values = value if isinstance(value, list | tuple) else [value]
    return "{" + ", ".join(_fmt(v) for v in values) + "}" if len(values) > 1 else _fmt(values[0])


def _bound_words(bound, level: float) -> str:
    if isinstance(bound, str):
        return f"{bound.replace(' ', '')} (= {_bound(bound, level):g})"
    return _fmt(float(bound))


def _fmt_group(group: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {_fmt(v)}" for k, v in group.items())


def _fmt(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
