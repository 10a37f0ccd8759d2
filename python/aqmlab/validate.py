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
import math
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import _core
from .store import RunStore, _atomic_write_bytes

ROOT = Path(__file__).resolve().parents[2]
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
LABELS = {
    "link_efficiency": "link efficiency",
    "avg_queue_pkts": "average queue (pkts)",
    "std_queue_pkts": "queue STD (pkts)",
    "drop_rate": "drop rate",
    "delay_mean_ms": "mean delay (ms)",
}


@dataclass(frozen=True)
class Tolerance:
    """Agreement when |aqmlab − ns-2| ≤ max(rel·|ns-2|, abs_), or when aqmlab lies inside
    ns-2's own range over its seeds."""

    rel: float
    abs_: float = 0.0

    def text(self) -> str:
        rel = f"{self.rel:.0%}"
        return rel if self.abs_ == 0 else f"{rel} or {self.abs_:g}"


TOLERANCES = {
    "link_efficiency": Tolerance(0.05),
    "avg_queue_pkts": Tolerance(0.25, 30.0),
    "std_queue_pkts": Tolerance(0.40),
    "drop_rate": Tolerance(0.25, 0.01),
    "delay_mean_ms": Tolerance(0.25),
}


class ValidationError(RuntimeError):
    """A run failed; the message is one line."""


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


_RUNNING: set[subprocess.Popen] = set()
"""The ns-2 processes running now, killed when the validation is interrupted."""


def run_ns2(ns: str, case: Case, seed: int, timeout_s: float) -> dict[str, Any]:
    cmd = ns2_command(ns, case, seed)
    t0 = time.monotonic()
    with subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=SCRIPT.parent
    ) as proc:
        _RUNNING.add(proc)
        try:
            stdout, stderr = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise ValidationError(f"ns-2 took longer than {timeout_s:g} s") from None
        finally:
            _RUNNING.discard(proc)
    done = subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)
    wall = time.monotonic() - t0
    if done.returncode != 0:
        tail = " ".join(done.stderr.strip().splitlines()[-2:])
        raise ValidationError(f"ns-2 exited with status {done.returncode}: {tail}")
    try:
        summary = parse_ns2_output(done.stdout)
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
# running the grid


@dataclass
class Outcome:
    total: int = 0
    skipped: int = 0
    ran: int = 0
    failed: list[tuple[str, str]] | None = None


Job = tuple[Case, int, str]


def pending_jobs(store: RunStore, g: Grid) -> list[Job]:
    """Every (case, seed, side) of the grid not yet stored, ns-2 runs first (the long ones)."""
    jobs = [(c, s, side) for side in ("ns2", "aqmlab") for c in g.cases for s in g.seeds]
    return [j for j in jobs if not store.has(run_id(*j))]


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
    store = RunStore(out)
    store.clean_temporary()
    todo = pending_jobs(store, g)
    total = 2 * len(g.cases) * len(g.seeds)
    outcome = Outcome(total=total, skipped=total - len(todo), failed=[])
    if not todo:
        return outcome
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(_do, ns, job, g.timeout_s): job for job in todo}
        remaining = set(futures)
        try:
            while remaining:
                done, remaining = wait(remaining, return_when=FIRST_COMPLETED)
                for fut in done:
                    rid = run_id(*futures[fut])
                    try:
                        record = fut.result()
                    except (ValidationError, _core.ScenarioError) as e:
                        outcome.failed.append((rid, str(e)))  # type: ignore[union-attr]
                        continue
                    store.write(rid, record)
                    outcome.ran += 1
                    if on_done is not None:
                        on_done(rid, record["wall_s"])
        except BaseException:
            for fut in remaining:
                fut.cancel()
            for proc in list(_RUNNING):  # an unfinished ns-2 run is not kept: stop it
                proc.kill()
            raise
    return outcome


# ---------------------------------------------------------------------------------------------
# comparison


@dataclass(frozen=True)
class Comparison:
    metric: str
    ns2: float
    ns2_spread: float
    aqmlab: float
    verdict: str
    """`within`, `within spread` (only inside ns-2's own range over seeds), `outside`, or
    `n/a` when a side is missing."""

    @property
    def rel_diff(self) -> float:
        if not math.isfinite(self.ns2) or self.ns2 == 0:
            return math.nan
        return (self.aqmlab - self.ns2) / abs(self.ns2)


