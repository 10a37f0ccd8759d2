"""The ns-3 program of the validation: its sources (`validation/ns3/`), the toolchain that builds
it (g++ against Debian's `libns3-dev`), the build, cached per source digest in `target/ns3/`
(or the user's cache outside a checkout), and `AQMLAB_NS3_PROGRAM`, a ready program to run
instead."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ...data import VALIDATION
from ..common import ROOT, ValidationError, in_checkout

NS3_DIR = VALIDATION / "ns3"
PROGRAM_SOURCE = NS3_DIR / "betared_dumbbell.cc"
PROGRAM_HEADERS = (NS3_DIR / "aqm_setup.h", NS3_DIR / "dumbbell_probes.h")
BUILD_DIR = (
    ROOT / "target" / "ns3"
    if in_checkout()
    else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "aqmlab" / "ns3"
)
"""Where the ns-3 program is built: the checkout's `target/`, else the user's cache."""

PROGRAM_ENV = "AQMLAB_NS3_PROGRAM"
INCLUDE_ENV = "NS3_INCLUDE_DIR"
CXX_ENV = "CXX"
INSTALL = "install it with: apt-get install libns3-dev g++"
LIBS = (
    "-lns3-nix-vector-routing",
    "-lns3-applications",
    "-lns3-traffic-control",
    "-lns3-point-to-point",
    "-lns3-internet",
    "-lns3-network",
    "-lns3-core",
)
CXX_FLAGS = ("-O2", "-std=c++17")
BRIDGE_QUEUE_DISC = ROOT / "ns3" / "aqmlab-queue-disc.cc"
BRIDGE_INCLUDE = ROOT / "crates" / "capi" / "include"
BRIDGE_SOURCES = (
    BRIDGE_QUEUE_DISC,
    ROOT / "ns3" / "aqmlab-queue-disc.h",
    BRIDGE_INCLUDE / "aqmlab.h",
)
BRIDGE_LIBRARY = ROOT / "target" / "release" / "libaqmlab.a"
"""The bridge's C library, linked statically so that a build keeps the AQM code it was made
with (its bytes are in the build's digest)."""
BRIDGE_FLAGS = ("-DAQMLAB_BRIDGE",)
BRIDGE_SYSTEM_LIBS = ("-lpthread", "-ldl", "-lm")
BUILD_TIMEOUT_S = 900.0

# ---------------------------------------------------------------------------------------------
# the ns-3 program: found, built, run


@dataclass(frozen=True)
class Toolchain:
    cxx: str
    include_dir: Path

    def version_text(self) -> str:
        return (self.include_dir / "ns3" / "version-defines.h").read_text(errors="replace")


def find_ns3() -> Toolchain:
    """The compiler and the ns-3 headers; ValidationError with the install hint when either is
    missing."""
    include_dir = Path(os.environ.get(INCLUDE_ENV) or "/usr/include")
    for header in ("core-module.h", "version-defines.h", "pie-queue-disc.h"):
        if not (include_dir / "ns3" / header).is_file():
            raise ValidationError(f"ns-3 not found (no {include_dir / 'ns3' / header}); {INSTALL}")
    cxx_name = os.environ.get(CXX_ENV) or "g++"
    cxx = shutil.which(cxx_name)
    if cxx is None:
        raise ValidationError(f"ns-3 not found (no C++ compiler `{cxx_name}` on PATH); {INSTALL}")
    return Toolchain(cxx, include_dir)


def check_tools() -> None:
    """ns-3's headers and the compiler are there (ValidationError with the install hint
    otherwise), unless `AQMLAB_NS3_PROGRAM` names a ready program."""
    if not os.environ.get(PROGRAM_ENV):
        find_ns3()


def program_sources() -> tuple[Path, ...]:
    return (PROGRAM_SOURCE, *PROGRAM_HEADERS)


def source_digest(tools: Toolchain, bridge: bool = False) -> str:
    """Covers the program's sources, the compiler flags and libraries, and ns-3's version; for
    the bridge build also the bridge's sources and the C library it links."""
    h = hashlib.sha256()
    for path in program_sources():
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(" ".join((*CXX_FLAGS, *LIBS)).encode() + b"\0" + tools.version_text().encode())
    if bridge:
        for path in (*BRIDGE_SOURCES, BRIDGE_LIBRARY):
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        h.update(" ".join(BRIDGE_FLAGS).encode())
    return h.hexdigest()[:12]


def build(tools: Toolchain, build_dir: Path = BUILD_DIR, bridge: bool = False) -> Path:
    """The compiled program, built now unless a build of the same sources exists; with
    `bridge`, the build that also has the AqmlabQueueDisc (`--aqm=aqmlab`)."""
    stem = "betared_dumbbell_bridge" if bridge else "betared_dumbbell"
    target = build_dir / f"{stem}-{source_digest(tools, bridge)}"
    if target.is_file() and os.access(target, os.X_OK):
        return target
    build_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    units = [str(PROGRAM_SOURCE)]
    flags = [*CXX_FLAGS, f"-I{tools.include_dir}"]
    libs = list(LIBS)
    if bridge:
        units.append(str(BRIDGE_QUEUE_DISC))
        flags += [*BRIDGE_FLAGS, f"-I{BRIDGE_INCLUDE}", f"-I{BRIDGE_QUEUE_DISC.parent}"]
        libs = [str(BRIDGE_LIBRARY), *libs, *BRIDGE_SYSTEM_LIBS]
    cmd = [tools.cxx, *flags, *units, "-o", str(tmp), *libs]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
        if done.returncode != 0:
            errors = [line for line in done.stderr.splitlines() if "error" in line]
            first = (errors or done.stderr.strip().splitlines() or ["no message"])[0]
            raise ValidationError(
                f"building the ns-3 program failed ({first.strip()}); is libns3-dev 3.37 "
                f"installed? {INSTALL}"
            )
        os.replace(tmp, target)
    except subprocess.TimeoutExpired:
        raise ValidationError(
            f"building the ns-3 program took over {BUILD_TIMEOUT_S:g} s"
        ) from None
    finally:
        tmp.unlink(missing_ok=True)
    return target


def build_c_library() -> None:
    """aqmlab's C library (`crates/capi`), built with cargo in the checkout (the bridge needs
    it); ValidationError outside a checkout or when cargo fails."""
    if not in_checkout():
        raise ValidationError(
            "the ns-3 bridge is built from aqmlab's repository checkout (crates/capi, ns3/)"
        )
    cargo = (
        os.environ.get("CARGO") or shutil.which("cargo") or str(Path.home() / ".cargo/bin/cargo")
    )
    try:
        done = subprocess.run(
            [cargo, "build", "--release", "--quiet", "-p", "aqmlab-capi"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ValidationError(f"building aqmlab's C library failed ({e})") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise ValidationError(f"building aqmlab's C library failed ({last.strip()})")


@dataclass(frozen=True)
class Program:
    """The ns-3 program to run and the digest that names its build in run ids."""

    path: Path
    digest: str


def program(bridge: bool = False) -> Program:
    """`AQMLAB_NS3_PROGRAM` when set (named by the digest of its bytes), else the build for the
    current sources (made now if needed; named by the source digest); with `bridge`, the build
    with the AqmlabQueueDisc, whose C library is built first (`AQMLAB_NS3_PROGRAM` names a
    bridge build then)."""
    given = os.environ.get(PROGRAM_ENV)
    if given:
        path = Path(given)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ValidationError(f"{PROGRAM_ENV}={given}: not an executable file")
        return Program(path.resolve(), hashlib.sha256(path.read_bytes()).hexdigest()[:12])
    tools = find_ns3()
    if bridge:
        build_c_library()
    return Program(build(tools, bridge=bridge), source_digest(tools, bridge))
