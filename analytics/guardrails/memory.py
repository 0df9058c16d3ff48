"""What the guardrails remember between runs, one record of the account in the state store
(`analytics.storage.schema.guardrails`): each guarded key's hand-set limits (what it had before
a guardrail, or was given elsewhere since: restoring gives them back exactly), the limits a run
last left it at and those it was about to send, and the last run (when, by whom, its outcome).

The record is written before each change is sent and after it is answered, each a committed
transaction, so a run killed between two calls leaves a state the next run completes: a key
whose limits are the ones last left or about to be sent is the guardrail's doing, any other
limit was set elsewhere (drift). Every host reads the same record, so `restore` on one host
gives back what an `apply` on another remembered. The record cannot be fetched again: one that
no longer reads is logged, and the next run starts afresh, taking every key's limits as
hand-set.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date, datetime
from typing import Final, Literal

import msgspec
from sqlalchemy import Connection, delete, select

from analytics.service import NO_LIMITS, UsageLimits
from analytics.storage import guardrails as table
from analytics.storage import upsert
from analytics.usage import Records

log = logging.getLogger(__name__)

LOCK: Final = "guardrails"  # one applier at a time, per account, on any host
Outcome = Literal["running", "done", "nothing to change", "failed"]


class Memory(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One guarded key: ``hand`` its limits before the guardrail (or set elsewhere since),
    ``applied`` those the last run left it at, ``pending`` those a run is sending (the lower
    step, then the new limits), ``by`` the budget that set them, and ``highest`` the highest
    limits it had at any moment of ``day`` (UTC) that a run saw or sent."""

    hand: UsageLimits
    applied: UsageLimits
    pending: tuple[UsageLimits, ...] = ()
    by: str = ""
    day: date | None = None
    highest: UsageLimits = NO_LIMITS

    def own(self, limits: UsageLimits) -> bool:
        """Whether ``limits`` are the guardrail's doing: left or being sent by a run."""
        return limits == self.applied or limits in self.pending

    def highest_on(self, today: date, current: UsageLimits) -> UsageLimits:
        """The highest limits the key has had today, ``current`` its limits now: what its
        count can have reached on a day analytics does not show yet (each measure's highest;
        None, no limit, is the highest of all). Since the runs of an earlier day the key had
        the limits they left or were sending."""
        seen = [current, self.applied, *self.pending]
        if self.day == today:
            seen.append(self.highest)
        return highest(seen)


def highest(limits: Sequence[UsageLimits]) -> UsageLimits:
    """Each measure's highest of ``limits``: no limit (None) where any has none."""

    def top(values: list[int | None]) -> int | None:
        return None if None in values else max(v for v in values if v is not None)

    return UsageLimits(
        characters=top([lim.characters for lim in limits]),
        speech_to_text_milliseconds=top([lim.speech_to_text_milliseconds for lim in limits]),
    )


class LastRun(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    time: datetime
    who: str
    action: Literal["apply", "restore"]
    outcome: Outcome
    changes: int = 0
    message: str = ""


class GuardrailState(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    keys: dict[str, Memory] = msgspec.field(default_factory=dict)  # by key id
    last_run: LastRun | None = None


_decoder = msgspec.json.Decoder(GuardrailState)
_encoder = msgspec.json.Encoder()


def lock_name(records: Records) -> str:
    """The store-wide lock one applier of the account holds."""
    return f"{LOCK} {records.account}"


def read(records: Records) -> GuardrailState:
    """The account's state: empty when there is none yet (or it no longer reads)."""
    query = select(table.c.state).where(table.c.account == records.account)
    found = records.store.run(lambda connection: connection.execute(query).scalar())
    if found is None:
        return GuardrailState()
    try:
        return _decoder.decode(found)
    except msgspec.DecodeError as exc:
        log.warning(
            "The guardrail state of %s did not read (%s); starting afresh", records.account, exc
        )
        return GuardrailState()


LEGACY_SUFFIX: Final = "guardrails.json"  # `<account>-guardrails.json` of the history folder


def read_file(content: bytes) -> GuardrailState:
    """An account's state file (as kept before the store); ValueError when it is not one."""
    return _decoder.decode(content)


def take(records: Records, state: GuardrailState) -> int:
    """Take an account's state from elsewhere (a file, another store) when the store holds
    none for the account (one there is newer: written since the switch); 1 when taken."""
    if state == GuardrailState():
        return 0  # nothing remembered: nothing to take
    query = select(table.c.account).where(table.c.account == records.account)
    if records.store.run(lambda connection: connection.execute(query).first()) is not None:
        return 0
    write(records, state)
    return 1


def forget(records: Records) -> None:
    """Drop the account's state (the demo's, when its store is made again)."""
    mine = table.c.account == records.account
    records.store.run(lambda connection: connection.execute(delete(table).where(mine)))


def write(records: Records, state: GuardrailState) -> None:
    """Replace the account's state in one transaction; the caller holds the lock."""
    encoded = _encoder.encode(state).decode()

    def replace(connection: Connection) -> None:
        upsert(connection, table, {"account": records.account, "state": encoded}, 1)

    records.store.run(replace)


def inherit(records: Records, old_key_id: str, new_key_id: str) -> bool:
    """The replacement of a rotated key takes the old key's memory: the hand-set limits
    restore gives back and the limits the guardrail left, which the replacement was made
    with, so the guardrails count its limits as their own doing (not drift) and plan it as
    they planned the old key. Under the appliers' lock; False when nothing was remembered."""
    with records.store.lock(lock_name(records)):
        state = read(records)
        memory = state.keys.get(old_key_id)
        if memory is None:
            return False
        write(records, msgspec.structs.replace(state, keys={**state.keys, new_key_id: memory}))
    return True