def judge(metric: str, ns2_values: Sequence[float], aqmlab_values: Sequence[float]) -> Comparison:
    """Compare the seed means of one metric: within tolerance, inside ns-2's seed range
    (max − min over its seeds, around its mean), or outside."""
    ns2_values = [v for v in ns2_values if math.isfinite(v)]
    aqmlab_values = [v for v in aqmlab_values if math.isfinite(v)]
    if not ns2_values or not aqmlab_values:
        return Comparison(metric, math.nan, math.nan, math.nan, "n/a")
    ref = sum(ns2_values) / len(ns2_values)
    spread = max(ns2_values) - min(ns2_values)
    ours = sum(aqmlab_values) / len(aqmlab_values)
    tol = TOLERANCES[metric]
    diff = abs(ours - ref)
    if diff <= max(tol.rel * abs(ref), tol.abs_):
        verdict = "within"
    elif diff <= spread:
        verdict = "within spread"
    else:
        verdict = "outside"
    return Comparison(metric, ref, spread, ours, verdict)


def compare(store: RunStore, g: Grid) -> list[tuple[Case, list[Comparison]]]:
    rows = []
    for case in g.cases:
        side_values: dict[str, dict[str, list[float]]] = {"ns2": {}, "aqmlab": {}}
        for side, values in side_values.items():
            for seed in g.seeds:
                rid = run_id(case, seed, side)
                if store.has(rid):
                    summary = store.read(rid)["summary"]
                    for m in METRICS:
                        values.setdefault(m, []).append(float(summary.get(m, math.nan)))
        rows.append(
            (
                case,
                [
                    judge(m, side_values["ns2"].get(m, []), side_values["aqmlab"].get(m, []))
                    for m in METRICS
                ],
            )
        )
    return rows


def _fmt(metric: str, value: float) -> str:
    if not math.isfinite(value):
        return "–"
    if metric == "link_efficiency":
        return f"{value:.4f}"
    if metric == "drop_rate":
        return f"{value:.2%}"
    return f"{value:.1f}"


def _cell(c: Comparison) -> str:
    if c.verdict == "n/a":
        return "–"
    rel = c.rel_diff
    diff = "–" if not math.isfinite(rel) else f"{round(rel, 3) + 0.0:+.1%}"
    mark = "**outside**" if c.verdict == "outside" else c.verdict
    return (
        f"{_fmt(c.metric, c.ns2)} (±{_fmt(c.metric, c.ns2_spread / 2)}) / "
        f"{_fmt(c.metric, c.aqmlab)}, {diff}, {mark}"
    )


def markdown_table(rows: Iterable[tuple[Case, list[Comparison]]]) -> str:
    headers = ["case", *(LABELS[m] for m in METRICS)]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for case, comps in rows:
        lines.append("| " + " | ".join([case.label, *(_cell(c) for c in comps)]) + " |")
    return "\n".join(lines)


def long_table(rows: Iterable[tuple[Case, list[Comparison]]]) -> str:
    """CSV: one line per case and metric."""
    out = ["case,metric,ns2,ns2_spread,aqmlab,rel_diff,tolerance,verdict"]
    for case, comps in rows:
        for c in comps:
            out.append(
                f"{case.case_id},{c.metric},{c.ns2:.6g},{c.ns2_spread:.6g},{c.aqmlab:.6g},"
                f"{c.rel_diff:.6g},{TOLERANCES[c.metric].text()},{c.verdict}"
            )
    return "\n".join(out) + "\n"


def page(rows: list[tuple[Case, list[Comparison]]], g: Grid, quick: bool) -> str:
    counts = {"within": 0, "within spread": 0, "outside": 0, "n/a": 0}
    for _, comps in rows:
        for c in comps:
            counts[c.verdict] += 1
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
            f"Verdicts: {counts['within']} within, {counts['within spread']} within spread, "
            f"{counts['outside']} outside, {counts['n/a']} not run.",
            "",
        ]
    )


def write_outputs(out: Path, g: Grid, quick: bool) -> tuple[Path, str]:
    """Write the page and the CSV table from the stored runs; returns (page path, table)."""
    rows = compare(RunStore(out), g)
    text = page(rows, g, quick)
    _atomic_write_bytes(out / PAGE, text.encode())
    _atomic_write_bytes(out / TABLE, long_table(rows).encode())
    return out / PAGE, markdown_table(rows)


def check_files(paths: Mapping[str, Path] | None = None) -> None:
    """The Tcl script and the scenario file exist; ValidationError otherwise."""
    for path in (paths or {"script": SCRIPT, "scenario": SCENARIO}).values():
        if not path.is_file():
            raise ValidationError(f"missing '{path}': run from an aqmlab source checkout")


def default_jobs() -> int:
    return max(1, min(2, os.cpu_count() or 1))
