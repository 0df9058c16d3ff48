"""The Language pairs page: the top pairs with their share, a source × target heat map, pairs
over time (top-N + Other), and for one pair the features the language lists give it or its
keys. Its widgets are `page_layout`, whose `pairs_page` the page calls."""

from analytics.dashboard.pairs.page_layout import pairs_page

__all__ = ["pairs_page"]
