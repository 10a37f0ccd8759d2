"""The files `aqmlab run` writes do not change under performance work: every file of a run
folder (the nine Parquet tables, with and without rows, the CSV copies and summary.json),
hashed, for scenarios with one port and several, with finite flows and without, at the largest
seed. The output-folder marker is left out of the digest since it lists the files.

Each case holds two digests. The first is of the folder as written: the core writes the
Parquet and CSV files (crate `aqmlab-tables`). The second is of the same folder with every
Parquet file read back by pandas and written again by pyarrow from the DataFrame, the writer
that wrote every file before the core did: it equals the digest taken with that writer, so the
tables' columns, types and values, and the CSV bytes, are what they were. Those digests were
taken again when a table, a column or a resolved-scenario key was added (the latency probes,
the flow-queueing counters, the `[queue]` and `[tcp]` keys, the summary's
`link_transmissions`), every other value unchanged (`test_engine_golden.py` leaves the
additions out), once when every result changed: the event order of
docs/architecture.md, "The event order", and the fifth case's when ports that are not in
order came to make their ends of transmission late, which changes its event count in
summary.json and nothing else (`crates/sim/src/simulator/shortcut_tests.rs`), and every
case's when senders alone on their hosts came to take their acknowledgements early, which
changes the event count in summary.json and in summary.parquet and nothing else (every file
read back with the event count left out was the same before and after). The bytes of the
second digest depend on the versions of pyarrow and pandas, which the Makefile pins.
`python tests/python/test_output_golden.py` prints both."""

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
    ("betared/scenario2.toml", ["duration_s=5"], "0", "d931a70334c165cb", "378342825d2e515a"),
    (
        "betared/scenario1.toml",
        ["duration_s=3", "queue.aqm=betared"],
        "18446744073709551615",
        "3b4b398d6268af42",
        "f6b547e4faad2449",
    ),
    (
        "li2014/table15_16_two_bottlenecks.toml",
        ["duration_s=2", "queue.aqm=pi"],
        "3",
        "71f62184a2f51d43",
        "eca9b7db9f0eae12",
    ),
    (
        "chen2011/dumbbell.toml",
        ["duration_s=6", "traffic.schedule.flows=50"],
        "2",
        "5ea352e6068d83dc",
        "ecd96617d2d506eb",
    ),
    (FINITE_FLOWS, ["measure.cwnd_flows=[]"], "5", "ee67337dc3632501", "a9fd5ec056f58ab9"),
    (
        "li2014/table14_tcp_with_udp_onoff.toml",
        ["duration_s=2", "queue.aqm=rem"],
        "1",
        "d98ad12f908063b5",
        "5923754036d430e0",
    ),
]
"""(scenario, overrides, seed, digest as written, digest with the DataFrame writer's Parquet):
finite flows and an empty cwnd table in the fifth; three ports in the third; the largest seed
in the second."""


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


def rewritten_by_dataframe(out_dir: Path) -> str:
    """Read every Parquet file of `out_dir` with pandas, write it again from the DataFrame with
    pyarrow, and return the folder's digest."""
    import pandas as pd

    from aqmlab.engine.parquet import parquet_bytes

    for path in out_dir.glob("*.parquet"):
        path.write_bytes(parquet_bytes(pd.read_parquet(path)))
    return digest(out_dir)


@pytest.mark.parametrize(("path", "sets", "seed", "expected", "by_dataframe"), CASES)
def test_run_folder_is_unchanged(path, sets, seed, expected, by_dataframe, tmp_path):
    assert written(path, sets, seed, tmp_path) == expected
    assert rewritten_by_dataframe(tmp_path / "out") == by_dataframe


if __name__ == "__main__":
    import tempfile

    for path, sets, seed, _, _ in CASES:
        with tempfile.TemporaryDirectory() as d:
            name = path.splitlines()[1] if "\n" in path else path
            now = written(path, sets, seed, Path(d))
            print(name, now, rewritten_by_dataframe(Path(d) / "out"))
