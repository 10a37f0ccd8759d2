"""Experiment files: a base scenario, fixed overrides, grid axes, seeds, a plot spec and a
reduced `[quick]` variant. See docs/experiments.md for the format."""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import _core
from ..data import resolve
from ..engine.scenario import Scenario, read_toml_text, toml_literal
from .usage import ExperimentError as ExperimentError
from .usage import is_experiment_file as is_experiment_file
from .usage import is_experiment_text as is_experiment_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

TOP_KEYS = {
    "title", "description", "scenario", "seeds", "traces", "tables", "fixed", "axes", "plot",
    "quick",
}  # fmt: skip
SCENARIO_KEYS = {"duration_s", "topology", "queue", "tcp", "traffic", "measure"}
"""Top-level keys of a scenario file, which tell one given where an experiment is expected."""
AXIS_KEYS = {"name", "label", "key", "keys", "values", "columns", "cases"}
PLOT_KEYS = {"kind", "x", "y", "lines", "panels", "target", "moving_average_s", "x_log"}
QUICK_KEYS = {"seeds", "fixed", "values", "plot"}
PLOT_KINDS = ("lines", "traces", "latency", "coexistence")
RUN_TABLES = ("probes", "flows", "groups", "fct")
"""The per-run tables a sweep can keep beside each run's summary (`tables = [...]`), each as
`runs/<run id>.<name>.parquet` (docs/metrics.md defines them)."""
LATENCY_TABLES = ("probes", "flows", "groups")
"""The tables `plot.kind = "latency"` draws from, kept whether or not `tables` lists them."""
COEXISTENCE_TABLES = ("flows", "groups")
"""The tables `plot.kind = "coexistence"` draws from (with every run's time series), kept
whether or not `tables` lists them and `traces` asks for them."""


SMALLEST_RUN = """
duration_s = 0.001
[traffic.schedule]
kind = "constant"
flows = 1
"""


@functools.lru_cache(maxsize=1)
def summary_metrics() -> tuple[str, ...]:
    """The names of the summary metrics a run reports (the columns `plot.y` may name), read
    from a 1 ms run of one flow so the list always matches the core."""
    return tuple(_core.run_scenario(SMALLEST_RUN, [], None, None)["summary"])


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (bool, int, float, str))


def format_value(value: Any) -> str:
    """A short label for an axis value: 1000.0 -> '1000', 0.25 -> '0.25', ('a', 1) -> '(a, 1)'."""
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(format_value(v) for v in value) + ")"
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


WINDOW_COLUMNS = ("duration_s", "window_start_s", "window_end_s")


def window_phrase(table: Any) -> str:
    """How the runs of a result table were measured, from their own summary columns:
    `last 125 s of 250 s`, `whole 100 s run`, `[10, 60] s of 100 s`."""
    if table is None or not all(c in table for c in WINDOW_COLUMNS):
        return "measurement window unknown"
    windows = table[list(WINDOW_COLUMNS)].drop_duplicates()
    if len(windows) != 1:
        return "measurement windows differ between runs"
    duration, start, end = (float(v) for v in windows.iloc[0])
    if start == 0 and end == duration:
        return f"whole {format_value(duration)} s run"
    if end == duration:
        return f"last {format_value(end - start)} s of {format_value(duration)} s"
    return f"[{format_value(start)}, {format_value(end)}] s of {format_value(duration)} s"


@dataclass(frozen=True)
class Axis:
    """One grid dimension. `keys` are the scenario keys it sets; each item of `values` is one
    value for every key (a scalar, broadcast to all keys) or a list with one value per key
    (a "zipped" axis such as (q_min, q_max) pairs). An axis of named cases has no keys:
    each value is a case name and `cases` maps it to the (key, value) overrides it applies,
    any TOML value (a whole flow-group array, say)."""

    name: str
    keys: tuple[str, ...]
    values: tuple[Any, ...]
    label: str = ""
    columns: tuple[str, ...] = ()
    cases: Mapping[str, tuple[tuple[str, Any], ...]] | None = None

    @property
    def zipped(self) -> bool:
        return any(isinstance(v, (list, tuple)) for v in self.values)

    def assignments(self, value: Any) -> list[tuple[str, Any]]:
        """The (scenario key, value) pairs that set this axis to `value`."""
        if self.cases is not None:
            return list(self.cases[value])
        if isinstance(value, (list, tuple)):
            return list(zip(self.keys, value))
        return [(key, value) for key in self.keys]

    def column_values(self, value: Any) -> dict[str, Any]:
        """The tidy-table columns for `value`: the axis name (a label string for zipped
        values) plus one column per entry of `columns`."""
        cols: dict[str, Any] = {}
        if isinstance(value, (list, tuple)):
            cols[self.name] = format_value(value)
            cols.update(zip(self.columns, value))
        else:
            cols[self.name] = value
            cols.update({c: value for c in self.columns})
        return cols


