"""The Trends page: one metric (or its cost) per key or team over time, top-N + Other, and the
breakdown of a period. Its widgets are `page_layout`, whose `trends_page` the page calls."""

from analytics.dashboard.trends.page_layout import trends_page

__all__ = ["trends_page"]
