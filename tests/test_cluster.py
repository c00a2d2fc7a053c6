"""A study on a dask cluster started the ordinary way: `dask scheduler` and `dask worker` as
separate processes on 127.0.0.1, `rocsim ... runner=dask runner.scheduler=tcp://...` as a
command. The outputs are the local run's bytes, also when a worker is killed mid-block; a
missing scheduler or worker, a scheduler lost mid-run and Ctrl-C each end the run with one
line (issue 34)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from rocsim.cli import compose_study
from rocsim.sim.pipeline import run_study

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals")

SMALL = ["replications=30", "grid.num=9", "runner.progress=false"]
#: A study whose blocks keep two single-threaded workers busy for several seconds.
BUSY = ["study=fig4_3", "replications=300", "runner.block_size=10", "grid.num=9"]
OUTPUTS = ("coverage.csv", "claims.csv")


def command(name: str) -> list[str]:
    """A console script of this environment, as a user runs it."""
    script = Path(sys.executable).with_name(name)
    found = str(script) if script.exists() else shutil.which(name)
    assert found, f"the {name} command is not installed"
    return [found]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    """A scheduler and workers started as the commands a user types, in their own sessions."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        self.folder = folder
        self.port = port or free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.procs: list[subprocess.Popen] = []
        self.scheduler: subprocess.Popen | None = None

    def _start(self, args: list[str], log: str) -> subprocess.Popen:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / log, "ab") as out:
            proc = subprocess.Popen(
                [*command("dask"), *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.folder,
                start_new_session=True,
            )
        self.procs.append(proc)
        return proc

    def start_scheduler(self) -> Cluster:
        self.scheduler = self._start(
            ["scheduler", "--host", "127.0.0.1", "--port", str(self.port), "--no-dashboard"],
            "scheduler.log",
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.2)
        raise AssertionError(f"no scheduler at {self.address}: {self.log('scheduler.log')}")

    def start_workers(self, nworkers: int = 1, expect: int | None = None) -> Cluster:
        self._start(
            [
                "worker",
                self.address,
                "--nworkers",
                str(nworkers),
                "--nthreads",
                "1",
                "--no-dashboard",
                "--local-directory",
                str(self.folder / "workers"),
            ],
            "workers.log",
        )
        with self.client() as client:
            client.wait_for_workers(expect or nworkers, timeout=120)
        return self

    def client(self):
        return distributed.Client(self.address, timeout=30, set_as_default=False)

    def worker_pids(self) -> dict[str, int]:
        with self.client() as client:
            return client.run(os.getpid)

    def log(self, name: str) -> str:
        path = self.folder / name
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """One scheduler and two single-threaded workers (`dask worker --nworkers 2`)."""
    running = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        yield running.start_scheduler().start_workers(2)
    finally:
        running.stop()


@pytest.fixture
def fresh_cluster(tmp_path):
    """A cluster of the test's own, for tests that damage it."""
    running = Cluster(tmp_path / "cluster")
    try:
        yield running
    finally:
        running.stop()


def rocsim(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*command("rocsim"), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def start_rocsim(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [*command("rocsim"), *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def on(address: str) -> list[str]:
    """The overrides that send a study to the scheduler at ``address``."""
    return ["runner=dask", f"runner.scheduler={address}"]


def local_outputs(tmp_path: Path, study: str, *overrides: str) -> Path:
    cfg = compose_study(study, [f"results_dir={tmp_path / 'local'}", "n_jobs=1", *overrides])
    return run_study(cfg).directory


def same_outputs(a: Path, b: Path) -> None:
    for name in OUTPUTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def wait_for(predicate, seconds: float, what: str) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_cluster_started_as_commands_gives_the_local_bytes(cluster, tmp_path):
    # the workers' "orphan" guard used to end every dask worker on its first block
    before = cluster.worker_pids()
    run = rocsim(
        "study=fig4_7",
        *on(cluster.address),
        *SMALL,
        "results_dir=out",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert cluster.worker_pids() == before, "a worker was restarted"
    assert "exited with status" not in cluster.log("workers.log")
    same_outputs(tmp_path / "out" / "fig4_7", local_outputs(tmp_path, "fig4_7", *SMALL))


def test_progress_is_shown_for_a_cluster_run(cluster, tmp_path):
    """On a terminal, a cluster run draws the progress bar a local run draws."""
    main, child = pty.openpty()
    # a terminal of 80 columns (a new pseudo-terminal has none, and a bar then shows nothing)
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen(
        [
            *command("rocsim"),
            "study=fig4_2",
            *on(cluster.address),
            "replications=30",
            "grid.num=9",
            "results_dir=out",
        ],
        cwd=tmp_path,
        stdin=child,
        stdout=child,
        stderr=child,
    )
    os.close(child)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=120) == 0, seen.decode(errors="replace")
    os.close(main)
    text = seen.decode(errors="replace")
    assert re.search(r"fig4_2: +\d+%\|", text), text


def test_a_scheduler_that_answers_nothing_is_one_line(tmp_path):
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    started = time.monotonic()
    run = rocsim(
        "study=fig4_2",
        *on(address),
        "runner.connect_timeout=2",
        *SMALL,
        "results_dir=out",
        cwd=tmp_path,
    )
    assert run.returncode == 1
    assert run.stderr.count("\n") == 1, run.stderr
    assert address in run.stderr and "dask scheduler --host 127.0.0.1" in run.stderr
    assert time.monotonic() - started < 60
    assert not (tmp_path / "out" / "fig4_2" / "coverage.csv").exists()


@pytest.mark.slow
def test_the_default_wait_for_a_scheduler_at_port_9_is_under_a_minute(tmp_path):
    """Done-when of issue 34, with the default timeouts."""
    started = time.monotonic()
    run = rocsim(
        "study=fig4_7",
        *on("tcp://127.0.0.1:9"),
        "replications=200",
        "results_dir=out",
        cwd=tmp_path,
    )
    assert run.returncode == 1 and run.stderr.count("\n") == 1, run.stderr
    assert "tcp://127.0.0.1:9" in run.stderr
    assert time.monotonic() - started < 60


def test_no_worker_is_one_line_within_the_wait(fresh_cluster, tmp_path):
    fresh_cluster.start_scheduler()
    run = rocsim(
        "study=fig4_2",
        *on(fresh_cluster.address),
        "runner.worker_timeout=2",
        *SMALL,
        "results_dir=out",
        cwd=tmp_path,
    )
    assert run.returncode == 1
    assert run.stderr.count("\n") == 1, run.stderr
    assert f"dask worker {fresh_cluster.address}" in run.stderr


def test_a_worker_killed_mid_block_changes_no_byte(fresh_cluster, tmp_path):
    fresh_cluster.start_scheduler().start_workers(1).start_workers(1, expect=2)
    proc = start_rocsim(
        *BUSY,
        *on(fresh_cluster.address),
        "results_dir=out",
        cwd=tmp_path,
    )
    with fresh_cluster.client() as client:
        pids = client.run(os.getpid)
        victim = next(iter(pids))

        def busy() -> bool:
            return bool(client.processing().get(victim))

        wait_for(busy, 120, "a block on the worker")
        os.kill(pids[victim], signal.SIGKILL)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert pids[victim] not in fresh_cluster.worker_pids().values()  # it really died
    local = local_outputs(tmp_path, "fig4_3", *BUSY[1:])
    same_outputs(tmp_path / "out" / "fig4_3", local)


@pytest.mark.slow
def test_a_lost_scheduler_is_one_line_and_a_rerun_resumes(fresh_cluster, tmp_path):
    fresh_cluster.start_scheduler().start_workers(2)
    args = [*BUSY, *on(fresh_cluster.address), "results_dir=out"]
    proc = start_rocsim(*args, cwd=tmp_path)
    cache = tmp_path / "out" / "fig4_3" / ".cache"
    wait_for(lambda: list(cache.glob("*.npz")), 180, "a finished condition")
    os.killpg(fresh_cluster.scheduler.pid, signal.SIGKILL)
    killed = time.monotonic()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and err.count("\n") == 1, err
    assert f"lost the dask scheduler at {fresh_cluster.address}" in err
    assert time.monotonic() - killed < 30
    fresh_cluster.stop()  # the workers lost their scheduler too: a new cluster, same address
    again = Cluster(fresh_cluster.folder, fresh_cluster.port)
    try:
        again.start_scheduler().start_workers(2)
        rerun = rocsim(*args, cwd=tmp_path)
    finally:
        again.stop()
    assert rerun.returncode == 0, rerun.stderr
    meta = json.loads((tmp_path / "out" / "fig4_3" / "meta.json").read_text())
    assert meta["reused_conditions"], "the rerun recomputed everything"
    same_outputs(tmp_path / "out" / "fig4_3", local_outputs(tmp_path, "fig4_3", *BUSY[1:]))


def test_ctrl_c_cancels_the_runs_blocks_on_the_cluster(cluster, tmp_path):
    proc = start_rocsim(
        *BUSY[:1],
        "replications=5000",
        "runner.block_size=10",
        *on(cluster.address),
        "results_dir=out",
        cwd=tmp_path,
    )
    with cluster.client() as client:

        def tasks() -> int:
            return client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))

        wait_for(lambda: tasks() > 0, 120, "blocks on the cluster")
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert err == "rocsim: interrupted; rerun the same command to resume\n"
        wait_for(lambda: tasks() == 0, 30, "the cluster to drop the run's blocks")


@pytest.mark.slow  # every study of the reproduction on the cluster: about 20 s
def test_reproduce_on_a_cluster_gives_the_local_bytes(cluster, tmp_path):
    """A short ``rocsim-reproduce`` (two studies) on the cluster and locally."""
    common = ["--only", "fig4_2", "fig5_1", "--replications", "10"]
    runs = {}
    for name, extra in (
        ("dask", on(cluster.address)),
        ("local", ["--n-jobs", "1"]),
    ):
        runs[name] = subprocess.run(
            [*command("rocsim-reproduce"), *common, "--results-dir", name, *extra],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert runs[name].returncode == 0, runs[name].stderr
    tables = sorted(p.relative_to(tmp_path / "local") for p in (tmp_path / "local").rglob("*.csv"))
    assert tables == sorted(
        p.relative_to(tmp_path / "dask") for p in (tmp_path / "dask").rglob("*.csv")
    )
    for table in tables:
        assert (tmp_path / "local" / table).read_bytes() == (
            tmp_path / "dask" / table
        ).read_bytes(), table


@pytest.mark.slow
def test_every_study_and_variant_on_a_cluster_gives_the_local_bytes(cluster, tmp_path):
    """The whole ``rocsim-reproduce`` (every study, the variant runs of failing claims) on the
    cluster and locally, at a small replication count."""
    for name, extra in (
        ("dask", on(cluster.address)),
        ("local", []),
    ):
        done = subprocess.run(
            [*command("rocsim-reproduce"), "--replications", "20", "--results-dir", name, *extra],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=3600,
        )
        assert done.returncode == 0, done.stderr
    tables = sorted(
        p.relative_to(tmp_path / "local") for p in (tmp_path / "local").rglob("coverage.csv")
    )
    assert any("variants" in str(p) for p in tables)
    for table in tables:
        assert (tmp_path / "local" / table).read_bytes() == (
            tmp_path / "dask" / table
        ).read_bytes(), table
