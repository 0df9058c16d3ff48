"""Language-list shaping: per-resource tables, feature matrix, availability, pair check,
glossary pairs, v2↔v3.

Inputs are the client's decoded entries (`LanguageEntry`, `LanguageResource`, `V2Language`,
`DetectionResult`); outputs are small frames the Languages page shows as they are. Languages
and features that are not stable are marked with their status wherever they appear, since the
service may still change or withdraw them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import get_args

import pandas as pd

from analytics.service import DetectionResult, LanguageEntry, LanguageResource, Resource, V2Language

RESOURCES: tuple[Resource, ...] = get_args(Resource)
RESOURCE_LABELS = {
    "translate_text": "Text translation",
    "translate_document": "Document translation",
    "glossary": "Glossaries",
    "voice": "Voice",
    "write": "Write",
    "style_rules": "Style rule lists",
    "translation_memory": "Translation memories",
}
# Each feature key of the language lists by the name people know it by, on the page and in the
# `languages` command's table; a key the service adds later reads as its words until named here.
FEATURE_LABELS = {
    "auto_detection": "Auto-detection",
    "formality": "Formality",
    "glossary": "Glossary",
    "spoken_terms": "Spoken terms",
    "style_rules": "Style rules",
    "tag_handling": "Tag handling",
    "tone": "Tone",
    "transcription": "Transcription",
    "translated_speech": "Translated speech",
    "translation_memory": "Translation memory",
    "writing_style": "Writing style",
}
NOT_AVAILABLE = "—"
STABLE = "stable"


def offered(resources: Sequence[LanguageResource]) -> tuple[Resource, ...]:
    """The resources whose lists to ask for, in this client's order: those the service's
    resource list names. A service of the spec's revision names five and would refuse the two
    its later revision adds, so it is not asked for them; a resource this client does not know
    yet is left out, having no name to show."""
    named = {resource.name for resource in resources}
    return tuple(resource for resource in RESOURCES if resource in named)


def base_language(code: str) -> str:
    """`en-US` -> `en`: pairs within one base language are not translations."""
    return code.split("-")[0].lower()


def language_code(given: str, lists: Mapping[str, Sequence[LanguageEntry]]) -> str | None:
    """The code of the language a user typed, a code or an English name in any of the
    resources' language lists, in any case ("DE", "de", "German"); "" when nothing was typed
    (no language asked for), None when no language is called that."""
    wanted = given.strip().casefold()
    if not wanted:
        return ""
    for entries in lists.values():
        for entry in entries:
            if wanted in (entry.lang.casefold(), entry.name.casefold()):
                return entry.lang
    return None


def status_label(status: str | None) -> str:
    """`early_access` -> `early access`; no status counts as stable, as in the lists published
    before statuses existed, which held stable entries only."""
    return (status or STABLE).replace("_", " ")


def marked(text: str, status: str | None) -> str:
    """`text`, followed by its status in parentheses unless it is stable."""
    label = status_label(status)
    return text if label == STABLE else f"{text} ({label})"


def feature_label(feature: str) -> str:
    """A feature key by its name (`tag_handling` -> `Tag handling`)."""
    return FEATURE_LABELS.get(feature) or feature.replace("_", " ").capitalize()


def feature_names(entry: LanguageEntry) -> str:
    """An entry's features by name, in alphabetical order, each marked with its status unless
    it is stable: one cell of a language table."""
    named = sorted((feature_label(key), feature_status(entry, key)) for key in entry.features)
    return ", ".join(marked(name, status) for name, status in named)


def feature_status(entry: LanguageEntry, feature: str) -> str | None:
    """The status an entry gives one of its feature keys (the key's `status`), if stated."""
    value = entry.features.get(feature)
    status = value.get("status") if isinstance(value, dict) else None
    return status if isinstance(status, str) else None


def _least_stable(statuses: Sequence[str | None]) -> str:
    """The first status that is not stable, else stable: one beta side makes a feature beta."""
    return next((label for label in map(status_label, statuses) if label != STABLE), STABLE)


def roles(entry: LanguageEntry) -> str:
    if entry.usable_as_source and entry.usable_as_target:
        return "Source + target"
    if entry.usable_as_source:
        return "Source"
    return "Target" if entry.usable_as_target else NOT_AVAILABLE


def language_table(entries: Sequence[LanguageEntry]) -> pd.DataFrame:
    """One row per language of a resource: code, name, source/target flags, status, features."""
    return pd.DataFrame(
        {
            "lang": [e.lang for e in entries],
            "name": [e.name for e in entries],
            "source": [e.usable_as_source for e in entries],
            "target": [e.usable_as_target for e in entries],
            "status": [status_label(e.status) for e in entries],
            "features": [feature_names(e) for e in entries],
        }
    )


def feature_matrix(entries: Sequence[LanguageEntry]) -> pd.DataFrame:
    """Languages × features of one resource, a column per feature by name in alphabetical
    order; True where the feature key is present. Names and feature columns that are not
    stable carry their status."""
    features = sorted({name for e in entries for name in e.features}, key=feature_label)
    headers = [
        marked(feature_label(name), _least_stable([feature_status(e, name) for e in entries]))
        for name in features
    ]
    matrix = pd.DataFrame(
        [[name in e.features for name in features] for e in entries],
        columns=headers,
        dtype=bool,
    )
    matrix.insert(0, "name", [marked(e.name, e.status) for e in entries])
    matrix.insert(0, "lang", [e.lang for e in entries])
    return matrix


def availability(lists: Mapping[str, Sequence[LanguageEntry]]) -> pd.DataFrame:
    """Every language code of any resource, with its role in each resource side by side (marked
    where the language is not stable in that resource)."""
    names: dict[str, str] = {}
    cells: dict[str, dict[str, str]] = {}
    for resource, entries in lists.items():
        for entry in entries:
            names.setdefault(entry.lang, entry.name)
            cells.setdefault(entry.lang, {})[resource] = marked(roles(entry), entry.status)
    codes = sorted(names, key=str.lower)
    table = pd.DataFrame(
        {resource: [cells[c].get(resource, NOT_AVAILABLE) for c in codes] for resource in lists}
    )
    table.insert(0, "name", [names[c] for c in codes])
    table.insert(0, "lang", codes)
    return table


def _entry(entries: Sequence[LanguageEntry], code: str) -> LanguageEntry:
    """The entry of a code the caller took from the same list."""
    for entry in entries:
        if entry.lang == code:
            return entry
    raise ValueError(f"{code!r} is not in the language list")


def other_language(codes: Sequence[str], code: str | None) -> int:
    """The index of the first code of another language than `code` (0 when there is none): a
    default target that makes a translation pair."""
    others = (
        i for i, c in enumerate(codes) if code is None or base_language(c) != base_language(code)
    )
    return next(others, 0)


def pair_features(
    resources: Sequence[LanguageResource],
    entries: Sequence[LanguageEntry],
    resource: str,
    source: str,
    target: str,
) -> pd.DataFrame:
    """Which features of `resource` the pair `source` → `target` (codes of its list `entries`)
    can use, one row per feature of `/v3/languages/resources`, by name.

    A feature is available when every side that needs it carries its key; `why_not` names the
    sides that lack it. `status` is the least stable status either language gives the feature
    (one beta side makes it beta), or — when neither carries it.
    """
    pair = {"source": _entry(entries, source), "target": _entry(entries, target)}
    features = next((r.features for r in resources if r.name == resource), [])
    rows = []
    for feature in features:
        flags = {"source": feature.needs_source_support, "target": feature.needs_target_support}
        needs = [side for side, flag in flags.items() if flag]
        lacking = [side for side in needs if feature.name not in pair[side].features]
        statuses = [
            feature_status(e, feature.name) for e in pair.values() if feature.name in e.features
        ]
        rows.append(
            {
                "feature": feature_label(feature.name),
                "needs": " and ".join(needs) or "neither",
                "available": not lacking,
                "why_not": f"{' and '.join(lacking)} lack{'s' if len(lacking) == 1 else ''} it"
                if lacking
                else "",
                "status": _least_stable(statuses) if statuses else NOT_AVAILABLE,
            }
        )
    return pd.DataFrame(rows, columns=["feature", "needs", "available", "why_not", "status"])


def _pairs(sources: list[LanguageEntry], targets: list[LanguageEntry]) -> pd.DataFrame:
    rows = [
        (s.lang, s.name, t.lang, t.name)
        for s in sources
        for t in targets
        if base_language(s.lang) != base_language(t.lang)
    ]
    return pd.DataFrame(rows, columns=["source_lang", "source_name", "target_lang", "target_name"])


def glossary_pairs(glossary_entries: Sequence[LanguageEntry]) -> pd.DataFrame:
    """Glossary language pairs: any valid source with any valid target of another language."""
    return _pairs(
        [e for e in glossary_entries if e.usable_as_source],
        [e for e in glossary_entries if e.usable_as_target],
    )


def document_glossary_pairs(document_entries: Sequence[LanguageEntry]) -> pd.DataFrame:
    """Pairs that can use a glossary in document translation: the `glossary` feature must be
    present on both the source and the target language of `translate_document`."""
    return _pairs(
        [e for e in document_entries if e.usable_as_source and "glossary" in e.features],
        [e for e in document_entries if e.usable_as_target and "glossary" in e.features],
    )


def v2_v3_differences(
    v2_sources: Sequence[V2Language],
    v2_targets: Sequence[V2Language],
    v3_entries: Sequence[LanguageEntry],
) -> pd.DataFrame:
    """The v2 and v3 lists joined case-insensitively on the code, one row per language.

    Shows each list's code as written (v2 uppercase, v3 BCP 47 casing), the roles in each,
    and v2's `supports_formality` next to v3's `formality` feature.
    """
    rows: dict[str, dict[str, object]] = {}

    def row(code: str) -> dict[str, object]:
        return rows.setdefault(
            code.lower(),
            {
                "v2_code": None,
                "v3_code": None,
                "name": None,
                "v2_roles": "",
                "v3_roles": NOT_AVAILABLE,
                "v2_supports_formality": None,
                "v3_formality_feature": None,
            },
        )

    for role, languages in (("Source", v2_sources), ("Target", v2_targets)):
        for language in languages:
            r = row(language.language)
            r["v2_code"] = language.language
            r["name"] = r["name"] or language.name
            r["v2_roles"] = " + ".join(filter(None, [str(r["v2_roles"]), role.lower()]))
            if role == "Target":
                r["v2_supports_formality"] = bool(language.supports_formality)
    for entry in v3_entries:
        r = row(entry.lang)
        r["v3_code"] = entry.lang
        r["name"] = entry.name
        r["v3_roles"] = roles(entry)
        if entry.usable_as_target:
            r["v3_formality_feature"] = "formality" in entry.features
    table = pd.DataFrame(list(rows.values()))
    table["v2_roles"] = table["v2_roles"].replace("", NOT_AVAILABLE).str.capitalize()
    table["casing_differs"] = table["v2_code"].notna() & (table["v2_code"] != table["v3_code"])
    both = table["v2_supports_formality"].notna() & table["v3_formality_feature"].notna()
    table["formality_agrees"] = ~both | (
        table["v2_supports_formality"] == table["v3_formality_feature"]
    )
    order = table["v3_code"].fillna(table["v2_code"]).str.lower()
    return table.iloc[order.argsort(kind="stable")].reset_index(drop=True)


def detection_table(
    texts: Sequence[str],
    results: Sequence[DetectionResult],
    lists: Mapping[str, Sequence[LanguageEntry]],
) -> pd.DataFrame:
    """Each pasted text with its detection status, language and the resources where that
    language is usable as a source."""
    names = {e.lang.lower(): e.name for entries in lists.values() for e in entries}
    usable: dict[str, list[str]] = {}
    for resource, entries in lists.items():
        for entry in entries:
            if entry.usable_as_source:
                usable.setdefault(base_language(entry.lang), []).append(RESOURCE_LABELS[resource])
    rows = []
    for text, result in zip(texts, results, strict=True):
        code = result.detected_language
        rows.append(
            {
                "text": text,
                "status": result.detection_status.replace("_", " "),
                "language": code or "",
                "name": names.get(code.lower(), "") if code else "",
                "usable_as_source_in": ", ".join(usable.get(base_language(code), []))
                if code
                else "",
            }
        )
    return pd.DataFrame(rows, columns=["text", "status", "language", "name", "usable_as_source_in"])


def pasted_texts(raw: str) -> list[str]:
    """One text per non-empty line."""
    return [line.strip() for line in raw.splitlines() if line.strip()]
