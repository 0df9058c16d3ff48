"""The Tags page headless (Streamlit's AppTest) on the small demo organization: every figure
against the emulator's key ledger and tag ledger of the same organization, rebuilt here."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from support.headless import TODAY, chart_specs, demo_config, open_clean_page, open_page

from emulator import create_app

DAY = timedelta(days=1)


def last_days(count: int) -> tuple:
    return TODAY - count * DAY, TODAY - DAY


def text_characters(rows, metric: str = "total_characters") -> int:
    """The organization's characters a tag metric is part of (documents never are)."""
    kinds = {
        "total_characters": ("text_translation_characters", "text_improvement_characters"),
        "text_translation_characters": ("text_translation_characters",),
        "text_improvement_characters": ("text_improvement_characters",),
    }[metric]
    return sum(getattr(row, kind) for row in rows for kind in kinds)


def per_tag(tag_rows, metric: str = "total_characters") -> Counter:
    sums: Counter = Counter()
    for row in tag_rows:
        sums[row.custom_tag] += text_characters([row], metric)
    return sums


def test_tiles_chart_table_and_drilldown_match_the_ledgers(demo_env, demo_ledger):
    at = open_clean_page("tags", period="Last 30 days")
    start, end = last_days(30)
    text = text_characters(demo_ledger.ledger(start, end))
    tag_rows = demo_ledger.tag_ledger(start, end)
    tagged = sum(per_tag(tag_rows).values())
    assert 0 < tagged < text
    tiles = {metric.label: metric.value for metric in at.metric}
    assert tiles == {
        "Text characters": f"{text:,}",
        "Tagged": f"{tagged:,}",
        "Untagged": f"{text - tagged:,}",
        "Tagged share": f"{100 * tagged / text:.1f}\u202f%",
    }
    chart = chart_specs(at)[0]
    assert chart["layout"]["yaxis"]["title"]["text"] == "Text characters"  # as the tile says
    traces = chart["data"]
    assert traces[-1]["name"] == "Untagged"
    assert len(traces[-1]["y"]) == 30  # one bar per day
    assert sum(sum(trace["y"]) for trace in traces) == text
    assert sum(traces[-1]["y"]) == text - tagged

    table, days = (frame.value for frame in at.dataframe)
    assert dict(zip(table["custom_tag"], table["total_characters"], strict=True)) == per_tag(
        tag_rows
    )
    biggest = table["custom_tag"].iloc[0]
    assert at.selectbox(key="tag").value == biggest
    by_day: Counter = Counter()
    for row in tag_rows:
        if row.custom_tag == biggest:
            by_day[row.usage_date] += text_characters([row])
    shown = dict(zip(days["usage_date"].dt.date, days["total_characters"], strict=True))
    assert shown == by_day

    # Another tag from the list: its days.
    quiet = table["custom_tag"].iloc[-1]
    at.selectbox(key="tag").set_value(quiet).run()
    assert not at.exception
    days = at.dataframe[1].value
    assert days["total_characters"].sum() == per_tag(tag_rows)[quiet]


def test_the_url_sets_metric_granularity_top_search_and_tag(demo_env, demo_ledger):
    link = {
        "period": "Last 90 days",
        "metric": "Text improvement characters",
        "granularity": "Week",
        "top": "2",
        "q": "CHECK",
        "tag": "checkout",
    }
    at = open_clean_page("tags", **link)
    assert at.selectbox(key="metric").value == "text_improvement_characters"
    assert at.segmented_control(key="granularity").value == "week"
    assert at.number_input(key="top").value == 2
    assert at.text_input(key="q").value == "CHECK"
    assert at.selectbox(key="tag").value == "checkout"
    start, end = last_days(90)
    improved = text_characters(demo_ledger.ledger(start, end), "text_improvement_characters")
    tag_rows = demo_ledger.tag_ledger(start, end)
    traces = chart_specs(at)[0]["data"]
    names = [trace["name"] for trace in traces]
    leaders = [tag for tag, _ in per_tag(tag_rows, "text_improvement_characters").most_common(2)]
    assert names[:2] == leaders and names[-2:] == ["Other", "Untagged"]
    assert sum(sum(trace["y"]) for trace in traces) == improved
    table, days = (frame.value for frame in at.dataframe)
    assert table["custom_tag"].tolist() == ["checkout"]
    assert days["total_characters"].sum() == per_tag(tag_rows)["checkout"]


def test_a_metric_only_for_other_pages_falls_back_to_total_characters(demo_env):
    at = open_page("tags", period="Last 7 days", metric="Speech-to-text minutes")
    assert not at.exception
    assert at.selectbox(key="metric").value == "total_characters"


# An organization that tags per customer and per document: 2,000 tags over the same usage.
MANY_TAGS = 2_000


@pytest.fixture(scope="module")
def many_tags_ledger():
    app = create_app(demo_config(today=TODAY, tags=MANY_TAGS))
    yield app.state.emulator
    app.state.emulator.store.close()


def test_many_tags_are_all_in_the_table_and_searched_for_the_drilldown(
    demo_env, monkeypatch, many_tags_ledger
):
    monkeypatch.setenv("SERVICE_DEMO_TAGS", str(MANY_TAGS))
    start, end = last_days(90)
    sums = per_tag(many_tags_ledger.tag_ledger(start, end))
    assert len(sums) > 1_000
    at = open_clean_page("tags", period="Last 90 days")
    table = at.dataframe[0].value
    assert dict(zip(table["custom_tag"], table["total_characters"], strict=True)) == sums
    # The drop-down holds the 100 biggest tags, and says the search reaches the others.
    biggest = [tag for tag, _ in sorted(sums.items(), key=lambda item: (-item[1], item[0]))]
    assert at.selectbox(key="tag").options == biggest[:100]
    assert any("search the tag table" in caption.value for caption in at.caption)
    # The chart: the top ten, Other and Untagged, never a series per tag.
    names = [trace["name"] for trace in chart_specs(at)[0]["data"]]
    assert names == [*biggest[:10], "Other", "Untagged"]

    # A seldom tag, found by searching all of them, and drilled into.
    seldom = biggest[-1]
    at.text_input(key="q").set_value(seldom).run()
    assert at.dataframe[0].value["custom_tag"].tolist() == [seldom]
    assert at.selectbox(key="tag").options == [seldom]
    assert at.selectbox(key="tag").value == seldom
    assert at.dataframe[1].value["total_characters"].sum() == sums[seldom]


def test_a_link_to_a_seldom_tag_opens_on_it(demo_env, monkeypatch, many_tags_ledger):
    monkeypatch.setenv("SERVICE_DEMO_TAGS", str(MANY_TAGS))
    start, end = last_days(90)
    sums = per_tag(many_tags_ledger.tag_ledger(start, end))
    seldom = min(sums, key=lambda tag: (sums[tag], tag))
    at = open_clean_page("tags", period="Last 90 days", tag=seldom)
    assert at.selectbox(key="tag").value == seldom
    assert len(at.selectbox(key="tag").options) == 101
    assert at.dataframe[1].value["total_characters"].sum() == sums[seldom]
