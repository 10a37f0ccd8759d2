"""Scenario text plus `--set`-style overrides; validation happens in the Rust core."""

from __future__ import annotations

import codecs
import json
import math
import numbers
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping

from .. import _core, data

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_TOML_BYTES = 4 * 2**20
"""The largest scenario or experiment file read, bytes: far above any real one (a network of
a thousand links takes about 100 kB)."""

INT64 = (-(2**63), 2**63 - 1)
"""The range of TOML integers (the TOML specification: 64-bit signed)."""

_SYNTAX_AT = re.compile(r"^(?P<what>.*?)\s*\(at line (?P<line>\d+), column (?P<col>\d+)\)$")


def read_toml_text(path: str | os.PathLike[str], what: str = "scenario") -> str:
    """The text of a TOML file, checked to be a regular file of at most `MAX_TOML_BYTES`,
    UTF-8 (a leading byte-order mark is dropped) and valid TOML with 64-bit integers.

    Raises OSError when the file cannot be read and `ScenarioError` (one line naming the
    file, and the line and column of a syntax error or the key of a bad value) otherwise.
    Nothing that is not a regular file (a folder, a FIFO, /dev/zero) is read at all.
    """
    shown = os.fspath(path)
    if not str(shown).strip():
        raise _core.ScenarioError(f"{what} file: empty path; give the path of a {what} file")
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        article = "an" if what[:1] in "aeiou" else "a"
        raise _core.ScenarioError(f"{shown}: {kind}; give {article} {what} file (TOML)")
    too_big = _core.ScenarioError(
        f"{shown}: larger than {MAX_TOML_BYTES // 2**20} MiB, far more than any {what} file "
        "needs; is it the right file?"
    )
    if st.st_size > MAX_TOML_BYTES:
        raise too_big
    with open(path, "rb") as f:
        data = f.read(MAX_TOML_BYTES + 1)
    if len(data) > MAX_TOML_BYTES:
        raise too_big
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _core.ScenarioError(
            f"{shown}: not a UTF-8 text file (byte 0x{data[e.start]:02x} at "
            f"offset {e.start}); save the {what} file as UTF-8"
        ) from None
    # The core's parser first: valid text, the usual case, costs no Python TOML parser (whose
    # import alone is a fifth of `aqmlab run`'s start-up). Invalid text gets Python's parser's
    # messages, which name each integer beyond 64 bits by its key.
    error = _core.toml_syntax_error(text)
    if error is not None:
        check_toml(text, shown)
        raise _core.ScenarioError(f"{shown}: {error}")
    return text


def check_toml(text: str, where: str) -> dict[str, Any]:
    """Parse TOML text; `ScenarioError` naming `where` for a syntax error (with its line and
    column), nesting deeper than Python's parser goes, or an integer beyond 64 bits."""
    tomllib = _tomllib()
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        found = _SYNTAX_AT.match(str(e))
        at = f" at line {found['line']}, column {found['col']}" if found else ""
        what = found["what"] if found else str(e)
        raise _core.ScenarioError(f"{where}: TOML syntax error{at}: {what}") from None
    except RecursionError:
        raise _core.ScenarioError(
            f"{where}: TOML syntax error: arrays or tables nested too deeply (a scenario "
            "nests a few levels)"
        ) from None
    for key, value in _leaves(doc):
        if isinstance(value, int) and not INT64[0] <= value <= INT64[1]:
            raise _core.ScenarioError(
                f"{where}: {key}: integer {value} does not fit in 64 bits (TOML integers are "
                "-2^63..2^63-1)"
            )
    return doc


def _tomllib() -> Any:
    """Python's TOML parser, imported when first needed (`aqmlab run` reads a valid scenario
    without it)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11 only
        import tomli as tomllib
    return tomllib


def _leaves(doc: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Every value of a parsed TOML document that is not a table or array, with its dotted
    key path (`topology.links[0].rate_mbps`); iterative, so any nesting depth is fine."""
    stack: list[tuple[str, Any]] = [("", doc)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{key}.{k}" if key else str(k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{key}[{i}]", v) for i, v in enumerate(value))
        else:
            yield key, value


def _numpy_types() -> tuple[tuple[type, ...], tuple[type, ...]]:
    """numpy's bool and array types, none while numpy is not loaded (a numpy value implies it
    is), so that this module does not import numpy."""
    np = sys.modules.get("numpy")
    return ((np.bool_,), (np.ndarray,)) if np is not None else ((), ())


def toml_literal(value: Any) -> str:
    """Render a Python value as a TOML literal (str quoted, bool lower case, float by repr)."""
    numpy_bools, numpy_arrays = _numpy_types()
    if isinstance(value, (bool, *numpy_bools)):
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
    if isinstance(value, (list, tuple, *numpy_arrays)):
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
        """Read a scenario file, or a built-in scenario by name (`betared/scenario1`,
        `aqmlab.data.resolve`); the path as given is kept as provenance.

        Raises OSError when the file cannot be read, `ScenarioError` when it is not UTF-8
        TOML (the keys are checked when the scenario is resolved or run).
        """
        return cls(read_toml_text(data.resolve(path)), source=os.fspath(path))

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
        literals = []
        for key, value in pairs.items():
            if not isinstance(key, str) or not key.strip():
                raise _core.ScenarioError(
                    f"with_: key {key!r}: must be a dotted key path string such as 'queue.aqm'"
                )
            try:
                literals.append((key, toml_literal(value)))
            except TypeError:
                raise _core.ScenarioError(
                    f"{key}: {type(value).__name__} value {value!r:.60} has no TOML form; give a "
                    "number, string, bool, list or mapping"
                ) from None
        return self.with_literals(literals)

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
        """The resolved value of a dotted key, defaults included: `sc.get("queue.red.p_max")`,
        an array element (`sc.get("topology.links[0].rate_mbps")`) or a whole table
        (`sc.get("tcp")`, as a dict). Raises `ScenarioError` for a key the resolved scenario
        does not have, or for an invalid scenario."""
        if not isinstance(key, str) or not key.strip():
            raise _core.ScenarioError(
                f"get: key {key!r:.60}: must be a dotted key path string such as 'queue.red.p_max'"
            )
        steps = _core.key_path(key)  # the path as overrides read it (one parser)
        value: Any = _tomllib().loads(self.resolved())
        walked = ""
        for name, indices in steps:
            if not isinstance(value, dict) or name not in value:
                where = walked or "the top level"
                keys = ", ".join(sorted(value)) if isinstance(value, dict) else "none"
                raise _core.ScenarioError(f"{key}: no such key (keys at {where}: {keys})")
            value = value[name]
            walked += f".{name}" if walked else name
            for i in indices:
                if not isinstance(value, list) or i >= len(value):
                    size = f"{len(value)} elements" if isinstance(value, list) else "not an array"
                    raise _core.ScenarioError(f"{key}: no element {walked}[{i}] ({size})")
                value = value[i]
                walked += f"[{i}]"
        return value

    def __repr__(self) -> str:
        origin = repr(self._source) if self._source else "<text>"
        return f"Scenario({origin}, overrides={list(self._overrides)!r})"
