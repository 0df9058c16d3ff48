"""The store's usage ledger: one row per key and day, booked by translations and uploads, and
every analytics figure computed from it in SQL."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from emulator.ledger import (
    CHUNK_ROWS,
    UNKNOWN,
    LedgerRow,
    PairLedgerRow,
    TagLedgerRow,
    UsageAmounts,
)
from emulator.store.database import Database
from emulator.store.key_store import StoredKey
from emulator.store.shares import NONZERO, PAIR_SUMS, PAIRED, TAGGED
from emulator.store.window_cache import WindowCache

T = TypeVar("T")

SUMS = """
    SUM(text_translation_characters), SUM(document_translation_characters),
    SUM(text_improvement_characters), SUM(speech_to_text_minutes), SUM(speech_to_speech_minutes)
"""


class UsageLedger(Database):
    """The `usage` table and the reports read from it; paged reports keep their windows
    (`WindowCache`) until the ledger changes."""

    def __init__(self, path: Path | str | None) -> None:
        super().__init__(path)
        self._windows = WindowCache(self._conn)

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
            # The ledger changed, so no kept window holds.
            self._windows.forget()

    def forget_windows(self) -> None:
        """Drop every kept window, so the next page 1 computes its report again (a benchmark
        measures fetches that way, as a service answers a new request)."""
        with self._lock:
            self._windows.forget()

    def total(self, first: dt.date, stop: dt.date, key_id: int | None = None) -> UsageAmounts:
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
        """(masked key, latest label in range, *UsageAmounts) per key with usage in [first, stop).

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
        """`shape` of each chunk of (ISO day, masked key, label that day, *UsageAmounts) rows sorted
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
            table = self._windows.table(("tags", *bounds, by_day), query, bounds)
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
        """(ISO day or None, source, target, masked key or '-' or None, label or None,
        *UsageAmounts) per language pair (and day, and key) of [first, stop) with usage, sorted
        by (day,) source, target(, key with '-' last); the slice [offset, offset + limit).

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
            table = self._windows.table(("pairs", *bounds, by_key, by_day), query, bounds)
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


def _ledger_rows(rows: list[tuple]) -> list[LedgerRow]:
    return [LedgerRow(dt.date.fromisoformat(day), *rest) for day, *rest in rows]
