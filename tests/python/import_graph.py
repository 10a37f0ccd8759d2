"""The import graphs of the Python package and of each Rust crate, and the circles in them.

Python: a module depends on every module of the package it imports (`from . import x`,
`from .a.b import c`, `import aqmlab.x`), also inside functions, since a circle through a lazy
import is still a circle of the design. Rust: a module (a file under `src/`) depends on every
module of the same crate a `crate::` or `super::` path in its code names (`use` lines and
paths in expressions alike), comments and test modules (`mod tests`, `tests.rs`) left out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

Graph = Mapping[str, set[str]]


def python_graph(package: Path) -> dict[str, set[str]]:
    """Module name (`aqmlab.cli.run`) -> the package modules it imports."""
    root = package.parent
    names = {_py_name(p, root): p for p in package.rglob("*.py")}
    compiled = {  # extension modules (`_core.cpython-311-x86_64-linux-gnu.so`): leaves
        _py_name(p.with_name(p.name.split(".")[0] + ".py"), root)
        for p in [*package.rglob("*.so"), *package.rglob("*.pyd")]
    }
    graph: dict[str, set[str]] = {name: set() for name in compiled}
    known = set(names) | compiled
    for name, path in names.items():
        is_package = path.name == "__init__.py"
        here = name if is_package else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(here, node.module, node.level)
                # `from .a import b`: module a.b when b is one, else a itself
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
                ]
            else:
                continue
            deps.update(t for t in targets if t in known and t != name)
        graph[name] = deps
    return graph


def _py_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(here: str, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    base = here.split(".")
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
TEST_MODULE = re.compile(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", re.S)
PATH = re.compile(r"\b(crate|super)((?:::\w+)+|::\{)")


def rust_graph(src: Path) -> dict[str, set[str]]:
    """Module path (`tcp::sender`) -> the modules of the crate its code names."""
    modules = {_rs_name(p, src): p for p in src.rglob("*.rs") if p.name != "tests.rs"}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        code = COMMENT.sub("", path.read_text(encoding="utf-8"))
        cut = TEST_MODULE.search(code)
        code = code[: cut.start()] if cut else code
        here = name.split("::") if name else []
        deps = set()
        for prefix, rest in _paths(code):
            start = [] if prefix == "crate" else here[:-1]
            parts = start + rest
            for i in range(len(parts), 0, -1):  # the longest prefix that is a module
                candidate = "::".join(parts[:i])
                if candidate in modules:
                    if candidate != name and not name.startswith(candidate + "::"):
                        deps.add(candidate)
                    break
        graph[name] = deps
    return graph


def _rs_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return "::".join(parts)


def _paths(code: str) -> Iterable[tuple[str, list[str]]]:
    """Every `crate::…`/`super::…` path of the code, `use` groups (`a::{b, c::d}`) expanded."""
    for m in PATH.finditer(code):
        prefix, tail = m.group(1), m.group(2)
        if tail == "::{":
            yield from ((prefix, p) for p in _group(code, m.end() - 1))
        else:
            parts = tail.strip(":").split("::")
            if code[m.end() : m.end() + 3] == "::{":
                yield from ((prefix, parts + p) for p in _group(code, m.end() + 2))
            else:
                yield prefix, parts


def _group(code: str, brace: int) -> list[list[str]]:
    """The paths of the `{...}` group opening at `brace`."""
    depth, i = 0, brace
    while True:
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        if depth == 0:
            break
        i += 1
    out = []
    for item in _split_top(code[brace + 1 : i]):
        item = item.strip()
        if not item or item == "self":
            continue
        head, sep, rest = item.partition("::{")
        parts = [p for p in head.split(" as ")[0].split("::") if p]
        if sep:
            out += [parts + p for p in _group("{" + rest, 0)]
        else:
            out.append(parts)
    return out


def _split_top(text: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += {"{": 1, "}": -1}.get(c, 0)
        if c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def circles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def private_imports(package: Path) -> list[str]:
    """`module: name` for every private name (`_x`) a module imports from a module of another
    folder of the package (`from ..engine.result import _json_safe`)."""
    root = package.parent
    packages = {_py_name(p, root) for p in package.rglob("__init__.py")}
    found = []
    for path in package.rglob("*.py"):
        name = _py_name(path, root)
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = _absolute(here, node.module, node.level)
            folder = base if base in packages else base.rpartition(".")[0]
            if folder == here or base.split(".")[0] != package.name:
                continue
            found += [
                f"{name}: {base}.{a.name}"
                for a in node.names
                if a.name.startswith("_") and a.name != "_core"
            ]
    return sorted(found)
