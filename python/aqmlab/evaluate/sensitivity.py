"""RFC 7928 §4.3's parameter sensitivity (`experiments/rfc7928/sensitivity.toml`): each
scalable parameter of each AQM halved and doubled, the others at their defaults, and the
relative change of the queueing delay and the goodput against the same seed's run with every
default (docs/evaluate.md).

A parameter is scaled when its default is a real number above 0 and its unit is one of time,
rate, packets or none (sizes in bytes, integers, switches and choices are left alone); a
scaled value the AQM refuses is recorded in `refused` and not run."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .. import _core
from ..engine.scenario import Scenario
from ..sweeps.experiment import Experiment, RunSpec, run_id

FACTORS = (0.5, 2.0)
SCALED_UNITS = {"", "ms", "s", "1/s", "packets", "Hz"}


def scaled_parameters(aqm: str) -> list[tuple[str, float]]:
    """The (name, default) of the AQM's parameters that are halved and doubled."""
    out = []
    for p in _core.aqm_params(aqm):
        default = p["default"]
        if isinstance(default, float) and default > 0 and p["unit"] in SCALED_UNITS:
            out.append((p["name"], default))
    return out


def sensitivity_runs(
    exp: Experiment, aqms: Sequence[str]
) -> tuple[list[RunSpec], list[tuple[str, str, float, str]]]:
    """Every run: per AQM and seed one with every default (`parameter` "default", factor 1)
    and one per scaled parameter and factor. Also the refused variants as (aqm, parameter,
    factor, the core's message)."""
    scenario = Scenario(exp.scenario_text, source=str(exp.scenario_path))
    specs, refused = [], []
    for aqm in aqms:
        variants = [("default", 1.0, None)] + [
            (name, factor, default * factor)
            for name, default in scaled_parameters(aqm)
            for factor in FACTORS
        ]
        for name, factor, value in variants:
            for seed in exp.seeds:
                overrides = exp.overrides({"aqm": aqm}, seed)
                if value is not None:
                    overrides.append((f"queue.{aqm}.{name}", repr(float(value))))
                try:
                    text = scenario.with_literals(overrides).resolved()
                except _core.ScenarioError as e:
                    refused.append((aqm, name, factor, str(e)))
                    break
                params = {"aqm": aqm, "parameter": name, "factor": factor, "seed": seed}
                specs.append(RunSpec(run_id(text, seed), text, seed, params, True, exp.tables))
    return specs, refused


def with_changes(measures: pd.DataFrame) -> pd.DataFrame:
    """`measures` with `delay_change` and `goodput_change`: |x − x_default| / x_default
    against the same AQM's and seed's run with every default (NaN for those runs)."""
    if measures.empty:
        return measures
    base = measures[measures["parameter"] == "default"].set_index(["aqm", "seed"])
    out = measures.copy()
    pairs = (("queue_delay_mean_ms", "delay_change"), ("goodput_mbps", "goodput_change"))
    for metric, column in pairs:
        reference = out.set_index(["aqm", "seed"]).index.map(base[metric])
        change = (out[metric] - reference).abs() / reference
        out[column] = change.where(out["parameter"] != "default")
    return out
