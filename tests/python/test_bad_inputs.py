"""Inputs that once escaped as tracebacks, ate the memory or said nothing of what was wrong:
each is one line naming the file, key or argument and what is allowed (exit status 2 from the
CLI, a ScenarioError or TypeError from Python), with nothing read that is not a file and
nothing written."""

from __future__ import annotations

import codecs
import os
import subprocess
import sys

import pytest

import aqmlab
from aqmlab import Scenario, ScenarioError
from aqmlab.engine.scenario import MAX_TOML_BYTES
from conftest import REPO_ROOT, SCENARIO1, assert_usage_error, run_cli

FIG3 = REPO_ROOT / "experiments" / "betared" / "fig3.toml"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_devices_are_not_read(device, tmp_path):
    proc = run_cli("run", device, "--out", str(tmp_path / "o"))
    assert_usage_error(proc, device, "not a regular file")
    assert_usage_error(
        run_cli("sweep", device), device, "not a regular file", "give an experiment file"
    )
    with pytest.raises(ScenarioError, match="not a regular file"):
        Scenario.load(device)


def test_a_fifo_does_not_block(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    assert_usage_error(run_cli("run", str(fifo)), "pipe.toml", "not a regular file")
    assert_usage_error(run_cli("show", str(fifo)), "pipe.toml", "not a regular file")


def test_a_folder_is_not_a_scenario(tmp_path):
    assert_usage_error(run_cli("run", str(tmp_path)), "a folder")


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.toml"
    with open(path, "wb") as f:
        f.truncate(MAX_TOML_BYTES + 1)  # sparse: no disk used
    assert_usage_error(run_cli("run", str(path)), "huge.toml", "larger than 4 MiB")


@pytest.mark.parametrize(
    "text", ["x = " + "[" * 100_000, "x = " + "{a=" * 20_000, "a = [" + "[" * 5000 + "]" * 5001]
)
def test_deep_nesting_is_one_line(text, tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text(text, encoding="utf-8")
    assert_usage_error(run_cli("run", str(path)), "deep.toml", "TOML syntax error")
    with pytest.raises(ScenarioError, match="TOML syntax error"):
        Scenario.from_text(text).resolved()


def test_deep_nesting_in_an_override_is_one_line(tmp_path):
    proc = run_cli("run", str(SCENARIO1), "--set", "duration_s=" + "[" * 20_000)
    assert_usage_error(proc, "duration_s")


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(codecs.BOM_UTF8 + SCENARIO1.read_bytes())
    assert Scenario.load(path).text == SCENARIO1.read_text(encoding="utf-8")
    proc = run_cli("show", str(path), "--key", "duration_s")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "250.0"


def test_an_integer_beyond_64_bits_names_file_and_key(tmp_path):
    path = tmp_path / "big.toml"
    text = SCENARIO1.read_text(encoding="utf-8").replace("seed = 1", "seed = 1" + "0" * 22)
    path.write_text(text, encoding="utf-8")
    assert_usage_error(run_cli("run", str(path)), "big.toml: seed: integer", "64 bits")
    path.write_text("[[traffic.groups]]\nflows = [1, 2, 99999999999999999999]\n", encoding="utf-8")
    assert_usage_error(run_cli("run", str(path)), "traffic.groups[0].flows[2]", "64 bits")


def test_syntax_errors_have_the_documented_form(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('name = "x"\n\n[queue]\naqm = = "red"\n', encoding="utf-8")
    proc = run_cli("run", str(path))
    assert_usage_error(proc, "broken.toml: TOML syntax error at line 4, column 7: ")


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["run", ""], "FILE"),
        (["show", ""], "FILE"),
        (["compare", ""], "DIR"),
        (["plot", ""], "RUN_DIR"),
        (["sweep", ""], "FILE"),
        (["run", str(SCENARIO1), "--out", ""], "--out"),
        (["curves", "--out", ""], "--out"),
        (["model", "fixed-point", "--out", ""], "--out"),
    ],
)
def test_empty_paths(args, name):
    assert_usage_error(run_cli(*args), f"{name}: empty path")


def test_each_file_goes_to_its_command(tmp_path):
    proc = run_cli("run", str(FIG3), "--out", str(tmp_path / "o"))
    assert_usage_error(proc, "an experiment file", "aqmlab run takes a scenario", "aqmlab sweep")
    proc = run_cli("show", str(FIG3))
    assert_usage_error(proc, "an experiment file", "aqmlab show takes a scenario", "aqmlab sweep")
    assert proc.stdout == ""
    proc = run_cli("sweep", str(SCENARIO1), "--out", str(tmp_path / "o"))
    assert_usage_error(proc, "a scenario file", "aqmlab run")
    assert list(tmp_path.iterdir()) == []


def test_python_arguments_name_themselves(small_scenario):
    with pytest.raises(TypeError, match="progress: must be None or a function"):
        aqmlab.run(small_scenario, progress=5)
    with pytest.raises(ScenarioError, match="get: key 5: must be a dotted key path"):
        small_scenario.get(5)
    with pytest.raises(ScenarioError, match="queue.aqm: NoneType value None has no TOML form"):
        small_scenario.with_({"queue.aqm": None})
    with pytest.raises(
        ScenarioError, match=r"links\[0\]\.rate_mbps: no such key \(keys at topology"
    ):
        small_scenario.get("topology.links[0].rate_mbps")  # a dumbbell has no links


def test_scenario_get_reads_array_elements():
    sc = Scenario.load(REPO_ROOT / "experiments" / "li2014" / "table15_16_two_bottlenecks.toml")
    links = sc.get("topology.links")
    assert sc.get("topology.links[1].rate_mbps") == links[1]["rate_mbps"]
    with pytest.raises(ScenarioError, match=r"no element topology\.links\[9\] \(3 elements\)"):
        sc.get("topology.links[9].rate_mbps")


def test_model_parameters_keep_the_map_finite():
    with pytest.raises(ValueError, match=r"capacity_mbps: must be in \[0.000001, 1000000000\]"):
        aqmlab.model.fixed_points({"C": 1e300})
    proc = run_cli("model", "fixed-point", "--set", "d=1e-300")
    assert_usage_error(proc, "d_s: must be in")


def test_counts_say_what_they_allow():
    assert_usage_error(run_cli("model", "bifurcation", "--points", "-5"), "integer >= 1")
    assert_usage_error(run_cli("model", "bifurcation", "--points", "0"), "integer >= 1")


def test_a_closed_pipe_is_no_traceback():
    proc = subprocess.Popen(
        [sys.executable, "-m", "aqmlab.cli", "list", "--params"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before the first line
    err = proc.stderr.read().decode()
    assert proc.wait() == 141
    assert err == ""
