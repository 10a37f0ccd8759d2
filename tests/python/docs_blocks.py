"""The code blocks of the documentation (README.md, docs/, examples/README.md) as the docs test
runs them.

- A `sh` block is a list of commands (`aqmlab ...`, `.venv/bin/aqmlab ...`,
  `python ...`, `.venv/bin/python ...`); each must succeed.
- A block with lines starting `$ ` (any language) is a transcript: each command runs and what
  it prints must be the lines after it, up to the next `$ ` line. A line `...` stands for any
  number of lines; trailing spaces do not count. An `aqmlab: error:` line is compared with
  the command's stderr, every other line with its stdout, and the status must be 2 when the
  transcript shows an error, 0 otherwise. `> FILE` sends stdout to FILE.
- A `python` block runs in one namespace per page, in order, so a block may use what an
  earlier block of the page made. A block of lines starting `>>> ` is a doctest (whitespace
  normalised, `...` matching anything).
- A block right after the comment `<!-- not run: REASON -->` is not run (a long
  reproduction, a cluster, a synopsis), nor is a `sh` block of `make` targets only (`make
  test` runs this test; CI runs `make lint` and `make test`); any other block is prose, data
  or a formula.

Every page runs in a folder of its own that holds links to the repository's `experiments/`,
`examples/` and `validation/`, so commands write `results/` there.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.S | re.M,
)
NOT_RUN = re.compile(r"<!--\s*not run:\s*(?P<reason>[^>]*?)\s*-->\s*$")
ELLIPSIS_LINE = "..."

COMMANDS = {
    "aqmlab": ["-m", "aqmlab.cli"],
    ".venv/bin/aqmlab": ["-m", "aqmlab.cli"],
    "python": [],
    ".venv/bin/python": [],
}
"""The programs a block may run, as arguments to the test's Python."""


@dataclass
class Step:
    """One command of a block, with the lines it must print (transcripts only)."""

    argv: list[str]
    expected: list[str] | None = None
    stdout_to: str | None = None


@dataclass
class Block:
    """A fenced block of a page: where it is, what it is, and how it runs."""

    page: str
    line: int
    lang: str
    body: str
    kind: str
    """"commands", "transcript", "python", "doctest", "not run" or "prose"."""
    reason: str = ""
    steps: list[Step] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def _argv(tokens: list[str], where: str) -> tuple[list[str], str | None]:
    """The test's argv for a command's tokens, and the file its stdout goes to."""
    out = None
    if ">" in tokens:
        i = tokens.index(">")
        if i != len(tokens) - 2:
            raise ValueError(f"{where}: `>` must come last, before one file name")
        tokens, out = tokens[:i], tokens[i + 1]
    if not tokens or tokens[0] not in COMMANDS:
        raise ValueError(
            f"{where}: `{' '.join(tokens)}` is not a command the docs test runs "
            f"({', '.join(COMMANDS)}); mark the block <!-- not run: REASON -->"
        )
    return [*COMMANDS[tokens[0]], *tokens[1:]], out


def _commands(body: str, where: str) -> list[Step]:
    joined = body.replace("\\\n", " ")
    steps = []
    for line in joined.splitlines():
        tokens = shlex.split(line, comments=True)
        if tokens:
            argv, out = _argv(tokens, where)
            steps.append(Step(argv, None, out))
    return steps


def _only_make(body: str) -> bool:
    """Whether every command of a `sh` block is a `make` target."""
    commands = [shlex.split(ln, comments=True) for ln in body.replace("\\\n", " ").splitlines()]
    commands = [c for c in commands if c]
    return bool(commands) and all(c[0] == "make" for c in commands)


def _transcript(body: str, where: str) -> list[Step]:
    steps: list[Step] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            argv, out = _argv(shlex.split(line[2:], comments=True), where)
            steps.append(Step(argv, [], out))
        elif steps:
            steps[-1].expected.append(line.rstrip())
        elif line.strip():
            raise ValueError(f"{where}: a transcript starts with a `$ ` command")
    for step in steps:
        while step.expected and not step.expected[-1]:
            step.expected.pop()
    return steps


def blocks(path: Path, root: Path) -> list[Block]:
    """Every fenced block of the page at `path` (named relative to `root`)."""
    text = path.read_text(encoding="utf-8")
    page = path.relative_to(root).as_posix()
    found = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        body = textwrap.dedent(m["body"])
        lang = m["lang"]
        before = text[: m.start()].rstrip().rsplit("\n", 1)[-1]
        marked = NOT_RUN.search(before)
        block = Block(page, line, lang, body, "prose")
        lines = body.splitlines()
        if marked:
            block.kind, block.reason = "not run", marked["reason"]
        elif any(ln.startswith("$ ") for ln in lines):
            block.kind, block.steps = "transcript", _transcript(body, block.where)
        elif lang in ("sh", "bash", "console") and _only_make(body):
            block.kind, block.reason = "not run", "make targets"
        elif lang in ("sh", "bash", "console"):
            block.kind, block.steps = "commands", _commands(body, block.where)
        elif lines and lines[0].startswith(">>> "):
            block.kind = "doctest"
        elif lang == "python":
            block.kind = "python"
        found.append(block)
    return found


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether `actual` is `expected` with each `...` line standing for any lines."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == ELLIPSIS_LINE:
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0] == head and matches(rest, actual[1:])
