"""Sweeps on a Ray cluster (`--backend ray`): a real cluster of two nodes started on this
machine with `ray start` (a head and a worker joining it, one CPU each). The runs stored are
the files a local sweep stores; a lost worker node's run is run again; a killed driver's sweep
resumes; bad input is one line with exit status 2 and nothing written."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from importlib.util import find_spec
from pathlib import Path

import pytest

import aqmlab
from aqmlab.engine.store import RunStore
from aqmlab.sweeps.experiment import Experiment
from conftest import REPO_ROOT, SCENARIO1, assert_usage_error, run_cli

needs_ray = pytest.mark.skipif(
    find_spec("ray") is None, reason="ray is not installed (pip install 'aqmlab[ray]')"
)

EXPERIMENT = f"""
title = "cluster"
scenario = "{SCENARIO1.as_posix()}"
seeds = SEEDS
traces = true

[fixed]
"queue.aqm" = "red"
duration_s = DURATION
"measure.window" = "all"

[[axes]]
name = "N"
key = "traffic.schedule.flows"
values = [10, 20]

[plot]
kind = "traces"
lines = "N"
"""


def _experiment(tmp_path: Path, seeds: int, duration_s: float) -> Path:
    """2 x `seeds` runs with traces; a run of 300 s takes about half a second here."""
    text = EXPERIMENT.replace("SEEDS", str(list(range(1, seeds + 1))))
    path = tmp_path / "cluster.toml"
    path.write_text(textwrap.dedent(text.replace("DURATION", str(duration_s))), "utf-8")
    return path


def _descendants(pid: int) -> set[int]:
    """Every live process below `pid` (Linux /proc): a Ray node's raylet, GCS and workers."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


