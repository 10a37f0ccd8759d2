"""The `aqmlab` command imports what its subcommand needs: `run` has the core write its tables
(Parquet and CSV) and loads neither numpy nor pyarrow nor pandas nor matplotlib nor tqdm (off a
terminal), nor the parsers of the other commands, nor, for a valid scenario, Python's TOML
parser or typing; and `import aqmlab` loads no submodule until
one of its names is used (docs/architecture.md, "Start-up and output")."""

import argparse
import ast
import subprocess
import sys

from aqmlab.cli.main import COMMAND_GROUPS, build_parser
from conftest import REPO_ROOT

HEAVY = ("numpy", "pyarrow", "pandas", "matplotlib", "tqdm")
OTHER_COMMANDS = (
    "aqmlab.cli.sweep",
    "aqmlab.cli.tune",
    "aqmlab.cli.model",
    "aqmlab.cli.validate",
    "aqmlab.cli.evaluate",
    "aqmlab.cli.inspect",
    "aqmlab.tune.space",
)
"""What `aqmlab run` has no use for: the other command groups and the tuner's search space."""


def _loaded_after(code: str, modules: tuple[str, ...] = HEAVY) -> list[str]:
    """Those of `modules` loaded once `code` has run in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {modules!r} if m in sys.modules))"
    proc = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return ast.literal_eval(proc.stdout.strip().splitlines()[-1])


def test_run_command_loads_no_pandas_matplotlib_or_tqdm(small_scenario_file, tmp_path):
    args = ["run", str(small_scenario_file), "--out", str(tmp_path / "out")]
    code = f"from aqmlab.cli import main\nassert main({args!r}) == 0"
    assert _loaded_after(code) == []
    assert (tmp_path / "out" / "flows.parquet").is_file()


def test_csv_copies_load_nothing_heavy_either(small_scenario_file, tmp_path):
    args = ["run", str(small_scenario_file), "--out", str(tmp_path / "out"), "--csv"]
    code = f"from aqmlab.cli import main\nassert main({args!r}) == 0"
    assert _loaded_after(code) == []
    assert (tmp_path / "out" / "flows.csv").is_file()


def test_run_command_reads_a_valid_scenario_without_tomllib_or_typing(
    small_scenario_file, tmp_path
):
    # The core checks the TOML; Python's parser (a fifth of the start-up with its regular
    # expressions) is imported only to word a syntax error, and typing only by type checkers.
    args = ["run", str(small_scenario_file), "--out", str(tmp_path / "out")]
    code = f"from aqmlab.cli import main\nassert main({args!r}) == 0"
    assert _loaded_after(code, ("tomllib", "tomli", "typing")) == []


def test_run_command_needs_neither_shutil_nor_threading(small_scenario_file, tmp_path):
    # shutil brings bz2 and lzma: argparse imports it to find the terminal's width (the
    # parser's formatter is given the width) and the output folder's clean-up does not use it.
    args = ["run", str(small_scenario_file), "--out", str(tmp_path / "out")]
    code = f"from aqmlab.cli import main\nassert main({args!r}) == 0"
    assert _loaded_after(code, ("shutil", "bz2", "lzma", "threading")) == []


def test_help_is_laid_out_as_argparse_lays_it_out_at_the_terminals_width(monkeypatch):
    for columns in (50, 120):
        monkeypatch.setenv("COLUMNS", str(columns))
        run = _commands(build_parser("run"))["run"]
        ours = run.format_help()
        run.formatter_class = argparse.HelpFormatter
        assert ours == run.format_help()
        assert max(len(line) for line in ours.splitlines()) <= columns - 2


def test_help_loads_nothing_heavy():
    code = "from aqmlab.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    assert _loaded_after(code) == []


def test_package_names_load_on_first_use():
    assert _loaded_after("import aqmlab") == []
    assert "pandas" in _loaded_after("import aqmlab\naqmlab.model.orbit({'w': 0.1}, steps=3)")
    assert _loaded_after("from aqmlab import Scenario, run, RunResult, ScenarioError") == []


def test_run_command_builds_its_own_parser_alone(small_scenario_file, tmp_path):
    args = ["run", str(small_scenario_file), "--out", str(tmp_path / "out")]
    code = f"from aqmlab.cli import main\nassert main({args!r}) == 0"
    assert _loaded_after(code, OTHER_COMMANDS) == []


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_a_command_parses_the_same_with_its_group_alone():
    everything = _commands(build_parser())
    listed = [name for names, _ in COMMAND_GROUPS for name in names]
    assert list(everything) == listed
    for names, _ in COMMAND_GROUPS:
        for name in names:
            alone = _commands(build_parser(name))
            assert list(alone) == list(names)
            assert alone[name].format_help() == everything[name].format_help()
    assert list(_commands(build_parser("--help"))) == listed


def test_the_installed_command_returns_mains_status_with_the_heap_frozen(
    small_scenario_file, tmp_path
):
    # `command` (the `aqmlab` program) exits with `main`'s status, and leaves what is alive
    # frozen, out of the collection Python's shutdown would run.
    args = ["run", str(small_scenario_file), "--out", str(tmp_path / "out")]
    code = (
        "import gc, sys\nfrom aqmlab.cli import command\n"
        f"sys.argv = ['aqmlab', *{args!r}]\n"
        "assert command() == 0\nassert gc.get_freeze_count() > 0\n"
        "sys.argv = ['aqmlab', 'run', 'no-such-file.toml']\nassert command() == 2"
    )
    assert _loaded_after(code, ()) == []
    assert (tmp_path / "out" / "flows.parquet").is_file()
