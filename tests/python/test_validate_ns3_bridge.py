"""`aqmlab validate ns3 --bridge` without ns-3: the grid, the bridge's queue-disc attributes taken
from the resolved scenario, run ids, resumable storage with a fake ns-3 program, the three
comparisons and the page, and the CLI's one-line errors. test_ns3_bridge.py runs the real
bridge build."""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_validate_ns3 import fake_program

from aqmlab.engine.store import RunStore
from aqmlab.validate.common import ValidationError
from aqmlab.validate.ns3 import bridge, suite
from aqmlab.validate.ns3 import program as ns3_program
from conftest import REPO_ROOT, assert_usage_error

TINY = suite.Grid(
    tuple(suite.Case(1, aqm, 5, 2.0, 1.0) for aqm in ("red", "betared")), {1: (1, 2)}, 60.0
)


@pytest.fixture
def progs(tmp_path) -> bridge.Programs:
    fake = ns3_program.Program(fake_program(tmp_path), "a" * 12)
    return bridge.Programs(native=fake, bridge=ns3_program.Program(fake.path, "b" * 12))


def test_every_single_queue_aqm_is_in_the_grid():
    assert bridge.BRIDGE_AQMS[:6] == ("droptail", "red", "ared", "betared", "abetared", "dbetared")
    assert {"rem", "pi", "neuron_pid", "self_tuning_red", "cobalt", "step"} <= set(
        bridge.BRIDGE_AQMS
    )
    assert not {"fq_codel", "cake", "dualpi2"} & set(bridge.BRIDGE_AQMS)
    assert set(bridge.NATIVE_AQMS) <= set(bridge.BRIDGE_AQMS)
    quick = bridge.grid(True)
    assert len(quick.cases) == 2 * len(bridge.BRIDGE_AQMS)
    assert quick.seeds_by_scenario == {1: (1, 2)}
    assert {(c.flows, c.duration_s, c.window_start_s) for c in quick.cases} == {
        (50, 20.0, 10.0),
        (200, 20.0, 10.0),
    }
    full = bridge.grid(False, ["betared", "pie"])
    assert [c.aqm for c in full.cases] == ["betared", "pie"] * 3
    with pytest.raises(ValueError, match="--aqm: must name AQMs among droptail, .*; got fq_codel"):
        bridge.grid(True, ["fq_codel"])


def test_the_bridge_gets_the_resolved_table_ecn_and_seed():
    case = suite.Case(1, "betared", 50, 20.0, 10.0)
    args = suite.ns3_args(case, 2, bridge=True)
    assert "--aqm=aqmlab" in args
    qdisc = next(a for a in args if a.startswith("--qdisc="))
    assert qdisc.startswith("--qdisc=Aqm=betared,Params=byte_mode=false;")
    assert ";q_target_pkts=250.0;" in qdisc and ";spacing=none;" in qdisc
    assert qdisc.endswith(",UseEcn=false,Seed=2")
    # Everything else is the ordinary validation's argument list for the case.
    native = suite.ns3_args(suite.Case(1, "red", 50, 20.0, 10.0), 2)
    same = [a for a in args if not a.startswith(("--aqm=", "--qdisc="))]
    assert same == [a for a in native if not a.startswith(("--aqm=", "--qdisc="))]
    # RED runs with the uniform spacing ns-3's RED has, in the bridge too.
    red = suite.ns3_args(suite.Case(1, "red", 50, 20.0, 10.0), 1, bridge=True)
    assert ";spacing=uniform;" in next(a for a in red if a.startswith("--qdisc="))
    queue = {"aqm": "red", "limit_bytes": 10_000, "ecn": True, "red": {}}
    with pytest.raises(ValidationError, match="limit_bytes: the ns-3 bridge counts"):
        suite.bridge_qdisc(queue, 1)
    assert suite.bridge_qdisc({**queue, "limit_bytes": 0}, 3) == (
        "Aqm=red,Params=,UseEcn=true,Seed=3"
    )


