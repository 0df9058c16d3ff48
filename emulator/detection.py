"""Language detection over lingua, mapped onto the service's four detection statuses.

The detector covers every language lingua knows, so a clearly identified language outside the
supported set is reported as `unsupported_language` rather than mistaken for a supported one.
Low-accuracy mode keeps the first call fast (~0.3 s) and memory small (~100 MB), but its
guesses on short texts are poor (lingua's authors: below 120 characters): a short text whose
words mostly belong to one language's common words (`common_words`) is that language.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass

from lingua import LanguageDetector, LanguageDetectorBuilder

from emulator.common_words import LANGUAGES_OF
from emulator.languages_data import DETECTION_LANGUAGES

MIN_CONFIDENCE = 0.5  # below this share of the probability mass the top guess is not reliable
# Texts shorter than this (characters) are read by their common words first.
SHORT_TEXT = 120
# A short text is a language's when at least this share of its words are that language's
# common words, more of them than of any other language's.
MIN_WORD_SHARE = 0.5
# Words as the common-word table lists them: letters only, two or more (a lone letter, or
# what an apostrophe leaves of "l'homme", belongs to too many languages to tell any).
_WORD = re.compile(r"[^\W\d_]{2,}")

_detector: LanguageDetector | None = None
_detector_lock = threading.Lock()


def _get_detector() -> LanguageDetector:
    """Built once per process on first use; lingua loads its models lazily."""
    global _detector
    with _detector_lock:
        if _detector is None:
            _detector = (
                LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()
            )
        return _detector


@dataclass(frozen=True)
class Detection:
    """One text's verdict; `language` is the top guess (lowercase ISO 639-1) when there is one."""

    status: str
    language: str | None
    confidence: float

    def as_result(self) -> dict[str, str]:
        """The DetectionResult shape: `detected_language` only on success."""
        if self.status == "success" and self.language:
            return {"detection_status": "success", "detected_language": self.language}
        return {"detection_status": self.status}


def _has_letters(text: str) -> bool:
    """Digits and punctuation carry no language, though lingua would still guess one."""
    return any(ch.isalpha() for ch in text)


def _by_common_words(text: str) -> Detection | None:
    """The language of a short text told by its common words; None for a longer text, or
    when its words do not tell one language (too few known, or two languages alike)."""
    if len(text) >= SHORT_TEXT:
        return None
    words = _WORD.findall(unicodedata.normalize("NFC", text).lower())
    votes = Counter(code for word in words for code in LANGUAGES_OF.get(word, ()))
    ranked = votes.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[1][1] == ranked[0][1]):
        return None
    code, known = ranked[0]
    share = known / len(words)
    return Detection("success", code, share) if share >= MIN_WORD_SHARE else None


def detect(text: str) -> Detection:
    """Classify one text as success / insufficient_confidence / unsupported / none."""
    if not _has_letters(text):
        return Detection("no_language_detected", None, 0.0)
    if told := _by_common_words(text):
        return told
    values = _get_detector().compute_language_confidence_values(text)
    if not values or values[0].value <= 0.0:
        return Detection("no_language_detected", None, 0.0)
    top = values[0]
    code = top.language.iso_code_639_1.name.lower()
    if top.value < MIN_CONFIDENCE:
        return Detection("insufficient_confidence", code, top.value)
    if code not in DETECTION_LANGUAGES:
        return Detection("unsupported_language", code, top.value)
    return Detection("success", code, top.value)


def likely_source(text: str, sources: frozenset[str]) -> str | None:
    """The most probable language among `sources` (translation's source detection)."""
    if not _has_letters(text):
        return None
    told = _by_common_words(text)
    if told and told.language in sources:
        return told.language
    for value in _get_detector().compute_language_confidence_values(text):
        code = value.language.iso_code_639_1.name.lower()
        if value.value > 0.0 and code in sources:
            return code
    return None
