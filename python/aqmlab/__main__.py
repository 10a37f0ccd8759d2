"""`python -m aqmlab` is the `aqmlab` command."""

from .cli.main import command

raise SystemExit(command())
