"""The Tags page: characters per custom tag over time, top-N + Other + Untagged, the tag table
(in Cost, with each tag's cost and team), and one tag's days. Its widgets are `page_layout`,
whose `tags_page` the page calls."""

from analytics.dashboard.tags.page_layout import tags_page

__all__ = ["tags_page"]
