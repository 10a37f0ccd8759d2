"""`aqmlab validate ns3 --tcp` without ns-3: the TCP grid and its selection, the congestion
controls' rows joining the grid when aqmlab registers them, the program's TCP arguments taken
from the resolved scenario (with faked scenarios for the algorithms aqmlab does not have yet),
and the command with a fake ns-3 program."""

from __future__ import annotations

import pytest
from test_validate_ns3 import _cli, _env, fake_program

from aqmlab.validate import common as validate
from aqmlab.validate.ns3 import page as ns3_page
from aqmlab.validate.ns3 import suite as validate_ns3
from aqmlab.validate.ns3 import tcp_cases
from conftest import assert_usage_error

REGISTERED = ("reno", "cubic", "bic", "hybla", "linux_reno", "scalable")


def test_the_grid_lists_the_registered_congestion_controls():
    assert set(REGISTERED) <= set(tcp_cases.registered())
    quick = validate_ns3.grid(True, None, ["all"])
    ccs = [c.cc for c in quick.cases]
    assert ccs == [t.cc for t in tcp_cases.TCPS if t.cc in tcp_cases.registered() for _ in t.aqms]
    assert all(c.aqm == "droptail" for c in quick.cases if c.cc in REGISTERED)
    assert {(c.scenario, c.flows, c.duration_s, c.window_start_s) for c in quick.cases} == {
        (1, 50, 20.0, 10.0)
    }
    assert quick.seeds_by_scenario == {1: (1,)}
    full = validate_ns3.grid(False, None, ["reno", "bic"])
    assert [(c.cc, c.aqm, c.duration_s, c.window_start_s) for c in full.cases] == [
        ("reno", "droptail", 50.0, 25.0),
        ("bic", "droptail", 50.0, 25.0),
    ]
    assert full.seeds_by_scenario == {1: (1, 2, 3)}


def test_cubic_is_the_aqm_grids_case_and_others_are_named():
    cubic = validate_ns3.grid(True, None, ["cubic"]).cases[0]
    assert cubic == validate_ns3.Case(1, "droptail", 50, 20.0, 10.0)
    assert cubic.case_id == "s1-droptail-n50-d20-w10"
    reno = validate_ns3.Case(1, "droptail", 50, 20.0, 10.0, cc="reno")
    assert reno.case_id == "s1-reno-droptail-n50-d20-w10"
    assert reno.label == "S1 reno droptail N=50 (10–20 s)"
    assert ("tcp.cc", '"reno"') in validate_ns3.aqmlab_overrides(reno)
    assert not any(k.startswith("tcp.") for k, _ in validate_ns3.aqmlab_overrides(cubic))


def test_rows_join_when_aqmlab_registers_them():
    later = (*REGISTERED, "dctcp", "bbr", "westwood_plus")
    g = validate_ns3.tcp_grid(True, ["all"], registered=later)
    pairs = [(c.cc, c.aqm) for c in g.cases]
    assert ("dctcp", "step") in pairs
    assert ("bbr", "droptail") in pairs and ("bbr", "fq_codel") in pairs
    assert ("westwood_plus", "droptail") in pairs
    assert len(pairs) == len(REGISTERED) + 4
    only = validate_ns3.tcp_grid(False, ["bbr"], registered=later)
    assert [c.aqm for c in only.cases] == ["droptail", "fq_codel"]
    with pytest.raises(ValueError, match=r"^--tcp: must name .* among all, reno, .*; got bbr$"):
        validate_ns3.tcp_grid(True, ["bbr"], registered=REGISTERED)


def test_bad_selections_are_one_line_value_errors():
    with pytest.raises(ValueError, match=r"^--tcp: must name congestion controls .*; got vegs$"):
        validate_ns3.grid(True, None, ["reno", "vegs"])
    with pytest.raises(ValueError, match="got nothing"):
        validate_ns3.grid(True, None, [])
    g = validate_ns3.grid(True, None, ["reno"])
    with pytest.raises(ValueError, match=r"^--aqm: this grid has cases only for droptail; got red"):
        validate_ns3.only_aqms(g, ["red"])


def _args(case: validate_ns3.Case) -> dict[str, str]:
    return dict(a[2:].split("=", 1) for a in validate_ns3.ns3_args(case, 1))


def test_arguments_follow_the_resolved_scenario():
    cubic = _args(validate_ns3.Case(1, "droptail", 50, 20.0, 10.0))
    assert (cubic["tcp"], cubic["ecn"], cubic["pacing"]) == ("TcpCubic", "false", "false")
    expected = {
        "reno": "TcpNewReno",
        "linux_reno": "TcpLinuxReno",
        "scalable": "TcpScalable",
        "hybla": "TcpHybla",
        "bic": "TcpBic",
    }
    for cc, type_id in expected.items():
        args = _args(validate_ns3.Case(1, "droptail", 50, 20.0, 10.0, cc=cc))
        assert args["tcp"] == type_id
        assert args["qdisc"] == "MaxSize=1000p"


