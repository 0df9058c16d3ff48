"""Keys & limits: every developer key of the organization with its state and this usage
period's use against its limits, and for one key the actions: rename, set or clear limits,
deactivate; create a key; the audit log of every attempted change."""

from analytics.dashboard import visitor
from analytics.dashboard.keys_and_limits import limits_page

limits_page(visitor.current())
