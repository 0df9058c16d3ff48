"""What a key change would do, said before it is made: each field's value before → after.

The page shows a preview above its save button and the command line prints it, so a person
sees exactly which key changes and how before anything is sent; a change whose preview is
empty changes nothing, and is neither sent nor audited (`analytics.keys.changes`). Labels are
checked here too: they are how usage is joined to keys (`analytics.keys.join`), so a label
another key already carries is refused unless the person says it may be shared.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from analytics.keys.join import key_name
from analytics.service import KEEP, DeveloperKey, Limit
from analytics.usage import count_text, quoted

MS_PER_MINUTE: Final = 60_000
# The service states no length for a label; longer ones would not fit a table's column or a
# chart's legend, and no key needs one.
MAX_LABEL: Final = 100
NO_LIMIT: Final = "no limit"


@dataclass(frozen=True)
class Shift:
    """One field of a key, before → after (as shown, e.g. "121,026" → "no limit")."""

    field: str
    before: str
    after: str


@dataclass(frozen=True)
class Preview:
    """A planned change of one key: the fields that would differ, and what is sent: the new
    label (None: kept) and each limit (KEEP for a limit that stays as it is)."""

    key: DeveloperKey
    shifts: tuple[Shift, ...]
    label: str | None = None
    characters: Limit = KEEP
    speech_milliseconds: Limit = KEEP

    @property
    def changes(self) -> bool:
        return bool(self.shifts)

    @property
    def text(self) -> str:
        """ "Production website: characters 121,026 → no limit", or that nothing changes."""
        if not self.shifts:
            return f"{self.key.label}: nothing to change"
        said = "; ".join(f"{s.field} {s.before} → {s.after}" for s in self.shifts)
        return f"{self.key.label}: {said}"


def limit_text(limit: float | None) -> str:
    """A limit as every table, preview and message shows it: the count it allows, or "no
    limit" (a blank would read as unknown, a zero as nothing allowed)."""
    return NO_LIMIT if limit is None else count_text(limit)


def minutes(milliseconds: int | None) -> float | None:
    """A speech limit as the minutes a form shows (None: no limit)."""
    return None if milliseconds is None else milliseconds / MS_PER_MINUTE


def milliseconds(speech_minutes: float | None) -> int | None:
    """Minutes as the service counts speech: whole milliseconds."""
    return None if speech_minutes is None else round(speech_minutes * MS_PER_MINUTE)


def limit_preview(
    key: DeveloperKey, characters: Limit = KEEP, speech_milliseconds: Limit = KEEP
) -> Preview:
    """The limits `key` would get: a number (0 allows nothing), None for no limit, KEEP to
    leave one as it is; a value equal to the key's own is kept, not sent."""
    limits = key.usage_limits
    shifts = []
    if characters is not KEEP and characters != limits.characters:
        shifts.append(Shift("characters", limit_text(limits.characters), limit_text(characters)))
    else:
        characters = KEEP
    speech_before = limits.speech_to_text_milliseconds
    if speech_milliseconds is not KEEP and speech_milliseconds != speech_before:
        shifts.append(
            Shift(
                "speech-to-text minutes",
                limit_text(minutes(speech_before)),
                limit_text(minutes(speech_milliseconds)),
            )
        )
    else:
        speech_milliseconds = KEEP
    return Preview(key, tuple(shifts), None, characters, speech_milliseconds)


def rename_preview(key: DeveloperKey, label: str) -> Preview:
    """The label `key` would get (trimmed); the same label changes nothing."""
    new = label.strip()
    if new == key.label:
        return Preview(key, ())
    return Preview(key, (Shift("label", quoted(key.label), quoted(new)),), new)


def label_problem(
    keys: Sequence[DeveloperKey], label: str, key_id: str | None = None, shared: bool = False
) -> str | None:
    """Why `label` cannot be given to the key `key_id` (None: a new key), or None.

    Empty, longer than MAX_LABEL or holding control characters is refused; a label another
    listed key already carries (deactivated keys too: their usage still carries it) is refused
    unless `shared`, because two keys with one label cannot be told apart in usage.
    """
    text = label.strip()
    if not text:
        return "the label is empty"
    if len(text) > MAX_LABEL:
        return f"the label has {len(text)} characters; at most {MAX_LABEL} are allowed"
    if any(unicodedata.category(c).startswith("C") for c in text):
        return "the label holds a control character"
    others = [k for k in keys if k.label == text and k.key_id != key_id]
    if others and not shared:
        carrier = others[0]
        return (
            f"{text!r} is already the label of another key, "
            f"{key_name(carrier.label, carrier.key_id)}: usage is joined to keys by label, so "
            "two keys sharing one cannot be told apart"
        )
    return None
