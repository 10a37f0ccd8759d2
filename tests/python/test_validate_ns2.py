"""`aqmlab validate ns2` with three families of cases, without ns-2: the Chen, Hu & Ji (2011)
ECN dumbbell and the REM/PI cases next to Li et al. (2014)'s single bottleneck — the grid, the
Tcl arguments, the scenario file agreeing with the script's defaults, parsing of a captured
ns-2 output, the mark-rate table, and run ids of the Li cases that do not move."""

from __future__ import annotations

import re

import pytest
import tomllib

from aqmlab.engine.scenario import Scenario
from aqmlab.engine.store import RunStore
from aqmlab.validate.ns2 import chen2011 as chen
from aqmlab.validate.ns2 import suite as validate_ns2
from aqmlab.validate.ns2.chen2011 import ChenCase, ChenTunedCase

# `ns chen2011_dumbbell.tcl gentle=1 flows=200 duration_s=30 window_start_s=15 seed=1`
CHEN_SAMPLE = """\
begin
queue gentle_red
flows 200
capacity_mbps 150
seed 1
window_start_s 15
window_end_s 30
samples 1500
avg_queue_pkts 505.51400000000001
std_queue_pkts 333.00582648155967
arrivals 559401
drops 0
marks 1077
departures 558691
bytes_departed 279345500
data_packets_sent 559377
drop_rate 0.0
mark_rate 0.0019252736409123331
link_efficiency 0.99322844444444447
propagation_mean_ms 75.233687735162178
queue_delay_mean_ms 13.5665
delay_mean_ms 88.800187735162183
end
"""


def _tcl_defaults() -> dict[str, str]:
    text = validate_ns2.FAMILIES["chen2011"].script.read_text()
    block = text[text.index("array set opt {") : text.index("}", text.index("array set opt {"))]
    return dict(re.findall(r"^\s+(\w+) (\S+)$", block, re.M))


def test_every_family_has_its_files():
    validate_ns2.check_files()
    assert set(validate_ns2.FAMILIES) == {
        "li2014",
        "li2014_rem_pi",
        "chen2011",
        "chen2011_tuned",
        "chen2011_rem_pi",
    }
    assert validate_ns2.script_of(ChenCase(True, 200)).name == "chen2011_dumbbell.tcl"
    assert validate_ns2.script_of(validate_ns2.Case("red", 100)).name == "li2014_dumbbell.tcl"
    assert validate_ns2.scenario_of(ChenCase(False, 200)).name == "dumbbell.toml"


def test_grids_hold_the_chen_cases():
    quick = [c for c in validate_ns2.grid(True).cases if c.family == "chen2011"]
    assert quick == [ChenCase(True, 200, 30.0)]
    full = [c for c in validate_ns2.grid(False).cases if c.family == "chen2011"]
    assert {(c.gentle, c.flows, c.duration_s) for c in full} == {
        (g, n, 100.0) for g in (False, True) for n in (200, 1000)
    }
    assert [c.case_id for c in full] == [
        "chen2011-red-n200-d100",
        "chen2011-gred-n200-d100",
        "chen2011-red-n1000-d100",
        "chen2011-gred-n1000-d100",
    ]
    assert full[1].label == "Chen 2011 gentle RED N=200 ECN (100 s)"
    li = [c for c in validate_ns2.grid(False).cases if c.family == "li2014"]
    assert len(li) == 25 and validate_ns2.grid(False).seeds == (1, 2)


def _rem_pi(cases):
    return [c for c in cases if c.family == "li2014_rem_pi"]


