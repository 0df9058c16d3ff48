"""The Keys & limits page: every developer key of the organization with its state and this
usage period's use against its limits, the Guardrails section, and for one key its actions.
Its workings between runs are `key_changes` (the key shown, each change audited and said once)
and `key_dialog` (the dialog open in the session); its widgets are `page_layout`, whose
`limits_page` the page calls, and the panels it places: `guardrails_panel`, `rotation_panel`
and `secret_dialog` (a dialog that shows a new key's secret once). The key list every page
reads is the dashboard's `key_list`."""

from analytics.dashboard.keys_and_limits.page_layout import limits_page

__all__ = ["limits_page"]
