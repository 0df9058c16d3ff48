"""The per-pair tables on hand-made pair-day and pair-key-day frames, against figures worked
out by hand."""

from datetime import date

import pandas as pd
import pytest

from analytics.usage import tables
from analytics.usage.frames import (
    PAIR_DAY_COLUMNS,
    PAIR_KEY_DAY_COLUMNS,
    pair_day_frame,
    pair_key_day_frame,
)

# (day, source, target, key, label, total characters); other metrics are 0.
ROWS = [
    ("2026-03-02", "en", "de", "aaaa****0001", "Web", 600),
    ("2026-03-02", "en", "de", "-", "unknown", 100),
    ("2026-03-02", "en", "ja", "aaaa****0002", "App", 50),
    ("2026-03-03", "en", "ja", "aaaa****0002", "App", 250),
    ("2026-03-03", "de", "fr", "aaaa****0001", "Web", 40),
    ("2026-03-09", "en", "de", "aaaa****0001", "Web", 300),
    ("2026-03-09", "de", "fr", "aaaa****0002", "App", 20),
]


def key_rows() -> pd.DataFrame:
    rows = pd.DataFrame(
        [
            {
                "usage_date": pd.Timestamp(day),
                "source_language": source,
                "target_language": target,
                "api_key": key,
                "api_key_label": label,
                "total_characters": total,
                "text_translation_characters": total,
            }
            for day, source, target, key, label, total in ROWS
        ]
    )
    for column in PAIR_KEY_DAY_COLUMNS:
        if column not in rows:
            rows[column] = 0.0 if column.endswith("minutes") else 0
    return rows[PAIR_KEY_DAY_COLUMNS]


@pytest.fixture
def pair_key_day() -> pd.DataFrame:
    return pair_key_day_frame([key_rows()])


@pytest.fixture
def pair_day() -> pd.DataFrame:
    """The same usage as the service sends it without keys: one row per day and pair."""
    rows = key_rows().groupby(PAIR_DAY_COLUMNS[:3], as_index=False)[PAIR_DAY_COLUMNS[3:]].sum()
    assert len(rows) == len(ROWS) - 1  # en → de on 2 March: 600 + 100
    return pair_day_frame([rows])


def test_pair_table_ranks_pairs_with_their_share(pair_day):
    table = tables.pair_table(pair_day, "total_characters")
    assert list(table["pair"]) == ["en → de", "en → ja", "de → fr"]
    assert list(table["total_characters"]) == [1000, 300, 60]
    assert list(table["share"].round(4)) == [round(1000 / 1360, 4), round(300 / 1360, 4), 0.0441]


def test_one_languages_pairs_are_those_it_is_either_side_of(pair_day):
    german = tables.pairs_of(pair_day, "DE")  # any case
    table = tables.pair_table(german, "total_characters")
    assert list(table["pair"]) == ["en → de", "de → fr"]
    assert list(table["share"].round(4)) == [round(1000 / 1060, 4), round(60 / 1060, 4)]
    assert tables.pairs_of(pair_day, "xx").empty
    assert tables.pairs_of(pair_day, "") is pair_day


def test_a_language_without_a_region_takes_its_variants_and_a_regional_one_only_itself():
    rows = key_rows()
    rows.loc[rows["target_language"] == "ja", "target_language"] = "en-GB"
    pair_day = pair_key_day_frame([rows])
    english = tables.pair_table(tables.pairs_of(pair_day, "en"), "total_characters")
    assert list(english["pair"]) == ["en → de", "en → en-GB"]
    british = tables.pair_table(tables.pairs_of(pair_day, "EN-gb"), "total_characters")
    assert list(british["pair"]) == ["en → en-GB"]


def test_pair_matrix_is_sources_by_targets_with_zero_gaps(pair_day):
    matrix = tables.pair_matrix(pair_day, "total_characters")
    assert list(matrix.index) == ["en", "de"]
    assert list(matrix.columns) == ["de", "ja", "fr"]
    assert matrix.loc["en"].tolist() == [1000, 300, 0]
    assert matrix.loc["de"].tolist() == [0, 0, 60]


def test_top_pairs_over_time_fold_the_rest_into_other(pair_day):
    wide = tables.top_n_over_time(
        pair_day, "total_characters", 1, date(2026, 3, 2), date(2026, 3, 15), "week", by="pair"
    )
    assert list(wide.columns) == ["en → de", "Other"]
    assert wide.columns.name == "pair"
    # Weeks start on Monday: 2026-03-02 and 2026-03-09.
    assert wide["en → de"].tolist() == [700, 300]
    assert wide["Other"].tolist() == [340, 20]


def test_a_pairs_keys_keep_unattributed_usage_apart(pair_key_day):
    keys = tables.pair_keys(pair_key_day, "en", "de")
    assert list(keys["key"]) == ["Web (aaaa****0001)", tables.UNATTRIBUTED]
    assert list(keys["total_characters"]) == [900, 100]
    assert list(keys["share"]) == [0.9, 0.1]