def test_grids_hold_the_rem_and_pi_cases():
    quick = _rem_pi(validate_ns2.grid(True).cases)
    assert [(c.aqm, c.flows, c.duration_s) for c in quick] == [
        ("rem", 100, 30.0),
        ("pi", 100, 30.0),
    ]
    full = _rem_pi(validate_ns2.grid(False).cases)
    shapes = {(n, 45.0, t) for n in (500, 800, 1500) for t in (300, 50)}
    shapes |= {(800, c, 300) for c in (15.0, 115.0)}
    assert {(c.aqm, c.flows, c.capacity_mbps, c.target_pkts) for c in full} == {
        (a, *shape) for a in ("rem", "pi") for shape in shapes
    }
    assert all(c.duration_s == 100.0 and c.tcp == "reno" for c in full) and len(full) == 16
    assert full[0].case_id == "rem-n500-c45-t300-d100"
    assert full[0].label == "rem N=500 C=45 Mb/s target 300 (100 s)"
    g = validate_ns2.grid(False)
    assert len({c.case_id for c in g.cases}) == len(g.cases)
    # N = 1500 runs seed 1 only, self-tuning RED four seeds, every other case both seeds
    assert {c.flows: g.seeds_of(c) for c in full} == {500: (1, 2), 800: (1, 2), 1500: (1,)}
    four = [c for c in g.cases if getattr(c, "aqm", "") == "self_tuning_red"]
    assert len(four) == 4 and all(g.seeds_of(c) == (1, 2, 3, 4) for c in four)
    assert all(g.seeds_of(c) == (1, 2) for c in g.cases if c.flows < 1500 and c not in four)
    assert len(validate_ns2.all_jobs(g)) == 2 * (2 * (len(g.cases) - 8) + 4 + 16)
    quick = validate_ns2.grid(True)
    assert all(quick.seeds_of(c) == (1, 2) for c in quick.cases)


def test_rem_pi_ns2_arguments():
    """The REM/PI script takes the AQM and its target, and passes every other argument of the
    Li case on to li2014_dumbbell.tcl, which has a default for each."""
    case = validate_ns2.RemPiCase("pi", 1500, 45.0, 50)
    args = validate_ns2.ns2_args(case, 2)
    assert args == [
        "aqm=pi",
        "q_ref=50",
        "flows=1500",
        "capacity_mbps=45",
        "duration_s=100",
        "window_start_s=50",
        "sample_ms=10",
        "start_jitter_s=1",
        "tcp=reno",
        "seed=2",
    ]
    base = validate_ns2.SCRIPT.read_text()
    assert all(f"    {a.split('=')[0]} " in base for a in args[2:])
    script = validate_ns2.script_of(case)
    assert script.name == "li2014_rem_pi.tcl"
    assert validate_ns2.ns2_command("/usr/bin/ns", case, 2)[:2] == ["/usr/bin/ns", str(script)]
    text = script.read_text()
    assert "array set aqm {aqm rem q_ref 300}" in text and "li2014_dumbbell.tcl" in text
    # the paper's parameters, set explicitly on the ns-2 side
    for line in (
        "Queue/REM set phi_ 1.001",
        "Queue/REM set gamma_ 0.001",
        "Queue/REM set pupdtime_ 0.002",
        "Queue/REM set pbo_ $aqm(q_ref)",
        "Queue/PI set a_ 0.00001822",
        "Queue/PI set b_ 0.00001816",
        "Queue/PI set w_ 170",
        "Queue/PI set qref_ $aqm(q_ref)",
    ):
        assert line in text


def test_rem_pi_aqmlab_overrides_set_the_target():
    for aqm, target in (("rem", 50), ("pi", 300)):
        case = validate_ns2.RemPiCase(aqm, 800, 15.0, target)
        sets = dict(validate_ns2.aqmlab_overrides(case))
        assert sets["queue.aqm"] == aqm and sets[f"queue.{aqm}.q_ref_pkts"] == str(target)
        assert sets["topology.bottleneck_rate_mbps"] == "15"
        assert sets["traffic.schedule.flows"] == "800"
        s = Scenario.load(validate_ns2.scenario_of(case)).with_literals(list(sets.items()))
        r = tomllib.loads(s.resolved())
        assert r["queue"][aqm]["q_ref_pkts"] == target
    rem = tomllib.loads(Scenario.load(validate_ns2.SCENARIO).resolved())["queue"]["rem"]
    assert rem["mean_pkt_bytes"] == 1040.0  # the wire size the Tcl script gives mean_pktsize_
    defaults = (rem["phi"], rem["alpha"], rem["gamma"], rem["update_interval_ms"])
    assert defaults == (1.001, 0.1, 0.001, 2.0)


