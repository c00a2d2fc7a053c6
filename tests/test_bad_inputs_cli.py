"""Bad inputs to the command line: ``rocsim analyze``, ``rocsim study=...`` and
``rocsim-reproduce``. Each ends with exit status 2, exactly one line on stderr naming the
option or key at fault, and no output written (``--out`` / ``results_dir`` absent or empty).

Runtime: the ``analyze`` cases call the command's ``main`` in this process (a new Python for
each case cost seconds apiece), and a sample of them runs as a new process, as a user runs it
(``test_analyze_refuses_in_a_new_process``); the ``study``/``rocsim-reproduce`` cases are each
a new process that composes a Hydra config first and are marked ``slow`` (run with
``-m slow``). The data are 20 rows and studies get ``replications=2``.
Complements ``test_cli.py`` and ``test_cli_analyze.py`` (their cases are not repeated here)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ANALYZE = [sys.executable, "-c", "from rocsim.cli import main; main()", "analyze"]
ROCSIM = [sys.executable, "-c", "from rocsim.cli import main; main()"]
REPRODUCE = [sys.executable, "-c", "from rocsim.cli import reproduce; reproduce()"]


def run(args, cwd, timeout: float = 300):
    """The command ``args`` in a new process, as a user runs it."""
    if args[: len(ANALYZE)] == ANALYZE and not NEW_PROCESS:
        return run_here(args[len(ANALYZE) :], cwd)
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


#: ``rocsim analyze`` cases run in this process unless this is set: its checks and messages
#: are the same code, without the 3 s start of a new Python each
#: (test_analyze_refuses_in_a_new_process runs a sample of them as a user does).
NEW_PROCESS = False


def run_here(args, cwd) -> subprocess.CompletedProcess:
    """``rocsim analyze args`` called in this process, in the folder ``cwd``: the exit status,
    stdout and stderr it would give (an uncaught exception fails the test, as its traceback
    would fail the one-line check)."""
    from rocsim.cli.analyze import main

    out, err, status = io.StringIO(), io.StringIO(), 0
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
        except SystemExit as stop:
            status = stop.code
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


def assert_refused(done, word: str, out: Path) -> None:
    """Exit status 2, one line on stderr holding ``word``, nothing written under ``out``."""
    lines = done.stderr.splitlines()
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert len(lines) == 1, done.stderr[-2000:]
    assert word in lines[0], lines[0]
    assert not out.exists() or (out.is_dir() and not any(out.iterdir())), sorted(out.rglob("*"))


def frame(rows: int = 20) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    y = np.tile([0, 1], rows // 2)
    return pd.DataFrame(
        {
            "y": y,
            "a": rng.normal(y, 1.0),
            "b": rng.normal(y * 0.5, 1.0),
            "txt": ["high", "low"] * (rows // 2),
            "one": np.ones(rows, dtype=int),
        }
    )


@pytest.fixture()
def csv(tmp_path) -> Path:
    path = tmp_path / "scores.csv"
    frame().to_csv(path, index=False)
    return path


# --- rocsim analyze ---------------------------------------------------------------------------

#: (options after the data file, word the one line must hold); ``--label y --out OUT`` added.
ANALYZE_CASES = [
    (["--score", "a", "--at", "abc"], "--at"),
    (["--score", "a", "--at", "0"], "--at"),
    (["--score", "a", "--at", "1.5"], "--at"),
    (["--score", "a", "--at", "nan"], "--at"),
    (["--score", "a", "--averaging", "vertical", "--at", "1"], "--at"),
    (["--score", "a", "--averaging", "vertical", "--thresholds", "0.5"], "--thresholds"),
    (["--score", "a", "--score", "b", "--thresholds", "0.5"], "--thresholds"),
    (["--score", "a", "--thresholds", "0.5", "--thresholds", "0.1"], "--thresholds"),
    (["--score", "a", "--thresholds", "abc"], "--thresholds"),
    (["--score", "a", "--at", "0.5", "--thresholds", "0.1"], "--thresholds"),
    (["--score", "a", "--confidence", "0"], "--confidence"),
    (["--score", "a", "--confidence", "abc"], "--confidence"),
    (["--score", "a", "--confidence", "nan"], "--confidence"),
    (["--score", "a", "--method", "nope"], "--method"),
    (["--score", "a", "--averaging", "nope"], "--averaging"),
    (["--score", "a", "--auc-method", "nope"], "--auc-method"),
    (["--score", "a", "--foo"], "--foo"),
    (["--score", "a", "--w", "2"], "--w"),
    (["--score", "a", "--w", "abc"], "--w"),
    (["--score", "a", "--w", "-0.1"], "--w"),
    (["--score", "txt"], "txt"),
    (["--score", "a", "--pos-label", "7"], "--pos-label"),
    (
        ["--score", "a", "--score", "b", "--averaging", "vertical", "--method", "percentile"],
        "--method",
    ),
    (["--score", "y"], "--score"),
    ([], "--score"),
    (["--score", "a", "--encoding", "nope"], "--encoding"),
    (["--score", "a", "--encoding", "base64"], "--encoding"),  # a codec, not a text encoding
]


@pytest.mark.parametrize(("options", "word"), ANALYZE_CASES)
def test_analyze_refuses(csv, tmp_path, options, word):
    out = tmp_path / "out"
    done = run([*ANALYZE, csv, "--label", "y", *options, "--out", out], tmp_path)
    assert_refused(done, word, out)


@pytest.mark.parametrize(
    ("options", "word"),
    [ANALYZE_CASES[0], (["--score", "a", "--foo"], "--foo"), ANALYZE_CASES[-1]],
)
def test_analyze_refuses_in_a_new_process(csv, tmp_path, monkeypatch, options, word):
    monkeypatch.setattr(sys.modules[__name__], "NEW_PROCESS", True)
    test_analyze_refuses(csv, tmp_path, options, word)


def test_analyze_label_column_missing(csv, tmp_path):
    out = tmp_path / "out"
    done = run([*ANALYZE, csv, "--label", "nope", "--score", "a", "--out", out], tmp_path)
    assert_refused(done, "nope", out)


def test_analyze_label_with_one_class(csv, tmp_path):
    out = tmp_path / "out"
    done = run([*ANALYZE, csv, "--label", "one", "--score", "a", "--out", out], tmp_path)
    assert_refused(done, "--label", out)


def _make(name: str, content: str | None):
    """A data path: a file holding ``content``, a folder (``None``) or nothing (``"absent"``)."""

    def make(folder: Path) -> Path:
        path = folder / name
        if content is None:
            path.mkdir()
        elif content != "absent":
            path.write_text(content)
        return path

    return make


@pytest.mark.parametrize(
    "make",
    [
        _make("nope.csv", "absent"),
        _make("d.csv", None),  # a folder named like a file
        _make("empty.csv", ""),
        _make("header.csv", "y,a\n"),
        _make("broken.parquet", "not a parquet file"),
    ],
    ids=["missing", "folder", "empty", "header-only", "corrupt-parquet"],
)
def test_analyze_refuses_a_data_file_it_cannot_use_naming_it(tmp_path, make):
    path, out = make(tmp_path), tmp_path / "out"
    done = run([*ANALYZE, path, "--label", "y", "--score", "a", "--out", out], tmp_path)
    assert_refused(done, path.name, out)


def _fifo(folder: Path) -> Path:
    path = folder / "pipe.csv"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (_make("d.csv", None), "is a folder, not a file"),
        (_fifo, "is not a regular file"),  # opening it would wait for a writer
        (lambda folder: Path("/dev/null"), "is not a regular file"),
        (_make("empty.csv", ""), "is empty"),
    ],
    ids=["folder", "fifo", "dev-null", "empty"],
)
def test_analyze_says_what_the_data_path_is_instead_of_a_file(tmp_path, make, words):
    path, out = make(tmp_path), tmp_path / "out"
    # a short timeout: a FIFO opened for reading blocks until something writes to it
    done = run([*ANALYZE, path, "--label", "y", "--score", "a", "--out", out], tmp_path, 60)
    assert_refused(done, words, out)
    assert str(path) in done.stderr


def _with_header(folder: Path, header: list[str]) -> Path:
    """The 20 rows of :func:`frame` (columns y, a, b) under the raw ``header``."""
    path = folder / "dup.csv"
    frame()[["y", "a", "b"]].to_csv(path, index=False, header=header)
    return path


@pytest.mark.parametrize(
    ("header", "score", "word"),
    [
        (["y", "a", "a"], "a", "'a'"),
        (["y", "y", "a"], "a", "'y'"),  # the --label column
        (["y", "a", "a"], "a.1", "no column 'a.1'"),  # pandas' name for the second 'a'
    ],
)
def test_analyze_refuses_a_duplicated_column_it_uses(tmp_path, header, score, word):
    path, out = _with_header(tmp_path, header), tmp_path / "out"
    done = run([*ANALYZE, path, "--label", "y", "--score", score, "--out", out], tmp_path)
    assert_refused(done, word, out)
    assert "dup.csv" in done.stderr


def test_analyze_refuses_a_duplicated_column_in_parquet(tmp_path):
    # pandas cannot write one, pyarrow can
    import pyarrow as pa
    import pyarrow.parquet as pq

    path, out = tmp_path / "dup.parquet", tmp_path / "out"
    data = frame()
    columns = [pa.array(data[c]) for c in ("y", "a", "b")]
    pq.write_table(pa.Table.from_arrays(columns, names=["y", "a", "a"]), path)
    done = run([*ANALYZE, path, "--label", "y", "--score", "a", "--out", out], tmp_path)
    assert_refused(done, "more than one column named 'a'", out)


def test_analyze_accepts_a_duplicated_column_it_does_not_use(tmp_path):
    path, out = tmp_path / "dup.csv", tmp_path / "out"
    frame()[["y", "a", "b", "txt"]].to_csv(path, index=False, header=["y", "a", "u", "u"])
    done = run([*ANALYZE, path, "--label", "y", "--score", "a", "--out", out], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "20 rows" in done.stdout


def _latin1(folder: Path, label: str = "y") -> Path:
    """The rows of :func:`frame`, labelled "malade é" / "sain è", saved in Latin-1."""
    path = folder / "latin1.csv"
    data = frame()[["y", "a", "b"]]
    data["y"] = np.where(data["y"] == 1, "malade é", "sain è")
    data.rename(columns={"y": label}).to_csv(path, index=False, encoding="latin-1")
    return path


def test_analyze_reads_latin1_text_with_encoding(tmp_path):
    out = tmp_path / "out"
    options = ["--label", "y", "--score", "a", "--encoding", "latin-1", "--pos-label", "malade é"]
    done = run([*ANALYZE, _latin1(tmp_path), *options, "--out", out], tmp_path)
    # --pos-label matches only if the labels were decoded to text (not b'malade \xe9')
    assert done.returncode == 0, done.stderr
    assert "20 rows, 10 positive and 10 negative" in done.stdout


@pytest.mark.parametrize(
    ("label", "options"),
    [
        ("y", []),  # utf-8 by default
        ("y", ["--encoding", "ascii"]),
        ("état", []),  # in the header: pandas reads it apart from the rows
    ],
    ids=["labels", "labels-ascii", "header"],
)
def test_analyze_refuses_text_not_in_the_encoding_suggesting_latin1(tmp_path, label, options):
    path, out = _latin1(tmp_path, label), tmp_path / "out"
    done = run(
        [*ANALYZE, path, "--label", label, "--score", "a", *options, "--out", out], tmp_path
    )
    assert_refused(done, "--encoding latin-1", out)
    assert "latin1.csv" in done.stderr


@pytest.mark.parametrize(
    ("column", "value", "words"),
    [
        ("a", "inf", ["column 'a'", "1 infinite"]),
        ("b", "-inf", ["column 'b'", "1 infinite"]),
        ("b", "1e999", ["column 'b'", "1 infinite"]),  # too large for a float
        ("b", "nan", ["b (1)", "--dropna"]),  # a missing value, as before
    ],
)
def test_analyze_names_the_score_column_holding_a_non_finite_value(tmp_path, column, value, words):
    path, out = tmp_path / "scores.csv", tmp_path / "out"
    data = frame().astype({column: object})
    data.loc[3, column] = value
    data.to_csv(path, index=False)
    done = run(
        [*ANALYZE, path, "--label", "y", "--score", "a", "--score", "b", "--out", out], tmp_path
    )
    for word in words:
        assert_refused(done, word, out)
    assert "y_score" not in done.stderr


def test_analyze_compares_two_models_under_horizontal_averaging(tmp_path):
    # it ended in a StopIteration traceback: the comparison had no axis for horizontal
    rng = np.random.default_rng(7)
    y = np.tile([0, 1], 30)
    path, out = tmp_path / "scores.csv", tmp_path / "out"
    pd.DataFrame({"y": y, "a": rng.normal(0, 1, y.size), "b": rng.normal(4 * y, 1)}).to_csv(
        path, index=False
    )
    options = ["--score", "a", "--score", "b", "--averaging", "horizontal"]
    done = run([*ANALYZE, path, "--label", "y", *options, "--out", out], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ROC (horizontal averaging, " in done.stdout
    assert "b significantly better at TPR" in done.stdout
    assert (out / "roc_difference.csv").is_file()


def test_analyze_out_is_an_existing_file(csv, tmp_path):
    out = tmp_path / "taken"
    out.write_text("keep me")
    done = run([*ANALYZE, csv, "--label", "y", "--score", "a", "--out", out], tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "--out" in lines[0], done.stderr
    assert out.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.csv", "taken"]


def test_analyze_out_under_proc(csv, tmp_path):
    done = run(
        [*ANALYZE, csv, "--label", "y", "--score", "a", "--out", "/proc/rocsim-x"], tmp_path
    )
    assert_refused(done, "--out", Path("/proc/rocsim-x"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.csv"]  # no staging folder


# --- rocsim study=... ---------------------------------------------------------------------------

STUDY_CASES = [
    (["study=fig4_2", "replications=-1"], "replications"),
    (["study=fig4_2", "replications=abc"], "replications"),
    (["study=fig4_2", "seed=-1"], "seed"),
    (["study=fig4_2", "seed=abc"], "seed"),
    (["study=fig4_2", "n_jobs=abc"], "n_jobs"),
    (["study=fig4_2", "interval.method=nope"], "method"),
    (["study=fig4_2", "interval=nope"], "interval"),
    (["study=nope"], "study"),
    (["study=fig4_2", "replicaitons=5"], "replicaitons"),
    pytest.param(
        ["study=fig4_3", "model.variables.theta=abc"],
        "theta",
        marks=pytest.mark.xfail(
            reason="exit 0, wrote results: the study axis theta overrides the variable, whose "
            "value 'abc' is never checked",
            strict=True,
        ),
    ),
    (["study=fig4_4", "model.variables.theta=abc"], "model.variables.theta"),
    (["study=fig4_2", "confidence_level=2"], "confidence_level"),
    (["study=fig4_2", "confidence_level=abc"], "confidence_level"),
]


def test_hydra_flags_values_are_not_overrides():
    """``rocsim study=fig4_4 --cfg job`` printed "Error parsing override 'job'": a flag's value
    was read as an override."""
    from rocsim.cli.study import overrides_of

    args = ["study=fig4_4", "--cfg", "job", "-p", "model", "--info", "plugins", "seed=3"]
    assert overrides_of(args) == ["study=fig4_4", "seed=3"]
    assert overrides_of(["--info", "seed=3", "-m", "n=1,2"]) == ["seed=3", "n=1,2"]
    assert overrides_of(["--cfg=job", "seed=3"]) == ["seed=3"]


@pytest.mark.slow  # Hydra composes the study first: 3-9 s a case
def test_cfg_job_prints_the_config(tmp_path):
    done = run([*ROCSIM, "study=fig4_4", "--cfg", "job"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "family: binormal" in done.stdout and done.stderr == ""


@pytest.mark.slow  # Hydra composes the study first: 3-9 s a case
@pytest.mark.parametrize(("overrides", "word"), STUDY_CASES)
def test_study_refuses(tmp_path, overrides, word):
    results = tmp_path / "res"
    done = run(
        [*ROCSIM, "replications=2", "n_jobs=1", *overrides, f"results_dir={results}"], tmp_path
    )
    assert_refused(done, word, results)


@pytest.mark.slow  # Hydra composes the study first: 3-9 s a case
def test_study_results_dir_under_proc(tmp_path):
    done = run(
        [*ROCSIM, "study=fig4_2", "replications=2", "n_jobs=1", "results_dir=/proc/rocsim-x"],
        tmp_path,
    )
    assert_refused(done, "results_dir", Path("/proc/rocsim-x"))


# --- rocsim-reproduce ---------------------------------------------------------------------------

REPRODUCE_CASES = [
    (["--only", "nope"], "nope"),
    (["--only", "fig4_2", "--replications", "0"], "--replications"),
    (["--only", "fig4_2", "--replications", "abc"], "--replications"),
    (["--only", "fig4_2", "--n-jobs", "abc"], "--n-jobs"),
    (["--only", "fig4_2", "--n-jobs", "0"], "--n-jobs"),  # the workers start before composing
    (["--only", "fig4_2", "--seed", "-1"], "--seed"),
    (["--only", "fig4_2", "--coverage", "nope"], "--coverage"),
    (["--only", "fig4_2", "--replicaitons", "5"], "--replicaitons"),
    (["--only", "fig4_2", "replicaitons=5"], "replicaitons"),  # an override of no key
]


@pytest.mark.slow  # Hydra composes the study first: 3-9 s a case
@pytest.mark.parametrize(("options", "word"), REPRODUCE_CASES)
def test_reproduce_refuses(tmp_path, options, word):
    results = tmp_path / "res"
    done = run([*REPRODUCE, *options, "--results-dir", results], tmp_path)
    assert_refused(done, word, results)


@pytest.mark.slow  # Hydra composes the study first: 3-9 s a case
def test_reproduce_results_dir_is_a_file(tmp_path):
    results = tmp_path / "taken"
    results.write_text("keep me")
    done = run(
        [*REPRODUCE, "--only", "fig4_2", "--replications", "2", "--results-dir", results],
        tmp_path,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "--results-dir" in lines[0], done.stderr
    assert results.read_text() == "keep me"
