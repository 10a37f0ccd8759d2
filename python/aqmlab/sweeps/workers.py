"""Set-up of the worker processes of a local sweep: they leave Ctrl-C to their parent and end
when their parent ends, however it ends (`kill -9` included)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal this process gets when its parent exits (Linux)."""

WATCH_INTERVAL_S = 1.0


def _watch_parent(parent: int) -> None:
    """Exit as soon as the parent is gone (the process is then adopted by another)."""
    while True:
        time.sleep(WATCH_INTERVAL_S)
        if os.getppid() != parent:
            os._exit(1)


def init_worker(parent: int) -> None:
    """Initializer of a sweep's worker process; `parent` is the PID of the sweep.

    SIGINT is ignored: the worker finishes and stores the run it holds, and the parent
    decides when to stop. SIGTERM gets its default action back (the parent's handler is
    inherited through fork). On Linux the kernel kills the worker when its parent dies
    (PR_SET_PDEATHSIG); elsewhere, and as a second line on Linux, a thread exits the
    worker once its parent has gone, at the latest when the run in hand ends.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
