"""A tuning problem: an experiment with its AQM pinned to the tuned one, the parameters and the
objectives; the runs of one set of parameter values (a trial: the experiment's remaining grid
of loads and seeds) and the objectives averaged over them."""

from __future__ import annotations

import hashlib
import math
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..engine.store import RunStore
from ..sweeps.experiment import Experiment, ExperimentError, RunSpec, format_value
from .errors import TuneError
from .space import Objective, Param

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

AQM_KEY = "queue.aqm"
RERUN_SEEDS = (1, 2, 3, 4, 5)
"""The seeds the chosen points are run again with."""


def pin_aqm(experiment: Experiment, aqm: str) -> Experiment:
    """The experiment with every run on `aqm`: `queue.aqm` fixed to it, an axis over
    `queue.aqm` alone dropped (whether or not it lists `aqm`), an axis that sets `queue.aqm`
    with other keys cut to its values for `aqm`; no traces or kept tables."""
    fixed = tuple((k, v) for k, v in experiment.fixed if k != AQM_KEY) + ((AQM_KEY, aqm),)
    axes = []
    for axis in experiment.axes:
        if AQM_KEY not in axis.keys:
            axes.append(axis)
            continue
        if len(axis.keys) == 1:
            continue
        i = axis.keys.index(AQM_KEY)
        kept = tuple(v for v in axis.values if isinstance(v, tuple) and v[i] == aqm)
        if not kept:
            others = ", ".join(k for k in axis.keys if k != AQM_KEY)
            raise TuneError(
                f"{experiment.path.name}: axis '{axis.name}' sets queue.aqm together with "
                f"{others}, and none of its values runs {aqm}"
            )
        axes.append(replace(axis, values=kept))
    return replace(experiment, fixed=fixed, axes=tuple(axes), traces=False, tables=())


def _literal(param: Param, value: float) -> Any:
    return int(round(value)) if param.integer else float(value)


