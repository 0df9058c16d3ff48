"""Tags: characters per custom tag over time, top-N + Other + Untagged, the tag table (in Cost,
with each tag's cost and team), and one tag's days."""

from analytics.dashboard import visitor
from analytics.dashboard.tags import tags_page

tags_page(visitor.current().source)
