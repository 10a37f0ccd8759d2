"""A wheel of aqmlab works on its own: built with maturin and installed into a fresh virtual
environment, it lists its built-in scenarios, runs one by name, reproduces a figure and
validates against (a stand-in for) ns-3 from an empty folder, and the example script runs,
all without the repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from test_validate_ns3 import fake_program

from conftest import REPO_ROOT

PINNED = ["pandas==3.1.1", "pyarrow==26.0.1"]
"""The versions the Makefile pins, so that the installed wheel writes the same bytes."""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The `bin/` folder of a fresh virtual environment with the wheel installed."""
    maturin = shutil.which("maturin", path=str(Path(sys.executable).parent))
    if maturin is None:
        pytest.fail("maturin is not installed next to this Python (make build installs it)")
    wheels = tmp_path_factory.mktemp("wheels")
    build = subprocess.run(
        [maturin, "build", "--release", "--out", str(wheels)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = wheels.glob("aqmlab-*.whl")
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    install = subprocess.run(
        [bin_dir / "python", "-m", "pip", "install", "--quiet", str(wheel), *PINNED],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    return bin_dir


def _run(bin_dir: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env={**clean, "PATH": f"{bin_dir}{os.pathsep}{clean.get('PATH', '')}", **env},
    )


def test_the_installed_package_is_not_the_repository(installed, tmp_path):
    proc = _run(
        installed, tmp_path, installed / "python", "-c", "import aqmlab; print(aqmlab.__file__)"
    )
    assert proc.returncode == 0, proc.stderr
    assert str(REPO_ROOT) not in proc.stdout
    assert "site-packages" in proc.stdout


def test_list_run_and_reproduce_from_an_empty_folder(installed, tmp_path):
    work = tmp_path / "empty"
    work.mkdir()
    listing = _run(installed, work, "aqmlab", "list")
    assert listing.returncode == 0, listing.stderr
    assert "  betared/scenario1\n" in listing.stdout
    assert "  betared/fig3\n" in listing.stdout
    run = _run(installed, work, "aqmlab", "run", "betared/scenario1", "--set", "duration_s=3",
               "--out", "r", "--quiet")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert (work / "r" / "summary.json").is_file()
    repro = _run(installed, work, "aqmlab", "reproduce", "betared", "--quick", "--figures", "3",
                 "--jobs", "2", "--quiet")  # fmt: skip
    assert repro.returncode == 0, repro.stderr
    report = work / "results" / "reproduce-betared-quick" / "report.md"
    assert "| fig3a | Fig. 3 |" in report.read_text(encoding="utf-8")
    assert (work / "results" / "reproduce-betared-quick" / "figures" / "fig3.png").is_file()


def test_validate_finds_its_programs_and_scenarios(installed, tmp_path):
    work = tmp_path / "empty"
    work.mkdir()
    fake = fake_program(tmp_path)
    proc = _run(installed, work, "aqmlab", "validate", "ns3", "--quick", "--quiet", "--jobs", "2",
                AQMLAB_NS3_PROGRAM=str(fake))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "86 runs: 0 already stored, 86 run now, 0 failed" in proc.stdout
    assert (work / "results" / "validate-ns3-quick" / "validation-ns3.md").is_file()


def test_the_example_runs_against_the_installed_package(installed, tmp_path):
    work = tmp_path / "empty"
    work.mkdir()
    script = REPO_ROOT / "examples" / "first_study.py"
    proc = _run(installed, work, installed / "python", script, "study")
    assert proc.returncode == 0, proc.stderr
    assert (work / "study" / "sweep.csv").is_file()
