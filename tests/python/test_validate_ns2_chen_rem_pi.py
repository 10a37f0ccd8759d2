"""`aqmlab validate ns2`'s Chen, Hu & Ji (2011) cases with REM and PI (chen2011_rem_pi.tcl),
without ns-2: the grid, the Tcl arguments, the scenario file agreeing with the script's
parameters, parsing of a captured output and its trace, the oscillation measures, and the
seed-by-seed table."""

from __future__ import annotations

import math
import re

import pytest
import tomllib

from aqmlab.engine.scenario import Scenario
from aqmlab.engine.store import RunStore
from aqmlab.validate.ns2 import chen2011 as chen
from aqmlab.validate.ns2 import suite as validate_ns2
from aqmlab.validate.ns2.chen2011 import ChenCase, ChenRemPiCase

# `ns chen2011_rem_pi.tcl aqm=pi flows=100 duration_s=4 window_start_s=2 trace_ms=1000 seed=1`
REM_PI_SAMPLE = """\
bottleneck Queue/PI
trace 1.000 0 0
trace 2.000 0 0.0012741
trace 3.000 0 0
begin
queue red
flows 100
capacity_mbps 150
seed 1
window_start_s 2
window_end_s 4
samples 200
avg_queue_pkts 111.045
std_queue_pkts 238.5105091500163
arrivals 62009
drops 0
marks 118
departures 62009
bytes_departed 31004500
data_packets_sent 61952
drop_rate 0.0
mark_rate 0.0019029495718363464
link_efficiency 0.82678666666666667
propagation_mean_ms 76.615916493960768
queue_delay_mean_ms 3.6106799999999999
delay_mean_ms 80.22659649396077
end
"""


def _tcl_block(path, head: str) -> dict[str, str]:
    text = path.read_text()
    start = text.index(head)
    block = text[start : text.index("}", start)]
    return dict(re.findall(r"(\w+) (\S+)", block[len(head) :]))


def _queue_sets(aqm_class: str) -> dict[str, str]:
    """`Queue/<class> set key value` lines of chen2011_rem_pi.tcl."""
    text = chen.REM_PI_SCRIPT.read_text()
    return dict(re.findall(rf"^Queue/{aqm_class} set (\w+) (\S+)$", text, re.M))


def test_rem_pi_cases_in_the_full_grid():
    g = validate_ns2.grid(False)
    cases = [c for c in g.cases if c.family == "chen2011_rem_pi"]
    assert [c.case_id for c in cases] == [
        "chen2011-rem-n500-d100",
        "chen2011-rem-n1000-d100",
        "chen2011-pi-n500-d100",
        "chen2011-pi-n1000-d100",
    ]
    assert [g.seeds_of(c) for c in cases] == [(1, 2)] * 4
    assert cases[1].label == "Chen 2011 REM N=1000 ECN (100 s)"
    assert cases[2].window_start_s == 50.0
    assert not any(c.family == "chen2011_rem_pi" for c in validate_ns2.grid(True).cases)
    assert validate_ns2.script_of(cases[0]).name == "chen2011_rem_pi.tcl"
    assert validate_ns2.scenario_of(cases[0]) == chen.SCENARIO
    with pytest.raises(ValueError, match="aqm"):
        ChenRemPiCase("red", 500)


def test_rem_pi_run_ids_cover_the_base_script():
    """The wrapper sources chen2011_dumbbell.tcl: both are a run's inputs; the RED cases'
    ns-2 ids, which only the base script feeds, do not move."""
    family = validate_ns2.FAMILIES["chen2011_rem_pi"]
    assert family.sourced == (chen.SCRIPT,) and family.reports_marks
    assert (
        validate_ns2.run_id(ChenCase(True, 1000), 1, "ns2")
        == "chen2011-gred-n1000-d100-s1-ns2-568432e27476"
    )
    a, b = ChenRemPiCase("rem", 500), ChenRemPiCase("pi", 500)
    assert validate_ns2.run_id(a, 1, "ns2") != validate_ns2.run_id(b, 1, "ns2")
    assert validate_ns2.run_id(a, 1, "ns2") != validate_ns2.run_id(a, 2, "ns2")


