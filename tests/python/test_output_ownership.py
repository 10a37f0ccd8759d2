"""A folder is an aqmlab result only when its marker says so, and `--overwrite` replaces exactly
the files aqmlab listed there: every other file survives any sequence of aqmlab commands."""

from __future__ import annotations

import json
import random
import textwrap
from pathlib import Path

import pytest

from aqmlab.cli.main import main
from aqmlab.engine import outdir
from aqmlab.engine.outdir import MARKER, OutputError
from aqmlab.sweeps.grid import sweep
from conftest import REPO_ROOT, assert_usage_error, run_cli

FIG3 = REPO_ROOT / "experiments" / "betared" / "fig3.toml"

TINY_EXPERIMENT = """
title = "tiny"
scenario = "{scenario}"
seeds = [1]

[fixed]
duration_s = 1.0
"measure.window" = [0.0, 1.0]
"traffic.schedule.flows" = 2

[[axes]]
name = "aqm"
key = "queue.aqm"
values = ["red", "pie"]

[plot]
x = "aqm"
y = ["avg_queue_pkts"]
"""


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _listed(folder: Path) -> set[str]:
    marker = outdir.Marker.read(folder)
    assert marker is not None
    return marker.files


def _earlier_run(scenario: Path, out: Path) -> None:
    proc = run_cli("run", str(scenario), "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr


def test_the_marker_lists_exactly_the_files_a_run_wrote(small_scenario_file, tmp_path):
    out = tmp_path / "R"
    _earlier_run(small_scenario_file, out)
    files = set(_snapshot(out))
    assert MARKER in files
    assert _listed(out) == files - {MARKER}
    head = json.loads((out / MARKER).read_text(encoding="utf-8").splitlines()[0])
    assert head["kind"] == "run"


def test_run_overwrite_keeps_the_users_files(small_scenario_file, tmp_path):
    out = tmp_path / "R"
    _earlier_run(small_scenario_file, out)
    (out / "notes.txt").write_text("my notes\n", encoding="utf-8")
    (out / "analysis").mkdir()
    (out / "analysis" / "nb.ipynb").write_text("{}", encoding="utf-8")
    proc = run_cli(
        "run", str(small_scenario_file), "--out", str(out), "--overwrite", "--seed", "7", "--csv"
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / "notes.txt").read_text(encoding="utf-8") == "my notes\n"
    assert (out / "analysis" / "nb.ipynb").read_text(encoding="utf-8") == "{}"
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["seed"] == 7
    assert "summary.csv" in _listed(out)
    assert not {"notes.txt", "analysis/nb.ipynb"} & _listed(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["R"]  # no temporary folder left


def test_files_of_the_old_result_that_the_new_one_lacks_are_removed(small_scenario_file, tmp_path):
    out = tmp_path / "R"
    proc = run_cli("run", str(small_scenario_file), "--out", str(out), "--quiet", "--csv")
    assert proc.returncode == 0, proc.stderr
    assert (out / "summary.csv").is_file()
    proc = run_cli("run", str(small_scenario_file), "--out", str(out), "--quiet", "--overwrite")
    assert proc.returncode == 0, proc.stderr
    assert not (out / "summary.csv").exists()
    assert _listed(out) == set(_snapshot(out)) - {MARKER}


def test_a_users_file_where_the_new_result_goes_is_refused(small_scenario_file, tmp_path):
    out = tmp_path / "R"
    _earlier_run(small_scenario_file, out)
    (out / "summary.csv").write_text("mine\n", encoding="utf-8")
    before = _snapshot(out)
    proc = run_cli("run", str(small_scenario_file), "--out", str(out), "--overwrite", "--csv")
    assert_usage_error(proc, "did not write", "summary.csv")
    assert _snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["R"]


@pytest.mark.parametrize(
    "files",
    [
        {"runs/": None, "data.csv": "1,2\n"},  # looks like a sweep result
        {"summary.json": '{"aqmlab_version": "0.1.0"}', "paper_figs.ipynb": "{}"},  # like a run
        {"runs/trial1.json": "{}", "README.txt": "mine\n"},
    ],
)
def test_look_alike_folders_are_not_aqmlab_results(files, small_scenario_file, tmp_path):
    folder = tmp_path / "mine"
    for name, text in files.items():
        path = folder / name
        if text is None:
            path.mkdir(parents=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    before = _snapshot(folder)
    for command in (
        ["run", str(small_scenario_file), "--overwrite"],
        ["sweep", str(FIG3), "--quick"],
        ["sweep", str(FIG3), "--quick", "--overwrite"],
    ):
        proc = run_cli(*command, "--out", str(folder), "--quiet")
        assert_usage_error(proc, "holds no aqmlab result")
        assert _snapshot(folder) == before
    assert (folder / "runs").is_dir() or "runs/" not in files


def test_a_folder_of_an_older_aqmlab_is_refused(small_scenario_file, tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / ".aqmlab.json").write_text('{"kind": "run"}\n', encoding="utf-8")
    (folder / "summary.json").write_text("{}", encoding="utf-8")
    before = _snapshot(folder)
    proc = run_cli("run", str(small_scenario_file), "--out", str(folder), "--overwrite")
    assert_usage_error(proc, "older aqmlab", "move that folder aside")
    assert _snapshot(folder) == before


def test_sweep_overwrite_of_another_kind_removes_only_listed_files(small_scenario_file, tmp_path):
    out = tmp_path / "S"
    _earlier_run(small_scenario_file, out)
    (out / "notes.txt").write_text("keep\n", encoding="utf-8")
    experiment = tmp_path / "tiny.toml"
    experiment.write_text(
        textwrap.dedent(TINY_EXPERIMENT).format(scenario=small_scenario_file.as_posix()),
        encoding="utf-8",
    )
    sweep(experiment, out, jobs=1, progress=False, overwrite=True)
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep\n"
    assert not (out / "summary.json").exists()
    assert outdir.result_kind(out) == "sweep"
    assert _listed(out) == set(_snapshot(out)) - {MARKER, "notes.txt"}
    # Resumed: the user's file stays, no run is simulated again.
    sweep(experiment, out, jobs=1, progress=False)
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep\n"


def test_figures_of_a_run_belong_to_the_run(small_scenario_file, tmp_path):
    out = tmp_path / "R"
    _earlier_run(small_scenario_file, out)
    proc = run_cli("plot", str(out))
    assert proc.returncode == 0, proc.stderr
    assert {"figures/R.png", "figures/R.svg"} <= _listed(out)
    assert not (out / "figures" / MARKER).exists()
    (out / "figures" / "mine.png").write_bytes(b"mine")
    assert run_cli("plot", str(out)).returncode == 0  # drawn again over its own figures
    proc = run_cli("run", str(small_scenario_file), "--out", str(out), "--overwrite", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (out / "figures").iterdir()) == ["mine.png"]


def test_api_write_follows_the_same_rules(small_result, tmp_path):
    out = tmp_path / "R"
    small_result.write(out)
    (out / "notes.txt").write_text("keep\n", encoding="utf-8")
    with pytest.raises(OutputError, match="--overwrite"):
        small_result.write(out)
    small_result.write(out, csv=True, overwrite=True)
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep\n"
    assert (out / "summary.csv").is_file()


def test_write_file_refuses_unlisted_files_and_folders_outside_results(tmp_path):
    with pytest.raises(OutputError, match="not inside an aqmlab result"):
        outdir.write_file(tmp_path / "x.txt", "x")
    out = outdir.open_resumable(tmp_path / "S", "sweep")
    (out / "mine.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(OutputError, match="'mine.txt' is not a file aqmlab wrote"):
        outdir.write_file(out / "mine.txt", "theirs")
    assert (out / "mine.txt").read_text(encoding="utf-8") == "mine"
    outdir.write_file(out / "sub" / "a.txt", "a")
    outdir.write_file(out / "sub" / "a.txt", "b")  # its own file: replaced
    assert (out / "sub" / "a.txt").read_text(encoding="utf-8") == "b"
    assert _listed(out) == {"sub/a.txt"}


# --- the property: user files beside a result survive any sequence of commands ---------------

USER_NAMES = ["notes.txt", "summary.json", "results.csv", "runs", "figures", "data", "x.parquet"]


def _random_user_tree(rng: random.Random, folder: Path) -> None:
    """A few files and folders with names aqmlab also uses, some nested; some may collide
    with what a command writes (then the command must refuse)."""
    for _ in range(rng.randint(1, 5)):
        depth = rng.randint(1, 3)
        parts = [rng.choice(USER_NAMES) + (str(rng.randint(0, 2)) if rng.random() < 0.5 else "")]
        parts += [rng.choice(USER_NAMES) for _ in range(depth - 1)]
        path = folder.joinpath(*parts)
        if any(p.is_file() for p in [*path.parents, path]) or path.is_dir():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rng.randbytes(rng.randint(0, 64)))


def _command(rng: random.Random, out: Path, scenario: Path, experiment: Path) -> list[str]:
    overwrite = ["--overwrite"] if rng.random() < 0.7 else []
    return rng.choice(
        [
            ["run", str(scenario), "--quiet", *(["--csv"] if rng.random() < 0.5 else [])],
            ["sweep", str(experiment), "--quiet", "--jobs", "1"],
            ["model", "fixed-point"],
            ["curves", "--theta", "0.1"],
            ["plot", str(out)],
        ]
    ) + ["--out", str(out), *overwrite]


@pytest.mark.parametrize("seed", range(6))
def test_user_files_survive_any_sequence_of_commands(seed, small_scenario_file, tmp_path, capsys):
    rng = random.Random(seed)
    experiment = tmp_path / "tiny.toml"
    experiment.write_text(
        textwrap.dedent(TINY_EXPERIMENT).format(scenario=small_scenario_file.as_posix()),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    user: dict[str, bytes] = {}
    for step in range(5):
        if step == 0 or rng.random() < 0.4:
            staging = tmp_path / "staging"
            _random_user_tree(rng, staging)
            for name, data in _snapshot(staging).items():
                target = out / name
                if name in user or target.exists() or any(p.is_file() for p in target.parents):
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                user[name] = data
        args = _command(rng, out, small_scenario_file, experiment)
        if args[0] == "plot":
            args = args[:2] + (["--out", str(out / "figures")] if rng.random() < 0.5 else [])
        status = main(args)
        assert status in (0, 2), args
        for name, data in user.items():
            assert (out / name).read_bytes() == data, (args, name)
        marker = outdir.Marker.read(out) if (out / MARKER).exists() else None
        if marker is not None:
            assert not marker.files & set(user), args
            unlisted = set(_snapshot(out)) - marker.files - set(user) - {MARKER}
            assert not unlisted, (args, unlisted)
    capsys.readouterr()
