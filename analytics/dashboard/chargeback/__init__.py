"""The Chargeback page: per team and month, usage and what it costs, adding up to the
organization. Its widgets are `page_layout`, whose `chargeback_page` the page calls."""

from analytics.dashboard.chargeback.page_layout import chargeback_page

__all__ = ["chargeback_page"]