def test_rem_pi_run_ids_cover_both_tcl_files(monkeypatch):
    """A REM/PI ns-2 run depends on li2014_rem_pi.tcl and on the li2014_dumbbell.tcl it
    sources; a Li run's id stays what it was (script text and arguments only)."""
    case = validate_ns2.RemPiCase("rem", 500)
    li = validate_ns2.Case("red", 500)
    before = validate_ns2.run_id(case, 1, "ns2"), validate_ns2.run_id(li, 1, "ns2")
    validate_ns2._inputs_digest.cache_clear()
    real = validate_ns2.Path.read_text

    def edited(path, *args, **kwargs):
        text = real(path, *args, **kwargs)
        return text + "# edited\n" if path.name == "li2014_dumbbell.tcl" else text

    monkeypatch.setattr(validate_ns2.Path, "read_text", edited)
    after = validate_ns2.run_id(case, 1, "ns2"), validate_ns2.run_id(li, 1, "ns2")
    validate_ns2._inputs_digest.cache_clear()
    assert before[0] != after[0] and before[1] != after[1]
    assert before[0].startswith("rem-n500-c45-t300-d100-s1-ns2-")


def test_li_run_ids_do_not_move():
    """The stored ns-2 runs of the Li cases stay valid: the id of one of them, as stored."""
    assert (
        validate_ns2.run_id(validate_ns2.Case("red", 500), 1, "ns2")
        == "red-n500-c45-t300-d100-s1-ns2-8c6e7024c2fd"
    )


def test_chen_ns2_arguments():
    case = ChenCase(True, 1000)
    args = validate_ns2.ns2_args(case, 2)
    assert args == [
        "gentle=1",
        "flows=1000",
        "duration_s=100",
        "window_start_s=50",
        "sample_ms=10",
        "start_jitter_s=1",
        "seed=2",
    ]
    keys = _tcl_defaults()
    assert all(a.split("=")[0] in keys for a in args)  # every argument has a default
    cmd = validate_ns2.ns2_command("/usr/bin/ns", case, 2)
    assert cmd[:2] == ["/usr/bin/ns", str(validate_ns2.script_of(case))]


def test_chen_scenario_matches_the_tcl_defaults():
    """The parts of the scenario the harness does not set agree with the Tcl script's."""
    tcl = _tcl_defaults()
    case = ChenCase(False, 200)
    sets = dict(validate_ns2.aqmlab_overrides(case))
    assert sets["queue.aqm"] == "red" and sets["queue.red.gentle"] == "false"
    assert dict(validate_ns2.aqmlab_overrides(ChenCase(True, 200)))["queue.red.gentle"] == "true"
    assert sets["traffic.schedule.flows"] == "200" and sets["measure.window"] == "second_half"
    s = Scenario.load(validate_ns2.scenario_of(case)).with_literals(list(sets.items()))
    r = tomllib.loads(s.resolved())
    red, tcp, topo = r["queue"]["red"], r["tcp"], r["topology"]
    assert r["queue"]["ecn"] and tcp["ecn"] and tcp["cc"] == "reno"
    assert red["q_min_pkts"] == float(tcl["min_th"]) and red["q_max_pkts"] == float(tcl["max_th"])
    assert red["w"] == float(tcl["w"]) and red["p_max"] == 1 / float(tcl["linterm"])
    assert red["mark_p_max"] == float(tcl["mark_p"]) and red["spacing"] == "wait"
    # 500 B on the wire: ns-2's packetSize_ 460 + 40 B of headers
    assert tcp["packet_bytes"] == int(tcl["packet_bytes"]) + 40 == 500
    assert tcp["header_bytes"] == 40 and red["mean_pkt_bytes"] == 500.0
    assert tcp["rwnd_pkts"] == int(tcl["window_pkts"])
    assert r["queue"]["limit_pkts"] == int(tcl["buffer_pkts"])
    assert topo["bottleneck_rate_mbps"] == float(tcl["capacity_mbps"])
    assert topo["access_rate_mbps"] == float(tcl["access_mbps"])
    delays = [float(tcl["access_delay_min_ms"]), float(tcl["access_delay_max_ms"])]
    assert topo["sender_delay_ms"] == topo["receiver_delay_ms"] == {"uniform": delays}


