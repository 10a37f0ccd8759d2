"""`python -m aqmlab` is the `aqmlab` command."""

from .cli.main import main

raise SystemExit(main())
