"""The dashboard's Streamlit side, the only package of the library that imports Streamlit. The
pages lay out widgets and read everything through its modules, each used by its name: this
run's visitor and the source they read (`visitor`, over `source`), the cached reads (`data`,
`deciding`, `charts`), what every page starts with (`page`, `session`), and the workings of
each page that changes something (`keys_and_limits`, `guardrails`, `settings`).

The face holds what app.py and every page share, and only that, since each page imports
the few modules it draws from: who may see the dashboard (`access`), the settings read from
Streamlit's secrets (`source`), and failures shown as messages (`messages`)."""

from analytics.dashboard.access import Access, access_decision, sign_in_error
from analytics.dashboard.messages import service_errors, store_errors
from analytics.dashboard.source import Source, secrets

__all__ = [
    "Access",
    "Source",
    "access_decision",
    "secrets",
    "service_errors",
    "sign_in_error",
    "store_errors",
]
