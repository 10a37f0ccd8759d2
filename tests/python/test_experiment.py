"""Experiment files: parsing, grid expansion (cartesian and zipped axes), quick variants,
run identifiers and errors."""

from __future__ import annotations

import hashlib
import textwrap

import pytest

from aqmlab import _core
from aqmlab.sweeps.experiment import Experiment, ExperimentError, run_id
from conftest import REPO_ROOT, SCENARIO1

BETARED_DIR = REPO_ROOT / "experiments" / "betared"

BASE = f"""
title = "test"
scenario = "{SCENARIO1.as_posix()}"
seeds = [1, 2]

[fixed]
"queue.aqm" = "red"
duration_s = 3.0
"measure.window" = [0.0, 3.0]

[[axes]]
name = "thresholds"
keys = ["queue.red.q_min_pkts", "queue.red.q_max_pkts"]
columns = ["q_min", "q_max"]
values = [[0.0, 1000.0], [100.0, 400.0]]

[[axes]]
name = "N"
key = "traffic.schedule.flows"
values = [10, 20, 30]

[plot]
x = "N"
lines = "thresholds"

[quick]
seeds = [7]
values = {{ N = [10] }}
[quick.fixed]
duration_s = 2.0
"measure.window" = [0.0, 2.0]
"""


def write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_cartesian_grid_with_zipped_axis(tmp_path):
    exp = Experiment.load(write(tmp_path, BASE))
    grid = exp.grid()
    assert len(grid) == 2 * 3
    assert grid[0] == {"thresholds": (0.0, 1000.0), "N": 10}
    assert grid[-1] == {"thresholds": (100.0, 400.0), "N": 30}
    overrides = dict(exp.overrides(grid[-1], seed=2))
    assert overrides["queue.red.q_min_pkts"] == "100.0"
    assert overrides["queue.red.q_max_pkts"] == "400.0"
    assert overrides["traffic.schedule.flows"] == "30"
    assert overrides["queue.aqm"] == '"red"'
    assert overrides["seed"] == "2"
    assert exp.columns(grid[-1]) == {
        "thresholds": "(100, 400)",
        "q_min": 100.0,
        "q_max": 400.0,
        "N": 30,
    }
    specs = exp.runs()
    assert len(specs) == 12
    assert len({s.run_id for s in specs}) == 12
    assert specs[0].params["seed"] == 1


def test_scalar_values_broadcast_to_all_keys(tmp_path):
    text = BASE.replace(
        'keys = ["queue.red.q_min_pkts", "queue.red.q_max_pkts"]\ncolumns = ["q_min", "q_max"]\n'
        "values = [[0.0, 1000.0], [100.0, 400.0]]",
        'keys = ["queue.red.p_max", "queue.red.w"]\nvalues = [0.1, 0.2]',
    )
    exp = Experiment.load(write(tmp_path, text))
    overrides = dict(exp.overrides(exp.grid()[0], seed=1))
    assert overrides["queue.red.p_max"] == overrides["queue.red.w"] == "0.1"


def test_quick_variant_overrides_grid_seeds_and_fixed(tmp_path):
    exp = Experiment.load(write(tmp_path, BASE), quick=True)
    assert exp.seeds == (7,)
    assert exp.axis("N").values == (10,)
    assert dict(exp.fixed)["duration_s"] == 2.0
    assert len(exp.runs()) == 2


def test_run_id_is_stable_and_depends_on_text_and_seed(tmp_path):
    path = write(tmp_path, BASE)
    a = Experiment.load(path).runs()
    b = Experiment.load(path).runs()
    assert [s.run_id for s in a] == [s.run_id for s in b]
    spec = a[0]
    key = f"aqmlab {_core.version()}\n{spec.scenario_text}\n#seed={spec.seed}\n"
    assert spec.run_id == hashlib.sha256(key.encode()).hexdigest()[:16]
    assert run_id(spec.scenario_text, 1) != run_id(spec.scenario_text, 2)
    assert run_id(spec.scenario_text + " ", 1) != run_id(spec.scenario_text, 1)


@pytest.mark.parametrize(
    "change, message",
    [
        (("title", "titel"), "unknown key 'titel'"),
        (('name = "N"', 'name = "N"\nlog = true'), "unknown key 'log'"),
        (("values = [10, 20, 30]", "values = []"), "values must be a non-empty list"),
        (("values = [10, 20, 30]", "values = [10, 10]"), "repeated value"),
        (("[[0.0, 1000.0], [100.0, 400.0]]", "[[0.0], [100.0, 400.0]]"), "one per key"),
        (('x = "N"', 'x = "M"'), "plot.x: no axis named 'M'"),
        (('x = "N"', ""), 'plot.x: required for kind = "lines"; give one of the axes: '),
        (("seeds = [1, 2]", "seeds = []"), "seeds"),
        (("N = [10]", "M = [10]"), "quick.values: no axis named 'M'"),
        (
            ('key = "traffic.schedule.flows"', 'key = "traffic.schedule.flows"\nkeys = ["a"]'),
            "exactly one of key or keys",
        ),
    ],
)
def test_invalid_files_raise_one_line_errors(tmp_path, change, message):
    old, new = change
    assert old in BASE
    path = write(tmp_path, BASE.replace(old, new, 1))
    with pytest.raises(ExperimentError) as err:
        Experiment.load(path, quick=True)
    assert message in str(err.value)
    assert str(err.value).startswith("exp.toml:")
    assert "\n" not in str(err.value)


