"""The Settings page: the organization's settings documents, each shown with its version, and
for settings administrators an edit checked, previewed with its effect, saved against the
version it was read from, and an earlier version restored. Its workings between runs are
`edits` (the edit kept in the session, its check, its effect, its save), and its widgets
`page_layout`, whose `settings_page` the page calls."""

from analytics.dashboard.settings.page_layout import settings_page

__all__ = ["settings_page"]
