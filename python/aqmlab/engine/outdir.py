"""Output folders: aqmlab lists every file it writes, and never deletes or replaces a file it
did not list.

Every result folder holds a marker, `.aqmlab.jsonl`. Its first line names the kind of result
(`run`, `sweep`, `reproduce`, `validate`, `bridge`, `tune`, `plot`, `curves`, `model`) and the
aqmlab version; every further line is the path of a file aqmlab wrote there (relative, with
`/`). A folder is an aqmlab result only when it holds this marker: a `summary.json` or a `runs/`
folder does not make it one. The rules, shared by every command and the Python API:

- a path that is a file is refused, and so is a folder that is not empty and holds no marker;
- a result written whole (`run`, `curves`, `model ...`) is built in a temporary sibling
  folder. It then becomes a new or empty folder; into an earlier result (only with
  `overwrite`) it is merged: the files the old marker lists are replaced or removed, every
  other file stays where it is, and a new file whose path holds a file the old marker does not
  list is refused, naming it. Ctrl-C and SIGTERM wait until the merge is done, and a command
  that fails or is interrupted before it leaves the earlier result as it was;
- a resumable result (`sweep`, `reproduce`, `validate`, `bridge`, `tune`, `plot`) is resumed or
  added to when the folder holds one of the same kind; a result of another kind is replaced only
  with `overwrite`, which removes the files its marker lists and nothing else;
- figures drawn into a folder inside a run result (`aqmlab plot RUN_DIR` writes
  RUN_DIR/figures) are listed in the run's marker, so that replacing the run replaces them.

Files are written under a temporary name in their folder and renamed (`write_file`), and
listed in the marker before they are written: an interrupted write leaves at most a listed
name with no file, never an unlisted file of aqmlab's.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import _core

MARKER = ".aqmlab.jsonl"
LEGACY_MARKER = ".aqmlab.json"
"""The marker of versions that did not list their files; such a folder is refused."""

RESUMABLE = ("sweep", "reproduce", "bridge", "plot", "validate", "tune", "evaluate")
"""Kinds whose folder is resumed or added to rather than replaced."""

TEMP_TAG = ".aqmlab-tmp-"
"""Part of the name of a file being written: `.<name>.aqmlab-tmp-<pid>` beside `<name>`."""

Content = bytes | str | Callable[[Path], None]
"""What `write_file` writes: bytes, UTF-8 text, or a function that writes the given path."""


class OutputError(ValueError):
    """An output location aqmlab must not or cannot write; the message is one line."""


class Marker:
    """The marker of one result folder: its kind and the files aqmlab wrote there."""

    def __init__(self, root: Path, kind: str, files: Iterable[str] = ()) -> None:
        self.root = root
        self.kind = kind
        self.files: set[str] = set(files)

    @property
    def path(self) -> Path:
        return self.root / MARKER

    @classmethod
    def read(cls, root: Path, option: str = "--out") -> Marker | None:
        """The marker of `root`, None when it has none; `OutputError` for one that cannot be
        read or is from a version that did not list its files."""
        path = root / MARKER
        if not path.is_file():
            if (root / LEGACY_MARKER).is_file():
                raise OutputError(
                    f"{option} {root}: holds a result of an older aqmlab that did not list the "
                    "files it wrote; aqmlab will not guess which are its own: move that folder "
                    "aside or choose another"
                )
            return None
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
            head = json.loads(lines[0])
            kind = head["kind"]
            if not isinstance(kind, str):
                raise TypeError
        except (OSError, ValueError, IndexError, KeyError, TypeError):
            raise OutputError(
                f"{option} {root}: its marker {MARKER} cannot be read; move that folder aside "
                "or choose another"
            ) from None
        files = []
        for line in lines[1:]:
            try:
                name = json.loads(line)
            except ValueError:  # a line cut short by a crash: its file was not written
                continue
            if isinstance(name, str):
                files.append(name)
        return cls(root, kind, files)

    def save(self) -> None:
        """Write the whole marker (atomically)."""
        lines = [json.dumps({"aqmlab_version": _core.version(), "kind": self.kind}, sort_keys=True)]
        lines += [json.dumps(name) for name in sorted(self.files)]
        atomic_write(self.path, "\n".join(lines) + "\n")

    def claim(self, name: str) -> None:
        """List `name` (appended to the marker) before its file is written."""
        if name not in self.files:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(name) + "\n")
            self.files.add(name)


def result_kind(path: str | os.PathLike[str]) -> str | None:
    """The kind of aqmlab result `path` holds, None when it holds none (or is unreadable)."""
    try:
        marker = Marker.read(Path(path))
    except OutputError:
        return None
    return marker.kind if marker else None


def atomic_write(path: str | os.PathLike[str], content: Content) -> Path:
    """Write `content` to `path` under a temporary name in the same folder, then rename it;
    on any error the temporary file is removed and `path` is untouched. Lists nothing: for
    files the user named, and for `write_file`."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}{TEMP_TAG}{os.getpid()}")
    try:
        if callable(content):
            content(tmp)
        else:
            data = content.encode("utf-8") if isinstance(content, str) else content
            with open(tmp, "wb") as f:
                f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


