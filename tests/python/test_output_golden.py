"""The files `aqmlab run` writes do not change under performance work: every file of a run
folder (the nine Parquet tables, with and without rows, the CSV copies and summary.json),
hashed, for scenarios with one port and several, with finite flows and without, at the largest
seed. The bytes depend on the versions of pyarrow and pandas, which the Makefile pins. The
digests were taken with the writer that built every table as a pandas DataFrame; the `run`
command now writes from the core's columns without pandas (docs/architecture.md, "Start-up and
output"). The output-folder marker is left out of the digest since it lists the files (its
format changed when it began to); the data files hashed are byte-identical to those the digests
were first taken on, but for the latency probes' table and summary columns, the flow-queueing
counters of the per-port table and the new `[queue]` tables (the shaper's, the priority
bands', the new AQMs') and the `[tcp]` keys added since in
the resolved scenario: the digests
were taken again when each was added, every other value unchanged (`test_engine_golden.py`
leaves the additions out and keeps its digests).
`python tests/python/test_output_golden.py` prints them."""

import hashlib
import os
from pathlib import Path

import pytest

from aqmlab.engine.outdir import MARKER
from conftest import REPO_ROOT

FINITE_FLOWS = """
name = "finite"
duration_s = 4.0
[topology]
bottleneck_rate_mbps = 10.0
[queue]
aqm = "codel"
[[traffic.groups]]
name = "bulk"
[traffic.groups.schedule]
kind = "constant"
flows = 5
[[traffic.groups]]
name = "web"
[traffic.groups.source]
kind = "finite"
size = { kind = "pareto", mean_bytes = 30000.0, shape = 1.5 }
[traffic.groups.schedule]
kind = "poisson"
rate_per_s = 20.0
"""

CASES = [
    ("betared/scenario2.toml", ["duration_s=5"], "0", "70c5418bc95cf97f"),
    (
        "betared/scenario1.toml",
        ["duration_s=3", "queue.aqm=betared"],
        "18446744073709551615",
        "629c897e6f1013c1",
    ),
    (
        "li2014/table15_16_two_bottlenecks.toml",
        ["duration_s=2", "queue.aqm=pi"],
        "3",
        "99bdb3f09f9a6256",
    ),
    (
        "chen2011/dumbbell.toml",
        ["duration_s=6", "traffic.schedule.flows=50"],
        "2",
        "16161279e7cb2112",
    ),
    (FINITE_FLOWS, ["measure.cwnd_flows=[]"], "5", "8dea56d9cdcca8fb"),
    (
        "li2014/table14_tcp_with_udp_onoff.toml",
        ["duration_s=2", "queue.aqm=rem"],
        "1",
        "cc74c783001df117",
    ),
]
"""(scenario, overrides, seed, digest): finite flows and an empty cwnd table in the fifth; three
ports in the third; the largest seed in the second."""


def digest(out_dir: Path) -> str:
    """One hash over the names and bytes of every file in `out_dir` but the output-folder
    marker (`aqmlab.engine.outdir.MARKER`, which lists the files and names the aqmlab version)."""
    h = hashlib.sha256()
    for path in sorted(out_dir.iterdir()):
        if path.is_file() and path.name != MARKER:
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def written(path: str, sets: list[str], seed: str, tmp_dir: Path) -> str:
    """Run the scenario (a file under experiments/, or a scenario's text) with `aqmlab run` and
    return the digest of the folder it wrote. The scenario is named by a relative path (it is
    recorded in summary.json), from the repository or from `tmp_dir`."""
    from aqmlab.cli.main import main

    if "\n" in path:
        (tmp_dir / "scenario.toml").write_text(path, encoding="utf-8")
        cwd, file = tmp_dir, "scenario.toml"
    else:
        cwd, file = REPO_ROOT, f"experiments/{path}"
    args = ["run", file, "--out", str(tmp_dir / "out"), "--quiet", "--seed", seed, "--csv"]
    for item in sets:
        args += ["--set", item]
    before = os.getcwd()
    try:
        os.chdir(cwd)
        assert main(args) == 0
    finally:
        os.chdir(before)
    return digest(tmp_dir / "out")


@pytest.mark.parametrize(("path", "sets", "seed", "expected"), CASES)
def test_run_folder_is_unchanged(path, sets, seed, expected, tmp_path):
    assert written(path, sets, seed, tmp_path) == expected


if __name__ == "__main__":
    import tempfile

    for path, sets, seed, _ in CASES:
        with tempfile.TemporaryDirectory() as d:
            print(
                path.splitlines()[1] if "\n" in path else path, written(path, sets, seed, Path(d))
            )
