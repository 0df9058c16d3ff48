"""What-ifs a capacity meeting asks: "and if we grow 10 % more?", "and with the speech pilot?".

A **growth** percentage scales every forecast day, and so the forecast's whole range, from
the day the forecast starts: ``10%`` reads "usage 10 % above what the forecast expects".

A **planned workload** adds a fixed volume a month, from a month on (or from the forecast's
first day when no month is named), to the expected usage and to every point of its range
alike: a plan is not uncertain the way the history is. It is written as the meeting says it:
``2026-06:2000000 characters``, ``speech pilot 500 minutes a month``, ``2026-09: new team
1,500,000 characters``. Characters count as total characters, minutes as speech-to-text
minutes; each day of a month carries its share of the month's volume.

**Plausible what-ifs.** A what-if is taken as asked, whatever it is: a meeting may well ask
"and if we lose 95 %?". One outside a plausible range, a growth below −90 % or above
+1,000 %, or a workload larger than ten times today's usage of its metric (the last 30 closed
days), is more often a slip of the keyboard (−99 for −9, a missing decimal point) than a plan,
and it can turn the recommendation over on its own. ``warnings`` names each such what-if in a
sentence every front end shows, and the front ends show the plain forecast and recommendation
beside the what-ifs' (``decision.Decision.plain``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Final

import numpy as np

from analytics.capacity.forecasting.candidates import Floats
from analytics.usage import MINUTES, TOTAL_CHARACTERS, format_change, with_unit

UNITS: Final[dict[str, str]] = {
    "characters": TOTAL_CHARACTERS,
    "minutes": MINUTES,
}
_WORKLOAD = re.compile(
    r"(?:(?P<month>\d{4}-\d{2})\s*:)?\s*(?P<label>.*?)\s*"
    r"(?P<amount>\d[\d,_]*(?:\.\d+)?)\s+(?P<unit>characters|minutes)(?:\s+a\s+month)?",
    re.IGNORECASE,
)
_GROWTH = re.compile(r"(?P<value>[+-]?\d+(?:\.\d+)?)\s*%?")
# The plausible range of a growth (fractions, both ends plausible), and how many times today's
# monthly usage a workload may add before it is named (see the module).
PLAUSIBLE_GROWTH: Final = (-0.9, 10.0)
PLAUSIBLE_WORKLOAD_TIMES: Final = 10
TODAY_DAYS: Final = 30  # the closed days that say what a month's usage is today


class WhatIfError(ValueError):
    """A what-if that cannot be read; the message says what was expected."""


@dataclass(frozen=True)
class Workload:
    """A planned volume a month of one metric, from ``start`` (a month's first day) on."""

    metric: str
    per_month: float
    start: date | None = None
    label: str = ""

    def __str__(self) -> str:
        unit = next(unit for unit, metric in UNITS.items() if metric == self.metric)
        since = f"{self.start:%Y-%m}: " if self.start else ""
        named = f"{self.label} " if self.label else ""
        return f"{since}{named}{self.per_month:,.0f} {unit} a month"


@dataclass(frozen=True)
class WhatIf:
    """A growth (a fraction: 0.1 for 10 %) and the planned workloads."""

    growth: float = 0.0
    workloads: tuple[Workload, ...] = ()

    def added(self, metric: str, first: date, days: int) -> Floats:
        """The workloads' volume of ``metric`` on each of ``days`` days from ``first``."""
        added = np.zeros(days)
        for workload in (w for w in self.workloads if w.metric == metric):
            for offset in range(days):
                day = first + timedelta(days=offset)
                if workload.start is None or day >= workload.start:
                    added[offset] += workload.per_month / _days_in_month(day)
        return added

    def apply(self, metric: str, first: date, daily: Floats) -> Floats:
        """Forecast days from ``first`` with the growth and the workloads."""
        shifted: Floats = daily * (1 + self.growth) + self.added(metric, first, len(daily))
        return shifted

    def __str__(self) -> str:
        parts = [f"growth {format_change(self.growth)}"] if self.growth else []
        return "; ".join(parts + [str(w) for w in self.workloads]) or "none"


def warnings(what_if: WhatIf, monthly: Mapping[str, float]) -> tuple[str, ...]:
    """A sentence for each what-if outside the plausible range (see the module), in the
    what-ifs' order; ``monthly`` is each metric's usage of the last ``TODAY_DAYS`` closed days
    (a metric missing from it is not checked)."""
    said = []
    low, high = PLAUSIBLE_GROWTH
    if not low <= what_if.growth <= high:
        said.append(
            f"growth {format_change(what_if.growth)} is outside the plausible range "
            f"({format_change(low)} to {format_change(high)}): it is taken as asked; check it "
            "is the growth you meant"
        )
    for workload in what_if.workloads:
        today = monthly.get(workload.metric)
        if today is None or workload.per_month <= PLAUSIBLE_WORKLOAD_TIMES * today:
            continue
        said.append(
            f"the workload '{workload}' is more than {PLAUSIBLE_WORKLOAD_TIMES} times today's "
            f"usage ({with_unit(today, workload.metric)} in the last {TODAY_DAYS} days): it is "
            "taken as asked; check it is the volume you meant"
        )
    return tuple(said)


def _days_in_month(day: date) -> int:
    following = date(day.year + day.month // 12, day.month % 12 + 1, 1)
    return (following - day.replace(day=1)).days


def parse_growth(text: str) -> float:
    """``10%``, ``+10 %``, ``-5%`` or ``10`` as a fraction (0.1); never below −100 %."""
    found = _GROWTH.fullmatch(text.strip())
    if found is None:
        raise WhatIfError(f"growth must be a percentage such as 10% or -5%, not {text!r}")
    growth = float(found["value"]) / 100
    if growth <= -1:
        raise WhatIfError(f"growth must be above -100%, not {text!r}")
    return growth


def parse_workload(text: str) -> Workload:
    """``[YYYY-MM:] [label] AMOUNT characters|minutes [a month]`` as a ``Workload``."""
    found = _WORKLOAD.fullmatch(text.strip())
    if found is None:
        raise WhatIfError(
            f"a planned workload reads like '2026-06:2000000 characters' or 'speech pilot "
            f"500 minutes a month', not {text!r}"
        )
    start = None
    if found["month"]:
        try:
            start = date.fromisoformat(f"{found['month']}-01")
        except ValueError:
            raise WhatIfError(f"{found['month']} in {text!r} is not a month") from None
    amount = float(found["amount"].replace(",", "").replace("_", ""))
    return Workload(UNITS[found["unit"].lower()], amount, start, found["label"])
