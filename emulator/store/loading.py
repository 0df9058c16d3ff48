"""An organization loaded into the store's tables: keys in masked-key order, the ledger, and
each key's tag shares and language pairs once (see `shares`)."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator
from typing import Any

from emulator.org import Organization
from emulator.store.database import SCHEMA, TABLES
from emulator.store.key_store import instant_text, secret_digest
from emulator.store.shares import pair_rows


def load(conn: sqlite3.Connection, stamp: str, org: Organization, served_from: str) -> None:
    """Recreate the tables (a file may hold an older layout) and fill them from `org`, in one
    transaction; the caller holds the database's lock."""
    order = sorted(range(len(org.keys)), key=lambda i: org.keys[i].masked)
    key_id = {index: rank + 1 for rank, index in enumerate(order)}
    with conn:
        conn.execute("BEGIN")
        for table in TABLES:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in SCHEMA.split(";"):
            conn.execute(statement)
        conn.executemany(
            "INSERT INTO keys VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            _key_rows(org, key_id, served_from),
        )
        conn.executemany(
            "INSERT INTO usage VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            ((day, key_id[i], *rest) for day, i, *rest in org.usage),
        )
        conn.executemany("INSERT INTO key_tags VALUES (?, ?, ?, ?, ?)", _tag_rows(org, key_id))
        pairs = [row for i, k in enumerate(org.keys) for row in pair_rows(key_id[i], k.pairs)]
        pair_id = {pair: n for n, pair in enumerate(sorted({row[1] for row in pairs}), 1)}
        conn.executemany(
            "INSERT INTO language_pairs VALUES (?, ?, ?)",
            ((n, *pair) for pair, n in pair_id.items()),
        )
        conn.executemany(
            "INSERT INTO key_pairs VALUES (?, ?, ?, ?, ?, ?, ?)",
            ((k, pair_id[pair], *rest) for k, pair, *rest in pairs),
        )
        conn.execute("INSERT INTO meta VALUES ('org', ?)", (stamp,))


def _key_rows(org: Organization, key_id: dict[int, int], served_from: str) -> list[tuple[Any, ...]]:
    """The keys' rows, by the ids of their masked-key order. A key without a creation time was
    created on its first day of usage (the day the server serves from, for one never used), so
    that the key list never shows a key used before it existed."""
    first_days: dict[int, str] = {}
    for day, i, *_ in org.usage:
        first_days.setdefault(i, day)
    return [
        (
            key_id[i],
            secret_digest(k.key),
            k.masked,
            k.label,
            k.admin,
            k.detect_beta,
            k.published_id,
            instant_text(k.created) or f"{first_days.get(i, served_from)}T00:00:00.000Z",
            instant_text(k.deactivated),
            k.character_limit,
            k.speech_to_text_milliseconds_limit,
        )
        for i, k in enumerate(org.keys)
    ]


def _tag_rows(org: Organization, key_id: dict[int, int]) -> Iterator[tuple[Any, ...]]:
    """Each key's tag shares, an open span stored as the earliest and latest dates so that
    the store's range queries need no case for it."""
    return (
        (
            key_id[i],
            t.tag,
            t.parts,
            (t.first or dt.date.min).isoformat(),
            (t.last or dt.date.max).isoformat(),
        )
        for i, k in enumerate(org.keys)
        for t in k.tags
    )
