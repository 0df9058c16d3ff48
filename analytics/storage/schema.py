"""The tables of the state store: what the product knows that the service cannot give back.

Every record names its account (the digests `usage.history.account_name` makes, or the demo
organization's name), so one database serves every account a deployment reads. The tables are
made and changed only by the migrations beside this module (`migrations/versions`), one
revision per change; `HEAD` is the newest, and a test keeps it the migrations' own head.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

from sqlalchemy import (
    Column,
    DateTime,
    Dialect,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)

HEAD: Final = "0006"


class Moment(TypeDecorator[datetime]):
    """An instant, kept in UTC and read back with its zone on either dialect (SQLite keeps
    no zone: what it gives back would otherwise be naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


metadata = MetaData()


def _account(*, primary_key: bool) -> Column[str]:
    """The column naming a record's account, as wide in every table that has one: part of the
    primary key, or else indexed."""
    index = None if primary_key else True
    return Column("account", String(80), primary_key=primary_key, nullable=False, index=index)


# One row per marked anomaly: a mark is replaced, never two for one id.
marks = Table(
    "anomaly_marks",
    metadata,
    _account(primary_key=True),
    Column("anomaly", String(300), primary_key=True),
    Column("mark", String(20), nullable=False),
    Column("marked_at", Moment(), nullable=False),
)

# One row per alert, destination and level: the database refuses a second, so two notifiers
# can never both hold the intent to send the same message. `stage` is `sending` from before the
# message leaves until its outcome is known, then `delivered`.
deliveries = Table(
    "alert_deliveries",
    metadata,
    Column("destination", String(200), primary_key=True),
    Column("event", String(400), primary_key=True),
    Column("level", String(20), primary_key=True),
    Column("stage", String(20), nullable=False),
    Column("at", Moment(), nullable=False),
)

# The key audit log: appended to, never rewritten; `entry` is the entry as JSON.
audit = Table(
    "key_audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _account(primary_key=False),
    Column("time", Moment(), nullable=False),
    Column("entry", Text, nullable=False),
)

# The guardrails' memory of one account, one JSON document replaced whole by the one applier
# that holds the guardrails' lock.
guardrails = Table(
    "guardrail_state",
    metadata,
    _account(primary_key=True),
    Column("state", Text, nullable=False),
)

# Every version of every settings document of an account, never rewritten: the highest version
# is in force. The primary key refuses a second row of one version, so of two saves made from
# the same version, on any hosts, one wins and the other is told (optimistic concurrency).
# `file` names the file a version was imported from; `author` who saved it; `change` what made
# a version other than an edit or an import ("rotation of Web shop").
settings_versions = Table(
    "settings_versions",
    metadata,
    _account(primary_key=True),
    Column("part", String(20), primary_key=True),
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("text", Text, nullable=False),
    Column("author", String(200), nullable=False),
    Column("saved_at", Moment(), nullable=False),
    Column("file", String(300), nullable=True),
    Column("change", String(300), nullable=True),
)

# Key rotations, one JSON document each (`analytics.keys.rotation`); `open_key_id` is the old
# key's id while the rotation is open and NULL once it is finished, so the database refuses a
# second open rotation of one key (NULLs are never equal) and keeps every finished one.
rotations = Table(
    "key_rotations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _account(primary_key=False),
    Column("old_key_id", String(200), nullable=False),
    Column("open_key_id", String(200), nullable=True),
    Column("started", Moment(), nullable=False),
    Column("rotation", Text, nullable=False),
    UniqueConstraint("account", "open_key_id", name="one_open_rotation_per_key"),
)

# The HTTP API's bearer tokens (`analytics.access.tokens`): the token itself is never kept,
# only its SHA-256 `digest` (unique, what a request's token is looked up by); `team` NULL is
# the whole organization's token; `revoked` is set once and the row kept, so the list tells
# who made a token that no longer works and when it stopped.
api_tokens = Table(
    "api_tokens",
    metadata,
    Column("id", String(32), primary_key=True),
    _account(primary_key=False),
    Column("name", String(200), nullable=False),
    Column("team", String(200), nullable=True),
    Column("digest", String(64), nullable=False, unique=True),
    Column("made_by", String(200), nullable=False),
    Column("made_at", Moment(), nullable=False),
    Column("revoked", Moment(), nullable=True),
)

# What `state check` counts, by the names people read.
RECORDS: Final = {
    "anomaly marks": marks,
    "alert deliveries": deliveries,
    "key audit entries": audit,
    "guardrail states": guardrails,
    "settings versions": settings_versions,
    "key rotations": rotations,
    "API tokens": api_tokens,
}
