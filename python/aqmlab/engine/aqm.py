"""The AQMs as objects stepped by hand, outside the simulator (for notebooks and plots), and
the description of every AQM's parameters.

>>> from aqmlab import aqm
>>> red = aqm.make("betared", q_target_pkts=250.0, theta=0.1)
>>> red                                           # AqmStepper('betared', limit_pkts=1000, ...)
>>> red.drop_probability([200.0, 250.0, 300.0])   # the drop curve at those q_avg
>>> red.enqueue(0.0, queue_pkts=120)              # "accept", "early_drop" or "forced_drop"
>>> red.state                                     # q_avg, p, and the adapted parameters
>>> aqm.params("betared")                         # name, unit, default, allowed, help
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from .tables import render_table

if TYPE_CHECKING:
    import pandas as pd

PARAM_COLUMNS = ("name", "unit", "default", "allowed", "help")
"""The columns of `params`."""


def names() -> list[str]:
    """The AQMs this build knows (the values `queue.aqm` accepts)."""
    return list(_core.catalog()["aqms"])


def make(
    name: str,
    rate_mbps: float = 50.0,
    limit_pkts: int = 1000,
    seed: int = 1,
    **params: Any,
):
    """An AQM instance for a queue of `limit_pkts` packets (1..2^32-1) feeding a `rate_mbps`
    link (> 0), drawing from random stream `seed` (0..2^64-1), with the parameters of its
    `[queue.<name>]` scenario table as keywords (unset ones take their defaults: `params`).
    Raises `ScenarioError`, one line naming the argument or parameter, for an unknown AQM or a
    bad value.

    The object has `enqueue(now_s, queue_pkts, size_bytes=1000, ect=False, queue_bytes=None)`,
    `dequeue(now_s, sojourn_s, queue_pkts, ...)`, `timer(now_s, queue_pkts)`, `next_timer_s`,
    `state` (a dict), `params` (the parameters in force, a dict) and
    `drop_probability(q_avg_list)` (RED family). Stepping raises ValueError, one line, when
    time goes backwards, `queue_pkts` exceeds `limit_pkts`, `sojourn_s` exceeds `now_s`, the
    timer runs before `next_timer_s`, or a q_avg is negative or not finite.
    """
    stepper = getattr(_core, "AqmStepper", None)
    if stepper is None:
        raise RuntimeError("this build of aqmlab has no AQM stepper (rebuild with `make build`)")
    return stepper(name, dict(params), rate_mbps=rate_mbps, limit_pkts=limit_pkts, seed=seed)


def drop_curve(name: str, q_avg_pkts: Sequence[float], **params: Any) -> np.ndarray:
    """The drop probability of a RED-family AQM in its initial state at each averaged queue
    length in `q_avg_pkts` (finite, >= 0); keywords as for `make`."""
    limit = params.pop("limit_pkts", 1000)
    rate = params.pop("rate_mbps", 50.0)
    instance = make(name, rate_mbps=rate, limit_pkts=limit, **params)
    return np.asarray(instance.drop_probability(q_avg_pkts), dtype=float)


def params(name: str | None = None) -> pd.DataFrame:
    """The parameters of AQM `name` (the keys of its `[queue.<name>]` table), one row each in
    the order of its parameter struct: `name`, `unit` (empty for a pure number, a flag or a
    choice), `default`, `allowed` (the values its validation accepts) and `help`. Drop tail
    has none (an empty frame). With `name` None: every AQM, with a first column `aqm`.
    Raises `ScenarioError` listing the AQMs for an unknown name. The descriptions sit next to
    each parameter struct in `crates/aqm/src/<family>/<aqm>.rs`."""
    import pandas as pd

    chosen = names() if name is None else [name]
    rows = [{"aqm": aqm, **row} for aqm in chosen for row in _core.aqm_params(aqm)]
    columns = list(PARAM_COLUMNS) if name is not None else ["aqm", *PARAM_COLUMNS]
    df = pd.DataFrame(rows, columns=columns)
    # The defaults keep their Python types (1500 stays an int next to 5.0, True a bool).
    df["default"] = pd.Series([row["default"] for row in rows], index=df.index, dtype=object)
    return df


def _literal(value: Any) -> str:
    """A default as a scenario file writes it (`true`, `0.002`, `wait`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def params_text(name: str) -> str:
    """The parameters of AQM `name` as a text table under a heading (what
    `aqmlab list --params NAME` prints)."""
    df = params(name)
    if df.empty:
        return f"{name}: no parameters"
    rows = [
        [row["name"], row["unit"], _literal(row["default"]), row["allowed"], row["help"]]
        for _, row in df.iterrows()
    ]
    heading = f"{name}: parameters of [queue.{name}]"
    return heading + "\n" + render_table(list(PARAM_COLUMNS), rows, text_columns=len(PARAM_COLUMNS))
