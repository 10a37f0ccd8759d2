"""`aqmlab show` and `aqmlab plot`: look at a scenario before a run and at a run after it.

    aqmlab show SCENARIO [--set KEY=VALUE ...] [--key KEY]
    aqmlab plot RUN_DIR [--out DIR]

`show` prints the resolved scenario (every default filled in), or one value of it; `plot`
draws a run folder written by `aqmlab run` as PNG and SVG (default RUN_DIR/figures/).
Bad input is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import _core
from .outdir import check_target
from .result import SUMMARY_JSON, RunResult
from .scenario import Scenario, toml_literal

ErrorType = Callable[[str], Exception]

FIGURES_DIR = "figures"
"""Where `plot` writes inside RUN_DIR when no --out is given."""


def _error(args: argparse.Namespace, message: str) -> Exception:
    return args.inspect_error(message)


def _render(key: str, value: Any) -> str:
    """A resolved value as TOML: a literal, or a table with its subtables under headers."""
    if not isinstance(value, dict):
        return toml_literal(value)
    scalars = [f"{k} = {toml_literal(v)}" for k, v in value.items() if not isinstance(v, dict)]
    blocks = ["\n".join([f"[{key}]"] + scalars)]
    blocks += [_render(f"{key}.{k}", v) for k, v in value.items() if isinstance(v, dict)]
    return "\n\n".join(blocks)


def cmd_show(args: argparse.Namespace) -> int:
    sets = []
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise _error(args, f"--set {item!r}: expected key.path=value")
        sets.append((key.strip(), value.strip()))
    path = Path(args.file)
    try:
        scenario = Scenario.load(path).with_literals(sets)
    except OSError as e:
        raise _error(args, f"cannot read scenario file '{path}': {e.strerror or e}") from None
    text = scenario.resolved()
    if args.key is None:
        print(text, end="" if text.endswith("\n") else "\n")
        return 0
    try:
        value = scenario.get(args.key)
    except _core.ScenarioError as e:
        raise _error(args, f"--key {e}") from None
    print(_render(args.key, value))
    return 0


def _read_run(args: argparse.Namespace, run_dir: Path) -> RunResult:
    """The run stored in `run_dir`, or a one-line error naming the folder."""
    if not run_dir.is_dir():
        what = "is not a folder" if run_dir.exists() else "no such folder"
        raise _error(args, f"RUN_DIR '{run_dir}': {what}; give a folder written by aqmlab run")
    if not (run_dir / SUMMARY_JSON).is_file():
        raise _error(
            args,
            f"RUN_DIR '{run_dir}': not a run folder (no {SUMMARY_JSON}); "
            "give a folder written by aqmlab run",
        )
    try:
        return RunResult.read(run_dir)
    except FileNotFoundError as e:
        reason = f"missing file '{e.filename or e}'"
    except OSError as e:
        reason = f"{e.strerror}: '{e.filename}'" if e.strerror and e.filename else str(e)
    except json.JSONDecodeError as e:
        reason = f"{SUMMARY_JSON}: {e}"
    except KeyError as e:
        reason = f"{SUMMARY_JSON} has no key {e}"
    except (ValueError, TypeError, IndexError) as e:
        reason = str(e) or type(e).__name__
    raise _error(args, f"RUN_DIR '{run_dir}': cannot read the run: {reason}")


def cmd_plot(args: argparse.Namespace) -> int:
    from .run_plots import PLOT_KIND, plot_run

    run_dir = Path(args.run_dir)
    out_dir = Path(args.out) if args.out is not None else run_dir / FIGURES_DIR
    check_target(out_dir, PLOT_KIND, option="--out")
    result = _read_run(args, run_dir)
    try:
        paths = plot_run(result, out_dir, run_dir.resolve().name or "run", option="--out")
    except OSError as e:
        raise _error(args, f"cannot write figures to '{out_dir}': {e.strerror or e}") from None
    for path in paths:
        print(path)
    return 0


def add_parser(commands: Any, error: ErrorType) -> None:
    """Add `show` and `plot` to the `aqmlab` parser's subcommands; `error` is the exception
    class the CLI reports as a one-line usage error."""
    p = commands.add_parser(
        "show", help="print a scenario with every default filled in, as a run would use it"
    )
    p.add_argument("file", metavar="SCENARIO", help="scenario TOML file")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario key, e.g. --set queue.aqm=red (repeatable)",
    )
    p.add_argument(
        "--key", metavar="KEY", help="print only this value or table, e.g. queue.red.p_max"
    )
    p.set_defaults(func=cmd_show, inspect_error=error)

    p = commands.add_parser(
        "plot", help="draw a run's queue, AQM state, cwnds and per-flow throughput"
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="a folder written by aqmlab run")
    p.add_argument("--out", metavar="DIR", help=f"output folder (default RUN_DIR/{FIGURES_DIR})")
    p.set_defaults(func=cmd_plot, inspect_error=error)
