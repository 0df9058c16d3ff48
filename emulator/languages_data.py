"""The language tables behind every language list, translation and detection rule.

One row per base language; the v3 lists of every resource (the spec's five, and the style rule
lists and translation memories its later revision, the published interface 3.12.0, adds), their
feature keys, the resource list and the v2 list are derived from these rows and from
`RESOURCE_FEATURES`, so they stay consistent with each other and with what translation accepts
by construction.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Feature:
    """A feature key of one resource, and which side of a language pair must support it."""

    name: str
    source: bool
    target: bool
    status: str = "stable"


_AUTO_DETECTION = Feature("auto_detection", source=True, target=False)
_FORMALITY = Feature("formality", source=False, target=True)
_GLOSSARY = Feature("glossary", source=True, target=True)
# A translation memory holds segments of one source language in some target languages: a pair
# uses one when both its languages are among the memory's (text and document translation).
_TRANSLATION_MEMORY = Feature("translation_memory", source=True, target=True)
# The features of each resource: what `/v3/languages/resources` lists, and the only keys a
# language entry of that resource can carry (each on the side it belongs to).
RESOURCE_FEATURES: dict[str, tuple[Feature, ...]] = {
    "translate_text": (
        _AUTO_DETECTION,
        _FORMALITY,
        _GLOSSARY,
        Feature("style_rules", source=False, target=True, status="beta"),
        Feature("tag_handling", source=True, target=True),
        _TRANSLATION_MEMORY,
    ),
    "translate_document": (_AUTO_DETECTION, _FORMALITY, _GLOSSARY, _TRANSLATION_MEMORY),
    "glossary": (),
    # Spoken terms inform the transcription of the source (beta); translated speech is audio
    # synthesized in a target language (a closed beta: early access).
    "voice": (
        _GLOSSARY,
        Feature("spoken_terms", source=True, target=False, status="beta"),
        Feature("transcription", source=True, target=False),
        Feature("translated_speech", source=False, target=True, status="early_access"),
    ),
    "write": (
        Feature("tone", source=False, target=True),
        Feature("writing_style", source=False, target=True),
    ),
    # The languages a style rule list or a translation memory can be made in; what they do
    # for a pair is a feature of the translation resources, so they have none of their own.
    "style_rules": (),
    "translation_memory": (),
}
RESOURCES = tuple(RESOURCE_FEATURES)
# Values of `/v3/languages?include=`: `beta` adds what is not yet stable; `external` would add
# features relying on third-party providers, of which the emulator has none.
INCLUDE_VALUES = ("beta", "external")


@dataclass(frozen=True)
class Language:
    """A base language and what it supports; attributes are named after feature keys.

    The base code is a source and, as the published interface's unspecified variant for
    backward compatibility (`EN`, `PT`, `ZH`), also a target; `variants` are regional or
    script targets only (`en-GB`, `es-419`, `zh-Hant`).
    """

    code: str
    name: str
    status: str = "stable"
    variants: tuple[tuple[str, str], ...] = ()
    formality: bool = False
    glossary: bool = True
    spoken_terms: bool = False
    style_rules: bool = False
    transcription: bool = False
    tag_handling: bool = True
    translated_speech: bool = False
    translation_memory: bool = False

    @property
    def auto_detection(self) -> bool:
        """Detection reports exactly the stable languages (the spec's 33 codes)."""
        return self.status == "stable"


LANGUAGES = (
    Language("ar", "Arabic"),
    Language("bg", "Bulgarian"),
    Language("cs", "Czech"),
    Language("da", "Danish", transcription=True),
    Language(
        "de",
        "German",
        formality=True,
        style_rules=True,
        transcription=True,
        spoken_terms=True,
        translated_speech=True,
        translation_memory=True,
    ),
    Language("el", "Greek"),
    Language(
        "en",
        "English",
        variants=(("en-GB", "English (British)"), ("en-US", "English (American)")),
        style_rules=True,
        transcription=True,
        spoken_terms=True,
        translated_speech=True,
        translation_memory=True,
    ),
    Language(
        "es",
        "Spanish",
        variants=(("es-419", "Spanish (Latin American)"),),
        formality=True,
        style_rules=True,
        transcription=True,
        spoken_terms=True,
        translated_speech=True,
        translation_memory=True,
    ),
    Language("et", "Estonian"),
    Language("fi", "Finnish"),
    Language(
        "fr",
        "French",
        formality=True,
        style_rules=True,
        transcription=True,
        spoken_terms=True,
        translated_speech=True,
        translation_memory=True,
    ),
    Language("he", "Hebrew", glossary=False),
    Language("hu", "Hungarian"),
    Language("id", "Indonesian"),
    Language(
        "it",
        "Italian",
        formality=True,
        style_rules=True,
        transcription=True,
        spoken_terms=True,
        translated_speech=True,
        translation_memory=True,
    ),
    Language(
        "ja",
        "Japanese",
        formality=True,
        style_rules=True,
        transcription=True,
        spoken_terms=True,
        translated_speech=True,
        translation_memory=True,
    ),
    Language("ko", "Korean", style_rules=True, transcription=True, translation_memory=True),
    Language("lt", "Lithuanian"),
    Language("lv", "Latvian"),
    Language("nb", "Norwegian Bokmål"),
    Language("nl", "Dutch", formality=True, transcription=True, spoken_terms=True),
    Language("pl", "Polish", formality=True, transcription=True),
    Language(
        "pt",
        "Portuguese",
        variants=(("pt-BR", "Portuguese (Brazilian)"), ("pt-PT", "Portuguese (European)")),
        formality=True,
        transcription=True,
        spoken_terms=True,
        translated_speech=True,
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
        translated_speech=True,
        translation_memory=True,
    ),
    Language("ca", "Catalan", status="beta", glossary=False),
    Language("hr", "Croatian", status="beta", glossary=False),
    Language("ms", "Malay", status="early_access", glossary=False),
)

DETECTION_LANGUAGES = frozenset(lang.code for lang in LANGUAGES if lang.auto_detection)


@dataclass(frozen=True)
class WriteLanguage:
    """A language of the write (rephrasing) resource; attributes are named after feature keys."""

    code: str
    name: str
    status: str = "stable"
    tone: bool = False
    writing_style: bool = True


WRITE_LANGUAGES = (
    WriteLanguage("de", "German", tone=True),
    WriteLanguage("en-GB", "English (British)", tone=True),
    WriteLanguage("en-US", "English (American)", tone=True),
    WriteLanguage("es", "Spanish"),
    WriteLanguage("fr", "French"),
    WriteLanguage("it", "Italian"),
    WriteLanguage("pt-BR", "Portuguese (Brazilian)"),
    WriteLanguage("pt-PT", "Portuguese (European)"),
    WriteLanguage("ja", "Japanese", status="beta"),
    WriteLanguage("ko", "Korean", status="beta"),
)


def _supports(language: Language | WriteLanguage) -> Callable[[str], bool]:
    """Whether the language supports a feature key (its attribute of that name)."""
    return lambda feature: bool(getattr(language, feature, False))


def _entry(
    resource: str,
    lang: str,
    name: str,
    status: str,
    source: bool,
    target: bool,
    supports: Callable[[str], bool],
) -> dict[str, Any]:
    """One v3 entry; a feature is listed when the language supports it on a side it is used."""
    features = {
        feature.name: {"status": feature.status}
        for feature in RESOURCE_FEATURES[resource]
        if supports(feature.name) and ((source and feature.source) or (target and feature.target))
    }
    return {
        "lang": lang,
        "name": name,
        "usable_as_source": source,
        "usable_as_target": target,
        "status": status,
        "features": features,
    }


def _base_and_variants(resource: str, language: Language, source: bool) -> list[dict[str, Any]]:
    """The base code (target, and source when `source`) plus its target-only variants."""
    rows = [(language.code, language.name, source), *((c, n, False) for c, n in language.variants)]
    return [
        _entry(resource, code, name, language.status, as_source, True, _supports(language))
        for code, name, as_source in rows
    ]


@functools.cache
def language_entries(resource: str) -> list[dict[str, Any]]:
    """The full v3 list of one resource, every status included, in code order (cached:
    callers must not mutate). Translation accepts exactly the codes listed here."""
    entries: list[dict[str, Any]] = []
    if resource in ("translate_text", "translate_document"):
        for language in LANGUAGES:
            entries += _base_and_variants(resource, language, source=True)
    elif resource == "glossary":
        entries = [
            _entry(resource, lang.code, lang.name, lang.status, True, True, _supports(lang))
            for lang in LANGUAGES
            if lang.glossary
        ]
    elif resource == "voice":
        for language in LANGUAGES:
            if language.status == "stable":
                entries += _base_and_variants(resource, language, source=language.transcription)
    elif resource == "write":
        entries = [
            _entry(resource, lang.code, lang.name, lang.status, True, True, _supports(lang))
            for lang in WRITE_LANGUAGES
        ]
    elif resource == "style_rules":
        # A style rule list is made in one language and applies to translations into it.
        entries = [
            _entry(resource, lang.code, lang.name, lang.status, False, True, _supports(lang))
            for lang in LANGUAGES
            if lang.style_rules
        ]
    elif resource == "translation_memory":
        # A memory's source is a base language; its targets are any code of its languages.
        for language in LANGUAGES:
            if language.translation_memory:
                entries += _base_and_variants(resource, language, source=True)
    else:
        raise ValueError(f"unknown resource {resource!r}")
    return sorted(entries, key=lambda e: e["lang"].lower())


def listed_entries(resource: str, include_beta: bool) -> list[dict[str, Any]]:
    """What `/v3/languages` shows: stable languages and features only, unless beta is asked
    for, which adds everything not yet stable (beta and early access)."""
    entries = language_entries(resource)
    if include_beta:
        return entries
    return [
        {
            **entry,
            "features": {
                name: feature
                for name, feature in entry["features"].items()
                if feature["status"] == "stable"
            },
        }
        for entry in entries
        if entry["status"] == "stable"
    ]


def resource_list() -> list[dict[str, Any]]:
    """`/v3/languages/resources`: each resource's features and the sides that need them."""
    return [
        {
            "name": resource,
            "features": [
                {
                    "name": feature.name,
                    **({"needs_source_support": True} if feature.source else {}),
                    **({"needs_target_support": True} if feature.target else {}),
                }
                for feature in features
            ],
        }
        for resource, features in RESOURCE_FEATURES.items()
    ]


def v2_languages(kind: str) -> list[dict[str, Any]]:
    """The v2 list (`source` or `target`): every code text translation accepts that way."""
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
