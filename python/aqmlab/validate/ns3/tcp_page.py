"""The parts of the `aqmlab validate ns3` page that the TCP grid adds (`--tcp`): which grid
ran, and how each congestion control maps onto ns-3.37 (generated from `tcp_cases.TCPS`, so
it always matches what ran)."""

from __future__ import annotations

from .suite import Case, Grid
from .tcp_cases import BY_NAME, TCP_FLOWS


def ccs(g: Grid) -> list[str]:
    """The congestion controls of the grid's cases, in order."""
    return list(dict.fromkeys(c.cc for c in g.cases))


def is_tcp_grid(g: Grid) -> bool:
    return any(c.cc != "cubic" for c in g.cases)


def grid_text(g: Grid, quick: bool) -> str:
    def seeds(c: Case) -> str:
        n = len(g.seeds(c))
        return f"{n} seed{'s' if n > 1 else ''}"

    c = g.cases[0]
    per_cc = "; ".join(
        f"{cc} through {', '.join(a for a in dict.fromkeys(x.aqm for x in g.cases if x.cc == cc))}"
        for cc in ccs(g)
    )
    name = "quick TCP grid" if quick else "full TCP grid"
    return (
        f"The {name}: scenario 1 (constant N = {c.flows}, {c.duration_s:g} s runs measured "
        f"over {c.window_start_s:g}–{c.duration_s:g} s, {seeds(c)} on each side) with each "
        f"congestion control: {per_cc}. A case without a congestion control in its name is "
        "CUBIC's, the same case as the AQM grid's."
    )


NOTE = f"""\
Each congestion control runs on both sides with everything else of the `ns3` TCP preset
unchanged (SACK, PRR, timestamps, delayed ACKs, initial window 10, MinRto 1 s). N = {TCP_FLOWS}:
through drop tail the 1000-packet buffer holds about 950 packets, so each flow's window is
about (150 + 950) / {TCP_FLOWS} = 22 segments, large enough for the algorithms' growth and
decrease rules to differ, at about 30 s per 50 s ns-3 run."""


def mapping_section(g: Grid) -> str:
    """The table of the grid's congestion controls: aqmlab name → ns-3 type and settings."""
    lines = [
        "## Congestion controls: aqmlab → ns-3",
        "",
        "From `python/aqmlab/validate/ns3/tcp_cases.py`: the program gets `--tcp=<type>` "
        "(`TcpL4Protocol::SocketType`), `--ecn` (`TcpSocketBase::UseEcn` On) when the resolved "
        "scenario has `tcp.ecn = true`, `--pacing` (`TcpSocketState::EnablePacing`) when it "
        "has `tcp.pacing = true` or the algorithm runs paced in ns-3, and the attributes "
        "listed; aqmlab runs the case with the settings listed.",
        "",
        "| tcp.cc | ns-3.37 type | attributes | aqmlab settings | ECN | pacing | AQMs |",
        "|---|---|---|---|---|---|---|",
    ]
    for cc in ccs(g):
        row = BY_NAME[cc]
        attrs = ", ".join(f"`{n}={v}`" for n, v in row.attributes) or "–"
        own = ", ".join(f"`{n} = {v}`" for n, v in row.sets) or "–"
        aqms = ", ".join(dict.fromkeys(c.aqm for c in g.cases if c.cc == cc))
        lines.append(
            f"| {cc} | `ns3::{row.type_id}` | {attrs} | {own} | {'on' if row.ecn else 'off'} | "
            f"{'on' if row.paces else 'off'} | {aqms} |"
        )
    return "\n".join([*lines, "", NOTE])
