"""Decoders of the analytics answers, with the one rule for speech-to-text in milliseconds.

Other revisions of the published interface (and clients generated from them) give a usage
breakdown's speech-to-text as `speech_to_text_milliseconds` (whole milliseconds) instead of
`speech_to_text_minutes`. The rule, for every breakdown of every analytics answer (usage
report rows and total, custom tags, language pairs): when the minutes are absent and the
milliseconds given, the minutes are milliseconds ÷ 60,000; when both are given the minutes
win; neither is 0 minutes. Minutes are rounded to the service's six decimals where every
minute is, when the rows become columns.

Why not a field of `UsageBreakdown`: an absent optional field slows the decoding of every row
of every answer (about 12% each), for a form the service rarely sends. The usual answer is
decoded by the plain typed decoder after one scan of its bytes (about a tenth of the typed
decoding's time); only an answer that names the milliseconds takes the slower path below.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Generic, Protocol, TypeVar

import msgspec

from analytics.service.models import (
    AdminCustomTagReport,
    AdminLanguagePairReport,
    AdminUsageReport,
)

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

MINUTES: Final = "speech_to_text_minutes"
MILLISECONDS: Final = "speech_to_text_milliseconds"
MILLISECONDS_PER_MINUTE: Final = 60_000
_MILLISECONDS_BYTES: Final = MILLISECONDS.encode()


class Decoder(Protocol[T_co]):
    """What decodes a body into its typed shape: a msgspec decoder or an `AnalyticsDecoder`."""

    def decode(self, buf: bytes, /) -> T_co: ...


class _SpeechInMilliseconds(msgspec.Struct, frozen=True):
    """A breakdown's speech-to-text as the other revisions give it: whole milliseconds, never
    negative (anything else is not the documented shape)."""

    speech_to_text_milliseconds: Annotated[int, msgspec.Meta(ge=0)]

    @property
    def minutes(self) -> float:
        return self.speech_to_text_milliseconds / MILLISECONDS_PER_MINUTE


class AnalyticsDecoder(Generic[T]):
    """Decodes an analytics answer into `shape`, reading speech-to-text in milliseconds as
    minutes (see the module's rule).

    An answer that does not name the milliseconds is the plain typed decoding. One that does
    is decoded to Python objects, each of its breakdowns without minutes given its
    milliseconds in minutes, and the whole converted to the same `shape`: the same structs,
    the same validation, so nothing downstream tells the two apart.
    """

    def __init__(self, shape: type[T]) -> None:
        self._shape = shape
        self._typed = msgspec.json.Decoder(shape)

    def decode(self, buf: bytes, /) -> T:
        if _MILLISECONDS_BYTES not in buf:
            return self._typed.decode(buf)
        answer = msgspec.json.decode(buf)
        _minutes_from_milliseconds(answer)
        return msgspec.convert(answer, self._shape)


def _minutes_from_milliseconds(answer: Any) -> None:
    """Gives every breakdown in `answer` (decoded JSON, changed in place) that has
    milliseconds but no minutes its minutes. Any object naming the milliseconds is taken
    for a breakdown: only breakdowns do. A loop, not recursion, so no nesting is too deep."""
    pending = [answer]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if MILLISECONDS in node and MINUTES not in node:
                node[MINUTES] = msgspec.convert(node, _SpeechInMilliseconds).minutes
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)


usage_report_decoder = AnalyticsDecoder(AdminUsageReport)
custom_tag_decoder = AnalyticsDecoder(AdminCustomTagReport)
language_pair_decoder = AnalyticsDecoder(AdminLanguagePairReport)
