"""The key audit log: every attempted change to a developer key — who, when (UTC), which key,
before and after, the outcome and the service's trace id — one JSON object per line.

It lives beside the history store (``<account>-key-audit.jsonl``) and, like anomaly marks,
cannot be fetched again: it changes only through ``analytics.storage.files.update`` (under the
file's lock, replaced atomically), so the dashboard's sessions and the command line append
without losing each other's entries. A file that is not an audit log is moved aside (kept,
with a warning), never overwritten.

An entry never holds a secret: a created key is recorded by its masked secret, a changed key
by the analytics mask it was joined by, and the latest of these joins the key to its usage
(``analytics.keys.join``) even after a rename its usage does not show yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Final, Literal

import msgspec
import pandas as pd

from analytics.service.demo import demo_lock
from analytics.service.models import DeveloperKey
from analytics.service.settings import KEY_AUDIT_SUFFIX, DemoFiles, Settings
from analytics.storage.files import read_state, update
from analytics.usage.calendar import utc_now
from analytics.usage.history import account_file

Action = Literal["create", "rename", "limit", "deactivate"]
ACTIONS: Final[tuple[Action, ...]] = ("create", "rename", "limit", "deactivate")
# done: the service made the change; refused: it said no (the message says why); failed: it
# could not be asked (network, server errors after retries); unknown: the request may have
# reached the service but its answer was lost, so whether the change happened is not known.
Outcome = Literal["done", "refused", "failed", "unknown"]
SUFFIX = KEY_AUDIT_SUFFIX


class AuditFileError(ValueError):
    """The audit log cannot be read; the message names it."""


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
_encoder = msgspec.json.Encoder()


@dataclass(frozen=True)
class AuditLog:
    """The audit log at `path` (absent: nothing was changed yet).

    The demo organization's log (`demo`: its files) lives exactly as long as the demo's store:
    it is dropped whenever the store is loaded afresh (`analytics.connection`), and appended
    to under the same lock, so it never lists a change the store no longer holds, and a drop
    never races an append."""

    path: Path
    demo: DemoFiles | None = None

    @classmethod
    def for_settings(cls, settings: Settings, demo: bool) -> AuditLog | None:
        """The account's log beside its history store; None without a history folder."""
        if demo:
            files = settings.demo_files
            return None if files is None else cls(files.audit_log, files)
        path = account_file(settings, demo, SUFFIX)
        return None if path is None else cls(path)

    def append(self, entry: AuditEntry) -> None:
        with demo_lock(self.demo) if self.demo else nullcontext():
            update(self.path, self._read_from, lambda entries: [*entries, entry], _encode)

    def read(self) -> list[AuditEntry]:
        """Every entry, oldest first."""
        return self._read_from(self.path)

    def recorded_masks(self) -> dict[str, str]:
        return recorded_masks(self.read())

    @staticmethod
    def _read_from(path: Path) -> list[AuditEntry]:
        try:
            return read_state(path, _decode, [], "The key audit log")
        except OSError as exc:
            raise AuditFileError(f"{path}: cannot be read ({exc})") from None


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


def _decode(content: bytes) -> list[AuditEntry]:
    return [_decoder.decode(line) for line in content.splitlines() if line.strip()]


def _encode(entries: Sequence[AuditEntry]) -> bytes:
    return b"".join(_encoder.encode(e) + b"\n" for e in entries)


AUDIT_COLUMNS: Final = [
    "time", "who", "action", "label", "outcome", "before", "after", "message", "masked key",
    "key_id", "trace_id",
]  # fmt: skip


def state_text(state: KeyState | None) -> str:
    """A key's state in a few words: label, limits, and deactivated when it is."""
    if state is None:
        return "-"
    minutes = state.speech_to_text_milliseconds
    parts = [
        repr(state.label),
        "characters " + ("no limit" if state.characters is None else f"{state.characters:,}"),
        "speech " + ("no limit" if minutes is None else f"{minutes / 60_000:,.2f} min"),
    ]
    if state.deactivated:
        parts.append("deactivated")
    return ", ".join(parts)


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
