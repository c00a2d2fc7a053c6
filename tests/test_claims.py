"""The thesis's claims as checks (rocsim.sim.claims): hand-computed statistics, standard
errors from per-replication outcomes, the configs' claims and the files they produce."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from rocsim.cli import compose_study
from rocsim.cli.variants import check_variants, choose_reading
from rocsim.sim.claims import CLAIM_COLUMNS, STATISTICS, StudyData, evaluate_claims
from rocsim.sim.configs import available_studies
from rocsim.sim.pipeline import plain_config, run_study

X = [0.05, 0.5, 0.95]


def table(coverage: dict[str, list[float]], exact: dict[str, list[float]] | None = None):
    """A coverage table with conditions 'theta=1' and 'theta=3' (axis theta) on X."""
    rows = []
    for label, values in coverage.items():
        theta = float(label.split("=")[1])
        for j, (x, c) in enumerate(zip(X, values)):
            row = {"condition": label, "theta": theta, "method": "m", "grid": "w", "x": x}
            row |= {"coverage": c, "level": 0.9, "mode": "simulate"}
            if exact is not None:
                row["exact_coverage"] = exact[label][j]
            rows.append(row)
    return pd.DataFrame(rows)


def outcomes(rows: list[list[int]]) -> np.ndarray:
    return np.asarray(rows, dtype=bool)


# Four replications x three points; column means are the coverages below.
A = outcomes([[1, 1, 1], [1, 1, 1], [1, 0, 1], [0, 0, 1]])  # 0.75, 0.5, 1.0
B = outcomes([[1, 1, 1], [1, 1, 0], [1, 1, 1], [1, 1, 1]])  # 1.0, 1.0, 0.75
COVER = {"theta=1": A, "theta=3": B}
COVERAGE = {label: m.mean(axis=0).tolist() for label, m in COVER.items()}


def evaluate(check, keys=None, exact=None, others=None):
    data = StudyData("s", table(COVERAGE, exact), COVER, keys or {"theta=1": "a", "theta=3": "b"})
    claims = [{"claim": "c", "thesis": "t", "check": check}]
    return evaluate_claims(claims, data, ["theta"], others).iloc[0]


def per_replication_se(values: np.ndarray) -> float:
    return float(np.std(values, ddof=1) / np.sqrt(values.size))


def test_mean_over_a_window_and_its_se_from_per_replication_means():
    row = evaluate({"stat": "mean", "where": {"theta": 1}, "op": ">", "bound": 0})
    assert row["value"] == pytest.approx(0.75)
    # one replication's points share a test set: the SE comes from per-replication means
    assert row["se"] == pytest.approx(per_replication_se(A.mean(axis=1)))
    assert row["se"] != pytest.approx(np.mean(np.sqrt(0.75 * 0.25 / 4)) / np.sqrt(3))


def test_window_keeps_the_edges_only():
    check = {"stat": "mean", "window": [[0, 0.05], [0.95, 1]], "op": "<", "bound": 1}
    row = evaluate(check | {"where": {"theta": 1}})
    assert row["value"] == pytest.approx((0.75 + 1.0) / 2)


def test_distance_deviation_min_max_by_hand():
    one = {"where": {"theta": 1}, "op": "<", "bound": 1}
    assert evaluate({"stat": "distance", **one})["value"] == pytest.approx(abs(0.75 - 0.9))
    dev = np.mean(np.abs(np.array([0.75, 0.5, 1.0]) - 0.9))
    assert evaluate({"stat": "deviation", **one})["value"] == pytest.approx(dev)
    assert evaluate({"stat": "min", **one})["value"] == 0.5
    lowest = evaluate({"stat": "min", **one})
    assert lowest["se"] == pytest.approx(per_replication_se(A[:, 1].astype(float)))
    assert evaluate({"stat": "max", **one})["value"] == 1.0
    assert evaluate({"stat": "distance", "target": 0.5, **one})["value"] == pytest.approx(0.25)


def test_gap_between_lines_and_pointwise():
    gap = evaluate({"stat": "gap", "lines": "theta", "op": "<", "bound": 1})
    assert gap["value"] == pytest.approx(np.mean([1, 1, 0.75]) - 0.75)
    point = evaluate({"stat": "point_gap", "lines": "theta", "op": "<", "bound": 1})
    assert point["value"] == pytest.approx(0.5)  # at x = 0.5: 1.0 - 0.5


def test_versus_pairs_conditions_that_share_their_data_sets():
    check = {"stat": "mean", "where": {"theta": 1}, "versus": {"where": {"theta": 3}}}
    check |= {"op": "<", "bound": 0}
    independent = evaluate(check)
    paired = evaluate(check, keys={"theta=1": "same", "theta=3": "same"})
    assert independent["value"] == paired["value"] == pytest.approx(0.75 - 11 / 12)
    a, b = A.mean(axis=1), B.mean(axis=1)
    by_hand = np.hypot(per_replication_se(a), per_replication_se(b))
    assert independent["se"] == pytest.approx(by_hand)
    assert paired["se"] == pytest.approx(per_replication_se(a - b))


def test_margin_in_standard_errors_decides():
    check = {"stat": "mean", "where": {"theta": 3}, "op": ">", "bound": "level"}
    row = evaluate(check)
    assert row["value"] > 0.9 and row["holds"]
    assert not evaluate(check | {"margin_se": 3})["holds"]  # 0.0167 above, SE 0.05


def test_each_reports_the_group_with_least_room_and_holds_only_if_all_do():
    row = evaluate({"stat": "mean", "each": ["theta"], "op": ">", "bound": 0.8})
    assert row["value"] == pytest.approx(0.75) and not row["holds"]
    assert "least room at theta = 1" in row["check"]


def test_exact_coverage_is_used_where_every_cell_has_it():
    exact = {"theta=1": [0.8, 0.6, 0.9], "theta=3": [0.95, 0.95, np.nan]}
    one = evaluate({"stat": "mean", "where": {"theta": 1}, "op": ">", "bound": 0}, exact=exact)
    assert one["value"] == pytest.approx(np.mean([0.8, 0.6, 0.9])) and one["se"] == 0
    assert "[exact coverage]" in one["check"]
    both = evaluate({"stat": "mean", "op": ">", "bound": 0}, exact=exact)
    assert "[simulated coverage]" in both["check"] and both["se"] > 0


def test_an_exact_difference_of_rounding_size_is_no_difference():
    exact = {"theta=1": [0.9, 0.9, 0.9], "theta=3": [0.9 + 1e-16, 0.9, 0.9]}
    check = {"stat": "mean", "where": {"theta": 3}, "versus": {"where": {"theta": 1}}}
    assert not evaluate(check | {"op": "abs>", "bound": 0}, exact=exact)["holds"]
    assert evaluate(check | {"op": "abs<", "bound": 0.01}, exact=exact)["holds"]


def test_versus_another_study():
    other = StudyData("o", table({"theta=1": [0.5, 0.5, 0.5]}), {"theta=1": A}, {"theta=1": "a"})
    check = {"stat": "mean", "where": {"theta": 1}, "versus": {"study": "o"}}
    row = evaluate(check | {"op": ">", "bound": 0}, others={"o": other})
    assert row["value"] == pytest.approx(0.25)
    assert row["se"] == pytest.approx(0)  # same data key, same outcomes: paired, no noise
    assert "minus the same in o" in row["check"]
    data = StudyData("s", table(COVERAGE), COVER, {})
    claims = [{"claim": "c", "thesis": "t", "check": check | {"op": ">", "bound": 0}}]
    assert evaluate_claims(claims, data, ["theta"], {}).empty  # partner not run: left out


@pytest.mark.parametrize(
    ("check", "message"),
    [
        ({"stat": "median", "op": ">", "bound": 0}, "valid: mean, distance"),
        ({"stat": "mean", "op": ">=", "bound": 0}, "op must be one of"),
        ({"stat": "mean", "op": ">", "bound": "lvl"}, "bound and target must be"),
        ({"stat": "mean", "op": ">", "bound": 0, "where": {"rho": 1}}, "'rho' is not an axis"),
        ({"stat": "gap", "op": ">", "bound": 0}, "needs `lines: <axis>`"),
        ({"stat": "mean", "op": ">", "bound": 0, "windw": [0, 1]}, "unknown key(s) ['windw']"),
    ],
)
def test_malformed_checks_are_named(check, message):
    with pytest.raises(ValueError, match="claim c") as err:
        evaluate(check)
    assert message in str(err.value)


def test_statistics_table_is_the_vocabulary():
    assert set(STATISTICS) == {"mean", "distance", "deviation", "min", "max", "gap", "point_gap"}


# -- the studies' claims ---------------------------------------------------------------


def study_configs():
    return {name: plain_config(compose_study(name))["study"] for name in available_studies()}


def test_every_figure_has_claims_and_there_are_at_least_sixty():
    claims = {name: study.get("claims") or [] for name, study in study_configs().items()}
    figures = {name: c for name, c in claims.items() if name.startswith("fig")}
    assert all(len(c) >= 2 for c in figures.values()), figures
    assert len(claims["bands"]) >= 5 and len(claims["bands_small_n"]) >= 5
    assert sum(len(c) for c in claims.values()) >= 60


def test_claims_quote_the_thesis_and_the_configs_type_no_measured_result():
    for name, study in study_configs().items():
        assert "thesis" not in study or not study["thesis"], name
        for claim in study["claims"]:
            text = claim["thesis"]
            if name.startswith("fig"):  # the thesis, in French, translated in parentheses
                assert "«" in text and "(" in text, (name, claim["claim"])
            else:  # the literature (or the thesis): a quotation and its source with its year
                quoted = text.count('"') >= 2 or ("«" in text and "»" in text)
                assert quoted, (name, claim["claim"])
                assert re.search(r"\((?:[^)]*\b)?(19|20)\d\d\)|documentation", text), (
                    name,
                    claim["claim"],
                )


def test_variants_name_existing_claims_and_readings():
    for name, study in study_configs().items():
        names = [c["claim"] for c in study["claims"]]
        check_variants(study.get("variants") or [], names, name)


def test_reading_follows_the_variant_results():
    variant = {
        "readings": [
            {"if": {"a": True, "b": False}, "then": "first"},
            {"if": {"a": True}, "then": "second"},
            {"then": "otherwise"},
        ]
    }
    frame = pd.DataFrame({"claim": ["a", "b"], "holds": [True, True]})
    assert choose_reading(variant, frame) == "second"
    assert choose_reading(variant, frame.assign(holds=[True, False])) == "first"
    assert choose_reading(variant, frame.assign(holds=[False, False])) == "otherwise"


def test_a_study_run_writes_claims_csv(tmp_path):
    small = ["replications=40", "n_jobs=1", "size.n=200", "exact_beside_limit=0"]
    cfg = plain_config(compose_study("fig5_1", small))
    output = run_study(cfg, tmp_path / "fig5_1")
    claims = pd.read_csv(tmp_path / "fig5_1" / "claims.csv")
    assert tuple(claims.columns) == CLAIM_COLUMNS
    assert len(claims) == len(cfg["study"]["claims"]) and (claims["study"] == "fig5_1").all()
    assert claims["se"].gt(0).all()  # simulated: standard errors from the outcomes
    pd.testing.assert_frame_equal(output.claims, claims, check_dtype=False)
