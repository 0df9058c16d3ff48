"""Language-list shaping on entries built here."""

import pytest

from analytics import languages
from analytics.service.models import (
    DetectionResult,
    LanguageEntry,
    LanguageResource,
    ResourceFeature,
    V2Language,
)
from emulator.languages_data import RESOURCE_FEATURES

STABLE = {"status": "stable"}
BETA = {"status": "beta"}


def entry(lang, name, source, target, *features, status="stable", beta=()):
    """An entry whose `features` are stable and `beta` features beta."""
    return LanguageEntry(
        lang=lang,
        name=name,
        status=status,
        features={f: STABLE for f in features} | {f: BETA for f in beta},
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
    assert de["features"] == "Formality, Glossary"
    assert table.set_index("lang").loc["ca", "status"] == "beta"


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("auto_detection", "Auto-detection"),
        ("formality", "Formality"),
        ("glossary", "Glossary"),
        ("style_rules", "Style rules"),
        ("tag_handling", "Tag handling"),
        ("tone", "Tone"),
        ("transcription", "Transcription"),
        ("writing_style", "Writing style"),
        ("spoken_terms", "Spoken terms"),
        ("translated_speech", "Translated speech"),
        ("translation_memory", "Translation memory"),
        ("speaker_labels", "Speaker labels"),  # a key the service adds later: its words
    ],
)
def test_every_feature_is_shown_by_its_name(key, name):
    assert languages.feature_label(key) == name


def test_every_feature_the_emulator_lists_has_a_name():
    keys = {feature.name for features in RESOURCE_FEATURES.values() for feature in features}
    assert keys <= set(languages.FEATURE_LABELS)


def test_language_table_marks_what_is_not_stable():
    table = languages.language_table(
        [
            entry("de", "German", True, True, "glossary", beta=["style_rules"]),
            entry("ms", "Malay", True, True, status="early_access"),
            LanguageEntry("xx", "Unstated", features={"glossary": {}}, usable_as_source=True),
        ]
    )
    assert table[["lang", "status", "features"]].values.tolist() == [
        ["de", "stable", "Glossary, Style rules (beta)"],
        ["ms", "early access", ""],
        ["xx", "stable", "Glossary"],
    ]


def test_feature_matrix_marks_beta_languages_and_features():
    matrix = languages.feature_matrix(
        [
            entry("de", "German", True, True, "glossary", beta=["style_rules"]),
            entry("ca", "Catalan", True, True, "style_rules", status="beta"),
        ]
    )
    assert list(matrix.columns) == ["lang", "name", "Glossary", "Style rules (beta)"]
    assert list(matrix["name"]) == ["German", "Catalan (beta)"]
    assert matrix["Style rules (beta)"].tolist() == [True, True]


def test_feature_matrix():
    matrix = languages.feature_matrix(DOCUMENT).set_index("lang")
    assert list(matrix.columns) == ["name", "Formality", "Glossary"]
    assert matrix.loc["de", "Formality"]
    assert not matrix.loc["he", "Glossary"]


def test_availability_side_by_side():
    table = languages.availability(
        {"translate_document": DOCUMENT, "glossary": GLOSSARY, "voice": VOICE}
    ).set_index("lang")
    assert table.loc["en", "translate_document"] == "Source"
    assert table.loc["en", "voice"] == "Source"
    assert table.loc["fr", "translate_document"] == languages.NOT_AVAILABLE
    assert table.loc["de", "glossary"] == "Source + target"
    assert table.loc["en-US", "translate_document"] == "Target"
    assert table.loc["ca", "translate_document"] == "Source + target (beta)"


TEXT_FEATURES = LanguageResource(
    "translate_text",
    [
        ResourceFeature("auto_detection", needs_source_support=True),
        ResourceFeature("formality", needs_target_support=True),
        ResourceFeature("glossary", needs_source_support=True, needs_target_support=True),
        ResourceFeature("style_rules", needs_target_support=True),
        ResourceFeature("echo"),
    ],
)
RESOURCE_LIST = [LanguageResource("glossary", []), TEXT_FEATURES]
TEXT = [
    entry(
        "de", "German", True, True, "auto_detection", "formality", "glossary", beta=["style_rules"]
    ),
    entry("en-US", "English (American)", False, True, "glossary", beta=["style_rules"]),
    entry("he", "Hebrew", True, True, "auto_detection"),
    entry("th", "Thai", True, True, "auto_detection", "formality"),
]
PAIR_COLUMNS = ["feature", "needs", "available", "why_not", "status"]


def test_pair_features_of_german_to_american_english():
    table = languages.pair_features(RESOURCE_LIST, TEXT, "translate_text", "de", "en-US")
    assert table.values.tolist() == [
        ["Auto-detection", "source", True, "", "stable"],
        ["Formality", "target", False, "target lacks it", "stable"],
        ["Glossary", "source and target", True, "", "stable"],
        ["Style rules", "target", True, "", "beta"],
        ["Echo", "neither", True, "", languages.NOT_AVAILABLE],  # a feature not named yet
    ]
    assert list(table.columns) == PAIR_COLUMNS


