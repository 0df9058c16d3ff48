"""Rotating a developer key: a replacement made beside it, both watched until the old one
falls quiet, then the old one deactivated; or, for a leaked key, deactivated first and then
replaced.

A rotation is a record of the account in the state store (`schema.rotations`): old key,
new key, who, when and how it stands. The store holds one open rotation per key (its unique
constraint), so two people rotating one key at once get one rotation, and the other is
refused before anything is sent. Every change is made through `analytics.keys.changes`, so each
is audited and sent only once the store answers.

The replacement's secret is returned once, to be shown once: it is never in the record, the
audit log (its mask is), a log line or an error. The replacement gets the old key's limits,
so where a guardrail caps the old key the new one is capped from its first request, and the
guardrails' memory of the old key (its hand-set limits) through the front ends' `inherit`;
its team, owner and purpose follow it into the teams settings through the front ends
(`settings.succession`, a layer above this one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Final, Literal

import msgspec
import pandas as pd
from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from analytics.keys import changes
from analytics.keys.join import key_name, masked
from analytics.keys.limits import KeyRow
from analytics.keys.preview import limit_preview
from analytics.service import DeveloperKey, ServiceError
from analytics.storage import rotations as table
from analytics.usage import Records, UsageReader, data_through, utc_now

MAX_ACTIVE: Final = 25  # the service's limit of active developer keys (paid plan)
UNUSED_DAYS: Final = 90  # an active key unused this long is a candidate to deactivate first

# watching: both keys live, the old one to be deactivated; finished: the old one deactivated;
# replacement failed: a leaked key deactivated, its replacement not made.
State = Literal["watching", "finished", "replacement failed"]


class Rotation(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One rotation as the store keeps it (masks, never a secret)."""

    id: int = 0  # the store's number; 0 until it is kept
    old_key_id: str
    old_label: str
    old_api_key: str | None  # the masked key the old key's usage carries (None: not joined)
    new_key_id: str | None = None
    new_label: str
    new_api_key: str | None = None  # the replacement's masked secret
    who: str
    started: datetime
    state: State = "watching"
    leaked: bool = False
    forced: bool = False  # finished before the old key was quiet long enough
    finished: datetime | None = None


_decoder = msgspec.json.Decoder(Rotation)


class RotationRefused(ValueError):
    """A rotation that cannot begin; nothing was sent."""


class NoRoom(RotationRefused):
    """The organization has all the active keys it may have."""


class StillInUse(ValueError):
    """The old key was used too recently to deactivate without force; nothing was sent."""


class ReplacementFailed(RuntimeError):
    """A leaked key was deactivated, but its replacement could not be made."""


# What else must follow the old key to its replacement (old key id, new key id): the
# guardrails' memory of it (`guardrails.memory.inherit`), which this layer cannot import.
Inherit = Callable[[str, str], object]


