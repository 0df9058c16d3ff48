"""The next term's usage as equally likely scenarios, for the recommendation to price.

The term's horizon's candidate's monthly totals (``outlook.Outlook``) times the percentiles
1 … 99 of its ratios actual ÷ forecast, one scenario per percentile: a scenario is "the term
comes in 12 % above the forecast", and the middle one is the projection. Characters and
minutes take the same percentile in a scenario, so both run high together, the cautious
reading. Without enough errors to measure (a short history) there is one scenario, the
forecast.
"""

from __future__ import annotations

from datetime import date
from typing import Final

import numpy as np

from analytics.capacity.decision.recommend import Scenarios
from analytics.capacity.forecasting import (
    MAX_TERM_MONTHS,
    Floats,
    Outlook,
    WhatIf,
    months_later,
    ratio_quantiles,
)
from analytics.usage import MINUTES, TOTAL_CHARACTERS

SCENARIO_SHARES: Final = np.arange(1, 100) / 100


def term_start(as_of: date) -> date:
    """The next term starts on the first day of the next month."""
    return months_later(as_of.replace(day=1), 1)


def term_scenarios(found: dict[str, Outlook], term: int, what_if: WhatIf) -> Scenarios:
    """The next ``term`` months' usage as scenarios (see the module)."""
    if not 1 <= term <= MAX_TERM_MONTHS:
        raise ValueError(f"the term is 1 to {MAX_TERM_MONTHS} months, not {term}")
    characters, minutes = found[TOTAL_CHARACTERS], found[MINUTES]
    first = term_start(characters.as_of)
    months = tuple(months_later(first, m) for m in range(term))
    paths = [_scenarios(o, first, months, what_if) for o in (characters, minutes)]
    count = max(p.shape[0] for p in paths)  # a metric without measured errors: one path
    paths = [np.broadcast_to(p, (count, term)) for p in paths]
    return Scenarios(months, paths[0], paths[1])


def _scenarios(found: Outlook, first: date, months: tuple[date, ...], what_if: WhatIf) -> Floats:
    """Scenarios × months of one metric."""
    offset = (first - found.as_of).days
    end = months_later(months[-1], 1)
    path = found.paths[found.model_for((end - first).days)]
    daily = path[offset : (end - found.as_of).days] * (1 + what_if.growth)
    starts = [(m - found.as_of).days - offset for m in months]
    base = np.add.reduceat(daily, starts) if len(daily) else np.zeros(len(months))
    added = np.add.reduceat(what_if.added(found.metric, first, len(daily)), starts)
    ratios = found.ratios((end - first).days)
    scale = ratio_quantiles(ratios, SCENARIO_SHARES) if ratios else np.ones(1)
    scenarios: Floats = scale[:, None] * base[None, :] + added[None, :]
    return scenarios
