"""What to buy for the next term: the term's usage as equally likely scenarios
(``usage_scenarios``), today's plan and the catalogue's options priced across them and the
recommendation (``recommend``), and the decision in one answer with the forecasts it rests on
(``buying``).

It reads forecasts from ``analytics.capacity.forecasting`` and the plan's limits and the
prices from ``analytics.capacity.budgets``; the front ends and the report read it through this
face only."""

from analytics.capacity.decision.buying import (
    DEFAULT_TERM,
    Decision,
    decide,
    plain_verdict,
    plan_for_term,
    plan_sentence,
    read_history,
    read_outlooks,
    service_limits,
    verdict,
)
from analytics.capacity.decision.recommend import (
    DEFAULT_RISK,
    Costed,
    Option,
    Recommendation,
    TodaysPlan,
)

__all__ = [
    "DEFAULT_RISK",
    "DEFAULT_TERM",
    "Costed",
    "Decision",
    "Option",
    "Recommendation",
    "TodaysPlan",
    "decide",
    "plain_verdict",
    "plan_for_term",
    "plan_sentence",
    "read_history",
    "read_outlooks",
    "service_limits",
    "verdict",
]
