"""The capacity decision in one answer, for the command line, the Capacity page and the
meeting report alike: the forecasts with their accuracy record, and the option to buy for the
next term with the curve it was chosen from and the what-ifs it assumed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import pandas as pd

from analytics.capacity.outlook import (
    Outlook,
    backtest_table,
    forecast_rows,
    outlooks,
    term_scenarios,
)
from analytics.capacity.recommend import DEFAULT_RISK, Option, Recommendation, Scenarios, recommend
from analytics.capacity.whatif import WhatIf
from analytics.usage.calendar import YearStart, all_history_range
from analytics.usage.reader import UsageReader

DEFAULT_TERM = 12


def read_outlooks(reader: UsageReader, today: date, demo_days: int | None) -> dict[str, Outlook]:
    """The decision metrics' outlooks from the organization's whole history up to yesterday
    (``calendar.all_history_range``: the demo organization's span of ``demo_days``, or the last
    five years): the backtest reaches 24 months back and the yearly season wants two years
    before its origins."""
    first, last = all_history_range(today, demo_days)
    read = reader.usage(first, last)
    return outlooks(read.frame, read.start, today)


@dataclass(frozen=True)
class Decision:
    """What a capacity meeting decides from."""

    outlooks: dict[str, Outlook]
    forecasts: pd.DataFrame  # outlook.forecast_rows
    scenarios: Scenarios
    recommendation: Recommendation
    what_if: WhatIf
    term: int

    @property
    def accuracy(self) -> pd.DataFrame:
        """The backtest's scores per metric, candidate and horizon (``backtest_table``)."""
        return backtest_table(self.outlooks)


def decide(
    found: dict[str, Outlook],
    options: Sequence[Option],
    *,
    term: int = DEFAULT_TERM,
    what_if: WhatIf | None = None,
    risk: float = DEFAULT_RISK,
    year_start: YearStart | None = None,
) -> Decision:
    """The forecasts and the recommendation among ``options`` for the next ``term`` months,
    both with the what-ifs."""
    shifted = what_if or WhatIf()
    scenarios = term_scenarios(found, term, shifted)
    return Decision(
        outlooks=found,
        forecasts=forecast_rows(found, shifted, year_start),
        scenarios=scenarios,
        recommendation=recommend(options, scenarios, risk),
        what_if=shifted,
        term=term,
    )