def test_runs_are_stored_compared_and_paged(tmp_path, progs):
    out = tmp_path / "out"
    done = bridge.execute(out, TINY, 2, progs)
    # Bridge and aqmlab runs for both AQMs, ns-3's own queue disc for RED only.
    assert (done.total, done.ran, done.failed) == (10, 10, [])
    store = RunStore(out)
    record = store.read(bridge.bridge_run_id(TINY.cases[1], 2, "bridge", progs))
    assert record["side"] == "bridge" and "--aqm=aqmlab" in record["command"]
    assert bridge.bridge_run_id(TINY.cases[0], 1, "ns3", progs) == suite.run_id(
        TINY.cases[0], 1, "ns3", progs.native
    )
    again = bridge.execute(out, TINY, 2, progs)
    assert (again.skipped, again.ran) == (10, 0)
    rebuilt = bridge.Programs(progs.native, ns3_program.Program(progs.bridge.path, "c" * 12))
    third = bridge.execute(out, TINY, 2, rebuilt)
    assert (third.skipped, third.ran) == (6, 4)  # a new bridge build reruns the bridge only

    docs = tmp_path / "docs.md"
    path, table = bridge.write_outputs(out, TINY, True, progs, docs)
    text = path.read_text()
    assert docs.read_text() == text
    assert text.startswith("# aqmlab's AQMs inside ns-3: cross-validation through the bridge")
    assert "| S1 betared N=5 (1–2 s) |" in table and "| S1 red N=5 (1–2 s) |" in table
    # The fake gives 110 and 120 packets for seeds 1 and 2, on both ns-3 builds.
    assert "115.0 (±5.0) / 115.0, +0.0%, within" in text
    for heading in (
        "## Bridge (reference) vs aqmlab, every AQM",
        "## ns-3's own queue disc (reference) vs the bridge",
        "## ns-3's own queue disc (reference) vs aqmlab, the same cases",
    ):
        assert heading in text
    bridge_section = text.split("## ns-3's own queue disc (reference) vs the bridge")[1]
    assert "S1 betared" not in bridge_section.split("## ns-3's own queue disc")[0]
    csv = (out / "validation-ns3-bridge.csv").read_text().splitlines()
    assert csv[0].startswith("comparison,case,metric,reference")
    # bridge-aqmlab: 2 cases, ns3-bridge and ns3-aqmlab: 1 case each; 6 metrics each.
    assert len(csv) == 1 + 4 * len(suite.METRICS)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", "validate", "ns3", "--bridge", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_refuses_what_the_bridge_cannot_run(tmp_path):
    out = str(tmp_path / "o")
    assert_usage_error(_cli("--aqm", "fq_codel", "--out", out), "--aqm: must name AQMs among")
    assert_usage_error(_cli("--tcp", "all", "--out", out), "--tcp: not with --bridge")
    assert not (tmp_path / "o").exists()


def test_betared_figures_run_in_both_simulators_and_are_judged_alike(tmp_path, progs):
    from aqmlab.validate.ns3 import betared_ns3

    pts = betared_ns3.points(True)
    assert {p.figure for p in pts} == {"fig8", "fig9"}
    assert len(pts) == 20 and len({p.spec.run_id for p in pts}) == 15  # Fig. 9 is Fig. 8's 800
    for p in pts:
        qdisc = next(a for a in betared_ns3.ns3_args(p) if a.startswith("--qdisc="))
        if p.aqm in betared_ns3.BRIDGED:
            assert qdisc.startswith(f"--qdisc=Aqm={p.aqm},Params=")
            assert "t_target_ms=40.0" in qdisc
        else:
            assert "Aqm=" not in qdisc
    ared = next(p for p in pts if p.aqm == "ared")
    assert "TargetDelay=40000000ns" in next(
        a for a in betared_ns3.ns3_args(ared) if a.startswith("--qdisc=")
    )
    # Fig. 8 at N_max = 800 and Fig. 9: five distinct runs on each side.
    some = [p for p in pts if p.spec.params.get("N_max", 800) == 800]
    out = tmp_path / "out"
    done = betared_ns3.execute(out, some, 2, progs)
    assert (done.total, done.ran, done.failed) == (10, 10, [])
    store = RunStore(out)
    dbetared = next(p for p in some if p.aqm == "dbetared")
    record = store.read(betared_ns3.run_id(dbetared, "ns3", progs))
    assert "--aqm=aqmlab" in record["command"]
    judged = betared_ns3.verdicts(store, some, progs)
    assert [c.id for c in judged["ns3"]] == ["fig8", "conclusion", "fig9"]
    assert all(c.verdict != "Not run" for c in judged["aqmlab"])
    # The fake gives every AQM the same values: DBetaRED ties for the lowest RMS distance.
    assert judged["ns3"][2].verdict == "Agrees"
    path, table = betared_ns3.write_outputs(out, some, progs, True)
    text = path.read_text()
    assert table in text
    assert "| claim | aqmlab | ns-3.37 |" in text and "| fig9 | " in text
    assert "| fig8 | aqm=dbetared, N_max=800, seed=1 | " in text
    assert betared_ns3.execute(out, some, 2, progs).ran == 0