_markers: dict[Path, tuple[tuple[int, int], Marker]] = {}
"""Markers read by `owner`, with the (size, mtime) they were read at."""


def owner(path: str | os.PathLike[str]) -> Marker | None:
    """The marker of the nearest folder above `path` that holds one, None when none does."""
    folder = Path(os.path.abspath(path)).parent
    for root in (folder, *folder.parents):
        try:
            stamp = _stamp(root / MARKER)
        except OSError:
            continue
        cached = _markers.get(root)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        marker = Marker.read(root)
        if marker is not None:
            _markers[root] = (stamp, marker)
            return marker
    return None


def _stamp(marker_path: Path) -> tuple[int, int]:
    """What tells whether a marker changed since it was read: its size and mtime."""
    st = marker_path.stat()
    return (st.st_size, st.st_mtime_ns)


def _run_around(path: Path) -> Marker | None:
    """The run result `path` lies inside, when `path` is no result of its own: figures
    drawn there belong to the run."""
    enclosing = owner(path)
    if enclosing is None or enclosing.kind != "run" or (path / MARKER).exists():
        return None
    return enclosing


def claim(path: str | os.PathLike[str]) -> Path:
    """List `path` in the marker of the result folder that holds it, before a file there is
    written by other means than `write_file` (a database that writes its own file), and make
    its folder. Raises `OutputError` when `path` is a file aqmlab did not list there, or lies
    in no result folder."""
    path = Path(path)
    marker = owner(path)
    if marker is None:
        raise OutputError(f"{path}: not inside an aqmlab result folder; nothing written")
    name = Path(os.path.abspath(path)).relative_to(os.path.abspath(marker.root)).as_posix()
    if name not in marker.files and (path.exists() or path.is_symlink()):
        raise OutputError(
            f"{marker.root}: '{name}' is not a file aqmlab wrote there; move it aside or "
            "choose another output folder"
        )
    marker.claim(name)
    _markers[marker.root] = (_stamp(marker.path), marker)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def write_file(path: str | os.PathLike[str], content: Content) -> Path:
    """Write a file of a result (see `atomic_write`), first listing it in the marker of the
    result folder that holds it. Raises `OutputError` when `path` is a file aqmlab did not
    list there, or lies in no result folder."""
    return atomic_write(claim(path), content)


def remove_stale_temporaries(folder: str | os.PathLike[str]) -> None:
    """Remove the temporary files an interrupted `write_file` left in `folder`: only those
    named after a file the result lists."""
    folder = Path(folder)
    marker = owner(folder / "x")
    if marker is None or not folder.is_dir():
        return
    for stale in folder.glob(f".*{TEMP_TAG}*"):
        listed = stale.name[1 : stale.name.rindex(TEMP_TAG)]
        name = (folder / listed).relative_to(marker.root).as_posix()
        if name in marker.files and stale.is_file():
            stale.unlink(missing_ok=True)


