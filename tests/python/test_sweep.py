"""Sweeps: finished runs are stored at once, a second sweep does no simulation, an
interrupted sweep leaves only complete records, tables and figures are written."""

from __future__ import annotations

import dataclasses
import json
import os
import textwrap

import pandas as pd
import pytest

import aqmlab.sweeps.grid as sweep_mod
from aqmlab.engine import outdir
from aqmlab.engine.store import RunStore
from aqmlab.present.plots import moving_average, plot_experiment
from aqmlab.sweeps.experiment import Experiment
from aqmlab.sweeps.grid import execute, load_traces, sweep, table
from conftest import SCENARIO1

TINY = f"""
title = "tiny"
scenario = "{SCENARIO1.as_posix()}"
seeds = [1]
traces = TRACES

[fixed]
"queue.aqm" = "red"
duration_s = 3.0
"measure.window" = [0.0, 3.0]
"traffic.schedule.flows" = 10

[[axes]]
name = "aqm"
key = "queue.aqm"
values = ["red", "droptail"]

[[axes]]
name = "N"
key = "traffic.schedule.flows"
values = [5, 10]

[plot]
KIND
lines = "aqm"
y = ["avg_queue_pkts", "drop_rate"]
target = 250.0
"""


def tiny(tmp_path, traces=False):
    text = TINY.replace("TRACES", "true" if traces else "false")
    text = text.replace("KIND", 'kind = "traces"' if traces else 'x = "N"')
    path = tmp_path / ("tiny-traces.toml" if traces else "tiny.toml")
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return Experiment.load(path)


def test_resume_skips_finished_runs(tmp_path):
    exp = tiny(tmp_path)
    out = tmp_path / "out"
    first = execute(exp.runs(), out, jobs=2, progress=False)
    assert (first.total, first.ran, first.skipped, first.failed) == (4, 4, 0, [])
    records = sorted((out / "runs").glob("*.json"))
    assert len(records) == 4
    mtimes = [p.stat().st_mtime_ns for p in records]
    second = execute(exp.runs(), out, jobs=2, progress=False)
    assert (second.ran, second.skipped) == (0, 4)
    assert [p.stat().st_mtime_ns for p in records] == mtimes
    df = sweep(exp, out, jobs=1, progress=False)
    assert len(df) == 4
    assert {"experiment", "run_id", "aqm", "N", "seed", "avg_queue_pkts", "jitter_ms"} <= set(df)
    assert (out / "results.parquet").is_file() and (out / "results.csv").is_file()
    assert pd.read_parquet(out / "results.parquet").shape == df.shape


def test_interrupted_sweep_keeps_complete_records(tmp_path, monkeypatch):
    exp = tiny(tmp_path)
    out = tmp_path / "out"
    real = sweep_mod.simulate
    calls = []

    def interrupt_second(spec):
        calls.append(spec.run_id)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(spec)

    monkeypatch.setattr(sweep_mod, "simulate", interrupt_second)
    # A leftover temporary file of a listed record from an earlier crash is not a record and
    # gets cleaned; a file of the same shape that aqmlab did not list is the user's and stays.
    outdir.open_resumable(out, "sweep")
    (out / "runs").mkdir()
    outdir.Marker.read(out).claim("runs/deadbeef.json")
    (out / "runs" / f".deadbeef.json{outdir.TEMP_TAG}1").write_text("{", encoding="utf-8")
    users = f".mine.json{outdir.TEMP_TAG}1"
    (out / "runs" / users).write_text("mine", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        execute(exp.runs(), out, jobs=1, progress=False)
    files = sorted(p.name for p in (out / "runs").iterdir())
    assert files == sorted([f"{calls[0]}.json", users])
    files.remove(users)
    json.loads((out / "runs" / files[0]).read_text(encoding="utf-8"))
    monkeypatch.setattr(sweep_mod, "simulate", real)
    again = execute(exp.runs(), out, jobs=1, progress=False)
    assert (again.ran, again.skipped) == (3, 1)


def test_failed_run_is_retried_once_then_reported_and_others_stored(tmp_path, monkeypatch):
    exp = tiny(tmp_path)
    out = tmp_path / "out"
    real = sweep_mod.simulate
    flaky, bad = exp.runs()[0].run_id, exp.runs()[1].run_id
    calls = []

    def fail(spec):
        calls.append(spec.run_id)
        if spec.run_id == bad or (spec.run_id == flaky and calls.count(flaky) == 1):
            raise ValueError(f"boom {calls.count(spec.run_id)}")
        return real(spec)

    monkeypatch.setattr(sweep_mod, "simulate", fail)
    outcome = execute(exp.runs(), out, jobs=1, progress=False)
    assert outcome.ran == 3
    assert outcome.retried == [(flaky, "ValueError: boom 1"), (bad, "ValueError: boom 1")]
    assert outcome.failed == [(bad, "ValueError: boom 2")]
    assert calls.count(flaky) == calls.count(bad) == 2
    assert RunStore(out).has(flaky) and not RunStore(out).has(bad)


def test_a_run_from_another_version_is_not_stored(tmp_path, monkeypatch):
    exp = tiny(tmp_path)
    out = tmp_path / "out"
    real = sweep_mod.simulate

    def old_worker(spec):
        return dataclasses.replace(real(spec), aqmlab_version="0.0.1")

    monkeypatch.setattr(sweep_mod, "simulate", old_worker)
    outcome = execute(exp.runs()[:1], out, jobs=1, progress=False)
    assert outcome.ran == 0 and len(outcome.failed) == 1
    assert "worker runs aqmlab 0.0.1" in outcome.failed[0][1]
    assert not RunStore(out).ids()


def test_stored_files_are_the_bytes_the_worker_sent(tmp_path):
    exp = tiny(tmp_path, traces=True)
    spec = exp.runs()[0]
    run = sweep_mod.simulate(spec)
    store = RunStore(outdir.open_resumable(tmp_path / "out", "sweep"))
    sweep_mod.store_run(store, run)
    assert store.record_path(spec.run_id).read_bytes() == run.record
    assert store.traces_path(spec.run_id).read_bytes() == run.timeseries
    assert json.loads(run.record)["run_id"] == spec.run_id


def test_plots_written_as_png_and_svg(tmp_path):
    exp = tiny(tmp_path)
    out = tmp_path / "out"
    df = sweep(exp, out, jobs=1, progress=False)
    paths = plot_experiment(exp, df, out, "tiny")
    assert sorted(p.name for p in paths) == ["tiny.png", "tiny.svg"]
    assert (out / "tiny.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (out / "tiny.svg").read_text(encoding="utf-8")


def test_traces_stored_and_plotted(tmp_path):
    exp = tiny(tmp_path, traces=True)
    out = tmp_path / "out"
    specs = exp.runs()
    execute(specs, out, jobs=1, progress=False)
    store = RunStore(out)
    assert all(store.has(s.run_id, traces=True) for s in specs)
    traces = load_traces(exp, specs, store)
    assert set(traces) == {"red", "droptail"}
    assert {"t_s", "queue_pkts"} <= set(traces["red"])
    paths = plot_experiment(exp, table(exp, specs, store), out, "traces", traces)
    assert all(p.stat().st_size > 0 for p in paths)
    # A run stored without traces is run again when an experiment asks for them.
    os.remove(store.traces_path(specs[0].run_id))
    again = execute(specs, out, jobs=1, progress=False)
    assert again.ran == 1


def test_moving_average_is_trailing():
    t = [0.0, 1.0, 2.0, 3.0, 4.0]
    assert list(moving_average(t, [0, 2, 4, 6, 8], 2.0)) == [0, 1, 3, 5, 7]
