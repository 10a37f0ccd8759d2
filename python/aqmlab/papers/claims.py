"""A claim of a paper and our verdict on it, judged by an explicit criterion (`verdicts`), with
the same criterion applied to the paper's own numbers where it prints them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import verdicts as V


@dataclass
class Claim:
    """One claim of the paper and our verdict on it."""

    id: str
    figure: str
    source: str
    text: str
    criterion: str
    verdict: str = V.NOT_RUN
    evidence: str = ""
    against: list[str] = field(default_factory=list)
    reference: str = ""
    """The same criterion on the paper's own numbers, where it publishes them."""


def judged(
    claim: Claim,
    tally_of: Callable[[Any], V.Tally],
    ours: Any,
    paper: Any | None,
    unprinted: str,
) -> Claim:
    """`claim` with its verdict and evidence from `tally_of(ours)`, and, when the paper prints
    the numbers (`paper` not None), the same criterion's verdict on them as `reference`
    (`unprinted` otherwise)."""
    tally = tally_of(ours)
    claim.verdict = tally.verdict if tally.n else V.NOT_RUN
    claim.evidence = tally.summary()
    claim.against = tally.against
    if paper is None:
        claim.reference = unprinted
    else:
        ref = tally_of(paper)
        claim.reference = f"{ref.verdict} ({ref.agree} of {ref.n} agree, {ref.disagree} disagree)"
    return claim