def test_parse_captured_chen_output():
    out = validate_ns2.parse_ns2_output(CHEN_SAMPLE, validate_ns2.CHEN_KEYS)
    assert out["mark_rate"] == pytest.approx(out["marks"] / out["arrivals"])
    assert out["drop_rate"] == 0.0 and out["samples"] == 1500
    assert out["delay_mean_ms"] == pytest.approx(
        out["propagation_mean_ms"] + out["queue_delay_mean_ms"]
    )
    assert 75.0 < out["propagation_mean_ms"] < 76.0  # 22.5 + 30 + 22.5 ms, short flows weigh more
    no_marks = CHEN_SAMPLE.replace("mark_rate 0.0019252736409123331\n", "")
    validate_ns2.parse_ns2_output(no_marks)  # the Li keys alone are there
    with pytest.raises(ValueError, match="lacks 'mark_rate'"):
        validate_ns2.parse_ns2_output(no_marks, validate_ns2.CHEN_KEYS)


def test_run_ids_differ_by_seed_and_by_case():
    li = validate_ns2.Case("red", 100, duration_s=30.0)
    chen = ChenCase(True, 200, 30.0)
    assert validate_ns2.run_id(li, 1, "aqmlab") != validate_ns2.run_id(li, 2, "aqmlab")
    assert validate_ns2.run_id(li, 1, "ns2") != validate_ns2.run_id(li, 1, "aqmlab")
    assert validate_ns2.run_id(chen, 1, "aqmlab") != validate_ns2.run_id(
        ChenCase(False, 200, 30.0), 1, "aqmlab"
    )


def _fake_ns2(ns, case, seed, timeout_s):
    summary = validate_ns2.parse_ns2_output(CHEN_SAMPLE, validate_ns2.CHEN_KEYS)
    return {"summary": summary, "wall_s": 0.0, "command": []}


def test_chen_runs_store_and_report_marks(tmp_path, monkeypatch):
    case = ChenCase(True, 5, duration_s=2.0)
    g = validate_ns2.Grid((case,), (1,), 10.0)
    monkeypatch.setattr(validate_ns2, "run_ns2", _fake_ns2)
    outcome = validate_ns2.execute(tmp_path, g, 1, "ns")
    assert (outcome.total, outcome.ran, outcome.failed) == (2, 2, [])
    record = RunStore(tmp_path).read(validate_ns2.run_id(case, 1, "aqmlab"))
    assert record["family"] == "chen2011" and record["case"]["gentle"] is True
    summary = record["summary"]
    assert summary["mark_rate"] == pytest.approx(summary["marks"] / summary["arrivals"])
    assert summary["samples"] == 100
    page_path, table = validate_ns2.write_outputs(tmp_path, g, quick=True)
    text = page_path.read_text()
    assert "Chen 2011 gentle RED N=5 ECN (2 s)" in table
    assert "| case | ECN mark rate |" in text and "0.19% (±0.00%)" in text
    csv = (tmp_path / validate_ns2.TABLE).read_text().splitlines()
    assert len(csv) == 1 + len(validate_ns2.METRICS) + 1
    assert csv[-1].startswith("chen2011-gred-n5-d2,mark_rate,0.00192527,0,")


# ---------------------------------------------------------------------------------------------
# Chen 2011 with ARED and self-tuning RED (chen2011_tuned_red.tcl), without ns-2

