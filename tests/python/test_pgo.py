"""The profile-guided build (pgo/, docs/architecture.md "The profile-guided build"): the
compiler wrapper gives the profile flag to the trained crates and the one that links them and
to nothing else, and every scenario file the training runs exists."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT

WRAPPER = REPO_ROOT / "pgo" / "rustc-wrapper.sh"
TRAINING = REPO_ROOT / "crates" / "sim" / "examples" / "pgo_train.rs"


def _args(crate: str) -> list[str]:
    """A compiler command line for library `crate`, as cargo gives one."""
    return ["--edition=2021", "--crate-name", crate, "src/lib.rs", "--crate-type", "lib"]


def _compile(tmp_path: Path, crate: str, pgo: str | None) -> list[str]:
    """The arguments the wrapper hands the compiler for `crate` with AQMLAB_PGO = `pgo`."""
    rustc = tmp_path / "rustc"
    rustc.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n', encoding="utf-8")
    rustc.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "AQMLAB_PGO"}
    if pgo is not None:
        env["AQMLAB_PGO"] = pgo
    proc = subprocess.run(
        ["bash", str(WRAPPER), str(rustc), *_args(crate)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return proc.stdout.splitlines()


@pytest.mark.parametrize("crate", ["sim", "aqm", "_core", "pgo_train"])
def test_the_trained_crates_get_the_profile(tmp_path, crate):
    base = _args(crate)
    assert _compile(tmp_path, crate, "use:/p/merged.profdata") == [
        *base,
        "-Cprofile-use=/p/merged.profdata",
    ]
    assert _compile(tmp_path, crate, "generate:/p/raw") == [*base, "-Cprofile-generate=/p/raw"]
    assert _compile(tmp_path, crate, None) == base


@pytest.mark.parametrize("crate", ["serde", "model", "tables", "build_script_build", "simd"])
def test_other_crates_compile_as_they_are(tmp_path, crate):
    base = _args(crate)
    assert _compile(tmp_path, crate, "use:/p/merged.profdata") == base
    assert _compile(tmp_path, crate, "generate:/p/raw") == base


def test_every_training_file_exists():
    names = re.findall(r'"([\w/]+\.toml)"', TRAINING.read_text(encoding="utf-8"))
    assert len(names) >= 10
    missing = [n for n in names if not (REPO_ROOT / "experiments" / n).is_file()]
    assert not missing, f"pgo_train.rs names files that are not in experiments/: {missing}"
