"""The SQLite usage ledger and document store; every analytics figure is computed here in SQL."""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from emulator.org import PARTS, LedgerRow, Organization, TagLedgerRow

# Part of every stored fingerprint: a database file written by an older layout is reloaded.
SCHEMA_VERSION = 3
TABLES = ("documents", "key_tags", "usage", "keys", "meta")  # dependants first
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS keys (
    key_id INTEGER PRIMARY KEY,      -- in masked-key order: key_id order = api_key order
    key TEXT NOT NULL UNIQUE,
    masked TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    admin INTEGER NOT NULL,
    detect_beta INTEGER NOT NULL
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

SUMS = """
    SUM(text_translation_characters), SUM(document_translation_characters),
    SUM(text_improvement_characters), SUM(speech_to_text_minutes), SUM(speech_to_speech_minutes)
"""

# (text, document, improvement characters, speech-to-text minutes, speech-to-speech minutes)
Usage = tuple[int, int, int, float, float]

# Each key-day's characters per custom tag, derived from the ledger and the keys' tag shares
# (see org.TagShare); parameters: the first and the stop day.
TAGGED = f"""
    SELECT u.usage_date, u.key_id, t.tag,
           u.text_translation_characters * t.parts / {PARTS} AS text,
           u.text_improvement_characters * t.parts / {PARTS} AS improvement
    FROM usage u JOIN key_tags t
        ON t.key_id = u.key_id AND u.usage_date BETWEEN t.first_day AND t.last_day
    WHERE u.usage_date >= ?1 AND u.usage_date < ?2
"""  # noqa: S608 - a constant


@dataclass(frozen=True)
class StoredKey:
    """What a request's authorization resolves to."""

    key_id: int
    masked: str
    label: str
    admin: bool
    detect_beta: bool


class Store:
    """One SQLite connection shared by all threads and event loops, serialized by a lock."""

    def __init__(self, path: Path | str | None) -> None:
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            str(path) if path else ":memory:", check_same_thread=False, isolation_level=None
        )
        self._conn.execute("PRAGMA synchronous = OFF")
        self._conn.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def ensure(self, fingerprint: str, org: Organization) -> None:
        """Keep a database that already holds this organization; otherwise load a fresh one."""
        stamp = f"v{SCHEMA_VERSION}:{fingerprint}"
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE name = 'org'").fetchone()
            if row and row[0] == stamp:
                return
        self._load(stamp, org)

    def _load(self, stamp: str, org: Organization) -> None:
        """Recreate the tables (a file may hold an older layout) and fill them from `org`."""
        order = sorted(range(len(org.keys)), key=lambda i: org.keys[i].masked)
        key_id = {index: rank + 1 for rank, index in enumerate(order)}
        with self._lock, self._conn:
            self._conn.execute("BEGIN")
            for table in TABLES:
                self._conn.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in SCHEMA.split(";"):
                self._conn.execute(statement)
            self._conn.executemany(
                "INSERT INTO keys VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (key_id[i], k.key, k.masked, k.label, k.admin, k.detect_beta)
                    for i, k in enumerate(org.keys)
                ],
            )
            self._conn.executemany(
                "INSERT INTO usage VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                ((day, key_id[i], *rest) for day, i, *rest in org.usage),
            )
            self._conn.executemany(
                "INSERT INTO key_tags VALUES (?, ?, ?, ?, ?)",
                (
                    (
                        key_id[i],
                        t.tag,
                        t.parts,
                        (t.first or dt.date.min).isoformat(),
                        (t.last or dt.date.max).isoformat(),
                    )
                    for i, k in enumerate(org.keys)
                    for t in k.tags
                ),
            )
            self._conn.execute("INSERT INTO meta VALUES ('org', ?)", (stamp,))

    def find_key(self, key: str) -> StoredKey | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT key_id, masked, label, admin, detect_beta FROM keys WHERE key = ?", (key,)
            ).fetchone()
        return StoredKey(row[0], row[1], row[2], bool(row[3]), bool(row[4])) if row else None

    def record_usage(
        self, key: StoredKey, day: dt.date, *, text: int = 0, document: int = 0
    ) -> None:
        """Add characters to the key's ledger row for `day`, creating the row if needed."""
        with self._lock:
            self._conn.execute(
                """
                INSERT INTO usage (usage_date, key_id, label, text_translation_characters,
                                   document_translation_characters)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (usage_date, key_id) DO UPDATE SET
                    label = excluded.label,
                    text_translation_characters
                        = text_translation_characters + excluded.text_translation_characters,
                    document_translation_characters
                        = document_translation_characters + excluded.document_translation_characters
                """,
                (day.isoformat(), key.key_id, key.label, text, document),
            )

    def total(self, first: dt.date, stop: dt.date, key_id: int | None = None) -> Usage:
        """Sums over the days in [first, stop), of one key when `key_id` is given."""
        with self._lock:
            row = self._conn.execute(
                f"""
                SELECT {SUMS} FROM usage
                WHERE usage_date >= ? AND usage_date < ? AND (?3 IS NULL OR key_id = ?3)
                """,  # noqa: S608
                (first.isoformat(), stop.isoformat(), key_id),
            ).fetchone()
        return (row[0] or 0, row[1] or 0, row[2] or 0, row[3] or 0.0, row[4] or 0.0)

    def by_key(self, first: dt.date, stop: dt.date) -> list[tuple]:
        """(masked key, latest label in range, *Usage) per key with usage in [first, stop).

        SQLite takes bare columns of a MAX() aggregate from the row holding the maximum,
        so `label` is the label of the key's last day in the range.
        """
        with self._lock:
            return self._conn.execute(
                f"""
                SELECT k.masked, u.label, {SUMS}, MAX(u.usage_date)
                FROM usage u JOIN keys k USING (key_id)
                WHERE u.usage_date >= ? AND u.usage_date < ?
                GROUP BY u.key_id ORDER BY u.key_id
                """,  # noqa: S608
                (first.isoformat(), stop.isoformat()),
            ).fetchall()

    def by_key_and_day(self, first: dt.date, stop: dt.date) -> list[tuple]:
        """(ISO day, masked key, label that day, *Usage) sorted by day, then masked key."""
        with self._lock:
            return self._conn.execute(
                """
                SELECT u.usage_date, k.masked, u.label, u.text_translation_characters,
                       u.document_translation_characters, u.text_improvement_characters,
                       u.speech_to_text_minutes, u.speech_to_speech_minutes
                FROM usage u JOIN keys k USING (key_id)
                WHERE u.usage_date >= ? AND u.usage_date < ?
                ORDER BY u.usage_date, u.key_id
                """,
                (first.isoformat(), stop.isoformat()),
            ).fetchall()

    def ledger(self, start: dt.date, end: dt.date) -> list[LedgerRow]:
        """Stored key-days of the inclusive day range, in analytics order."""
        rows = self.by_key_and_day(start, end + dt.timedelta(days=1))
        return [LedgerRow(dt.date.fromisoformat(day), *rest) for day, *rest in rows]

    def tag_ledger(self, start: dt.date, end: dt.date) -> list[TagLedgerRow]:
        """Tagged characters per key-day and tag of the inclusive day range (none all zero),
        sorted by day, masked key and tag."""
        stop = end + dt.timedelta(days=1)
        with self._lock:
            rows = self._conn.execute(
                f"""
                SELECT g.usage_date, k.masked, g.tag, g.text, g.improvement
                FROM ({TAGGED}) g JOIN keys k USING (key_id)
                WHERE g.text + g.improvement > 0
                ORDER BY g.usage_date, g.key_id, g.tag
                """,  # noqa: S608
                (start.isoformat(), stop.isoformat()),
            ).fetchall()
        return [TagLedgerRow(dt.date.fromisoformat(day), *rest) for day, *rest in rows]

    def tag_usage(
        self, first: dt.date, stop: dt.date, *, by_day: bool, limit: int, offset: int
    ) -> list[tuple]:
        """([ISO day,] tag, text, improvement) per tag (and day) of [first, stop) with usage,
        sorted by (day,) tag; the slice [offset, offset + limit)."""
        day = "usage_date, " if by_day else ""
        with self._lock:
            return self._conn.execute(
                f"""
                SELECT {day}tag, SUM(text), SUM(improvement) FROM ({TAGGED})
                GROUP BY {day}tag HAVING SUM(text) + SUM(improvement) > 0
                ORDER BY {day}tag LIMIT ?3 OFFSET ?4
                """,  # noqa: S608
                (first.isoformat(), stop.isoformat(), limit, offset),
            ).fetchall()

    def save_document(
        self,
        document_id: str,
        key: StoredKey,
        *,
        filename: str,
        source_lang: str | None,
        target_lang: str,
        output_format: str,
        characters: int,
        nonce: bytes,
        ciphertext: bytes,
    ) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    document_id,
                    key.key_id,
                    filename,
                    source_lang,
                    target_lang,
                    output_format,
                    characters,
                    nonce,
                    ciphertext,
                    dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                ),
            )

    def document(self, document_id: str) -> tuple[bytes, bytes] | None:
        """(nonce, ciphertext) of a stored document."""
        with self._lock:
            row = self._conn.execute(
                "SELECT nonce, ciphertext FROM documents WHERE document_id = ?", (document_id,)
            ).fetchone()
        return (row[0], row[1]) if row else None