# `ns chen2011_tuned_red.tcl aqm=self_tuning_red flows=200 duration_s=10 window_start_s=5 seed=2`
TUNED_SAMPLE = """\
bottleneck Queue/RED self_tuning_red
period 2.000 767.584 645.504 0 4235 0.000210347212
period 4.000 602.665 639.050 0 2129 0.000210347212
period 6.000 1742.149 1757.813 1093 2424 0.000287717819
period 8.000 611.155 547.524 0 2509 0.000287717819
begin
queue gentle_red
flows 200
capacity_mbps 150
seed 2
window_start_s 5
window_end_s 10
samples 500
avg_queue_pkts 1240.8219999999999
std_queue_pkts 839.75744731202008
arrivals 183285
drops 0
marks 614
departures 184701
bytes_departed 92350500
data_packets_sent 183075
drop_rate 0.0
mark_rate 0.0033499740840767112
link_efficiency 0.98507199999999995
propagation_mean_ms 72.913352869464504
queue_delay_mean_ms 33.761099999999999
delay_mean_ms 106.6744528694645
p_max_final 0.00028771781904994863
p_max_min 0.00021034721203683018
p_max_max 0.00028771781904994863
periods 2
periods_skipped 2
end
"""


def _tuned_defaults() -> dict[str, str]:
    text = chen.TUNED_SCRIPT.read_text()
    start = text.index("array set tuned {")
    return dict(re.findall(r"^\s+(\w+) (\S+)$", text[start : text.index("}", start)], re.M))


def test_tuned_cases_in_the_full_grid():
    g = validate_ns2.grid(False)
    tuned = [c for c in g.cases if c.family == "chen2011_tuned"]
    assert [c.case_id for c in tuned] == [
        "chen2011-ared-n200-d100",
        "chen2011-ared-n1000-d100",
        "chen2011-stred-n200-d100",
        "chen2011-stred-n1000-d100",
        "chen2011-stred-n200-d100-time",
        "chen2011-stred-n1000-d100-time",
    ]
    assert [g.seeds_of(c) for c in tuned] == [(1, 2)] * 2 + [(1, 2, 3, 4)] * 4
    assert tuned[4].label == "Chen 2011 self-tuning RED N=200 ECN (100 s, ns-2's q~ over time)"
    assert validate_ns2.aqmlab_overrides(tuned[4]) == validate_ns2.aqmlab_overrides(tuned[2])
    with pytest.raises(ValueError, match="q_tilde_over"):
        ChenTunedCase("ared", 200, q_tilde_over="time")
    with pytest.raises(ValueError, match="q_tilde_over"):
        ChenTunedCase("self_tuning_red", 200, q_tilde_over="packets")
    assert tuned[2].label == "Chen 2011 self-tuning RED N=200 ECN (100 s)"
    assert tuned[0].label == "Chen 2011 ARED N=200 ECN (100 s)"
    assert not any(c.family == "chen2011_tuned" for c in validate_ns2.grid(True).cases)
    assert validate_ns2.script_of(tuned[0]).name == "chen2011_tuned_red.tcl"
    with pytest.raises(ValueError, match="aqm"):
        ChenTunedCase("pi", 200)


def test_tuned_run_ids_cover_the_base_script():
    """The wrapper sources chen2011_dumbbell.tcl: both are a run's inputs; the RED cases'
    ns-2 ids, which only the base script feeds, do not move."""
    family = validate_ns2.FAMILIES["chen2011_tuned"]
    assert family.sourced == (chen.SCRIPT,)
    assert (
        validate_ns2.run_id(ChenCase(True, 1000), 1, "ns2")
        == "chen2011-gred-n1000-d100-s1-ns2-568432e27476"
    )
    a, b = ChenTunedCase("ared", 200), ChenTunedCase("self_tuning_red", 200)
    assert validate_ns2.run_id(a, 1, "ns2") != validate_ns2.run_id(b, 1, "ns2")