@dataclass(frozen=True)
class PlotSpec:
    """How the experiment's figure is drawn (docs/experiments.md, `[plot]`)."""

    kind: str = "lines"
    x: str | None = None
    y: tuple[str, ...] = ("avg_queue_pkts",)
    lines: str | None = None
    panels: str | None = None
    target: float | None = None
    moving_average_s: float = 25.0
    x_log: bool = False


@dataclass(frozen=True)
class RunSpec:
    """One simulation of a sweep: the resolved scenario text, the seed, and where in the
    grid it sits."""

    run_id: str
    scenario_text: str
    seed: int
    params: Mapping[str, Any]
    traces: bool = False
    tables: tuple[str, ...] = ()
    """The per-run tables to keep (`RUN_TABLES`), besides the summary."""


def run_id(scenario_text: str, seed: int) -> str:
    """A stable identifier of a run: SHA-256 of the aqmlab version, the resolved scenario
    text and the seed, first 16 hex digits (so a new version never reuses stored runs)."""
    key = f"aqmlab {_core.version()}\n{scenario_text}\n#seed={int(seed)}\n"
    digest = hashlib.sha256(key.encode())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Experiment:
    """A parsed experiment file (full or quick variant)."""

    name: str
    path: Path
    title: str
    description: str
    scenario_path: Path
    scenario_text: str
    seeds: tuple[int, ...]
    traces: bool
    tables: tuple[str, ...]
    """The per-run tables kept (`RUN_TABLES`): those the file lists plus those its plot needs."""
    fixed: tuple[tuple[str, Any], ...]
    axes: tuple[Axis, ...]
    plot: PlotSpec
    quick: bool = False

    @classmethod
    def load(cls, path: str | os.PathLike[str], quick: bool = False) -> Experiment:
        """Read and check an experiment file (or a built-in one by name, `betared/fig3`:
        `aqmlab.data.resolve`); with `quick`, apply its `[quick]` table."""
        path = resolve(path)
        try:
            data = tomllib.loads(read_toml_text(path, "experiment"))
        except OSError as e:
            raise ExperimentError(
                f"cannot read experiment file '{path}': {e.strerror or e}"
            ) from None
        except _core.ScenarioError as e:
            raise ExperimentError(str(e)) from None
        return cls.from_dict(data, path, quick=quick)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: Path, quick: bool = False) -> Experiment:
        where = path.name

        def fail(message: str) -> ExperimentError:
            return ExperimentError(f"{where}: {message}")

        unknown = sorted(set(data) - TOP_KEYS)
        if unknown and "scenario" not in data and set(data) & SCENARIO_KEYS:
            raise fail(
                "a scenario file, not an experiment (it names no base `scenario`); run it with "
                f"`aqmlab run {path}`"
            )
        if unknown:
            raise fail(f"unknown key '{unknown[0]}' (allowed: {', '.join(sorted(TOP_KEYS))})")
        scenario_rel = data.get("scenario")
        if not isinstance(scenario_rel, str) or not scenario_rel:
            raise fail("scenario: required, the base scenario file relative to this file")
        scenario_path = (path.parent / scenario_rel).resolve()
        try:
            scenario_text = read_toml_text(scenario_path)
        except OSError as e:
            raise fail(f"scenario: cannot read '{scenario_rel}': {e.strerror or e}") from None
        except _core.ScenarioError as e:
            raise fail(f"scenario: {e}") from None

        seeds = _seeds(data.get("seeds", [1]), fail, "seeds")
        traces = data.get("traces", False)
        if not isinstance(traces, bool):
            raise fail("traces: must be true or false")
        tables = _tables(data.get("tables", []), fail)
        fixed = _fixed(data.get("fixed", {}), fail, "fixed")
        axes = _axes(data.get("axes", []), fail)
        plot = _plot(data.get("plot", {}), axes, fail)

        quick_spec = data.get("quick", {})
        if not isinstance(quick_spec, Mapping):
            raise fail("quick: must be a table")
        unknown = sorted(set(quick_spec) - QUICK_KEYS)
        if unknown:
            raise fail(f"quick: unknown key '{unknown[0]}' (allowed: seeds, fixed, values, plot)")
        if quick and "quick" not in data:
            raise fail("has no [quick] table; run it without --quick (the full grid)")
        if quick:
            if "seeds" in quick_spec:
                seeds = _seeds(quick_spec["seeds"], fail, "quick.seeds")
            quick_fixed = dict(_fixed(quick_spec.get("fixed", {}), fail, "quick.fixed"))
            fixed = tuple((k, v) for k, v in fixed if k not in quick_fixed) + tuple(
                quick_fixed.items()
            )
            axes = _quick_axes(axes, quick_spec.get("values", {}), fail)
            quick_plot = quick_spec.get("plot", {})
            if not isinstance(quick_plot, Mapping):
                raise fail("quick.plot: must be a table")
            plot = _plot({**data.get("plot", {}), **quick_plot}, axes, fail)
        if plot.kind == "latency":
            tables += tuple(t for t in LATENCY_TABLES if t not in tables)
        if plot.kind == "coexistence":
            tables += tuple(t for t in COEXISTENCE_TABLES if t not in tables)
            traces = True

        return cls(
            name=path.stem,
            path=path,
            title=str(data.get("title", path.stem)),
            description=str(data.get("description", "")),
            scenario_path=scenario_path,
            scenario_text=scenario_text,
            seeds=seeds,
            traces=traces,
            tables=tables,
            fixed=fixed,
            axes=axes,
            plot=plot,
            quick=quick,
        )

    def grid(self) -> list[dict[str, Any]]:
        """The cartesian product of the axes: one dict axis name -> value per point, in file
        order (the last axis varies fastest)."""
        return [
            dict(zip((a.name for a in self.axes), combo))
            for combo in itertools.product(*(a.values for a in self.axes))
        ]

    def overrides(self, point: Mapping[str, Any], seed: int) -> list[tuple[str, str]]:
        """The scenario overrides (key, TOML literal) for one grid point and seed."""
        pairs: list[tuple[str, Any]] = list(self.fixed)
        for axis in self.axes:
            pairs.extend(axis.assignments(point[axis.name]))
        pairs.append(("seed", int(seed)))
        return [(k, toml_literal(v)) for k, v in pairs]

    def columns(self, point: Mapping[str, Any]) -> dict[str, Any]:
        """The tidy-table parameter columns of one grid point."""
        cols: dict[str, Any] = {}
        for axis in self.axes:
            cols.update(axis.column_values(point[axis.name]))
        return cols

    def runs(self) -> list[RunSpec]:
        """Every run of the experiment, resolved and validated by the core.

        Raises `ExperimentError` (one line naming the file and the grid point) when a
        scenario is invalid.
        """
        scenario = Scenario(self.scenario_text, source=str(self.scenario_path))
        specs = []
        for point in self.grid():
            for seed in self.seeds:
                sc = scenario.with_literals(self.overrides(point, seed))
                try:
                    text = sc.resolved()
                except _core.ScenarioError as e:
                    where = ", ".join(f"{k}={format_value(v)}" for k, v in point.items())
                    raise ExperimentError(
                        f"{self.path.name}: at {where or 'the base point'}: {e}"
                    ) from None
                params = {**self.columns(point), "seed": int(seed)}
                specs.append(
                    RunSpec(run_id(text, seed), text, int(seed), params, self.traces, self.tables)
                )
        return specs

    def display_title(self, table: Any = None) -> str:
        """The title with `{window}` replaced by the measurement window of the runs in
        `table` (see `window_phrase`), so quick and full runs are labelled truthfully."""
        return self.title.replace("{window}", window_phrase(table))

    def axis(self, name: str) -> Axis | None:
        return next((a for a in self.axes if a.name == name), None)


