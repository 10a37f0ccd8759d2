"""`aqmlab show` and `aqmlab plot`: look at a scenario before a run and at a run after it.

    aqmlab show SCENARIO [--set KEY=VALUE ...] [--key KEY] [--all]
    aqmlab plot RUN_DIR [--out DIR]

`show` prints the resolved scenario (every default filled in) with the parameter tables of
the AQMs it uses (`--all`: every AQM's), or one value of it; `plot` draws a run folder
written by `aqmlab run` as PNG and SVG (default RUN_DIR/figures/). Bad input is one line on
stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import _core
from ..engine.outdir import check_target
from ..engine.result import SUMMARY_JSON, RunResult
from ..engine.scenario import Scenario, toml_literal
from ..sweeps.usage import experiment_not_scenario, is_experiment_text
from .arg_types import parse_set

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

ErrorType = Callable[[str], Exception]

FIGURES_DIR = "figures"
"""Where `plot` writes inside RUN_DIR when no --out is given."""

HEADER = re.compile(r"\[\[?\s*([^\]]*?)\s*\]\]?\s*(?:#.*)?$")
"""A TOML table header line, `[a.b]` or `[[a.b]]`; group 1 is the dotted key."""

UNUSED_KEPT = "# not used by this scenario's queues; shown as it differs from the defaults"
"""The comment above an unused AQM table that `show` keeps."""


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


def _header_lines(text: str) -> list[tuple[int, str]]:
    """(line number, dotted key) of each table header of the TOML `text`, skipping lines
    inside multi-line strings and multi-line arrays."""
    headers = []
    closing = None  # the delimiter of the multi-line string the scan is in
    depth = 0  # open brackets of the array values the scan is in
    for number, line in enumerate(text.split("\n")):
        i = 0
        if closing is None and depth == 0:
            match = HEADER.match(line.strip())
            if match and line.lstrip().startswith("["):
                headers.append((number, match.group(1)))
                continue
        while i < len(line):
            if closing is not None:
                end = line.find(closing, i)
                while closing == '"""' and end > 0 and _escaped(line, end):
                    end = line.find(closing, end + 1)
                if end < 0:
                    break
                i = end + 3
                while i < len(line) and line[i] == closing[0]:
                    i += 1
                closing = None
                continue
            c = line[i]
            if c == "#":
                break
            if line.startswith('"""', i) or line.startswith("'''", i):
                closing, i = line[i : i + 3], i + 3
            elif c in "\"'":
                i += 1
                while i < len(line) and line[i] != c:
                    i += 2 if c == '"' and line[i] == "\\" else 1
                i += 1
            else:
                depth += (c == "[") - (c == "]")
                i += 1
    return headers


def _escaped(line: str, at: int) -> bool:
    """Whether the character at `at` follows an odd number of backslashes."""
    run = 0
    while at - run - 1 >= 0 and line[at - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def used_aqms(resolved: dict[str, Any]) -> set[str]:
    """The AQMs a resolved scenario runs: `[queue]`'s `aqm`, and on a chain or a network the
    `aqm` of each link's `queue` and `reverse_queue` (`[queue]`'s when the table sets none)."""
    queue = resolved.get("queue", {})
    base = queue.get("aqm")
    used = {base}
    topology = resolved.get("topology", {})
    if topology.get("kind") in ("chain", "network"):
        for link in topology.get("links", []):
            for side in ("queue", "reverse_queue"):
                table = link.get(side)
                if isinstance(table, dict):
                    used.add(table.get("aqm", base))
    return {name for name in used if isinstance(name, str)}


def _without_tables(text: str, drop: set[str], keep: set[str], note: list[str]) -> str:
    """`text` without the `[queue.<name>]` tables (and their subtables) of the AQMs in
    `drop`; `note` (comment lines) stands where the first of them was, and the tables of
    `keep` get the `UNUSED_KEPT` comment above them."""
    lines = text.split("\n")
    headers = _header_lines(text) + [(len(lines), "")]
    out = lines[: headers[0][0]]
    for (start, key), (end, _) in zip(headers, headers[1:]):
        parts = key.replace(" ", "").split(".")
        name = parts[1] if len(parts) > 1 and parts[0] == "queue" else None
        if name in drop:
            out += note
            note = []
            continue
        if name in keep and len(parts) == 2:
            out.append(UNUSED_KEPT)
        out += lines[start:end]
    return "\n".join(out)


def shown_scenario(text: str) -> str:
    """The resolved scenario `text` as `show` prints it: the tables of AQMs it does not run
    (see `used_aqms`) are left out when they hold their defaults, named in a comment, and kept
    with a comment above when they do not. The result resolves to `text` itself (so to the
    same run and run id); when it would not, `text` is returned whole."""
    resolved = tomllib.loads(text)
    queue = resolved.get("queue", {})
    aqms = set(_core.catalog()["aqms"])
    used = used_aqms(resolved)
    unused = sorted(k for k, v in queue.items() if isinstance(v, dict) and k in aqms - used)
    if not unused:
        return text
    try:
        bare = tomllib.loads(
            _core.resolve_scenario(_without_tables(text, set(unused), set(), []), [])
        )
    except (_core.ScenarioError, tomllib.TOMLDecodeError):
        return text
    keep = {name for name in unused if bare.get("queue", {}).get(name) != queue[name]}
    drop = [name for name in unused if name not in keep]
    note = []
    if drop:
        names = textwrap.wrap(", ".join(drop), 96, initial_indent="# ", subsequent_indent="# ")
        note = [
            "# AQM tables left out: not used by this scenario's queues and at their defaults",
            "# (aqmlab show --all prints every table):",
            *names,
            "",
        ]
    shown = _without_tables(text, set(drop), keep, note)
    try:
        same = _core.resolve_scenario(shown, []) == text
    except _core.ScenarioError:
        same = False
    return shown if same else text


def cmd_show(args: argparse.Namespace) -> int:
    """Print the resolved scenario (`--all`: every AQM's table), or one value (`--key`)."""
    sets = [parse_set(item) for item in args.set]
    path = Path(args.file)
    try:
        scenario = Scenario.load(path).with_literals(sets)
    except OSError as e:
        raise _error(args, f"cannot read scenario file '{path}': {e.strerror or e}") from None
    if is_experiment_text(scenario.text):
        raise _error(args, experiment_not_scenario(path, "show"))
    text = scenario.resolved()
    if args.key is None:
        text = text if args.all else shown_scenario(text)
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
    from ..present.run_plots import PLOT_KIND, plot_run

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
    p.add_argument(
        "--all",
        action="store_true",
        help="print the parameter tables of every AQM, not only of those the scenario uses "
        "(the exact text a run stores)",
    )
    p.set_defaults(func=cmd_show, inspect_error=error)

    p = commands.add_parser(
        "plot", help="draw a run's queue, AQM state, cwnds and per-flow throughput"
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="a folder written by aqmlab run")
    p.add_argument("--out", metavar="DIR", help=f"output folder (default RUN_DIR/{FIGURES_DIR})")
    p.set_defaults(func=cmd_plot, inspect_error=error)
