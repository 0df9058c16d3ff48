"""One tile per metric: the range's total against its previous range (``previous_range``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from analytics.usage.metrics import METRIC_LABELS, METRICS, format_change, format_value


@dataclass(frozen=True)
class Kpi:
    metric: str
    label: str
    value: float
    previous: float | None
    change: float | None  # relative change; None when the previous period has no usage

    @property
    def value_text(self) -> str:
        return format_value(self.value, self.metric)

    @property
    def change_text(self) -> str:
        return format_change(self.change)


def relative_change(value: float, before: float | None) -> float | None:
    """The change from ``before`` to ``value`` as a fraction; None when there is nothing to
    compare against (no value before, or zero)."""
    return None if not before else (value - before) / before


def kpis(current: Mapping[str, float], previous: Mapping[str, float] | None) -> list[Kpi]:
    """One tile per metric with its change against the previous range.

    The change is N/A when there is no previous range or the metric was zero then: a
    percentage of nothing tells an admin nothing. A previous range without usage shows its
    zeros, as the capacity comparison and the report do (unknown is N/A, zero is 0).
    """
    tiles = []
    for metric in METRICS:
        before = None if previous is None else previous.get(metric)
        change = relative_change(current[metric], before)
        tiles.append(Kpi(metric, METRIC_LABELS[metric], current[metric], before, change))
    return tiles
