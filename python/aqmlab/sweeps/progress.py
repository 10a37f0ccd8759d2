"""Progress of a long command on stderr: a tqdm bar on a terminal; off a terminal (nohup, a
log file, a pipe) a short line when the job starts, every few seconds, and when it ends."""

from __future__ import annotations

import sys
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from tqdm import tqdm

LINE_INTERVAL_S = 5.0
"""Seconds between progress lines when stderr is not a terminal."""


def _duration(seconds: float) -> str:
    """`75` -> `1 min 15 s`; `3700` -> `1 h 2 min`."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


class Progress:
    """Progress over `total` units (`unit`: "run", "s" of simulated time, ...)."""

    def __init__(
        self, total: float, desc: str, unit: str, enabled: bool = True, initial: float = 0
    ) -> None:
        self.total, self.desc, self.unit = total, desc, unit
        self.n = initial
        self._start = time.monotonic()
        self._last_line = self._start
        self._bar: tqdm | None = None
        self._lines = enabled and not sys.stderr.isatty()
        if enabled and not self._lines:
            from tqdm import tqdm  # only on a terminal: its import takes 50 ms

            self._bar = tqdm(
                total=total,
                initial=initial,
                desc=desc,
                unit=unit,
                file=sys.stderr,
                dynamic_ncols=True,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} {unit} "
                "[{elapsed}<{remaining}]",
            )
        if self._lines:
            self._line()

    def _line(self, final: bool = False) -> None:
        elapsed = time.monotonic() - self._start
        text = f"{self.desc}: {self.n:.0f}/{self.total:.0f} {self.unit}"
        if self.total > 0:
            text += f" ({100.0 * self.n / self.total:.0f} %)"
        text += f", {_duration(elapsed)} elapsed"
        if final:
            text += ", done" if self.n >= self.total else ", stopped"
        elif 0 < self.n < self.total and elapsed > 0:
            text += f", about {_duration(elapsed * (self.total - self.n) / self.n)} left"
        print(text, file=sys.stderr, flush=True)
        self._last_line = time.monotonic()

    def update_to(self, n: float) -> None:
        """Set the amount done to `n`."""
        step = max(0.0, n - self.n)
        self.n = max(self.n, n)
        if self._bar is not None:
            self._bar.update(step)
        elif self._lines and time.monotonic() - self._last_line >= LINE_INTERVAL_S:
            self._line()

    def update(self, step: float = 1) -> None:
        """Add `step` to the amount done."""
        self.update_to(self.n + step)

    def close(self) -> None:
        """End the bar, or print the last line."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._lines:
            self._lines = False
            self._line(final=True)
