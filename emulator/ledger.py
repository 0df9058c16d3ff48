"""The ledger's vocabulary: the metrics, the masked key, and the rows and sums the store
answers with. Every other module of the emulator may import it; it imports none of them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

METRICS = (
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
    "speech_to_text_minutes",
    "speech_to_speech_minutes",
)
MINUTE_METRICS = ("speech_to_text_minutes", "speech_to_speech_minutes")


def mask_key(key: str) -> str:
    """Shape `abcd****wxyz`: enough to tell keys apart, never enough to use one."""
    if len(key) <= 8:
        return "****"
    return f"{key[:4]}****{key[-4:]}"


UNKNOWN = "-"  # the language pair of usage a key declares no pair for; the key of unattributed

# One stored key-day: (ISO day, index into Organization.keys, label that day, the METRICS).
UsageTuple = tuple[str, int, str, int, int, int, float, float]
# Key-days are handed out (UsageRows) and read from the store (Store.by_key_and_day) this many
# at a time: their Python objects then take a few megabytes.
CHUNK_ROWS = 10_000


# One key-day as UsageRows keep it: indexes into its days, keys and labels, then the METRICS.
USAGE_RECORD = np.dtype(
    [
        ("day", np.int64),
        ("key", np.int64),
        ("label", np.int64),
        ("characters", np.int64, 3),
        ("minutes", np.float64, 2),
    ]
)


class UsageRows(Sequence[UsageTuple]):
    """Key-days kept as one numpy record each (USAGE_RECORD), handed out as UsageTuple rows a
    chunk at a time: five years of a thousand keys are 670,000 key-days, which as Python
    tuples held at once took 170 MB, a quarter of the whole demo export's memory.

    Row i is `(days[r.day], r.key, labels[r.label], *r.characters, *r.minutes)` of record
    `r = records[i]`: `characters` holds the three character METRICS and `minutes` the two
    MINUTE_METRICS.
    """

    def __init__(self, days: Sequence[str], labels: Sequence[str], records: np.ndarray) -> None:
        self._days, self._labels, self._records = days, labels, records

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, index: int) -> UsageTuple: ...

    @overload
    def __getitem__(self, index: slice) -> list[UsageTuple]: ...

    def __getitem__(self, index: int | slice) -> UsageTuple | list[UsageTuple]:
        if isinstance(index, slice):
            return list(self._rows(self._records[index]))
        return next(self._rows(self._records[[index]]))

    def __iter__(self) -> Iterator[UsageTuple]:
        for first in range(0, len(self), CHUNK_ROWS):
            yield from self._rows(self._records[first : first + CHUNK_ROWS])

    def _rows(self, records: np.ndarray) -> Iterator[UsageTuple]:
        """The rows of some of the records, converted to Python values a field at a time."""
        return zip(
            map(self._days.__getitem__, records["day"].tolist()),
            records["key"].tolist(),
            map(self._labels.__getitem__, records["label"].tolist()),
            *records["characters"].T.tolist(),
            *records["minutes"].T.tolist(),
            strict=True,
        )


# (text, document, improvement characters, speech-to-text minutes, speech-to-speech minutes)
UsageAmounts = tuple[int, int, int, float, float]


@dataclass(frozen=True)
class LedgerRow:
    """One key-day of the usage ledger as the emulator stores it (key masked)."""

    usage_date: dt.date
    api_key: str
    api_key_label: str
    text_translation_characters: int
    document_translation_characters: int
    text_improvement_characters: int
    speech_to_text_minutes: float
    speech_to_speech_minutes: float


@dataclass(frozen=True)
class TagLedgerRow:
    """Characters of one key-day carrying one custom tag (key masked)."""

    usage_date: dt.date
    api_key: str
    custom_tag: str
    text_translation_characters: int
    text_improvement_characters: int


@dataclass(frozen=True)
class PairLedgerRow:
    """One key-day's usage on one language pair (key masked, whether attributed or not)."""

    usage_date: dt.date
    api_key: str
    api_key_label: str
    source_language: str
    target_language: str
    attributed: bool
    text_translation_characters: int
    document_translation_characters: int
    text_improvement_characters: int
    speech_to_text_minutes: float
    speech_to_speech_minutes: float
