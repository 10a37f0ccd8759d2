"""The README's tour works as written, from a clean folder."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys

from conftest import REPO_ROOT

TOUR_HEADING = "## A short tour"


def tour_commands() -> list[list[str]]:
    """The commands of the tour's first shell block, with continuation lines joined and
    comments removed."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    tour = text[text.index(TOUR_HEADING) :]
    block = re.search(r"```sh\n(.*?)```", tour, re.S).group(1)
    joined = block.replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in joined.splitlines() if line.strip()]


def test_readme_tour_runs_as_written(tmp_path):
    shutil.copytree(REPO_ROOT / "experiments", tmp_path / "experiments")
    commands = tour_commands()
    assert len(commands) >= 4
    for command in commands:
        assert command[0] == ".venv/bin/aqmlab", command
        proc = subprocess.run(
            [sys.executable, "-m", "aqmlab.cli", *command[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, (command, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert (tmp_path / "results" / "s1-red" / "summary.json").is_file()
