"""Text translation: language rules, source detection and the marked pseudo-translation.

The emulator does not translate; each output is the input prefixed with the target code in
brackets (`[DE] Hello`), so clients can see what would have been translated into what.
"""

from __future__ import annotations

from typing import Any

from emulator.bodies import Params
from emulator.detection import likely_source
from emulator.errors import bad_request
from emulator.languages_data import find_entry, language_entries

FALLBACK_SOURCE = "en"  # reported when a text holds no detectable language (digits only, ...)


def resolve_target(resource: str, code: str | None) -> dict[str, Any]:
    """The target entry for a client's code (case-insensitive); 400 when missing or unknown."""
    if code is None:
        raise bad_request("Bad request. Parameter target_lang is missing.", "target_lang_missing")
    entry = find_entry(resource, code, as_target=True)
    if entry is None:
        raise bad_request(
            f"Value for 'target_lang' not supported: {code[:20]!r}. "
            "See the language list for the supported target languages.",
            "unsupported_target_lang",
        )
    return entry


def resolve_source(resource: str, code: str | None) -> dict[str, Any] | None:
    """The source entry, or None when the source is to be detected."""
    if code is None:
        return None
    entry = find_entry(resource, code, as_target=False)
    if entry is None:
        raise bad_request(
            f"Value for 'source_lang' not supported: {code[:20]!r}. "
            "Source languages use base codes such as EN, PT or ZH.",
            "unsupported_source_lang",
        )
    return entry


def source_codes(resource: str) -> frozenset[str]:
    return frozenset(e["lang"] for e in language_entries(resource) if e["usable_as_source"])


def translate(params: Params, texts: list[str]) -> list[dict[str, Any]]:
    """One pseudo-translation per text with the given or detected source language, and its
    billed characters (code points, as booked) when `show_billed_characters` is true."""
    target = resolve_target("translate_text", params.text("target_lang"))
    source = resolve_source("translate_text", params.text("source_lang"))
    show_billed = params.flag("show_billed_characters")
    sources = source_codes("translate_text")
    tag = target["lang"].upper()
    results = []
    for text in texts:
        code = source["lang"] if source else likely_source(text, sources) or FALLBACK_SOURCE
        result: dict[str, Any] = {
            "detected_source_language": code.upper(),
            "text": f"[{tag}] {text}",
        }
        if show_billed:
            result["billed_characters"] = len(text)
        results.append(result)
    return results
