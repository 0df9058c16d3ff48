"""The dashboard's Streamlit side, the only package of the library that imports Streamlit.

Every page is a package of its own here (`overview`, `keys`, `keys_and_limits`, `trends`,
`tags`, `pairs`, `languages`, `capacity`, `anomalies`, `chargeback`, `export`, `settings`),
whose face the page file calls with the visitor's source: what it draws and how it reads are
the package's. What the pages share sits at the root, each module used by its name: this run's
visitor and the source they read (`visitor`, over `source`), the cached reads (`data`,
`charts`), what every page starts with (`page`, `session`), the key list (`key_list`) and the
guardrails' plan (`guardrails`) that several pages read.

The face holds the names app.py takes: who may see the dashboard (`access`) and the settings
read from Streamlit's secrets (`source`)."""

from analytics.dashboard.access import Access, access_decision, sign_in_error
from analytics.dashboard.source import Source, secrets

__all__ = ["Access", "Source", "access_decision", "secrets", "sign_in_error"]