def test_tuned_ns2_arguments_go_to_the_two_scripts():
    case = ChenTunedCase("self_tuning_red", 1000, seeds=(1, 2, 3, 4))
    args = validate_ns2.ns2_args(case, 3)
    assert args[0] == "aqm=self_tuning_red" and "seed=3" in args and "flows=1000" in args
    own, base = _tuned_defaults(), _tcl_defaults()
    assert own["q_tilde_over"] == "arrivals" and not any("q_tilde_over" in a for a in args)
    timed = ChenTunedCase("self_tuning_red", 1000, q_tilde_over="time")
    assert validate_ns2.ns2_args(timed, 3) == [args[0], "q_tilde_over=time", *args[1:]]
    for arg in args:
        key = arg.split("=")[0]
        assert key in own or key in base
        assert key not in ("gentle", "linterm", "w")  # the wrapper's to set


def test_tuned_scenario_matches_the_tcl_defaults():
    """§5's ARED and self-tuning RED parameters: the scenario file's and the Tcl scripts'."""
    own, base = _tuned_defaults(), _tcl_defaults()
    for aqm in chen.TUNED_AQMS:
        case = ChenTunedCase(aqm, 200)
        sets = validate_ns2.aqmlab_overrides(case)
        assert dict(sets)["queue.aqm"] == aqm
        s = Scenario.load(validate_ns2.scenario_of(case)).with_literals(sets)
        q = tomllib.loads(s.resolved())["queue"][aqm]
        assert q["q_min_pkts"] == float(base["min_th"]) and q["q_max_pkts"] == float(base["max_th"])
        assert q["p_max_initial"] == float(own["p_max_initial"])
        assert q["mark_p_max"] == float(base["mark_p"]) and q["gentle"]
        assert q["mean_pkt_bytes"] == float(base["packet_bytes"]) + 40
        if aqm == "ared":
            assert q["w"] == float(own["ared_w"]) and q["interval_s"] == float(own["interval_s"])
            assert q["alpha"] == float(own["alpha"]) and q["beta"] == float(own["beta"])
            assert q["top"] == 0.5 and q["adapt_at"] == "arrival"
            assert q["gentle_slope_from_initial_p_max"]
            # red.cc with bottom_ 0: min(0.01, 80000 / bandwidth in b/s)
            bottom = min(0.01, 80000.0 / (float(base["capacity_mbps"]) * 1e6))
            assert q["bottom"] == pytest.approx(bottom, rel=1e-9)
        else:
            assert q["w"] == float(base["w"]) and q["delta_t_s"] == float(own["delta_t_s"])
            assert q["q_target_pkts"] == float(own["q_target"])
            assert q["d_ms"] == float(own["d_ms"]) and not q["w_from_bound"]


def test_parse_captured_tuned_output():
    out = validate_ns2.parse_ns2_output(TUNED_SAMPLE, validate_ns2.TUNED_KEYS)
    assert out["p_max_final"] == pytest.approx(0.000287717819)
    assert (out["periods"], out["periods_skipped"]) == (2, 2)
    periods = chen.parse_periods(TUNED_SAMPLE)
    assert [p["t_s"] for p in periods] == [2.0, 4.0, 6.0, 8.0]
    assert periods[0] == {
        "t_s": 2.0,
        "q_avg_mean": 767.584,
        "queue_mean": 645.504,
        "queue_min": 0.0,
        "queue_max": 4235.0,
        "p_max": 0.000210347212,
    }
    # eq. (3.6) from 0.01 at q~ = 767.584 (C = 37 500 packets/s, d = 0.15 s)
    p = 0.01 * (767.584 - 750) / 750 * (0.15 + 767.584 / 37500) / (0.15 + 1500 / 37500)
    assert periods[0]["p_max"] == pytest.approx(p, rel=1e-4)  # q~ printed to 3 decimals
    with pytest.raises(ValueError, match="malformed period"):
        chen.parse_periods("period 2.0 1 2 3\n")


