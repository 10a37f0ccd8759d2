"""The papers aqmlab reproduces, by name. Each lives in its own subpackage, whose `paper` module
defines `PAPER` (a `base.Paper`); the catalog finds it by name when asked, so the
framework never imports a paper and a paper imports only the framework."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from ..sweeps.experiment import ExperimentError

if TYPE_CHECKING:
    from .base import Paper

NAMES = ("betared", "li2014", "chen2011")
"""The papers, as `aqmlab reproduce PAPER` names them."""


def paper(name: str) -> Paper:
    """The paper called `name`; `ExperimentError` (one line) for an unknown one."""
    if name not in NAMES:
        raise ExperimentError(f"unknown paper '{name}' (available: {', '.join(NAMES)})")
    return import_module(f"{__package__}.{name}.paper").PAPER
