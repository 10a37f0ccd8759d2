"""BENCHMARKS.md's sections: which ones `make bench` keeps, how one is read, and how the page
is written again with some of them new (benches/bench.py, bench_ns3.py, bench_reproduce.py)."""

from __future__ import annotations

import sys
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


def page_text() -> str:
    """BENCHMARKS.md as it is (a bare heading before the first `make bench`)."""
    return OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else "# Benchmarks\n"


def read_section(heading: str) -> str | None:
    """The `heading` section of BENCHMARKS.md as it is, if there is one."""
    return split_section(page_text(), heading)[1]


def rewrite_page(body: str | None = None, sections: dict[str, str] | None = None) -> None:
    """Write BENCHMARKS.md: `body` (else the page's own text outside the kept sections), then
    each kept section in `KEPT_HEADINGS`' order, the text `sections` gives for it or else the
    page's."""
    rest = page_text()
    kept = {}
    for heading in KEPT_HEADINGS:
        rest, kept[heading] = split_section(rest, heading)
    text = rest if body is None else body
    for heading in KEPT_HEADINGS:
        text = with_section(text, (sections or {}).get(heading, kept[heading]))
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(REPO_ROOT)}", file=sys.stderr)
