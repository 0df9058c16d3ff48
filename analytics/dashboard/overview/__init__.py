"""The Overview page: totals of the range with their change (usage, or its cost), its new
anomalies, the plan's billing period, and the service mix over time. Its widgets are
`page_layout`, whose `overview_page` the page calls; the anomalies it counts are read through
`anomaly_review`, which the Anomalies page reads too."""

from analytics.dashboard.overview.page_layout import overview_page

__all__ = ["overview_page"]
