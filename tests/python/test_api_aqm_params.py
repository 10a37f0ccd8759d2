"""Every AQM's parameter descriptions (`aqmlab.aqm.params`, `aqmlab list --params`): complete,
consistent with the keys the scenario reader accepts, and with ranges that match what each
AQM's validation enforces."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
import tomllib

from aqmlab import _core
from aqmlab.cli.main import main
from aqmlab.engine import aqm
from conftest import run_cli

AQMS = _core.catalog()["aqms"]
WITH_PARAMS = [name for name in AQMS if name != "droptail"]
FLOW_QUEUEING = set(_core.catalog()["flow_queueing"])


MINIMAL = """duration_s = 1.0
[queue]
aqm = "{name}"
[traffic.schedule]
kind = "constant"
flows = 1
"""


def _build(name: str, **params) -> dict:
    """The parameters in force when AQM `name` is built with `params`: by the stepper for a
    single-queue AQM, by resolving a scenario for a flow-queueing discipline (which the stepper
    refuses). Raises ScenarioError naming `<name>.<key>` for a bad value."""
    if name not in FLOW_QUEUEING:
        return aqm.make(name, **params).params
    sets = [(f"queue.{name}.{k}", _toml(v)) for k, v in params.items()]
    try:
        text = _core.resolve_scenario(MINIMAL.format(name=name), sets)
    except _core.ScenarioError as e:
        raise _core.ScenarioError(str(e).removeprefix("queue.")) from None
    return tomllib.loads(text)["queue"][name]


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def test_every_catalog_aqm_is_described_and_only_droptail_has_no_parameters():
    for name in AQMS:
        df = aqm.params(name)
        assert list(df.columns) == ["name", "unit", "default", "allowed", "help"]
        assert df.empty == (name == "droptail"), name
        assert df["name"].is_unique
        assert (df["allowed"] != "").all() and (df["help"] != "").all()
    everything = aqm.params()
    assert list(everything.columns) == ["aqm", "name", "unit", "default", "allowed", "help"]
    assert set(everything["aqm"]) == set(WITH_PARAMS)


@pytest.mark.parametrize("name", WITH_PARAMS)
def test_described_names_and_defaults_are_what_the_aqm_takes(name):
    df = aqm.params(name)
    defaults = dict(zip(df["name"], df["default"]))
    in_force = _build(name, **defaults)  # every described key is accepted, with its default
    assert in_force == defaults
    assert _build(name) == defaults  # and the defaults are the ones in force
    if name not in FLOW_QUEUEING:  # a resolved scenario table lists its keys sorted
        assert list(in_force) == list(df["name"])


def test_betared_table():
    df = aqm.params("betared").set_index("name")
    assert df.loc["theta", "allowed"] == "[0.005, 1)"
    assert df.loc["theta", "default"] == 0.1
    assert df.loc["q_target_pkts", "unit"] == "packets"
    assert df.loc["q_target_pkts", "allowed"] == "(q_min_pkts, q_max_pkts)"
    assert df.loc["spacing", "default"] == "none"
    assert str(df.loc["byte_mode", "default"]) == "False"


def test_unknown_aqm_lists_the_aqms():
    with pytest.raises(_core.ScenarioError) as info:
        aqm.params("blue")
    message = str(info.value)
    assert message.startswith('unknown AQM "blue"; allowed: ')
    assert all(name in message for name in AQMS)
    assert "\n" not in message


# Allowed-range texts simple enough to check mechanically against the validation.
NUMBER = r"(-?[0-9][0-9.e+-]*)"
INTERVAL = re.compile(rf"^([\[(]){NUMBER}, {NUMBER}([\])])$")
BOUND = re.compile(rf"^(>=?) {NUMBER}$")
INTEGER = re.compile(r"^integer in \[(\d+), 2\^32-1\]$")
INTEGER_IN = re.compile(r"^integer in \[(\d+), (\d+)\]$")


def _below(x: float) -> float:
    return x - (abs(x) * 0.01 if x else 0.01)


def _above(x: float) -> float:
    return x + (abs(x) * 0.01 if x else 0.01)


def _cases(allowed: str, default) -> tuple[list, list] | None:
    """Values the text allows and values it forbids, or None when the text is not simple.
    Inside an unbounded range the allowed value stays near the default, where the other
    parameters' defaults fit it."""
    if m := INTERVAL.match(allowed):
        lo_open, hi_open = m.group(1) == "(", m.group(4) == ")"
        lo, hi = float(m.group(2)), float(m.group(3))
        ok, bad = [(lo + hi) / 2], [math.nan, _below(lo), _above(hi)]
        (bad if lo_open else ok).append(lo)
        (bad if hi_open else ok).append(hi)
        return ok, bad
    if m := BOUND.match(allowed):
        lo = float(m.group(2))
        inside = 2.0 * default if default > lo else lo + 1.0
        ok, bad = [inside], [math.nan, math.inf, _below(lo)]
        (ok if m.group(1) == ">=" else bad).append(lo)
        return ok, bad
    if m := INTEGER.match(allowed):
        lo = int(m.group(1))
        return [lo, 2**32 - 1], [lo - 1, 2**32]
    if m := INTEGER_IN.match(allowed):
        lo, hi = int(m.group(1)), int(m.group(2))
        return [lo, hi], [lo - 1, hi + 1]
    return None


@pytest.mark.parametrize("name", WITH_PARAMS)
def test_allowed_ranges_match_the_validation(name):
    checked = 0
    for row in aqm.params(name).itertuples():
        cases = _cases(row.allowed, row.default)
        if cases is None:
            continue
        checked += 1
        ok, bad = cases
        for value in ok:
            _build(name, **{row.name: value})
        for value in bad:
            with pytest.raises(_core.ScenarioError, match=rf"^{name}\.{row.name}: "):
                _build(name, **{row.name: value})
    assert checked >= 1, name  # the test checks something for every AQM


def test_cli_list_params_prints_the_table():
    proc = run_cli("list", "--params", "betared")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "betared: parameters of [queue.betared]"
    assert lines[1].split() == ["name", "unit", "default", "allowed", "help"]
    theta = next(line for line in lines if line.startswith("theta "))
    assert "0.1" in theta and "[0.005, 1)" in theta
    assert any(line.startswith("byte_mode ") and " false " in line for line in lines)


def test_cli_list_params_without_a_name_lists_every_aqm(capsys):
    assert main(["list", "--params"]) == 0
    out = capsys.readouterr().out
    for name in WITH_PARAMS:
        assert f"{name}: parameters of [queue.{name}]" in out
    assert "droptail: no parameters" in out


def test_cli_list_params_unknown_aqm_is_one_line_exit_2():
    proc = run_cli("list", "--params", "blue")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith('aqmlab: error: unknown AQM "blue"; allowed: droptail, red')
    assert proc.stderr.count("\n") == 1


def test_params_frame_is_a_dataframe_with_python_defaults():
    df = aqm.params("pie")
    assert isinstance(df, pd.DataFrame)
    defaults = dict(zip(df["name"], df["default"]))
    assert defaults["mean_pkt_bytes"] == 1000 and isinstance(defaults["mean_pkt_bytes"], int)
    assert defaults["use_cap_drop_adjustment"] is True
    assert df.set_index("name").loc["target_ms", "unit"] == "ms"
