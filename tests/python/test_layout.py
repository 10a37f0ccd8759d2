"""The house keeps its rooms: the Python package holds only subpackages, nothing imports in a
circle (Python modules, and each crate's `crate::`/`super::` paths), and only public names
cross from one folder of the package to another (`import_graph` reads the code)."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_graph import circles, private_imports, python_graph, rust_graph

from conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "python" / "aqmlab"
CRATES = sorted(p.parent for p in (REPO_ROOT / "crates").glob("*/src"))


def test_the_package_holds_only_subpackages():
    loose = sorted(
        p.name
        for p in PACKAGE.iterdir()
        if p.suffix == ".py" and p.name not in ("__init__.py", "__main__.py")
    )
    assert loose == []
    folders = [p for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert sorted(p.name for p in folders if not (p / "__init__.py").is_file()) == []
    assert {p.name for p in folders} >= {
        "cli", "data", "engine", "model", "papers", "present", "sweeps", "validate",
    }  # fmt: skip


def test_no_python_module_imports_in_a_circle():
    assert circles(python_graph(PACKAGE)) == []


def test_only_public_names_cross_folders():
    assert private_imports(PACKAGE) == []


@pytest.mark.parametrize("crate", CRATES, ids=lambda p: p.name)
def test_no_rust_module_uses_another_in_a_circle(crate: Path):
    assert circles(rust_graph(crate / "src")) == []


def test_the_checks_find_circles(tmp_path):
    """The graph readers see what they must (so that the tests above can fail)."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .sub.b import g\n")
    (pkg / "sub" / "b.py").write_text("from ..a import f\nfrom ..a import _hidden\n")
    assert circles(python_graph(pkg)) == [["pkg.a", "pkg.sub.b"]]
    assert private_imports(pkg) == ["pkg.sub.b: pkg.a._hidden"]
    src = tmp_path / "src"
    (src / "net").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod net;\npub mod x;\n")
    (src / "x.rs").write_text("use crate::net::{port::Port, self};\n")
    (src / "net" / "mod.rs").write_text("pub mod port;\n")
    (src / "net" / "port.rs").write_text("// use crate::x;\npub fn f() { crate::x::g(); }\n")
    assert circles(rust_graph(src)) == [["net::port", "x"]]
