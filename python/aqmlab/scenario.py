"""Scenario text plus `--set`-style overrides; validation happens in the Rust core."""

from __future__ import annotations

import json
import math
import numbers
import os
import sys
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from . import _core

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib


def read_toml_text(path: str | os.PathLike[str], what: str = "scenario") -> str:
    """The text of a TOML file, checked to be UTF-8 and valid TOML.

    Raises OSError when the file cannot be read and `ScenarioError` (one line naming the
    file, and the line and column of a syntax error) when it is not UTF-8 or not TOML.
    """
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _core.ScenarioError(
            f"{os.fspath(path)}: not a UTF-8 text file (byte 0x{data[e.start]:02x} at "
            f"offset {e.start}); save the {what} file as UTF-8"
        ) from None
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _core.ScenarioError(f"{os.fspath(path)}: TOML syntax error: {e}") from None
    return text


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
        """Read a scenario file; the path is kept as provenance.

        Raises OSError when the file cannot be read, `ScenarioError` when it is not UTF-8
        TOML (the keys are checked when the scenario is resolved or run).
        """
        return cls(read_toml_text(path), source=os.fspath(path))

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
        if mapping is not None and not isinstance(mapping, Mapping):
            raise TypeError(
                f"with_: expected a mapping of dotted keys to values, got {type(mapping).__name__}"
            )
        pairs = dict(mapping or {})
        pairs.update({k.replace("__", "."): v for k, v in kwargs.items()})
        for key in pairs:
            if not isinstance(key, str) or not key.strip():
                raise _core.ScenarioError(
                    f"with_: key {key!r}: must be a dotted key path string such as 'queue.aqm'"
                )
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

    def get(self, key: str) -> Any:
        """The resolved value of a dotted key, defaults included: `sc.get("queue.red.p_max")`
        or a whole table (`sc.get("tcp")`, as a dict). Raises `ScenarioError` for a key the
        resolved scenario does not have, or for an invalid scenario."""
        value: Any = tomllib.loads(self.resolved())
        walked = []
        for part in key.split("."):
            if not isinstance(value, dict) or part not in value:
                where = ".".join(walked) or "the top level"
                keys = ", ".join(sorted(value)) if isinstance(value, dict) else "none"
                raise _core.ScenarioError(f"{key}: no such key (keys at {where}: {keys})")
            value = value[part]
            walked.append(part)
        return value

    def __repr__(self) -> str:
        origin = repr(self._source) if self._source else "<text>"
        return f"Scenario({origin}, overrides={list(self._overrides)!r})"
