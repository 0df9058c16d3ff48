"""The Languages page: what each resource supports, side by side, with a pair check, glossary
pairs and v2→v3 changes. Its widgets are `page_layout`, whose `languages_page` the page calls;
the language lists it reads are `language_cache`'s, which the Language pairs page reads too."""

from analytics.dashboard.languages.page_layout import languages_page

__all__ = ["languages_page"]
