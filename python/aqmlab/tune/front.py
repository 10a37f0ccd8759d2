"""The Pareto front of a tuning study and its tables: every trial, the front with the default
parameters placed on it, and the chosen points run again with five seeds; `report.md`."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..engine.tables import render_table
from .space import Objective, Param

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_POINT = "default"


def _oriented(values: Sequence[float], objectives: Sequence[Objective]) -> list[float]:
    """Values turned so that lower is better for every objective."""
    return [-v if o.maximise else v for v, o in zip(values, objectives)]


def dominates(a: Sequence[float], b: Sequence[float], objectives: Sequence[Objective]) -> bool:
    """Whether objective values `a` are at least as good as `b` in every objective and better
    in one."""
    x, y = _oriented(a, objectives), _oriented(b, objectives)
    return all(p <= q for p, q in zip(x, y)) and any(p < q for p, q in zip(x, y))


def front_mask(points: Sequence[Sequence[float]], objectives: Sequence[Objective]) -> list[bool]:
    """Which points no other point dominates (the first of equal points only)."""
    mask = []
    for i, p in enumerate(points):
        beaten = any(
            dominates(q, p, objectives) or (j < i and list(q) == list(p))
            for j, q in enumerate(points)
            if j != i
        )
        mask.append(not beaten)
    return mask


def choose(front: pd.DataFrame, objectives: Sequence[Objective], count: int) -> list[int]:
    """Up to `count` trials of the front spread along it: sorted by the first objective (best
    first), the two ends and evenly spaced points between."""
    if count <= 0 or front.empty:
        return []
    first = objectives[0]
    order = front.sort_values(first.metric, ascending=not first.maximise, kind="stable")
    trials = [int(t) for t in order["trial"]]
    if len(trials) <= count:
        return trials
    if count == 1:
        return trials[:1]
    picks = sorted({round(i * (len(trials) - 1) / (count - 1)) for i in range(count)})
    return [trials[i] for i in picks]


def trials_table(
    study_trials: Sequence[Any],
    params: Sequence[Param],
    objectives: Sequence[Objective],
    failures: Mapping[int, str],
) -> pd.DataFrame:
    """One row per told trial: `trial`, `state`, the parameters, the objectives (NaN when it
    failed), `on_front`, `error`."""
    import pandas as pd

    rows = []
    for t in sorted(study_trials, key=lambda t: t.number):
        complete = t.values is not None and t.number not in failures
        row: dict[str, Any] = {"trial": t.number, "state": "complete" if complete else "failed"}
        row.update({p.name: t.params.get(p.name, math.nan) for p in params})
        for i, o in enumerate(objectives):
            row[o.metric] = float(t.values[i]) if complete else math.nan
        row["error"] = failures.get(t.number, "")
        rows.append(row)
    df = pd.DataFrame(rows, columns=_trial_columns(params, objectives))
    done = df["state"] == "complete"
    mask = front_mask(df.loc[done, [o.metric for o in objectives]].to_numpy().tolist(), objectives)
    df["on_front"] = False
    df.loc[df.index[done][mask], "on_front"] = True
    return df[[*_trial_columns(params, objectives)[:-1], "on_front", "error"]]


def _trial_columns(params: Sequence[Param], objectives: Sequence[Objective]) -> list[str]:
    return ["trial", "state", *(p.name for p in params), *(o.metric for o in objectives), "error"]


def pareto_table(
    trials: pd.DataFrame,
    default_values: Mapping[str, Any],
    default_scores: Sequence[float] | None,
    params: Sequence[Param],
    objectives: Sequence[Objective],
) -> pd.DataFrame:
    """The front (sorted by the first objective, best first) and a last row `default`: the
    experiment's own parameter values on the same runs. `dominated_by` counts the front's
    trials that dominate a row (0 on the front; for the default, 0 means the study found
    nothing better in every objective)."""
    import pandas as pd

    metrics = [o.metric for o in objectives]
    first = objectives[0]
    front = trials[trials["on_front"]].sort_values(
        first.metric, ascending=not first.maximise, kind="stable"
    )
    rows = []
    for _, r in front.iterrows():
        row = {"point": f"trial {int(r['trial'])}", "trial": int(r["trial"])}
        row.update({p.name: r[p.name] for p in params})
        row.update({m: r[m] for m in metrics})
        row["dominated_by"] = 0
        rows.append(row)
    row = {"point": DEFAULT_POINT, "trial": -1}
    row.update({p.name: default_values[p.name] for p in params})
    scores = list(default_scores) if default_scores is not None else [math.nan] * len(metrics)
    row.update(dict(zip(metrics, scores)))
    row["dominated_by"] = (
        sum(dominates(list(r[metrics]), scores, objectives) for _, r in front.iterrows())
        if default_scores is not None
        else -1
    )
    rows.append(row)
    return pd.DataFrame(rows)


def rerun_tables(
    points: Sequence[tuple[str, Mapping[str, Any], Sequence[float] | None]],
    by_seed: Sequence[Mapping[int, Sequence[float] | None]],
    params: Sequence[Param],
    objectives: Sequence[Objective],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The chosen points run again with each seed: a summary (per objective the value in the
    study, and the mean and sample standard deviation over the seeds, each seed's value
    averaged over the loads; `front_5_seeds`: no other rerun point dominates the means) and
    one row per point and seed."""
    import pandas as pd

    summary, long = [], []
    for (point, values, study_scores), seeds in zip(points, by_seed):
        row: dict[str, Any] = {"point": point}
        row.update({p.name: values[p.name] for p in params})
        done = [v for v in seeds.values() if v is not None]
        row["seeds"] = len(done)
        for i, o in enumerate(objectives):
            xs = [v[i] for v in done]
            row[f"{o.metric}_study"] = study_scores[i] if study_scores else math.nan
            row[f"{o.metric}_mean"] = statistics.fmean(xs) if xs else math.nan
            row[f"{o.metric}_std"] = statistics.stdev(xs) if len(xs) > 1 else math.nan
        summary.append(row)
        for seed, v in seeds.items():
            entry: dict[str, Any] = {"point": point, "seed": seed}
            entry.update({o.metric: (v[i] if v else math.nan) for i, o in enumerate(objectives)})
            long.append(entry)
    df = pd.DataFrame(summary)
    if not df.empty:
        means = df[[f"{o.metric}_mean" for o in objectives]].to_numpy().tolist()
        df["front_5_seeds"] = front_mask(means, objectives)
    return df, pd.DataFrame(long)


