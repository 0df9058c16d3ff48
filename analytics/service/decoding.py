"""Decoders of the analytics answers: the one rule for speech-to-text in milliseconds, and the
rows of a long answer decoded a block at a time.

Other revisions of the published interface (and clients generated from them) give a usage
breakdown's speech-to-text as `speech_to_text_milliseconds` (whole milliseconds) instead of
`speech_to_text_minutes`. The rule, for every breakdown of every analytics answer (usage
report rows and total, custom tags, language pairs): when the minutes are absent and the
milliseconds given, the minutes are milliseconds ÷ 60,000; when both are given the minutes
win; neither is 0 minutes. Minutes are rounded to the service's six decimals where every
minute is, when the rows become columns.

Why not a field of `UsageBreakdown`: an absent optional field slows the decoding of every row
of every answer (about 12% each), for a form the service rarely sends. The usual answer is
decoded as sent after one scan of its bytes (about a tenth of the typed decoding's time); only
an answer that names the milliseconds is rewritten first (`with_minutes`), so every decoder
reads minutes alone.

Why blocks: a year of a thousand keys is 190,000 rows. Decoded at once, their two million
objects are scattered over memory by the time the columns are read from them, and reading
the columns cost more than the decoding. `RowDecoder` decodes the answer with each row kept as
its JSON (`msgspec.Raw`), then the rows a thousand at a time: a block's columns are read while
its objects are still in the processor's cache, and each block reuses the memory the last one
freed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Annotated, Any, Final, Generic, Protocol, TypeVar

import msgspec

from analytics.service.models import (
    AdminCustomTagReport,
    AdminLanguagePairReport,
    AdminUsageReport,
    CustomTagUsage,
    KeyAndDayUsage,
    LanguagePairUsage,
)

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
R = TypeVar("R")

MINUTES: Final = "speech_to_text_minutes"
MILLISECONDS: Final = "speech_to_text_milliseconds"
MILLISECONDS_PER_MINUTE: Final = 60_000
_MILLISECONDS_BYTES: Final = MILLISECONDS.encode()
# Rows decoded at once by `RowDecoder.blocks`: a block's objects (about a megabyte) stay in
# the processor's cache while its columns are read.
BLOCK_ROWS: Final = 1_000


# What decoding raises for a body that is not the documented shape: msgspec's errors, and the
# interpreter's RecursionError for JSON nested deeper than its recursion limit (about a
# thousand levels), which msgspec raises as is.
NOT_DOCUMENTED: Final = (msgspec.DecodeError, RecursionError)


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


def with_minutes(buf: bytes) -> bytes:
    """`buf` with every breakdown's speech-to-text in minutes (see the module's rule): `buf`
    itself when it names no milliseconds, else the answer decoded, each breakdown without
    minutes given its milliseconds in minutes, and encoded again."""
    if _MILLISECONDS_BYTES not in buf:
        return buf
    answer = msgspec.json.decode(buf)
    _minutes_from_milliseconds(answer)
    return msgspec.json.encode(answer)


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


class AnalyticsDecoder(Generic[T]):
    """Decodes an analytics answer into `shape`, reading speech-to-text in milliseconds as
    minutes (see the module's rule): the same structs and validation whichever form the
    answer used, so nothing downstream tells the two apart."""

    def __init__(self, shape: type[T]) -> None:
        self._typed = msgspec.json.Decoder(shape)

    def decode(self, buf: bytes, /) -> T:
        return self._typed.decode(with_minutes(buf))


class RowDecoder(AnalyticsDecoder[T], Generic[T, R]):
    """Decodes an analytics answer into `shape`, whose rows are `msgspec.Raw`, and those rows
    into `row` structs a block at a time (`blocks`; see the module's docstring).

    The rows' JSON comes from an answer `decode` read, so its milliseconds are minutes already.
    """

    def __init__(self, shape: type[T], row: type[R]) -> None:
        super().__init__(shape)
        self._row = msgspec.json.Decoder(row)
        self._rows = msgspec.json.Decoder(list[row])  # type: ignore[valid-type]

    def blocks(self, rows: Sequence[msgspec.Raw]) -> Iterator[list[R]]:
        """The rows decoded, `BLOCK_ROWS` at a time, in order. A row that is not the documented
        shape raises the decoding error of that row alone, numbered from 0 in `rows`."""
        for start in range(0, len(rows), BLOCK_ROWS):
            block = rows[start : start + BLOCK_ROWS]
            try:
                decoded = self._rows.decode(b"[" + b",".join(block) + b"]")
            except msgspec.DecodeError:
                for number, row in enumerate(block, start):
                    self._one(row, number)
                raise
            yield decoded

    def _one(self, row: msgspec.Raw, number: int) -> None:
        """Decodes one row of a block that failed, so that its error names the row."""
        try:
            self._row.decode(row)
        except msgspec.DecodeError as exc:
            raise msgspec.ValidationError(f"row {number}: {exc}") from None


usage_report_decoder = AnalyticsDecoder(AdminUsageReport[KeyAndDayUsage])
custom_tag_decoder = AnalyticsDecoder(AdminCustomTagReport[CustomTagUsage])
language_pair_decoder = AnalyticsDecoder(AdminLanguagePairReport[LanguagePairUsage])
key_day_rows = RowDecoder(AdminUsageReport[msgspec.Raw], KeyAndDayUsage)
tag_day_rows = RowDecoder(AdminCustomTagReport[msgspec.Raw], CustomTagUsage)
pair_rows = RowDecoder(AdminLanguagePairReport[msgspec.Raw], LanguagePairUsage)
