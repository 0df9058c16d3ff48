"""The incremental dataset a warehouse reads: the key-and-day usage with cost and the FOCUS
rows of a range, as Hive partitions of Parquet (``usage/date=YYYY-MM-DD/part.parquet``,
``focus/date=…/part.parquet``) in a folder or an object store (``s3://bucket/prefix``), with a
``manifest.json`` written last.

A run computes only the days that can have changed since the last run (`first_changed`):
the manifest keeps what that run was computed from (its range, its first open day, a digest of
the prices, teams and account every row depends on, each table's schema), so a nightly run
reads and prices the month of its new day and the days the service may still revise, not the
range; new prices or teams, or another range start, compute the whole range again. Of the
days computed it writes the partitions whose content changed since the manifest's hash of
them, and every open day whatever its hash: a run with nothing new writes nothing. Each
partition is written whole or not at all (a temporary file renamed in a folder; one PUT on an
object store, which a reader sees whole or not at all), and the manifest only after them, so a
run stopped half-way leaves the previous manifest and only complete files; the next run
computes from the same day and writes those partitions again.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, Final, cast

import fsspec
import msgspec
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from analytics import __version__
from analytics.exports.formats import exact
from analytics.storage import write_atomic

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


@dataclass(frozen=True)
class Days:
    """A run's days: its range, and the first open day (from it on, always written)."""

    first: date
    last: date
    first_open: date


@dataclass(frozen=True)
class Basis:
    """What a run was computed from, kept in the manifest so that the next run can tell
    which days may have changed: its days, the digest of the inputs every row depends on
    (`input_digest`), each table's schema (a day recomputed alone is written in it) and each
    key's label (which every row of the key carries)."""

    days: Days
    inputs: str
    schemas: Mapping[str, pa.Schema]
    labels: Mapping[str, str]


@dataclass(frozen=True)
class Manifest:
    """The last complete run: its partitions by path, and what it was computed from (None
    for a manifest written before runs kept it, read as a run of unknown inputs)."""

    partitions: dict[str, Partition]
    basis: Basis | None


def input_digest(*inputs: object) -> str:
    """A SHA-256 of what changes every row when it changes (prices, teams, the account, the
    team asked for), with the manifest's schema version and the code's: a run whose digest
    differs from the last run's computes the whole range again."""
    return hashlib.sha256(msgspec.json.encode([SCHEMA_VERSION, __version__, *inputs])).hexdigest()


def first_changed(previous: Basis | None, days: Days, inputs: str) -> date:
    """The first day a run over ``days`` computes: the range's first when the last run's
    inputs or first day differ (a range's first month is shared from its own days), else the
    first of the month of the earliest day that can have changed since: the last run's first
    open day (the service may have revised it since) and the first day the range gained or
    lost. A day moves the base-fee shares and included volumes of its whole month, and of no
    other, so the months before it are as the last run wrote them."""
    if previous is None or (previous.inputs, previous.days.first) != (inputs, days.first):
        return days.first
    old = previous.days
    moved = [old.first_open]
    if days.last != old.last:
        moved.append(min(days.last, old.last + timedelta(days=1)))
    return max(days.first, min(moved).replace(day=1))


def _schema_text(schema: pa.Schema) -> str:
    return base64.b64encode(schema.serialize().to_pybytes()).decode()


def _schema_of(text: str) -> pa.Schema:
    return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(text)))


def _basis_of(listed: Mapping[str, Any]) -> Basis:
    days = Days(*(date.fromisoformat(listed[name]) for name in ("first", "last", "first_open")))
    schemas = {table: _schema_of(text) for table, text in listed["schemas"].items()}
    return Basis(days, listed["inputs"], schemas, listed["labels"])


def read_manifest(destination: Destination) -> Manifest:
    """The partitions the last complete run wrote, by path, and what it was computed from;
    nothing before a first run, or where the manifest is of another schema version (then
    every partition is written)."""
    content = destination.read(MANIFEST)
    if content is None:
        return Manifest({}, None)
    manifest = json.loads(content)
    if manifest.get("schema_version") != SCHEMA_VERSION:
        return Manifest({}, None)
    partitions = (
        Partition(p["table"], date.fromisoformat(p["date"]), p["rows"], p["sha256"])
        for p in manifest["partitions"]
    )
    basis = _basis_of(manifest["basis"]) if "basis" in manifest else None
    return Manifest({p.path: p for p in partitions}, basis)


