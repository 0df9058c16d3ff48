"""What the guardrails remember between runs, in one file beside the history store
(``<account>-guardrails.json``): each guarded key's hand-set limits (what it had before a
guardrail, or was given elsewhere since: restoring gives them back exactly), the limits a run
last left it at and those it was about to send, and the last run (when, by whom, its outcome).

The file is written before each change is sent and after it is answered (``write_atomic``:
never half a file), so a run killed between two calls leaves a state the next run completes:
a key whose limits are the ones last left or about to be sent is the guardrail's doing, any
other limit was set elsewhere (drift). The file cannot be fetched again: a damaged one is
moved aside and the next run starts afresh, taking every key's limits as hand-set.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Final, Literal

import msgspec

from analytics.service.models import NO_LIMITS, UsageLimits
from analytics.service.settings import GUARDRAILS_SUFFIX, Settings
from analytics.storage.files import read_state, write_atomic
from analytics.usage.history import account_file

SUFFIX: Final = GUARDRAILS_SUFFIX
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


def state_path(settings: Settings, demo: bool) -> Path | None:
    """The account's guardrail state beside its history store; None without a history folder
    (the guardrails then cannot remember hand-set limits, and refuse to apply)."""
    return account_file(settings, demo, SUFFIX)


def read(path: Path) -> GuardrailState:
    """The state at ``path``: empty when there is none yet (or it was damaged, moved aside)."""
    return read_state(path, _decoder.decode, GuardrailState(), "The guardrail state")


def write(path: Path, state: GuardrailState) -> None:
    """Replace the state atomically; the caller holds its lock (``storage.files.locked``)."""
    write_atomic(_encoder.encode(state), path)
