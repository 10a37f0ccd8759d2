"""`python -m aqmlab.cli` is the `aqmlab` command."""

from .main import command

raise SystemExit(command())
