"""Period comparison for capacity reviews: this period against its previous period
(``calendar.previous_range``) and against the same days last year, per service and per key,
and the keys that drove the change.

Relative changes are NaN where the earlier value is zero (a percentage of nothing says
nothing), and a whole column is NaN when the data does not reach back to that period — unknown
is not the same as zero — or when there is no such period: a range longer than a year has no
same period last year (it would overlap the range itself).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pandas as pd

from analytics.usage import METRICS, labels, previous_range, range_last_year, range_text, within

DRIVER_COLUMNS = ["api_key", "api_key_label", "previous", "current", "change", "change %"]


@dataclass(frozen=True)
class Comparison:
    """Tables for one period ``start``–``end``.

    ``services``: one row per metric (index), columns ``current``, ``previous``, ``change``,
    ``change %``, ``last_year``, ``yoy change``, ``yoy %``.
    ``keys``: the same columns for ``metric`` with one row per key (``api_key``,
    ``api_key_label``), largest current usage first.
    """

    start: date
    end: date
    previous: tuple[date, date]
    last_year: tuple[date, date] | None  # None: the range is longer than a year
    metric: str
    services: pd.DataFrame
    keys: pd.DataFrame


def comparison_start(start: date, end: date) -> date:
    """The earliest day a comparison of ``start``–``end`` reads."""
    last_year = range_last_year(start, end)
    first = previous_range(start, end)[0]
    return first if last_year is None else min(first, last_year[0])


def comparison_text(comparison: Comparison) -> str:
    """What the range is compared with, as the page and the report say it."""
    last_year = (
        range_text(*comparison.last_year)
        if comparison.last_year
        else "none (the range is longer than a year)"
    )
    return f"previous period {range_text(*comparison.previous)} · last year {last_year}"


def _relative(now: pd.Series, before: pd.Series) -> pd.Series:
    return (now - before) / before.where(before != 0)


def _with_changes(current: pd.Series, previous: pd.Series, last_year: pd.Series) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "current": current,
            "previous": previous,
            "change": current - previous,
            "change %": 100 * _relative(current, previous),
            "last_year": last_year,
            "yoy change": current - last_year,
            "yoy %": 100 * _relative(current, last_year),
        }
    )


def compare(
    key_day: pd.DataFrame,
    start: date,
    end: date,
    metric: str = "total_characters",
    covered_from: date | None = None,
) -> Comparison:
    """Compare ``start``–``end`` with its previous period and the same period last year.

    ``key_day`` should reach back to ``comparison_start(start, end)``; periods starting
    before ``covered_from`` (the first day the data covers) are reported as unknown (NaN).
    """
    last_year = range_last_year(start, end)
    ranges = {
        "current": (start, end),
        "previous": previous_range(start, end),
        "last_year": last_year or (start, end),  # read, then unknown: no such period
    }
    parts = {name: within(key_day, *bounds) for name, bounds in ranges.items()}
    known = {
        name: covered_from is None or bounds[0] >= covered_from for name, bounds in ranges.items()
    }
    known["last_year"] = known["last_year"] and last_year is not None

    def service_sums(name: str) -> pd.Series:
        sums = parts[name][list(METRICS)].sum().astype(float)
        return sums if known[name] else sums * float("nan")

    names = labels(key_day)

    def key_sums(name: str) -> pd.Series:
        part = parts[name]
        sums = part[metric].groupby(part["api_key"].astype(str).to_numpy()).sum().astype(float)
        sums = sums.reindex(list(names), fill_value=0.0)
        return sums if known[name] else sums * float("nan")

    services = _with_changes(*(service_sums(name) for name in ranges))
    per_key = _with_changes(*(key_sums(name) for name in ranges))
    seen = per_key[["current", "previous", "last_year"]].fillna(0).sum(axis=1) > 0
    per_key = per_key[seen].rename_axis("api_key").reset_index()
    per_key.insert(1, "api_key_label", per_key["api_key"].map(names))
    per_key = per_key.sort_values(["current", "api_key"], ascending=[False, True])
    return Comparison(
        start=start,
        end=end,
        previous=ranges["previous"],
        last_year=last_year,
        metric=metric,
        services=services,
        keys=per_key.reset_index(drop=True),
    )


def growth_drivers(comparison: Comparison, n: int = 5) -> pd.DataFrame:
    """The ``n`` keys whose usage changed most against the previous period, in either
    direction, largest absolute change first (relative change alongside; NaN for new keys)."""
    keys = comparison.keys
    order = keys["change"].abs().sort_values(ascending=False, kind="stable").index
    top = keys.loc[order[:n]]
    return top[top["change"] != 0][DRIVER_COLUMNS].reset_index(drop=True)
