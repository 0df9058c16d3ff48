"""`serve-api`: a read-only HTTP API over the same readers as the pages and commands, for
dashboards elsewhere (Grafana, a BI tool, an internal portal), each caller with a bearer token
of one team's or the whole organization's scope (`analytics.access.tokens`).

A front end like the command line and the dashboard: it answers no question of its own, it
reads each through the command line's readers (`analytics.cli.fetching`,
`analytics.cli.settings_in_force`) and the domain's answers, through the token's scope. One
router per area: usage and FOCUS rows (`usage_routes`), keys (`key_routes`), anomalies and
budgets (`check_routes`); `http_app` puts them together behind the token check and the
rate limit (`caller`) and the log.
"""

from analytics.api.http_app import ApiSettings, create_app, from_environment

__all__ = ["ApiSettings", "create_app", "from_environment"]
