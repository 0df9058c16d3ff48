"""The language tables behind every language list, translation and detection rule.

One row per base language; the v3 lists of all five resources and the v2 list are derived
from these rows, so v2 and v3 stay consistent by construction.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

RESOURCES = ("translate_text", "translate_document", "glossary", "voice", "write")


@dataclass(frozen=True)
class Language:
    """A base language; `variants` are its regional/script target codes (source uses the base)."""

    code: str
    name: str
    status: str = "stable"
    variants: tuple[tuple[str, str], ...] = ()
    formality: bool = False
    glossary: bool = True
    style_rules: bool = False
    transcription: bool = False


LANGUAGES = (
    Language("ar", "Arabic"),
    Language("bg", "Bulgarian"),
    Language("cs", "Czech"),
    Language("da", "Danish", transcription=True),
    Language("de", "German", formality=True, style_rules=True, transcription=True),
    Language("el", "Greek"),
    Language(
        "en",
        "English",
        variants=(("en-GB", "English (British)"), ("en-US", "English (American)")),
        style_rules=True,
        transcription=True,
    ),
    Language("es", "Spanish", formality=True, style_rules=True, transcription=True),
    Language("et", "Estonian"),
    Language("fi", "Finnish"),
    Language("fr", "French", formality=True, style_rules=True, transcription=True),
    Language("he", "Hebrew", glossary=False),
    Language("hu", "Hungarian"),
    Language("id", "Indonesian"),
    Language("it", "Italian", formality=True, style_rules=True, transcription=True),
    Language("ja", "Japanese", formality=True, style_rules=True, transcription=True),
    Language("ko", "Korean", style_rules=True, transcription=True),
    Language("lt", "Lithuanian"),
    Language("lv", "Latvian"),
    Language("nb", "Norwegian Bokmål"),
    Language("nl", "Dutch", formality=True, transcription=True),
    Language("pl", "Polish", formality=True, transcription=True),
    Language(
        "pt",
        "Portuguese",
        variants=(("pt-BR", "Portuguese (Brazilian)"), ("pt-PT", "Portuguese (European)")),
        formality=True,
        transcription=True,
    ),
    Language("ro", "Romanian"),
    Language("ru", "Russian", formality=True, transcription=True),
    Language("sk", "Slovak"),
    Language("sl", "Slovenian"),
    Language("sv", "Swedish", transcription=True),
    Language("th", "Thai", glossary=False),
    Language("tr", "Turkish", transcription=True),
    Language("uk", "Ukrainian"),
    Language("vi", "Vietnamese", glossary=False),
    Language(
        "zh",
        "Chinese",
        variants=(("zh-Hans", "Chinese (simplified)"), ("zh-Hant", "Chinese (traditional)")),
        style_rules=True,
        transcription=True,
    ),
    Language("ca", "Catalan", status="beta", glossary=False),
    Language("hr", "Croatian", status="beta", glossary=False),
    Language("ms", "Malay", status="early_access", glossary=False),
)

# The detection beta reports exactly the stable languages (the spec's 33 codes).
DETECTION_LANGUAGES = frozenset(lang.code for lang in LANGUAGES if lang.status == "stable")

# Write (rephrasing): code, name, status, tone supported.
WRITE_LANGUAGES = (
    ("de", "German", "stable", True),
    ("en-GB", "English (British)", "stable", True),
    ("en-US", "English (American)", "stable", True),
    ("es", "Spanish", "stable", False),
    ("fr", "French", "stable", False),
    ("it", "Italian", "stable", False),
    ("pt-BR", "Portuguese (Brazilian)", "stable", False),
    ("pt-PT", "Portuguese (European)", "stable", False),
    ("ja", "Japanese", "beta", False),
    ("ko", "Korean", "beta", False),
)


def _flags(*names: str) -> dict[str, dict[str, str]]:
    return {name: {"status": "beta" if name == "style_rules" else "stable"} for name in names}


def _entry(
    lang: str, name: str, status: str, source: bool, target: bool, features: dict[str, Any]
) -> dict[str, Any]:
    return {
        "lang": lang,
        "name": name,
        "usable_as_source": source,
        "usable_as_target": target,
        "status": status,
        "features": features,
    }


def _translation_entries(language: Language, document: bool) -> list[dict[str, Any]]:
    """Base entry (source, and target when there are no variants) plus target-only variants."""
    shared = ["glossary"] if language.glossary else []
    if not document:
        shared.append("tag_handling")
    source_features = (
        ["auto_detection", *shared] if language.code in DETECTION_LANGUAGES else shared
    )
    target_features = [*shared]
    if language.formality:
        target_features.append("formality")
    if language.style_rules and not document:
        target_features.append("style_rules")
    is_target = not language.variants
    features = sorted(set(source_features + (target_features if is_target else [])))
    entries = [
        _entry(language.code, language.name, language.status, True, is_target, _flags(*features))
    ]
    for code, name in language.variants:
        features = sorted(target_features)
        entries.append(_entry(code, name, language.status, False, True, _flags(*features)))
    return entries


def _voice_entries(language: Language) -> list[dict[str, Any]]:
    """Transcription languages are sources; every stable text target is a voice target."""
    source = language.transcription
    features = _flags("transcription") if source else {}
    if not language.variants:
        return [_entry(language.code, language.name, language.status, source, True, features)]
    entries = [_entry(language.code, language.name, language.status, source, False, features)]
    entries += [_entry(c, n, language.status, False, True, {}) for c, n in language.variants]
    return entries


@functools.cache
def language_entries(resource: str) -> list[dict[str, Any]]:
    """The v3 list of one resource, in stable code order (cached: callers must not mutate)."""
    entries: list[dict[str, Any]] = []
    if resource in ("translate_text", "translate_document"):
        for language in LANGUAGES:
            entries += _translation_entries(language, document=resource == "translate_document")
    elif resource == "glossary":
        entries = [
            _entry(lang.code, lang.name, lang.status, True, True, {})
            for lang in LANGUAGES
            if lang.glossary
        ]
    elif resource == "voice":
        for language in LANGUAGES:
            if language.status == "stable":
                entries += _voice_entries(language)
    elif resource == "write":
        entries = [
            _entry(code, name, status, True, True, _flags("writing_style", *(["tone"] * tone)))
            for code, name, status, tone in WRITE_LANGUAGES
        ]
    else:
        raise ValueError(f"unknown resource {resource!r}")
    return sorted(entries, key=lambda e: e["lang"].lower())


def v2_languages(kind: str) -> list[dict[str, Any]]:
    """The v2 list (`source` or `target`) derived from v3 translate_text."""
    flag = "usable_as_source" if kind == "source" else "usable_as_target"
    rows = []
    for entry in language_entries("translate_text"):
        if entry[flag]:
            row: dict[str, Any] = {"language": entry["lang"].upper(), "name": entry["name"]}
            if kind == "target":
                row["supports_formality"] = "formality" in entry["features"]
            rows.append(row)
    return rows


def find_entry(resource: str, code: str, as_target: bool) -> dict[str, Any] | None:
    """The entry a client's code means (case-insensitive), if usable that way."""
    flag = "usable_as_target" if as_target else "usable_as_source"
    for entry in language_entries(resource):
        if entry["lang"].lower() == code.strip().lower() and entry[flag]:
            return entry
    return None


def base_code(code: str) -> str:
    return code.split("-")[0].lower()
