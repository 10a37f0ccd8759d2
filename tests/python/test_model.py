"""The discrete-time model from Python and from `aqmlab model`: the self-tuning-RED worked
example, sweeps, stability maps, files written, and one-line errors with exit status 2."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from aqmlab import model
from conftest import run_cli

RED = {"drop": "red"}


def test_worked_example_fixed_point_and_bound():
    fp = model.fixed_points(RED)
    assert len(fp) == 1
    row = fp.iloc[0]
    assert round(row["q_avg_pkts"], 1) == 345.1
    assert round(row["w_bound"], 4) == 0.1578
    assert row["w_bound_eq312"] == pytest.approx(row["w_bound"], rel=1e-12)
    assert row["eigenvalue"] == pytest.approx(1 - 0.02 * (1 + row["gain"]))
    assert bool(row["stable"])
    assert round(model.w_bound_eq312(345.1), 4) == 0.1578
    assert model.p_max_for_target(345.1, RED) == pytest.approx(0.1, abs=1e-4)


def test_period_two_above_the_bound_convergence_below():
    opts = {"iterations": 50_000, "transient": 40_000, "keep": 10}
    below = model.bifurcation("w", [0.155], RED, **opts)
    above = model.bifurcation("w", [0.16], RED, **opts)
    assert below.summary["period"].tolist() == [1]
    assert np.allclose(below.points["q_avg_pkts"], 345.1032, atol=1e-3)
    assert above.summary["period"].tolist() == [2]
    assert above.points["q_avg_pkts"].max() - above.points["q_avg_pkts"].min() > 1.0


def test_betared_at_one_over_root_three_is_the_red_map():
    common = {"theta": 1 / math.sqrt(3), "q_target_pkts": 500.0, "w": 0.1}
    red = model.map_curve({**common, "drop": "red"})
    beta = model.map_curve({**common, "drop": "betared"})
    assert np.allclose(red["f"], beta["f"], rtol=1e-12, atol=1e-9)
    assert np.allclose(red["derivative"], beta["derivative"], rtol=1e-12, atol=1e-12)


def test_bifurcation_frames_and_lyapunov():
    values = np.linspace(0.12, 0.2, 41)
    bif = model.bifurcation("w", values, keep=20)
    assert bif.param == "w"
    assert len(bif.points) == 41 * 20
    assert list(bif.summary.columns[:3]) == ["value", "period", "lyapunov"]
    s = bif.summary
    assert (s.loc[s["value"] < 0.155, "period"] == 1).all()
    assert (s.loc[s["value"] > 0.165, "lyapunov"] > 0).all()
    lyap = model.lyapunov("w", values)
    assert np.allclose(lyap["lyapunov"], s["lyapunov"])


def test_sweep_by_alias_and_other_parameters():
    for name, values in (
        ("N", [100, 250, 400]),
        ("d", [0.05, 0.1]),
        ("C", [50, 75]),
        ("q_target", [300.0, 400.0]),
        ("p_max", [0.05, 0.5]),
    ):
        bif = model.bifurcation(name, values, {"drop": "betared"}, iterations=2000, keep=5)
        assert len(bif.summary) == len(values)
        assert bif.summary["q_star_pkts"].notna().all()


def test_stability_map_grid():
    df = model.stability_map(
        "theta", [0.1, 0.3, 0.5], "w", [0.01, 0.5], {"drop": "betared"}, iterations=2000
    )
    assert list(df.columns[:2]) == ["theta", "w"]
    assert len(df) == 6
    assert df["w"].tolist() == [0.01, 0.01, 0.01, 0.5, 0.5, 0.5]


def test_orbit_frame():
    o = model.orbit(steps=5, q0_pkts=400.0)
    assert isinstance(o, pd.DataFrame)
    assert o["q_avg_pkts"].iloc[0] == 400.0
    assert len(o) == 6 and math.isnan(o["q_pkts"].iloc[0])


@pytest.mark.parametrize(
    "params, message",
    [
        ({"w": 0.0}, "w: must be in (0, 1]"),
        ({"w": 1.5}, "w: must be in (0, 1]"),
        ({"drop": "betared", "theta": 1.0}, "theta: must be in [0.005, 1)"),
        ({"drop": "betared", "theta": 0.0}, "theta: must be in [0.005, 1)"),
        ({"drop": "pie"}, "drop: unknown drop function 'pie'"),
        ({"gamma": 1.0}, "gamma: unknown model parameter"),
        ({"N": -1}, "n_flows: must be in [0.001, 1000000000]"),
        ({"C": 1e300}, "capacity_mbps: must be in [0.000001, 1000000000]"),
    ],
)
def test_bad_parameters_are_value_errors(params, message):
    with pytest.raises(ValueError, match=None) as info:
        model.fixed_points(params)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_bad_sweep_value_names_the_field():
    expected = r"^theta: must be in \[0\.005, 1\) \(sweep value theta = 1"
    with pytest.raises(ValueError, match=expected):
        model.bifurcation("theta", [0.5, 1.0], {"drop": "betared"})


def test_cli_fixed_point_prints_the_worked_example(tmp_path):
    proc = run_cli("model", "fixed-point", "--drop", "red", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "345.1032" in proc.stdout
    assert "0.1578" in proc.stdout
    for name in ("fixed_points.parquet", "fixed_points.csv", "orbit.csv", "map.png", "map.svg"):
        assert (tmp_path / name).is_file(), name
    assert pd.read_csv(tmp_path / "fixed_points.csv")["q_avg_pkts"].round(1).tolist() == [345.1]


def test_cli_bifurcation_lyapunov_and_map_write_files(tmp_path, capsys):
    from aqmlab.cli.main import main

    args = ["--points", "50", "--iterations", "2000", "--keep", "20"]
    assert main(["model", "bifurcation", *args, "--out", str(tmp_path / "b")]) == 0
    assert "period 2" in capsys.readouterr().out
    for name in (
        "bifurcation.png",
        "bifurcation.svg",
        "bifurcation.parquet",
        "bifurcation.csv",
        "bifurcation_summary.csv",
    ):
        assert (tmp_path / "b" / name).is_file(), name
    args = [
        "--param",
        "p_max",
        "--from",
        "0.01",
        "--to",
        "1",
        "--points",
        "30",
        "--iterations",
        "2000",
    ]
    assert main(["model", "lyapunov", *args, "--out", str(tmp_path / "l")]) == 0
    assert (tmp_path / "l" / "lyapunov.png").is_file()
    args = [
        "--drop",
        "betared",
        "--x-points",
        "6",
        "--y-points",
        "5",
        "--iterations",
        "1000",
        "--color",
        "period",
    ]
    assert main(["model", "stability-map", *args, "--out", str(tmp_path / "m")]) == 0
    df = pd.read_parquet(tmp_path / "m" / "stability_map.parquet")
    assert len(df) == 30 and {"theta", "w", "lyapunov", "period"} <= set(df.columns)
    assert (tmp_path / "m" / "stability_map.svg").is_file()


BAD_INPUT = [
    ["fixed-point", "--set", "w=2"],
    ["fixed-point", "--drop", "betared", "--set", "theta=1"],
    ["fixed-point", "--set", "theta"],
    ["fixed-point", "--set", "w=abc"],
    ["fixed-point", "--set", "nope=1"],
    ["fixed-point", "--drop", "codel"],
    ["bifurcation", "--param", "nope"],
    ["bifurcation", "--from", "0.5", "--to", "1.5", "--points", "3"],
    ["bifurcation", "--points", "0"],
    ["bifurcation", "--iterations", "100", "--transient", "100"],
    ["stability-map", "--x", "w", "--y", "w", "--x-points", "2", "--y-points", "2"],
    ["reproduce", "no-such-paper"],
]


@pytest.mark.parametrize("args", BAD_INPUT)
def test_cli_bad_input_is_one_line_exit_2(tmp_path, capsys, args):
    from aqmlab.cli.main import main

    out = tmp_path / "out"
    assert main(["model", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("aqmlab: error:")
    assert err.count("\n") == 1
    assert not out.exists()


def test_cli_bad_input_in_a_process(tmp_path):
    proc = run_cli("model", "fixed-point", "--set", "w=0", "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert proc.stderr == "aqmlab: error: w: must be in (0, 1]\n"
