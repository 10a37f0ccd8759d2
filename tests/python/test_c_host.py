"""The C ABI from C: `crates/capi/examples/step.c` compiles as strict C99 against the generated
header (warnings as errors) and the static library, drives AQMs by name, and gets aqmlab's
one-line messages for bad input."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from aqmlab.validate.ns3 import program as ns3_program

ROOT = Path(__file__).resolve().parents[2]
CC = os.environ.get("CC") or "cc"


@pytest.fixture(scope="module")
def step(tmp_path_factory) -> Path:
    if shutil.which(CC) is None:
        pytest.skip(f"no C compiler `{CC}`")
    ns3_program.build_c_library()  # cargo build --release -p aqmlab-capi
    out = tmp_path_factory.mktemp("c") / "step"
    flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
    compiled = subprocess.run(
        [CC, *flags, f"-I{ns3_program.BRIDGE_INCLUDE}", str(ROOT / "crates/capi/examples/step.c"),
         str(ns3_program.BRIDGE_LIBRARY), "-lpthread", "-ldl", "-lm", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert compiled.returncode == 0, compiled.stderr
    return out


def run(step: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(step), *args], capture_output=True, text=True, timeout=60)


def test_a_c_program_drives_aqms_by_name(step):
    red = run(step)
    assert red.returncode == 0, red.stderr
    lines = red.stdout.splitlines()
    # 150 packets waiting, between RED's default thresholds 100 and 400: some early drops.
    assert lines[0].startswith("red: accept ") and ", forced drop 0" in lines[0]
    assert int(lines[0].split("early drop ")[1].split(",")[0]) > 0
    assert lines[1].startswith("q_avg = ") and lines[2].startswith("p = ")
    betared = run(step, "betared", "q_max_pkts=300, q_target_pkts=140, theta=0.3")
    assert betared.returncode == 0, betared.stderr
    # The numbers docs/ns3.md quotes.
    assert betared.stdout.startswith("betared: accept 849, early drop 1151, forced drop 0\n")
    assert "\np = 0.587" in betared.stdout
    assert [line.split(" = ")[0] for line in betared.stdout.splitlines()[1:]] == [
        "q_avg", "p", "p_max", "mu", "sigma",
    ]  # fmt: skip
    pie = run(step, "pie")
    assert "qdelay_ms = 30" in pie.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["reed"], 'step: aqm: unknown value "reed"; allowed: droptail, red, '),
        (["red", "p_max=2"], "step: red.p_max: must be in (0, 1]"),
        (["dualpi2"], "step: aqm: dualpi2 is a multi-queue discipline"),
    ],
)
def test_bad_input_gets_the_one_line_message(step, args, message):
    done = run(step, *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(message), done.stderr
