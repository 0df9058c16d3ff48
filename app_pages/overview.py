"""Overview: totals of the range with their change (usage, or its cost), its new anomalies,
the plan's billing period, and the service mix over time."""

from analytics.dashboard import visitor
from analytics.dashboard.overview import overview_page

overview_page(visitor.current().source)
