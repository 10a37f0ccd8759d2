"""Validation against ns-2.35: the same scenarios run in aqmlab and in ns-2 (`ns`, Debian
package `ns2`), every run stored as it finishes, and a Markdown page comparing the two. Three
families of cases: Li et al. 2014's single bottleneck (§3.1, ECN off) with DropTail, RED or
ARED, and with REM or PI, here, and Chen, Hu & Ji 2011's ECN dumbbell (§5; RED and gentle
RED; as a fourth family the paper's ARED and self-tuning RED, and as a fifth its REM and PI
with ECN marking), in `chen2011`.

The Li cases' ns-2 side is `validation/ns2/li2014_dumbbell.tcl` (REM and PI:
`li2014_rem_pi.tcl`, which runs that script with Queue/REM or Queue/PI at the bottleneck), their
aqmlab side `experiments/li2014/single_bottleneck.toml`. Every family measures over the second
half of the run, at the bottleneck port:

- `avg_queue_pkts`, `std_queue_pkts`: mean and population STD of the queue length (packets
  waiting, the one on the wire excluded) sampled every 10 ms from the window's start;
- `drop_rate`: drops / arrivals at the port;
- `link_efficiency`: bits sent onto the bottleneck / (capacity × window length);
- `delay_mean_ms`: mean one-way delay of the data packets (ns-2: propagation and
  serialisation on the three links plus the mean wait in the bottleneck queue).

The Chen cases also report `mark_rate` (CE marks / arrivals), shown in a table of its own.
"""

from __future__ import annotations

import functools
import hashlib
import math
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from ...data import EXPERIMENTS, VALIDATION
from ...engine.outdir import write_file
from ...engine.store import RunStore
from .. import common
from ..common import LABELS, TOLERANCES, Comparison, Job, Outcome, ValidationError
from . import chen2011 as chen
from .chen2011 import ChenCase, ChenRemPiCase, ChenTunedCase

SCRIPT = VALIDATION / "ns2" / "li2014_dumbbell.tcl"
REM_PI_SCRIPT = SCRIPT.with_name("li2014_rem_pi.tcl")
SCENARIO = EXPERIMENTS / "li2014" / "single_bottleneck.toml"
PAGE = "validation-ns2.md"
TABLE = "validation-ns2.csv"
INSTALL_HINT = "ns-2 not found (no `ns` on PATH); install it with: apt-get install ns2"

SAMPLE_MS = 10.0
START_JITTER_S = 1.0
QUICK_TIMEOUT_S = 900.0
FULL_TIMEOUT_S = 6 * 3600.0
"""Longest an ns-2 run may take before it is stopped and reported as failed."""

METRICS = ("link_efficiency", "avg_queue_pkts", "std_queue_pkts", "drop_rate", "delay_mean_ms")
ECN_METRIC = "mark_rate"
"""Reported for the Chen cases only, in a table of its own (no tolerance of its own: it is
judged with the drop rate's)."""


