"""Chargeback: per team and month, usage and what it costs, adding up to the organization."""

from analytics.dashboard import visitor
from analytics.dashboard.chargeback import chargeback_page

chargeback_page(visitor.current().source)
