"""Language detection over lingua, mapped onto the service's four detection statuses.

The detector covers every language lingua knows, so a clearly identified language outside the
supported set is reported as `unsupported_language` rather than mistaken for a supported one.
Low-accuracy mode keeps the first call fast (~0.3 s) and memory small (~100 MB).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from lingua import LanguageDetector, LanguageDetectorBuilder

from emulator.languages_data import DETECTION_LANGUAGES

MIN_CONFIDENCE = 0.5  # below this share of the probability mass the top guess is not reliable

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


def detect(text: str) -> Detection:
    """Classify one text as success / insufficient_confidence / unsupported / none."""
    if not _has_letters(text):
        return Detection("no_language_detected", None, 0.0)
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
    for value in _get_detector().compute_language_confidence_values(text):
        code = value.language.iso_code_639_1.name.lower()
        if value.value > 0.0 and code in sources:
            return code
    return None
