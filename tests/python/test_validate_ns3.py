"""`aqmlab validate ns3` without ns-3: the grids, the program's arguments and the queue-disc
mapping taken from the resolved scenarios, parsing of the program's JSON line, run ids, resumable
storage and interruption with a fake ns-3 program, the page, and the one-line install hint when
ns-3 or the compiler is missing."""

from __future__ import annotations

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
from aqmlab.engine.scenario import Scenario
from aqmlab.engine.store import RunStore
from aqmlab.validate import common as validate
from aqmlab.validate.ns3 import page as ns3_page
from aqmlab.validate.ns3 import suite as validate_ns3
from aqmlab.validate.ns3.queue_discs import MappingError, queue_disc
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
def fake(tmp_path, monkeypatch) -> validate_ns3.Program:
    monkeypatch.setenv(validate_ns3.PROGRAM_ENV, str(fake_program(tmp_path)))
    return validate_ns3.program()


TINY = validate_ns3.Grid(
    tuple(validate_ns3.Case(1, aqm, 5, 2.0, 1.0) for aqm in ("red", "pie", "ared")),
    {1: (1, 2)},
    60.0,
)


def test_sources_and_scenarios_exist():
    validate_ns3.check_files()
    text = validate_ns3.PROGRAM_SOURCE.read_text()
    for option in ("aqm", "schedule", "flows", "duration", "measureFrom", "qdisc", "run", "nMax"):
        assert f'cmd.AddValue("{option}"' in text
    assert "segmentSize = 948" in text  # the program's own default, as the harness passes


def test_grids():
    quick = validate_ns3.grid(True)
    assert {c.aqm for c in quick.cases} == set(validate_ns3.AQMS)
    assert {c.flows for c in quick.cases} == {50, 200} and len(quick.cases) == 10
    assert {(c.scenario, c.duration_s, c.window_start_s) for c in quick.cases} == {(1, 20.0, 10.0)}
    assert quick.seeds(quick.cases[0]) == (1,)
    full = validate_ns3.grid(False)
    s1 = [c for c in full.cases if c.scenario == 1]
    s2 = [c for c in full.cases if c.scenario == 2]
    assert {c.flows for c in s1} == {50, 200, 800} and len(s1) == 15
    assert {(c.duration_s, c.window_start_s) for c in s1} == {(50.0, 25.0)}
    assert {(c.flows, c.duration_s, c.window_start_s) for c in s2} == {(800, 250.0, 0.0)}
    assert full.seeds(s1[0]) == (1, 2, 3) and full.seeds(s2[0]) == (1,)
    assert len({c.case_id for c in full.cases}) == len(full.cases)
    validate_ns3.check_grid(full)


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


def test_scenario_the_program_cannot_build_is_refused(monkeypatch):
    case = validate_ns3.Case(1, "red", 5, 2.0, 1.0)
    sc = validate_ns3.resolved(case)
    sc["topology"]["bottleneck_rate_mbps"] = 100.0
    monkeypatch.setattr(validate_ns3, "resolved", lambda c: sc)
    with pytest.raises(validate.ValidationError, match="bottleneck_rate_mbps.*50.0 only"):
        validate_ns3.ns3_args(case, 1)


def _queue(aqm: str, **sets) -> dict:
    path = validate_ns3.SCENARIOS[1]
    sc = Scenario.load(path).with_({"queue.aqm": aqm, **sets})
    return sc.get("queue")


