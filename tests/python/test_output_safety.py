"""Output folders: nothing aqmlab did not write is deleted or replaced, earlier results are
replaced only on request, and a failed or interrupted command leaves them intact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aqmlab.engine import outdir
from aqmlab.engine.outdir import OutputError
from conftest import REPO_ROOT, assert_usage_error, run_cli

FIG3 = REPO_ROOT / "experiments" / "betared" / "fig3.toml"


def _snapshot(directory):
    return {
        p.relative_to(directory).as_posix(): p.read_bytes() if p.is_file() else None
        for p in directory.rglob("*")
    }


@pytest.fixture
def user_folder(tmp_path):
    """A folder of the user's own files."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("my notes\n", encoding="utf-8")
    (folder / "data").mkdir()
    (folder / "data" / "x.csv").write_text("1,2\n", encoding="utf-8")
    return folder


def test_run_refuses_a_folder_of_user_files(small_scenario_file, user_folder):
    before = _snapshot(user_folder)
    proc = run_cli("run", str(small_scenario_file), "--out", str(user_folder), "--overwrite")
    assert_usage_error(proc, "not empty", "holds no aqmlab result")
    assert _snapshot(user_folder) == before
    assert sorted(p.name for p in user_folder.parent.iterdir()) == ["mine"]


def test_run_refuses_a_file(small_scenario_file, tmp_path):
    target = tmp_path / "report.txt"
    target.write_text("keep me\n", encoding="utf-8")
    proc = run_cli("run", str(small_scenario_file), "--out", str(target))
    assert_usage_error(proc, "is a file")
    assert target.read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]


def test_run_replaces_an_earlier_result_only_with_overwrite(small_scenario_file, tmp_path):
    out = tmp_path / "out"
    first = run_cli("run", str(small_scenario_file), "--out", str(out), "--quiet")
    assert first.returncode == 0, first.stderr
    before = _snapshot(out)
    proc = run_cli("run", str(small_scenario_file), "--out", str(out), "--seed", "9")
    assert_usage_error(proc, "earlier aqmlab run result", "--overwrite")
    assert _snapshot(out) == before
    again = run_cli(
        "run", str(small_scenario_file), "--out", str(out), "--seed", "9", "--overwrite"
    )
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["seed"] == 9
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_an_empty_folder_is_fine(small_scenario_file, tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    proc = run_cli("run", str(small_scenario_file), "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert (out / "summary.json").is_file()


def test_a_failed_write_keeps_the_earlier_result(small_result, tmp_path, monkeypatch):
    out = tmp_path / "out"
    small_result.write(out)
    before = _snapshot(out)

    write_bytes = Path.write_bytes

    def broken(path, data):
        if path.name == "flows.parquet":
            raise OSError(28, "No space left on device")
        return write_bytes(path, data)

    monkeypatch.setattr(Path, "write_bytes", broken)
    with pytest.raises(OSError):
        small_result.write(out, overwrite=True)
    assert _snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_failed_staged_write_removes_its_folder_and_follows_no_link(tmp_path):
    # What a failed write leaves in its temporary folder goes with it, subfolders too; a link
    # there is removed, and what it points to is not touched.
    keep = tmp_path / "user"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    with pytest.raises(RuntimeError), outdir.staged(tmp_path / "out", "run") as tmp:
        (tmp / "figures" / "deep").mkdir(parents=True)
        (tmp / "figures" / "deep" / "a.svg").write_text("<svg/>")
        (tmp / "figures" / "user").symlink_to(keep, target_is_directory=True)
        (tmp / "notes").symlink_to(keep / "notes.txt")
        raise RuntimeError("the run failed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["user"]
    assert (keep / "notes.txt").read_text() == "mine"


def test_api_write_refuses_without_overwrite(small_result, tmp_path, user_folder):
    with pytest.raises(OutputError, match="holds no aqmlab result"):
        small_result.write(user_folder)
    small_result.write(tmp_path / "r")
    with pytest.raises(OutputError, match="--overwrite"):
        small_result.write(tmp_path / "r")
    small_result.write(tmp_path / "r", overwrite=True)


@pytest.mark.parametrize(
    "command",
    [
        ["sweep", str(FIG3), "--quick", "--quiet"],
        ["reproduce", "betared", "--quick", "--figures", "3", "--quiet"],
        ["curves"],
        ["model", "fixed-point"],
        ["model", "bifurcation", "--points", "5"],
        ["model", "bridge", "--quick", "--quiet"],
    ],
)
def test_every_command_refuses_files_and_foreign_folders(command, tmp_path, user_folder):
    target = tmp_path / "a-file"
    target.write_text("keep\n", encoding="utf-8")
    proc = run_cli(*command, "--out", str(target))
    assert_usage_error(proc, "is a file")
    assert target.read_text(encoding="utf-8") == "keep\n"
    before = _snapshot(user_folder)
    proc = run_cli(*command, "--out", str(user_folder))
    assert_usage_error(proc, "holds no aqmlab result")
    assert _snapshot(user_folder) == before


def test_sweep_out_under_a_file_fails_before_any_run(tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("", encoding="utf-8")
    proc = run_cli("sweep", str(FIG3), "--quick", "--out", str(blocker / "sub"), "--quiet")
    assert_usage_error(proc, "is a file, not a folder")
    assert proc.stdout == ""


def test_model_output_replaced_only_with_overwrite(tmp_path):
    out = tmp_path / "fp"
    assert run_cli("model", "fixed-point", "--out", str(out)).returncode == 0
    before = _snapshot(out)
    proc = run_cli("model", "fixed-point", "--out", str(out), "--set", "w=0.1")
    assert_usage_error(proc, "--overwrite")
    assert _snapshot(out) == before
    proc = run_cli("model", "fixed-point", "--out", str(out), "--overwrite", "--q0", "-5")
    assert_usage_error(proc)
    assert _snapshot(out) == before
    proc = run_cli("model", "fixed-point", "--out", str(out), "--overwrite", "--set", "w=0.1")
    assert proc.returncode == 0, proc.stderr


def test_bad_model_input_writes_nothing(tmp_path):
    out = tmp_path / "D"
    proc = run_cli("model", "fixed-point", "--q0", "-5", "--out", str(out))
    assert_usage_error(proc, "q0")
    assert proc.stdout == ""
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_resumes_into_its_own_folder_but_not_into_another_kind(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    outdir.open_resumable(out, "sweep")
    outdir.open_resumable(out, "sweep")  # resumed
    with pytest.raises(OutputError, match="earlier aqmlab sweep result"):
        outdir.open_resumable(out, "reproduce")
    with pytest.raises(OutputError, match="earlier aqmlab sweep result"):
        outdir.check_target(out, "run")
