"""`python -m analytics` (installed: `usage-dashboard`): scheduled exports and quick look-ups,
made for cron and systemd timers, and `serve` to start the dashboard.

Exit codes: 0 done; 2 bad arguments or configuration; 3 the service refused the key (403);
4 the service or the network failed after retries (or answered with an invalid body);
1 anything unexpected. `check-budgets` also exits 10 when a warning threshold is reached
(used or projected, or a budget names an unknown key) and 11 when a budget (or the plan's
character limit, for a plan budget) is exceeded; `check-anomalies` exits 12 when it finds
anomalies nobody has marked yet. A command that sends messages (`--notify`,
`report --mail-to`) exits 13 when one could not be delivered (it is sent again next run).
Errors go to stderr in one or two lines, without a traceback unless --debug is given.

One module per area registers its commands on the one `app` of `shared`: exports, reports,
checks and marks, look-ups, keys, serve, the demo's reset.
"""

# Importing an area registers its commands: this order is the order `--help` lists them.
from analytics.cli import exports, reports, checks, lookups, keys, serve, demo  # noqa: I001
from analytics.cli.shared import app
from analytics.usage.allocator import use_system_allocator

__all__ = ["app", "checks", "demo", "exports", "keys", "lookups", "main", "reports", "serve"]


def main() -> None:
    use_system_allocator()
    app()
