"""The store the app holds (`Store`): the areas' operations over one connection and lock, and
the organization loaded into it when it does not hold it yet."""

from __future__ import annotations

import datetime as dt
import sqlite3

from emulator.org import Organization
from emulator.store.database import SCHEMA_VERSION
from emulator.store.document_store import DocumentStore
from emulator.store.key_store import KeyStore
from emulator.store.loading import load
from emulator.store.usage_ledger import UsageLedger


class Store(KeyStore, UsageLedger, DocumentStore):
    """The store the app serves from: each area's operations over one connection and lock,
    so a request's key, usage and documents are read and written in one database file; the
    areas share the `Database` base rather than each opening a connection of its own."""

    def ensure(
        self, fingerprint: str, org: Organization, served_from: dt.date, *, fresh: bool = False
    ) -> bool:
        """Keep a database that already holds this organization (unless `fresh`); otherwise
        load it (a key with neither a creation time nor usage was created on `served_from`).
        True when it was loaded: whatever the database held before is gone."""
        stamp = f"v{SCHEMA_VERSION}:{fingerprint}"
        with self._lock:
            try:
                row = self._conn.execute("SELECT value FROM meta WHERE name = 'org'").fetchone()
            except sqlite3.OperationalError:  # a `meta` of another layout: reloaded
                row = None
            if row and row[0] == stamp and not fresh:
                return False
            load(self._conn, stamp, org, served_from.isoformat())
        return True
