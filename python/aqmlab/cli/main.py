"""The `aqmlab` command: the parser of every command group (`run`, `sweep`, `tune`, `inspect`,
`model`, `validate`, `evaluate`), and `main`, which turns a user's mistake into one line with exit
status 2 and an interrupt into 130 or 143."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module

from .. import _core
from ..engine.memory import MemoryBudgetError
from ..engine.outdir import OutputError
from ..sweeps.interrupt import Interrupted, handle_sigterm
from ..sweeps.usage import BackendError, ExperimentError
from ..tune.errors import TuneError
from .arg_types import CliError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

EXIT_USAGE = 2


def _group(module: str, function: str, *extra: Any) -> Callable[[Any], None]:
    """A function that adds a command group to the parser's subcommands: `function` of this
    package's `module`, imported when it is called, given the subcommands and `extra`."""

    def add(commands: Any) -> None:
        getattr(import_module(f".{module}", __package__), function)(commands, *extra)

    return add


COMMAND_GROUPS = (
    (("run", "list", "compare", "curves"), _group("run", "add_parsers")),
    (("sweep", "reproduce"), _group("sweep", "add_parsers")),
    (("tune",), _group("tune", "add_parser")),
    (("model",), _group("model", "add_parser", CliError)),
    (("validate",), _group("validate", "add_parser", CliError)),
    (("evaluate",), _group("evaluate", "add_parser")),
    (("show", "plot"), _group("inspect", "add_parser", CliError)),
)
"""Every command, by the group that adds it to the parser, in the order `aqmlab --help` lists
them. A command line that names a command builds (and imports) its group alone."""


def _terminal_columns() -> int:
    """The terminal's width in columns: `COLUMNS` when it is a positive integer, else the
    width of the terminal on standard output, else 80 (as `shutil.get_terminal_size`)."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, given the terminal's width so that it need not import shutil
    to find it (argparse makes a formatter on every `add_argument`; start-up)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors become `CliError` (one line, no usage dump), and
    whose help, its commands' too, is laid out by `_Formatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # type: ignore[override]
        raise CliError(message)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the `aqmlab` command: with every command, or with `command`'s
    group alone when it names one (what that command parses is the same either way)."""
    parser = _Parser(prog="aqmlab", description="Packet-level TCP/AQM network simulator.")
    parser.add_argument("--version", action="version", version=f"aqmlab {_core.version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    named = [add for names, add in COMMAND_GROUPS if command in names]
    for add in named or [add for _, add in COMMAND_GROUPS]:
        add(commands)
    return parser


def _one_line(message: object) -> str:
    """The message with its lines joined, so an error is always one line."""
    return " ".join(line.strip() for line in str(message).splitlines() if line.strip())


PATH_ARGUMENTS = {
    "file": "FILE",
    "on": "--on",
    "out": "--out",
    "run_dir": "RUN_DIR",
    "dirs": "DIR",
}
"""The arguments of any command that name a file or folder, as the messages call them."""

EXIT_BROKEN_PIPE = 128 + 13
"""The status of a command whose reader went away (`aqmlab run ... | head`), as SIGPIPE's."""


def _check_paths(args: argparse.Namespace) -> None:
    """No file or folder argument is empty (an empty path would mean the current folder)."""
    for attr, name in PATH_ARGUMENTS.items():
        value = getattr(args, attr, None)
        for item in value if isinstance(value, list) else [value]:
            if item is not None and not str(item).strip():
                raise CliError(f"{name}: empty path; give a file or folder name")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    try:
        handle_sigterm()
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(argv[0] if argv else None).parse_args(argv)
        _check_paths(args)
        return args.func(args)
    except (
        BackendError,
        CliError,
        ExperimentError,
        MemoryBudgetError,
        OutputError,
        TuneError,
        _core.ScenarioError,
    ) as e:
        print(f"aqmlab: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader of stdout is gone: say nothing more, and let Python's exit not fail
        # flushing it either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt as e:
        interrupted = e if isinstance(e, Interrupted) else Interrupted()
        detail = f": {interrupted.detail}" if interrupted.detail else ""
        print(f"aqmlab: interrupted{detail}", file=sys.stderr)
        return interrupted.exit_status


def command() -> int:
    """The `aqmlab` program (the installed command, `python -m aqmlab`): `main` on the
    command line's arguments. The process ends right after, so every object still alive is
    first put out of the collector's reach (`gc.freeze`): Python's shutdown would otherwise
    run one more collection over the objects of every imported module, about 4 ms of the
    ~90 ms `aqmlab run` of 100 flows takes (BENCHMARKS.md). Nothing is left for it to close:
    every output file is written and closed before `main` returns."""
    status = main()
    gc.freeze()
    return status


if __name__ == "__main__":
    raise SystemExit(command())
