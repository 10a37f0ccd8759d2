"""The Ray backend of a sweep (`aqmlab sweep --backend ray`): runs are simulated as Ray tasks
anywhere on a cluster, and each comes back to the driver as the bytes of its stored files
(`sweeps.FinishedRun`), which the driver writes. Nodes need aqmlab (the same version) and Ray
installed, not a shared filesystem.

Ray is imported only here, and only when this backend is used."""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, wait
from contextlib import contextmanager, suppress
from typing import Any

from .experiment import RunSpec
from .runs import BackendError, FinishedRun, simulate

ADDRESS_HELP = "auto (the cluster this machine belongs to) or HOST:PORT of the head node"
CONNECT_TIMEOUT_S = 5.0
"""How long the head node's port may take to accept a connection before the address is
refused (Ray itself would keep trying for minutes)."""


def check_address(text: str) -> str:
    """`auto` or `HOST:PORT` (port 1..65535); raises `BackendError` naming --address."""
    host, sep, port = text.rpartition(":")
    ok = text == "auto" or (
        bool(sep) and bool(host.strip()) and port.isdigit() and 1 <= int(port) <= 65535
    )
    if not ok or any(c.isspace() for c in text):
        raise BackendError(f"--address {text}: expected {ADDRESS_HELP}")
    return text


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BackendError(
            "--backend ray: the ray package is not installed; "
            "pip install 'aqmlab[ray]' (or choose --backend local)"
        ) from None
    return ray


def _check_reachable(address: str) -> None:
    """Fail at once, naming the address, when nothing listens at HOST:PORT."""
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT_S).close()
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise BackendError(
            f"--address {address}: no Ray cluster answers there ({reason}); "
            "start one with `ray start --head`"
        ) from None


@contextmanager
def connect(address: str | None = None, jobs: int | None = None) -> Iterator[None]:
    """Connect this process to a Ray cluster for the duration of the block.

    `address` None starts a Ray instance on this machine for the sweep, with `jobs` CPUs
    (default: all); `auto` joins the cluster this machine belongs to (`ray start`, or the
    RAY_ADDRESS environment variable); `HOST:PORT` joins the cluster whose head node listens
    there. When this process is already connected (`ray.init` called before), that connection
    is used and kept. Raises `BackendError` when ray is missing or the cluster unreachable.
    """
    if address is not None:
        check_address(address)
    ray = _import_ray()
    if ray.is_initialized():
        yield
        return
    target = address or "local"
    if target == "auto" and os.environ.get("RAY_ADDRESS"):
        target = os.environ["RAY_ADDRESS"]
    if target not in ("auto", "local") and "://" not in target:
        _check_reachable(target)
    main = threading.current_thread() is threading.main_thread()
    sigterm = signal.getsignal(signal.SIGTERM) if main else None
    try:
        ray.init(
            address=target,
            num_cpus=jobs if target == "local" else None,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    except (ConnectionError, RuntimeError, ValueError) as e:
        text = " ".join(str(e).split())
        raise BackendError(
            f"--address {address or 'local'}: cannot start or join Ray: {text}"
        ) from None
    finally:
        if main:  # ray.init replaces the SIGTERM handler; a sweep keeps its own
            signal.signal(signal.SIGTERM, sigterm)
    try:
        yield
    finally:
        ray.shutdown()


class RayPool:
    """Runs as Ray tasks of one CPU each on the connected cluster. Ray does not retry them
    itself (`max_retries=0`): the sweep's own retry applies, as on local workers."""

    def __init__(self, jobs: int | None = None) -> None:
        self.ray = _import_ray()
        self.jobs = jobs
        self.task = self.ray.remote(num_cpus=1, max_retries=0)(simulate)
        self.refs: dict[Future[FinishedRun], Any] = {}

    def slots(self) -> int:
        """`jobs`, or the cluster's CPUs now (nodes may join or leave during a sweep)."""
        if self.jobs:
            return self.jobs
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def submit(self, spec: RunSpec) -> Future[FinishedRun]:
        ref = self.task.remote(spec)
        out: Future[FinishedRun] = Future()
        task_error = self.ray.exceptions.RayTaskError

        def settle(done: Future) -> None:
            self.refs.pop(out, None)
            try:
                out.set_result(done.result())
            except task_error as e:  # the run's own error, not Ray's wrapper and traceback
                out.set_exception(e.cause if isinstance(e.cause, Exception) else e)
            except Exception as e:  # a lost worker or node
                out.set_exception(e)

        ref.future().add_done_callback(settle)
        self.refs[out] = ref
        return out

    def close(self, running: Iterable[Future[FinishedRun]], interrupted: bool) -> None:
        """When interrupted, wait for the runs in flight (at most one per CPU); otherwise
        cancel them."""
        running = list(running)
        if interrupted:
            wait(running)
        for future in running:
            if not future.done():
                with suppress(Exception):
                    self.ray.cancel(self.refs[future], force=True)
        self.refs.clear()