class Node:
    """One `ray start --block` node; its processes all descend from the command."""

    def __init__(self, *args: str) -> None:
        ray = Path(sys.executable).with_name("ray")
        self.proc = subprocess.Popen(
            [str(ray), "start", "--block", "--num-cpus=1", "--disable-usage-stats", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def kill(self) -> None:
        """Lose the node at once, as when its machine goes down."""
        for pid in _descendants(self.proc.pid) | {self.proc.pid}:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        tree = _descendants(self.proc.pid)
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
        for pid in tree | _descendants(self.proc.pid) | {self.proc.pid}:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _wait_for_cpus(address: str, cpus: int) -> None:
    import ray

    ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        deadline = time.monotonic() + 60
        while ray.cluster_resources().get("CPU", 0) != cpus:
            assert time.monotonic() < deadline, f"the cluster did not reach {cpus} CPUs"
            time.sleep(0.2)
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def cluster():
    """The address of a head node and a worker joined to it, with a token of their own (the
    drivers, in this process and its children, get it from the environment)."""
    saved = {k: os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")}
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=uuid.uuid4().hex)
    port = _free_port()
    address = f"127.0.0.1:{port}"
    nodes = [Node("--head", f"--port={port}", "--include-dashboard=false")]
    try:
        deadline = time.monotonic() + 60
        while not _listening(port):
            assert time.monotonic() < deadline, "the head node did not start"
            time.sleep(0.2)
        nodes.append(Node(f"--address={address}"))
        _wait_for_cpus(address, 2)
        yield address, nodes
    finally:
        for node in reversed(nodes):
            node.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _comparable(path: Path) -> bytes | dict:
    """A stored file's content: the Parquet bytes, or the record without its timings."""
    if path.suffix == ".json":
        record = json.loads(path.read_text(encoding="utf-8"))
        return {k: v for k, v in record.items() if k not in ("wall_s", "cpu_s")}
    return path.read_bytes()


@needs_ray
def test_cluster_sweep_stores_the_files_of_a_local_sweep(tmp_path, cluster):
    address, _ = cluster
    exp = Experiment.load(_experiment(tmp_path, seeds=2, duration_s=20.0))
    on_ray = aqmlab.sweep(exp, tmp_path / "ray", progress=False, backend="ray", address=address)
    local = aqmlab.sweep(exp, tmp_path / "local", jobs=2, progress=False)
    assert len(on_ray) == len(local) == 4
    files = sorted(p.name for p in (tmp_path / "local" / "runs").iterdir())
    assert sorted(p.name for p in (tmp_path / "ray" / "runs").iterdir()) == files
    assert sum(name.endswith(".parquet") for name in files) == 4
    for name in files:
        ray_file, local_file = (tmp_path / d / "runs" / name for d in ("ray", "local"))
        assert _comparable(ray_file) == _comparable(local_file), name
    assert (tmp_path / "ray" / "results.parquet").read_bytes() == (
        tmp_path / "local" / "results.parquet"
    ).read_bytes()


def _sweep_args(path: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "aqmlab.cli", "sweep", str(path), "--out", str(out), *extra]


def _wait_until_simulating(node: Node, proc: subprocess.Popen) -> None:
    """Until one of `node`'s worker processes is inside a run (Ray titles it `ray::simulate`
    while the task executes and `ray::IDLE` between tasks)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        for pid in _descendants(node.proc.pid):
            try:
                title = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if title.startswith(b"ray::simulate"):
                return
        time.sleep(0.01)
    raise AssertionError("the node ran no simulation within 60 s")


def _wait_for_records(out: Path, count: int, proc: subprocess.Popen) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        stored = len(RunStore(out).ids())
        if stored >= count:
            return stored
        time.sleep(0.02)
    raise AssertionError(f"fewer than {count} runs stored within 60 s")


@needs_ray
def test_lost_worker_node_run_is_run_again(tmp_path, cluster):
    address, nodes = cluster
    doomed = Node(f"--address={address}")
    nodes.append(doomed)
    _wait_for_cpus(address, 3)
    path, out = _experiment(tmp_path, seeds=6, duration_s=600.0), tmp_path / "out"
    args = _sweep_args(path, out, "--backend", "ray", "--address", address)
    proc = subprocess.Popen(args, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_until_simulating(doomed, proc)  # a run of about a second is in flight there
    doomed.kill()
    stdout, stderr = (s.decode() for s in proc.communicate(timeout=120))
    assert proc.returncode == 0, stderr
    assert "12 runs: 12 simulated, 0 reused, 0 failed" in stdout
    assert "run again after an error" in stdout
    assert "failed and was run again: " in stderr
    assert len(RunStore(out).ids()) == 12


@needs_ray
def test_killed_driver_sweep_resumes_with_the_same_command(tmp_path, cluster):
    address, _ = cluster
    path, out = _experiment(tmp_path, seeds=5, duration_s=300.0), tmp_path / "out"
    args = _sweep_args(path, out, "--backend", "ray", "--address", address, "--quiet")
    proc = subprocess.Popen(args, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for_records(out, 2, proc)
    proc.kill()
    proc.communicate(timeout=30)
    stored = len(RunStore(out).ids())
    assert 2 <= stored < 10
    assert not (out / "results.parquet").exists()
    again = subprocess.run(args, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert f"10 runs: {10 - stored} simulated, {stored} reused, 0 failed" in again.stdout
    assert not [p for p in (out / "runs").iterdir() if ".tmp-" in p.name]


@needs_ray
def test_ray_instance_on_this_machine_counts_runs_in_the_progress_lines(tmp_path):
    path, out = _experiment(tmp_path, seeds=2, duration_s=20.0), tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_AUTH_MODE"] = "disabled"  # this instance listens on this machine only
    proc = subprocess.run(
        _sweep_args(path, out, "--backend", "ray", "--jobs", "2"),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "4 runs: 4 simulated, 0 reused, 0 failed" in proc.stdout
    assert "cluster: 4/4 runs (100 %)" in proc.stderr and "done" in proc.stderr
    assert len(RunStore(out).ids()) == 4


@pytest.mark.parametrize(
    "extra, fragments",
    [
        (["--backend", "spark"], ["--backend", "'local', 'ray'"]),
        (["--backend", "ray", "--address", "head-node"], ["--address head-node", "HOST:PORT"]),
        (["--backend", "ray", "--address", "h:99999"], ["--address h:99999", "auto"]),
        (["--address", "auto"], ["--address auto: only with --backend ray"]),
    ],
)
def test_bad_backend_or_address_is_one_line_exit_2(tmp_path, extra, fragments):
    path, out = _experiment(tmp_path, seeds=1, duration_s=1.0), tmp_path / "out"
    assert_usage_error(run_cli("sweep", str(path), "--out", str(out), *extra), *fragments)
    assert_usage_error(run_cli("reproduce", "betared", "--out", str(out), *extra), *fragments)
    assert not out.exists()


@needs_ray
def test_unreachable_cluster_is_one_line_exit_2(tmp_path):
    path, out = _experiment(tmp_path, seeds=1, duration_s=1.0), tmp_path / "out"
    address = f"127.0.0.1:{_free_port()}"
    proc = run_cli("sweep", str(path), "--out", str(out), "--backend", "ray", "--address", address)
    assert_usage_error(proc, f"--address {address}: no Ray cluster answers there")
    assert not out.exists()


def test_missing_ray_is_one_line_exit_2(tmp_path):
    """A `ray` that cannot be imported (as when it is not installed)."""
    fake = tmp_path / "site" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named ray')\n", "utf-8")
    path, out = _experiment(tmp_path, seeds=1, duration_s=1.0), tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    proc = subprocess.run(
        [*_sweep_args(path, out, "--backend", "ray")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert_usage_error(proc, "--backend ray: the ray package is not installed", "aqmlab[ray]")
    assert not out.exists()


def test_commands_do_not_import_ray():
    code = (
        "import sys, aqmlab, aqmlab.cli, aqmlab.sweeps, aqmlab.papers.reproduce\n"
        "assert 'ray' not in sys.modules, 'ray imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