@dataclass(frozen=True)
class Problem:
    """What a study tunes, on which runs, for which objectives."""

    aqm: str
    source: Experiment
    """The experiment as loaded (for titles and notes)."""
    experiment: Experiment
    """The experiment the trials run: `pin_aqm(source, aqm)`."""
    params: tuple[Param, ...]
    objectives: tuple[Objective, ...]

    @classmethod
    def build(
        cls,
        aqm: str,
        experiment: Experiment,
        params: Sequence[Param],
        objectives: Sequence[Objective],
    ) -> Problem:
        """Check that the study can run: no axis of the experiment sets a tuned parameter,
        every run of the default point and of each end of each range is a valid scenario,
        the tuned AQM is the one the runs' ports use, and every objective is defined for
        these runs. Raises `TuneError` (or `ExperimentError`), one line."""
        pinned = pin_aqm(experiment, aqm)
        for param in params:
            for axis in pinned.axes:
                if param.key in axis.keys:
                    raise TuneError(
                        f"--param {param.name}: axis '{axis.name}' of {experiment.path.name} "
                        f"sets {param.key}; tune another parameter or use another experiment"
                    )
        problem = cls(aqm, experiment, pinned, tuple(params), tuple(objectives))
        specs = problem.specs()
        problem._check_ports(specs)
        problem._check_objectives(specs)
        for param in params:
            for end in (param.low, param.high):
                try:
                    problem.specs({param.name: end})
                except ExperimentError as e:
                    raise TuneError(f"--param {param.name}: at {end:g}, {e}") from None
        return problem

    def specs(
        self, values: Mapping[str, float] | None = None, seeds: Sequence[int] | None = None
    ) -> list[RunSpec]:
        """The runs of one point: the tuned parameters at `values` (the experiment's own values
        for those left out; all of them with None: the default point), over the experiment's
        grid and seeds (or `seeds`). Raises `ExperimentError` for an invalid scenario."""
        by_name = {p.name: p for p in self.params}
        extra = tuple(
            (by_name[name].key, _literal(by_name[name], v)) for name, v in (values or {}).items()
        )
        exp = replace(self.experiment, fixed=self.experiment.fixed + extra)
        if seeds is not None:
            exp = replace(exp, seeds=tuple(seeds))
        return exp.runs()

    def default_values(self) -> dict[str, Any]:
        """The values the tuned parameters take in the experiment's own runs (its files, else
        the registry's defaults)."""
        scenario = tomllib.loads(self.specs()[0].scenario_text)
        table = scenario.get("queue", {}).get(self.aqm, {})
        return {p.name: table.get(p.name, p.default) for p in self.params}

    def grid_text(self) -> str:
        """The runs of a trial in words: `N_max ∈ {200, 800, 1200}, seed 1`."""
        parts = [
            f"{a.label or a.name} ∈ {{{', '.join(format_value(v) for v in a.values)}}}"
            for a in self.experiment.axes
        ]
        seeds = self.experiment.seeds
        parts.append(f"seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}")
        return ", ".join(parts)

    def runs_per_point(self) -> int:
        return len(self.experiment.grid()) * len(self.experiment.seeds)

    def fingerprint(self) -> str:
        """SHA-256 of the default point's resolved scenarios and seeds: what makes two studies
        run the same experiment."""
        digest = hashlib.sha256()
        for spec in self.specs():
            digest.update(f"{spec.scenario_text}\n#seed={spec.seed}\n".encode())
        return digest.hexdigest()

    def score(self, specs: Sequence[RunSpec], store: RunStore) -> tuple[list[float] | None, str]:
        """The objectives (in order) averaged over `specs`, or None and why not: a run not
        stored (it failed) or an objective undefined (NaN) in one of them."""
        per_objective: list[list[float]] = [[] for _ in self.objectives]
        for spec in specs:
            if not store.has(spec.run_id):
                return None, f"run {spec.run_id} failed"
            summary = store.read(spec.run_id)["summary"]
            for values, objective in zip(per_objective, self.objectives):
                value = summary.get(objective.metric)
                if value is None or not math.isfinite(float(value)):
                    where = ", ".join(f"{k}={format_value(v)}" for k, v in spec.params.items())
                    return None, f"{objective.metric} is undefined in run {spec.run_id} ({where})"
                values.append(float(value))
        return [statistics.fmean(v) for v in per_objective], ""

    def score_by_seed(
        self, specs: Sequence[RunSpec], store: RunStore
    ) -> dict[int, list[float] | None]:
        """`score` of each seed's runs."""
        seeds = sorted({s.seed for s in specs})
        return {seed: self.score([s for s in specs if s.seed == seed], store)[0] for seed in seeds}

    def _check_ports(self, specs: Sequence[RunSpec]) -> None:
        """A chain's or network's link may set its own queue; it must not take the runs off
        the tuned AQM or hold a tuned parameter fixed."""
        names = {p.name for p in self.params}
        for spec in specs[:1]:
            links = tomllib.loads(spec.scenario_text).get("topology", {}).get("links", [])
            for i, link in enumerate(links):
                for side in ("queue", "reverse_queue"):
                    table = link.get(side, {}) if isinstance(link, Mapping) else {}
                    if table.get("aqm", self.aqm) != self.aqm:
                        raise TuneError(
                            f"{self.source.path.name}: topology.links[{i}].{side} sets its own "
                            f"AQM ({table['aqm']}); tuning sets queue.aqm, which that port "
                            "does not follow"
                        )
                    held = sorted(names & set(table.get(self.aqm, {})))
                    if held:
                        raise TuneError(
                            f"{self.source.path.name}: topology.links[{i}].{side} sets "
                            f"{self.aqm}.{held[0]} itself; tune another parameter"
                        )

    def _check_objectives(self, specs: Sequence[RunSpec]) -> None:
        """Objectives that no run of this experiment can define: the probes' round-trip
        times without latency probes, the settling time without a target queue."""
        name = self.source.path.name
        for spec in specs:
            scenario = tomllib.loads(spec.scenario_text)
            groups = scenario.get("traffic", {}).get("groups", [])
            probes = any(
                isinstance(g, Mapping) and g.get("source", {}).get("kind") == "probe"
                for g in groups
            )
            target = scenario.get("measure", {}).get("target_queue_pkts")
            for objective in self.objectives:
                if objective.metric.startswith("probe_rtt") and not probes:
                    raise TuneError(
                        f"--objective {objective}: the runs of {name} send no latency probes "
                        '(traffic.groups with source.kind = "probe"), so it is undefined'
                    )
                if objective.metric == "settle_time_s" and not target:
                    raise TuneError(
                        f"--objective {objective}: the runs of {name} set no "
                        "measure.target_queue_pkts, so it is undefined"
                    )
