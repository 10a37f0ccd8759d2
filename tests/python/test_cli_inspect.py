"""`aqmlab show` (the resolved scenario) and `aqmlab plot` (the figure of a run folder)."""

from __future__ import annotations

import sys

import pytest

from aqmlab import RunResult, Scenario, run
from aqmlab.present.run_plots import plot_run
from conftest import run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

SMALL = """\
name = "small"
duration_s = 5.0

[queue]
aqm = "red"

[traffic.schedule]
kind = "constant"
flows = 10

[measure]
target_queue_pkts = 50.0
cwnd_flows = [0, 1]
"""

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def scenario_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("scenario") / "small.toml"
    path.write_text(SMALL, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def run_dir(scenario_file, tmp_path_factory):
    """A run folder written by `aqmlab run`."""
    out = tmp_path_factory.mktemp("runs") / "small-red"
    proc = run_cli("run", str(scenario_file), "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    return out


def _assert_usage_error(proc, *names):
    assert proc.returncode == 2
    assert proc.stderr.startswith("aqmlab: error:")
    assert proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    for name in names:
        assert name in proc.stderr


def test_show_prints_the_resolved_scenario_which_resolves_to_itself(scenario_file, tmp_path):
    proc = run_cli("show", str(scenario_file), "--all")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip("\n") == Scenario.load(scenario_file).resolved().rstrip("\n")
    resolved = tomllib.loads(proc.stdout)
    assert resolved["queue"]["red"]["p_max"] > 0  # a default the file does not set
    again = tmp_path / "again.toml"
    again.write_text(proc.stdout, encoding="utf-8")
    proc2 = run_cli("show", str(again), "--all")
    assert proc2.returncode == 0, proc2.stderr
    assert proc2.stdout == proc.stdout


def test_show_applies_set(scenario_file):
    proc = run_cli(
        "show", str(scenario_file), "--set", "queue.aqm=betared", "--set", "queue.red.p_max=0.05"
    )
    assert proc.returncode == 0, proc.stderr
    resolved = tomllib.loads(proc.stdout)
    assert resolved["queue"]["aqm"] == "betared"
    assert resolved["queue"]["red"]["p_max"] == 0.05
    assert resolved["traffic"]["schedule"]["flows"] == 10


def test_show_key_prints_one_value_or_table(scenario_file):
    proc = run_cli("show", str(scenario_file), "--key", "traffic.schedule.flows")
    assert (proc.returncode, proc.stdout) == (0, "10\n")
    proc = run_cli("show", str(scenario_file), "--key", "queue.aqm")
    assert proc.stdout == '"red"\n'
    proc = run_cli("show", str(scenario_file), "--key", "queue.red", "--set", "queue.red.w=0.01")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("[queue.red]\n")
    table = tomllib.loads(proc.stdout)["queue"]["red"]
    sc = Scenario.load(scenario_file).with_({"queue.red.w": 0.01})
    assert table == sc.get("queue.red")
    proc = run_cli("show", str(scenario_file), "--key", "traffic")
    assert tomllib.loads(proc.stdout)["traffic"] == Scenario.load(scenario_file).get("traffic")


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--set", "queue.red.p_max=2"], ["queue.red.p_max"]),
        (["--set", "queue.no_such_key=1"], ["queue.no_such_key"]),
        (["--set", "queue.aqm"], ["--set", "queue.aqm"]),
        (["--key", "queue.red.pmax"], ["--key", "queue.red.pmax", "p_max"]),
    ],
)
def test_show_bad_input_is_one_line_exit_2(scenario_file, args, names):
    _assert_usage_error(run_cli("show", str(scenario_file), *args), *names)


def test_show_unreadable_files_are_one_line_exit_2(tmp_path):
    missing = tmp_path / "missing.toml"
    _assert_usage_error(run_cli("show", str(missing)), "cannot read scenario file", "missing.toml")
    _assert_usage_error(run_cli("show", str(tmp_path)), "a folder; give a scenario file")
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes('name = "Gim\xe9nez"\n'.encode("latin-1"))
    _assert_usage_error(run_cli("show", str(latin1)), "latin1.toml", "UTF-8")


def _is_png(path):
    return path.read_bytes()[:8] == PNG_MAGIC and path.stat().st_size > 10_000


def test_plot_writes_png_and_svg_into_the_run_folder(run_dir):
    proc = run_cli("plot", str(run_dir))
    assert proc.returncode == 0, proc.stderr
    png, svg = run_dir / "figures" / "small-red.png", run_dir / "figures" / "small-red.svg"
    assert proc.stdout.splitlines() == [str(png), str(svg)]
    assert _is_png(png)
    assert svg.read_text(encoding="utf-8").lstrip().startswith("<?xml")
    first = png.read_bytes(), svg.read_bytes()
    again = run_cli("plot", str(run_dir))  # its own figures are replaced, byte for byte
    assert again.returncode == 0, again.stderr
    assert (png.read_bytes(), svg.read_bytes()) == first
    assert not [p for p in (run_dir / "figures").iterdir() if ".tmp" in p.name]


def test_plot_out_folder_is_created(run_dir, tmp_path):
    out = tmp_path / "a" / "figs"
    proc = run_cli("plot", str(run_dir), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert _is_png(out / "small-red.png")
    assert (out / "small-red.svg").is_file()


def test_plot_bad_run_dir_is_one_line_exit_2(run_dir, tmp_path):
    out = tmp_path / "out"
    missing = tmp_path / "missing"
    _assert_usage_error(run_cli("plot", str(missing), "--out", str(out)), str(missing))
    empty = tmp_path / "empty"
    empty.mkdir()
    _assert_usage_error(run_cli("plot", str(empty), "--out", str(out)), str(empty), "summary.json")
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    _assert_usage_error(run_cli("plot", str(a_file), "--out", str(out)), str(a_file))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "summary.json").write_text("{", encoding="utf-8")
    _assert_usage_error(run_cli("plot", str(broken), "--out", str(out)), str(broken))
    assert not out.exists()
    assert not (empty / "figures").exists()


def test_plot_refuses_folders_it_did_not_write(run_dir, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "small-red.png").write_bytes(b"not aqmlab's")
    _assert_usage_error(run_cli("plot", str(run_dir), "--out", str(mine)), "--out", str(mine))
    assert (mine / "small-red.png").read_bytes() == b"not aqmlab's"
    assert sorted(p.name for p in mine.iterdir()) == ["small-red.png"]
    _assert_usage_error(run_cli("plot", str(run_dir), "--out", str(run_dir)), "--out")
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    _assert_usage_error(run_cli("plot", str(run_dir), "--out", str(a_file)), "--out")


def test_plot_run_from_python(run_dir, tmp_path):
    paths = plot_run(RunResult.read(run_dir), tmp_path / "figs")
    assert [p.name for p in paths] == ["run.png", "run.svg"]
    assert _is_png(paths[0])


def test_plot_run_without_aqm_state_and_many_flows(tmp_path):
    text = SMALL.replace('aqm = "red"', 'aqm = "droptail"').replace("flows = 10", "flows = 80")
    result = run(Scenario.from_text(text).with_({"duration_s": 3.0}))
    assert not any(c.startswith("aqm_") for c in result.timeseries.columns)
    paths = plot_run(result, tmp_path, stem="droptail")
    assert _is_png(paths[0])
