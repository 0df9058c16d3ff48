"""The dashboard's Streamlit side, the only package of the library that imports Streamlit. The
pages lay out widgets and read everything through its modules, each used by its name: this
run's visitor and the source they read (`visitor`, over `source`), the cached reads (`data`,
`charts`), what every page starts with (`page`, `session`), the key list
(`key_list`) and the guardrails' plan (`guardrails`) that several pages read.

The face holds the names app.py and the pages take from those modules (who may see the
dashboard, `access`; the settings read from Streamlit's secrets, `source`; failures shown as
messages, `messages`; a page's cached reads and layout helpers); a page reads a module by its
name through it (`from analytics.dashboard import data`), and a page that needs more than its
file has a package of its own (`capacity`, `keys_and_limits`, `settings`), whose face the page
calls."""

from analytics.dashboard.access import Access, access_decision, sign_in_error
from analytics.dashboard.anomaly_review import given_marks, mark, marks_of, undo, undoable
from analytics.dashboard.column_config import (
    CHARGEBACK_ORDER,
    anomaly_columns,
    budget_columns,
    chargeback_columns,
    export_preview_columns,
    in_percent,
    key_table_columns,
    key_table_order,
    language_columns,
    money_column,
    pair_table_columns,
    tag_table_columns,
)
from analytics.dashboard.messages import service_errors
from analytics.dashboard.plan_panel import plan_panel
from analytics.dashboard.session import choice_to_address
from analytics.dashboard.settings_in_force import (
    NEEDS_PRICING,
    NEEDS_TEAMS,
    say_unpriced,
    settings_name,
    view_settings,
    with_upload,
)
from analytics.dashboard.source import Source, secrets
from analytics.dashboard.view import USAGE_BY_KEY, View

__all__ = [
    "CHARGEBACK_ORDER",
    "NEEDS_PRICING",
    "NEEDS_TEAMS",
    "USAGE_BY_KEY",
    "Access",
    "Source",
    "View",
    "access_decision",
    "anomaly_columns",
    "budget_columns",
    "chargeback_columns",
    "choice_to_address",
    "export_preview_columns",
    "given_marks",
    "in_percent",
    "key_table_columns",
    "key_table_order",
    "language_columns",
    "mark",
    "marks_of",
    "money_column",
    "pair_table_columns",
    "plan_panel",
    "say_unpriced",
    "secrets",
    "service_errors",
    "settings_name",
    "sign_in_error",
    "tag_table_columns",
    "undo",
    "undoable",
    "view_settings",
    "with_upload",
]
