"""The emulator's language lists against the published interface's schemas (3.12.0), read
from the extract beside this file: every resource the published `resource` parameter names is
served, each answer validates, and the resource list names every published resource and
feature."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

PUBLISHED = json.loads(Path(__file__).with_name("published_languages.json").read_text())
RESOURCES = PUBLISHED["resource_parameter"]["enum"]
INCLUDES = PUBLISHED["include_parameter"]["items"]["enum"]
FEATURES = PUBLISHED["resources_answer"]["items"]["properties"]["features"]["items"]["properties"][
    "name"
]["enum"]
LANGUAGES_ANSWER = Draft202012Validator(PUBLISHED["languages_answer"])
RESOURCES_ANSWER = Draft202012Validator(PUBLISHED["resources_answer"])


def assert_valid(validator: Draft202012Validator, answer: object) -> None:
    """Every violation named, not only the first."""
    problems = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(answer)]
    assert not problems, problems


def test_the_extract_is_the_published_revision_with_the_two_later_resources():
    """The spec's five resources and the two the published revision adds, as the oracle."""
    assert PUBLISHED["version"] == "3.12.0"
    assert RESOURCES == [
        "translate_text",
        "translate_document",
        "glossary",
        "voice",
        "write",
        "style_rules",
        "translation_memory",
    ]
    assert {"translated_speech", "spoken_terms", "translation_memory"} <= set(FEATURES)


@pytest.mark.parametrize("resource", RESOURCES)
async def test_every_published_resource_answers_as_published(emulator_client, resource):
    """Each published resource, with every combination of `include` values and of the two
    filters, answers 200 with a list the published schema accepts; with beta included it lists
    languages, and the filters keep only what they ask for."""
    includes = [[], *([value] for value in INCLUDES), INCLUDES]
    flags = [None, "true", "false"]
    for include, source, target in itertools.product(includes, flags, flags):
        params = [("resource", resource), *(("include", value) for value in include)]
        params += [(name, flag) for name, flag in (("usable_as_source", source),) if flag]
        params += [(name, flag) for name, flag in (("usable_as_target", target),) if flag]
        response = await emulator_client.get("/v3/languages", params=params)
        assert response.status_code == 200, (params, response.text)
        answer = response.json()
        assert_valid(LANGUAGES_ANSWER, answer)
        if source:
            assert all(entry["usable_as_source"] is (source == "true") for entry in answer)
        if target:
            assert all(entry["usable_as_target"] is (target == "true") for entry in answer)
        if "beta" in include and not (source or target):
            assert answer, params


async def test_the_resource_list_names_every_published_resource_and_feature(emulator_client):
    response = await emulator_client.get("/v3/languages/resources")
    assert response.status_code == 200
    answer = response.json()
    assert_valid(RESOURCES_ANSWER, answer)
    assert [resource["name"] for resource in answer] == RESOURCES
    listed = {feature["name"] for resource in answer for feature in resource["features"]}
    assert listed == set(FEATURES)


@pytest.mark.parametrize("resource", RESOURCES)
async def test_language_features_are_published_features_of_their_resource(
    emulator_client, resource
):
    """A language's feature keys are features the resource list gives its resource, so a
    client can tell which side of a pair needs each."""
    resources = (await emulator_client.get("/v3/languages/resources")).json()
    [own] = [item for item in resources if item["name"] == resource]
    allowed = {feature["name"] for feature in own["features"]}
    answer = (
        await emulator_client.get("/v3/languages", params={"resource": resource, "include": "beta"})
    ).json()
    assert {key for entry in answer for key in entry["features"]} <= allowed
