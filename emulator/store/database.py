"""The SQLite file the store keeps: its tables, the one connection every area shares, and a
damaged file moved aside rather than overwritten."""

from __future__ import annotations

import datetime as dt
import logging
import os
import sqlite3
import threading
from pathlib import Path

log = logging.getLogger(__name__)
# Part of every stored fingerprint: a database file written by an older layout is reloaded.
SCHEMA_VERSION = 6
# dependants first
TABLES = ("documents", "key_pairs", "language_pairs", "key_tags", "usage", "keys", "meta")
META = "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
SCHEMA = f"""
{META};
CREATE TABLE IF NOT EXISTS keys (
    key_id INTEGER PRIMARY KEY,      -- in masked-key order: key_id order = api_key order
    key TEXT NOT NULL UNIQUE,        -- SHA-256 of the secret: no secret is ever stored
    masked TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,             -- the current label
    admin INTEGER NOT NULL,
    detect_beta INTEGER NOT NULL,
    published_id TEXT NOT NULL UNIQUE, -- the key_id of the administrator operations
    created TEXT NOT NULL,           -- ISO instants, UTC
    deactivated TEXT,
    character_limit INTEGER,         -- per usage period, NULL: no limit
    speech_limit_ms INTEGER
);
CREATE TABLE IF NOT EXISTS usage (
    usage_date TEXT NOT NULL,        -- ISO day, UTC
    key_id INTEGER NOT NULL REFERENCES keys (key_id),
    label TEXT NOT NULL,             -- the key's label as of that day
    text_translation_characters INTEGER NOT NULL DEFAULT 0,
    document_translation_characters INTEGER NOT NULL DEFAULT 0,
    text_improvement_characters INTEGER NOT NULL DEFAULT 0,
    speech_to_text_minutes REAL NOT NULL DEFAULT 0,
    speech_to_speech_minutes REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (usage_date, key_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS key_tags (
    key_id INTEGER NOT NULL REFERENCES keys (key_id),
    tag TEXT NOT NULL,
    parts INTEGER NOT NULL,          -- share of the key's text characters, per million
    first_day TEXT NOT NULL,         -- ISO days, inclusive
    last_day TEXT NOT NULL,
    PRIMARY KEY (key_id, tag)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS language_pairs (
    pair_id INTEGER PRIMARY KEY,     -- in (source, target) order, so reports sort on the id
    source TEXT NOT NULL,
    target TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS key_pairs (
    key_id INTEGER NOT NULL REFERENCES keys (key_id),
    pair_id INTEGER NOT NULL REFERENCES language_pairs (pair_id),
    attributed INTEGER NOT NULL,
    same INTEGER NOT NULL,           -- 1: same-language kind (improvement, speech-to-text)
    low INTEGER NOT NULL,            -- cumulative weights before and after this pair among
    high INTEGER NOT NULL,           -- the key's pairs of its kind, and their total
    total INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS key_pairs_by_kind ON key_pairs (key_id, same);
CREATE TABLE IF NOT EXISTS documents (
    document_id TEXT PRIMARY KEY,
    key_id INTEGER NOT NULL REFERENCES keys (key_id),
    filename TEXT NOT NULL,
    source_lang TEXT,
    target_lang TEXT NOT NULL,
    output_format TEXT NOT NULL,
    characters INTEGER NOT NULL,
    nonce BLOB NOT NULL,
    ciphertext BLOB NOT NULL,        -- the document key itself is never stored
    created_at TEXT NOT NULL
);
"""


class Database:
    """One SQLite connection shared by all threads and event loops, serialized by a lock: the
    store's areas (keys, usage ledger, documents) read and write through it.

    A database file may be shared by several processes (the dashboard's demo and its
    commands): SQLite serializes their writes, and whoever loads an organization into it
    holds a lock of its own around `Store.ensure` (see `analytics.service.demo`)."""

    def __init__(self, path: Path | str | None) -> None:
        self._lock = threading.Lock()
        self._conn = _connect(Path(path) if path else None)
        # Only `meta` before `ensure`: a file of an older layout is told apart by its stamp
        # and reloaded, where its other tables might not take today's indexes.
        self._conn.execute(META)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _connect(path: Path | None) -> sqlite3.Connection:
    """A connection to the database file at `path` (None: in memory). A file that is not a
    sound SQLite database (damaged, truncated, something else) is moved aside, kept beside it
    as `<name>.damaged-<UTC time>` with one warning, and a new database starts in its place:
    the organization is loaded into it again, and nothing is overwritten."""
    target = str(path) if path else ":memory:"
    conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
    if path is not None and (verdict := _soundness(conn)) != "ok":
        conn.close()
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        kept = path.with_name(f"{path.name}.damaged-{stamp}")
        os.replace(path, kept)
        # A rollback journal left beside it belongs to the damaged file, not to the new one.
        journal = path.with_name(f"{path.name}-journal")
        if journal.exists():
            os.replace(journal, kept.with_name(f"{kept.name}-journal"))
        log.warning(
            "%s is not a sound database (%s); kept as %s, starting afresh", path, verdict, kept
        )
        conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    return conn


def _soundness(conn: sqlite3.Connection) -> str:
    """SQLite's verdict on a database file: "ok", else what is wrong with it."""
    try:
        return str(conn.execute("PRAGMA quick_check(1)").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        return str(exc)