def manifest_bytes(partitions: Mapping[str, Partition], basis: Basis, run_at: datetime) -> bytes:
    listed = [
        {"table": p.table, "date": p.day.isoformat(), "path": p.path, "rows": p.rows}
        | {"sha256": p.sha256}
        for _, p in sorted(partitions.items())
    ]
    days = basis.days
    computed: dict[str, Any] = {"first": days.first.isoformat(), "last": days.last.isoformat()}
    computed |= {"first_open": days.first_open.isoformat(), "inputs": basis.inputs}
    computed["schemas"] = {table: _schema_text(s) for table, s in sorted(basis.schemas.items())}
    computed["labels"] = dict(sorted(basis.labels.items()))
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "run_at": run_at.isoformat(),
        "basis": computed,
        "partitions": listed,
    }
    return json.dumps(manifest, indent=2).encode() + b"\n"


def _labels(usage: pd.DataFrame) -> dict[str, str]:
    if not {"api_key", "api_key_label"} <= set(usage.columns):
        return {}
    pairs = usage[["api_key", "api_key_label"]].drop_duplicates("api_key")
    return dict(zip(map(str, pairs["api_key"]), map(str, pairs["api_key_label"]), strict=True))


def _fitted(fresh: pa.Schema, recorded: pa.Schema) -> bool:
    """Whether rows of the ``fresh`` schema can be written in the ``recorded`` one: the same
    columns, each of the same type or without a value (a column empty on the days computed)."""
    return fresh.names == recorded.names and all(
        new.type == old.type or pa.types.is_null(new.type)
        for new, old in zip(fresh, recorded, strict=True)
    )


def basis(
    tables: Mapping[str, pd.DataFrame], days: Days, inputs: str, previous: Basis | None
) -> Basis | None:
    """What a run computed from ``tables`` is: the whole range's (``previous`` None), or some
    days' on top of the last run's ``previous``, in its schemas; None where those days do not
    fit the last run (a column of another type, a key of another label): then the whole
    range is computed again."""
    fresh = {table: file_schema(tables[table]) for table in TABLES}
    labels = _labels(tables["usage"])
    if previous is None:
        return Basis(days, inputs, fresh, labels)
    fits = all(_fitted(fresh[t], previous.schemas[t]) for t in TABLES if t in previous.schemas)
    relabelled = any(previous.labels.get(key, label) != label for key, label in labels.items())
    if set(previous.schemas) != set(TABLES) or not fits or relabelled:
        return None
    return Basis(days, inputs, previous.schemas, {**previous.labels, **labels})


Compute = Callable[[date, date], Mapping[str, pd.DataFrame]]


def export_dataset(
    destination: Destination, compute: Compute, days: Days, inputs: str, run_at: datetime
) -> Outcome:
    """One run: the tables of the days that can have changed since the last run
    (`first_changed`) computed by ``compute`` (first, last) and written (`write_dataset`);
    nothing computed where no day can have changed, and the whole range where the days
    computed alone do not fit the last run."""
    known = read_manifest(destination)
    since = first_changed(known.basis, days, inputs)
    if since > days.last:
        return Outcome((), len(known.partitions), (), False)
    tables = compute(since, days.last)
    computed = basis(tables, days, inputs, known.basis if since > days.first else None)
    if computed is None:
        since = days.first
        tables = compute(since, days.last)
        computed = basis(tables, days, inputs, None)
    assert computed is not None  # the whole range fits itself
    return write_dataset(destination, known, tables, computed, since, run_at)


def write_dataset(
    destination: Destination,
    known: Manifest,
    tables: Mapping[str, pd.DataFrame],
    computed: Basis,
    since: date,
    run_at: datetime,
) -> Outcome:
    """Write the partitions of ``tables`` (the days from ``since`` to the range's last) whose
    hash differs from the manifest's, and the open days', then the manifest (partitions before
    ``since`` and outside the range kept as listed); the manifest is left as it was when
    nothing changed."""
    fresh: dict[str, tuple[Partition, bytes]] = {}
    for table, column in TABLES.items():
        for day, rows in by_day(tables[table], column).items():
            content = parquet_bytes(rows, computed.schemas[table])
            part = Partition(table, day, len(rows), hashlib.sha256(content).hexdigest())
            fresh[part.path] = (part, content)
    written = []
    for path, (part, content) in fresh.items():
        if known.partitions.get(path) == part and part.day < computed.days.first_open:
            continue
        destination.put(path, content)
        written.append(path)
    stale = [
        path
        for path, part in known.partitions.items()
        if since <= part.day <= computed.days.last and path not in fresh
    ]
    listed = {path: part for path, part in known.partitions.items() if path not in stale}
    listed |= {path: part for path, (part, _) in fresh.items()}
    changed = bool(written or stale or known.basis != computed)
    if changed:
        destination.put(MANIFEST, manifest_bytes(listed, computed, run_at))
    for path in stale:
        destination.remove(path)
    return Outcome(tuple(written), len(listed) - len(written), tuple(stale), changed)