def test_pair_features_name_the_side_that_lacks_a_feature():
    hebrew_to_german = languages.pair_features(RESOURCE_LIST, TEXT, "translate_text", "he", "de")
    hebrew_to_thai = languages.pair_features(RESOURCE_LIST, TEXT, "translate_text", "he", "th")
    rows = {
        "he→de": hebrew_to_german.set_index("feature").loc["Glossary"].tolist(),
        "he→th": hebrew_to_thai.set_index("feature").loc["Glossary"].tolist(),
        "he→th style": hebrew_to_thai.set_index("feature").loc["Style rules"].tolist(),
    }
    assert rows == {
        "he→de": ["source and target", False, "source lacks it", "stable"],
        "he→th": ["source and target", False, "source and target lack it", "—"],
        "he→th style": ["target", False, "target lacks it", "—"],
    }


def test_pair_features_of_a_resource_without_features():
    for resource in ("glossary", "voice"):  # listed without features; not listed at all
        table = languages.pair_features(RESOURCE_LIST, TEXT, resource, "de", "en-US")
        assert table.empty and list(table.columns) == PAIR_COLUMNS
    with pytest.raises(ValueError, match="'fr' is not in the language list"):
        languages.pair_features(RESOURCE_LIST, TEXT, "translate_text", "fr", "de")


def test_pair_features_of_voice_name_spoken_terms_and_translated_speech():
    """Spoken terms need the spoken source, translated speech the target; each carries the
    status its language gives it."""
    voice_features = LanguageResource(
        "voice",
        [
            ResourceFeature("spoken_terms", needs_source_support=True),
            ResourceFeature("translated_speech", needs_target_support=True),
        ],
    )
    voice = [
        entry("de", "German", True, True, beta=["spoken_terms"]),
        entry("ko", "Korean", True, True),
        LanguageEntry(
            "fr", "French", "stable", {"translated_speech": {"status": "early_access"}}, True, True
        ),
    ]
    german_to_french = languages.pair_features([voice_features], voice, "voice", "de", "fr")
    assert german_to_french.values.tolist() == [
        ["Spoken terms", "source", True, "", "beta"],
        ["Translated speech", "target", True, "", "early access"],
    ]
    korean_to_german = languages.pair_features([voice_features], voice, "voice", "ko", "de")
    assert korean_to_german["why_not"].tolist() == ["source lacks it", "target lacks it"]


def test_every_resource_has_a_name():
    assert languages.RESOURCE_LABELS == {
        "translate_text": "Text translation",
        "translate_document": "Document translation",
        "glossary": "Glossaries",
        "voice": "Voice",
        "write": "Write",
        "style_rules": "Style rule lists",
        "translation_memory": "Translation memories",
    }
    assert tuple(languages.RESOURCE_LABELS) == languages.RESOURCES


def test_the_lists_asked_for_are_the_known_resources_the_service_names():
    """In this client's order; a service of the spec's revision names five, and a resource
    this client does not know is left out."""
    later = [LanguageResource(name, []) for name in ("translation_memory", "glossary", "dubbing")]
    assert languages.offered(later) == ("glossary", "translation_memory")
    spec = [LanguageResource(name, []) for name in languages.RESOURCES[:5]]
    assert languages.offered(spec) == (
        "translate_text",
        "translate_document",
        "glossary",
        "voice",
        "write",
    )
    assert languages.offered([]) == ()


def test_default_target_is_another_language():
    targets = ["en", "en-GB", "en-US", "es"]
    assert languages.other_language(targets, "en") == 3
    assert languages.other_language(targets, "de") == 0
    assert languages.other_language(targets, None) == 0
    assert languages.other_language(["en", "en-US"], "en") == 0


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
    memories = [entry("de", "German", True, True), entry("en-GB", "English (British)", False, True)]
    lists = {"glossary": GLOSSARY, "voice": VOICE, "translation_memory": memories}
    table = languages.detection_table(texts, results, lists)
    assert table.loc[0, "name"] == "German"
    assert table.loc[0, "usable_as_source_in"] == "Glossaries, Voice, Translation memories"
    assert table.loc[1, "status"] == "no language detected"
    assert table.loc[1, "language"] == ""


def test_pasted_texts_one_per_line():
    assert languages.pasted_texts("a\n\n  b  \r\nc\n") == ["a", "b", "c"]


def test_a_language_is_found_by_code_or_name_in_any_list():
    lists = {
        "translate_text": [
            entry("DE", "German", True, True),
            entry("EN-GB", "English (British)", False, True),
        ],
        "voice": [entry("JA", "Japanese", True, False)],
    }
    assert languages.language_code(" german ", lists) == "DE"
    assert languages.language_code("en-gb", lists) == "EN-GB"
    assert languages.language_code("Japanese", lists) == "JA"  # a list of another resource
    assert languages.language_code("", lists) == ""  # nothing asked for
    assert languages.language_code("Klingon", lists) is None
