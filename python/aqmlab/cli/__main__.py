"""`python -m aqmlab.cli` is the `aqmlab` command."""

from .main import main

raise SystemExit(main())