@dataclass(frozen=True)
class Case:
    """One Li et al. (2014) scenario of the grid, run with every seed in both simulators."""

    family: ClassVar[str] = "li2014"

    aqm: str
    flows: int
    capacity_mbps: float = 45.0
    target_pkts: int = 300
    duration_s: float = 100.0
    tcp: str = "reno"
    """ns-2's agent: `reno` (Agent/TCP/Reno, the paper's), `newreno` or `sack1`."""

    @property
    def case_id(self) -> str:
        variant = "" if self.tcp == "reno" else f"-{self.tcp}"
        return (
            f"{self.aqm}-n{self.flows}-c{self.capacity_mbps:g}-t{self.target_pkts}"
            f"-d{self.duration_s:g}{variant}"
        )

    @property
    def label(self) -> str:
        variant = "" if self.tcp == "reno" else f", {TCP_AGENTS[self.tcp]}"
        return (
            f"{self.aqm} N={self.flows} C={self.capacity_mbps:g} Mb/s "
            f"target {self.target_pkts} ({self.duration_s:g} s{variant})"
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
class RemPiCase(Case):
    """A Li et al. (2014) case with REM or PI (`aqm`) at the bottleneck, aiming at
    `target_pkts`: ns-2 runs `li2014_rem_pi.tcl`, which sets Queue/REM or Queue/PI to the
    paper's parameters and the target (REM's `pbo_`, PI's `qref_`)."""

    family: ClassVar[str] = "li2014_rem_pi"


TCP_AGENTS = {"reno": "Reno", "newreno": "Newreno", "sack1": "Sack1"}
"""The Li script's TCP agents (Agent/TCP/<name>) by the case's `tcp`."""
TCP_OVERRIDES = {
    "reno": [],
    "newreno": [("tcp.recovery", "newreno")],
    "sack1": [("tcp.sack", "true"), ("tcp.recovery", "sack1")],
}
"""The `ns2` preset's settings for the same agent."""
VARIANTS = ("newreno", "sack1")

AnyCase = Case | ChenCase | ChenTunedCase | ChenRemPiCase


class Family(NamedTuple):
    """What differs between the scenario families: the files each side runs, how a case
    becomes arguments of each, and what the ns-2 script prints."""

    script: Path
    scenario: Path
    ns2_args: Callable[[Any, int], list[str]]
    aqmlab_overrides: Callable[[Any], list[tuple[str, str]]]
    ns2_keys: tuple[str, ...]
    reports_marks: bool
    sourced: tuple[Path, ...] = ()
    """Further Tcl files the script sources: their text is part of a run's inputs too."""
    ns2_extra: Callable[[str], dict[str, Any]] | None = None
    """More to store with an ns-2 run, read from its whole stdout."""
    aqmlab_extra: Callable[[Any], dict[str, Any]] | None = None
    """More to store with an aqmlab run (its `summary` entries join the run's summary)."""


def script_of(case: AnyCase) -> Path:
    return FAMILIES[case.family].script


def scenario_of(case: AnyCase) -> Path:
    return FAMILIES[case.family].scenario


@dataclass(frozen=True)
class Grid:
    cases: tuple[AnyCase, ...]
    seeds: tuple[int, ...]
    timeout_s: float
    one_seed_from_flows: int | None = None
    """Cases with at least this many flows run the first seed only."""

    def seeds_of(self, case: AnyCase) -> tuple[int, ...]:
        """The seeds `case` runs with: its own where it names them."""
        own = getattr(case, "seeds", ())
        if own:
            return tuple(own)
        big = self.one_seed_from_flows is not None and case.flows >= self.one_seed_from_flows
        return self.seeds[:1] if big else self.seeds


ONE_SEED_FROM_FLOWS = 1500
"""Full-grid cases with this many flows or more run seed 1 only."""
AQMS = ("droptail", "red", "ared")
REM_PI = ("rem", "pi")


def grid(quick: bool) -> Grid:
    """The quick grid (Li: N = 100, 30 s runs, DropTail, RED, ARED, REM and PI, and RED with
    ns-2's Newreno and Sack1 agents; Chen: gentle RED at N = 200 for 30 s) or the full one (Li's
    100 s runs: N in {100, 500, 800} at target 300, N in {500, 800} at target 50, and 15 and
    115 Mb/s at N = 800, each for DropTail, RED and ARED, except DropTail at target 50, which
    has no target and would repeat the target-300 case; the three at N = 500 with Newreno and
    with Sack1; REM and PI at N in {500, 800, 1500} with targets 300 and 50, and at 15 and
    115 Mb/s with N = 800; Chen's RED, gentle RED, ARED and self-tuning RED at N in
    {200, 1000}, and REM and PI at N in {500, 1000}, 100 s), all with two seeds but N = 1500,
    with one, and self-tuning RED, with
    four (an ns-2 run of 1500 flows takes 12 min on a busy 2-core
    machine, most of it building routing tables)."""
    if quick:
        cases: tuple[AnyCase, ...] = tuple(Case(aqm, 100, duration_s=30.0) for aqm in AQMS)
        cases += tuple(Case("red", 100, duration_s=30.0, tcp=v) for v in VARIANTS)
        cases += tuple(RemPiCase(aqm, 100, duration_s=30.0) for aqm in REM_PI)
        return Grid(cases + chen.quick_cases(), (1, 2), QUICK_TIMEOUT_S)
    shapes = [(n, 45.0, 300) for n in (100, 500, 800)]
    shapes += [(n, 45.0, 50) for n in (500, 800)]
    shapes += [(800, c, 300) for c in (15.0, 115.0)]
    cases = tuple(
        Case(aqm, n, c, t)
        for n, c, t in shapes
        for aqm in AQMS
        if not (aqm == "droptail" and t != 300)
    )
    cases += tuple(Case(aqm, 500, tcp=v) for v in VARIANTS for aqm in AQMS)
    rem_pi_shapes = [(n, 45.0, t) for t in (300, 50) for n in (500, 800, 1500)]
    rem_pi_shapes += [(800, c, 300) for c in (15.0, 115.0)]
    cases += tuple(RemPiCase(aqm, n, c, t) for n, c, t in rem_pi_shapes for aqm in REM_PI)
    cases += chen.full_cases() + chen.tuned_full_cases() + chen.rem_pi_full_cases()
    return Grid(cases, (1, 2), FULL_TIMEOUT_S, ONE_SEED_FROM_FLOWS)


def run_id(case: AnyCase, seed: int, side: str) -> str:
    """`<case>-s<seed>-<side>-<digest>`: the digest covers what the run depends on (the Tcl
    script and its arguments for ns-2; aqmlab's version and the resolved scenario for aqmlab),
    so a stored run is reused only while its inputs are unchanged."""
    return f"{case.case_id}-s{seed}-{side}-{_inputs_digest(case, seed, side)}"


@functools.cache
def _inputs_digest(case: AnyCase, seed: int, side: str) -> str:
    if side == "ns2":
        family = FAMILIES[case.family]
        script = "".join(p.read_text(encoding="utf-8") for p in (family.script, *family.sourced))
        key = script + "\n" + " ".join(ns2_args(case, seed))
    else:
        from ...engine.scenario import Scenario

        scenario = Scenario.load(scenario_of(case)).with_literals(aqmlab_overrides(case))
        resolved = scenario.resolved()
        key = f"{common.aqmlab_build()}\n{resolved}\n#seed={seed}"
    return hashlib.sha256(key.encode()).hexdigest()[:12]


# ---------------------------------------------------------------------------------------------
# ns-2


def ns2_args(case: AnyCase, seed: int) -> list[str]:
    """The key=value arguments of the case's Tcl script for one run."""
    return FAMILIES[case.family].ns2_args(case, seed)


def _li_ns2_args(case: Case, seed: int) -> list[str]:
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
        "tcp": case.tcp,
        "seed": seed,
    }
    return [f"{k}={v}" for k, v in values.items()]