def _faked(monkeypatch, case: validate_ns3.Case, **tcp) -> list[str]:
    """ns3_args for `case` with the resolved scenario's `[tcp]` changed (for congestion
    controls and keys aqmlab does not have yet); a `step` case gets its `[queue.step]` by hand
    from the case's overrides."""
    aqm = "droptail" if case.aqm == "step" else case.aqm
    base = validate_ns3.Case(1, aqm, case.flows, case.duration_s, case.window_start_s)
    sc = validate_ns3.resolved(base)
    sc["tcp"].update(tcp)
    sets = dict(tcp_cases.overrides(case.cc, case.aqm, 22))
    if case.aqm == "step":
        sc["queue"]["aqm"] = "step"
        sc["queue"]["step"] = {"k_pkts": int(sets["queue.step.k_pkts"])}
    if "queue.ecn" in sets:
        sc["queue"]["ecn"] = sets["queue.ecn"] == "true"
    monkeypatch.setattr(validate_ns3, "resolved", lambda c: sc)
    return validate_ns3.ns3_args(case, 1)


def test_ecn_pacing_and_attributes_of_later_rows(monkeypatch):
    bbr = validate_ns3.Case(1, "fq_codel", 50, 20.0, 10.0, cc="bbr")
    args = _faked(monkeypatch, bbr, cc="bbr")
    assert "--tcp=TcpBbr" in args and "--pacing=true" in args and "--ecn=false" in args
    ww = validate_ns3.Case(1, "droptail", 50, 20.0, 10.0, cc="westwood_plus")
    args = _faked(monkeypatch, ww, cc="westwood_plus")
    assert "--tcp=TcpWestwood" in args
    assert "--ns3::TcpWestwood::ProtocolType=WestwoodPlus" in args
    reno = validate_ns3.Case(1, "droptail", 50, 20.0, 10.0, cc="reno")
    args = _faked(monkeypatch, reno, cc="reno", ecn=True, pacing=True)
    assert "--ecn=true" in args and "--pacing=true" in args


def test_dctcp_runs_through_step_marking_as_ns3_red(monkeypatch):
    assert tcp_cases.overrides("dctcp", "step", 22) == [
        ("tcp.cc", '"dctcp"'),
        ("tcp.ecn", "true"),
        ("queue.ecn", "true"),
        ("queue.step.k_pkts", "22"),
    ]
    # C·RTT of scenario 1: 50 Mb/s × 24 ms / 1000 B = 150 packets; K = ⌈150/7⌉.
    assert tcp_cases.dctcp_k(50.0, 24.0, 1000) == 22
    assert validate_ns3.step_threshold_pkts(1) == 22
    dctcp = validate_ns3.Case(1, "step", 50, 20.0, 10.0, cc="dctcp")
    args = _faked(monkeypatch, dctcp, cc="dctcp", ecn=True)
    assert "--tcp=TcpDctcp" in args and "--ecn=true" in args and "--pacing=false" in args
    qdisc = dict(kv.split("=") for kv in args[-1].removeprefix("--qdisc=").split(","))
    assert args[0] == "--aqm=red"  # the program's RED preset, every step attribute set
    assert qdisc["MinTh"] == qdisc["MaxTh"] == "22"
    assert (qdisc["QW"], qdisc["UseHardDrop"], qdisc["UseEcn"], qdisc["Gentle"]) == (
        "1",
        "false",
        "true",
        "false",
    )


def test_a_congestion_control_without_a_row_is_refused(monkeypatch):
    case = validate_ns3.Case(1, "droptail", 50, 20.0, 10.0, cc="reno")
    with pytest.raises(validate.ValidationError, match=r"^tcp.cc = 'foo': no ns-3 congestion"):
        _faked(monkeypatch, case, cc="foo")


def test_the_page_maps_the_congestion_controls():
    g = validate_ns3.grid(True, None, ["reno", "cubic"])
    text = ns3_page.page([], g, True, {})
    assert "The quick TCP grid: scenario 1 (constant N = 50" in text
    assert (
        '| reno | `ns3::TcpNewReno` | – | `tcp.window_growth = "per_ack"` | off | off '
        "| droptail |" in text
    )
    assert "| cubic | `ns3::TcpCubic` |" in text
    assert "This is the quick grid" not in text


def test_cli_tcp_grid_with_a_fake_ns3(tmp_path):
    env = _env(AQMLAB_NS3_PROGRAM=str(fake_program(tmp_path)))
    out = tmp_path / "o"
    proc = _cli(["--quick", "--tcp", "reno,bic", "--quiet", "--out", str(out)], env)
    assert proc.returncode == 0, proc.stderr
    assert "4 runs: 0 already stored, 4 run now, 0 failed" in proc.stdout
    assert "S1 reno droptail N=50" in proc.stdout
    assert "docs/validation-ns3.md" not in proc.stdout
    bad = _cli(["--tcp", "reno,vegs", "--out", str(tmp_path / "b")], env)
    assert_usage_error(bad, "--tcp: must name congestion controls among all, reno", "got vegs")
    bad = _cli(["--tcp", "reno", "--aqm", "red", "--out", str(tmp_path / "b")], env)
    assert_usage_error(bad, "--aqm: this grid has cases only for droptail; got red")
    assert not (tmp_path / "b").exists()
