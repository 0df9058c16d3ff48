"""The Languages page on the resources and features of the published interface's later
revision (3.12.0): style rule lists, translation memories, and voice's spoken terms and
translated speech, run headless with Streamlit's AppTest on the demo organization.

Expected rows are the emulator's language tables and literal values, not the page's code."""

import json
import os

from support.faultserver import FaultServer, Reply
from support.headless import open_clean_page

from emulator.languages_data import language_entries

RESOURCE_NAMES = [
    "Text translation",
    "Document translation",
    "Glossaries",
    "Voice",
    "Write",
    "Style rule lists",
    "Translation memories",
]


def test_every_resource_is_offered_by_its_name(demo_env):
    at = open_clean_page("languages")
    assert at.segmented_control(key="resource").options == RESOURCE_NAMES
    availability = at.dataframe[3].value
    assert list(availability.columns[-2:]) == ["style_rules", "translation_memory"]
    roles = availability.set_index("lang")
    assert roles.loc["de", "style_rules"] == "Target"
    assert roles.loc["de", "translation_memory"] == "Source + target"
    assert roles.loc["zh-Hans", "translation_memory"] == "Target"
    assert roles.loc["pt", "translation_memory"] == "—"


def test_style_rule_lists_show_their_languages_and_that_no_pair_is_checked(demo_env):
    at = open_clean_page("languages", resource="Style rule lists")
    by_resource, matrix = at.dataframe[0].value, at.dataframe[1].value
    assert list(by_resource["lang"]) == [e["lang"] for e in language_entries("style_rules")]
    assert list(by_resource["lang"]) == ["de", "en", "es", "fr", "it", "ja", "ko", "zh"]
    assert not by_resource["source"].any() and by_resource["target"].all()
    assert list(matrix.columns) == ["lang", "name"]  # no features of its own
    assert "8 languages for style rule lists." in [caption.value for caption in at.caption]
    assert [info.value for info in at.info if "pair" in info.value] == [
        "No language is usable as a source for style rule lists: no pair to check."
    ]


def test_translation_memories_show_bases_as_both_and_regional_codes_as_targets(demo_env):
    at = open_clean_page("languages", resource="Translation memories", source="de", target="en")
    shown = at.dataframe[0].value.set_index("lang")
    assert len(shown) == 13
    assert (bool(shown.loc["de", "source"]), bool(shown.loc["de", "target"])) == (True, True)
    assert (bool(shown.loc["en-GB", "source"]), bool(shown.loc["en-GB", "target"])) == (False, True)
    assert [info.value for info in at.info if "German" in info.value] == [
        "No features are listed for translation memories: nothing to check for German → English."
    ]


def test_voice_names_spoken_terms_and_translated_speech(demo_env):
    at = open_clean_page("languages", resource="Voice", source="de", target="fr")
    by_resource, matrix, pair = (frame.value for frame in at.dataframe[:3])
    assert by_resource.set_index("lang").loc["de", "features"] == (
        "Glossary, Spoken terms (beta), Transcription, Translated speech (early access)"
    )
    assert list(matrix.columns) == [
        "lang",
        "name",
        "Glossary",
        "Spoken terms (beta)",
        "Transcription",
        "Translated speech (early access)",
    ]
    assert pair.values.tolist() == [
        ["Glossary", "source and target", True, "", "stable"],
        ["Spoken terms", "source", True, "", "beta"],
        ["Transcription", "source", True, "", "stable"],
        ["Translated speech", "target", True, "", "early access"],
    ]
    # Dutch speech is not synthesized; the status is still the one German gives the feature.
    at.selectbox(key="target").set_value("nl").run()
    assert at.dataframe[2].value.set_index("feature").loc["Translated speech"].tolist() == [
        "target",
        False,
        "target lacks it",
        "early access",
    ]


def spec_revision(body: bytes) -> bytes:
    """The emulator's answers as a service of the spec's revision gives them: its resource
    list names the five resources the spec knows; every other answer passes unchanged."""
    answer = json.loads(body)
    if isinstance(answer, list) and answer and "features" in answer[0] and "lang" not in answer[0]:
        return json.dumps(answer[:5]).encode()
    return body


def test_a_service_of_the_spec_revision_is_asked_for_its_five_resources_only(
    emulator_app, monkeypatch, tmp_path
):
    """Such a service would refuse the two later resources: the page asks for none of them,
    offers the five, and shows them."""
    for name in list(os.environ):
        if name.startswith("SERVICE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("SERVICE_AUTH_KEY", emulator_app.state.emulator.admin_key)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))
    with FaultServer(emulator_app, [Reply(transform=spec_revision)]) as server:
        monkeypatch.setenv("SERVICE_BASE_URL", server.base_url)
        at = open_clean_page("languages")
    asked = [seen.target for seen in server.seen if seen.target.startswith("/v3/languages?")]
    assert sorted(target.split("resource=")[1].split("&")[0] for target in asked) == sorted(
        ["translate_text", "translate_document", "glossary", "voice", "write"]
    )
    assert at.segmented_control(key="resource").options == RESOURCE_NAMES[:5]
    assert list(at.dataframe[3].value.columns[2:]) == [
        "translate_text",
        "translate_document",
        "glossary",
        "voice",
        "write",
    ]