RED_ONLY_KEYS = ("queue", "min_th", "max_th")
"""li2014_dumbbell.tcl's keys that li2014_rem_pi.tcl does not pass on: it sets the queue
itself, and the thresholds are RED's."""


def _rem_pi_ns2_args(case: RemPiCase, seed: int) -> list[str]:
    """li2014_rem_pi.tcl's own keys (the AQM and its target), then li2014_dumbbell.tcl's
    arguments of the same case but its queue and RED thresholds."""
    own = [f"aqm={case.aqm}", f"q_ref={case.target_pkts}"]
    rest = [a for a in _li_ns2_args(case, seed) if a.split("=")[0] not in RED_ONLY_KEYS]
    return own + rest


def ns2_command(ns: str, case: AnyCase, seed: int, script: Path | None = None) -> list[str]:
    return [ns, str(script or script_of(case)), *ns2_args(case, seed)]


NS2_KEYS = (
    "samples",
    "arrivals",
    "drops",
    "departures",
    "bytes_departed",
    "queue_delay_mean_ms",
    *METRICS,
)
CHEN_KEYS = (*NS2_KEYS, "marks", ECN_METRIC, "propagation_mean_ms", "data_packets_sent")
TUNED_KEYS = (*CHEN_KEYS, *chen.TUNED_KEYS)


def parse_ns2_output(text: str, keys: Iterable[str] = NS2_KEYS) -> dict[str, float]:
    """The `keys` the Tcl script prints between its `begin` and `end` lines; ValueError
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
    for key in keys:
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


def run_ns2(ns: str, case: AnyCase, seed: int, timeout_s: float) -> dict[str, Any]:
    cmd = ns2_command(ns, case, seed)
    stdout, wall = common.run_process(cmd, timeout_s, "ns-2", cwd=script_of(case).parent)
    family = FAMILIES[case.family]
    try:
        summary = parse_ns2_output(stdout, family.ns2_keys)
        extra = family.ns2_extra(stdout) if family.ns2_extra is not None else {}
    except ValueError as e:
        raise ValidationError(str(e)) from None
    return {"summary": summary, "wall_s": wall, "command": cmd[1:], **extra}


# ---------------------------------------------------------------------------------------------
# aqmlab


def aqmlab_overrides(case: AnyCase) -> list[tuple[str, str]]:
    """`--set` style overrides of the case's scenario file."""
    return FAMILIES[case.family].aqmlab_overrides(case)


