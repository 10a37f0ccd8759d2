"""The engine's results do not move under performance work: the raw output of the core (every
table and summary value) for five small scenarios, hashed, against digests taken before the
event list became lanes and two heaps (docs/architecture.md, "The event list"). A change that
is meant to change results (a model fix) updates the digests in the same commit and says why;
`python tests/python/test_engine_golden.py` prints them."""

import hashlib
import json
import math
from pathlib import Path

import pytest

from aqmlab import _core
from aqmlab.engine.scenario import Scenario

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    ("betared/scenario2.toml", [("duration_s", "20")], "6d31203b804ae7ac"),
    (
        "betared/scenario1.toml",
        [("duration_s", "10"), ("queue.aqm", "betared")],
        "52b46e3cb8a19273",
    ),
    (
        "li2014/table15_16_two_bottlenecks.toml",
        [("duration_s", "5"), ("queue.aqm", "pi")],
        "a4c096aaa3d8fe51",
    ),
    (
        "li2014/table14_tcp_with_udp_onoff.toml",
        [("duration_s", "5"), ("queue.aqm", "codel")],
        "6a8cfb68428478b9",
    ),
    (
        "chen2011/dumbbell.toml",
        [("duration_s", "20"), ("traffic.schedule.flows", "100")],
        "3ad1789713ae92b4",
    ),
]


def _clean(value):
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def digest(path: str, sets: list[tuple[str, str]]) -> str:
    scenario = Scenario.load(ROOT / "experiments" / path)
    out = _core.run_scenario(scenario.text, sets, None, None)
    return hashlib.sha256(json.dumps(_clean(out), sort_keys=True).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("path", "sets", "expected"), CASES)
def test_engine_output_is_unchanged(path, sets, expected):
    assert digest(path, sets) == expected


if __name__ == "__main__":
    for path, sets, _ in CASES:
        print(path, sets, digest(path, sets))
