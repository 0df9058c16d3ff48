"""Tables of custom tags on hand-made frames, every expected number written out: top-N + Other
+ Untagged, shares of the organization's text characters, the tag table, one tag's days, and
the rows of the tag exports."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pandas as pd
import pytest
from support.builders import (
    FIRST,
    TAG_DAY_COLUMNS,
    TAG_METRICS,
    price_from,
    pricing,
    tag_usage_frame,
    usage_frame,
)

from analytics.cost.prices import parse_pricing
from analytics.exports.formats import export_bytes
from analytics.exports.shaping import Costing, shape_tag_export
from analytics.usage import tables
from analytics.usage.tables import OTHER, UNTAGGED

LAST = date(2025, 1, 4)  # FIRST is Wednesday 1 January 2025: four days

# The organization: text translation, text improvement and documents per key and day.
KEY_DAY = usage_frame(
    {"aaaa****0001": [100, 200, 0, 50], "bbbb****0002": [0, 300, 40, 0]},
    improvement={"aaaa****0001": [10, 0, 0, 0], "bbbb****0002": [0, 20, 0, 0]},
    documents={"aaaa****0001": [1000, 0, 0, 0]},  # never tagged, never part of a share
)
# Text characters per day: 110, 520, 40, 50 (720); documents left out.
TEXT = [110, 520, 40, 50]
# Tags: text translation (and improvement) per day. One tag is literally named "Other".
SPAN = (FIRST, LAST)
TAG_DAY = tag_usage_frame(
    {
        "checkout": [50, 100, 0, 10],
        "support": [0, 150, 20, 0],
        "Other": [0, 0, 10, 0],
        "beta": [20, 0, 0, 0],
    },
    improvement={"checkout": [5, 0, 0, 0], "support": [0, 10, 0, 0]},
)
# Totals: support 180, checkout 165, beta 20, "Other" 10: 375 tagged, 345 untagged.


def days(wide: pd.DataFrame) -> dict[str, list[int]]:
    return {str(column): wide[column].tolist() for column in wide.columns}


def test_top_two_tags_other_and_untagged_add_up_to_the_text_characters():
    wide = tables.tags_over_time(TAG_DAY, KEY_DAY, "total_characters", 2, FIRST, LAST, "day")
    assert days(wide) == {
        "support": [0, 160, 20, 0],
        "checkout": [55, 100, 0, 10],
        OTHER: [20, 0, 10, 0],  # beta, and the tag named "Other"
        UNTAGGED: [35, 260, 10, 40],
    }
    assert wide.sum(axis=1).tolist() == TEXT
    assert [f"{d:%Y-%m-%d}" for d in wide.index] == [
        "2025-01-01",
        "2025-01-02",
        "2025-01-03",
        "2025-01-04",
    ]


def test_a_tag_named_like_a_series_keeps_its_own_column():
    wide = tables.tags_over_time(TAG_DAY, KEY_DAY, "total_characters", 4, FIRST, LAST, "day")
    assert days(wide) == {
        "support": [0, 160, 20, 0],
        "checkout": [55, 100, 0, 10],
        "beta": [20, 0, 0, 0],
        "Other (tag)": [0, 0, 10, 0],  # every tag fits: no Other column
        UNTAGGED: [35, 260, 10, 40],
    }


def test_one_metric_is_a_share_of_the_same_kind_of_text():
    wide = tables.tags_over_time(
        TAG_DAY, KEY_DAY, "text_improvement_characters", 5, FIRST, LAST, "day"
    )
    # Only two tags carry improvement; the organization improved 10 and 20 characters.
    assert days(wide) == {
        "support": [0, 10, 0, 0],
        "checkout": [5, 0, 0, 0],
        UNTAGGED: [5, 10, 0, 0],
    }


def test_buckets_cover_the_range_and_untagged_stays_when_nothing_is_tagged():
    weekly = tables.tags_over_time(TAG_DAY, KEY_DAY, "total_characters", 1, FIRST, LAST, "week")
    assert [f"{d:%Y-%m-%d}" for d in weekly.index] == ["2024-12-30"]  # the week from Monday
    assert days(weekly) == {"support": [180], OTHER: [195], UNTAGGED: [345]}
    nothing = tables.tags_over_time(
        TAG_DAY.iloc[0:0], KEY_DAY, "total_characters", 3, FIRST, date(2025, 1, 6), "day"
    )
    assert days(nothing) == {UNTAGGED: [*TEXT, 0, 0]}
    assert str(nothing[UNTAGGED].dtype) == "int64"


def test_summary_of_tagged_and_untagged_text():
    summary = tables.tag_summary(TAG_DAY, KEY_DAY)
    assert (summary.text_characters, summary.tagged, summary.untagged) == (720, 375, 345)
    assert summary.tagged_share == pytest.approx(375 / 720)
    assert tables.tag_summary(TAG_DAY.iloc[0:0], KEY_DAY.iloc[0:0]).tagged_share is None


def test_tag_table_with_shares_of_the_text_and_sparklines():
    table = tables.tag_table(TAG_DAY, KEY_DAY, FIRST, LAST)
    assert list(table.columns) == ["custom_tag", *TAG_METRICS, "share", "trend"]
    assert table[["custom_tag", *TAG_METRICS]].values.tolist() == [
        ["support", 180, 170, 10],
        ["checkout", 165, 160, 5],
        ["beta", 20, 20, 0],
        ["Other", 10, 10, 0],
    ]
    assert table["share"].tolist() == pytest.approx([180 / 720, 165 / 720, 20 / 720, 10 / 720])
    assert table["trend"].tolist() == [
        [0, 160, 20, 0],
        [55, 100, 0, 10],
        [20, 0, 0, 0],
        [0, 0, 10, 0],
    ]
    empty = tables.tag_table(TAG_DAY.iloc[0:0], KEY_DAY, FIRST, LAST)
    assert empty.empty and list(empty.columns) == list(table.columns)


# 1,002 tags, tag-0001 the biggest: tag-i has 1,003 - i characters on the first day.
MANY = tag_usage_frame({f"tag-{i:04d}": [1003 - i, 0, 0, 0] for i in range(1, 1003)})


def test_only_the_biggest_thousand_tags_get_a_sparkline():
    table = tables.tag_table(MANY, KEY_DAY, FIRST, LAST)
    assert len(table) == 1002 and tables.SPARKLINE_TAGS == 1000
    assert table["trend"].iloc[0] == [1002, 0, 0, 0]
    assert table["trend"].iloc[999] == [3, 0, 0, 0]
    assert table["custom_tag"].iloc[1000:].tolist() == ["tag-1001", "tag-1002"]
    assert table["trend"].iloc[1000:].isna().all()


def test_drilldown_choices_are_the_biggest_matches_and_the_tag_a_link_names():
    table = tables.tag_table(MANY, KEY_DAY, FIRST, LAST)
    everything = tables.tag_choices(table, table.iloc[0:0], None)
    assert everything.tags == [f"tag-{i:04d}" for i in range(1, 101)]
    assert (everything.matching, everything.narrowed) == (1002, True)
    found = tables.search_tags(table, "tag-09")
    matches = tables.tag_choices(table, found, "tag-1002")
    assert matches.tags == [*(f"tag-09{i:02d}" for i in range(100)), "tag-1002"]
    assert (matches.matching, matches.narrowed) == (100, False)
    few = tables.tag_choices(table, tables.search_tags(table, "tag-100"), "no-such-tag")
    assert few.tags == ["tag-1000", "tag-1001", "tag-1002"]
    assert tables.tag_choices(table, found, "tag-0950").tags[-1] == "tag-0999"


def test_search_tags_plain_text_case_insensitive():
    table = tables.tag_table(TAG_DAY, KEY_DAY, FIRST, LAST)
    assert tables.search_tags(table, "SUP")["custom_tag"].tolist() == ["support"]
    assert tables.search_tags(table, " ot ")["custom_tag"].tolist() == ["Other"]
    assert tables.search_tags(table, "")["custom_tag"].tolist() == table["custom_tag"].tolist()
    assert tables.search_tags(table, ".*").empty


def test_one_tag_s_days_and_their_share_of_that_day():
    checkout = tables.tag_days(TAG_DAY, KEY_DAY, "checkout")
    assert [f"{d:%Y-%m-%d}" for d in checkout["usage_date"]] == [
        "2025-01-01",
        "2025-01-02",
        "2025-01-04",
    ]
    assert checkout[TAG_METRICS].values.tolist() == [[55, 50, 5], [100, 100, 0], [10, 10, 0]]
    assert checkout["share"].tolist() == pytest.approx([55 / 110, 100 / 520, 10 / 50])
    # A day the organization reported no text for has no share rather than a division by zero.
    orphan = tables.tag_days(TAG_DAY, KEY_DAY.iloc[0:0], "checkout")
    assert orphan["share"].isna().all()


def test_tag_exports_hold_the_frame_s_rows_with_calendar_days():
    by_day = shape_tag_export(TAG_DAY, *SPAN, "tag_and_day")
    assert list(by_day.columns) == TAG_DAY_COLUMNS
    assert by_day["usage_date"].tolist()[:3] == [date(2025, 1, 1)] * 2 + [date(2025, 1, 2)]
    by_tag = shape_tag_export(TAG_DAY, *SPAN, "tag")
    assert by_tag.values.tolist() == [
        ["support", 180, 170, 10],
        ["checkout", 165, 160, 5],
        ["beta", 20, 20, 0],
        ["Other", 10, 10, 0],
    ]
    assert export_bytes(by_tag, "csv").decode().splitlines()[:2] == [
        "custom_tag,total_characters,text_translation_characters,text_improvement_characters",
        "support,180,170,10",
    ]
    with pytest.raises(ValueError, match="grouping"):
        shape_tag_export(TAG_DAY, *SPAN, "key")


def test_tag_exports_with_cost_have_no_team_without_a_teams_file():
    # 1 cent a text translation character, 3 cents an improved one: support 170 + 3 × 10.
    cents = (
        "unit_prices = { text_translation_characters = 10_000, document_translation_characters "
        "= 0, text_improvement_characters = 30_000, speech_to_text_minutes = 0 }"
    )
    costing = Costing(parse_pricing(pricing(price_from("2025-01-01", prices=cents))))
    by_tag = shape_tag_export(TAG_DAY, *SPAN, "tag", costing)
    assert list(by_tag.columns) == [*TAG_DAY_COLUMNS[1:], "usage_cost_eur"]
    assert by_tag["usage_cost_eur"].tolist() == [
        Decimal("2.00"),
        Decimal("1.75"),
        Decimal("0.20"),
        Decimal("0.10"),
    ]
    with pytest.raises(ValueError, match="need a pricing file"):
        shape_tag_export(TAG_DAY, *SPAN, "tag", Costing())
