"""Settings: the organization's prices, teams and key owners, budgets and alert routes, each
shown with its version; for settings administrators an editor, a preview of each change with
its effect, Save, and the history with Restore."""

from analytics.dashboard import visitor
from analytics.dashboard.settings import settings_page

settings_page(visitor.current())
