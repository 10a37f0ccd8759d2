"""The `aqmlab` command: runs, determinism, errors, list and compare."""

from __future__ import annotations

import pytest

import aqmlab
from conftest import REPO_ROOT, TRIANGLE, assert_usage_error, run_cli, triangle


def _files(directory):
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in directory.rglob("*")}


def test_run_is_byte_identical(small_scenario_file, tmp_path):
    outputs = []
    for name in ("a", "b"):
        out_dir = tmp_path / name
        proc = run_cli("run", str(small_scenario_file), "--out", str(out_dir), "--csv")
        assert proc.returncode == 0, proc.stderr
        assert "avg queue (pkts)" in proc.stdout
        assert "Traceback" not in proc.stderr
        outputs.append(_files(out_dir))
    assert len(outputs[0]) == 20  # 9 tables as Parquet and CSV, summary.json, .aqmlab.jsonl
    assert outputs[0].keys() == outputs[1].keys()
    for name, content in outputs[0].items():
        assert content == outputs[1][name], name


def test_run_default_out_dir_and_seed(small_scenario_file, tmp_path):
    proc = run_cli("run", str(small_scenario_file), "--seed", "7", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "results" / "small" / "summary.json").is_file()
    assert proc.stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ["--set", "queue.no_such_key=1"],
        ["--set", "queue.aqm=no_such_aqm"],
        ["--set", "duration_s=-5"],
        ["--set", "queue.aqm"],
        ["--set", "=red"],
        ["--seed", "-1"],
        ["--no-such-option"],
    ],
)
def test_bad_input_is_one_line_exit_2(small_scenario_file, tmp_path, args):
    out_dir = tmp_path / "out"
    proc = run_cli("run", str(small_scenario_file), *args, "--out", str(out_dir))
    assert proc.returncode == 2
    assert proc.stderr.startswith("aqmlab: error:")
    assert proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    assert not out_dir.exists()


def test_missing_file_is_one_line_exit_2(tmp_path):
    out_dir = tmp_path / "out"
    proc = run_cli("run", str(tmp_path / "missing.toml"), "--out", str(out_dir))
    assert proc.returncode == 2
    assert proc.stderr.startswith("aqmlab: error:")
    assert "missing.toml" in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert not out_dir.exists()


def test_toml_syntax_error_is_one_line_exit_2(tmp_path):
    scenario = tmp_path / "broken.toml"
    scenario.write_text("duration_s = = 1\n", encoding="utf-8")
    proc = run_cli("run", str(scenario), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert proc.stderr.startswith("aqmlab: error:")
    assert proc.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_list():
    proc = run_cli("list")
    assert proc.returncode == 0, proc.stderr
    assert "droptail" in proc.stdout
    assert "  self_tuning_red  Self-tuning RED\n" in proc.stdout  # the name, then the title
    assert "aqm titles" not in proc.stdout
    scenarios = proc.stdout.split("built-in scenarios")[1].split("built-in experiments")[0]
    assert "  betared/scenario1\n  betared/scenario2\n" in scenarios
    assert "  betared/fig3\n" in proc.stdout.split("built-in experiments")[1]


def test_version():
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.startswith("aqmlab ")


def test_compare(small_scenario_file, tmp_path):
    dirs = []
    for aqm in ("droptail", "red"):
        out_dir = tmp_path / aqm
        proc = run_cli(
            "run", str(small_scenario_file), "--set", f"queue.aqm={aqm}", "--out", str(out_dir)
        )
        assert proc.returncode == 0, proc.stderr
        dirs.append(str(out_dir))
    proc = run_cli("compare", *dirs)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 4
    for label in ("avg queue (pkts)", "drop rate (%)", "throughput (Mb/s)", "delay (ms)"):
        assert label in lines[0]
    assert lines[2].split()[:2] == [dirs[0], "droptail"]
    assert lines[3].split()[:2] == [dirs[1], "red"]


def test_compare_missing_dir_is_one_line_exit_2(tmp_path):
    proc = run_cli("compare", str(tmp_path / "nothing"))
    assert proc.returncode == 2
    assert proc.stderr.startswith("aqmlab: error:")
    assert proc.stderr.count("\n") == 1


def test_no_command_is_usage_error():
    proc = run_cli(cwd=REPO_ROOT)
    assert proc.returncode == 2
    assert proc.stderr.startswith("aqmlab: error:")


def test_run_prints_per_port_and_per_group_tables(tmp_path):
    path = REPO_ROOT / "experiments" / "li2014" / "table17_18_two_bottlenecks.toml"
    proc = run_cli(
        "run", str(path), "--set", "duration_s=3", "--out", str(tmp_path / "out"), "--quiet"
    )
    assert proc.returncode == 0, proc.stderr
    assert "per port:" in proc.stdout and "D->E" in proc.stdout
    assert "per group:" in proc.stdout and "N2" in proc.stdout
    assert (tmp_path / "out" / "ports.parquet").exists()


def test_a_network_runs_from_python_and_a_broken_one_is_refused(tmp_path):
    result = aqmlab.run(triangle())
    ports = result.ports.set_index("name")
    assert list(ports.index) == ["A->B", "B->C", "A->C"]
    # A to C is one hop over the direct link, so only that port sees the flows.
    assert ports.loc["A->C", "arrivals"] > 0
    assert ports.loc[["A->B", "B->C"], "arrivals"].sum() == 0
    assert set(result.flows["rtt_prop_ms"]) == {2 * (1.0 + 30.0 + 1.0)}
    broken = tmp_path / "broken.toml"
    broken.write_text(TRIANGLE.read_text(encoding="utf-8").replace('to = "B"', 'to = "Z"', 1))
    out = tmp_path / "out"
    proc = run_cli("run", str(broken), "--out", str(out))
    assert_usage_error(proc, 'topology.links[0].to: "Z" is not a router')
    assert not out.exists()
