"""Capacity: the plan's billing period, forecasts with bands and budget lines (of cost too,
with prices), budget status, the decision (backtested forecasts, what-ifs kept in the address,
the option to buy next), period comparison, growth drivers, and the meeting report to
download."""

from analytics.dashboard import visitor
from analytics.dashboard.capacity import capacity_page

capacity_page(visitor.current().source)
