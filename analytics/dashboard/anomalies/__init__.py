"""The Anomalies page: days that broke a key's (or the organization's) weekday habit in the
range, spikes, drops, new keys and dormant keys used again, with a chart of one and its marks.
Its widgets are `page_layout`, whose `anomalies_page` the page calls; the anomalies it reads and
the marks it gives are `anomaly_review`'s, which the Overview page reads too."""

from analytics.dashboard.anomalies.page_layout import anomalies_page

__all__ = ["anomalies_page"]
