"""The ns-3 bridge: aqmlab's AQMs as an ns-3.37 queue disc (`ns3/`, docs/ns3.md). Builds the C
library and the example program with warnings as errors, runs short ns-3 simulations with it,
and checks that bad input stops the program with aqmlab's one-line message. Needs Debian's
libns3-dev, which `.ci/run` installs; skipped without it outside CI."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NS3_INCLUDE = Path(os.environ.get("NS3_INCLUDE_DIR") or "/usr/include")
HAVE_NS3 = (NS3_INCLUDE / "ns3/core-module.h").is_file()

pytestmark = pytest.mark.skipif(
    not HAVE_NS3 and not os.environ.get("CI"),
    reason="ns-3 3.37 headers not installed (apt-get install libns3-dev)",
)


@pytest.fixture(scope="module")
def program() -> Path:
    built = subprocess.run(
        ["bash", str(ROOT / "ns3/build.sh")], capture_output=True, text=True, timeout=900
    )
    assert built.returncode == 0, built.stderr
    assert "warning" not in built.stderr, built.stderr
    return Path(built.stdout.strip().splitlines()[-1])


def run(program: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(program), *args], capture_output=True, text=True, timeout=300)


def test_an_aqm_of_the_papers_runs_inside_ns3(program):
    done = run(program, "--aqm=betared", "--params=theta=0.5", "--flows=5", "--duration=4")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["aqm"] == "betared"
    # Five CUBIC flows fill most of the 10 Mb/s bottleneck; the queue holds at most 100.
    assert 7.0 < out["goodput_mbps"] <= 10.0
    assert 0.0 < out["mean_queue_pkts"] <= 100.0
    assert 0.0 <= out["mean_p"] <= 1.0
    assert {"mean_q_avg", "mean_p_max", "mean_mu", "mean_sigma"} <= set(out)


def test_codel_decides_at_dequeue_and_marks_with_ecn(program):
    dropped = json.loads(run(program, "--aqm=codel", "--duration=4").stdout)
    assert dropped["unforced_drops"] > 0 and dropped["marks"] == 0
    marked = json.loads(run(program, "--aqm=codel", "--duration=4", "--ecn=1").stdout)
    assert marked["marks"] > 0 and marked["unforced_drops"] == 0


def test_same_seed_same_output(program):
    args = ("--aqm=pie", "--flows=4", "--duration=3", "--seed=3")
    assert run(program, *args).stdout == run(program, *args).stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--aqm=reed"], 'aqm: unknown value "reed"; allowed: droptail, red, '),
        (["--aqm=red", "--params=p_max=3"], "red.p_max: must be in (0, 1]"),
        (["--aqm=red", "--params=pmax=0.1"], "red.pmax: unknown key; allowed here: "),
        (["--aqm=red", "--params=p_max"], 'red: "p_max" is not key=value'),
        (["--aqm=fq_codel"], "aqm: fq_codel is a multi-queue discipline"),
    ],
)
def test_bad_input_stops_with_one_line(program, args, message):
    done = run(program, *args, "--duration=2")
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("AqmlabQueueDisc: " + message), lines[0]


def test_the_transcripts_of_the_page_hold(program):
    """docs/ns3.md shows the example's output and an error: each command prints what the page
    says (the runs are deterministic), and exits with status 2 where the page shows it."""
    page = (ROOT / "docs/ns3.md").read_text()
    shown = re.findall(r"^\$ target/ns3-bridge/aqmlab-dumbbell(.*)\n(.+)$", page, re.M)
    assert len(shown) == 3
    for args, line in shown:
        done = run(program, *shlex.split(args))
        printed = done.stdout if done.returncode == 0 else done.stderr
        assert printed.strip() == line, args
        assert done.returncode == (2 if line.startswith("AqmlabQueueDisc: ") else 0)


def test_the_validation_program_runs_an_aqm_through_the_bridge():
    """`aqmlab validate ns3 --bridge` builds the validation's dumbbell program with the
    AqmlabQueueDisc and runs a case of an AQM that ns-3 lacks."""
    from aqmlab.validate.ns3 import program as ns3_program
    from aqmlab.validate.ns3 import suite

    prog = ns3_program.program(bridge=True)
    assert prog.path.name == f"betared_dumbbell_bridge-{prog.digest}"
    done = suite.run_ns3(prog.path, suite.Case(1, "abetared", 10, 4.0, 2.0), 1, 300.0, True)
    assert done["ns3"]["qdisc_type"] == "ns3::AqmlabQueueDisc"
    assert done["ns3"]["qdisc_attributes"]["Aqm"] == "abetared"
    summary = done["summary"]
    assert 0.9 < summary["link_efficiency"] <= 1.0
    assert 0.0 < summary["avg_queue_pkts"] <= 1000.0
    assert summary["bottleneck_arrivals"] >= summary["bottleneck_departures"] > 0
