"""The v3 and v2 language lists and their consistency with each other and with detection."""

from __future__ import annotations

import re

import pytest
from support.servers import SPEC_DETECTION_CODES

from emulator.languages_data import DETECTION_LANGUAGES, RESOURCES

V3 = "/v3/languages"
FEATURES = {
    "formality",
    "glossary",
    "tag_handling",
    "auto_detection",
    "style_rules",
    "transcription",
    "tone",
    "writing_style",
    "spoken_terms",
    "translated_speech",
    "translation_memory",
}
BCP47 = re.compile(r"^[a-z]{2,3}(-([A-Z]{2}|\d{3}|[A-Z][a-z]{3}))?$")


async def v3(client, resource, **filters):
    response = await client.get(V3, params={"resource": resource, **filters})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("resource", RESOURCES)
async def test_every_resource_lists_well_formed_entries(emulator_client, resource):
    entries = await v3(emulator_client, resource, include="beta")
    assert isinstance(entries, list) and entries
    for entry in entries:
        assert set(entry) == {
            "lang",
            "name",
            "usable_as_source",
            "usable_as_target",
            "status",
            "features",
        }
        assert BCP47.match(entry["lang"]), entry["lang"]
        assert entry["status"] in {"stable", "beta", "early_access"}
        assert set(entry["features"]) <= FEATURES
        assert all(set(v) == {"status"} for v in entry["features"].values())
        assert entry["usable_as_source"] or entry["usable_as_target"]
    assert len({e["lang"] for e in entries}) == len(entries)


@pytest.mark.parametrize("resource", RESOURCES)
@pytest.mark.parametrize("flag", ["usable_as_source", "usable_as_target"])
async def test_filters(emulator_client, resource, flag):
    everything = await v3(emulator_client, resource)
    yes = await v3(emulator_client, resource, **{flag: "true"})
    no = await v3(emulator_client, resource, **{flag: "false"})
    assert all(e[flag] for e in yes)
    assert not any(e[flag] for e in no)
    assert sorted(e["lang"] for e in yes + no) == sorted(e["lang"] for e in everything)


@pytest.mark.parametrize("resource", ["translate_text", "translate_document"])
async def test_variants_are_targets_and_bases_are_both(emulator_client, resource):
    entries = {e["lang"]: e for e in await v3(emulator_client, resource)}
    variants = ["en-GB", "en-US", "es-419", "pt-BR", "pt-PT", "zh-Hans", "zh-Hant"]
    assert sorted(lang for lang in entries if "-" in lang) == variants
    for variant in variants:
        assert entries[variant]["usable_as_target"]
        assert not entries[variant]["usable_as_source"]
    # The unspecified variants EN, PT and ZH stay usable as targets for backward compatibility.
    for base in ("en", "es", "pt", "zh"):
        assert entries[base]["usable_as_source"]
        assert entries[base]["usable_as_target"]
    assert entries["es-419"]["name"] == "Spanish (Latin American)"
    assert "formality" in entries["es-419"]["features"]
    assert "auto_detection" not in entries["es-419"]["features"]


async def test_detection_languages_are_the_spec_list_and_translatable(emulator_client):
    assert set(DETECTION_LANGUAGES) == SPEC_DETECTION_CODES
    sources = {
        e["lang"] for e in await v3(emulator_client, "translate_text", usable_as_source="true")
    }
    assert sources >= SPEC_DETECTION_CODES
    statuses = {e["status"] for e in await v3(emulator_client, "translate_text", include="beta")}
    assert statuses == {"stable", "beta", "early_access"}


async def test_glossary_resource_is_all_pairs(emulator_client):
    entries = await v3(emulator_client, "glossary")
    assert all(e["usable_as_source"] and e["usable_as_target"] for e in entries)
    text = {e["lang"]: e for e in await v3(emulator_client, "translate_document")}
    assert {e["lang"] for e in entries} == {
        lang for lang, e in text.items() if e["usable_as_source"] and "glossary" in e["features"]
    }


async def test_feature_keys_per_resource(emulator_client):
    german = next(e for e in await v3(emulator_client, "translate_text") if e["lang"] == "de")
    assert {"formality", "glossary", "auto_detection"} <= set(german["features"])
    finnish = next(e for e in await v3(emulator_client, "translate_text") if e["lang"] == "fi")
    assert "formality" not in finnish["features"]
    voice = await v3(emulator_client, "voice", usable_as_source="true")
    assert all("transcription" in e["features"] for e in voice)
    write = await v3(emulator_client, "write")
    assert all("writing_style" in e["features"] for e in write)
    assert any("tone" in e["features"] for e in write)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"resource": "dictionary"},
        {"resource": "TRANSLATE_TEXT"},
        {"resource": "glossary", "usable_as_source": "yes"},
        {"resource": "glossary", "usable_as_target": "1"},
    ],
)
async def test_v3_bad_parameters(emulator_client, params):
    response = await emulator_client.get(V3, params=params)
    assert response.status_code == 400
    assert response.json()["message"]


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
async def test_v3_is_get_only(emulator_client, method):
    response = await emulator_client.request(method, V3, params={"resource": "glossary"})
    assert response.status_code == 405
    assert response.json() == {"message": "Method not allowed.", "code": "method_not_allowed"}
    assert response.headers["Allow"] == "GET"


