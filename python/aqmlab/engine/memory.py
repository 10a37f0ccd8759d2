"""The memory a run will need, estimated before it starts, and the budget it must fit in.

A run's memory is mostly its result tables: the core holds them as columns, hands them to
Python as lists and writes them through Arrow. `aqmlab run` measured 39 bytes per value at its
peak (10⁶ samples of a one-port run: 1.2·10⁷ values, 454 MB above the 83 MB of a small run)
and 2.2 kB per flow (10⁵ flows: the flow's state in the core and its row of the per-flow
table). The estimate takes 48 bytes per value, 2 kB per flow beyond its row, and 128 MiB for
the interpreter and libraries. A run whose estimate is above the budget is refused with one
line that gives the estimate and the key to change.

The budget is `--max-memory SIZE` (run, sweep, reproduce, the model commands), else the
environment variable `AQMLAB_MAX_MEMORY`, else 4 GiB. In a sweep it applies to each run (one
per worker process).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

from .. import _core

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

DEFAULT_BUDGET_BYTES = 4 * 2**30
ENV_VAR = "AQMLAB_MAX_MEMORY"

BYTES_PER_VALUE = 48
"""Bytes a value of a result table takes at the peak of a run (39 measured, see above)."""
BYTES_PER_FLOW = 2048
"""Bytes of a flow's state in the core (2.2 kB measured per flow, its table row included)."""
BASE_BYTES = 128 * 2**20
"""The interpreter, NumPy, Arrow and the core before any run (83 MB measured)."""

VALUE_KEYS = ("series_values", "port_series_values", "cwnd_values", "flow_values", "probe_values")
"""The tables of `_core.estimate_run`'s output size, in values."""

_SIZE = re.compile(r"(?P<number>\d+(\.\d+)?)\s*(?P<unit>[kmgt]?)(i?b)?", re.IGNORECASE)
_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


class MemoryBudgetError(ValueError):
    """A computation whose estimated memory is above the budget; the message is one line."""


def parse_size(text: str | int, name: str = "--max-memory") -> int:
    """A size in bytes from `8G`, `512MiB`, `1.5g`, `2000000000` (K, M, G and T are powers of
    1024); `MemoryBudgetError` naming `name` otherwise."""
    if isinstance(text, int) and not isinstance(text, bool) and text > 0:
        return text
    found = _SIZE.fullmatch(str(text).strip()) if isinstance(text, str) else None
    size = float(found["number"]) * _UNITS[found["unit"].lower()] if found else 0.0
    if not 1 <= size < 2**63:
        raise MemoryBudgetError(
            f"{name}: {text!r:.40} is not a size; give bytes or a number with K, M, G or T "
            "(powers of 1024), such as 8G"
        )
    return int(size)


def budget(max_memory: str | int | None = None) -> int:
    """The budget in bytes: `max_memory` when given, else `AQMLAB_MAX_MEMORY`, else 4 GiB."""
    if max_memory is not None:
        return parse_size(max_memory)
    env = os.environ.get(ENV_VAR)
    return parse_size(env, ENV_VAR) if env else DEFAULT_BUDGET_BYTES


def gib(n_bytes: float) -> str:
    """`4.7 GiB`, `512 MiB`, `1 KiB`: a budget below a mebibyte is not shown as 0 MiB."""
    if n_bytes >= 2**30:
        return f"{n_bytes / 2**30:.1f} GiB"
    if n_bytes >= 2**20:
        return f"{n_bytes / 2**20:.0f} MiB"
    return f"{n_bytes / 2**10:.0f} KiB" if n_bytes >= 2**10 else f"{n_bytes:.0f} bytes"


def run_need(size: Mapping[str, int]) -> int:
    """The estimated peak memory of a run of this output size (`_core.estimate_run`)."""
    values = sum(size[k] for k in VALUE_KEYS)
    return BASE_BYTES + BYTES_PER_VALUE * values + BYTES_PER_FLOW * size["flows"]


def _largest(size: Mapping[str, int]) -> str:
    """What to change to shrink the largest part of a run's output."""
    parts = {
        "series": size["series_values"] + size["port_series_values"],
        "cwnd": size["cwnd_values"],
        "probes": size["probe_values"],
        "flows": (BYTES_PER_VALUE * size["flow_values"] + BYTES_PER_FLOW * size["flows"])
        // BYTES_PER_VALUE,
    }
    biggest = max(parts, key=lambda k: parts[k])
    if biggest == "series":
        return (
            f"{size['samples']:,} samples × {size['ports']} port(s): raise "
            "measure.sample_interval_ms or shorten duration_s"
        )
    if biggest == "cwnd":
        return "the cwnd trace: trace fewer measure.cwnd_flows or raise measure.sample_interval_ms"
    if biggest == "probes":
        return f"{size['probes']:,} latency probes: fewer probe flows or a longer interval_ms"
    return f"{size['flows']:,} flows: fewer flows"


def check_run(
    text: str,
    sets: Sequence[tuple[str, str]] = (),
    seed: int | None = None,
    max_memory: str | int | None = None,
) -> dict[str, Any]:
    """Estimate a run of scenario `text` with overrides `sets` and refuse it, with
    `MemoryBudgetError`, when it would need more than the budget; returns the output size."""
    size = _core.estimate_run(text, list(sets), seed)
    need, allowed = run_need(size), budget(max_memory)
    if need > allowed:
        raise MemoryBudgetError(
            f"this run would need about {gib(need)} of memory, more than the {gib(allowed)} "
            f"allowed; most of it is {_largest(size)}; or allow more with --max-memory "
            f"(or {ENV_VAR})"
        )
    return size


def check_rows(rows: int, bytes_per_row: int, what: str, max_memory: str | int | None) -> None:
    """Refuse, with `MemoryBudgetError`, result tables of `rows` rows of `bytes_per_row` when
    they would need more than the budget; `what` names the options that set `rows`."""
    need, allowed = BASE_BYTES + rows * bytes_per_row, budget(max_memory)
    if need > allowed:
        raise MemoryBudgetError(
            f"{what} = {rows:,} rows would need about {gib(need)} of memory, more than the "
            f"{gib(allowed)} allowed; ask for fewer, or allow more with --max-memory "
            f"(or {ENV_VAR})"
        )