@dataclass(frozen=True)
class RotationLog:
    """The rotations of one account."""

    records: Records

    def claim(self, rotation: Rotation) -> Rotation:
        """Keep a new open rotation, with its number; RotationRefused when the key already
        has one (the store's unique constraint decides, whoever asks first)."""

        def kept(connection: Connection) -> int | None:
            row = {
                "account": self.records.account,
                "old_key_id": rotation.old_key_id,
                "open_key_id": rotation.old_key_id,
                "started": rotation.started,
                "rotation": msgspec.json.encode(rotation).decode(),
            }
            try:
                with connection.begin_nested():
                    made = connection.execute(insert(table).values(row)).inserted_primary_key
                    return int(made[0]) if made else None
            except IntegrityError:
                return None

        number = self.records.store.run(kept)
        if number is None:
            raise RotationRefused(
                f"{key_name(rotation.old_label, rotation.old_key_id)} is already being rotated: "
                "finish that rotation first"
            )
        claimed = msgspec.structs.replace(rotation, id=number)
        self.save(claimed)
        return claimed

    def save(self, rotation: Rotation) -> None:
        """The rotation as it stands now; a finished one frees its key's place."""
        values = {
            "rotation": msgspec.json.encode(rotation).decode(),
            "open_key_id": None if rotation.state == "finished" else rotation.old_key_id,
        }
        query = update(table).where(table.c.id == rotation.id).values(values)
        self.records.store.run(lambda connection: connection.execute(query))

    def drop(self, rotation: Rotation) -> None:
        """Forget a rotation that made nothing (its replacement was refused)."""
        query = table.delete().where(table.c.id == rotation.id)
        self.records.store.run(lambda connection: connection.execute(query))

    def read(self) -> list[Rotation]:
        """Every rotation of the account, oldest first."""
        mine = table.c.account == self.records.account
        query = select(table.c.id, table.c.rotation).where(mine).order_by(table.c.id)
        rows = self.records.store.run(lambda connection: connection.execute(query).all())
        return [msgspec.structs.replace(_decoder.decode(text), id=number) for number, text in rows]

    def find(self, number: int) -> Rotation:
        for rotation in self.read():
            if rotation.id == number:
                return rotation
        raise KeyError(f"no rotation {number}: `keys rotation list` shows them")


def default_label(label: str, today: date) -> str:
    """The replacement's label unless the admin gives another: "Web shop (2026-12)"."""
    return f"{label} ({today:%Y-%m})"


def unused_keys(rows: Sequence[KeyRow], today: date) -> list[DeveloperKey]:
    """Active keys unused for UNUSED_DAYS (or never used), oldest use first."""
    since = today - timedelta(days=UNUSED_DAYS)
    found = [
        row
        for row in rows
        if row.key is not None
        and not row.key.is_deactivated
        and (row.last_used is None or row.last_used < since)
    ]
    found.sort(key=lambda row: row.last_used or date.min)
    return [row.key for row in found if row.key is not None]


def room_check(rows: Sequence[KeyRow], today: date) -> None:
    """NoRoom when a replacement cannot be made beside the old key, naming the active keys
    unused for UNUSED_DAYS as candidates to deactivate first (never deactivated here)."""
    active = [r for r in rows if r.key is not None and not r.key.is_deactivated]
    if len(active) < MAX_ACTIVE:
        return
    candidates = unused_keys(rows, today)
    named = "; ".join(key_name(k.label, k.key_id) for k in candidates) or "none"
    raise NoRoom(
        f"{len(active)} keys are active, the most the service allows: deactivate one first. "
        f"Active keys unused for {UNUSED_DAYS} days: {named}"
    )


@dataclass(frozen=True)
class Rotated:
    """A rotation begun, and the replacement's secret, to be shown this once."""

    rotation: Rotation
    secret: str


def _replacement(
    actor: changes.Actor,
    old: DeveloperKey,
    label: str,
    listed: Sequence[DeveloperKey],
    inherit: Inherit | None,
) -> tuple[DeveloperKey, str]:
    """The replacement key with the old key's limits (and what `inherit` carries over), and
    its secret."""
    made = changes.create(actor, label, listed, replacing=old).key
    if made.key is None:  # the service's answer always carries it; a key without is no use
        raise ServiceError(
            f"the service made {key_name(made.label, made.key_id)} but gave no secret"
        )
    if inherit is not None:
        inherit(old.key_id, made.key_id)
    limits = old.usage_limits
    new = made.listed
    capped = limit_preview(new, limits.characters, limits.speech_to_text_milliseconds)
    change = changes.limit(actor, capped, masked(made.key))
    return (new if change is None else change.key), made.key


