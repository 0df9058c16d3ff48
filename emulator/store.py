"""The SQLite usage ledger and document store; every analytics figure is computed here in SQL."""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import logging
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

from emulator.ledger import CHUNK_ROWS, UNKNOWN, LedgerRow, PairLedgerRow, TagLedgerRow, Usage
from emulator.org import PARTS, LanguagePair, Organization

T = TypeVar("T")
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

SUMS = """
    SUM(text_translation_characters), SUM(document_translation_characters),
    SUM(text_improvement_characters), SUM(speech_to_text_minutes), SUM(speech_to_speech_minutes)
"""


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


# Ledger column, its name in PAIRED, and the kind of language pair that carries it (False:
# translation pairs, True: same-language pairs; see org.LanguagePair); in Usage order.
PAIR_METRICS = (
    ("text_translation_characters", "text", False),
    ("document_translation_characters", "document", False),
    ("text_improvement_characters", "improvement", True),
    ("speech_to_text_minutes", "speech_to_text", True),
    ("speech_to_speech_minutes", "speech_to_speech", False),
)


def _part(column: str) -> str:
    """The pair's part of a key-day figure, as the difference of two cumulative shares: floors
    for characters, minutes rounded to six decimals. The parts of a figure then add up to it
    exactly (minutes to six decimals, as every answer rounds them). Zero figures, the most
    common, are not computed at all."""

    def cumulative(bound: str) -> str:
        share = f"u.{column} * p.{bound} / p.total"
        return f"ROUND({share}, 6)" if column.endswith("_minutes") else share

    return (
        f"CASE WHEN u.{column} > 0 THEN {cumulative('high')} - {cumulative('low')} "
        f"ELSE {_zero(column)} END"
    )


def _zero(column: str) -> str:
    return "0.0" if column.endswith("_minutes") else "0"


def _paired(same: bool) -> str:
    """Usage per key-day and pair of one kind; key-days with nothing of that kind are skipped."""
    parts = ", ".join(
        f"{_part(column) if kind is same else _zero(column)} AS {name}"
        for column, name, kind in PAIR_METRICS
    )
    used = " OR ".join(f"u.{column} > 0" for column, _, kind in PAIR_METRICS if kind is same)
    return f"""
        SELECT u.usage_date, u.key_id, u.label, p.pair_id, p.attributed, {parts}
        FROM usage u JOIN key_pairs p ON p.key_id = u.key_id AND p.same = {int(same)}
        WHERE u.usage_date >= ?1 AND u.usage_date < ?2 AND ({used})
    """  # noqa: S608 - built from constants


# Each key-day's usage per language pair; parameters as TAGGED.
PAIRED = f"{_paired(same=False)} UNION ALL {_paired(same=True)}"
PAIR_SUMS = ", ".join(f"SUM({name}) AS {name}" for _, name, _ in PAIR_METRICS)
NONZERO = (
    "SUM(text) + SUM(document) + SUM(improvement) > 0 OR SUM(speech_to_text) > 0 "
    "OR SUM(speech_to_speech) > 0"
)
# Report windows whose rows are kept for paging: a client reads a long range as up to six
# windows at once, page after page, so fewer would recompute windows it is still reading.
WINDOWS_KEPT = 8


@dataclass(frozen=True)
class StoredKey:
    """What a request's authorization resolves to."""

    key_id: int
    masked: str
    label: str
    admin: bool
    detect_beta: bool
    character_limit: int | None = None
    speech_limit_ms: int | None = None


DEVELOPER_KEY = (
    "key_id, published_id, masked, label, created, deactivated, character_limit, speech_limit_ms"
)


@dataclass(frozen=True)
class DeveloperKeyRow:
    """A developer key as stored (the secret is not read back)."""

    key_id: int
    published_id: str
    masked: str
    label: str
    created: str
    deactivated: str | None
    character_limit: int | None
    speech_limit_ms: int | None


def instant_text(moment: dt.datetime | None) -> str | None:
    """An instant as the service writes it: ISO 8601 in UTC with milliseconds and a Z."""
    if moment is None:
        return None
    return moment.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def secret_digest(secret: str) -> str:
    """What the store keeps of a key's secret: a database file (the demo's lives in the
    history folder) must never hold one, as a real service would not."""
    return hashlib.sha256(secret.encode()).hexdigest()


