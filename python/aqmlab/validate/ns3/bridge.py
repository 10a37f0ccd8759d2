"""Cross-validation through the ns-3 bridge (`aqmlab validate ns3 --bridge`): every single-queue
aqmlab AQM run inside ns-3.37 as the AqmlabQueueDisc (docs/ns3.md) on the BetaRED dumbbell,
against the same AQM in aqmlab's own simulator, and, for the AQMs ns-3 also has (drop tail,
RED, ARED, PIE, CoDel, COBALT), against ns-3's own queue disc.

The two comparisons separate what the ordinary validation mixes. Bridge against ns-3's own
queue disc: the same TCP and network, two AQM codes, so a difference is the AQM's port.
Bridge against aqmlab: the same AQM code, two simulators, so a difference is TCP and the
network. The runs share the ordinary validation's cases, scenario files and metrics (`suite`);
the bridge runs use the program built with the AqmlabQueueDisc (`program.program(bridge=True)`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ... import _core
from ...engine.outdir import atomic_write, write_file
from ...engine.store import RunStore
from .. import common
from ..common import Comparison, Job, Outcome
from .program import Program
from .suite import METRICS, Case, Grid, ns3_args, run_aqmlab, run_id, run_ns3

PAGE = "validation-ns3-bridge.md"
DOCS_PAGE = common.ROOT / "docs" / PAGE

BRIDGE_AQMS: tuple[str, ...] = tuple(
    name for name in _core.catalog()["aqms"] if name not in _core.catalog()["flow_queueing"]
)
"""Every AQM the bridge runs: the single-queue AQMs of the registry, in its order."""
NATIVE_AQMS = ("droptail", "red", "ared", "pie", "codel", "cobalt")
"""The AQMs ns-3.37 has its own queue disc for, mapped as in the ordinary validation."""


@dataclass(frozen=True)
class Programs:
    """The ns-3 program builds: ns-3's own queue discs, and the one with the bridge."""

    native: Program
    bridge: Program


def grid(quick: bool, aqms: Sequence[str] | None = None) -> Grid:
    """Scenario 1 with every AQM of `BRIDGE_AQMS` (or those of `aqms`; ValueError, one line, for
    another name): quick, N in {50, 200}, 20 s runs measured over 10–20 s, seeds 1–2; full, N
    in {50, 200, 800}, 50 s runs measured over 25–50 s, seeds 1–3."""
    chosen = BRIDGE_AQMS if aqms is None else tuple(aqms)
    unknown = [a for a in chosen if a not in BRIDGE_AQMS]
    if unknown or not chosen:
        got = ", ".join(unknown) if unknown else "nothing"
        raise ValueError(f"--aqm: must name AQMs among {', '.join(BRIDGE_AQMS)}; got {got}")
    if quick:
        cases = tuple(Case(1, aqm, n, 20.0, 10.0) for n in (50, 200) for aqm in chosen)
        return Grid(cases, {1: (1, 2)}, 1800.0)
    cases = tuple(Case(1, aqm, n, 50.0, 25.0) for n in (50, 200, 800) for aqm in chosen)
    return Grid(cases, {1: (1, 2, 3)}, 6 * 3600.0)


def bridge_run_id(case: Case, seed: int, side: str, progs: Programs) -> str:
    """The ordinary validation's run ids for the `ns3` and `aqmlab` sides (so a store holding
    both validations shares them), and `<case>-s<seed>-bridge-<digest>` for the bridge, whose
    digest covers the bridge build (the AQM code included) and the run's arguments."""
    if side != "bridge":
        return run_id(case, seed, side, progs.native)
    key = f"ns-3 bridge program {progs.bridge.digest}\n" + " ".join(ns3_args(case, seed, True))
    return f"{case.case_id}-s{seed}-bridge-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def all_jobs(g: Grid) -> list[Job]:
    """The ns-3 runs, the costliest first (bridge and ns-3's own queue discs), then aqmlab's."""
    ns3 = [(c, s, "bridge") for c in g.cases for s in g.seeds(c)]
    ns3 += [(c, s, "ns3") for c in g.cases for s in g.seeds(c) if c.aqm in NATIVE_AQMS]
    ns3.sort(key=lambda j: -j[0].flows * j[0].duration_s)
    return ns3 + [(c, s, "aqmlab") for c in g.cases for s in g.seeds(c)]


def execute(
    out: Path,
    g: Grid,
    jobs: int,
    progs: Programs,
    on_done: Callable[[str, float], None] | None = None,
) -> Outcome:
    """Run the grid's missing runs on `jobs` threads and store each one as it finishes."""

    def do(job: Job) -> dict[str, Any]:
        case, seed, side = job
        if side == "aqmlab":
            done = run_aqmlab(case, seed)
        else:
            prog = progs.bridge if side == "bridge" else progs.native
            done = run_ns3(prog.path, case, seed, g.timeout_s, bridge=side == "bridge")
        return {"side": side, "case": asdict(case), "seed": seed, **done}

    def rid(case: Case, seed: int, side: str) -> str:
        return bridge_run_id(case, seed, side, progs)

    return common.execute(out, all_jobs(g), rid, do, jobs, on_done)


Rows = list[tuple[Case, list[Comparison]]]


