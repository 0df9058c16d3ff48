"""Trends: one metric (or its cost) per key or team over time, top-N + Other, and the
breakdown of a period."""

from analytics.dashboard import visitor
from analytics.dashboard.trends import trends_page

trends_page(visitor.current().source)
