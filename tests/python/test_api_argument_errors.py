"""Every integer, float and flag argument of `aqmlab.aqm` and `aqmlab.model`: a wrong type or a
value out of range is a ValueError (ScenarioError when building an AQM) whose one line names
the argument and what is allowed, never a bare OverflowError or TypeError."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aqmlab import _core, model
from aqmlab.engine import aqm

BAD_INTS = [-1, 2**64, 2**200, 1.5, "3", True, None]


def _one_line(info: pytest.ExceptionInfo, start: str) -> str:
    message = str(info.value)
    assert message.startswith(start), message
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    "kwargs, start",
    [
        ({"limit_pkts": -1}, "limit_pkts: must be an integer in 1..2^32-1, got -1"),
        ({"limit_pkts": 0}, "limit_pkts: must be an integer in 1..2^32-1, got 0"),
        ({"limit_pkts": 2**32}, "limit_pkts: must be an integer in 1..2^32-1, got 4294967296"),
        ({"limit_pkts": 100.0}, "limit_pkts: must be an integer in 1..2^32-1, got 100.0"),
        ({"seed": -1}, "seed: must be an integer in 0..2^64-1, got -1"),
        ({"seed": 2**64}, "seed: must be an integer in 0..2^64-1, got 18446744073709551616"),
        ({"seed": True}, "seed: must be an integer in 0..2^64-1, got True"),
        ({"rate_mbps": 0}, "rate_mbps: must be a number > 0, got 0"),
        ({"rate_mbps": math.nan}, "rate_mbps: must be a number > 0, got nan"),
        ({"rate_mbps": "fast"}, "rate_mbps: must be a number > 0, got 'fast'"),
        ({"p_max": 2**70}, "red.p_max: must be an integer in -2^63..2^63-1, got 11805916"),
        ({"p_max": [0.1]}, "red.p_max: must be a bool, int, float or str, got [0.1]"),
        ({"p_max": math.nan}, "red.p_max: must be in (0, 1]"),
        ({"q_max_pkts": math.inf}, "red.q_max_pkts: must be greater than q_min_pkts"),
    ],
)
def test_make_arguments(kwargs, start):
    with pytest.raises(_core.ScenarioError) as info:
        aqm.make("red", **kwargs)
    _one_line(info, start)


def test_make_accepts_numpy_integers_and_the_extremes():
    q = aqm.make("red", limit_pkts=np.int64(10), seed=np.uint64(2**64 - 1))
    assert "limit_pkts=10" in repr(q) and f"seed={2**64 - 1}" in repr(q)
    aqm.make("red", limit_pkts=2**32 - 1, seed=0)


@pytest.mark.parametrize("value", BAD_INTS)
def test_every_stepper_integer_names_itself(value):
    q = aqm.make("red", limit_pkts=100)
    calls = {
        "queue_pkts": lambda v: q.enqueue(0.0, queue_pkts=v),
        "size_bytes": lambda v: q.enqueue(0.0, queue_pkts=1, size_bytes=v),
        "queue_bytes": lambda v: q.enqueue(0.0, queue_pkts=1, queue_bytes=v),
    }
    for name, call in calls.items():
        if value is None and name != "queue_pkts":
            continue  # None is the default of the optional ones
        with pytest.raises(ValueError) as info:
            call(value)
        assert not isinstance(info.value, (OverflowError, TypeError))
        _one_line(info, f"{name}: must be an integer in ")
    with pytest.raises(ValueError) as info:
        q.dequeue(0.0, 0.0, queue_pkts=value)
    _one_line(info, "queue_pkts: must be an integer in 0..100 (at most limit_pkts), got ")


def test_stepper_floats_and_flags():
    q = aqm.make("red")
    for bad in (-1.0, math.nan, math.inf, "0", None, 1e11):
        with pytest.raises(ValueError) as info:
            q.enqueue(bad, queue_pkts=1)
        _one_line(info, "now_s: must be a time in seconds in [0, 1.8e10], got ")
    with pytest.raises(ValueError) as info:
        q.enqueue(0.0, queue_pkts=1, ect=1)
    _one_line(info, "ect: must be True or False, got 1")
    with pytest.raises(ValueError) as info:
        q.dequeue(1.0, sojourn_s=math.nan, queue_pkts=1)
    _one_line(info, "sojourn_s: must be a time in seconds in [0, now_s] = [0, 1.0], got nan")
    with pytest.raises(ValueError) as info:
        q.drop_probability("100")
    _one_line(info, "q_avg_pkts: must be a sequence of finite numbers >= 0, got '100'")
    assert q.enqueue(np.float64(2.0), queue_pkts=np.int32(5), ect=np.bool_(True)) == "accept"


@pytest.mark.parametrize(
    "call, start",
    [
        (lambda: model.orbit(steps=-1), "steps: must be an integer in 0..49999999, got -1"),
        (lambda: model.orbit(steps=2**64), "steps: must be an integer in 0..49999999, got "),
        (lambda: model.orbit(steps=2.5), "steps: must be an integer in 0..49999999, got 2.5"),
        (lambda: model.orbit(q0_pkts="x"), "q0_pkts: must be a number, got 'x'"),
        (lambda: model.orbit(q0_pkts=math.nan), "q0_pkts: must be in [0, buffer_pkts]"),
        (lambda: model.map_curve(points=1), "points: must be an integer in 2..50000000, got 1"),
        (lambda: model.map_curve(points=-5), "points: must be an integer in 2..50000000, got -5"),
        (lambda: model.fixed_points({"w": math.nan}), "w: must be a finite number, got nan"),
        (lambda: model.fixed_points({"q_target_pkts": math.inf}), "q_target_pkts: must be a fin"),
        (lambda: model.fixed_points({"N": True}), "N: must be a finite number, got True"),
        (lambda: model.fixed_points({1: 2.0}), "params: names must be str, got 1"),
        (lambda: model.fixed_points([("w", 0.1)]), "params: must be a mapping"),
        (lambda: model.p_max_for_target("x"), "q_target_pkts: must be a finite number, got 'x'"),
    ],
)
def test_model_single_call_arguments(call, start):
    with pytest.raises(ValueError) as info:
        call()
    assert not isinstance(info.value, (OverflowError, TypeError))
    _one_line(info, start)


SWEEP_OPTIONS = [
    ({"iterations": 0}, "iterations: must be an integer in 1..2^64-1, got 0"),
    ({"iterations": -1}, "iterations: must be an integer in 1..2^64-1, got -1"),
    ({"iterations": 2**64}, "iterations: must be an integer in 1..2^64-1, got "),
    ({"iterations": 1e4}, "iterations: must be an integer in 1..2^64-1, got 10000.0"),
    ({"transient": -1}, "transient: must be an integer in 0..9999 (below iterations), got -1"),
    ({"transient": 10_000}, "transient: must be an integer in 0..9999 (below iterations)"),
    ({"max_period": 0}, "max_period: must be an integer in 1..100000, got 0"),
    ({"max_period": -3}, "max_period: must be an integer in 1..100000, got -3"),
    ({"period_tol_pkts": -1.0}, "period_tol_pkts: must be a number > 0"),
    ({"period_tol_pkts": "x"}, "period_tol_pkts: must be a number, got 'x'"),
    ({"early_exit": "no"}, "early_exit: must be True or False, got 'no'"),
    ({"threads": -1}, "threads: must be an integer in 0..1024 (0: every core), got -1"),
    ({"threads": 2**64}, "threads: must be an integer in 0..1024 (0: every core), got "),
    ({"q0_pkts": -1.0}, "q0_pkts: must be in [0, buffer_pkts]"),
]


@pytest.mark.parametrize("options, start", SWEEP_OPTIONS)
def test_bifurcation_and_stability_map_options(options, start):
    with pytest.raises(ValueError) as info:
        model.bifurcation("w", [0.1], **options)
    _one_line(info, start)
    with pytest.raises(ValueError) as info:
        model.stability_map("w", [0.1], "p_max", [0.1], **options)
    _one_line(info, start)


@pytest.mark.parametrize(
    "options, start",
    [
        ({"keep": -1}, "keep: must be an integer in 0..5000 (at most iterations - transient), got"),
        ({"keep": 5001}, "keep: must be an integer in 0..5000 (at most iterations - transient)"),
        ({"keep": 2**70}, "keep: must be an integer in 0..5000"),
        ({"iterations": 10**9, "transient": 0, "keep": 10**8}, "keep: 100000000 iterates × 1"),
    ],
)
def test_bifurcation_keep(options, start):
    with pytest.raises(ValueError) as info:
        model.bifurcation("w", [0.1], **options)
    _one_line(info, start)


@pytest.mark.parametrize(
    "values, start",
    [
        ([0.1, math.nan], "values: must be finite numbers, got nan at index 1"),
        ([0.1, math.inf], "values: must be finite numbers, got inf at index 1"),
        ([0.1, "x"], "values: must be finite numbers, got 'x' at index 1"),
        ("0.1", "values: must be a sequence of finite numbers, got '0.1'"),
        (0.1, "values: must be a sequence of finite numbers, got 0.1"),
    ],
)
def test_sweep_values(values, start):
    with pytest.raises(ValueError) as info:
        model.bifurcation("w", values)
    _one_line(info, start)
    with pytest.raises(ValueError) as info:
        model.stability_map("w", values, "p_max", [0.1])
    _one_line(info, start.replace("values", "x_values", 1))


def test_numpy_values_and_counts_are_accepted():
    bif = model.bifurcation(
        "w", np.array([0.1, 0.12]), iterations=np.int64(1000), keep=np.int32(3), threads=1
    )
    assert len(bif.points) == 6
    assert len(model.orbit(steps=np.uint8(4))) == 5
