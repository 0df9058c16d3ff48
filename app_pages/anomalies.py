"""Anomalies: days that broke a key's (or the organization's) weekday habit in the range,
spikes, drops, new keys and dormant keys used again, with a chart of one and its marks."""

from analytics.dashboard import visitor
from analytics.dashboard.anomalies import anomalies_page

anomalies_page(visitor.current().source)
