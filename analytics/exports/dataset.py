"""The incremental dataset a warehouse reads: the key-and-day usage with cost and the FOCUS
rows of a range, as Hive partitions of Parquet (``usage/date=YYYY-MM-DD/part.parquet``,
``focus/date=…/part.parquet``) in a folder or an object store (``s3://bucket/prefix``), with a
``manifest.json`` written last.

A run writes only the partitions whose content changed since the manifest's hash of them, and
every open day (the service may still revise it) whatever its hash: a nightly run over a month
rewrites a few files, not the month, and a run with nothing new writes nothing. Each partition
is written whole or not at all (a temporary file renamed in a folder; one PUT on an object
store, which a reader sees whole or not at all), and the manifest only after them, so a run
stopped half-way leaves the previous manifest and only complete files; the next run finds the
hashes it lacks and writes those partitions again.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Final, cast

import fsspec
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from analytics.exports.formats import exact
from analytics.storage.files import write_atomic

SCHEMA_VERSION: Final = 1
MANIFEST: Final = "manifest.json"
PART: Final = "part.parquet"
# Each table of the dataset and the column its rows are partitioned by (the day of the row).
TABLES: Final = {"usage": "usage_date", "focus": "ChargePeriodStart"}


@dataclass(frozen=True)
class Partition:
    """One day of one table: where it is under the destination, its rows and the hash of its
    content, which the manifest keeps to tell a changed day from an unchanged one."""

    table: str
    day: date
    rows: int
    sha256: str

    @property
    def path(self) -> str:
        return f"{self.table}/date={self.day:%Y-%m-%d}/{PART}"


@dataclass(frozen=True)
class Outcome:
    """What a run did: the partitions it wrote, how many it left as they were, the
    partitions of days that no longer have rows which it removed, and whether the manifest
    changed."""

    written: tuple[str, ...]
    unchanged: int
    removed: tuple[str, ...]
    manifest_written: bool


class Destination:
    """A folder or an object-storage URL, through fsspec: each file put whole (`put`), the
    one writer a run has, so a test can stop a run after some partitions."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.fs, self.root = fsspec.core.url_to_fs(self.url)
        self.local = "file" in _protocols(self.fs)

    def _at(self, relative: str) -> str:
        return f"{self.root}/{relative}"

    def read(self, relative: str) -> bytes | None:
        """A file's bytes, or None where there is none."""
        path = self._at(relative)
        if not self.fs.exists(path):
            return None
        content: bytes = self.fs.cat_file(path)
        return content

    def put(self, relative: str, content: bytes) -> None:
        """The file written whole or not at all: in a folder a temporary file renamed over
        it; on an object store one PUT (s3fs sends a file this small in one request)."""
        path = self._at(relative)
        if self.local:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            write_atomic(content, Path(path))
            return
        self.fs.pipe_file(path, content)

    def remove(self, relative: str) -> None:
        self.fs.rm(self._at(relative))


def _protocols(fs: Any) -> tuple[str, ...]:
    protocol = fs.protocol
    return (protocol,) if isinstance(protocol, str) else tuple(protocol)


def file_schema(table: pd.DataFrame) -> pa.Schema:
    """One Arrow schema for every partition of a table, from all its rows: each day's
    inferred alone would differ (a decimal's precision from its largest amount, a column of a
    day without values as nulls), which a reader of the whole dataset refuses. Decimals at the
    widest precision, their scale the amounts' own, and names as plain text: a categorical's
    dictionary lists every name of the range, so a day's file would change with other days."""
    inferred = pa.Schema.from_pandas(exact(table), preserve_index=False)
    return pa.schema([field.with_type(_stable(field.type)) for field in inferred])


def _stable(kind: pa.DataType) -> pa.DataType:
    if pa.types.is_decimal(kind):
        return pa.decimal128(38, kind.scale)
    if pa.types.is_dictionary(kind):
        return kind.value_type
    return kind


def parquet_bytes(rows: pd.DataFrame, schema: pa.Schema) -> bytes:
    """A partition's file: the rows at the service's precision (`formats.exact`) in the
    table's schema; the same rows give the same bytes, so their hash tells a changed day."""
    buffer = io.BytesIO()
    table = pa.Table.from_pandas(exact(rows), schema=schema, preserve_index=False)
    pq.write_table(table.replace_schema_metadata(), buffer)
    return buffer.getvalue()


def by_day(table: pd.DataFrame, column: str) -> dict[date, pd.DataFrame]:
    """The table's rows per day of ``column`` (a date, or a UTC timestamp)."""
    days = pd.to_datetime(table[column]).dt.date
    return {
        cast(date, day): rows.reset_index(drop=True)
        for day, rows in table.groupby(days.to_numpy(), sort=True)
    }


def read_manifest(destination: Destination) -> dict[str, Partition]:
    """The partitions the last complete run wrote, by path; none before a first run, or
    where the manifest is of another schema version (then every partition is written)."""
    content = destination.read(MANIFEST)
    if content is None:
        return {}
    manifest = json.loads(content)
    if manifest.get("schema_version") != SCHEMA_VERSION:
        return {}
    partitions = (
        Partition(p["table"], date.fromisoformat(p["date"]), p["rows"], p["sha256"])
        for p in manifest["partitions"]
    )
    return {p.path: p for p in partitions}


def manifest_bytes(partitions: Mapping[str, Partition], run_at: datetime) -> bytes:
    listed = [
        {"table": p.table, "date": p.day.isoformat(), "path": p.path, "rows": p.rows}
        | {"sha256": p.sha256}
        for _, p in sorted(partitions.items())
    ]
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "run_at": run_at.isoformat(),
        "partitions": listed,
    }
    return json.dumps(manifest, indent=2).encode() + b"\n"


@dataclass(frozen=True)
class Days:
    """The run's days: its range, and the first open day (from it on, always written)."""

    first: date
    last: date
    first_open: date


def write_dataset(
    destination: Destination,
    tables: Mapping[str, pd.DataFrame],
    days: Days,
    run_at: datetime,
) -> Outcome:
    """Write the tables' partitions of the range that changed, and the open days', then the
    manifest (partitions outside the range kept as listed); the manifest is left as it was
    when nothing changed."""
    known = read_manifest(destination)
    fresh: dict[str, tuple[Partition, bytes]] = {}
    for table, column in TABLES.items():
        schema = file_schema(tables[table])
        for day, rows in by_day(tables[table], column).items():
            content = parquet_bytes(rows, schema)
            part = Partition(table, day, len(rows), hashlib.sha256(content).hexdigest())
            fresh[part.path] = (part, content)
    written = []
    for path, (part, content) in fresh.items():
        if known.get(path) == part and part.day < days.first_open:
            continue
        destination.put(path, content)
        written.append(path)
    stale = [
        path
        for path, part in known.items()
        if days.first <= part.day <= days.last and path not in fresh
    ]
    kept = {path: part for path, part in known.items() if path not in stale}
    listed = kept | {path: part for path, (part, _) in fresh.items()}
    changed = bool(written or stale or (not known and listed))
    if changed:
        destination.put(MANIFEST, manifest_bytes(listed, run_at))
    for path in stale:
        destination.remove(path)
    return Outcome(tuple(written), len(fresh) - len(written), tuple(stale), changed)
