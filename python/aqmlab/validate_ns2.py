"""Validation against ns-2.35: the same single-bottleneck scenarios (Li et al. 2014, §3.1) run
in aqmlab and in ns-2 (`ns`, Debian package `ns2`), every run stored as it finishes, and a
Markdown page comparing the two.

The ns-2 side is `benches/validation/ns2/li2014_dumbbell.tcl`, the aqmlab side
`experiments/li2014/single_bottleneck.toml`. Both measure over the second half of the run, at
the bottleneck port:

- `avg_queue_pkts`, `std_queue_pkts`: mean and population STD of the queue length (packets
  waiting, the one on the wire excluded) sampled every 10 ms from the window's start;
- `drop_rate`: drops / arrivals at the port;
- `link_efficiency`: bits sent onto the bottleneck / (capacity × window length);
- `delay_mean_ms`: mean one-way delay of the data packets (ns-2: propagation and
  serialisation on the three links plus the mean wait in the bottleneck queue).
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import _core
from . import validate as common
from .store import RunStore, _atomic_write_bytes
from .validate import (
    LABELS,
    ROOT,
    TOLERANCES,
    Comparison,
    Job,
    Outcome,
    ValidationError,
)

SCRIPT = ROOT / "benches" / "validation" / "ns2" / "li2014_dumbbell.tcl"
SCENARIO = ROOT / "experiments" / "li2014" / "single_bottleneck.toml"
PAGE = "validation-ns2.md"
TABLE = "validation-ns2.csv"
INSTALL_HINT = "ns-2 not found (no `ns` on PATH); install it with: apt-get install ns2"

SAMPLE_MS = 10.0
START_JITTER_S = 1.0
QUICK_TIMEOUT_S = 900.0
FULL_TIMEOUT_S = 6 * 3600.0
"""Longest an ns-2 run may take before it is stopped and reported as failed."""

METRICS = ("link_efficiency", "avg_queue_pkts", "std_queue_pkts", "drop_rate", "delay_mean_ms")


@dataclass(frozen=True)
class Case:
    """One scenario of the grid, run with every seed in both simulators."""

    aqm: str
    flows: int
    capacity_mbps: float = 45.0
    target_pkts: int = 300
    duration_s: float = 100.0

    @property
    def case_id(self) -> str:
        return (
            f"{self.aqm}-n{self.flows}-c{self.capacity_mbps:g}-t{self.target_pkts}"
            f"-d{self.duration_s:g}"
        )

    @property
    def label(self) -> str:
        return (
            f"{self.aqm} N={self.flows} C={self.capacity_mbps:g} Mb/s "
            f"target {self.target_pkts} ({self.duration_s:g} s)"
        )

    @property
    def thresholds(self) -> tuple[float, float]:
        """RED/ARED (min_th, max_th): the paper's 15/585 for a 300-packet target (ARED's band
        [243, 357]); 25/75 for 50 packets (max_th 75, as the paper states for that case)."""
        if self.target_pkts == 300:
            return 15.0, 585.0
        if self.target_pkts == 50:
            return 25.0, 75.0
        raise ValueError(f"target_pkts: must be 300 or 50, got {self.target_pkts}")

    @property
    def window_start_s(self) -> float:
        return self.duration_s / 2


@dataclass(frozen=True)
class Grid:
    cases: tuple[Case, ...]
    seeds: tuple[int, ...]
    timeout_s: float


AQMS = ("droptail", "red", "ared")


def grid(quick: bool) -> Grid:
    """The quick grid (N = 100, 30 s runs) or the full one (the paper's 100 s runs: N in
    {100, 500, 800} at target 300, N in {500, 800} at target 50, and 15 and 115 Mb/s at
    N = 800), each for DropTail, RED and ARED with two seeds."""
    if quick:
        cases = tuple(Case(aqm, 100, duration_s=30.0) for aqm in AQMS)
        return Grid(cases, (1, 2), QUICK_TIMEOUT_S)
    shapes = [(n, 45.0, 300) for n in (100, 500, 800)]
    shapes += [(n, 45.0, 50) for n in (500, 800)]
    shapes += [(800, c, 300) for c in (15.0, 115.0)]
    cases = tuple(Case(aqm, n, c, t) for n, c, t in shapes for aqm in AQMS)
    return Grid(cases, (1, 2), FULL_TIMEOUT_S)


def run_id(case: Case, seed: int, side: str) -> str:
    """`<case>-s<seed>-<side>-<digest>`: the digest covers what the run depends on (the Tcl
    script and its arguments for ns-2; aqmlab's version and the resolved scenario for aqmlab),
    so a stored run is reused only while its inputs are unchanged."""
    return f"{case.case_id}-s{seed}-{side}-{_inputs_digest(case, seed, side)}"


@functools.cache
def _inputs_digest(case: Case, seed: int, side: str) -> str:
    if side == "ns2":
        key = SCRIPT.read_text(encoding="utf-8") + "\n" + " ".join(ns2_args(case, seed))
    else:
        from .scenario import Scenario

        resolved = Scenario.load(SCENARIO).with_literals(aqmlab_overrides(case)).resolved()
        key = f"aqmlab {_core.version()}\n{resolved}\n#seed={seed}"
    return hashlib.sha256(key.encode()).hexdigest()[:12]


# ---------------------------------------------------------------------------------------------
# ns-2


def ns2_args(case: Case, seed: int) -> list[str]:
    """The key=value arguments of the Tcl script for one run."""
    min_th, max_th = case.thresholds
    values: dict[str, Any] = {
        "queue": case.aqm,
        "flows": case.flows,
        "capacity_mbps": f"{case.capacity_mbps:g}",
        "min_th": f"{min_th:g}",
        "max_th": f"{max_th:g}",
        "duration_s": f"{case.duration_s:g}",
        "window_start_s": f"{case.window_start_s:g}",
        "sample_ms": f"{SAMPLE_MS:g}",
        "start_jitter_s": f"{START_JITTER_S:g}",
        "seed": seed,
    }
    return [f"{k}={v}" for k, v in values.items()]


def ns2_command(ns: str, case: Case, seed: int, script: Path = SCRIPT) -> list[str]:
    return [ns, str(script), *ns2_args(case, seed)]


NS2_KEYS = (
    "samples",
    "arrivals",
    "drops",
    "departures",
    "bytes_departed",
    "queue_delay_mean_ms",
    *METRICS,
)


def parse_ns2_output(text: str) -> dict[str, float]:
    """The metrics the Tcl script prints between its `begin` and `end` lines; ValueError
    (one line) when they are missing or not numbers."""
    lines = [line.strip() for line in text.splitlines()]
    try:
        start = lines.index("begin")
        end = lines.index("end", start)
    except ValueError:
        raise ValueError("ns-2 output has no begin/end block of results") from None
    found: dict[str, str] = {}
    for line in lines[start + 1 : end]:
        key, _, value = line.partition(" ")
        found[key] = value.strip()
    out: dict[str, float] = {}
    for key in NS2_KEYS:
        if key not in found:
            raise ValueError(f"ns-2 output lacks '{key}'")
        try:
            out[key] = float(found[key])
        except ValueError:
            raise ValueError(f"ns-2 output: {key} is not a number: {found[key]!r}") from None
    return out


def find_ns() -> str:
    """The path of the `ns` program; ValidationError with the install hint when missing."""
    ns = shutil.which("ns")
    if ns is None:
        raise ValidationError(INSTALL_HINT)
    return ns


def run_ns2(ns: str, case: Case, seed: int, timeout_s: float) -> dict[str, Any]:
    cmd = ns2_command(ns, case, seed)
    stdout, wall = common.run_process(cmd, timeout_s, "ns-2", cwd=SCRIPT.parent)
    try:
        summary = parse_ns2_output(stdout)
    except ValueError as e:
        raise ValidationError(str(e)) from None
    return {"summary": summary, "wall_s": wall, "command": cmd[1:]}


# ---------------------------------------------------------------------------------------------
# aqmlab


def aqmlab_overrides(case: Case) -> list[tuple[str, str]]:
    """`--set` style overrides of the scenario file for one case."""
    min_th, max_th = case.thresholds
    sets = [
        ("queue.aqm", case.aqm),
        ("traffic.schedule.flows", str(case.flows)),
        ("topology.bottleneck_rate_mbps", f"{case.capacity_mbps:g}"),
        ("duration_s", f"{case.duration_s:g}"),
        ("measure.window", "second_half"),
        ("measure.sample_interval_ms", f"{SAMPLE_MS:g}"),
        ("measure.target_queue_pkts", str(case.target_pkts)),
        ("traffic.start_jitter_s", f"{START_JITTER_S:g}"),
    ]
    for aqm in ("red", "ared"):
        sets += [
            (f"queue.{aqm}.q_min_pkts", f"{min_th:g}"),
            (f"queue.{aqm}.q_max_pkts", f"{max_th:g}"),
        ]
    return sets


def run_aqmlab(case: Case, seed: int) -> dict[str, Any]:
    from .runner import run
    from .scenario import Scenario

    scenario = Scenario.load(SCENARIO).with_literals(aqmlab_overrides(case))
    t0 = time.monotonic()
    result = run(scenario, seed=seed)
    wall = time.monotonic() - t0
    row = result.summary.iloc[0]
    ts = result.timeseries
    eps = 1e-9
    start, end = float(row["window_start_s"]), float(row["window_end_s"])
    window = ts[(ts["t_s"] >= start - eps) & (ts["t_s"] < end - eps)]["queue_pkts"]
    summary = {
        "avg_queue_pkts": float(window.mean()),
        "std_queue_pkts": float(window.std(ddof=0)),
        "samples": float(len(window)),
        "avg_queue_time_weighted_pkts": float(row["avg_queue_pkts"]),
        "drop_rate": float(row["drop_rate"]),
        "link_efficiency": float(row["link_efficiency"]),
        "delay_mean_ms": float(row["delay_mean_ms"]),
        "arrivals": float(row["bottleneck_arrivals"]),
        "drops": float(row["bottleneck_drops"]),
        "departures": float(row["bottleneck_departures"]),
    }
    return {
        "summary": summary,
        "wall_s": wall,
        "overrides": [list(s) for s in aqmlab_overrides(case)],
    }


# ---------------------------------------------------------------------------------------------
# running the grid and writing the page


def all_jobs(g: Grid) -> list[Job]:
    """Every (case, seed, side) of the grid, ns-2 runs first (the long ones)."""
    return [(c, s, side) for side in ("ns2", "aqmlab") for c in g.cases for s in g.seeds]


def pending_jobs(store: RunStore, g: Grid) -> list[Job]:
    """The jobs of the grid not yet stored."""
    return [j for j in all_jobs(g) if not store.has(run_id(*j))]


def _do(ns: str | None, job: Job, timeout_s: float) -> dict[str, Any]:
    case, seed, side = job
    if side == "ns2":
        assert ns is not None
        out = run_ns2(ns, case, seed, timeout_s)
    else:
        out = run_aqmlab(case, seed)
    return {"side": side, "case": asdict(case), "seed": seed, **out}


def execute(
    out: Path,
    g: Grid,
    jobs: int,
    ns: str | None,
    on_done: Callable[[str, float], None] | None = None,
) -> Outcome:
    """Run the grid's missing runs on `jobs` threads (each ns-2 run is its own process) and
    store each one as it finishes."""
    return common.execute(
        out, all_jobs(g), run_id, lambda job: _do(ns, job, g.timeout_s), jobs, on_done
    )


def compare(store: RunStore, g: Grid) -> list[tuple[Case, list[Any]]]:
    return common.compare(store, [(c, g.seeds) for c in g.cases], run_id, "ns2", METRICS)


def markdown_table(rows: Iterable[tuple[Case, list[Any]]]) -> str:
    return common.markdown_table(rows, METRICS)


def page(rows: list[tuple[Case, list[Comparison]]], g: Grid, quick: bool) -> str:
    tol = ", ".join(f"{LABELS[m]} {TOLERANCES[m].text()}" for m in METRICS)
    seeds = ", ".join(str(s) for s in g.seeds)
    return "\n".join(
        [
            f"# aqmlab against ns-2.35{' (quick grid)' if quick else ''}",
            "",
            "Li et al. (2014) single bottleneck: N TCP Reno flows, 80 ms round-trip propagation, "
            f"900-packet buffer; seeds {seeds}; metrics over the second half of each run.",
            "Each cell: ns-2 mean over its seeds (± half its seed-to-seed range) / aqmlab mean, "
            "the relative difference, and the verdict.",
            f"Tolerances: {tol}; a metric outside them but inside ns-2's own seed range is "
            "`within spread`.",
            "",
            markdown_table(rows),
            "",
            common.verdict_counts(rows),
            "",
            "Per metric:",
            "",
            common.summary_table(rows, METRICS),
            "",
        ]
    )


def write_outputs(out: Path, g: Grid, quick: bool) -> tuple[Path, str]:
    """Write the page and the CSV table from the stored runs; returns (page path, table)."""
    rows = compare(RunStore(out), g)
    text = page(rows, g, quick)
    _atomic_write_bytes(out / PAGE, text.encode())
    _atomic_write_bytes(out / TABLE, common.long_table(rows, "ns2").encode())
    return out / PAGE, markdown_table(rows)


def check_files() -> None:
    """The Tcl script and the scenario file exist; ValidationError otherwise."""
    common.check_files({"script": SCRIPT, "scenario": SCENARIO})
