"""The Keys page: one row per key (or team) with every metric or its cost, and each key's
owner and purpose, the top keys, and one key's usage by service. Its widgets are
`page_layout`, whose `keys_page` the page calls; the key list it names owners from
(`key_list`) and the labels it shows (`key_labels`) are the dashboard's, which other pages
read too."""

from analytics.dashboard.keys.page_layout import keys_page

__all__ = ["keys_page"]
