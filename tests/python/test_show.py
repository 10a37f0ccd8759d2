"""`aqmlab show`: only the parameter tables of the AQMs a scenario runs, `--all` for every
table, and an output that resolves to exactly the text a run stores."""

from __future__ import annotations

import sys

import pytest

from aqmlab import Scenario, _core
from aqmlab.cli.inspect import _header_lines, shown_scenario, used_aqms
from conftest import REPO_ROOT, SCENARIO1, run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

AQMS = _core.catalog()["aqms"]
TABLED = [a for a in AQMS if a != "droptail"]
"""The AQMs with a parameter table."""

NETWORK = """\
name = "triangle"
duration_s = 5.0

[topology]
kind = "network"
routers = ["A", "B", "C"]

[[topology.links]]
from = "A"
to = "B"
rate_mbps = 20.0
delay_ms = 10.0
reverse_queue = { aqm = "pie" }

[[topology.links]]
from = "B"
to = "C"
rate_mbps = 20.0
delay_ms = 10.0

[[topology.links]]
from = "A"
to = "C"
rate_mbps = 5.0
delay_ms = 30.0
queue = { aqm = "codel", codel = { target_ms = 8.0 } }

[queue]
aqm = "red"
limit_pkts = 200

[[traffic.groups]]
path = ["A", "C"]
[traffic.groups.schedule]
kind = "constant"
flows = 3
"""

TRICKY = '''\
name = "tricky"
description = """a description whose lines look like tables:
[queue.pie]
target_ms = 99.0
[[topology.links]]"""
duration_s = 5.0

[queue]
aqm = "betared"

[traffic.schedule]
kind = "constant"
flows = 2
'''


def _aqm_tables(text: str) -> set[str]:
    """The AQM tables under [queue] of a TOML text (not the shaper's, `tbf`, nor the priority
    bands', `prio`, which `show` always prints)."""
    queue = tomllib.loads(text).get("queue", {})
    return {k for k, v in queue.items() if isinstance(v, dict) and k not in ("tbf", "prio")}


def _left_out(text: str) -> set[str]:
    """The AQM names of the comment that lists the tables `show` left out."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# AQM tables left out"))
    names: set[str] = set()
    for line in lines[start + 2 :]:
        if not line.startswith("# "):
            break
        names |= {name.strip() for name in line[2:].split(",") if name.strip()}
    return names


def _show(path, *args) -> str:
    """The standard output of `aqmlab show PATH ARGS` (which must succeed)."""
    proc = run_cli("show", str(path), *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_show_prints_only_the_aqm_in_use_and_resolves_to_the_same_text():
    out = _show(SCENARIO1, "--set", "queue.aqm=betared")
    full = Scenario.load(SCENARIO1).with_({"queue.aqm": "betared"}).resolved()
    # scenario1 sets [queue.red] away from its defaults: kept, under a comment; betared runs.
    assert _aqm_tables(out) == {"betared", "red"}
    assert "# not used by this scenario's queues" in out.split("[queue.red]")[0].splitlines()[-1]
    assert _left_out(out) == set(TABLED) - {"betared", "red"}
    assert _core.resolve_scenario(out, []) == full
    assert len(out) < len(full) / 2


def test_show_all_prints_every_table_as_before():
    out = _show(SCENARIO1, "--all")
    full = Scenario.load(SCENARIO1).resolved()
    assert out.rstrip("\n") == full.rstrip("\n")
    assert _aqm_tables(out) == set(TABLED)


def test_show_key_reaches_tables_of_unused_aqms():
    assert _show(SCENARIO1, "--key", "queue.pie.target_ms") == "15.0\n"
    table = _show(SCENARIO1, "--key", "queue.codel")
    assert tomllib.loads(table)["queue"]["codel"]["interval_ms"] == 100.0


def test_network_links_bring_their_own_aqms(tmp_path):
    path = tmp_path / "triangle.toml"
    path.write_text(NETWORK, encoding="utf-8")
    out = _show(path)
    assert _aqm_tables(out) == {"red", "pie", "codel"}
    assert _core.resolve_scenario(out, []) == Scenario.load(path).resolved()
    link = tomllib.loads(out)["topology"]["links"][2]
    assert link["queue"]["codel"]["target_ms"] == 8.0


def test_chain_with_an_aqm_per_link():
    path = REPO_ROOT / "experiments" / "li2014" / "table15_16_two_bottlenecks.toml"
    resolved = tomllib.loads(Scenario.load(path).with_({"queue.aqm": "pie"}).resolved())
    assert used_aqms(resolved) == {"pie", "droptail"}
    out = _show(path, "--set", "queue.aqm=pie")
    assert "pie" in _aqm_tables(out) and "rem" not in _aqm_tables(out)
    # The file configures RED and ARED for other runs: set away from defaults, so kept.
    assert {"red", "ared"} <= _aqm_tables(out)


def test_multi_line_strings_are_not_taken_for_tables(tmp_path):
    path = tmp_path / "tricky.toml"
    path.write_text(TRICKY, encoding="utf-8")
    full = Scenario.load(path).resolved()
    keys = [key for _, key in _header_lines(full)]
    assert keys.count("queue.pie") == 1 and "topology.links" not in keys
    out = _show(path)
    assert "[queue.pie]" in out  # inside the description only
    assert _aqm_tables(out) == {"betared"}
    assert tomllib.loads(out)["description"] == tomllib.loads(full)["description"]
    assert _core.resolve_scenario(out, []) == full


@pytest.mark.parametrize(
    "scenario",
    [
        "experiments/betared/scenario1.toml",
        "experiments/betared/scenario2.toml",
        "experiments/li2014/table15_16_two_bottlenecks.toml",
        "experiments/chen2011/dumbbell.toml",
    ],
)
def test_every_aqm_round_trips(scenario):
    for aqm in AQMS:
        full = Scenario.load(REPO_ROOT / scenario).with_({"queue.aqm": aqm}).resolved()
        shown = shown_scenario(full)
        assert _core.resolve_scenario(shown, []) == full, aqm
        tables = _aqm_tables(shown)
        assert aqm in tables or aqm == "droptail"
        assert tables < set(TABLED), aqm  # something was left out
        assert shown_scenario(shown) == shown  # showing it again changes nothing