def _seeds(value: Any, fail, where: str) -> tuple[int, ...]:
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(s, int) and not isinstance(s, bool) for s in value)
        or not all(0 <= s < 2**64 for s in value)
    ):
        raise fail(f"{where}: must be a non-empty list of integers in 0..2^64-1")
    if len(set(value)) != len(value):
        raise fail(f"{where}: repeated seed")
    return tuple(value)


def _tables(value: Any, fail) -> tuple[str, ...]:
    allowed = ", ".join(RUN_TABLES)
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise fail(f"tables: must be a list of table names ({allowed})")
    for name in value:
        if name not in RUN_TABLES:
            raise fail(f"tables: unknown table '{name}' (allowed: {allowed})")
    if len(set(value)) != len(value):
        raise fail("tables: repeated table")
    return tuple(value)


def _fixed(value: Any, fail, where: str) -> tuple[tuple[str, Any], ...]:
    """A table of dotted scenario keys -> values. Nested tables are flattened, so both
    `"queue.aqm" = "red"` and `[fixed.queue] aqm = "red"` work; an empty table is a value
    (`"topology.links[0].reverse_queue" = {}`)."""
    if not isinstance(value, Mapping):
        raise fail(f"{where}: must be a table of scenario keys")
    out: list[tuple[str, Any]] = []

    def walk(prefix: str, table: Mapping[str, Any]) -> None:
        for k, v in table.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, Mapping) and v:
                walk(key, v)
            else:
                out.append((key, v))

    walk("", value)
    return tuple(out)


