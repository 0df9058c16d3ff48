"""The service's operations, one router per area; `emulator.app` assembles them.

A router imports the emulator's core modules (ledger, store, reports, languages, bodies,
errors, schemas, `served`) and `dependencies`, never the app, the organization builders or
another router: the import contracts in `pyproject.toml` keep it so."""
