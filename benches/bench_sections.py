"""BENCHMARKS.md's sections: which ones `make bench` keeps, and how a section is taken out
of the page and put back at its end (benches/bench.py, bench_ns3.py, bench_reproduce.py)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
OUTPUT = REPO_ROOT / "BENCHMARKS.md"

NS3_HEADING = "## Side by side with ns-3.37"
REPRODUCTION_HEADING = "## Reproduction"
EARLIER_HEADING = "## Earlier figures"
KEPT_HEADINGS = (NS3_HEADING, REPRODUCTION_HEADING, EARLIER_HEADING)
"""Sections `make bench` keeps as they are: ns-3's timings (written by `bench_ns3.py`), the
reproduction timings (written by `--reproduce`) and figures of earlier versions (written by
hand)."""


def split_section(text: str, heading: str) -> tuple[str, str | None]:
    """`text` without the `heading` section (up to the next `## ` heading) and that section."""
    lines = text.splitlines()
    if heading not in lines:
        return text, None
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    rest = lines[:start] + lines[end:]
    section = "\n".join(lines[start:end]).rstrip("\n")
    return "\n".join(rest).rstrip("\n") + "\n", section


def with_section(text: str, section: str | None) -> str:
    """`text` with `section` appended at the end (nothing when None)."""
    text = text.rstrip("\n") + "\n"
    return text if section is None else f"{text}\n{section}\n"
