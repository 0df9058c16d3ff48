"""The key audit log: every attempted change to a developer key — who, when (UTC), which key,
before and after, the outcome and the service's trace id.

Entries are records of the account in the state store (`analytics.storage.schema.audit`),
each appended in its own transaction and never rewritten, so every host's changes are in one
log. Like anomaly marks, the log cannot be fetched again. A change is audited in turn: the
attempt is sent only once the store is reachable, and an entry that cannot be written after the
service's answer is reported as not kept (`StoreError`), with the change it describes (see
`analytics.keys.changes`).

An entry never holds a secret: a created key is recorded by its masked secret, a changed key
by the analytics mask it was joined by, and the latest of these joins the key to its usage
(``analytics.keys.join``) even after a rename its usage does not show yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

import msgspec
import pandas as pd
from sqlalchemy import Connection, delete, insert, select

from analytics.keys.preview import limit_text, minutes
from analytics.service import DemoFiles, DeveloperKey, ServiceConnection, demo_lock
from analytics.storage import audit as table
from analytics.usage import Records, records_of, utc_now

Action = Literal["create", "rename", "limit", "deactivate"]
ACTIONS: Final[tuple[Action, ...]] = ("create", "rename", "limit", "deactivate")
# done: the service made the change; refused: it said no (the message says why); failed: it
# could not be asked (network, server errors after retries); unknown: the request may have
# reached the service but its answer was lost, so whether the change happened is not known.
Outcome = Literal["done", "refused", "failed", "unknown"]


class KeyState(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a change can alter about a key."""

    label: str
    characters: int | None
    speech_to_text_milliseconds: int | None
    deactivated: bool

    @classmethod
    def of(cls, key: DeveloperKey) -> KeyState:
        limits = key.usage_limits
        return cls(
            key.label, limits.characters, limits.speech_to_text_milliseconds, key.is_deactivated
        )


class AuditEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    time: datetime
    who: str
    action: Action
    key_id: str | None  # None: a create whose key is not known
    label: str
    masked_key: str | None = None  # a created key's masked secret; a changed key's mask
    before: KeyState | None = None
    after: KeyState | None = None
    outcome: Outcome
    message: str = ""
    trace_id: str | None = None


_decoder = msgspec.json.Decoder(AuditEntry)
encode = msgspec.json.Encoder().encode  # an entry as the store keeps it (and a log line shows it)


@dataclass(frozen=True)
class AuditLog:
    """The audit log of one account (empty: nothing was changed yet).

    The demo organization's log (`demo`: its files) lives exactly as long as the demo's store:
    it is dropped whenever the store is loaded afresh (`analytics.connection`), and appended
    to under the same lock, so it never lists a change the store no longer holds, and a drop
    never races an append."""

    records: Records
    demo: DemoFiles | None = None

    @classmethod
    def for_connection(cls, connection: ServiceConnection, demo: bool) -> AuditLog | None:
        """The account's log; None without a state store."""
        records = records_of(connection, demo)
        if records is None:
            return None
        return cls(records, connection.demo_files if demo else None)

    def append(self, entry: AuditEntry) -> None:
        row = {
            "account": self.records.account,
            "time": entry.time,
            "entry": encode(entry).decode(),
        }
        with demo_lock(self.demo) if self.demo else nullcontext():
            self.records.store.run(lambda connection: connection.execute(insert(table), [row]))

    def read(self) -> list[AuditEntry]:
        """Every entry, oldest first."""
        mine = table.c.account == self.records.account
        query = select(table.c.entry).where(mine).order_by(table.c.id)
        rows = self.records.store.run(lambda connection: connection.execute(query).scalars().all())
        return [_decoder.decode(row) for row in rows]

    def recorded_masks(self) -> dict[str, str]:
        return recorded_masks(self.read())


LEGACY_SUFFIX: Final = "key-audit.jsonl"  # `<account>-key-audit.jsonl` of the history folder


def read_file(content: bytes) -> list[AuditEntry]:
    """The entries of an account's log file (as kept before the store, one JSON object a
    line); ValueError when a line is not an entry."""
    return [_decoder.decode(line) for line in content.splitlines() if line.strip()]


def take(log: AuditLog, entries: Sequence[AuditEntry]) -> int:
    """Append the entries from elsewhere (a file, another store) that the log does not hold
    yet, in their order: entries are never rewritten, and one taken before is not taken
    again. The number taken."""
    held = {encode(e) for e in log.read()}
    new = [e for e in entries if encode(e) not in held]
    for e in new:
        log.append(e)
    return len(new)


def drop(records: Records) -> int:
    """Remove the account's whole log (the demo's, when its store is made again); the number
    of entries it had."""

    def dropped(connection: Connection) -> int:
        return connection.execute(delete(table).where(table.c.account == records.account)).rowcount

    return records.store.run(dropped)


def recorded_masks(entries: Sequence[AuditEntry]) -> dict[str, str]:
    """Each key changed here (key id) and the latest mask recorded for it, for joining it to
    usage."""
    return {
        e.key_id: e.masked_key for e in entries if e.outcome == "done" and e.key_id and e.masked_key
    }


def entry(
    action: Action,
    who: str,
    key: DeveloperKey | None,
    outcome: Outcome,
    *,
    after: DeveloperKey | None = None,
    label: str = "",
    masked_key: str | None = None,
    message: str = "",
    trace_id: str | None = None,
    now: datetime | None = None,
) -> AuditEntry:
    """An entry for a change to `key` (None: a create), with the key as it is `after`."""
    named = after or key
    return AuditEntry(
        time=now or utc_now(),
        who=who,
        action=action,
        key_id=None if named is None else named.key_id,
        label=named.label if named is not None else label,
        masked_key=masked_key,
        before=None if key is None else KeyState.of(key),
        after=None if after is None else KeyState.of(after),
        outcome=outcome,
        message=message,
        trace_id=trace_id,
    )


AUDIT_COLUMNS: Final = [
    "time", "who", "action", "label", "outcome", "before", "after", "message", "masked key",
    "key_id", "trace_id",
]  # fmt: skip


def state_text(state: KeyState | None) -> str:
    """A key's state as fields people read, each named as a change's preview names it and its
    limit written as every table writes one ("label: Partner portal; characters: no limit;
    speech-to-text minutes: 30; deactivated"), the one text of the audit log's Before and
    After on the page and in `keys audit`; "-" for no state (before a create)."""
    if state is None:
        return "-"
    fields = [
        f"label: {state.label}",
        f"characters: {limit_text(state.characters)}",
        f"speech-to-text minutes: {limit_text(minutes(state.speech_to_text_milliseconds))}",
    ]
    if state.deactivated:
        fields.append("deactivated")
    return "; ".join(fields)


def audit_table(entries: Sequence[AuditEntry]) -> pd.DataFrame:
    """One display row per entry (times in UTC), oldest first, for the view and `keys
    audit`."""
    return pd.DataFrame(
        [
            [
                f"{e.time:%Y-%m-%d %H:%M:%S}",
                e.who,
                e.action,
                e.label,
                e.outcome,
                state_text(e.before),
                state_text(e.after),
                e.message or "-",
                e.masked_key or "-",
                e.key_id or "-",
                e.trace_id or "-",
            ]
            for e in entries
        ],
        columns=AUDIT_COLUMNS,
    )
