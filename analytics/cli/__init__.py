"""`python -m analytics` (installed: `usage-dashboard`): scheduled exports and quick look-ups,
made for cron and systemd timers, and `serve` to start the dashboard.

The exit codes are one table, `analytics.exit_codes.EXIT_CODES`: `--help` ends with them,
the manual's Command line page and the Export page show them. Errors go to stderr in one
or two lines, without a traceback unless --debug is given.

One module per area registers its commands on the one `app` of `program`, which `main` runs:
exports, the dataset, reports, checks and marks, capacity, look-ups, keys, their rotations,
guardrails, serve, the HTTP API's tokens and serve-api, the demo's reset, the state store, the
settings.
"""

# Importing an area registers its commands: this order is the order `--help` lists them.
from analytics.cli import exports, datasets, reports, checks, capacity, lookups, keys, rotations  # noqa: I001
from analytics.cli import guardrails, serve, http_api, demo, state, settings
from analytics.cli.program import app, main
from analytics.cli.json_output import table_json
from analytics.cli.json_output import json_text
from analytics.cli.fetching import Fetches
from analytics.cli.failures import UsageProblem

__all__ = [
    "Fetches",
    "UsageProblem",
    "app",
    "capacity",
    "checks",
    "datasets",
    "demo",
    "exports",
    "guardrails",
    "http_api",
    "json_text",
    "keys",
    "lookups",
    "main",
    "reports",
    "rotations",
    "serve",
    "settings",
    "state",
    "table_json",
]
