"""What a new user runs into: every mistake is one line naming what is wrong and what is
allowed, with exit status 2 (CLI) or a ValueError/TypeError naming the argument (Python), and
nothing is simulated or written first."""

from __future__ import annotations

import textwrap

import pytest

import aqmlab
from aqmlab import Scenario, ScenarioError
from aqmlab.experiment import Experiment, ExperimentError
from conftest import REPO_ROOT, SCENARIO1, run_cli

FIG3 = REPO_ROOT / "experiments" / "betared" / "fig3.toml"


def _one_line_error(proc, *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("aqmlab: error:"), proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr, proc.stderr


@pytest.fixture
def latin1_file(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes('name = "d\xe9bit"\nduration_s = 5.0\n'.encode("latin-1"))
    return path


def test_non_utf8_files_are_one_line_errors(latin1_file, tmp_path):
    out = tmp_path / "out"
    _one_line_error(run_cli("run", str(latin1_file), "--out", str(out)), "latin1.toml", "UTF-8")
    _one_line_error(run_cli("sweep", str(latin1_file), "--out", str(out)), "latin1.toml", "UTF-8")
    _one_line_error(run_cli("show", str(latin1_file)), "latin1.toml", "UTF-8")
    bad_run = tmp_path / "bad-run"
    bad_run.mkdir()
    (bad_run / "summary.json").write_bytes(b'{"summary": {"aqm": "r\xe9d"}}')
    _one_line_error(run_cli("compare", str(bad_run)), "summary.json", "UTF-8")
    assert not out.exists()
    with pytest.raises(ScenarioError, match="latin1.toml: not a UTF-8 text file"):
        Scenario.load(latin1_file)


def test_toml_syntax_errors_name_file_line_and_column(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('name = "x"\n\n[queue]\naqm = = "red"\n', encoding="utf-8")
    _one_line_error(run_cli("run", str(path)), "broken.toml", "line 4", "column")
    with pytest.raises(ScenarioError, match=r"line 4, column \d+"):
        Scenario.from_text(path.read_text(encoding="utf-8")).resolved()


def _experiment(tmp_path, plot_y: str = '["avg_queue_pkts"]', quick: str = "") -> str:
    path = tmp_path / "exp.toml"
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
    _one_line_error(proc, "plot.y: unknown metric 'goodput_bps'", "allowed:", "drop_rate")
    assert not (tmp_path / "out").exists()


def test_quick_without_a_quick_table_is_refused(tmp_path):
    exp = _experiment(tmp_path)
    proc = run_cli("sweep", exp, "--quick", "--out", str(tmp_path / "out"))
    _one_line_error(proc, "has no [quick] table")
    assert not (tmp_path / "out").exists()
    with_quick = _experiment(tmp_path, quick="[quick]\nvalues = { N = [5] }\n")
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
    _one_line_error(proc, "GiB")
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
    _one_line_error(proc, fragment)
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
