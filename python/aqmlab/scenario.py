"""Scenario text plus `--set`-style overrides; validation happens in the Rust core."""

from __future__ import annotations

import json
import math
import numbers
import os
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from . import _core


def toml_literal(value: Any) -> str:
    """Render a Python value as a TOML literal (str quoted, bool lower case, float by repr)."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return "nan"
        if math.isinf(number):
            return "inf" if number > 0 else "-inf"
        return repr(number)
    if isinstance(value, str):
        # A JSON string is a valid TOML basic string (same escapes, \uXXXX included).
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        items = ", ".join(f"{json.dumps(str(k))} = {toml_literal(v)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    raise TypeError(f"cannot express {type(value).__name__} value {value!r} as a TOML literal")


class Scenario:
    """A scenario's TOML text, the overrides applied on top of it, and where it came from.

    Instances are immutable: `with_` and `with_literals` return new scenarios.
    """

    def __init__(
        self,
        text: str,
        overrides: Iterable[tuple[str, str]] = (),
        source: str | None = None,
    ) -> None:
        self._text = text
        self._overrides = tuple((str(k), str(v)) for k, v in overrides)
        self._source = source

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Scenario:
        """Read a scenario file; the path is kept as provenance."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return cls(text, source=os.fspath(path))

    @classmethod
    def from_text(cls, text: str) -> Scenario:
        """A scenario from TOML text with no source file."""
        return cls(text)

    @property
    def text(self) -> str:
        """The scenario text as written, before overrides."""
        return self._text

    @property
    def overrides(self) -> tuple[tuple[str, str], ...]:
        """(dotted key, TOML literal) pairs, applied in order."""
        return self._overrides

    @property
    def source(self) -> str | None:
        """The file the text was read from, or None."""
        return self._source

    def with_(self, mapping: Mapping[str, Any] | None = None, /, **kwargs: Any) -> Scenario:
        """A new scenario with extra overrides.

        Keys are dotted paths (`queue.aqm`); keyword names use `__` for dots
        (`queue__aqm="red"`). Values are Python values turned into TOML literals.
        """
        pairs = dict(mapping or {})
        pairs.update({k.replace("__", "."): v for k, v in kwargs.items()})
        return self.with_literals((k, toml_literal(v)) for k, v in pairs.items())

    def with_literals(self, pairs: Iterable[tuple[str, str]]) -> Scenario:
        """A new scenario with extra overrides whose values are already TOML text,
        as given on the command line (`--set queue.aqm=red`)."""
        return Scenario(self._text, self._overrides + tuple(pairs), self._source)

    def resolved(self) -> str:
        """The validated, canonical TOML with every default filled in.

        Raises `ScenarioError` naming the offending field.
        """
        return _core.resolve_scenario(self._text, list(self._overrides))

    def __repr__(self) -> str:
        origin = repr(self._source) if self._source else "<text>"
        return f"Scenario({origin}, overrides={list(self._overrides)!r})"
