"""`aqmlab validate ns3` without ns-3: the grids, the program's arguments taken from the resolved
scenarios, parsing of the program's JSON line, run ids, resumable storage and interruption with a
fake ns-3 program, the page, and the one-line install hint when ns-3 or the compiler is missing.
The queue-disc mapping has its own tests (test_validate_ns3_mapping.py)."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from aqmlab.engine import outdir
from aqmlab.engine.store import RunStore
from aqmlab.validate import common as validate
from aqmlab.validate.ns3 import page as ns3_page
from aqmlab.validate.ns3 import program as ns3_program
from aqmlab.validate.ns3 import queue_discs
from aqmlab.validate.ns3 import suite as validate_ns3
from conftest import REPO_ROOT, assert_usage_error

FAKE_NS3 = """\
import json, sys, time
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
if "FAIL" in args.get("qdisc", "") or {fail!r}:
    print("fake ns-3: boom", file=sys.stderr)
    sys.exit(3)
time.sleep({sleep_s!r})
run = int(args["run"])
out = dict(
    link_efficiency=0.99, throughput_mbps=47.0 + run, avg_queue_pkts=100.0 + 10 * run,
    std_queue_pkts=20.0, drop_rate=0.02, delay_mean_ms=30.0,
    window_start_s=float(args["measureFrom"]), window_end_s=float(args["duration"]),
    avg_queue_qdisc_pkts=99.0, jitter_ms=None,
    bottleneck_arrivals=1000, bottleneck_drops=20, bottleneck_departures=980, data_sent=1000,
    data_delivered=980, qdisc_attributes={{"MinTh": "15.625", "MaxTh": "46.875"}},
    args=sys.argv[1:],
)
print("progress noise")
print(json.dumps(out))
"""


def fake_program(tmp_path: Path, name: str = "fake_ns3", sleep_s: float = 0.0, fail=False) -> Path:
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\n" + FAKE_NS3.format(sleep_s=sleep_s, fail=fail))
    path.chmod(0o755)
    return path


@pytest.fixture
def fake(tmp_path, monkeypatch) -> ns3_program.Program:
    monkeypatch.setenv(ns3_program.PROGRAM_ENV, str(fake_program(tmp_path)))
    return ns3_program.program()


TINY = validate_ns3.Grid(
    tuple(validate_ns3.Case(1, aqm, 5, 2.0, 1.0) for aqm in ("red", "pie", "ared")),
    {1: (1, 2)},
    60.0,
)


def test_sources_and_scenarios_exist():
    validate_ns3.check_files()
    text = ns3_program.PROGRAM_SOURCE.read_text()
    options = (
        *("aqm", "schedule", "flows", "duration", "measureFrom", "qdisc", "run", "nMax"),
        *("bottleneckRate", "bottleneckDelay", "senderDelays", "receiverDelays", "routing"),
        *("udpFlows", "udpRateKbps", "udpPacketBytes"),
    )
    for option in options:
        assert f'cmd.AddValue("{option}"' in text
    assert "segmentSize = 948" in text  # the program's own default, as the harness passes
    # the program knows every AQM the harness maps, by the same queue disc
    setup = ns3_program.PROGRAM_HEADERS[0].read_text()
    for aqm, type_name in queue_discs.QUEUE_DISCS.items():
        preset = queue_discs.PROGRAM_AQMS.get(aqm, aqm)
        assert f'aqm == "{preset}"' in setup and f'"{type_name}"' in setup
    assert set(validate_ns3.AQMS) == set(queue_discs.QUEUE_DISCS) - set(queue_discs.PROGRAM_AQMS)


def test_the_checkout_is_found():
    assert validate.ROOT == REPO_ROOT and validate.in_checkout()
    assert ns3_program.BUILD_DIR == REPO_ROOT / "target" / "ns3"
    assert validate_ns3.DOCS_PAGE == REPO_ROOT / "docs" / "validation-ns3.md"


def test_grids():
    new = set(validate_ns3.FQ_AND_COBALT)
    assert validate_ns3.AQMS == validate_ns3.CLASSIC_AQMS + validate_ns3.FQ_AND_COBALT
    quick = validate_ns3.grid(True)
    plain = [c for c in quick.cases if not c.variant]
    assert {c.aqm for c in plain} == set(validate_ns3.AQMS)
    assert {c.flows for c in plain} == {50, 200} and len(plain) == 18
    for variant in validate_ns3.VARIANTS:
        cases = [c for c in quick.cases if c.variant == variant]
        assert {c.aqm for c in cases} == new and {c.flows for c in cases} == {50}
        assert len(cases) == 4
    assert len(quick.cases) == 26
    assert {(c.scenario, c.duration_s, c.window_start_s) for c in quick.cases} == {(1, 20.0, 10.0)}
    assert quick.seeds(quick.cases[0]) == (1,)
    full = validate_ns3.grid(False)
    s1 = [c for c in full.cases if c.scenario == 1 and not c.variant]
    s2 = [c for c in full.cases if c.scenario == 2]
    assert {c.flows for c in s1} == {50, 200, 800} and len(s1) == 27
    assert {c.aqm for c in s1} == set(validate_ns3.AQMS)
    assert {(c.duration_s, c.window_start_s) for c in s1} == {(50.0, 25.0)}
    assert {(c.flows, c.duration_s, c.window_start_s) for c in s2} == {(800, 250.0, 0.0)}
    assert {c.aqm for c in s2} == set(validate_ns3.CLASSIC_AQMS)
    for variant in validate_ns3.VARIANTS:
        cases = [c for c in full.cases if c.variant == variant]
        assert {c.aqm for c in cases} == set(validate_ns3.AQMS) and len(cases) == 9
        assert {(c.scenario, c.flows, c.duration_s, c.window_start_s) for c in cases} == {
            (1, 100, 50.0, 25.0)
        }
    assert full.seeds(s1[0]) == (1, 2, 3) and full.seeds(s2[0]) == (1,)
    for g in (quick, full):
        assert len({c.case_id for c in g.cases}) == len(g.cases)
        assert len({c.label for c in g.cases}) == len(g.cases)
    # the ids of the cases that ran before the variants existed are unchanged
    assert validate_ns3.Case(1, "red", 50, 50.0, 25.0).case_id == "s1-red-n50-d50-w25"
    mixed = validate_ns3.Case(1, "fq_pie", 100, 50.0, 25.0, "mixed-rtt")
    assert mixed.case_id == "s1-mixed-rtt-fq_pie-n100-d50-w25"
    assert mixed.label == "S1 mixed RTT fq_pie N=100 (25–50 s)"
    flood = validate_ns3.Case(1, "cobalt", 50, 20.0, 10.0, "udp-flood")
    assert flood.label == "S1 UDP flood cobalt N=50 (10–20 s)"
    # every case maps onto the program
    validate_ns3.check_grid(full)


def test_the_new_aqms_map_in_every_case_of_the_grids():
    for g in (validate_ns3.grid(True), validate_ns3.grid(False)):
        validate_ns3.check_grid(g)
        for case in g.cases:
            qdisc = next(a for a in validate_ns3.ns3_args(case, 1) if a.startswith("--qdisc="))
            assert qdisc == "--qdisc=" + validate_ns3.mapping(case).argument()
    args = validate_ns3.ns3_args(validate_ns3.Case(1, "fq_codel", 50, 20.0, 10.0), 1)
    assert "--aqm=fq_codel" in args
    qdisc = next(a for a in args if a.startswith("--qdisc="))
    assert "ns3::CoDelQueueDisc::MinBytes=1500" in qdisc and "Quantum=1500" in qdisc


def test_arguments_come_from_the_resolved_scenario():
    case = validate_ns3.Case(1, "pie", 50, 20.0, 10.0)
    assert validate_ns3.resolved(case)["measure"]["window"] == [10.0, 20.0]
    args = validate_ns3.ns3_args(case, 2)
    for expected in (
        "--aqm=pie",
        "--schedule=constant",
        "--flows=50",
        "--duration=20.0",
        "--measureFrom=10.0",
        "--startJitter=1.0",
        "--buffer=1000",
        "--segmentSize=948",
        "--seed=1",
        "--run=2",
        "--stop=quiet",
    ):
        assert expected in args
    qdisc = next(a for a in args if a.startswith("--qdisc="))
    assert "QueueDelayReference=15000000ns" in qdisc and "MaxSize=1000p" in qdisc
    s2 = validate_ns3.ns3_args(validate_ns3.Case(2, "codel", 800, 250.0, 0.0), 1)
    for expected in ("--schedule=betared", "--nBase=100", "--nMid=200", "--nMax=800"):
        assert expected in s2
    assert "--phase=50.0" in s2 and "--measureFrom=0.0" in s2 and "--duration=250.0" in s2


def test_plain_cases_give_the_delays_of_scenario_1():
    args = validate_ns3.ns3_args(validate_ns3.Case(1, "codel", 50, 20.0, 10.0), 1)
    for expected in ("--bottleneckDelay=10.0", "--senderDelays=1.0", "--receiverDelays=1.0"):
        assert expected in args
    assert not any(a.startswith("--udp") for a in args)


def test_mixed_rtt_variant():
    case = validate_ns3.Case(1, "codel", 50, 20.0, 10.0, "mixed-rtt")
    sets = dict(validate_ns3.aqmlab_overrides(case))
    assert sets["topology.bottleneck_delay_ms"] == "2.0"
    assert sets["traffic.schedule.flows"] == "50" and sets["queue.aqm"] == '"codel"'
    topo = validate_ns3.resolved(case)["topology"]
    delays = topo["sender_delay_ms"]["list"]
    assert delays == [2.0 + 5 * k for k in range(20)]
    # round-trip propagation: 2 × (sender + bottleneck + receiver) = 10, 20, ..., 200 ms
    rtts = [2 * (d + topo["bottleneck_delay_ms"] + topo["receiver_delay_ms"]) for d in delays]
    assert rtts == [10.0 * k for k in range(1, 21)]
    args = validate_ns3.ns3_args(case, 1)
    assert "--bottleneckDelay=2.0" in args and "--receiverDelays=1.0" in args
    assert f"--senderDelays={','.join(map(repr, delays))}" in args
    assert "--flows=50" in args and "--schedule=constant" in args
    # RED's LinkDelay follows the bottleneck
    red = validate_ns3.mapping(dataclasses.replace(case, aqm="red"))
    assert {a.name: a.value for a in red.attributes}["LinkDelay"] == "2000000ns"


def test_udp_flood_variant():
    case = validate_ns3.Case(1, "pie", 50, 20.0, 10.0, "udp-flood")
    sets = dict(validate_ns3.aqmlab_overrides(case))
    assert "traffic.schedule.flows" not in sets
    traffic = validate_ns3.resolved(case)["traffic"]
    tcp, udp = traffic["groups"]
    assert tcp["schedule"] == {"kind": "constant", "flows": 50}
    assert udp["transport"] == "udp" and udp["schedule"] == {"kind": "constant", "flows": 1}
    assert udp["source"]["kind"] == "cbr" and udp["source"]["rate_kbps"] == 75000.0
    assert udp["source"]["packet_bytes"] == 1000 and not udp["source"]["random"]
    args = validate_ns3.ns3_args(case, 3)
    for expected in (
        "--schedule=constant",
        "--flows=50",
        "--udpFlows=1",
        "--udpRateKbps=75000.0",
        "--udpPacketBytes=1000",
        "--startJitter=1.0",
        "--bottleneckRate=50.0",
        "--bottleneckDelay=10.0",
        "--run=3",
    ):
        assert expected in args
    assert validate_ns3.max_packet_bytes(validate_ns3.resolved(case)) == 1000


def test_scenario_the_program_cannot_build_is_refused(monkeypatch):
    case = validate_ns3.Case(1, "red", 5, 2.0, 1.0)
    sc = validate_ns3.resolved(case)
    sc["topology"]["access_rate_mbps"] = 1000.0
    monkeypatch.setattr(validate_ns3, "resolved", lambda c: sc)
    with pytest.raises(validate.ValidationError, match="access_rate_mbps.*100.0 only"):
        validate_ns3.ns3_args(case, 1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda sc: sc["topology"].update(sender_delay_ms={"uniform": [1.0, 5.0]}),
            "sender_delay_ms = .*uniform.*not a drawn one",
        ),
        (
            lambda sc: sc["traffic"]["groups"][0].update(receiver_delay_ms=3.0),
            r"traffic.groups\[0\].receiver_delay_ms: the ns-3 program does not model",
        ),
        (
            lambda sc: sc["traffic"]["groups"].reverse(),
            r"transports \['udp', 'tcp'\]",
        ),
        (
            lambda sc: sc["traffic"]["groups"][1].update(start_jitter_s=5.0),
            "start_jitter_s differs between groups",
        ),
        (
            lambda sc: sc["traffic"]["groups"][1]["source"].update(random=True),
            "constant bit rate",
        ),
        (
            lambda sc: sc["traffic"]["groups"][1]["source"].update(packet_bytes=80),
            "at least 81 B",
        ),
        (
            lambda sc: sc["traffic"]["groups"][1]["schedule"].update(kind="poisson"),
            r"groups\[1\].schedule.kind = 'poisson'",
        ),
    ],
)
def test_traffic_the_program_cannot_build_is_refused(monkeypatch, change, message):
    case = validate_ns3.Case(1, "codel", 5, 2.0, 1.0, "udp-flood")
    sc = validate_ns3.resolved(case)
    change(sc)
    monkeypatch.setattr(validate_ns3, "resolved", lambda c: sc)
    with pytest.raises(validate.ValidationError, match=message):
        validate_ns3.ns3_args(case, 1)


def test_parse_ns3_output():
    line = {k: 1.0 for k in validate_ns3.NS3_KEYS} | {"jitter_ms": None, "phases": [{"a": 1}]}
    out = validate_ns3.parse_ns3_output("t=1 s\n" + json.dumps(line) + "\n")
    assert out["drop_rate"] == 1.0 and math.isnan(out["jitter_ms"]) and out["phases"]
    with pytest.raises(ValueError, match="no JSON line"):
        validate_ns3.parse_ns3_output("segmentation fault\n")
    with pytest.raises(ValueError, match="lacks 'delay_mean_ms'"):
        validate_ns3.parse_ns3_output(json.dumps({k: 1 for k in validate_ns3.METRICS[:-1]}))
    with pytest.raises(ValueError, match="not a number"):
        validate_ns3.parse_ns3_output(json.dumps(line | {"drop_rate": "x"}))
    with pytest.raises(ValueError, match="does not parse"):
        validate_ns3.parse_ns3_output('{"drop_rate": \n')


def test_run_ids_cover_their_inputs(tmp_path, fake):
    case = TINY.cases[0]
    rid = validate_ns3.run_id(case, 1, "ns3", fake)
    assert rid.startswith("s1-red-n5-d2-w1-s1-ns3-")
    assert rid == validate_ns3.run_id(case, 1, "ns3", fake)
    assert rid != validate_ns3.run_id(case, 2, "ns3", fake)
    other = ns3_program.Program(fake.path, "0" * 12)
    assert rid != validate_ns3.run_id(case, 1, "ns3", other)
    ours = validate_ns3.run_id(case, 1, "aqmlab", fake)
    assert ours == validate_ns3.run_id(case, 1, "aqmlab", other)  # the program is not an input
    with pytest.raises(ValueError, match="needs the program"):
        validate_ns3.run_id(case, 1, "ns3")


def test_store_is_resumable_and_the_page_is_written(tmp_path, fake):
    out = tmp_path / "out"
    first = validate_ns3.execute(out, TINY, 2, fake)
    assert (first.total, first.skipped, first.ran, first.failed) == (12, 0, 12, [])
    store = RunStore(out)
    record = store.read(validate_ns3.run_id(TINY.cases[1], 2, "ns3", fake))
    assert record["summary"]["avg_queue_pkts"] == 120.0 and record["side"] == "ns3"
    assert "--aqm=pie" in record["command"] and record["ns3"]["qdisc_attributes"]
    ours = store.read(validate_ns3.run_id(TINY.cases[0], 1, "aqmlab", fake))["summary"]
    assert (ours["window_start_s"], ours["window_end_s"]) == (1.0, 2.0)

    again = validate_ns3.execute(out, TINY, 2, fake)
    assert (again.skipped, again.ran) == (12, 0)
    # a changed program reruns the ns-3 side only
    changed = ns3_program.Program(fake.path, "1" * 12)
    third = validate_ns3.execute(out, TINY, 2, changed)
    assert (third.skipped, third.ran) == (6, 6)

    docs = tmp_path / "docs.md"
    page_path, table = ns3_page.write_outputs(out, TINY, True, fake, docs_page=docs)
    text = page_path.read_text()
    assert docs.read_text() == text
    assert text.startswith("# aqmlab against ns-3.37 (quick grid)")
    assert "| S1 red N=5 (1–2 s) |" in table and table.count("\n") == 4
    # ns-3 seeds give 110 and 120 packets: mean 115, half-range 5
    assert "115.0 (±5.0)" in table
    assert "| metric | tolerance | within | within spread | outside | agree |" in text
    assert "`ns3::PieQueueDisc`" in text and "Not mapped exactly" in text
    assert "MinTh 15.625" in text  # read back from the stored ns-3 record
    assert "## Cost" in text and "quiet stop" in text
    csv = (out / validate_ns3.TABLE).read_text().splitlines()
    assert csv[0].startswith("case,metric,ns3,ns3_spread,aqmlab")
    assert len(csv) == 1 + 3 * len(validate_ns3.METRICS)


def test_variants_run_and_are_stored(tmp_path, fake):
    g = validate_ns3.Grid(
        (
            validate_ns3.Case(1, "codel", 5, 2.0, 1.0, "mixed-rtt"),
            validate_ns3.Case(1, "pie", 5, 2.0, 1.0, "udp-flood"),
        ),
        {1: (1,)},
        60.0,
    )
    out = tmp_path / "out"
    done = validate_ns3.execute(out, g, 2, fake)
    assert (done.total, done.ran, done.failed) == (4, 4, [])
    store = RunStore(out)
    flood = store.read(validate_ns3.run_id(g.cases[1], 1, "aqmlab", fake))
    assert set(flood["aqmlab"]["group_throughput_mbps"]) == {"tcp", "udp"}
    assert 0 < flood["aqmlab"]["jain_fairness"] <= 1
    assert ["queue.aqm", '"pie"'] in flood["overrides"]
    command = store.read(validate_ns3.run_id(g.cases[1], 1, "ns3", fake))["command"]
    assert "--udpFlows=1" in command and "--flows=5" in command
    command = store.read(validate_ns3.run_id(g.cases[0], 1, "ns3", fake))["command"]
    assert "--bottleneckDelay=2.0" in command
    page_path, table = ns3_page.write_outputs(out, g, True, fake)
    text = page_path.read_text()
    assert "| S1 mixed RTT codel N=5 (1–2 s) |" in table
    assert "| S1 UDP flood pie N=5 (1–2 s) |" in table
    assert "its mixed-RTT variant (N ∈ {5}" in text and "its UDP-flood variant" in text
    assert "`topology.bottleneck_delay_ms = 2.0`" in text and "**UDP flood.**" in text


def test_failed_ns3_run_is_reported_not_stored(tmp_path, monkeypatch):
    monkeypatch.setenv(ns3_program.PROGRAM_ENV, str(fake_program(tmp_path, fail=True)))
    prog = ns3_program.program()
    g = validate_ns3.Grid(TINY.cases[:1], {1: (1,)}, 60.0)
    outcome = validate_ns3.execute(tmp_path / "out", g, 1, prog)
    assert outcome.ran == 1 and len(outcome.failed) == 1
    assert "ns-3 exited with status 3: fake ns-3: boom" in outcome.failed[0][1]
    assert RunStore(tmp_path / "out").ids() == {validate_ns3.run_id(g.cases[0], 1, "aqmlab")}


def test_slow_ns3_run_times_out(tmp_path):
    slow = fake_program(tmp_path, sleep_s=30.0)
    t0 = time.monotonic()
    with pytest.raises(validate.ValidationError, match="ns-3 took longer than 0.5 s"):
        validate_ns3.run_ns3(slow, TINY.cases[0], 1, 0.5)
    assert time.monotonic() - t0 < 10


def test_interrupt_kills_ns3_runs_and_keeps_finished_ones(tmp_path, monkeypatch):
    monkeypatch.setenv(ns3_program.PROGRAM_ENV, str(fake_program(tmp_path, sleep_s=60.0)))
    prog = ns3_program.program()
    g = validate_ns3.Grid(TINY.cases[:1], {1: (1,)}, 120.0)
    main = threading.main_thread().ident
    # A shell that started the test suite in the background ignores SIGINT, and the
    # interpreter then keeps ignoring it: give Ctrl-C its usual meaning for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.5, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(validate.ValidationInterrupted) as err:
            validate_ns3.execute(tmp_path / "out", g, 2, prog)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - t0 < 30  # the 60 s ns-3 run was killed, not waited for
    assert "run the same command again to resume" in err.value.detail
    assert err.value.exit_status == 130
    ids = RunStore(tmp_path / "out").ids()
    assert not any("-ns3-" in rid for rid in ids)
    assert not validate._RUNNING


def test_tolerance_with_the_seed_spread_and_summary():
    assert validate.judge("throughput_mbps", [45.0, 45.0], [47.0]).verdict == "within"
    assert validate.judge("throughput_mbps", [45.0, 45.0], [48.0]).verdict == "outside"
    spread = validate.judge("throughput_mbps", [40.0, 50.0], [52.0])
    assert (spread.ref, spread.ref_spread, spread.verdict) == (45.0, 10.0, "within spread")
    rows = [
        ("a", [validate.judge("drop_rate", [0.1], [0.11])]),
        ("b", [validate.judge("drop_rate", [0.1], [0.2])]),
        ("c", [validate.judge("drop_rate", [], [0.2])]),
    ]
    table = validate.summary_table(rows, ["drop_rate"])
    assert "| drop rate | 25% or 0.01 | 1 | 0 | 1 | 1/2 (50%) |" in table


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", "validate", "ns3", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CXX", ns3_program.PROGRAM_ENV)}
    return {**env, **extra}


def test_missing_ns3_is_one_line_exit_2(tmp_path):
    proc = _cli(["--quick", "--out", str(tmp_path / "o")], _env(NS3_INCLUDE_DIR=str(tmp_path)))
    assert_usage_error(proc, "ns-3 not found", "core-module.h", "apt-get install libns3-dev g++")
    assert not (tmp_path / "o").exists()

    include = tmp_path / "include"
    (include / "ns3").mkdir(parents=True)
    for header in ("core-module.h", "version-defines.h", "pie-queue-disc.h"):
        (include / "ns3" / header).write_text("")
    proc = _cli(
        ["--quick", "--out", str(tmp_path / "o")],
        _env(NS3_INCLUDE_DIR=str(include), PATH=str(tmp_path)),
    )
    assert_usage_error(proc, "ns-3 not found", "no C++ compiler `g++`", "apt-get install")
    assert not (tmp_path / "o").exists()


def test_cli_quick_grid_with_a_fake_ns3(tmp_path):
    env = _env(AQMLAB_NS3_PROGRAM=str(fake_program(tmp_path)))
    out = tmp_path / "o"
    proc = _cli(["--quick", "--quiet", "--jobs", "2", "--out", str(out)], env)
    assert proc.returncode == 0, proc.stderr
    # The AQM grid's 26 cases and the TCP grid's 17 (less CUBIC's, the AQM grid's own), each
    # run on both sides.
    assert "86 runs: 0 already stored, 86 run now, 0 failed" in proc.stdout
    assert f"page: {out / validate_ns3.PAGE}" in proc.stdout
    assert f"page: {out / 'validation-ns3-tcp.md'}" in proc.stdout
    assert "docs/validation-ns3.md" not in proc.stdout  # only the full grid writes the docs page
    assert outdir.result_kind(out) == "validate"
    again = _cli(["--quick", "--quiet", "--out", str(out)], env)
    assert "86 runs: 86 already stored, 0 run now, 0 failed" in again.stdout


def test_a_grid_can_keep_a_few_aqms():
    full = validate_ns3.grid(False)
    fq = validate_ns3.grid(False, ["fq_codel", "cobalt"])
    assert {c.aqm for c in fq.cases} == {"fq_codel", "cobalt"}
    assert fq.cases == tuple(c for c in full.cases if c.aqm in ("fq_codel", "cobalt"))
    assert fq.seeds_by_scenario == full.seeds_by_scenario
    with pytest.raises(ValueError, match=r"^--aqm: must name AQMs among droptail, .*; got bogus$"):
        validate_ns3.grid(True, ["red", "bogus"])
    with pytest.raises(ValueError, match="got nothing"):
        validate_ns3.grid(True, [])


def test_cli_a_few_aqms_with_a_fake_ns3(tmp_path):
    env = _env(AQMLAB_NS3_PROGRAM=str(fake_program(tmp_path)))
    out = tmp_path / "o"
    proc = _cli(["--quick", "--aqm", "cobalt", "--quiet", "--out", str(out)], env)
    assert proc.returncode == 0, proc.stderr
    assert "8 runs: 0 already stored, 8 run now, 0 failed" in proc.stdout
    assert "docs/validation-ns3.md" not in proc.stdout
    bad = _cli(["--aqm", "fq_codel,cake", "--out", str(tmp_path / "b")], env)
    assert_usage_error(bad, "--aqm: must name AQMs among", "got cake")
    assert not (tmp_path / "b").exists()


def test_the_page_notes_only_the_groups_of_aqms_in_the_grid():
    from aqmlab.validate.ns3 import findings

    full = findings.outside_sections(validate_ns3.grid(False))
    assert full == [findings.CLASSIC_OUTSIDE, "", findings.FQ_OUTSIDE, ""]
    fq = findings.outside_sections(validate_ns3.grid(False, ["fq_codel"]))
    assert fq == [findings.FQ_OUTSIDE, ""]
    classic = findings.outside_sections(validate_ns3.grid(False, ["red", "pie"]))
    assert classic == [findings.CLASSIC_OUTSIDE, ""]
    assert findings.FQ_OUTSIDE.startswith("### Cases outside tolerance, and why: COBALT")
