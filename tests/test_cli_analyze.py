"""``rocsim analyze``: reads CSV and parquet, writes tables and figures, prints a summary, and
answers bad input with one line and exit status 2."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rocsim.cli.analyze import main

SCRIPT = "from rocsim.cli import main; main()"


@pytest.fixture()
def data(tmp_path):
    rng = np.random.default_rng(12)
    n = 600
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "outcome": np.where(y == 1, "sick", "healthy"),
            "old": rng.normal(y * 0.5, 1),  # weak model, on a logit-like scale
            "new": 1 / (1 + np.exp(-rng.normal(y * 2.0, 1))),  # strong model, probabilities
        }
    )
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    return path, frame


def run(*args):
    """``rocsim analyze`` with ``args``: strings are split at spaces into options, paths are
    passed whole."""
    tokens = [t for a in args for t in (a.split() if isinstance(a, str) else [str(a)])]
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, "analyze", *tokens], capture_output=True, text=True
    )


def test_two_models_from_csv_write_tables_figures_and_a_summary(data, tmp_path):
    path, _ = data
    out = tmp_path / "out"
    done = run(
        path,
        "--label outcome --pos-label sick --score old --score new --averaging vertical --out",
        out,
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "AUC old:" in text and "AUC new:" in text and "AUC new - old:" in text
    assert "new significantly better at FPR" in text and "worse nowhere" in text
    assert "new significantly cheaper at w" in text
    for name in (
        "roc_old.csv",
        "roc_new.csv",
        "cost_old.csv",
        "roc_difference.csv",
        "cost_difference.csv",
        "auc.csv",
        "auc_difference.csv",
        "roc.png",
        "roc.pdf",
        "cost.png",
        "roc_difference.png",
        "cost_difference.pdf",
    ):
        assert (out / name).is_file(), name
    diff = pd.read_csv(out / "roc_difference.csv")
    assert {"fpr", "dtpr", "dtpr_low", "dtpr_high", "verdict"} <= set(diff.columns)
    assert (diff["dtpr"] > 0).mean() > 0.9  # second minus first: the new model is better


@pytest.mark.parametrize(
    ("given", "single", "difference"),
    [(None, "newcombe", "mover"), ("delong", "delong", "delong"), ("mover", "newcombe", "mover")],
)
def test_auc_lines_name_the_method_each_used(data, tmp_path, given, single, difference):
    """The defaults are the studies' choices; --auc-method applies where the interval has it,
    and each line says which method it is."""
    path, _ = data
    option = f" --auc-method {given}" if given else ""
    done = run(
        path, f"--label outcome --pos-label sick --score old --score new{option} --out", tmp_path
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].endswith(f"({single})") and lines[2].endswith(f"({single})")
    assert lines[3].endswith(f"({difference})")


def test_parquet_and_one_model(data, tmp_path, capsys):
    _, frame = data
    path = tmp_path / "scores.parquet"
    frame.to_parquet(path)
    main(
        [
            str(path),
            "--label",
            "outcome",
            "--pos-label",
            "sick",
            "--score",
            "new",
            "--out",
            str(tmp_path / "p"),
            "--at",
            "0.1",
            "0.5",
        ]
    )
    text = capsys.readouterr().out
    assert "AUC new:" in text
    roc = pd.read_csv(tmp_path / "p" / "roc_new.csv")
    # total positive ratios 0.1 and 0.5 (threshold averaging), as in the comparison table
    np.testing.assert_array_equal(roc["q"], [0.1, 0.5])


def test_missing_values_need_dropna(data, tmp_path):
    path, frame = data
    frame.loc[[3, 10], "new"] = np.nan
    frame.to_csv(path, index=False)
    failed = run(path, "--label outcome --pos-label sick --score new --out", tmp_path / "x")
    assert failed.returncode == 2
    assert failed.stderr.count("\n") == 1 and "--dropna" in failed.stderr
    assert "new (2)" in failed.stderr
    done = run(path, "--label outcome --pos-label sick --score new --dropna --out", tmp_path / "x")
    assert done.returncode == 0 and "dropped 2 row(s)" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--score", "nope"], "has no column 'nope'"),
        (["--score", "new", "--pos-label", "ill"], "--pos-label 'ill'"),  # the last one wins
        (["--score", "new", "--confidence", "1.5"], "--confidence must be in (0, 1)"),
        (["--score", "old", "--score", "new", "--score", "old"], "columns must differ"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(data, tmp_path, args, message):
    path, _ = data
    done = run(path, "--label", "outcome", "--pos-label", "sick", *args, "--out", tmp_path / "y")
    assert done.returncode == 2, done.stdout
    assert message in done.stderr and done.stderr.count("\n") == 1


def test_unknown_file_type(tmp_path):
    path = tmp_path / "scores.xlsx"
    path.write_text("x")
    done = run(path, "--label", "y", "--score", "s")
    assert done.returncode == 2 and ".csv or .parquet" in done.stderr


def test_at_is_a_rate_in_every_table_and_thresholds_are_scores(data, tmp_path):
    path, _ = data
    out = tmp_path / "rates"
    common = ["--label", "outcome", "--pos-label", "sick", "--score", "old", "--score", "new"]
    done = run(path, *common, "--at", "0.2", "0.6", "--out", out)
    assert done.returncode == 0, done.stderr
    for table in ("roc_old.csv", "roc_new.csv", "roc_difference.csv"):
        np.testing.assert_array_equal(pd.read_csv(out / table)["q"], [0.2, 0.6])
    out = tmp_path / "scores"
    done = run(path, *common, "--thresholds", "0.1", "--thresholds", "0.5", "--out", out)
    assert done.returncode == 0, done.stderr
    assert pd.read_csv(out / "roc_old.csv")["threshold"].tolist() == [0.1]
    assert pd.read_csv(out / "roc_difference.csv")[["t1", "t2"]].values.tolist() == [[0.5, 0.1]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--at", "0"], "--at must lie strictly between 0 and 1"),
        (["--averaging", "vertical", "--at", "1.5"], "--at must lie strictly between"),
        (["--thresholds", "0.5"], "--thresholds was given 1 time(s) for 2 --score column(s)"),
        (["--averaging", "vertical", "--thresholds", "0.5", "--thresholds", "0.1"], "vertical"),
        (["--at", "0.5", "--thresholds", "1", "--thresholds", "1"], "not both"),
        # the comparison refused percentile after 8 files were written
        (["--averaging", "vertical", "--method", "percentile"], "percentile"),
        (["--at", "abc"], "argument --at: invalid float value: 'abc'"),
        (["--foo"], "unrecognized arguments: --foo"),
    ],
)
def test_an_error_in_any_table_writes_nothing(data, tmp_path, args, message):
    path, _ = data
    out = tmp_path / "never"
    common = ["--label", "outcome", "--pos-label", "sick", "--score", "old", "--score", "new"]
    done = run(path, *common, *args, "--out", out)
    assert done.returncode == 2, done.stdout
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert not out.exists()


def test_out_that_cannot_be_written_is_refused_first(data, tmp_path):
    path, _ = data
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = run(path, "--label outcome --pos-label sick --score new --out", blocker)
    assert done.returncode == 2 and "--out" in done.stderr and "a file" in done.stderr
    assert done.stderr.count("\n") == 1