def test_red_and_ared_mapping():
    red = queue_disc(_queue("red"), 50e6, 10.0)
    attrs = {a.name: a.value for a in red.attributes}
    assert red.type == "ns3::RedQueueDisc"
    assert attrs["MinTh"] == "100" and attrs["MaxTh"] == "400" and attrs["QW"] == "0.002"
    assert attrs["LInterm"] == "10" and attrs["Gentle"] == "false" and attrs["Wait"] == "false"
    assert attrs["ARED"] == "false" and attrs["LinkBandwidth"] == "50000000bps"
    assert attrs["LinkDelay"] == "10000000ns" and attrs["MaxSize"] == "1000p"
    assert any('spacing` = "none"' in d for d in red.differences)
    wait = queue_disc(_queue("red", **{"queue.red.spacing": "wait"}), 50e6, 10.0)
    assert {a.name: a.value for a in wait.attributes}["Wait"] == "true"
    assert not any("spacing" in d for d in wait.differences)

    ared = {a.name: a.value for a in queue_disc(_queue("ared"), 50e6, 10.0).attributes}
    assert ared["ARED"] == "true" and ared["AdaptMaxP"] == "true" and ared["LInterm"] == "50"
    assert ared["TargetDelay"] == "5000000ns" and ared["Interval"] == "500000000ns"
    assert ared["MinTh"] == "0" and ared["Bottom"] == "0" and ared["Wait"] == "true"
    explicit = queue_disc(
        _queue("ared", **{"queue.ared.q_min_pkts": 50.0, "queue.ared.q_max_pkts": 150.0}),
        50e6,
        10.0,
    )
    attrs = {a.name: a.value for a in explicit.attributes}
    assert attrs["ARED"] == "false" and attrs["AdaptMaxP"] == "true" and attrs["MinTh"] == "50"
    timer = queue_disc(_queue("ared", **{"queue.ared.adapt_at": "timer"}), 50e6, 10.0)
    assert any("adapt_at" in d for d in timer.differences)


def test_pie_codel_droptail_mapping():
    pie = queue_disc(_queue("pie", **{"queue.pie.target_ms": 20.0}), 50e6, 10.0)
    attrs = {a.name: a.value for a in pie.attributes}
    assert pie.type == "ns3::PieQueueDisc"
    assert attrs["QueueDelayReference"] == "20000000ns" and attrs["Tupdate"] == "15000000ns"
    assert attrs["A"] == "0.125" and attrs["B"] == "1.25" and attrs["UseEcn"] == "false"
    assert attrs["MaxBurstAllowance"] == "150000000ns" and attrs["ActiveThreshold"] == "max"
    assert pie.argument().startswith("MaxSize=1000p,MeanPktSize=1000,")
    rfc = queue_disc(_queue("pie", **{"queue.pie.burst_rule": "rfc8033"}), 50e6, 10.0)
    assert any("burst_rule" in d for d in rfc.differences)
    codel = {a.name: a.value for a in queue_disc(_queue("codel"), 50e6, 10.0).attributes}
    assert codel == {
        "MaxSize": "1000p",
        "Target": "5000000ns",
        "Interval": "100000000ns",
        "MinBytes": "1500",
        "UseEcn": "false",
        "UseL4s": "false",
        "CeThreshold": "max",
    }
    drop = queue_disc(_queue("droptail"), 50e6, 10.0)
    assert drop.argument() == "MaxSize=1000p" and drop.type == "ns3::FifoQueueDisc"
    with pytest.raises(MappingError, match="betared"):
        queue_disc(_queue("betared"), 50e6, 10.0)


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
    other = validate_ns3.Program(fake.path, "0" * 12)
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
    changed = validate_ns3.Program(fake.path, "1" * 12)
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


def test_failed_ns3_run_is_reported_not_stored(tmp_path, monkeypatch):
    monkeypatch.setenv(validate_ns3.PROGRAM_ENV, str(fake_program(tmp_path, fail=True)))
    prog = validate_ns3.program()
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
    monkeypatch.setenv(validate_ns3.PROGRAM_ENV, str(fake_program(tmp_path, sleep_s=60.0)))
    prog = validate_ns3.program()
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
    env = {k: v for k, v in os.environ.items() if k not in ("CXX", validate_ns3.PROGRAM_ENV)}
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
    assert "20 runs: 0 already stored, 20 run now, 0 failed" in proc.stdout
    assert f"page: {out / validate_ns3.PAGE}" in proc.stdout
    assert "docs/validation-ns3.md" not in proc.stdout  # only the full grid writes the docs page
    assert outdir.result_kind(out) == "validate"
    again = _cli(["--quick", "--quiet", "--out", str(out)], env)
    assert "20 runs: 20 already stored, 0 run now, 0 failed" in again.stdout
