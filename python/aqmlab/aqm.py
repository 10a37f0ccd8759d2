"""The AQMs as objects stepped by hand, outside the simulator (for notebooks and plots).

>>> from aqmlab import aqm
>>> red = aqm.make("betared", q_target_pkts=250.0, theta=0.1)
>>> red.drop_probability([200.0, 250.0, 300.0])   # the drop curve at those q_avg
>>> red.enqueue(0.0, queue_pkts=120)              # "accept", "early_drop" or "forced_drop"
>>> red.state                                     # q_avg, p, and the adapted parameters
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _core


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
    """An AQM instance for a queue of `limit_pkts` packets feeding a `rate_mbps` link, with the
    parameters of its `[queue.<name>]` scenario table as keywords (unset ones take their
    defaults, docs/aqm/). Raises `ScenarioError` for an unknown AQM or a bad parameter.

    The object has `enqueue(now_s, queue_pkts, size_bytes=1000, ect=False)`,
    `dequeue(now_s, sojourn_s, queue_pkts, ...)`, `timer(now_s, queue_pkts)`,
    `next_timer_s`, `state` (a dict) and `drop_probability(q_avg_list)` (RED family).
    """
    stepper = getattr(_core, "AqmStepper", None)
    if stepper is None:
        raise RuntimeError("this build of aqmlab has no AQM stepper (rebuild with `make build`)")
    return stepper(name, dict(params), rate_mbps=rate_mbps, limit_pkts=limit_pkts, seed=seed)


def drop_curve(name: str, q_avg_pkts: Sequence[float], **params: Any) -> np.ndarray:
    """The drop probability of a RED-family AQM in its initial state at each averaged queue
    length in `q_avg_pkts`; keywords as for `make`."""
    limit = params.pop("limit_pkts", 1000)
    rate = params.pop("rate_mbps", 50.0)
    instance = make(name, rate_mbps=rate, limit_pkts=limit, **params)
    return np.asarray(instance.drop_probability([float(q) for q in q_avg_pkts]), dtype=float)