async def test_v2_allows_get_and_post(emulator_client):
    response = await emulator_client.delete("/v2/languages")
    assert response.status_code == 405
    assert response.headers["Allow"] == "GET, POST"


async def test_document_list_is_text_list_without_text_only_features(emulator_client):
    text = await v3(emulator_client, "translate_text", include="beta")
    document = await v3(emulator_client, "translate_document", include="beta")
    assert [e["lang"] for e in document] == [e["lang"] for e in text]
    assert any("tag_handling" in e["features"] for e in text)
    assert any("style_rules" in e["features"] for e in text)
    assert not any({"tag_handling", "style_rules"} & set(e["features"]) for e in document)
    styled = [e["features"]["style_rules"] for e in text if "style_rules" in e["features"]]
    assert all(feature == {"status": "beta"} for feature in styled)


async def test_write_languages_and_their_status(emulator_client):
    statuses = {e["lang"]: e["status"] for e in await v3(emulator_client, "write", include="beta")}
    stable = {"de", "en-GB", "en-US", "es", "fr", "it", "pt-BR", "pt-PT"}
    assert statuses == {lang: "stable" for lang in stable} | {"ja": "beta", "ko": "beta"}


async def test_only_stable_languages_and_features_unless_beta_is_included(emulator_client):
    default = await v3(emulator_client, "translate_text")
    assert {e["status"] for e in default} == {"stable"}
    assert not any("style_rules" in e["features"] for e in default)
    assert not {"ca", "hr", "ms"} & {e["lang"] for e in default}
    beta = {e["lang"]: e for e in await v3(emulator_client, "translate_text", include="beta")}
    assert {lang: beta[lang]["status"] for lang in ("ca", "hr", "ms")} == {
        "ca": "beta",
        "hr": "beta",
        "ms": "early_access",
    }
    assert beta["de"]["features"]["style_rules"] == {"status": "beta"}
    assert [e["lang"] for e in default] == [
        lang for lang, e in beta.items() if e["status"] == "stable"
    ]


async def test_include_is_repeatable_and_external_adds_nothing(emulator_client):
    response = await emulator_client.get(
        V3, params=[("resource", "write"), ("include", "external"), ("include", "beta")]
    )
    assert {e["lang"] for e in response.json()} >= {"ja", "ko"}
    default = await v3(emulator_client, "write")
    assert await v3(emulator_client, "write", include="external") == default
    assert await v3(emulator_client, "write", include="") == default


@pytest.mark.parametrize("value", ["alpha", "BETA", "beta,external"])
async def test_include_takes_the_published_values_only(emulator_client, value):
    response = await emulator_client.get(V3, params={"resource": "write", "include": value})
    assert response.status_code == 400
    assert response.json()["message"] == (
        f"Value for 'include' not supported: {value!r}. Allowed: 'beta', 'external'."
    )


async def test_resources_list_every_resource_and_the_side_each_feature_needs(emulator_client):
    memory = {
        "name": "translation_memory",
        "needs_source_support": True,
        "needs_target_support": True,
    }
    response = await emulator_client.get("/v3/languages/resources")
    assert response.status_code == 200
    assert response.json() == [
        {
            "name": "translate_text",
            "features": [
                {"name": "auto_detection", "needs_source_support": True},
                {"name": "formality", "needs_target_support": True},
                {"name": "glossary", "needs_source_support": True, "needs_target_support": True},
                {"name": "style_rules", "needs_target_support": True},
                {
                    "name": "tag_handling",
                    "needs_source_support": True,
                    "needs_target_support": True,
                },
                memory,
            ],
        },
        {
            "name": "translate_document",
            "features": [
                {"name": "auto_detection", "needs_source_support": True},
                {"name": "formality", "needs_target_support": True},
                {"name": "glossary", "needs_source_support": True, "needs_target_support": True},
                memory,
            ],
        },
        {"name": "glossary", "features": []},
        {
            "name": "voice",
            "features": [
                {"name": "glossary", "needs_source_support": True, "needs_target_support": True},
                {"name": "spoken_terms", "needs_source_support": True},
                {"name": "transcription", "needs_source_support": True},
                {"name": "translated_speech", "needs_target_support": True},
            ],
        },
        {
            "name": "write",
            "features": [
                {"name": "tone", "needs_target_support": True},
                {"name": "writing_style", "needs_target_support": True},
            ],
        },
        {"name": "style_rules", "features": []},
        {"name": "translation_memory", "features": []},
    ]


@pytest.mark.parametrize("resource", RESOURCES)
async def test_features_sit_on_the_side_the_resource_list_names(emulator_client, resource):
    sides = {
        item["name"]: item
        for entry in (await emulator_client.get("/v3/languages/resources")).json()
        if entry["name"] == resource
        for item in entry["features"]
    }
    for entry in await v3(emulator_client, resource, include="beta"):
        for feature in entry["features"]:
            needs_source = sides[feature].get("needs_source_support", False)
            needs_target = sides[feature].get("needs_target_support", False)
            assert (needs_source and entry["usable_as_source"]) or (
                needs_target and entry["usable_as_target"]
            ), (entry["lang"], feature)