def _axes(value: Any, fail) -> tuple[Axis, ...]:
    if not isinstance(value, list):
        raise fail("axes: must be an array of tables ([[axes]])")
    axes: list[Axis] = []
    for i, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise fail(f"axes[{i}]: must be a table")
        name = item.get("name")
        if not isinstance(name, str) or not name.isidentifier():
            raise fail(f"axes[{i}].name: required, an identifier such as 'N' or 'p_max'")
        where = f"axis '{name}'"
        unknown = sorted(set(item) - AXIS_KEYS)
        if unknown:
            raise fail(
                f"{where}: unknown key '{unknown[0]}' (allowed: {', '.join(sorted(AXIS_KEYS))})"
            )
        if name in {a.name for a in axes} or name in ("seed", "run_id", "experiment"):
            raise fail(f"{where}: name already used")
        if "cases" in item:
            axes.append(_cases_axis(name, item, fail, where))
            continue
        if ("key" in item) == ("keys" in item):
            raise fail(f"{where}: give exactly one of key or keys, or a table of cases")
        keys = [item["key"]] if "key" in item else item["keys"]
        if (
            not isinstance(keys, list)
            or not keys
            or not all(isinstance(k, str) and k for k in keys)
        ):
            raise fail(f"{where}: keys must be a non-empty list of scenario keys")
        values = item.get("values")
        _check_values(values, len(keys), fail, where)
        columns = item.get("columns", [])
        if not isinstance(columns, list) or not all(
            isinstance(c, str) and c.isidentifier() for c in columns
        ):
            raise fail(f"{where}: columns must be a list of identifiers")
        if columns and len(columns) != len(keys):
            raise fail(f"{where}: columns must name one column per key ({len(keys)})")
        axes.append(
            Axis(
                name=name,
                keys=tuple(keys),
                values=tuple(tuple(v) if isinstance(v, list) else v for v in values),
                label=str(item.get("label", name)),
                columns=tuple(columns),
            )
        )
    return tuple(axes)


def _cases_axis(name: str, item: Mapping[str, Any], fail, where: str) -> Axis:
    """An axis of named cases: `cases = { NAME = { "scenario.key" = value, ... }, ... }`;
    `values` (default: every case, in file order) chooses and orders them."""
    if "key" in item or "keys" in item or "columns" in item:
        raise fail(f"{where}: an axis of cases takes no key, keys or columns")
    cases = item["cases"]
    if not isinstance(cases, Mapping) or not cases:
        raise fail(f"{where}: cases must be a non-empty table of case name -> overrides")
    table = {}
    for case, overrides in cases.items():
        if not isinstance(overrides, Mapping) or not overrides:
            raise fail(f"{where}: case '{case}' must be a non-empty table of scenario keys")
        table[case] = _fixed(overrides, fail, f"{where}: case '{case}'")
    values = item.get("values", list(table))
    _check_case_names(values, table, fail, where)
    return Axis(
        name=name,
        keys=tuple(dict.fromkeys(k for o in table.values() for k, _ in o)),
        values=tuple(values),
        label=str(item.get("label", name)),
        cases=table,
    )


def _check_case_names(values: Any, cases: Mapping[str, Any], fail, where: str) -> None:
    if not isinstance(values, list) or not values:
        raise fail(f"{where}: values must be a non-empty list of case names")
    for v in values:
        if v not in cases:
            raise fail(f"{where}: no case '{v}' (cases: {', '.join(cases)})")
    if len(set(values)) != len(values):
        raise fail(f"{where}: repeated value")