class Store:
    """One SQLite connection shared by all threads and event loops, serialized by a lock.

    A database file may be shared by several processes (the dashboard's demo and its
    commands): SQLite serializes their writes, and whoever loads an organization into it
    holds a lock of its own around `ensure` (see `analytics.service.demo`)."""

    def __init__(self, path: Path | str | None) -> None:
        self._lock = threading.Lock()
        self._conn = _connect(Path(path) if path else None)
        # Only `meta` before `ensure`: a file of an older layout is told apart by its stamp
        # and reloaded, where its other tables might not take today's indexes.
        self._conn.execute(META)
        # Paged reports' windows, most recently read last: parameters -> temporary table.
        self._windows: OrderedDict[tuple[object, ...], str] = OrderedDict()
        self._serial = itertools.count()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

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
        self._load(stamp, org, served_from.isoformat())
        return True

    def _load(self, stamp: str, org: Organization, served_from: str) -> None:
        """Recreate the tables (a file may hold an older layout) and fill them from `org`."""
        order = sorted(range(len(org.keys)), key=lambda i: org.keys[i].masked)
        key_id = {index: rank + 1 for rank, index in enumerate(order)}
        with self._lock, self._conn:
            self._conn.execute("BEGIN")
            for table in TABLES:
                self._conn.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in SCHEMA.split(";"):
                self._conn.execute(statement)
            first_days: dict[int, str] = {}
            for day, i, *_ in org.usage:
                first_days.setdefault(i, day)
            self._conn.executemany(
                "INSERT INTO keys VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        key_id[i],
                        secret_digest(k.key),
                        k.masked,
                        k.label,
                        k.admin,
                        k.detect_beta,
                        k.published_id,
                        instant_text(k.created)
                        or f"{first_days.get(i, served_from)}T00:00:00.000Z",
                        instant_text(k.deactivated),
                        k.character_limit,
                        k.speech_to_text_milliseconds_limit,
                    )
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
            pairs = [row for i, k in enumerate(org.keys) for row in _pair_rows(key_id[i], k.pairs)]
            pair_id = {pair: n for n, pair in enumerate(sorted({row[1] for row in pairs}), 1)}
            self._conn.executemany(
                "INSERT INTO language_pairs VALUES (?, ?, ?)",
                ((n, *pair) for pair, n in pair_id.items()),
            )
            self._conn.executemany(
                "INSERT INTO key_pairs VALUES (?, ?, ?, ?, ?, ?, ?)",
                ((k, pair_id[pair], *rest) for k, pair, *rest in pairs),
            )
            self._conn.execute("INSERT INTO meta VALUES ('org', ?)", (stamp,))

    def find_key(self, key: str) -> StoredKey | None:
        """The active key with this secret; a deactivated key is refused like an unknown one."""
        with self._lock:
            row = self._conn.execute(
                """
                SELECT key_id, masked, label, admin, detect_beta, character_limit,
                       speech_limit_ms
                FROM keys WHERE key = ? AND deactivated IS NULL
                """,
                (secret_digest(key),),
            ).fetchone()
        return (
            StoredKey(row[0], row[1], row[2], bool(row[3]), bool(row[4]), *row[5:]) if row else None
        )

    def developer_keys(self) -> list[DeveloperKeyRow]:
        """Every developer key (admin keys are not), active and deactivated, oldest first."""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {DEVELOPER_KEY} FROM keys WHERE NOT admin ORDER BY created, key_id"  # noqa: S608
            ).fetchall()
        return [DeveloperKeyRow(*row) for row in rows]

    def developer_key(self, published_id: str) -> DeveloperKeyRow | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {DEVELOPER_KEY} FROM keys WHERE NOT admin AND published_id = ?",  # noqa: S608
                (published_id,),
            ).fetchone()
        return DeveloperKeyRow(*row) if row else None

    def add_key(self, key: str, masked: str, label: str, published_id: str, created: str) -> None:
        """A new developer key; its row id follows every other (ids need not follow masks)."""
        with self._lock:
            self._conn.execute(
                """
                INSERT INTO keys (key_id, key, masked, label, admin, detect_beta, published_id,
                                  created)
                VALUES ((SELECT MAX(key_id) + 1 FROM keys), ?, ?, ?, 0, 0, ?, ?)
                """,
                (secret_digest(key), masked, label, published_id, created),
            )

    def change_key(self, published_id: str, **columns: object) -> None:
        """Set columns of a developer key's row (label, deactivated, the limits)."""
        assignments = ", ".join(f"{name} = ?" for name in columns)
        with self._lock:
            self._conn.execute(
                f"UPDATE keys SET {assignments} WHERE published_id = ?",  # noqa: S608
                (*columns.values(), published_id),
            )

    def active_developer_keys(self) -> int:
        with self._lock:
            row = self._conn.execute(
                "SELECT COUNT(*) FROM keys WHERE NOT admin AND deactivated IS NULL"
            ).fetchone()
        return int(row[0])

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
            self._forget_windows()

    def _window(self, parameters: tuple[object, ...], query: str, bounds: tuple[str, str]) -> str:
        """The temporary table holding a paged report's rows for `parameters`, in report order
        (rowid 1, 2, ...): `query` runs once per window, and each page is a slice of its rows
        instead of the whole window's aggregation again. The least recently read window goes
        when more than WINDOWS_KEPT are held. Called with the lock held."""
        table = self._windows.get(parameters)
        if table is None:
            table = f"temp.report_window_{next(self._serial)}"
            self._conn.execute(f"CREATE TABLE {table} AS {query}", bounds)
            self._windows[parameters] = table
            if len(self._windows) > WINDOWS_KEPT:
                self._conn.execute(f"DROP TABLE {self._windows.popitem(last=False)[1]}")
        self._windows.move_to_end(parameters)
        return table

    def forget_windows(self) -> None:
        """Drop every kept window, so the next page 1 computes its report again (a benchmark
        measures fetches that way, as a service answers a new request)."""
        with self._lock:
            self._forget_windows()

    def _forget_windows(self) -> None:
        """The ledger changed, so no kept window holds; called with the lock held."""
        for table in self._windows.values():
            self._conn.execute(f"DROP TABLE {table}")
        self._windows.clear()

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

    def by_key_and_day(
        self, first: dt.date, stop: dt.date, shape: Callable[[list[tuple]], T]
    ) -> list[T]:
        """`shape` of each chunk of (ISO day, masked key, label that day, *Usage) rows sorted
        by day, then masked key. A year of a thousand keys is 180,000 rows: as Python objects
        all at once they took several times the memory of the answer made of them, so each
        chunk's are gone before the next chunk's are read."""
        with self._lock:
            cursor = self._conn.execute(
                """
                SELECT u.usage_date, k.masked, u.label, u.text_translation_characters,
                       u.document_translation_characters, u.text_improvement_characters,
                       u.speech_to_text_minutes, u.speech_to_speech_minutes
                FROM usage u JOIN keys k USING (key_id)
                WHERE u.usage_date >= ? AND u.usage_date < ?
                ORDER BY u.usage_date, u.key_id
                """,
                (first.isoformat(), stop.isoformat()),
            )
            return [shape(rows) for rows in iter(partial(cursor.fetchmany, CHUNK_ROWS), [])]

    def ledger(self, start: dt.date, end: dt.date) -> list[LedgerRow]:
        """Stored key-days of the inclusive day range, in analytics order."""
        chunks = self.by_key_and_day(start, end + dt.timedelta(days=1), _ledger_rows)
        return list(itertools.chain.from_iterable(chunks))

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
        """(ISO day or None, tag, text, improvement) per tag (and day) of [first, stop) with
        characters, sorted by (day,) tag; the slice [offset, offset + limit)."""
        day = "usage_date, " if by_day else ""
        query = f"""
            SELECT {"usage_date" if by_day else "NULL"}, tag, SUM(text), SUM(improvement)
            FROM ({TAGGED})
            GROUP BY {day}tag HAVING SUM(text) + SUM(improvement) > 0
            ORDER BY {day}tag
        """  # noqa: S608 - built from constants
        bounds = (first.isoformat(), stop.isoformat())
        with self._lock:
            table = self._window(("tags", *bounds, by_day), query, bounds)
            return self._conn.execute(
                f"SELECT * FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT ?",  # noqa: S608
                (offset, limit),
            ).fetchall()

    def pair_ledger(self, start: dt.date, end: dt.date) -> list[PairLedgerRow]:
        """Usage per key-day and language pair of the inclusive day range (none all zero),
        sorted by day, masked key, source, target, attributed."""
        stop = end + dt.timedelta(days=1)
        with self._lock:
            rows = self._conn.execute(
                f"""
                SELECT s.usage_date, k.masked, s.label, l.source, l.target, s.attributed,
                       {PAIR_SUMS}
                FROM ({PAIRED}) s JOIN keys k USING (key_id) JOIN language_pairs l USING (pair_id)
                GROUP BY s.usage_date, s.key_id, s.pair_id, s.attributed
                HAVING {NONZERO}
                ORDER BY s.usage_date, s.key_id, s.pair_id, s.attributed
                """,  # noqa: S608
                (start.isoformat(), stop.isoformat()),
            ).fetchall()
        return [
            PairLedgerRow(dt.date.fromisoformat(day), masked, label, source, target, bool(a), *sums)
            for day, masked, label, source, target, a, *sums in rows
        ]

    def pair_usage(
        self,
        first: dt.date,
        stop: dt.date,
        *,
        by_key: bool,
        by_day: bool,
        limit: int,
        offset: int,
    ) -> list[tuple]:
        """(ISO day or None, source, target, masked key or '-' or None, label or None, *Usage)
        per language pair (and day, and key) of [first, stop) with usage, sorted by (day,)
        source, target(, key with '-' last); the slice [offset, offset + limit).

        Unattributed usage of all keys is one key '-' labelled 'unknown'. Grouping runs on
        integer ids (pair ids sort as their names, key ids as the masked keys); names are
        looked up for the page's rows only. SQLite takes bare columns of a MAX() aggregate from
        the row holding the maximum, so a key's label is that of its last day in the group
        (that day's label when by day).
        """
        key = "CASE WHEN attributed THEN key_id END" if by_key else "NULL"
        groups = ", ".join(["usage_date"] * by_day + ["pair_id"] + ["key"] * by_key)
        order = ", ".join(["day"] * by_day + ["pair_id"] + ["key IS NULL, key"] * by_key)
        query = f"""
            SELECT {"usage_date" if by_day else "NULL"} AS day, pair_id, {key} AS key, label,
                   {PAIR_SUMS}, MAX(usage_date)
            FROM ({PAIRED}) GROUP BY {groups} HAVING {NONZERO} ORDER BY {order}
        """  # noqa: S608 - built from constants
        bounds = (first.isoformat(), stop.isoformat())
        with self._lock:
            table = self._window(("pairs", *bounds, by_key, by_day), query, bounds)
            return self._conn.execute(
                f"""
                SELECT g.day, l.source, l.target,
                       CASE WHEN g.key IS NOT NULL THEN k.masked WHEN ?3 THEN '{UNKNOWN}' END,
                       CASE WHEN g.key IS NOT NULL THEN g.label WHEN ?3 THEN 'unknown' END,
                       g.text, g.document, g.improvement, g.speech_to_text, g.speech_to_speech
                FROM {table} g JOIN language_pairs l USING (pair_id)
                    LEFT JOIN keys k ON k.key_id = g.key
                WHERE g.rowid > ?1 ORDER BY g.rowid LIMIT ?2
                """,  # noqa: S608
                (offset, limit, by_key),
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


def _ledger_rows(rows: list[tuple]) -> list[LedgerRow]:
    return [LedgerRow(dt.date.fromisoformat(day), *rest) for day, *rest in rows]


def _pair_rows(key_id: int, pairs: tuple[LanguagePair, ...]) -> list[tuple]:
    """(key id, (source, target), attributed, same, low, high, total) of one key: per kind,
    its pairs with cumulative weights; a kind the key declares no pair for goes to the pair
    '-' → '-' (language not recorded)."""
    rows = []
    for same in (False, True):
        kind = [p for p in pairs if p.same_language is same] or [LanguagePair(UNKNOWN, UNKNOWN, 1)]
        total, low = sum(p.weight for p in kind), 0
        for p in kind:
            pair = (p.source, p.target)
            rows.append((key_id, pair, p.attributed, same, low, low + p.weight, total))
            low += p.weight
    return rows