def test_rem_pi_ns2_arguments_go_to_the_two_scripts():
    case = ChenRemPiCase("rem", 1000)
    args = validate_ns2.ns2_args(case, 2)
    assert args[:2] == ["aqm=rem", "trace_ms=100"]
    assert {"flows=1000", "seed=2", "duration_s=100", "window_start_s=50"} <= set(args)
    own = _tcl_block(chen.REM_PI_SCRIPT, "array set aqm {")
    base = _tcl_block(chen.SCRIPT, "array set opt {")
    assert own == {"aqm": "rem", "q_ref": "1500", "trace_ms": "100"}
    for arg in args:
        key = arg.split("=")[0]
        assert key in own or key in base
        assert key not in ("gentle", "min_th", "max_th", "w", "linterm", "mark_p", "queue")


def test_rem_pi_scenario_matches_the_tcl_script():
    """§5's REM and PI as the scenario file and chen2011_rem_pi.tcl set them, ECN on."""
    own = _tcl_block(chen.REM_PI_SCRIPT, "array set aqm {")
    base = _tcl_block(chen.SCRIPT, "array set opt {")
    wire = float(base["packet_bytes"]) + 40
    rem, pi = _queue_sets("REM"), _queue_sets("PI")
    assert rem["markpkts_"] == "true" and pi["setbit_"] == "true"
    assert rem["pbo_"] == pi["qref_"] == "$aqm(q_ref)"
    assert rem["mean_pktsize_"] == pi["mean_pktsize_"] == "$wire_bytes"
    assert "set wire_bytes 500" in chen.REM_PI_SCRIPT.read_text() and wire == 500
    for aqm in chen.REM_PI_AQMS:
        case = ChenRemPiCase(aqm, 500)
        sets = validate_ns2.aqmlab_overrides(case)
        assert dict(sets)["queue.aqm"] == aqm
        assert dict(sets)["traffic.schedule.flows"] == "500"
        s = tomllib.loads(
            Scenario.load(validate_ns2.scenario_of(case)).with_literals(sets).resolved()
        )
        assert s["queue"]["ecn"] and s["tcp"]["ecn"]
        q = s["queue"][aqm]
        assert q["q_ref_pkts"] == float(own["q_ref"])
        if aqm == "rem":
            assert q["phi"] == float(rem["phi_"]) and q["gamma"] == float(rem["gamma_"])
            assert q["update_interval_ms"] == 1000 * float(rem["pupdtime_"])
            assert q["alpha"] == 0.1  # rem.cc's constant
            assert q["mean_pkt_bytes"] == wire and float(rem["inw_"]) == 1.0
        else:
            assert q["a"] == float(pi["a_"]) and q["b"] == float(pi["b_"])
            assert q.get("w_hz", 170.0) == float(pi["w_"])


def test_parse_captured_rem_pi_output():
    out = validate_ns2.parse_ns2_output(REM_PI_SAMPLE, validate_ns2.CHEN_KEYS)
    assert out["marks"] == 118 and out["mark_rate"] == pytest.approx(118 / 62009)
    trace = chen.parse_trace(REM_PI_SAMPLE)
    assert trace == [[1.0, 0.0, 0.0], [2.0, 0.0, 0.0012741], [3.0, 0.0, 0.0]]
    assert chen.parse_trace("begin\nend\n") == []
    for bad in ("trace 1.0 2\n", "trace 1.0 two 0.1\n"):
        with pytest.raises(ValueError, match="malformed trace"):
            chen.parse_trace(bad)


def test_aqmlab_trace_takes_the_samples_on_the_grid():
    pd = pytest.importorskip("pandas")
    t = [round(0.05 * k, 2) for k in range(9)]  # 0, 0.05, ..., 0.4
    ts = pd.DataFrame({"t_s": t, "queue_pkts": range(9), "aqm_p": [k / 100 for k in range(9)]})
    assert chen.aqmlab_trace(ts, 100.0) == [
        [0.1, 2.0, 0.02],
        [0.2, 4.0, 0.04],
        [0.3, 6.0, 0.06],
        [0.4, 8.0, 0.08],
    ]


