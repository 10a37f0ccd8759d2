"""The ranking of the AQMs in one RFC 7928 section by the section's stated criteria
(`aqmlab.evaluate.suite`): each criterion's measure is averaged over the section's runs (every
case has the same seeds, so each case weighs the same), the AQMs are ranked on each (1 the
best; equal values share the better rank), and the overall rank orders the mean of those
ranks, ties in the order the AQMs were given. A criterion no run of an AQM could measure
(NaN) leaves that AQM unranked on it; an AQM unranked on every criterion (drop tail has no
parameters to vary) has no rank and comes last."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .suite import Section


def rank(measures: pd.DataFrame, section: Section, aqms: Sequence[str]) -> pd.DataFrame:
    """One row per AQM: each criterion's mean and rank, the mean rank and the overall rank."""
    means = measures.groupby("aqm")[[c.metric for c in section.criteria]].mean()
    table = pd.DataFrame({"aqm": [a for a in aqms if a in means.index]})
    ranks = []
    for criterion in section.criteria:
        values = table["aqm"].map(means[criterion.metric])
        table[criterion.metric] = values
        column = f"rank_{criterion.metric}"
        table[column] = values.rank(method="min", ascending=criterion.better == "min")
        ranks.append(column)
    table["mean_rank"] = table[ranks].mean(axis=1, skipna=True)
    table["rank"] = table["mean_rank"].rank(method="min")
    return table.sort_values("rank", kind="stable", na_position="last").reset_index(drop=True)
