"""The capacity decision in one answer, for the command line, the Capacity page and the
meeting report alike: the forecasts with their accuracy record, and the option to buy for the
next term with the curve it was chosen from and the what-ifs it assumed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from analytics.usage.metrics import share_text
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


def verdict(decision: Decision, money: Callable[[float], str]) -> str:
    """The recommendation in one sentence, as the command line and the meeting report say it:
    the option, why (within the risk, or the least likely to run over), its expected cost and
    chance of overage, and today's plan's expected cost beside it; ``money`` writes an amount
    in the pricing file's currency (the money layer's, which this layer does not import)."""
    found = decision.recommendation
    if found.chosen is None:
        return "No option of the catalogue fits the term."
    risk = share_text(found.risk)
    said = (
        f"the lowest expected cost within a {risk} chance of overage"
        if found.within_risk
        else f"no option stays within a {risk} chance of overage: the least likely to run over"
    )
    today_plan = found.current
    against = (
        ""
        if today_plan is None
        else f"; today's plan ({today_plan.name}) is expected to cost "
        f"{money(today_plan.expected_cost)}"
    )
    return (
        f"Recommended for the {decision.term} months from {decision.scenarios.months[0]}: "
        f"{found.chosen.name} ({said}), expected cost {money(found.chosen.expected_cost)}, "
        f"chance of overage {share_text(found.chosen.overage_chance)}{against}."
    )
