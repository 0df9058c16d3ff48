"""The Capacity page: the plan's billing period, forecasts with bands and budget lines (of cost
too, with prices), budget status, the decision (backtested forecasts, what-ifs kept in the
address, the option to buy next), period comparison, growth drivers, and the meeting report to
download. Its cached reads are `deciding` (the backtest once per source and day, the decision
priced again only when its inputs change) and `budget_settings` (the budgets in force, or an
upload, and their status); its widgets are `page_layout`, whose `capacity_page` the page calls,
and the panel it places, `decision_panel`."""

from analytics.dashboard.capacity.page_layout import capacity_page

__all__ = ["capacity_page"]
