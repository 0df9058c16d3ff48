"""The ledger's vocabulary: the metrics, the masked key, and the rows and sums the store
answers with. Every other module of the emulator may import it; it imports none of them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

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

# (text, document, improvement characters, speech-to-text minutes, speech-to-speech minutes)
Usage = tuple[int, int, int, float, float]


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