def comparisons(store: RunStore, g: Grid, progs: Programs) -> dict[str, Rows]:
    """Three comparisons from the stored runs, each as (reference, compared) sides: the bridge
    against aqmlab (`bridge-aqmlab`), ns-3's own queue disc against the bridge
    (`ns3-bridge`), and ns-3's own against aqmlab (`ns3-aqmlab`, the ordinary validation)."""

    def rows(ref: str, other: str, cases: Sequence[Case]) -> Rows:
        def rid(case: Case, seed: int, side: str) -> str:
            return bridge_run_id(case, seed, ref if side == "ns3" else other, progs)

        return common.compare(store, [(c, g.seeds(c)) for c in cases], rid, "ns3", METRICS)

    native = [c for c in g.cases if c.aqm in NATIVE_AQMS]
    return {
        "bridge-aqmlab": rows("bridge", "aqmlab", g.cases),
        "ns3-bridge": rows("ns3", "bridge", native),
        "ns3-aqmlab": rows("ns3", "aqmlab", native),
    }


INTRO = """\
# aqmlab's AQMs inside ns-3: cross-validation through the bridge

<!-- Generated by `aqmlab validate ns3 --bridge`; edit the generator
(python/aqmlab/validate/ns3/bridge.py), not this page. -->

The ordinary validation ([validation-ns3.md](validation-ns3.md)) runs each AQM as ns-3's own
queue disc and as aqmlab's code in aqmlab's simulator: a difference there can be the AQM's
port, TCP or the network. Here every single-queue aqmlab AQM also runs *inside ns-3*, as the
AqmlabQueueDisc ([ns3.md](ns3.md)), on the same dumbbell with the same arguments. That gives
two cleaner comparisons:

- **bridge vs aqmlab**: the same AQM code in two simulators. A difference is TCP and the
  network, not the AQM. This is the only check at all for the AQMs ns-3 lacks (BetaRED,
  ABetaRED, DBetaRED, REM, PI, IAPI, the neural schemes, self-tuning RED, step marking).
- **ns-3's queue disc vs bridge**: the same TCP and network, two AQM codes. A difference is
  the AQM's port. Expected: within tolerance or within ns-3's seed spread.

Each cell reads: reference mean (± half its range over the seeds) / compared mean, the
relative difference, and the verdict, with the tolerances of the ordinary validation. What the
cells outside tolerance show is discussed on [validation-ns3.md](validation-ns3.md), section
"aqmlab's AQMs inside ns-3: the cross-validation".
"""


SUMMARY_ROWS = (
    ("bridge-aqmlab", "bridge vs aqmlab", "TCP and the network"),
    ("ns3-bridge", "ns-3's queue disc vs bridge", "the AQM's port"),
    ("ns3-aqmlab", "ns-3's queue disc vs aqmlab", "both (the ordinary validation)"),
)


SECTIONS = (
    ("bridge-aqmlab", "Bridge (reference) vs aqmlab, every AQM", True),
    ("ns3-bridge", "ns-3's own queue disc (reference) vs the bridge", True),
    ("ns3-aqmlab", "ns-3's own queue disc (reference) vs aqmlab, the same cases", False),
)
"""The page's sections after the summary: comparison, heading, whether it has a per-metric
summary table."""


def page(tables: dict[str, Rows], g: Grid, quick: bool, builds: str) -> str:
    seeds = ", ".join(map(str, g.seeds_by_scenario[1]))
    ns = sorted({c.flows for c in g.cases})
    c0 = g.cases[0]
    grid_text = (
        f"Grid: BetaRED scenario 1 (constant N, 50 Mb/s bottleneck), N in "
        f"{{{', '.join(map(str, ns))}}}, {c0.duration_s:g} s runs measured over "
        f"{c0.window_start_s:g}–{c0.duration_s:g} s, seeds {seeds}, "
        f"{'the quick grid' if quick else 'the full grid'}. Runs: {builds}."
    )
    sections = [
        INTRO,
        grid_text,
        "",
        "## Summary",
        "",
        "| comparison | what differs | verdicts |",
        "|---|---|---|",
        *(
            f"| {title} | {differs} | "
            f"{common.verdict_counts(tables[name]).removeprefix('Verdicts: ')} |"
            for name, title, differs in SUMMARY_ROWS
        ),
        "",
    ]
    for name, heading, with_summary in SECTIONS:
        sections += [f"## {heading}", ""]
        if with_summary:
            sections += [common.summary_table(tables[name], METRICS), ""]
        sections += [common.markdown_table(tables[name], METRICS), ""]
    return "\n".join(sections)


def long_table(tables: dict[str, Rows]) -> str:
    """CSV: one line per comparison, case and metric."""
    out = ["comparison,case,metric,reference,reference_spread,compared,rel_diff,tolerance,verdict"]
    for name, rows in tables.items():
        for case, comps in rows:
            for c in comps:
                out.append(
                    f"{name},{case.case_id},{c.metric},{c.ref:.6g},{c.ref_spread:.6g},"
                    f"{c.aqmlab:.6g},{c.rel_diff:.6g},{common.TOLERANCES[c.metric].text()},"
                    f"{c.verdict}"
                )
    return "\n".join(out) + "\n"


def write_outputs(
    out: Path, g: Grid, quick: bool, progs: Programs, docs_page: Path | None = None
) -> tuple[Path, str]:
    """Write `validation-ns3-bridge.md` and its CSV table (one line per case, comparison and
    metric) from the stored runs, the page also to `docs_page` when given; returns (page
    path, the bridge-vs-aqmlab table)."""
    store = RunStore(out)
    tables = comparisons(store, g, progs)
    builds = (
        f"{common.aqmlab_build()}, the ns-3 program build {progs.native.digest} and its bridge "
        f"build {progs.bridge.digest}"
    )
    text = page(tables, g, quick, builds)
    write_file(out / PAGE, text)
    write_file(out / PAGE.replace(".md", ".csv"), long_table(tables))
    if docs_page is not None:
        atomic_write(docs_page, text)
    return out / PAGE, common.markdown_table(tables["bridge-aqmlab"], METRICS)