def _square_wave(period_s: float, step_s: float, n: int, low=0.0, high=2000.0):
    half = round(period_s / step_s / 2)
    return [[k * step_s, high if (k // half) % 2 == 0 else low, 0.01 * (k % 2)] for k in range(n)]


def test_oscillation_of_a_square_wave():
    trace = _square_wave(2.4, 0.1, 600)  # 12 samples high, 12 empty
    osc = chen.oscillation(trace, 10.0)
    assert osc["period_s"] == pytest.approx(2.4)
    assert osc["acf_peak"] > 0.8
    assert osc["empty_fraction"] == pytest.approx(0.5, abs=0.02)
    assert (osc["q_p05"], osc["q_p95"]) == (0.0, 2000.0)
    assert osc["p_mean"] == pytest.approx(0.005, abs=1e-3)


def test_oscillation_without_a_swing():
    flat = [[0.1 * k, 1500.0, 0.02] for k in range(100)]
    osc = chen.oscillation(flat, 0.0)
    assert osc["q_p05"] == osc["q_p95"] == 1500.0 and osc["empty_fraction"] == 0.0
    assert math.isnan(osc["period_s"]) and math.isnan(osc["acf_peak"])
    ramp = [[0.1 * k, float(k), 0.0] for k in range(100)]  # never turns negative within n/2
    assert math.isnan(chen.oscillation(ramp, 0.0)["period_s"])
    assert math.isnan(chen.oscillation(flat[:2], 0.0)["q_p05"])
    assert chen.oscillation(flat, 9.5)["q_p05"] == 1500.0  # 5 samples from 9.5 s


def test_rem_pi_table_seed_by_seed():
    case = ChenRemPiCase("rem", 500)
    one = {
        "link_efficiency": 0.99,
        "avg_queue_pkts": 1205.6,
        "std_queue_pkts": 893.5,
        "drop_rate": 0.0,
        "mark_rate": 0.0099,
        "delay_mean_ms": 106.53,
    }
    wave = _square_wave(2.2, 0.1, 1000)
    runs = {
        ("ns2", 1): {"summary": one, "trace": wave},
        ("aqmlab", 1): {"summary": {**one, "avg_queue_pkts": 1500.0}, "trace": []},
    }

    def read(c, seed, side):
        return runs.get((side, seed))

    lines = chen.rem_pi_table([case], lambda c: (1, 2), read).splitlines()
    assert lines[0].startswith("REM and PI seed by seed") and len(lines) == 6
    assert lines[2].endswith("| queue 5–95 % (pkts) | time empty | period (s) |")
    assert lines[4] == (
        "| Chen 2011 REM N=500 ECN (100 s) | 1 | 0.9900 / 0.9900 | 1205.6 / 1500.0 "
        "| 893.5 / 893.5 | 0.000% / 0.000% | 0.990% / 0.990% | 106.5 / 106.5 "
        "| 0–2000 / – | 49.6% / – | 2.2 / – |"
    )
    assert lines[5] == (
        "| Chen 2011 REM N=500 ECN (100 s) | 2 | – / – | – / – | – / – | – / – | – / – "
        "| – / – | – / – | – / – | – / – |"
    )


def _fake_rem_pi_ns2(ns, case, seed, timeout_s):
    summary = validate_ns2.parse_ns2_output(REM_PI_SAMPLE, validate_ns2.CHEN_KEYS)
    return {
        "summary": summary,
        "wall_s": 0.0,
        "command": [],
        "trace": chen.parse_trace(REM_PI_SAMPLE),
    }


def test_rem_pi_runs_store_traces(tmp_path, monkeypatch):
    case = ChenRemPiCase("pi", 5, duration_s=2.0)
    g = validate_ns2.Grid((case,), (1,), 10.0)
    monkeypatch.setattr(validate_ns2, "run_ns2", _fake_rem_pi_ns2)
    outcome = validate_ns2.execute(tmp_path, g, 1, "ns")
    assert (outcome.total, outcome.ran, outcome.failed) == (2, 2, [])
    record = RunStore(tmp_path).read(validate_ns2.run_id(case, 1, "aqmlab"))
    assert record["family"] == "chen2011_rem_pi" and record["case"]["aqm"] == "pi"
    assert [round(r[0], 3) for r in record["trace"]] == [round(0.1 * k, 3) for k in range(1, 21)]
    assert "mark_rate" in record["summary"]
    page_path, _ = validate_ns2.write_outputs(tmp_path, g, quick=True)
    text = page_path.read_text()
    assert "REM and PI seed by seed" in text
    assert "| Chen 2011 PI N=5 ECN (2 s) | 1 | 0.8268 / " in text
