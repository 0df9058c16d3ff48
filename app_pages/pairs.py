"""Language pairs: the top pairs with their share, a source × target heat map, pairs over time
(top-N + Other), and for one pair the features the language lists give it or its keys."""

from analytics.dashboard import visitor
from analytics.dashboard.pairs import pairs_page

pairs_page(visitor.current().source)
