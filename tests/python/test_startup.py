"""The `aqmlab` command imports what its subcommand needs: `run` has the core write its tables
(Parquet and CSV) and loads neither numpy nor pyarrow nor pandas nor matplotlib nor tqdm (off a
terminal), and `import aqmlab` loads no submodule until one of its names is used
(docs/architecture.md, "Start-up and output")."""

import ast
import subprocess
import sys

from conftest import REPO_ROOT

HEAVY = ("numpy", "pyarrow", "pandas", "matplotlib", "tqdm")


def _loaded_after(code: str) -> list[str]:
    """The heavy modules loaded once `code` has run in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
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


def test_help_loads_nothing_heavy():
    code = "from aqmlab.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    assert _loaded_after(code) == []


def test_package_names_load_on_first_use():
    assert _loaded_after("import aqmlab") == []
    assert "pandas" in _loaded_after("import aqmlab\naqmlab.model.orbit({'w': 0.1}, steps=3)")
    assert _loaded_after("from aqmlab import Scenario, run, RunResult, ScenarioError") == []