def _li_overrides(case: Case) -> list[tuple[str, str]]:
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
        *TCP_OVERRIDES[case.tcp],
    ]
    for aqm in ("red", "ared"):
        sets += [
            (f"queue.{aqm}.q_min_pkts", f"{min_th:g}"),
            (f"queue.{aqm}.q_max_pkts", f"{max_th:g}"),
        ]
    return sets


def _rem_pi_overrides(case: RemPiCase) -> list[tuple[str, str]]:
    """The Li overrides of the same case, and REM's or PI's target."""
    return [*_li_overrides(case), (f"queue.{case.aqm}.q_ref_pkts", f"{case.target_pkts:g}")]


FAMILIES = {
    "li2014": Family(SCRIPT, SCENARIO, _li_ns2_args, _li_overrides, NS2_KEYS, False),
    "li2014_rem_pi": Family(
        REM_PI_SCRIPT,
        SCENARIO,
        _rem_pi_ns2_args,
        _rem_pi_overrides,
        NS2_KEYS,
        False,
        (SCRIPT,),
    ),
    "chen2011": Family(
        chen.SCRIPT,
        chen.SCENARIO,
        lambda case, seed: chen.ns2_args(case, seed, SAMPLE_MS, START_JITTER_S),
        lambda case: chen.aqmlab_overrides(case, SAMPLE_MS, START_JITTER_S),
        CHEN_KEYS,
        True,
    ),
    "chen2011_tuned": Family(
        chen.TUNED_SCRIPT,
        chen.SCENARIO,
        lambda case, seed: chen.tuned_ns2_args(case, seed, SAMPLE_MS, START_JITTER_S),
        lambda case: chen.tuned_overrides(case, SAMPLE_MS, START_JITTER_S),
        TUNED_KEYS,
        True,
        (chen.SCRIPT,),
        lambda stdout: {"periods": chen.parse_periods(stdout)},
        chen.aqmlab_extra,
    ),
    "chen2011_rem_pi": Family(
        chen.REM_PI_SCRIPT,
        chen.SCENARIO,
        lambda case, seed: chen.rem_pi_ns2_args(case, seed, SAMPLE_MS, START_JITTER_S),
        lambda case: chen.rem_pi_overrides(case, SAMPLE_MS, START_JITTER_S),
        CHEN_KEYS,
        True,
        (chen.SCRIPT,),
        lambda stdout: {"trace": chen.parse_trace(stdout)},
        chen.aqmlab_rem_pi_extra,
    ),
}
"""Each scenario family, by `case.family`."""


def run_aqmlab(case: AnyCase, seed: int) -> dict[str, Any]:
    from ...engine.runner import run
    from ...engine.scenario import Scenario

    scenario = Scenario.load(scenario_of(case)).with_literals(aqmlab_overrides(case))
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
    family = FAMILIES[case.family]
    if family.reports_marks:
        summary["marks"] = float(row["bottleneck_marks"])
        summary[ECN_METRIC] = float(row[ECN_METRIC])
    extra = family.aqmlab_extra(result) if family.aqmlab_extra is not None else {}
    summary.update(extra.pop("summary", {}))
    return {
        "summary": summary,
        "wall_s": wall,
        "overrides": [list(s) for s in aqmlab_overrides(case)],
        **extra,
    }


# ---------------------------------------------------------------------------------------------
# running the grid and writing the page


def all_jobs(g: Grid) -> list[Job]:
    """Every (case, seed, side) of the grid, ns-2 runs first (the long ones)."""
    return [(c, s, side) for side in ("ns2", "aqmlab") for c in g.cases for s in g.seeds_of(c)]


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
    return {"side": side, "family": case.family, "case": asdict(case), "seed": seed, **out}


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


def compare(store: RunStore, g: Grid) -> list[tuple[AnyCase, list[Any]]]:
    return common.compare(store, [(c, g.seeds_of(c)) for c in g.cases], run_id, "ns2", METRICS)


