"""The Language pairs page headless (Streamlit's AppTest) on the small demo organization: the
table, heat map, chart and a pair's keys against the emulator's pair ledger of the same
organization, summed here."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta

import pytest
from support.headless import TODAY, chart_specs, open_clean_page, open_page

DAY = timedelta(days=1)
CHARACTERS = (
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
)


def characters(row) -> int:
    return sum(getattr(row, kind) for kind in CHARACTERS)


def test_table_heat_map_chart_and_keys_match_the_pair_ledger(demo_env, demo_ledger):
    at = open_clean_page("pairs", period="Last 30 days", pair_view="Keys")
    start, end = TODAY - 30 * DAY, TODAY - DAY
    rows = demo_ledger.pair_ledger(start, end)
    per_pair: Counter = Counter()
    for row in rows:
        per_pair[f"{row.source_language} → {row.target_language}"] += characters(row)
    whole = sum(per_pair.values())
    assert whole == sum(characters(row) for row in demo_ledger.ledger(start, end))

    table, keys = at.dataframe[0].value, at.dataframe[1].value
    shown = {k: v for k, v in zip(table["pair"], table["total_characters"], strict=True) if v}
    assert shown == +per_pair
    assert table["share"].iloc[0] == pytest.approx(100 * max(per_pair.values()) / whole)  # in %

    heatmap, over_time = chart_specs(at)[:2]
    cells = [v for line in heatmap["data"][0]["z"] for v in line if v is not None]
    assert sum(cells) == whole
    assert sum(sum(trace["y"]) for trace in over_time["data"]) == whole
    assert len(over_time["data"][0]["y"]) == 30

    # The biggest pair's keys: the ledger's attributed parts per key, the rest unattributed.
    biggest = table["pair"].iloc[0]
    per_key: Counter = Counter()
    for row in rows:
        if f"{row.source_language} → {row.target_language}" == biggest:
            per_key["-" if not row.attributed else row.api_key] += characters(row)
    assert dict(zip(keys["api_key"], keys["total_characters"], strict=True)) == +per_key
    names = dict(zip(keys["api_key"], keys["key"], strict=True))
    assert names.get("-", "unattributed") == "unattributed"


def test_a_language_by_name_narrows_every_view_of_pairs(demo_env, demo_ledger):
    at = open_clean_page("pairs", period="Last 30 days", language="German")
    start, end = TODAY - 30 * DAY, TODAY - DAY
    german: Counter = Counter()
    for row in demo_ledger.pair_ledger(start, end):
        sides = {row.source_language.split("-")[0], row.target_language.split("-")[0]}
        if "de" in sides:
            german[f"{row.source_language} → {row.target_language}"] += characters(row)
    assert german
    table = at.dataframe[0].value
    assert {k: v for k, v in zip(table["pair"], table["total_characters"], strict=True) if v} == (
        +german
    )
    heatmap, over_time = chart_specs(at)[:2]
    cells = [v for line in heatmap["data"][0]["z"] for v in line if v is not None]
    assert sum(cells) == sum(german.values())
    assert sum(sum(trace["y"]) for trace in over_time["data"]) == sum(german.values())
    assert set(at.selectbox(key="pair").options) == set(german)


def test_a_language_nobody_is_called_says_so_and_shows_every_pair(demo_env):
    at = open_page("pairs", period="Last 30 days", language="Klingon")
    assert not at.exception and not at.error
    assert [w.value for w in at.warning] == [
        "No language is called 'Klingon': type a code (DE) or an English name (German). "
        "Showing every pair."
    ]
    assert len(at.dataframe[0].value) == len(
        open_clean_page("pairs", period="Last 30 days").dataframe[0].value
    )


def test_a_pair_shows_its_features_until_its_keys_are_asked_for(demo_env):
    at = open_clean_page("pairs", period="Last 30 days")
    assert at.segmented_control(key="pair_view").value == "features"
    biggest = at.dataframe[0].value["pair"].iloc[0]
    assert at.selectbox(key="pair").value == biggest
    features = at.dataframe[1].value
    assert "available" in features.columns and "api_key" not in features.columns
    assert list(features["feature"]) == [  # by name, in the service's order
        "Auto-detection",
        "Formality",
        "Glossary",
        "Style rules",
        "Tag handling",
        "Translation memory",
    ]
    at.segmented_control(key="pair_view").set_value("keys").run()
    assert not at.exception and not at.error
    assert "api_key" in at.dataframe[1].value.columns


def test_the_url_sets_language_metric_and_pair(demo_env, demo_ledger):
    at = open_clean_page("pairs", period="Last 30 days", language="en")
    table = at.dataframe[0].value
    bases = table[["source_language", "target_language"]].apply(lambda side: side.str[:2])
    assert (bases == "en").any(axis=1).all()  # en, and its variants en-US and en-GB
    quiet = table["pair"].iloc[-1]
    at = open_clean_page(
        "pairs",
        period="Last 30 days",
        language="en",
        metric="Text improvement characters",
        pair=quiet,
        pair_view="Keys",
    )
    assert at.selectbox(key="metric").value == "text_improvement_characters"
    assert at.selectbox(key="pair").value == quiet
    start, end = TODAY - 30 * DAY, TODAY - DAY
    expected = sum(
        characters(row)
        for row in demo_ledger.pair_ledger(start, end)
        if f"{row.source_language} → {row.target_language}" == quiet
    )
    assert at.dataframe[1].value["total_characters"].sum() == expected


def test_tables_name_their_columns_and_show_shares_as_percent(demo_env):
    at = open_clean_page(
        "pairs", period="Last 30 days", metric="Text improvement characters", pair_view="Keys"
    )
    pairs, keys = (json.loads(frame.proto.columns) for frame in at.dataframe[:2])
    headings = {
        "pair": "Pair",
        "source_language": "Source",
        "target_language": "Target",
        "total_characters": "Total characters",
        "document_translation_characters": "Documents",
        "speech_to_text_minutes": "Speech-to-text minutes",
    }
    assert {column: pairs[column]["label"] for column in headings} == headings
    assert keys["key"]["label"] == "Key"
    assert pairs["share"]["label"] == "Share of text improvement characters"
    assert keys["share"]["label"] == "Share of the pair's characters"
    for share in (pairs["share"], keys["share"]):
        assert share["type_config"] == {
            "type": "progress",
            "format": "%.1f\u202f%%",  # "73.5 %", as share_text writes it
            "min_value": 0.0,
            "max_value": 100.0,
        }
    assert pairs["total_characters"]["type_config"]["format"] == "%,d"
    assert keys["speech_to_speech_minutes"]["type_config"]["format"] == "%,.2f"
