"""Language-list shaping on entries built here."""

from analytics import languages
from analytics.service.models import DetectionResult, LanguageEntry, V2Language

STABLE = {"status": "stable"}


def entry(lang, name, source, target, *features, status="stable"):
    return LanguageEntry(
        lang=lang,
        name=name,
        status=status,
        features={f: STABLE for f in features},
        usable_as_source=source,
        usable_as_target=target,
    )


DOCUMENT = [
    entry("de", "German", True, True, "glossary", "formality"),
    entry("en", "English", True, False, "glossary"),
    entry("en-US", "English (American)", False, True, "glossary"),
    entry("he", "Hebrew", True, True),
    entry("ca", "Catalan", True, True, status="beta"),
]
GLOSSARY = [
    entry("de", "German", True, True),
    entry("en", "English", True, True),
    entry("fr", "French", True, True),
]
VOICE = [entry("de", "German", True, True, "transcription"), entry("en", "English", True, False)]


def test_language_table_flags_status_and_features():
    table = languages.language_table(DOCUMENT)
    de = table.set_index("lang").loc["de"]
    assert (de["source"], de["target"], de["status"]) == (True, True, "stable")
    assert de["features"] == "formality, glossary"
    assert table.set_index("lang").loc["ca", "status"] == "beta"


def test_feature_matrix():
    matrix = languages.feature_matrix(DOCUMENT).set_index("lang")
    assert list(matrix.columns) == ["name", "formality", "glossary"]
    assert matrix.loc["de", "formality"]
    assert not matrix.loc["he", "glossary"]


def test_availability_side_by_side():
    table = languages.availability(
        {"translate_document": DOCUMENT, "glossary": GLOSSARY, "voice": VOICE}
    ).set_index("lang")
    assert table.loc["en", "translate_document"] == "Source"
    assert table.loc["en", "voice"] == "Source"
    assert table.loc["fr", "translate_document"] == languages.NOT_AVAILABLE
    assert table.loc["de", "glossary"] == "Source + target"
    assert table.loc["en-US", "translate_document"] == "Target"


def test_glossary_pairs_every_source_with_every_other_target():
    pairs = languages.glossary_pairs(GLOSSARY)
    assert len(pairs) == 3 * 2
    assert not (pairs["source_lang"] == pairs["target_lang"]).any()


def test_document_glossary_pairs_need_the_feature_on_both_sides():
    pairs = languages.document_glossary_pairs(DOCUMENT)
    found = set(zip(pairs["source_lang"], pairs["target_lang"], strict=True))
    # en -> en-US is the same language; he and ca lack the glossary feature.
    assert found == {("de", "en-US"), ("en", "de")}


def test_v2_v3_differences():
    v2_sources = [V2Language("DE", "German"), V2Language("EN", "English")]
    v2_targets = [
        V2Language("DE", "German", supports_formality=True),
        V2Language("EN-US", "English (American)", supports_formality=False),
        V2Language("PT-BR", "Portuguese (Brazilian)", supports_formality=True),
    ]
    v3 = [
        entry("de", "German", True, True, "formality"),
        entry("en", "English", True, False),
        entry("en-US", "English (American)", False, True),
        entry("zh-Hant", "Chinese (traditional)", False, True),
    ]
    table = languages.v2_v3_differences(v2_sources, v2_targets, v3)
    by_v3 = table.set_index("v3_code")
    assert by_v3.loc["en-US", "v2_code"] == "EN-US"
    assert by_v3.loc["en-US", "casing_differs"]
    assert by_v3.loc["de", "v2_roles"] == "Source + target"
    assert by_v3.loc["de", "v3_formality_feature"]
    assert by_v3.loc["de", "formality_agrees"]
    assert by_v3.loc["en", "v3_roles"] == "Source"
    only_v2 = table[table["v3_code"].isna()]
    assert list(only_v2["v2_code"]) == ["PT-BR"]
    assert by_v3.loc["zh-Hant", "v2_roles"] == languages.NOT_AVAILABLE


def test_formality_disagreement_is_flagged():
    table = languages.v2_v3_differences(
        [],
        [V2Language("FR", "French", supports_formality=True)],
        [entry("fr", "French", True, True)],
    )
    assert not table.loc[0, "formality_agrees"]


def test_detection_table():
    texts = ["Guten Tag", "??"]
    results = [
        DetectionResult("success", "de"),
        DetectionResult("no_language_detected"),
    ]
    table = languages.detection_table(texts, results, {"glossary": GLOSSARY, "voice": VOICE})
    assert table.loc[0, "name"] == "German"
    assert table.loc[0, "usable_as_source_in"] == "Glossaries, Voice"
    assert table.loc[1, "status"] == "no language detected"
    assert table.loc[1, "language"] == ""


def test_pasted_texts_one_per_line():
    assert languages.pasted_texts("a\n\n  b  \r\nc\n") == ["a", "b", "c"]