def compare_marks(store: RunStore, g: Grid) -> list[tuple[AnyCase, Comparison]]:
    """The Chen cases' mark rate over the seeds, judged with the drop rate's tolerance."""
    out = []
    for case in g.cases:
        if not FAMILIES[case.family].reports_marks:
            continue
        values: dict[str, list[float]] = {"ns2": [], "aqmlab": []}
        for side, vals in values.items():
            for seed in g.seeds_of(case):
                rid = run_id(case, seed, side)
                if store.has(rid):
                    vals.append(float(store.read(rid)["summary"].get(ECN_METRIC, math.nan)))
        c = common.judge("drop_rate", values["ns2"], values["aqmlab"])
        out.append((case, Comparison(ECN_METRIC, c.ref, c.ref_spread, c.aqmlab, c.verdict)))
    return out


def markdown_table(rows: Iterable[tuple[AnyCase, list[Any]]]) -> str:
    return common.markdown_table(rows, METRICS)


def page(
    rows: list[tuple[AnyCase, list[Comparison]]],
    g: Grid,
    quick: bool,
    marks: list[tuple[AnyCase, Comparison]] | None = None,
    p_max: str = "",
) -> str:
    tol = ", ".join(f"{LABELS[m]} {TOLERANCES[m].text()}" for m in METRICS)
    seeds = ", ".join(str(s) for s in g.seeds)
    if g.one_seed_from_flows is not None:
        seeds += f" (N ≥ {g.one_seed_from_flows}: seed {g.seeds[0]} only)"
    ecn: list[str] = []
    if marks:
        ecn = [
            "ECN marks of the Chen cases (CE marks / arrivals at the bottleneck), judged with "
            "the drop rate's tolerance and not counted above:",
            "",
            common.single_metric_table(marks, "ECN mark rate", "drop_rate"),
            "",
        ]
    if p_max:
        ecn += [p_max, ""]
    return "\n".join(
        [
            f"# aqmlab against ns-2.35{' (quick grid)' if quick else ''}",
            "",
            "Li et al. (2014) single bottleneck: N TCP Reno flows (Newreno or Sack1 where the "
            "case says so), 80 ms round-trip propagation, 900-packet buffer, ECN off, "
            "DropTail, RED, ARED, REM or PI at the bottleneck. Chen et al. (2011) dumbbell: "
            "N ECN-capable TCP Reno flows, 150 Mb/s, round-trip propagation uniform around "
            "150 ms, 7500-packet buffer, RED, gentle RED, ARED or self-tuning RED marking "
            "while p_b < 0.1 (self-tuning RED: seeds 1 to 4), or REM or PI marking. "
            f"Seeds {seeds}; metrics over the second half of each run.",
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
            *ecn,
        ]
    )


def _stored(store: RunStore, case: AnyCase, seed: int, side: str) -> dict[str, Any] | None:
    rid = run_id(case, seed, side)
    return store.read(rid) if store.has(rid) else None


def write_outputs(out: Path, g: Grid, quick: bool) -> tuple[Path, str]:
    """Write the page and the CSV table from the stored runs; returns (page path, table)."""
    store = RunStore(out)
    rows = compare(store, g)
    marks = compare_marks(store, g)
    tuned = [c for c in g.cases if isinstance(c, ChenTunedCase)]
    read = functools.partial(_stored, store)
    p_max = chen.p_max_table(tuned, g.seeds_of, read) if tuned else ""
    rem_pi = [c for c in g.cases if isinstance(c, ChenRemPiCase)]
    if rem_pi:
        p_max += ("\n\n" if p_max else "") + chen.rem_pi_table(rem_pi, g.seeds_of, read)
    text = page(rows, g, quick, marks, p_max)
    write_file(out / PAGE, text)
    csv = common.long_table(rows, "ns2") + "".join(
        f"{case.case_id},{ECN_METRIC},{c.ref:.6g},{c.ref_spread:.6g},{c.aqmlab:.6g},"
        f"{c.rel_diff:.6g},{TOLERANCES['drop_rate'].text()},{c.verdict}\n"
        for case, c in marks
    )
    write_file(out / TABLE, csv)
    return out / PAGE, markdown_table(rows)


def check_files() -> None:
    """Every family's Tcl script and scenario file exist; ValidationError otherwise."""
    for name, family in FAMILIES.items():
        common.check_files({f"{name} script": family.script, f"{name} scenario": family.scenario})
