"""Ctrl-C and SIGTERM: both stop a command the same way (what is finished is kept) and end
it with status 128 + the signal number (130 and 143)."""

from __future__ import annotations

import signal
from types import FrameType


class Interrupted(KeyboardInterrupt):
    """A command stopped by a signal; `detail` says what was kept and how to go on."""

    SIGINT = int(signal.SIGINT)

    def __init__(self, signum: int = SIGINT, detail: str = "") -> None:
        super().__init__(detail)
        self.signum = int(signum)
        self.detail = detail

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def handle_sigterm() -> None:
    """Make SIGTERM raise `Interrupted` in the main thread, as Ctrl-C raises
    KeyboardInterrupt."""
    signal.signal(signal.SIGTERM, _on_sigterm)
