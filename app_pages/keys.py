"""Keys: one row per key (or team) with every metric or its cost, and each key's owner and
purpose, the top keys, and one key's usage by service."""

from analytics.dashboard import visitor
from analytics.dashboard.keys import keys_page

keys_page(visitor.current().source)
