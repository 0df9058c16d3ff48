"""The service's operations, one router per area (`analytics`, `keys`, `plan`, `text`,
`documents`, `languages`), each starting from `dependencies` (the served organization and the
calling key); `emulator.app` assembles them.

A router imports the emulator's core modules (ledger, store, reports, languages, bodies,
errors, schemas, `served`) and `dependencies`, never the app, the organization builders or
another router: the import contracts in `pyproject.toml` keep it so."""

from emulator.routers import analytics, documents, keys, languages, plan, text

__all__ = ["analytics", "documents", "keys", "languages", "plan", "text"]