def _begun(actor: changes.Actor, row: KeyRow, label: str, leaked: bool) -> Rotation:
    old = row.key
    if old is None:
        raise RotationRefused(f"{row.joined.label} is not a listed key: it cannot be rotated")
    if old.is_deactivated:
        raise RotationRefused(f"{old.label} is deactivated: there is nothing to rotate")
    # Before the rotation is claimed: a refused actor leaves no rotation behind.
    changes.allowed(actor, "create", old, label.strip())
    return Rotation(
        old_key_id=old.key_id,
        old_label=old.label,
        old_api_key=row.joined.api_key,
        new_label=label.strip(),
        who=actor.who,
        started=utc_now(),
        leaked=leaked,
    )


def rotate(
    actor: changes.Actor,
    log: RotationLog,
    rows: Sequence[KeyRow],
    row: KeyRow,
    label: str,
    today: date,
    inherit: Inherit | None = None,
) -> Rotated:
    """Begin rotating `row`'s key: the replacement made beside it with its limits, under
    `label`, taking what `inherit` carries over. Refused before anything is sent when the
    organization has no room, the label is refused or the key is already being rotated."""
    begun = _begun(actor, row, label, leaked=False)
    room_check(rows, today)
    listed = [r.key for r in rows if r.key is not None]
    changes.checked_label(listed, begun.new_label)
    claimed = log.claim(begun)
    assert row.key is not None
    try:
        new, secret = _replacement(actor, row.key, claimed.new_label, listed, inherit)
    except (ServiceError, changes.LabelRefused):
        log.drop(claimed)
        raise
    rotation = msgspec.structs.replace(
        claimed, new_key_id=new.key_id, new_label=new.label, new_api_key=masked(secret)
    )
    log.save(rotation)
    return Rotated(rotation, secret)


def leaked(
    actor: changes.Actor,
    log: RotationLog,
    rows: Sequence[KeyRow],
    row: KeyRow,
    label: str,
    inherit: Inherit | None = None,
) -> Rotated:
    """A leaked key: deactivated first (the leak matters more than an outage), then
    replaced. A replacement that fails after the deactivation raises ReplacementFailed,
    which says exactly that and how to finish; the rotation is kept as such."""
    begun = _begun(actor, row, label, leaked=True)
    listed = [r.key for r in rows if r.key is not None]
    changes.checked_label(listed, begun.new_label)
    claimed = log.claim(begun)
    assert row.key is not None
    try:
        changes.deactivate(actor, row.key, row.joined.api_key)
    except ServiceError:
        log.drop(claimed)
        raise
    try:
        new, secret = _replacement(actor, row.key, claimed.new_label, listed, inherit)
    except ServiceError as exc:
        log.save(msgspec.structs.replace(claimed, state="replacement failed"))
        raise ReplacementFailed(
            f"{key_name(row.key.label, row.key.key_id)} is deactivated, but its replacement "
            "was not "
            f"made: {exc}. Finish with `keys create --label {claimed.new_label!r}`, then set "
            "its limits with `keys limit`"
        ) from None
    rotation = msgspec.structs.replace(
        claimed,
        new_key_id=new.key_id,
        new_label=new.label,
        new_api_key=masked(secret),
        state="finished",
        finished=utc_now(),
    )
    log.save(rotation)
    return Rotated(rotation, secret)


@dataclass(frozen=True)
class Watch:
    """Both keys' use since the rotation began, day by day, through `through` (analytics'
    latest closed day), and the old key's last day of use."""

    rotation: Rotation
    days: pd.DataFrame  # day, then characters and speech-to-text minutes of old and new
    through: date
    last_used: date | None  # the old key's, since the rotation began
    quiet_days: int  # whole days since, through `through`

    @property
    def remaining(self) -> str:
        """What the old key still carries, in words."""
        if self.days.empty:
            return "No day has closed since the rotation began: both keys' use shows tomorrow."
        if self.last_used is None:
            return f"The old key has not been used since the rotation began ({self.through})."
        day = self.days.loc[self.days["day"] == self.last_used].iloc[0]
        when = "yesterday" if self.last_used == self.through else f"on {self.last_used}"
        said = f"The old key was used {when}: {int(day['old characters']):,} characters"
        if day["old minutes"]:
            said += f", {day['old minutes']:,.2f} speech-to-text minutes"
        return f"{said} (analytics through {self.through})."


