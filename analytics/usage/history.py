"""Closed days of usage kept in DuckDB, one file per base address and account.

Readers open the file read-only and the writer holds it only for one short transaction, so
dashboard sessions and a nightly export can share it. DuckDB lets one process write at a
time: when the file is busy the caller simply fetches from the service instead (logged).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import duckdb
import pandas as pd
from pydantic import SecretStr

from analytics.service.settings import Settings
from analytics.usage.frames import KEY_DAY_COLUMNS, empty_rows

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS usage (
    usage_date DATE NOT NULL,
    api_key VARCHAR NOT NULL,
    api_key_label VARCHAR NOT NULL,
    total_characters BIGINT NOT NULL,
    text_translation_characters BIGINT NOT NULL,
    document_translation_characters BIGINT NOT NULL,
    text_improvement_characters BIGINT NOT NULL,
    speech_to_text_minutes DOUBLE NOT NULL,
    speech_to_speech_minutes DOUBLE NOT NULL
);
CREATE TABLE IF NOT EXISTS covered_days (day DATE PRIMARY KEY);
"""
# The layout of the file, in its name: a store written before a column existed never counted
# it, so a new layout starts a new file (and fetches again) rather than reading zeros.
LAYOUT = "v2"
_COLUMNS = ", ".join(KEY_DAY_COLUMNS)
# DuckDB refuses a second connection with other options in the same process: one at a time.
_process_lock = threading.Lock()


def _digest(text: str, length: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:length]


class HistoryStore:
    """Rows of closed days and the set of days already covered (zero-usage days included)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_account(cls, folder: Path, base_url: str, auth_key: SecretStr) -> HistoryStore:
        """The store of one account: the file name holds digests, never the key itself."""
        account = f"{_digest(base_url, 12)}-{_digest(auth_key.get_secret_value(), 16)}"
        return cls(folder / f"{account}-{LAYOUT}.duckdb")

    @classmethod
    def from_settings(cls, settings: Settings) -> HistoryStore | None:
        """The configured account's store; None without a key and address or with no path."""
        if not (settings.is_configured and settings.auth_key and settings.base_url):
            return None
        if settings.history_path is None:
            return None
        return cls.for_account(settings.history_path, settings.base_url, settings.auth_key)

    def __repr__(self) -> str:
        return f"HistoryStore({str(self.path)!r})"

    @contextmanager
    def _connect(self, read_only: bool) -> Iterator[duckdb.DuckDBPyConnection]:
        with _process_lock:
            connection = duckdb.connect(str(self.path), read_only=read_only)
            try:
                yield connection
            finally:
                connection.close()

    def read(self, first: date, last: date) -> tuple[pd.DataFrame, set[date]] | None:
        """Stored rows and covered days within first..last; None when the file is busy."""
        if last < first or not self.path.exists():
            return empty_rows(), set()
        try:
            with self._connect(read_only=True) as db:
                days = db.execute(
                    "SELECT day FROM covered_days WHERE day BETWEEN ? AND ?", [first, last]
                ).fetchall()
                rows = db.sql(
                    f"SELECT {_COLUMNS} FROM usage WHERE usage_date BETWEEN ? AND ?",  # noqa: S608
                    params=[first, last],
                ).to_arrow_table()
        except duckdb.Error as exc:
            log.warning("History store %s not readable, fetching instead: %s", self.path, exc)
            return None
        # Keys and labels as categoricals: a few hundred distinct texts, not a string per row.
        return rows.to_pandas(strings_to_categorical=True, date_as_object=False), {
            day for (day,) in days
        }

    def write(self, rows: pd.DataFrame, ranges: Sequence[tuple[date, date]]) -> bool:
        """Replace the stored days of each inclusive range with `rows` of those days and mark
        every day covered, in one transaction; False (logged) when the file is busy."""
        day = rows["usage_date"].dt.date
        inside = pd.Series(False, index=rows.index)
        for first, last in ranges:
            inside |= (day >= first) & (day <= last)
        new_rows = rows.loc[inside, KEY_DAY_COLUMNS]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect(read_only=False) as db:
                db.execute(_SCHEMA)
                db.execute("BEGIN TRANSACTION")
                for first, last in ranges:
                    db.execute("DELETE FROM usage WHERE usage_date BETWEEN ? AND ?", [first, last])
                    db.execute(
                        "INSERT OR IGNORE INTO covered_days SELECT CAST(d AS DATE) "
                        "FROM generate_series(?::DATE, ?::DATE, INTERVAL 1 DAY) t(d)",
                        [first, last],
                    )
                db.register("new_rows", new_rows)
                db.execute(f"INSERT INTO usage SELECT {_COLUMNS} FROM new_rows")  # noqa: S608
                db.execute("COMMIT")
        except (duckdb.Error, OSError) as exc:
            log.warning("History store %s not written: %s", self.path, exc)
            return False
        return True
