"""What a new user runs into: every mistake is one line naming what is wrong and what is
allowed, with exit status 2 (CLI) or a ValueError/TypeError naming the argument (Python), and
nothing is simulated or written first."""

from __future__ import annotations

import json
import textwrap

import pytest

import aqmlab
from aqmlab import Scenario, ScenarioError
from aqmlab.sweeps.experiment import Experiment, ExperimentError
from conftest import REPO_ROOT, SCENARIO1, assert_usage_error, run_cli

FIG3 = REPO_ROOT / "experiments" / "betared" / "fig3.toml"


@pytest.fixture
def latin1_file(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes('name = "d\xe9bit"\nduration_s = 5.0\n'.encode("latin-1"))
    return path


def test_non_utf8_files_are_one_line_errors(latin1_file, tmp_path):
    out = tmp_path / "out"
    for command in (["run", "--out", str(out)], ["sweep", "--out", str(out)], ["show"]):
        proc = run_cli(command[0], str(latin1_file), *command[1:])
        assert_usage_error(proc, "latin1.toml", "UTF-8")
    bad_run = tmp_path / "bad-run"
    bad_run.mkdir()
    (bad_run / "summary.json").write_bytes(b'{"summary": {"aqm": "r\xe9d"}}')
    assert_usage_error(run_cli("compare", str(bad_run)), "summary.json", "UTF-8")
    assert not out.exists()
    with pytest.raises(ScenarioError, match="latin1.toml: not a UTF-8 text file"):
        Scenario.load(latin1_file)


def test_toml_syntax_errors_name_file_line_and_column(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('name = "x"\n\n[queue]\naqm = = "red"\n', encoding="utf-8")
    assert_usage_error(run_cli("run", str(path)), "broken.toml", "line 4", "column")
    with pytest.raises(ScenarioError, match=r"line 4, column \d+"):
        Scenario.from_text(path.read_text(encoding="utf-8")).resolved()


def _experiment(
    tmp_path, plot_y: str = '["avg_queue_pkts"]', quick: str = "", name: str = "exp"
) -> str:
    path = tmp_path / f"{name}.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            scenario = "{SCENARIO1.as_posix()}"
            [fixed]
            duration_s = 2.0
            "measure.window" = "all"
            [[axes]]
            name = "N"
            key = "traffic.schedule.flows"
            values = [5, 10]
            [plot]
            x = "N"
            y = {plot_y}
            """
        )
        + quick,
        encoding="utf-8",
    )
    return str(path)


def test_unknown_plot_metric_found_before_any_run(tmp_path):
    exp = _experiment(tmp_path, plot_y='["avg_queue_pkts", "goodput_bps"]')
    proc = run_cli("sweep", exp, "--out", str(tmp_path / "out"))
    assert_usage_error(proc, "plot.y: unknown metric 'goodput_bps'", "allowed:", "drop_rate")
    assert not (tmp_path / "out").exists()


def test_quick_without_a_quick_table_is_refused(tmp_path):
    exp = _experiment(tmp_path)
    proc = run_cli("sweep", exp, "--quick", "--out", str(tmp_path / "out"))
    assert_usage_error(proc, "has no [quick] table")
    assert not (tmp_path / "out").exists()
    with_quick = _experiment(tmp_path, quick="[quick]\nvalues = { N = [5] }\n", name="q")
    assert len(Experiment.load(with_quick, quick=True).runs()) == 1
    with pytest.raises(ExperimentError, match="no \\[quick\\] table"):
        Experiment.load(exp, quick=True)


@pytest.mark.parametrize(
    "command",
    [
        ["model", "bifurcation", "--points", "1000000000"],
        ["model", "bifurcation", "--points", "100000", "--keep", "100000"],
        ["model", "lyapunov", "--points", "1000000000"],
        ["model", "stability-map", "--x-points", "100000", "--y-points", "100000"],
        ["model", "reproduce", "self-tuning-red", "--points", "1000000000"],
    ],
)
def test_huge_model_requests_are_refused_at_once(command, tmp_path):
    proc = run_cli(*command, "--out", str(tmp_path / "out"))
    assert_usage_error(proc, "GiB")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "command, fragment",
    [
        (["model", "bifurcation", "--keep", "0"], "--keep"),
        (["curves", "--theta", ",".join(["0.1"] * 10_000)], "--theta"),
        (["curves", "--theta", "nan"], "--theta"),
        (["curves", "--q-target", "inf"], "--q-target"),
        (["model", "bifurcation", "--from", "nan"], "--from"),
    ],
)
def test_bad_numbers_and_counts(command, fragment, tmp_path):
    proc = run_cli(*command, "--out", str(tmp_path / "out"))
    assert_usage_error(proc, fragment)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "7", True])
def test_run_seed_out_of_range(small_scenario, seed):
    with pytest.raises(ScenarioError, match="seed: must be an integer in 0..2\\^64-1"):
        aqmlab.run(small_scenario, seed=seed)


def test_run_rejects_what_is_not_a_scenario():
    with pytest.raises(TypeError, match="scenario: expected a Scenario or the path"):
        aqmlab.run(42)


def test_with_rejects_keys_that_are_not_paths(small_scenario):
    with pytest.raises(ScenarioError, match="with_: key 1"):
        small_scenario.with_({1: 2})
    with pytest.raises(TypeError, match="with_: expected a mapping"):
        small_scenario.with_([("queue.aqm", "red")])


def test_scenario_get_reports_resolved_values(small_scenario):
    assert small_scenario.get("queue.aqm") == "red"
    assert small_scenario.get("queue.red.p_max") == 0.1
    assert small_scenario.with_({"queue.red.p_max": 0.3}).get("queue.red.p_max") == 0.3
    assert small_scenario.get("tcp")["preset"] == "ns3"
    with pytest.raises(ScenarioError, match="queue.red.pmax: no such key"):
        small_scenario.get("queue.red.pmax")


def test_progress_lines_when_stderr_is_not_a_terminal(small_scenario_file, tmp_path):
    proc = run_cli("run", str(small_scenario_file), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("simulating: 0/5 s simulated (0 %)")
    assert lines[-1].startswith("simulating: 5/5 s simulated (100 %)")
    assert lines[-1].endswith(", done")
    quiet = run_cli("run", str(small_scenario_file), "--out", str(tmp_path / "q"), "--quiet")
    assert quiet.stderr == ""


def test_sweep_progress_lines(tmp_path):
    exp = _experiment(tmp_path)
    proc = run_cli("sweep", exp, "--out", str(tmp_path / "out"), "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("exp: 0/2 runs (0 %)")
    assert lines[-1].startswith("exp: 2/2 runs (100 %)")


def test_the_largest_seed_survives_a_round_trip(small_scenario, tmp_path):
    first = aqmlab.run(small_scenario, seed=2**64 - 1)
    assert first.seed == 2**64 - 1
    assert first.summary_dict["seed"] == 2**64 - 1
    out = first.write(tmp_path / "max-seed")
    meta = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert meta["seed"] == meta["summary"]["seed"] == 2**64 - 1
    assert 'seed = "18446744073709551615"' in meta["scenario"]
    stored = tmp_path / "stored.toml"
    stored.write_text(meta["scenario"], encoding="utf-8")
    again = aqmlab.run(stored)
    assert again.seed == 2**64 - 1
    assert again.summary.equals(first.summary)
    assert again.scenario_text == first.scenario_text
    proc = run_cli("run", str(stored), "--out", str(tmp_path / "cli"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    cli = json.loads((tmp_path / "cli" / "summary.json").read_text(encoding="utf-8"))
    assert cli["summary"] == meta["summary"]


def test_changing_only_the_duration_just_works(tmp_path):
    proc = run_cli(
        "run",
        str(SCENARIO1),
        "--set",
        "duration_s=20",
        "--set",
        "traffic.schedule.flows=20",
        "--out",
        str(tmp_path / "out"),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert (summary["summary"]["window_start_s"], summary["summary"]["window_end_s"]) == (10, 20)
    proc = run_cli(
        "run",
        str(SCENARIO1),
        "--set",
        "duration_s=100",
        "--set",
        "measure.window=[125, 250]",
    )
    assert_usage_error(proc, "measure.window", "(from an override)", "second_half")


def test_tiny_sample_interval_and_cwnd_flows_beyond_the_flows(tmp_path):
    out = tmp_path / "out"
    proc = run_cli("run", str(SCENARIO1), "--set", "measure.sample_interval_ms=1e-300")
    assert_usage_error(proc, "measure.sample_interval_ms", "0.001 ms")
    proc = run_cli("run", str(SCENARIO1), "--set", "measure.cwnd_flows=[5000]", "--out", str(out))
    assert_usage_error(proc, "measure.cwnd_flows[0]", "0..99")
    assert not out.exists()


@pytest.mark.parametrize("key", ["topology.bottleneck_rate_mbps", "topology.access_rate_mbps"])
@pytest.mark.parametrize("value", ["1e-9", "1e-300"])
def test_tiny_link_rates_are_errors_not_panics(key, value):
    proc = run_cli("run", str(SCENARIO1), "--set", f"{key}={value}")
    assert_usage_error(proc, key)
    assert "panic" not in proc.stderr
