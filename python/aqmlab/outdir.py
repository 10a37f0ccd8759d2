"""Output folders: aqmlab writes only into folders it made, and never deletes what it did not
write.

Every folder aqmlab writes holds a marker file, `.aqmlab.json`, naming what wrote it (`run`,
`sweep`, `reproduce`, `curves`, `model`). The rules, shared by every command:

- a path that is a file is refused;
- a folder that is not empty and holds no marker (nor an earlier aqmlab result) is refused;
- a folder written whole (`run`, `curves`, `model ...`) is built in a temporary sibling that
  replaces the old one only once complete, so an interrupted command leaves the earlier result
  intact; replacing an earlier result needs `overwrite`;
- a resumable folder (`sweep`, `reproduce`, `model bridge`) is resumed, and a folder of run
  figures (`plot`) added to, when it holds a result of the same kind; another kind of result
  needs `overwrite`, which clears it first.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from . import _core

MARKER = ".aqmlab.json"


RESUMABLE = ("sweep", "reproduce", "bridge", "plot", "validate")
"""Kinds whose folder is resumed or added to rather than replaced."""


class OutputError(ValueError):
    """An output location aqmlab must not or cannot write; the message is one line."""


def _marker_kind(path: Path) -> str | None:
    """The kind of aqmlab result in `path`, or None when it holds none.

    Folders from versions before the marker are recognised by their contents: a run's
    `summary.json` with an `aqmlab_version`, or a sweep's `runs/` folder of run records.
    """
    marker = path / MARKER
    if marker.is_file():
        try:
            kind = json.loads(marker.read_text(encoding="utf-8")).get("kind")
        except (OSError, ValueError, AttributeError):
            return None
        return kind if isinstance(kind, str) else None
    summary = path / "summary.json"
    if summary.is_file():
        try:
            if "aqmlab_version" in json.loads(summary.read_text(encoding="utf-8")):
                return "run"
        except (OSError, ValueError, TypeError):
            return None
    runs = path / "runs"
    if runs.is_dir() and all(p.suffix in (".json", ".parquet") for p in runs.iterdir()):
        return "sweep"
    return None


def _write_marker(path: Path, kind: str) -> None:
    text = json.dumps({"kind": kind, "aqmlab_version": _core.version()}, sort_keys=True)
    (path / MARKER).write_text(text + "\n", encoding="utf-8")


def _check_parent(path: Path, option: str) -> None:
    """The folder that will hold `path` exists (or can be made) and is writable."""
    parent = path.parent
    existing = parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(f"{option} {path}: '{existing}' is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {path}: cannot write in '{existing}' (permission denied)")


def check_target(
    path: str | os.PathLike[str], kind: str, overwrite: bool = False, option: str = "--out"
) -> Path:
    """Check that a result of `kind` may be written at `path` (see the module rules);
    raises `OutputError` with a one-line message naming `option` otherwise."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{option} {path}: is a file; give a folder for the results")
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise OutputError(f"{option} {path}: cannot write in this folder (permission denied)")
        if any(path.iterdir()):
            found = _marker_kind(path)
            if found is None:
                raise OutputError(
                    f"{option} {path}: folder is not empty and holds no aqmlab result; "
                    "choose a new or empty folder"
                )
            if not overwrite and not (found == kind and kind in RESUMABLE):
                raise OutputError(
                    f"{option} {path}: holds an earlier aqmlab {found} result; "
                    "pass --overwrite to replace it, or choose another folder"
                )
    _check_parent(path, option)
    return path


def open_resumable(
    path: str | os.PathLike[str], kind: str, overwrite: bool = False, option: str = "--out"
) -> Path:
    """Make `path` ready for a resumable result of `kind`: check it, clear an earlier result
    of another kind when `overwrite`, create it and write the marker."""
    path = check_target(path, kind, overwrite, option)
    if overwrite and path.is_dir() and _marker_kind(path) not in (None, kind):
        shutil.rmtree(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        _write_marker(path, kind)
    except OSError as e:
        raise OutputError(f"{option} {path}: cannot write: {e.strerror or e}") from None
    return path


@contextmanager
def staged(
    path: str | os.PathLike[str], kind: str, overwrite: bool = False, option: str = "--out"
) -> Iterator[Path]:
    """Write a result of `kind` whole: yields a temporary sibling folder to fill, which then
    replaces `path`. On any error the temporary folder is removed and `path` is untouched."""
    path = check_target(path, kind, overwrite, option)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.parent / f".{path.name}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
    except OSError as e:
        raise OutputError(f"{option} {path}: cannot write: {e.strerror or e}") from None
    try:
        yield tmp
        _write_marker(tmp, kind)
        _replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _replace(tmp: Path, path: Path) -> None:
    """Put the finished folder `tmp` at `path`, moving an earlier result aside first and
    deleting it only once the new one is in place."""
    old = path.parent / f".{path.name}.old-{os.getpid()}"
    shutil.rmtree(old, ignore_errors=True)
    if path.exists():
        path.rename(old)
    try:
        tmp.rename(path)
    except BaseException:
        if old.exists() and not path.exists():
            old.rename(path)
        raise
    shutil.rmtree(old, ignore_errors=True)