def fmt(value: Any, digits: int = 4) -> str:
    """A number with `digits` significant digits; NaN as n/a."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, (int,)) and not isinstance(value, bool):
        return str(value)
    return f"{float(value):.{digits}g}"


def plus_minus(mean: float, std: float, digits: int = 5) -> str:
    """`46.681 ± 0.073`: the mean to `digits` significant digits, the standard deviation to
    as many decimals."""
    if math.isnan(mean):
        return "n/a"
    magnitude = math.floor(math.log10(abs(mean))) if mean else 0
    decimals = max(0, digits - 1 - magnitude)
    spread = "n/a" if math.isnan(std) else f"{std:.{decimals}f}"
    return f"{mean:.{decimals}f} ± {spread}"


def _headers(params: Sequence[Param], objectives: Sequence[Objective]) -> list[str]:
    return ["point", *(p.name for p in params), *(str(o) for o in objectives)]


def front_text(
    pareto: pd.DataFrame, params: Sequence[Param], objectives: Sequence[Objective]
) -> str:
    """The front and the default point as a text table, and whether the front dominates the
    default."""
    rows = []
    for _, r in pareto.iterrows():
        cells = [r["point"], *(fmt(r[p.name]) for p in params)]
        rows.append([*cells, *(fmt(r[o.metric], 5) for o in objectives)])
    table = render_table(_headers(params, objectives), rows)
    default = pareto[pareto["point"] == DEFAULT_POINT]
    if default.empty or default["dominated_by"].iloc[0] < 0:
        return table + "\nthe default parameters: their runs failed"
    count = int(default["dominated_by"].iloc[0])
    if count == 0:
        return table + "\nthe default parameters: no trial of the study dominates them"
    trials = "trial" if count == 1 else "trials"
    return table + f"\nthe default parameters: dominated by {count} {trials} of the front"


def rerun_text(
    rerun: pd.DataFrame, params: Sequence[Param], objectives: Sequence[Objective]
) -> str:
    """The rerun summary as a text table: mean ± std over the seeds, and whether the point is
    on the front of the rerun points' means."""
    rows = []
    for _, r in rerun.iterrows():
        cells = [r["point"], *(fmt(r[p.name]) for p in params)]
        for o in objectives:
            cells.append(plus_minus(r[f"{o.metric}_mean"], r[f"{o.metric}_std"]))
        cells.append("yes" if r["front_5_seeds"] else "no")
        rows.append(cells)
    return render_table([*_headers(params, objectives), "front"], rows)


def _markdown(text_table: str) -> str:
    """A text table (`render_table`) as a Markdown table."""
    lines = text_table.splitlines()
    widths = [len(c) for c in lines[1].split("  ")]
    cuts, at = [], 0
    for w in widths:
        cuts.append((at, at + w))
        at += w + 2

    def cells(line: str) -> list[str]:
        return [line[a:b].strip() for a, b in cuts]

    out = ["| " + " | ".join(cells(lines[0])) + " |", "|" + "---|" * len(widths)]
    out += ["| " + " | ".join(cells(line)) + " |" for line in lines[2:]]
    return "\n".join(out)


def report(
    title: str,
    command: str,
    study_lines: Sequence[str],
    front: str,
    rerun: str,
    files: Sequence[str],
) -> str:
    """`report.md`: the study, the front with the default point, the rerun."""
    parts = [f"# {title}", "", f"`{command}`", "", *(f"- {line}" for line in study_lines)]
    table, _, note = front.partition("\nthe default")
    parts += ["", "## Pareto front", "", _markdown(table), "", f"The default{note}."]
    if rerun:
        parts += [
            "",
            "## The chosen points with seeds 1-5",
            "",
            "Mean ± standard deviation over the seeds, each seed's value the mean over the "
            "loads; `front`: no other point of this table dominates the means.",
            "",
            _markdown(rerun),
        ]
    parts += ["", "## Files", "", *(f"- `{name}`" for name in files), ""]
    return "\n".join(parts)
