"""The files aqmlab ships with the package: the scenario and experiment files and the published
numbers of the papers (`experiments/`), and the reference programs the validations run in
ns-3 and ns-2 (`validation/ns3`, `validation/ns2`). In the repository they are also reached as
`experiments/` and `validation/` at its root (links into this folder), so the paths the docs
give work there as they do from an installed package.

A built-in scenario or experiment is named by its path under `experiments/` without `.toml`
(`betared/scenario1`); `resolve` turns such a name into its file wherever aqmlab is installed,
and leaves every path that names an existing file alone, so a user's own files take any path.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXPERIMENTS = HERE / "experiments"
"""The papers' scenario and experiment files, one folder per paper."""
VALIDATION = HERE / "validation"
"""The reference programs: `ns3/` (an ns-3.37 C++ program), `ns2/` (ns-2.35 Tcl scripts)."""


def experiments(paper: str) -> Path:
    """The folder of a paper's files (`betared`, `li2014`, `chen2011`): `experiments/<paper>`
    under the current folder when there is one (a copy the user changed), else the
    package's."""
    local = Path("experiments") / paper
    return local if local.is_dir() else EXPERIMENTS / paper


def builtin_names() -> list[str]:
    """The name of every shipped TOML file (`betared/scenario1`, `betared/fig3`, ...), in
    natural order (table2 before table10)."""
    names = [
        p.relative_to(EXPERIMENTS).with_suffix("").as_posix() for p in EXPERIMENTS.rglob("*.toml")
    ]
    return sorted(
        names, key=lambda n: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", n)]
    )


def resolve(path: str | os.PathLike[str]) -> Path:
    """`path` itself when it exists (or is not a built-in name); else the shipped file it
    names: `betared/scenario1`, `betared/scenario1.toml` or `experiments/betared/scenario1.toml`
    all name `EXPERIMENTS/betared/scenario1.toml`."""
    given = Path(path)
    if given.exists() or not str(path).strip():
        return given
    name = given.as_posix().removeprefix("experiments/").removesuffix(".toml")
    candidate = EXPERIMENTS / f"{name}.toml"
    return candidate if candidate.is_file() and ".." not in given.parts else given
