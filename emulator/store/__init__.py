"""The emulator's SQLite store, one module per area like the routers: `key_store` (keys),
`usage_ledger` (the ledger and the analytics figures computed from it in SQL, with the paged
reports' `window_cache` and the tag and pair `shares`) and `document_store` (uploads), over one
`database`; `loading` fills it from an organization. `Store` (`assembled`) is what the app
holds."""

from emulator.store.assembled import Store
from emulator.store.document_store import DocumentStore
from emulator.store.key_store import DeveloperKeyRow, KeyStore, StoredKey, instant_text
from emulator.store.usage_ledger import UsageLedger

__all__ = [
    "DeveloperKeyRow",
    "DocumentStore",
    "KeyStore",
    "Store",
    "StoredKey",
    "UsageLedger",
    "instant_text",
]