def test_aqmlab_periods_by_hand():
    pd = pytest.importorskip("pandas")
    ts = pd.DataFrame(
        {
            "t_s": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
            "queue_pkts": [0, 10, 20, 30, 40, 50],
            "aqm_q_avg": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
            "aqm_p_max": [0.01, 0.01, 0.02, 0.02, 0.03, 0.03],
        }
    )
    periods = chen.aqmlab_periods(ts, 2.0)
    assert [p["t_s"] for p in periods] == [2.0, 4.0]  # (0, 2] and (2, 4]; 5 s ends none
    assert periods[0] == {
        "t_s": 2.0,
        "q_avg_mean": 1.5,
        "queue_mean": 15.0,
        "queue_min": 10.0,
        "queue_max": 20.0,
        "p_max": 0.02,  # after the update at 2 s: the sample at 3 s
    }
    assert periods[1]["p_max"] == 0.03
    assert chen.aqmlab_periods(ts.iloc[:5], 2.0)[1]["p_max"] == 0.03  # no sample after 4 s


def test_p_max_table_seed_by_seed():
    case = ChenTunedCase("self_tuning_red", 200, seeds=(1, 2))
    one = {
        "link_efficiency": 1.0,
        "avg_queue_pkts": 1500.04,
        "std_queue_pkts": 45.0,
        "drop_rate": 0.0,
        "mark_rate": 0.003,
        "delay_mean_ms": 114.26,
        "p_max_final": 0.000123456,
    }
    runs = {
        ("ns2", 1): one,
        ("aqmlab", 1): {**one, "avg_queue_pkts": 1490.0, "p_max_final": 0.0002},
        ("ns2", 2): {**one, "drop_rate": 0.0002, "p_max_final": 1e-6},
    }

    def read(c, seed, side):
        s = runs.get((side, seed))
        return None if s is None else {"summary": s}

    lines = chen.p_max_table([case], lambda c: c.seeds, read).splitlines()
    assert lines[0].endswith("with p_max at the end:") and len(lines) == 6
    lines = lines[2:]
    assert lines[0].startswith("| case | seed | link efficiency |")
    assert lines[0].endswith("| mean delay (ms) | final p_max |")
    assert lines[2] == (
        "| Chen 2011 self-tuning RED N=200 ECN (100 s) | 1 | 1.0000 / 1.0000 "
        "| 1500.0 / 1490.0 | 45.0 / 45.0 | 0.000% / 0.000% | 0.300% / 0.300% "
        "| 114.3 / 114.3 | 0.000123 / 0.0002 |"
    )
    assert lines[3].endswith(
        "| 2 | 1.0000 / – | 1500.0 / – | 45.0 / – | 0.020% / – "
        "| 0.300% / – | 114.3 / – | 1e-06 / – |"
    )


def _fake_tuned_ns2(ns, case, seed, timeout_s):
    summary = validate_ns2.parse_ns2_output(TUNED_SAMPLE, validate_ns2.TUNED_KEYS)
    return {
        "summary": summary,
        "wall_s": 0.0,
        "command": [],
        "periods": chen.parse_periods(TUNED_SAMPLE),
    }


def test_tuned_runs_store_p_max(tmp_path, monkeypatch):
    case = ChenTunedCase("self_tuning_red", 5, duration_s=4.0, seeds=(1,))
    g = validate_ns2.Grid((case,), (1, 2), 10.0)
    monkeypatch.setattr(validate_ns2, "run_ns2", _fake_tuned_ns2)
    outcome = validate_ns2.execute(tmp_path, g, 1, "ns")
    assert (outcome.total, outcome.ran, outcome.failed) == (2, 2, [])
    record = RunStore(tmp_path).read(validate_ns2.run_id(case, 1, "aqmlab"))
    assert record["family"] == "chen2011_tuned" and record["case"]["aqm"] == "self_tuning_red"
    assert [p["t_s"] for p in record["periods"]] == [2.0, 4.0]
    summary = record["summary"]
    assert summary["p_max_final"] == record["periods"][-1]["p_max"] > 0
    assert "mark_rate" in summary
    page_path, _ = validate_ns2.write_outputs(tmp_path, g, quick=True)
    text = page_path.read_text()
    assert "with p_max at the end:" in text
    assert "| Chen 2011 self-tuning RED N=5 ECN (4 s) | 1 | 0.9851 / " in text
