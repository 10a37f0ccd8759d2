"""The `aqmlab` command: the parser of every command group (`run`, `sweep`, `tune`, `inspect`,
`model`, `validate`, `evaluate`), and `main`, which turns a user's mistake into one line with exit
status 2 and an interrupt into 130 or 143."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .. import _core
from ..engine.memory import MemoryBudgetError
from ..engine.outdir import OutputError
from ..sweeps.interrupt import Interrupted, handle_sigterm
from ..sweeps.usage import BackendError, ExperimentError
from ..tune.space import TuneError
from .arg_types import CliError
from .evaluate import add_parser as add_evaluate_parser
from .inspect import add_parser as add_inspect_parser
from .model import add_parser as add_model_parser
from .run import add_parsers as add_run_parsers
from .sweep import add_parsers as add_sweep_parsers
from .tune import add_parser as add_tune_parser
from .validate import add_parser as add_validate_parser

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors become `CliError` (one line, no usage dump)."""

    def error(self, message: str):  # type: ignore[override]
        raise CliError(message)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `aqmlab` command."""
    parser = _Parser(prog="aqmlab", description="Packet-level TCP/AQM network simulator.")
    parser.add_argument("--version", action="version", version=f"aqmlab {_core.version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_run_parsers(commands)
    add_sweep_parsers(commands)
    add_tune_parser(commands)
    add_model_parser(commands, CliError)
    add_validate_parser(commands, CliError)
    add_evaluate_parser(commands)
    add_inspect_parser(commands, CliError)
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
        args = build_parser().parse_args(argv)
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


if __name__ == "__main__":
    raise SystemExit(main())
