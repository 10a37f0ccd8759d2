"""Every code block of README.md, docs/ and examples/README.md that claims to run does, and
every number a transcript quotes is what the command prints today: an engine change that moves
one fails here, and the page is updated with it (`docs_blocks` says how blocks are read;
`python tests/python/test_docs.py --update` rewrites transcripts that have no `...` lines)."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from docs_blocks import Block, Step, blocks, matches

PAGES = [
    REPO_ROOT / "README.md",
    *sorted((REPO_ROOT / "docs").rglob("*.md")),
    REPO_ROOT / "examples" / "README.md",
]
LINKED = ("experiments", "examples", "validation")
"""What each page's folder links to from the repository."""
COMMAND_TIMEOUT_S = 900


def _page_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "page"
    folder.mkdir()
    for name in LINKED:
        (folder / name).symlink_to(REPO_ROOT / name, target_is_directory=True)
    return folder


def _run(step: Step, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AQMLAB_")}
    return subprocess.run(
        [sys.executable, *step.argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        env=env,
    )


def printed(step: Step, proc: subprocess.CompletedProcess, cwd: Path) -> list[str]:
    """What a transcript shows of a command: its stdout (or nothing, when it goes to a file)
    and its `aqmlab:` lines on stderr, trailing spaces dropped."""
    if step.stdout_to is not None:
        (cwd / step.stdout_to).write_text(proc.stdout, encoding="utf-8")
        out = []
    else:
        out = proc.stdout.splitlines()
    out += [line for line in proc.stderr.splitlines() if line.startswith("aqmlab:")]
    return [line.rstrip() for line in out]


def _check_step(block: Block, step: Step, cwd: Path) -> None:
    proc = _run(step, cwd)
    command = " ".join(step.argv)
    assert "Traceback" not in proc.stderr, f"{block.where}: {command}\n{proc.stderr}"
    if step.expected is None:
        assert proc.returncode == 0, f"{block.where}: {command}\n{proc.stderr}"
        return
    errors = any(line.startswith("aqmlab: error:") for line in step.expected)
    assert proc.returncode == (2 if errors else 0), f"{block.where}: {command}\n{proc.stderr}"
    actual = printed(step, proc, cwd)
    assert matches(step.expected, actual), (
        f"{block.where}: `{command}` printed\n"
        + "\n".join(actual)
        + "\nbut the page shows\n"
        + "\n".join(step.expected)
    )


def _check_python(block: Block, namespace: dict) -> None:
    if block.kind == "doctest":
        test = doctest.DocTestParser().get_doctest(block.body, namespace, block.where, None, 0)
        flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
        runner = doctest.DocTestRunner(optionflags=flags)
        runner.run(test, out=lambda text: pytest.fail(f"{block.where}:\n{text}"))
        return
    exec(compile(block.body, block.where, "exec"), namespace)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_page_runs_as_written(page, tmp_path, monkeypatch):
    folder = _page_folder(tmp_path)
    monkeypatch.chdir(folder)
    namespace: dict = {"__name__": "__docs__"}
    for block in blocks(page, REPO_ROOT):
        if block.kind in ("commands", "transcript"):
            for step in block.steps:
                _check_step(block, step, folder)
        elif block.kind in ("python", "doctest"):
            _check_python(block, namespace)


def test_every_unrun_block_says_why():
    for page in PAGES:
        for block in blocks(page, REPO_ROOT):
            if block.kind == "not run":
                assert len(block.reason) >= 10, f"{block.where}: say why it is not run"
            if block.lang in ("sh", "python"):
                assert block.kind != "prose", block.where


def test_the_reader_catches_a_moved_number(tmp_path):
    assert matches(["a", "...", "q 1.0"], ["a", "b", "c", "q 1.0"])
    assert not matches(["a", "...", "q 1.0"], ["a", "b", "q 1.1"])
    assert not matches(["a"], ["a", "b"])
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- not run: a reason long enough -->\n```sh\naqmlab run x\n```\n\n"
        "```\n$ aqmlab list\nout\n$ aqmlab show f > g.toml\n```\n"
        "```sh\nmake test\n```\n```python\n>>> 1 + 1\n2\n```\n",
        encoding="utf-8",
    )
    found = blocks(page, tmp_path)
    assert [b.kind for b in found] == ["not run", "transcript", "not run", "doctest"]
    listing, show = found[1].steps
    assert (listing.argv, listing.expected) == (["-m", "aqmlab.cli", "list"], ["out"])
    assert show.stdout_to == "g.toml"
    page.write_text("```sh\nrm -rf /\n```\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a command the docs test runs"):
        blocks(page, tmp_path)


def _update(page: Path, folder: Path) -> None:
    """Rewrite the transcripts of `page` that have no `...` line with what the commands print
    now; the others are left for a person (the test prints what they print)."""
    lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
    for block in reversed(blocks(page, REPO_ROOT)):
        shown = [ln for step in block.steps for ln in step.expected or []]
        if block.kind != "transcript" or "..." in shown:
            continue
        fence = lines[block.line - 1]
        indent = fence[: len(fence) - len(fence.lstrip())]
        steps = iter(block.steps)
        new = []
        for line in block.body.splitlines():
            if line.startswith("$ "):
                step = next(steps)
                new.append(line)
                new += printed(step, _run(step, folder), folder)
        body = slice(block.line, block.line + len(block.body.splitlines()))
        lines[body] = [f"{indent}{ln}\n" if ln else "\n" for ln in new]
    page.write_text("".join(lines), encoding="utf-8")


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: python tests/python/test_docs.py --update")
    for page in PAGES:
        with tempfile.TemporaryDirectory() as tmp:
            folder = _page_folder(Path(tmp))
            _update(page, folder)
