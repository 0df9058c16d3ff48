"""The organization's plan and the body of the usage-and-limits operation (`GET /v2/usage`).

A billing period runs from one anchor day of the month to the next, both at 00:00:00 UTC; in
months shorter than the anchor day the period starts on the month's last day instead.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
from dataclasses import dataclass
from typing import Any

from emulator.ledger import UsageAmounts

# `character_limit` of a paid plan without a cost-control limit: the service's "no limit".
UNLIMITED_CHARACTERS = 1_000_000_000_000
FREE_CHARACTER_LIMIT = 500_000
DEFAULT_MINUTES_LIMIT = 600


@dataclass(frozen=True)
class Plan:
    """What the organization pays for; `pro` False is the free plan."""

    pro: bool = True
    billing_day: int = 1  # day of the month each billing period starts
    character_limit: int | None = None  # cost-control limit (paid) or monthly quota (free)
    speech_to_text_minutes_limit: int = DEFAULT_MINUTES_LIMIT
    speech_to_speech_minutes_limit: int = DEFAULT_MINUTES_LIMIT

    def __post_init__(self) -> None:
        if not 1 <= self.billing_day <= 31:
            raise ValueError("billing_day must be a day of the month (1 to 31)")

    @property
    def effective_character_limit(self) -> int:
        """What `character_limit` answers: the set limit, else the plan's own."""
        if self.character_limit is not None:
            return self.character_limit
        return UNLIMITED_CHARACTERS if self.pro else FREE_CHARACTER_LIMIT

    def period(self, today: dt.date) -> tuple[dt.date, dt.date]:
        """[start, end) of the billing period holding `today`."""
        start = self._anchor(today.year, today.month)
        if start > today:
            start = self._anchor(*_shift_month(today.year, today.month, -1))
        return start, self._anchor(*_shift_month(start.year, start.month, 1))

    def _anchor(self, year: int, month: int) -> dt.date:
        return dt.date(year, month, min(self.billing_day, calendar.monthrange(year, month)[1]))


def _shift_month(year: int, month: int, months: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + months
    return index // 12, index % 12 + 1


def whole_minutes(minutes: float) -> int:
    """Minutes rounded up, as the service bills them; float noise below 1e-6 is no minute."""
    return math.ceil(round(minutes, 6))


def usage_body(
    plan: Plan,
    period: tuple[dt.date, dt.date],
    account: UsageAmounts,
    own: UsageAmounts,
    key_limit: int | None = None,
) -> dict[str, Any]:
    """The UsageResponse from the period's usage of the account and of the calling key, whose
    character limit is `key_limit` when it has one, else the plan's.

    A free plan answers only the two character fields; everything the service marks as
    paid-only (products, key counts, minutes, the period) is absent there.
    """
    limit = plan.effective_character_limit
    body: dict[str, Any] = {"character_count": _characters(account), "character_limit": limit}
    if not plan.pro:
        return body
    text, document, improvement, speech_to_text, speech_to_speech = zip(own, account, strict=True)
    start, end = period
    return body | {
        "products": [
            _product("write", improvement),
            _product("translate", (text[0] + document[0], text[1] + document[1])),
            _product("speechToText", speech_to_text, minutes=True),
            _product("speechToSpeech", speech_to_speech, minutes=True),
        ],
        "api_key_character_count": _characters(own),
        "api_key_character_limit": limit if key_limit is None else key_limit,
        "speech_to_text_milliseconds_count": 0,  # deprecated by the service: always 0
        "speech_to_text_milliseconds_limit": 0,
        "speech_to_text_minutes_count": whole_minutes(account[3]),
        "speech_to_text_minutes_limit": plan.speech_to_text_minutes_limit,
        "speech_to_speech_minutes_count": whole_minutes(account[4]),
        "speech_to_speech_minutes_limit": plan.speech_to_speech_minutes_limit,
        "start_time": f"{start.isoformat()}T00:00:00Z",
        "end_time": f"{end.isoformat()}T00:00:00Z",
    }


def _characters(usage: UsageAmounts) -> int:
    return usage[0] + usage[1] + usage[2]


def _product(name: str, counts: tuple[float, float], *, minutes: bool = False) -> dict[str, Any]:
    """One `products` entry from (the key's, the account's) units.

    The deprecated character fields repeat the unit counts for character products and are 0
    for minute products.
    """
    own, account = (whole_minutes(c) for c in counts) if minutes else (int(c) for c in counts)
    return {
        "product_type": name,
        "billing_unit": "minutes" if minutes else "characters",
        "api_key_unit_count": own,
        "account_unit_count": account,
        "api_key_character_count": 0 if minutes else own,
        "character_count": 0 if minutes else account,
    }