def watched(reader: UsageReader, rotation: Rotation, today: date) -> Watch:
    """The rotation's watch as of `today`: both keys' use from the day it began through
    analytics' latest closed day (yesterday), as the usage reader gives it."""
    through = data_through(today)
    start = rotation.started.date()
    if through < start:  # begun today: no closed day yet
        return Watch(rotation, pd.DataFrame(columns=WATCH_COLUMNS), through, None, 0)
    return watch(rotation, reader.usage(start, through).frame, through)


WATCH_COLUMNS: Final = ["day", "old characters", "old minutes", "new characters", "new minutes"]


def watch(rotation: Rotation, frame: pd.DataFrame, through: date) -> Watch:
    """The rotation's days from the day it began through `through` (on or after it), read
    from a key-day frame of those days (`frame`)."""
    start = rotation.started.date()
    days = pd.date_range(start, max(start, through), freq="D").date
    shown = pd.DataFrame({"day": days})
    for side, mask in (("old", rotation.old_api_key), ("new", rotation.new_api_key)):
        mine = frame[frame["api_key"] == mask] if mask else frame.iloc[0:0]
        daily = mine.groupby(mine["usage_date"].dt.date, observed=True)[
            ["total_characters", "speech_to_text_minutes"]
        ].sum()
        shown[f"{side} characters"] = (
            shown["day"].map(daily["total_characters"]).fillna(0).astype("int64")
        )
        shown[f"{side} minutes"] = shown["day"].map(daily["speech_to_text_minutes"]).fillna(0.0)
    used = shown[(shown["old characters"] > 0) | (shown["old minutes"] > 0)]
    last = None if used.empty else used["day"].iloc[-1]
    quiet = (through - last).days if last is not None else max(0, (through - start).days + 1)
    return Watch(rotation, shown.reset_index(drop=True), through, last, quiet)


def finish(
    actor: changes.Actor,
    log: RotationLog,
    watched: Watch,
    old: DeveloperKey,
    quiet_needed: int,
    force: bool = False,
) -> Rotation:
    """Deactivate the old key (for good) and close the rotation. Unless `force`, refused
    while the old key was used within `quiet_needed` whole days (the alert routes'
    ``[rotations] quiet_days``); forced, it is recorded so."""
    rotation = watched.rotation
    if rotation.state != "watching":
        raise RotationRefused(f"rotation {rotation.id} is {rotation.state}: nothing to finish")
    early = watched.quiet_days < quiet_needed
    if early and not force:
        raise StillInUse(
            f"{watched.remaining} It needs {quiet_needed} quiet days, it has "
            f"{watched.quiet_days}: wait, or finish with force to cut that traffic off"
        )
    changes.deactivate(actor, old, rotation.old_api_key)
    done = msgspec.structs.replace(rotation, state="finished", forced=early, finished=utc_now())
    log.save(done)
    return done


ROTATION_COLUMNS: Final = [
    "rotation", "state", "old key", "new key", "who", "started", "last use of the old key",
    "quiet days", "forced",
]  # fmt: skip


def rotation_table(watched: Sequence[Watch]) -> pd.DataFrame:
    """One row per rotation, for `keys rotation list` and the page."""
    return pd.DataFrame(
        [
            [
                w.rotation.id,
                w.rotation.state,
                key_name(w.rotation.old_label, w.rotation.old_key_id),
                key_name(w.rotation.new_label, w.rotation.new_key_id)
                if w.rotation.new_key_id
                else f"{w.rotation.new_label} (not made)",
                w.rotation.who,
                f"{w.rotation.started:%Y-%m-%d %H:%M}",
                w.last_used.isoformat() if w.last_used else "-",
                w.quiet_days,
                "yes" if w.rotation.forced else "no",
            ]
            for w in watched
        ],
        columns=ROTATION_COLUMNS,
    )
