"""Language-list shaping: per-resource tables, feature matrix, availability, glossary pairs, v2↔v3.

Inputs are the client's decoded entries (`LanguageEntry`, `V2Language`, `DetectionResult`);
outputs are small frames the Languages page shows as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from analytics.service.models import DetectionResult, LanguageEntry, V2Language

RESOURCES = ("translate_text", "translate_document", "glossary", "voice", "write")
RESOURCE_LABELS = {
    "translate_text": "Text translation",
    "translate_document": "Document translation",
    "glossary": "Glossaries",
    "voice": "Voice",
    "write": "Write",
}
NOT_AVAILABLE = "—"


def base_language(code: str) -> str:
    """`en-US` -> `en`: pairs within one base language are not translations."""
    return code.split("-")[0].lower()


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
            "status": [e.status or "" for e in entries],
            "features": [", ".join(sorted(e.features)) for e in entries],
        }
    )


def feature_matrix(entries: Sequence[LanguageEntry]) -> pd.DataFrame:
    """Languages × features of one resource; True where the feature key is present."""
    features = sorted({name for e in entries for name in e.features})
    matrix = pd.DataFrame(
        [[name in e.features for name in features] for e in entries],
        columns=features,
        dtype=bool,
    )
    matrix.insert(0, "name", [e.name for e in entries])
    matrix.insert(0, "lang", [e.lang for e in entries])
    return matrix


def availability(lists: Mapping[str, Sequence[LanguageEntry]]) -> pd.DataFrame:
    """Every language code of any resource, with its role in each resource side by side."""
    names: dict[str, str] = {}
    cells: dict[str, dict[str, str]] = {}
    for resource, entries in lists.items():
        for entry in entries:
            names.setdefault(entry.lang, entry.name)
            cells.setdefault(entry.lang, {})[resource] = roles(entry)
    codes = sorted(names, key=str.lower)
    table = pd.DataFrame(
        {resource: [cells[c].get(resource, NOT_AVAILABLE) for c in codes] for resource in lists}
    )
    table.insert(0, "name", [names[c] for c in codes])
    table.insert(0, "lang", codes)
    return table


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
