"""Closed days of usage kept in DuckDB, one file per base address and account.

Each kind of daily rows (key-days, tag-days, pair-days) has its own table and its own table of
covered days in the same file. Readers open the file read-only and the writer holds it only for one
short transaction, so dashboard sessions and a nightly export can share it. DuckDB lets one
process write at a time: when the file is busy the caller simply fetches from the service
instead (logged). A file that cannot be opened or read for any other reason (a crash or a full
disk left it corrupt or truncated) is moved aside, kept with the time in its name, and a new
one is built from the service on that run: one warning says so, and the next run is quiet.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb
import pandas as pd
from pydantic import SecretStr

from analytics.service import ServiceConnection
from analytics.storage import move_aside
from analytics.usage.frames import (
    DATE_DTYPE,
    KEY_DAY_DTYPES,
    PAIR_DAY_DTYPES,
    PAIR_KEY_DAY_DTYPES,
    TAG_DAY_DTYPES,
    empty_rows,
)

log = logging.getLogger(__name__)

_SQL_TYPES = {DATE_DTYPE: "DATE", "str": "VARCHAR", "int64": "BIGINT", "float64": "DOUBLE"}
# The layout of the file, in its name: a store written before a column existed never counted
# it, so a new layout starts a new file (and fetches again) rather than reading zeros.
LAYOUT = "v2"
# DuckDB refuses a second connection with other options in the same process: one at a time.
_process_lock = threading.Lock()
# The days a read covers, its two parameters.
_DAYS = "usage_date BETWEEN $1 AND $2"
# How DuckDB says another process holds the file: busy, not damaged.
_BUSY = "Could not set lock on file"


@dataclass(frozen=True)
class Stored:
    """One kind of daily rows in the store: its table, the table of the days it covers (days
    without usage included), and its columns with their plain dtypes."""

    table: str
    covered: str
    dtypes: Mapping[str, str]

    @property
    def columns(self) -> str:
        return ", ".join(self.dtypes)

    @property
    def texts(self) -> list[str]:
        """The text columns (keys, labels, tags, languages): a few hundred distinct values."""
        return [column for column, dtype in self.dtypes.items() if dtype == "str"]

    @property
    def coded_rows(self) -> str:
        """The rows of the days $1..$2, each text as its position among the distinct texts
        of those days in sorted order (`distinct`): DuckDB hands over integers, not a string
        per row, which took most of the time of reading five years back."""
        codes = [
            f"{c}_codes AS (SELECT {c}, (row_number() OVER (ORDER BY {c}) - 1)::INTEGER AS code"  # noqa: S608
            f" FROM (SELECT DISTINCT {c} FROM {self.table} WHERE {_DAYS}))"
            for c in self.texts
        ]
        selected = ", ".join(
            f"{c}_codes.code AS {c}" if c in self.texts else c for c in self.dtypes
        )
        joins = " ".join(f"JOIN {c}_codes USING ({c})" for c in self.texts)
        return f"WITH {', '.join(codes)} SELECT {selected} FROM {self.table} {joins} WHERE {_DAYS}"  # noqa: S608

    def distinct(self, column: str) -> str:
        """The distinct texts of `column` in the days $1..$2, in the order `coded_rows`
        numbers them."""
        return f"SELECT DISTINCT {column} FROM {self.table} WHERE {_DAYS} ORDER BY {column}"  # noqa: S608

    @property
    def schema(self) -> str:
        columns = ", ".join(f"{c} {_SQL_TYPES[t]} NOT NULL" for c, t in self.dtypes.items())
        return (
            f"CREATE TABLE IF NOT EXISTS {self.table} ({columns});"
            f"CREATE TABLE IF NOT EXISTS {self.covered} (day DATE PRIMARY KEY);"
        )


KEY_DAYS = Stored("usage", "covered_days", KEY_DAY_DTYPES)
TAG_DAYS = Stored("tag_usage", "tag_covered_days", TAG_DAY_DTYPES)
PAIR_DAYS = Stored("pair_day_usage", "pair_day_covered_days", PAIR_DAY_DTYPES)
# By key: the tables that held pair usage before the pair-day report had its own.
PAIR_KEY_DAYS = Stored("pair_usage", "pair_covered_days", PAIR_KEY_DAY_DTYPES)


def _digest(text: str, length: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:length]


def account_name(base_url: str, auth_key: SecretStr) -> str:
    """How files of one account are named: digests of the address and the key, never the key
    itself."""
    return f"{_digest(base_url, 12)}-{_digest(auth_key.get_secret_value(), 16)}"


class HistoryStore:
    """Rows of closed days and the set of days already covered (zero-usage days included)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_account(cls, folder: Path, base_url: str, auth_key: SecretStr) -> HistoryStore:
        """The store of one account: the file name holds digests, never the key itself."""
        return cls(folder / f"{account_name(base_url, auth_key)}-{LAYOUT}.duckdb")

    @classmethod
    def from_connection(cls, connection: ServiceConnection) -> HistoryStore | None:
        """The configured account's store; None without a key and address or with no path."""
        if not (connection.is_configured and connection.auth_key and connection.base_url):
            return None
        if connection.history_path is None:
            return None
        return cls.for_account(connection.history_path, connection.base_url, connection.auth_key)

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

    def read(self, kind: Stored, first: date, last: date) -> tuple[pd.DataFrame, set[date]] | None:
        """Stored rows of `kind` and covered days within first..last; None when the file is
        busy."""
        nothing = empty_rows(kind.dtypes), set[date]()
        if last < first or not self.path.exists():
            return nothing
        try:
            with self._connect(read_only=True) as db:
                tables = "SELECT 1 FROM information_schema.tables WHERE table_name = ?"
                if db.execute(tables, [kind.covered]).fetchone() is None:
                    return nothing  # a file written before this kind was stored
                days = db.execute(
                    f"SELECT day FROM {kind.covered} WHERE day BETWEEN ? AND ?",  # noqa: S608
                    [first, last],
                ).fetchall()
                rows = db.sql(kind.coded_rows, params=[first, last]).to_arrow_table()
                texts = {
                    column: [
                        text
                        for (text,) in db.execute(kind.distinct(column), [first, last]).fetchall()
                    ]
                    for column in kind.texts
                }
        except duckdb.Error as exc:
            if _BUSY in str(exc):
                log.warning("History store %s busy, fetching instead: %s", self.path, exc)
                return None
            self._move_aside(exc)
            return nothing
        # Texts as categoricals: a few hundred distinct keys or tags, not a string per row.
        frame = rows.to_pandas(date_as_object=False)
        for column, distinct in texts.items():
            frame[column] = pd.Categorical.from_codes(
                frame[column].to_numpy(), categories=pd.Index(distinct, dtype="str")
            )
        return frame, {day for (day,) in days}

    def write(self, kind: Stored, rows: pd.DataFrame, ranges: Sequence[tuple[date, date]]) -> bool:
        """Replace the stored days of `kind` in each inclusive range with `rows` of those days
        and mark every day covered, in one transaction; False (logged) when the file is busy."""
        day = rows["usage_date"].dt.date
        inside = pd.Series(False, index=rows.index)
        for first, last in ranges:
            inside |= (day >= first) & (day <= last)
        new_rows = rows.loc[inside, list(kind.dtypes)]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect(read_only=False) as db:
                db.execute(kind.schema)
                db.execute("BEGIN TRANSACTION")
                for first, last in ranges:
                    db.execute(
                        f"DELETE FROM {kind.table} WHERE usage_date BETWEEN ? AND ?",  # noqa: S608
                        [first, last],
                    )
                    db.execute(
                        f"INSERT OR IGNORE INTO {kind.covered} SELECT CAST(d AS DATE) "  # noqa: S608
                        "FROM generate_series(?::DATE, ?::DATE, INTERVAL 1 DAY) t(d)",
                        [first, last],
                    )
                db.register("new_rows", new_rows)
                db.execute(
                    f"INSERT INTO {kind.table} SELECT {kind.columns} FROM new_rows"  # noqa: S608
                )
                db.execute("COMMIT")
        except (duckdb.Error, OSError) as exc:
            log.warning("History store %s not written: %s", self.path, exc)
            return False
        return True

    def _move_aside(self, problem: duckdb.Error) -> None:
        """Keep a damaged file (and its write-ahead log) for a person to look at, out of the
        way of the new store this run builds."""
        try:
            kept = move_aside(self.path)
        except FileNotFoundError:
            return  # another process moved it first and said so
        wal = self.path.with_name(f"{self.path.name}.wal")
        if wal.exists():
            os.replace(wal, kept.with_name(f"{kept.name}.wal"))
        log.warning(
            "History store %s was damaged (%s); kept as %s, rebuilding it from the service",
            self.path,
            problem,
            kept,
        )