def _check_values(values: Any, n_keys: int, fail, where: str) -> None:
    if not isinstance(values, list) or not values:
        raise fail(f"{where}: values must be a non-empty list")
    for v in values:
        if isinstance(v, list):
            if len(v) != n_keys or not all(_is_scalar(x) for x in v):
                raise fail(f"{where}: each list value must hold {n_keys} scalars, one per key")
        elif not _is_scalar(v):
            raise fail(f"{where}: values must be numbers, strings, booleans or lists of them")
    labels = [format_value(v) for v in values]
    if len(set(labels)) != len(labels):
        raise fail(f"{where}: repeated value")


def _quick_axes(axes: tuple[Axis, ...], values: Any, fail) -> tuple[Axis, ...]:
    if not isinstance(values, Mapping):
        raise fail("quick.values: must be a table axis name -> values")
    names = {a.name for a in axes}
    for name in values:
        if name not in names:
            raise fail(f"quick.values: no axis named '{name}'")
    out = []
    for axis in axes:
        if axis.name in values:
            new = values[axis.name]
            if axis.cases is not None:
                _check_case_names(new, axis.cases, fail, f"quick.values.{axis.name}")
            else:
                _check_values(new, len(axis.keys), fail, f"quick.values.{axis.name}")
            axis = replace(axis, values=tuple(tuple(v) if isinstance(v, list) else v for v in new))
        out.append(axis)
    return tuple(out)


def _names(axes: Sequence[Axis]) -> str:
    """The axes' names, comma-separated."""
    return ", ".join(a.name for a in axes)


def _plot(value: Any, axes: Sequence[Axis], fail) -> PlotSpec:
    if not isinstance(value, Mapping):
        raise fail("plot: must be a table")
    unknown = sorted(set(value) - PLOT_KEYS)
    if unknown:
        raise fail(f"plot: unknown key '{unknown[0]}' (allowed: {', '.join(sorted(PLOT_KEYS))})")
    kind = value.get("kind", "lines")
    if kind not in PLOT_KINDS:
        raise fail(f"plot.kind: must be one of {', '.join(PLOT_KINDS)}")
    names = {a.name for a in axes}
    for key in ("x", "lines", "panels"):
        v = value.get(key)
        if v is not None and v not in names:
            raise fail(f"plot.{key}: no axis named '{v}'")
    if kind == "lines" and value.get("x") is None:
        if not axes:
            raise fail(
                'axes: none; a sweep needs at least one [[axes]] table, and its plot (kind = '
                '"lines") an x that names one'
            )
        raise fail(f'plot.x: required for kind = "lines"; give one of the axes: {_names(axes)}')
    if kind == "traces" and value.get("lines") is None:
        raise fail('plot.lines: required for kind = "traces" (the axis with one panel per value)')
    if kind == "latency":
        if value.get("lines") is None:
            raise fail(
                'plot.lines: required for kind = "latency" (the axis with one line per value)'
            )
        for other in axes:
            if other.name != value["lines"] and len(other.values) > 1:
                raise fail(
                    f"plot.kind = \"latency\": axis '{other.name}' has {len(other.values)} "
                    f"values; only plot.lines ('{value['lines']}') may vary in its figures"
                )
    if kind == "coexistence":
        for key, what in (
            ("x", "the base-RTT axis"),
            ("lines", "the axis with one line per value"),
        ):
            if value.get(key) is None:
                raise fail(f'plot.{key}: required for kind = "coexistence" ({what})')
    y = value.get("y", ["avg_queue_pkts"])
    if isinstance(y, str):
        y = [y]
    if not isinstance(y, list) or not y or not all(isinstance(m, str) for m in y):
        raise fail("plot.y: must be a metric name or a list of them")
    unknown_metrics = [m for m in y if m not in summary_metrics()]
    if unknown_metrics:
        raise fail(
            f"plot.y: unknown metric '{unknown_metrics[0]}' "
            f"(allowed: {', '.join(summary_metrics())})"
        )
    target = value.get("target")
    if target is not None and (isinstance(target, bool) or not isinstance(target, (int, float))):
        raise fail("plot.target: must be a number")
    ma = value.get("moving_average_s", 25.0)
    if isinstance(ma, bool) or not isinstance(ma, (int, float)) or ma <= 0:
        raise fail("plot.moving_average_s: must be a number > 0")
    x_log = value.get("x_log", False)
    if not isinstance(x_log, bool):
        raise fail("plot.x_log: must be true or false")
    return PlotSpec(
        kind=kind,
        x=value.get("x"),
        y=tuple(y),
        lines=value.get("lines"),
        panels=value.get("panels"),
        target=None if target is None else float(target),
        moving_average_s=float(ma),
        x_log=x_log,
    )
