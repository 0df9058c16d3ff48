"""Languages: what each resource supports, side by side, with a pair check, glossary pairs and
v2→v3 changes."""

from analytics.dashboard import visitor
from analytics.dashboard.languages import languages_page

languages_page(visitor.current().source)