async def test_resources_is_get_only(emulator_client):
    response = await emulator_client.post("/v3/languages/resources")
    assert response.status_code == 405
    assert response.headers["Allow"] == "GET"


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_v2_lists_match_v3_translate_text(emulator_client, method):
    v3_entries = await v3(emulator_client, "translate_text", include="beta")
    source = (await emulator_client.request(method, "/v2/languages")).json()
    target = (
        await emulator_client.request(method, "/v2/languages", params={"type": "target"})
    ).json()
    assert [e["language"] for e in source] == [
        e["lang"].upper() for e in v3_entries if e["usable_as_source"]
    ]
    assert all(set(e) == {"language", "name"} for e in source)
    by_code = {e["lang"].upper(): e for e in v3_entries}
    for entry in target:
        assert set(entry) == {"language", "name", "supports_formality"}
        v3_entry = by_code[entry["language"]]
        assert v3_entry["usable_as_target"]
        assert entry["name"] == v3_entry["name"]
        assert entry["supports_formality"] == ("formality" in v3_entry["features"])
    codes = {e["language"] for e in target}
    assert {"EN", "EN-US", "ES-419", "PT", "PT-BR", "ZH", "ZH-HANT"} <= codes


async def test_v2_rejects_unknown_type(emulator_client):
    response = await emulator_client.get("/v2/languages", params={"type": "both"})
    assert response.status_code == 400


STYLE_RULE_LANGUAGES = ["de", "en", "es", "fr", "it", "ja", "ko", "zh"]


async def test_style_rule_lists_are_made_in_the_languages_style_rules_translate_into(
    emulator_client,
):
    """A style rule list has one language, the target its rules apply to: the eight languages
    whose text translation carries the style-rules feature, never a regional variant."""
    entries = await v3(emulator_client, "style_rules")
    assert [e["lang"] for e in entries] == STYLE_RULE_LANGUAGES
    assert all(e["usable_as_target"] and not e["usable_as_source"] for e in entries)
    assert all(e["features"] == {} for e in entries)
    text = await v3(emulator_client, "translate_text", include="beta")
    styled = sorted({e["lang"].split("-")[0] for e in text if "style_rules" in e["features"]})
    assert styled == STYLE_RULE_LANGUAGES


async def test_translation_memories_and_the_pairs_that_use_them(emulator_client):
    """A memory's source is one of eight base languages, its targets those and their regional
    codes; text and document translation carry the feature on exactly those codes."""
    entries = {e["lang"]: e for e in await v3(emulator_client, "translation_memory")}
    sources = sorted(lang for lang, e in entries.items() if e["usable_as_source"])
    assert sources == STYLE_RULE_LANGUAGES
    assert sorted(lang for lang, e in entries.items() if not e["usable_as_source"]) == [
        "en-GB",
        "en-US",
        "es-419",
        "zh-Hans",
        "zh-Hant",
    ]
    assert all(e["usable_as_target"] for e in entries.values())
    for resource in ("translate_text", "translate_document"):
        remembered = {
            e["lang"]
            for e in await v3(emulator_client, resource)
            if e["features"].get("translation_memory") == {"status": "stable"}
        }
        assert remembered == set(entries)


async def test_voice_glossaries_spoken_terms_and_translated_speech(emulator_client):
    """Spoken terms (beta) sit on transcribed sources, translated speech (early access) on
    targets; neither is listed unless beta is asked for."""
    stable = await v3(emulator_client, "voice")
    assert not any({"spoken_terms", "translated_speech"} & set(e["features"]) for e in stable)
    voice = {e["lang"]: e for e in await v3(emulator_client, "voice", include="beta")}
    spoken = {lang for lang, e in voice.items() if "spoken_terms" in e["features"]}
    assert spoken == {"de", "en", "es", "fr", "it", "ja", "nl", "pt"}
    assert voice["de"]["features"]["spoken_terms"] == {"status": "beta"}
    speaking = {lang for lang, e in voice.items() if "translated_speech" in e["features"]}
    assert speaking >= {"de", "en-GB", "en-US", "pt-BR", "zh-Hant"}
    assert "ko" not in speaking and "nl" not in speaking
    assert voice["fr"]["features"]["translated_speech"] == {"status": "early_access"}
    assert {"th", "vi", "he"}.isdisjoint(
        lang for lang, e in voice.items() if "glossary" in e["features"]
    )
    assert "glossary" in voice["de"]["features"]


async def test_the_new_resources_are_refused_in_other_casings(emulator_client):
    for resource in ("STYLE_RULES", "translation-memory", "translation_memories"):
        response = await emulator_client.get(V3, params={"resource": resource})
        assert response.status_code == 400
        assert "style_rules, translation_memory" in response.json()["message"]
