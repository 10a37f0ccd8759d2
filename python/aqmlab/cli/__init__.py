"""The `aqmlab` command: argument parsing and the commands, one module per command group
(`main`: the parser, run, list, compare, sweep, reproduce, curves; `inspect`: show and plot;
`model`; `validate`). `python -m aqmlab.cli` and `aqmlab` run `command`, which runs `main`."""

from .main import command, main

__all__ = ["command", "main"]