def _check_parent(path: Path, option: str) -> None:
    """The folder that will hold `path` exists (or can be made) and is writable."""
    existing = path.parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(f"{option} {path}: '{existing}' is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {path}: cannot write in '{existing}' (permission denied)")


def check_target(
    path: str | os.PathLike[str],
    kind: str,
    overwrite: bool = False,
    option: str = "--out",
    files: Iterable[str] = (),
) -> Path:
    """Check that a result of `kind` may be written at `path` (see the module rules), and
    that none of `files` (names the result will have, when known before the work) would
    replace a file aqmlab did not list there; raises `OutputError` with a one-line message
    naming `option` otherwise."""
    path = Path(path)
    if str(path) == "":
        raise OutputError(f"{option}: empty path; give a folder for the results")
    if path.exists() and not path.is_dir():
        raise OutputError(f"{option} {path}: is a file; give a folder for the results")
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise OutputError(f"{option} {path}: cannot write in this folder (permission denied)")
        if kind == "plot" and _run_around(path) is not None:
            return path  # each figure is checked as it is written (`write_file`)
        marker = Marker.read(path, option)
        if marker is None and any(path.iterdir()):
            raise OutputError(
                f"{option} {path}: folder is not empty and holds no aqmlab result (no {MARKER}); "
                "choose a new or empty folder"
            )
        if marker is not None and not overwrite and not (marker.kind == kind in RESUMABLE):
            raise OutputError(
                f"{option} {path}: holds an earlier aqmlab {marker.kind} result; pass "
                "--overwrite to replace the files aqmlab wrote there (other files are kept), "
                "or choose another folder"
            )
        if marker is not None:
            _refuse_foreign(path, files, marker.files, option)
    _check_parent(path, option)
    return path


def _refuse_foreign(root: Path, names: Iterable[str], listed: set[str], option: str) -> None:
    """`OutputError` naming the `names` whose path under `root` holds a file not `listed`."""
    foreign = sorted(n for n in names if n not in listed and _occupied(root, n, listed))
    if foreign:
        more = len(foreign) - 3
        shown = ", ".join(foreign[:3]) + (f" and {more} more" if more > 0 else "")
        raise OutputError(
            f"{option} {root}: holds files aqmlab did not write where the new result goes "
            f"({shown}); move them aside or choose another folder"
        )


@contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM until the block ends, then deliver them (main thread only:
    elsewhere Python delivers no signals anyway, and refuses a handler with ValueError)."""
    pending: list[int] = []

    def hold(signum: int, frame: object) -> None:
        pending.append(signum)

    held = (signal.SIGINT, signal.SIGTERM)
    try:
        old = {s: signal.signal(s, hold) for s in held}
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
        if pending:
            signal.raise_signal(pending[0])


def _remove_listed(marker: Marker, keep: Iterable[str] = ()) -> None:
    """Remove the files `marker` lists (but those in `keep`), and the folders that become
    empty by it; a listed path that is no longer a plain file is left alone."""
    keep = set(keep)
    emptied: set[Path] = set()
    for name in sorted(marker.files - keep):
        path = marker.root / name
        if path.is_file() and not path.is_symlink():
            path.unlink()
            emptied.update(p for p in path.parents if marker.root in p.parents)
    for folder in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def open_resumable(
    path: str | os.PathLike[str], kind: str, overwrite: bool = False, option: str = "--out"
) -> Path:
    """Make `path` ready for a resumable result of `kind`: check it, remove the files of an
    earlier result of another kind when `overwrite`, create it and write the marker. A folder
    inside a run result (`aqmlab plot RUN_DIR`) is made ready inside that run instead."""
    path = check_target(path, kind, overwrite, option)
    if kind == "plot" and _run_around(path) is not None:
        try:
            path.mkdir(exist_ok=True)
        except OSError as e:
            raise OutputError(f"{option} {path}: cannot write: {e.strerror or e}") from None
        return path
    try:
        marker = Marker.read(path, option) if path.is_dir() else None
        if marker is not None and marker.kind == kind:
            return path
        with signals_deferred():
            if marker is not None:
                _remove_listed(marker)
            path.mkdir(parents=True, exist_ok=True)
            Marker(path, kind).save()
    except OSError as e:
        raise OutputError(f"{option} {path}: cannot write: {e.strerror or e}") from None
    return path


def clear_result(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """Empty the resumable result at `path` of what aqmlab wrote there, to start it again
    (`--overwrite` given to a command whose folder holds another result of the same kind):
    the files its marker lists are removed, every other file stays, and the marker is kept
    with no files listed."""
    path = Path(path)
    marker = Marker.read(path, option) if path.is_dir() else None
    if marker is None:
        return path
    try:
        with signals_deferred():
            _remove_listed(marker)
            Marker(path, marker.kind).save()
    except OSError as e:
        raise OutputError(f"{option} {path}: cannot write: {e.strerror or e}") from None
    _markers.pop(Path(os.path.abspath(path)), None)
    return path


def _remove_tree(folder: Path) -> None:
    """Remove `folder`, a temporary folder of aqmlab's own, with what it holds; a link in it
    is removed, never followed. What cannot be removed stays (a leftover temporary folder
    harms nothing). Not `shutil.rmtree`: importing shutil (with bz2 and lzma) is a tenth of
    `aqmlab run`'s way to the core."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                _remove_tree(Path(entry.path))
            else:
                os.unlink(entry.path)
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


@contextmanager
def staged(
    path: str | os.PathLike[str], kind: str, overwrite: bool = False, option: str = "--out"
) -> Iterator[Path]:
    """Write a result of `kind` whole: yields a temporary sibling folder to fill, which then
    becomes `path` (see the module rules). On any error the temporary folder is removed and
    `path` is untouched."""
    path = check_target(path, kind, overwrite, option)
    tmp = path.parent / f".{path.name}{TEMP_TAG}{os.getpid()}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_tree(tmp)
        tmp.mkdir()
        Marker(tmp, kind).save()
    except OSError as e:
        raise OutputError(f"{option} {path}: cannot write: {e.strerror or e}") from None
    try:
        yield tmp
        with signals_deferred():
            _install(tmp, path, kind, option)
    finally:
        _remove_tree(tmp)


def _files_below(folder: Path) -> list[str]:
    """The files under `folder`, relative and `/`-separated, the marker left out."""
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.name != MARKER
    )


def _install(tmp: Path, path: Path, kind: str, option: str) -> None:
    """Put the finished result `tmp` at `path`: rename it there when `path` is new or empty,
    else merge it into the earlier result (checked by `check_target`)."""
    new = Marker(tmp, kind, _files_below(tmp))
    new.save()
    old = Marker.read(path, option) if path.is_dir() else None
    if old is None:
        if path.is_dir():
            path.rmdir()  # empty (checked), and os.rename onto it is not portable
        tmp.rename(path)
        return
    _refuse_foreign(path, new.files, old.files, option)
    Marker(path, kind, old.files | new.files).save()
    _remove_listed(old, keep=new.files)
    for name in sorted(new.files):
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp / name, target)
    Marker(path, kind, new.files).save()


def _occupied(root: Path, name: str, listed: set[str]) -> bool:
    """Whether writing `name` under `root` would replace something not listed: the file
    itself, or a file where one of its folders goes."""
    target = root / name
    if target.exists() or target.is_symlink():
        return True
    for folder in target.parents:
        if folder == root:
            return False
        rel = folder.relative_to(root).as_posix()
        if (folder.is_file() or folder.is_symlink()) and rel not in listed:
            return True
    return False