def test_an_experiment_without_axes_is_told_to_add_one(tmp_path):
    path = write(tmp_path, f'scenario = "{SCENARIO1.as_posix()}"\n')
    with pytest.raises(ExperimentError, match=r"axes: none; a sweep needs at least one \[\["):
        Experiment.load(path)


def test_invalid_scenario_value_names_the_grid_point(tmp_path):
    path = write(tmp_path, BASE.replace("values = [10, 20, 30]", "values = [10, -5]"))
    with pytest.raises(ExperimentError, match=r"at thresholds=\(0, 1000\), N=-5"):
        Experiment.load(path).runs()


def test_missing_file_and_bad_toml(tmp_path):
    with pytest.raises(ExperimentError, match="cannot read"):
        Experiment.load(tmp_path / "missing.toml")
    with pytest.raises(ExperimentError, match=r"TOML syntax error at line 1, column 9: "):
        Experiment.load(write(tmp_path, "title = = 1"))


@pytest.mark.parametrize("quick", [False, True])
def test_betared_figures_parse(quick):
    sizes = {}
    for n in range(3, 10):
        exp = Experiment.load(BETARED_DIR / f"fig{n}.toml", quick=quick)
        sizes[exp.name] = len(exp.grid()) * len(exp.seeds)
        assert exp.title.startswith(f"Fig. {n}:")
    total = sum(sizes.values())
    assert (300 <= total <= 700) if not quick else (total <= 120)


def test_titles_and_report_say_which_window_was_measured():
    import pandas as pd

    from aqmlab.papers.report import setup_lines

    fig3 = REPO_ROOT / "experiments" / "betared" / "fig3.toml"
    quick = Experiment.load(fig3, quick=True)
    full = Experiment.load(fig3)
    measured = pd.DataFrame(
        {"duration_s": [100.0, 100.0], "window_start_s": [50.0, 50.0], "window_end_s": [100.0] * 2}
    )
    title = quick.display_title(measured)
    assert "(last 50 s of 100 s)" in title
    assert "125" not in title
    assert "last 50 s of 100 s" in setup_lines(quick, measured)[0]
    whole = measured.assign(duration_s=250.0, window_start_s=125.0, window_end_s=250.0)
    assert "(last 125 s of 250 s)" in full.display_title(whole)
    mixed = pd.concat([measured, whole])
    assert "differ between runs" in full.display_title(mixed)


UDP_GROUP = (
    '{ name = "u", transport = "udp", schedule = { kind = "constant", flows = 1 }, '
    'source = { kind = "cbr", rate_kbps = 100.0, packet_bytes = 100 } }'
)

CASES = f"""
title = "cases"
scenario = "{(REPO_ROOT / "experiments/rfc7928/scenarios/dumbbell.toml").as_posix()}"

[fixed]
duration_s = 2.0
"measure.window" = [0.0, 2.0]

[[axes]]
name = "case"
[axes.cases.small]
"traffic.groups[1].schedule.flows" = 2
[axes.cases.red]
"queue.aqm" = "red"
"queue.red.q_min_pkts" = 5.0
[axes.cases.udp]
"traffic.groups" = [{UDP_GROUP}]

[plot]
x = "case"

[quick]
values = {{ case = ["udp", "small"] }}
"""


def test_an_axis_of_named_cases_applies_each_case_overrides(tmp_path):
    text = CASES
    exp = Experiment.load(write(tmp_path, text))
    axis = exp.axis("case")
    assert axis.values == ("small", "red", "udp")
    assert axis.assignments("red") == [("queue.aqm", "red"), ("queue.red.q_min_pkts", 5.0)]
    assert exp.columns({"case": "udp"}) == {"case": "udp"}
    quick = Experiment.load(write(tmp_path, text), quick=True)
    assert quick.axis("case").values == ("udp", "small")
    # A case may set a whole array of tables: the UDP case runs one CBR group.
    udp = next(s for s in quick.runs() if s.params["case"] == "udp")
    assert 'transport = "udp"' in udp.scenario_text
    assert "rate_kbps = 100" in udp.scenario_text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('[quick]\nvalues = { case = ["udp", "small"] }', '[quick]\nvalues = { case = ["big"] }'),
         "quick.values.case: no case 'big' (cases: small, red, udp)"),
        (('name = "case"\n', 'name = "case"\nkey = "queue.aqm"\n'),
         "an axis of cases takes no key, keys or columns"),
        (('name = "case"\n', 'name = "case"\nvalues = ["small", "small"]\n'), "repeated value"),
        (('[axes.cases.small]\n"traffic.groups[1].schedule.flows" = 2', "[axes.cases.small]"),
         "case 'small' must be a non-empty table of scenario keys"),
    ],
)  # fmt: skip
def test_bad_cases_axes_are_one_line_errors(tmp_path, change, message):
    text = CASES
    old, new = change
    assert old in text
    with pytest.raises(ExperimentError) as err:
        Experiment.load(write(tmp_path, text.replace(old, new, 1)), quick=True)
    assert message in str(err.value)
    assert "\n" not in str(err.value)
